SELECT DISTINCT player_id, year * 10000 + month * 100 + day, event_id FROM player_games
WHERE day IS NOT NULL AND month IS NOT NULL AND year IS NOT NULL AND event_id IS NOT NULL
ORDER BY 1, 2, 3
