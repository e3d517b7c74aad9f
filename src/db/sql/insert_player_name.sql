INSERT INTO player_names (name, fide_id, person_id) VALUES (?1, ?2, ?3)
