SELECT id, settings FROM analysis_runs WHERE game_id = ?1 AND current = 1
