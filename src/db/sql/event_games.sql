-- One event's games in one year (?2 NULL: the games without a year): the persons behind the
-- two spellings, ratings, the effective result (the Laws' where they decide, as the
-- player_games view), the ply count and whether a Termination tag says forfeit. Duplicate
-- records that are not their group's survivor are left out.
SELECT g.id, g.year, g.month, g.day, g.round, wn.person_id, bn.person_id, g.white_elo,
       g.black_elo, COALESCE(g.lawful_result, g.result), g.ply_count,
       EXISTS (SELECT 1 FROM tags t WHERE t.game_id = g.id AND t.name = 'Termination'
               AND lower(t.value) LIKE '%forfeit%')
FROM games g
     LEFT JOIN player_names wn ON wn.id = g.white_id
     LEFT JOIN player_names bn ON bn.id = g.black_id
WHERE g.event_id = ?1 AND g.year IS ?2
  AND NOT EXISTS (SELECT 1 FROM duplicate_members d WHERE d.game_id = g.id AND d.survivor = 0)
ORDER BY g.id
