INSERT INTO events (name, site) VALUES (?1, ?2) ON CONFLICT (name, site) DO UPDATE SET name = excluded.name RETURNING id
