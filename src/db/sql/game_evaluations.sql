-- The evaluations of a game's current analysis (White's view), in ply order.
SELECT ply, score_cp, mate FROM evaluations WHERE game_id = ?1 ORDER BY ply
