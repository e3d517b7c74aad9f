UPDATE games SET moves_hash = ?2, tc_class = ?3, eco = ?4, opening = ?5, opening_family = ?6,
    opening_variation = ?7, opening_ply = ?8
WHERE id = ?1
