DELETE FROM run_evaluations WHERE run_id IN (SELECT id FROM analysis_runs WHERE game_id = ?1 AND settings = ?2)
