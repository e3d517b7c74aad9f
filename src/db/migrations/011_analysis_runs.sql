-- arbiter database schema, version 11: an analysis per engine and settings, and the one each
-- game reads (issue 45, docs/ANALYSIS.md). Never edited once released.
--
-- Until version 10 a game had one analysis: a run under other settings replaced it, an engine's
-- with arbiter's own weaker one too. From here every analysis of a game is kept, one per
-- settings, and the writer (`db::analyses::store`) flags the strongest as `current`: an
-- engine's over arbiter's own search, a higher budget over a lower one. `analyses` and
-- `evaluations` become views of the current analysis, with the columns they had, so every
-- reader reads the strongest analysis as it read the only one.

CREATE TABLE analysis_runs (
    id                 INTEGER PRIMARY KEY,
    game_id            INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    current            INTEGER NOT NULL,  -- 1: the game's strongest analysis, the one read
    white_accuracy     REAL,
    black_accuracy     REAL,
    -- NULL: a label this analysis never gives (arbiter's own search gives blunders only), so
    -- the count is unknown, not 0; `db::analyses::after_v11` nulls the copied ones.
    white_inaccuracies INTEGER,
    white_mistakes     INTEGER,
    white_blunders     INTEGER NOT NULL,
    black_inaccuracies INTEGER,
    black_mistakes     INTEGER,
    black_blunders     INTEGER NOT NULL,
    settings           TEXT    NOT NULL,  -- JSON: engine, budgets; one run per game and settings
    engine_positions   INTEGER,
    engine_nodes       INTEGER,
    positions          INTEGER
);
CREATE INDEX analysis_runs_game ON analysis_runs (game_id);
CREATE UNIQUE INDEX analysis_runs_current ON analysis_runs (game_id) WHERE current = 1;

-- Each run's evaluations, as `evaluations` held them (ply 0: the start position).
CREATE TABLE run_evaluations (
    run_id    INTEGER NOT NULL REFERENCES analysis_runs(id) ON DELETE CASCADE,
    ply       INTEGER NOT NULL,
    score_cp  INTEGER,
    mate      INTEGER,
    depth     INTEGER NOT NULL,
    nodes     INTEGER NOT NULL,
    best_move INTEGER,
    deep      INTEGER NOT NULL,
    engine    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, ply)
) WITHOUT ROWID;

-- A version-10 game has at most one analysis: it is the current one.
INSERT INTO analysis_runs (game_id, current, white_accuracy, black_accuracy, white_inaccuracies,
    white_mistakes, white_blunders, black_inaccuracies, black_mistakes, black_blunders, settings,
    engine_positions, engine_nodes, positions)
SELECT game_id, 1, white_accuracy, black_accuracy, white_inaccuracies, white_mistakes,
    white_blunders, black_inaccuracies, black_mistakes, black_blunders, settings,
    engine_positions, engine_nodes, positions
FROM analyses ORDER BY game_id;

INSERT INTO run_evaluations (run_id, ply, score_cp, mate, depth, nodes, best_move, deep, engine)
SELECT r.id, e.ply, e.score_cp, e.mate, e.depth, e.nodes, e.best_move, e.deep, e.engine
FROM evaluations e JOIN analysis_runs r ON r.game_id = e.game_id
ORDER BY r.id, e.ply;

DROP TABLE analyses;
DROP TABLE evaluations;

-- The analysis each game reads, with version 10's columns.
CREATE VIEW analyses AS
SELECT game_id, white_accuracy, black_accuracy, white_inaccuracies, white_mistakes,
    white_blunders, black_inaccuracies, black_mistakes, black_blunders, settings,
    engine_positions, engine_nodes, positions
FROM analysis_runs WHERE current = 1;

CREATE VIEW evaluations AS
SELECT r.game_id AS game_id, e.ply AS ply, e.score_cp AS score_cp, e.mate AS mate,
    e.depth AS depth, e.nodes AS nodes, e.best_move AS best_move, e.deep AS deep,
    e.engine AS engine
FROM analysis_runs r JOIN run_evaluations e ON e.run_id = r.id
WHERE r.current = 1;

PRAGMA user_version = 11;
