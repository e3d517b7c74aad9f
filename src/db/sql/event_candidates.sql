-- The stored events (name, site) and their years that a tournament can be built from, with
-- their games (duplicate records that are not their group's survivor left out). ?1: a name
-- pattern for LIKE ('%' wraps a part, none for the whole name, which LIKE compares without
-- regard to ASCII case); ?2: a site pattern or NULL; ?3: a year or NULL.
SELECT e.id, e.name, e.site, g.year, COUNT(*)
FROM events e JOIN games g ON g.event_id = e.id
WHERE e.name LIKE ?1
  AND (?2 IS NULL OR e.site LIKE ?2)
  AND (?3 IS NULL OR g.year = ?3)
  AND NOT EXISTS (SELECT 1 FROM duplicate_members d WHERE d.game_id = g.id AND d.survivor = 0)
GROUP BY e.id, g.year
ORDER BY e.name, e.site, g.year
