SELECT person_id, name, fide_id FROM player_names ORDER BY id
