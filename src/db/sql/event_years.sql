-- One stored event's years, each with its site and its games (duplicate records that are not
-- their group's survivor left out). ?1: the event's id.
SELECT e.id, e.name, e.site, g.year, COUNT(*)
FROM events e JOIN games g ON g.event_id = e.id
WHERE e.id = ?1
  AND NOT EXISTS (SELECT 1 FROM duplicate_members d WHERE d.game_id = g.id AND d.survivor = 0)
GROUP BY g.year
ORDER BY g.year
