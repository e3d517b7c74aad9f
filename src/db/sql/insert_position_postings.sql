INSERT INTO position_postings (row, entries) VALUES ((?1 << 32) | ?2, ?3)
