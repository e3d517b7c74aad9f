INSERT INTO openings (eco, name, family, variation) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (name) DO UPDATE SET name = excluded.name RETURNING id
