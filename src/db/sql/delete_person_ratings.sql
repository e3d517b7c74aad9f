DELETE FROM ratings WHERE player_id = ?1
