INSERT INTO position_keys (row, entries) VALUES ((?1 << 32) | ?2, ?3)
