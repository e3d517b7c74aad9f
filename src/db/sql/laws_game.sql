SELECT id, start_fen, variant, moves, laws_edition, date, termination_ply FROM games WHERE id = ?1
