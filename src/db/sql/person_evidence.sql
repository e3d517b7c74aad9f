SELECT p.id, p.name, p.fide_id, count(pg.game_id), min(pg.year), max(pg.year), avg(pg.rating)
FROM players p LEFT JOIN player_games pg ON pg.player_id = p.id
GROUP BY p.id
