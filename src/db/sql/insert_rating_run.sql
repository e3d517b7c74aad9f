INSERT INTO rating_runs (system, settings, created_at, games, skipped) VALUES (?1, ?2, ?3, ?4, ?5)
