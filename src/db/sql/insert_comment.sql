INSERT INTO comments (game_id, ply, seq, text) VALUES (?1, ?2, ?3, ?4)
