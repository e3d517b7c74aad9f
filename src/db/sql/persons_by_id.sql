SELECT id, name FROM players ORDER BY id
