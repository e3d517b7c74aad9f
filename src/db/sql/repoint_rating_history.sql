UPDATE OR IGNORE rating_history SET player_id = ?2
WHERE player_id = ?1 AND run_id NOT IN (SELECT run_id FROM ratings WHERE player_id = ?2)
