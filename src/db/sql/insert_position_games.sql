INSERT INTO position_games (first_game, last_game, facts, spans) VALUES (?1, ?2, ?3, ?4)
