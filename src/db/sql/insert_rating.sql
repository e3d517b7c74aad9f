INSERT INTO ratings (run_id, player_id, games, score, rating, error, rd, volatility, rank)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
