UPDATE analysis_runs SET current = 0 WHERE id = ?1
