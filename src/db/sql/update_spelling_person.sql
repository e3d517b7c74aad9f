UPDATE player_names SET person_id = ?2 WHERE id = ?1
