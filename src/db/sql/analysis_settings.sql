SELECT DISTINCT settings FROM analysis_runs
