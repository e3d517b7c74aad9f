INSERT INTO analysis_runs (game_id, current, white_accuracy, black_accuracy, white_inaccuracies,
    white_mistakes, white_blunders, black_inaccuracies, black_mistakes, black_blunders, settings,
    engine_positions, engine_nodes, positions)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
