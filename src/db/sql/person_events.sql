SELECT DISTINCT player_id, event_id FROM player_games WHERE event_id IS NOT NULL
