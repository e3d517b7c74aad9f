SELECT p.id, p.name, p.key,
    (SELECT count(*) FROM player_games pg WHERE pg.player_id = p.id) AS total,
    n.name, n.fide_id,
    (SELECT count(*) FROM games g WHERE g.white_id = n.id)
        + (SELECT count(*) FROM games g WHERE g.black_id = n.id)
FROM players p JOIN player_names n ON n.person_id = p.id
WHERE p.id IN (SELECT person_id FROM player_names WHERE name LIKE ?1)
ORDER BY total DESC, p.id, n.name
