INSERT INTO position_material (row, entries) VALUES (?1, ?2)
