INSERT INTO position_facts (first_game, last_game, facts) VALUES (?1, ?2, ?3)
