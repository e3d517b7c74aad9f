SELECT id, name, fide_id, person_id FROM player_names ORDER BY id
