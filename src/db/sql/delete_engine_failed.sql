DELETE FROM findings WHERE game_id = ?1 AND code = 'analysis.engine-failed'
