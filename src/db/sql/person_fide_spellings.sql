SELECT name, fide_id FROM player_names WHERE fide_id IS NOT NULL
