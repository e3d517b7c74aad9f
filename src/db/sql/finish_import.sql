UPDATE imports SET finished_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = ?1
