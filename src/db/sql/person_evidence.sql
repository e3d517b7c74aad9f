SELECT p.id, p.name, p.fide_id, count(pg.game_id), min(pg.year), max(pg.year), avg(pg.rating),
       min(pg.year * 10000 + coalesce(pg.month, 1) * 100 + coalesce(pg.day, 1)),
       max(pg.year * 10000 + coalesce(pg.month, 12) * 100 + coalesce(pg.day, 31)),
       avg(pg.opponent_rating)
FROM players p LEFT JOIN player_games pg ON pg.player_id = p.id
GROUP BY p.id
