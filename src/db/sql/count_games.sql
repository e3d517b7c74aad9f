SELECT count(*) FROM games
