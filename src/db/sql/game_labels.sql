-- The labels of a game's current analysis (inaccuracies, mistakes, blunders): the move's ply
-- and the finding's code.
SELECT ply, code FROM findings
WHERE game_id = ?1 AND code IN ('analysis.inaccuracy', 'analysis.mistake', 'analysis.blunder')
ORDER BY ply
