INSERT INTO tags (game_id, seq, name, value) VALUES (?1, ?2, ?3, ?4)
