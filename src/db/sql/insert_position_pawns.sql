INSERT INTO position_pawns (row, entries) VALUES (?1, ?2)
