INSERT INTO position_tails (first_game, last_game, records) VALUES (?1, ?2, ?3)
