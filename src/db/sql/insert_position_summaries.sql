INSERT INTO position_summaries (first_game, last_game, summaries) VALUES (?1, ?2, ?3)
