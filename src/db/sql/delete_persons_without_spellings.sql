DELETE FROM players WHERE id NOT IN (SELECT person_id FROM player_names)
