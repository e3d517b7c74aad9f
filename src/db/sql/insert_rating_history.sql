INSERT INTO rating_history (run_id, player_id, period, games, rating, rd, volatility)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
