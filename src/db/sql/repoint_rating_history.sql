UPDATE OR IGNORE rating_history SET player_id = ?2 WHERE player_id = ?1
