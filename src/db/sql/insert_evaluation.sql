INSERT INTO run_evaluations (run_id, ply, score_cp, mate, depth, nodes, best_move, deep, engine, pv) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
