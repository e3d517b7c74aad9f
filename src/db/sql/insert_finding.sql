INSERT INTO findings (game_id, code, severity, ply, line, col, byte, token, detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
