SELECT DISTINCT player_id, opponent_id FROM player_games WHERE opponent_id IS NOT NULL
