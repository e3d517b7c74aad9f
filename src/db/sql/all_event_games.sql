-- Every game that belongs to an event, in a few columns, for building all events at once; the
-- spelling → person map, the duplicate records and the forfeit terminations are read apart.
SELECT g.id, g.event_id, g.year, g.month, g.day, g.round, g.white_id, g.black_id,
       g.white_elo, g.black_elo, COALESCE(g.lawful_result, g.result), g.ply_count
FROM games g
WHERE g.event_id IS NOT NULL
