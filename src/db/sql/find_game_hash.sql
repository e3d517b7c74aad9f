SELECT 1 FROM game_hashes WHERE content_hash = ?1
