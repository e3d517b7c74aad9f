INSERT OR REPLACE INTO rejected_games (import_id, game_number, byte_offset, line, code, detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
