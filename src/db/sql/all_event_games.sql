-- Every game that belongs to an event, in the columns of event_games.sql, grouped by event
-- and year (the order `for_each_event` builds them in), for building all events in one scan.
-- Duplicate records that are not their group's survivor are left out. The forfeit column is
-- 0 here: the Termination tags are read apart in one scan (forfeit_terminations.sql), which
-- is quicker than a look-up per game.
SELECT g.id, g.event_id, g.year, g.month, g.day, g.round,
       wn.person_id, wp.name, g.white_elo, g.white_title, g.white_fed, g.white_fide_id,
       bn.person_id, bp.name, g.black_elo, g.black_title, g.black_fed, g.black_fide_id,
       COALESCE(g.lawful_result, g.result), g.ply_count,
       0
FROM games g
     LEFT JOIN player_names wn ON wn.id = g.white_id
     LEFT JOIN players wp ON wp.id = wn.person_id
     LEFT JOIN player_names bn ON bn.id = g.black_id
     LEFT JOIN players bp ON bp.id = bn.person_id
WHERE g.event_id IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM duplicate_members d WHERE d.game_id = g.id AND d.survivor = 0)
ORDER BY g.event_id, g.year, g.id
