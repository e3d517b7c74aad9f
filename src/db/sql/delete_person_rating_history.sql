DELETE FROM rating_history WHERE player_id = ?1
