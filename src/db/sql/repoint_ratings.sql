UPDATE OR IGNORE ratings SET player_id = ?2 WHERE player_id = ?1
