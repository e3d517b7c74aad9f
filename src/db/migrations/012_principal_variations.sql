-- arbiter database schema, version 12: each evaluation's principal variation (issue 45 §2,
-- docs/ANALYSIS.md). Never edited once released.
--
-- `export --annotate` writes, beside each labelled move, the move that was best and the line
-- that follows it. Both tiers keep their search's principal variation with each evaluated
-- position: its first plies (`search::analysis::PV_PLIES`), best move first, two bytes a move
-- little-endian in the rules core's encoding (the same as `best_move`). NULL: no line (no
-- legal move, or an analysis stored before version 12).

ALTER TABLE run_evaluations ADD COLUMN pv BLOB;

DROP VIEW evaluations;
CREATE VIEW evaluations AS
SELECT r.game_id AS game_id, e.ply AS ply, e.score_cp AS score_cp, e.mate AS mate,
    e.depth AS depth, e.nodes AS nodes, e.best_move AS best_move, e.deep AS deep,
    e.engine AS engine, e.pv AS pv
FROM analysis_runs r JOIN run_evaluations e ON e.run_id = r.id
WHERE r.current = 1;

PRAGMA user_version = 12;
