INSERT OR IGNORE INTO game_hashes (content_hash, game_id) VALUES (?1, ?2)
