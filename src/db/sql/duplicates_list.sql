SELECT d.id, d.kind, m.game_id, m.survivor, w.name, b.name, g.date, e.name, g.ply_count, m.reason
FROM duplicate_groups d JOIN duplicate_members m ON m.group_id = d.id
    JOIN games g ON g.id = m.game_id
    LEFT JOIN player_names w ON w.id = g.white_id
    LEFT JOIN player_names b ON b.id = g.black_id
    LEFT JOIN events e ON e.id = g.event_id
WHERE d.kind LIKE ?1 /* selected */
ORDER BY d.id, m.survivor DESC, m.game_id
