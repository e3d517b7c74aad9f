DELETE FROM analyses WHERE game_id = ?1
