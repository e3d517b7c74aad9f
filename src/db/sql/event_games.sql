-- One event's games in one year (?2 NULL: the games without a year), in the columns of
-- all_event_games.sql: the persons behind the two spellings with their names, ratings,
-- titles, federations and FIDE ids, the effective result (the Laws' where they decide, as the
-- player_games view), the ply count and whether a Termination tag says forfeit. Duplicate
-- records that are not their group's survivor are left out.
SELECT g.id, g.event_id, g.year, g.month, g.day, g.round,
       wn.person_id, wp.name, g.white_elo, g.white_title, g.white_fed, g.white_fide_id,
       bn.person_id, bp.name, g.black_elo, g.black_title, g.black_fed, g.black_fide_id,
       COALESCE(g.lawful_result, g.result), g.ply_count,
       EXISTS (SELECT 1 FROM tags t WHERE t.game_id = g.id AND t.name = 'Termination'
               AND lower(t.value) LIKE '%forfeit%')
FROM games g
     LEFT JOIN player_names wn ON wn.id = g.white_id
     LEFT JOIN players wp ON wp.id = wn.person_id
     LEFT JOIN player_names bn ON bn.id = g.black_id
     LEFT JOIN players bp ON bp.id = bn.person_id
WHERE g.event_id = ?1 AND g.year IS ?2
  AND NOT EXISTS (SELECT 1 FROM duplicate_members d WHERE d.game_id = g.id AND d.survivor = 0)
ORDER BY g.id
