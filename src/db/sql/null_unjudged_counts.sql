UPDATE analysis_runs SET
    white_inaccuracies = CASE WHEN ?2 THEN white_inaccuracies END,
    black_inaccuracies = CASE WHEN ?2 THEN black_inaccuracies END,
    white_mistakes = CASE WHEN ?3 THEN white_mistakes END,
    black_mistakes = CASE WHEN ?3 THEN black_mistakes END
WHERE settings = ?1
