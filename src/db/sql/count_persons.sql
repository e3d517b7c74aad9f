SELECT count(*) FROM players
