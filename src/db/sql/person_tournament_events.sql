-- The events (each name and site, in each year) in which a person has games, in date order.
SELECT e.id, e.name, e.site, g.year, count(*)
FROM games g JOIN events e ON e.id = g.event_id
WHERE g.white_id IN (SELECT id FROM player_names WHERE person_id = ?1)
   OR g.black_id IN (SELECT id FROM player_names WHERE person_id = ?1)
GROUP BY e.id, g.year
ORDER BY min(g.year), min(g.month), min(g.day), e.name
