DELETE FROM analysis_runs WHERE game_id = ?1 AND settings = ?2
