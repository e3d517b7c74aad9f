SELECT g.id, g.moves, g.ply_count, w.person_id, b.person_id, g.white_id, g.black_id,
    g.event_id, g.year, g.month, g.day, g.round, g.result,
    g.annotated IS NOT NULL OR EXISTS (SELECT 1 FROM comments c WHERE c.game_id = g.id
        AND substr(ltrim(c.text), 1, 2) <> '[%'),
    g.clocks IS NOT NULL,
    (SELECT count(*) FROM tags t WHERE t.game_id = g.id), g.start_fen, g.variant
FROM games g LEFT JOIN player_names w ON w.id = g.white_id
    LEFT JOIN player_names b ON b.id = g.black_id
