SELECT id FROM player_names WHERE name = ?1 AND fide_id IS ?2
