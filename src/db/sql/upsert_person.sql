INSERT INTO players (name, fide_id, key) VALUES (?1, ?2, ?3) ON CONFLICT (key) DO UPDATE SET key = excluded.key RETURNING id
