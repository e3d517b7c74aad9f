INSERT INTO imports (path, size, mtime, head_hash, compression, started_at, settings)
VALUES (?1, ?2, ?3, ?4, ?5, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?6)
