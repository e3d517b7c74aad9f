SELECT player_id, year, sum(rating), count(rating), sum(opponent_rating), count(opponent_rating)
FROM player_games WHERE year IS NOT NULL
GROUP BY player_id, year
