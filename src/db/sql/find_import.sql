SELECT id, last_byte, last_game, finished_at FROM imports
WHERE path = ?1 AND size IS ?2 AND mtime IS ?3 AND head_hash = ?4
