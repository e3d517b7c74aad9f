DELETE FROM evaluations WHERE game_id = ?1
