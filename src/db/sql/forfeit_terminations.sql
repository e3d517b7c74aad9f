-- Games whose Termination tag says forfeit.
SELECT game_id FROM tags WHERE name = 'Termination' AND lower(value) LIKE '%forfeit%'
