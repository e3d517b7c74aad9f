UPDATE imports SET last_byte = ?2, last_game = ?3, games_read = games_read + ?4,
    games_stored = games_stored + ?5, games_present = games_present + ?6,
    games_rejected = games_rejected + ?7
WHERE id = ?1
