-- arbiter database schema, version 1 (PRAGMA user_version = 1).
-- This file is the first migration: later versions are appended in src/db/migrations/,
-- never edited here. Foreign keys are on; the database runs in WAL mode.
-- Every column is described where it is defined. Moves are stored in the compact binary
-- form described in docs/SCHEMA.md.

-- One row per input file imported (or being imported). A source is identified by its path,
-- size, modification time and a hash of its first megabyte; the last committed batch makes a
-- killed import resumable.
CREATE TABLE imports (
    id            INTEGER PRIMARY KEY,
    path          TEXT    NOT NULL,            -- path as given on the command line ('-' for stdin)
    size          INTEGER,                     -- bytes on disk (compressed size), NULL for stdin
    mtime         INTEGER,                     -- modification time, seconds since 1970, NULL for stdin
    head_hash     BLOB    NOT NULL,            -- 16-byte hash of the first MiB of the raw file
    compression   TEXT    NOT NULL,            -- none, gzip, bzip2, zstd or xz (found by magic bytes)
    started_at    TEXT    NOT NULL,            -- UTC, ISO 8601
    finished_at   TEXT,                        -- UTC, set when the whole file went through
    last_byte     INTEGER NOT NULL DEFAULT 0,  -- decompressed byte offset after the last committed game
    last_game     INTEGER NOT NULL DEFAULT 0,  -- game number (1-based) of the last committed game
    games_read    INTEGER NOT NULL DEFAULT 0,  -- games seen, over all runs of this import
    games_stored  INTEGER NOT NULL DEFAULT 0,  -- new games written to `games`
    games_present INTEGER NOT NULL DEFAULT 0,  -- games whose content hash was already stored
    games_rejected INTEGER NOT NULL DEFAULT 0, -- games rejected (see `rejected_games`)
    settings      TEXT    NOT NULL,            -- JSON: SAN mode, laws edition choice, budgets
    UNIQUE (path, size, mtime, head_hash)
);

-- Players by name exactly as written in the White/Black tags.
CREATE TABLE players (
    id   INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);

-- Events by Event and Site tag, as written.
CREATE TABLE events (
    id   INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    site TEXT NOT NULL,
    UNIQUE (name, site)
);

-- One row per accepted game.
CREATE TABLE games (
    id              INTEGER PRIMARY KEY,
    import_id       INTEGER NOT NULL REFERENCES imports(id),
    game_number     INTEGER NOT NULL,   -- 1-based position of the game in its file
    byte_offset     INTEGER NOT NULL,   -- decompressed byte offset of the game's first byte
    line            INTEGER NOT NULL,   -- 1-based line of the game's first byte
    content_hash    BLOB    NOT NULL UNIQUE, -- 16 bytes: identifying tags + moves (docs/SCHEMA.md)
    event_id        INTEGER REFERENCES events(id),
    site            TEXT,               -- Site tag
    date            TEXT,               -- Date tag as written (YYYY.MM.DD, '?' for unknown parts)
    year            INTEGER,            -- parts of the date that are known, else NULL
    month           INTEGER,
    day             INTEGER,
    round           TEXT,               -- Round tag
    white_id        INTEGER REFERENCES players(id),
    black_id        INTEGER REFERENCES players(id),
    white_elo       INTEGER,            -- WhiteElo / BlackElo when numeric
    black_elo       INTEGER,
    result          TEXT,               -- Result tag as written
    result_marker   TEXT,               -- the termination marker after the moves (1-0, 0-1, 1/2-1/2, *)
    lawful_result   TEXT,               -- the result the Laws decide (NULL: left to the players)
    termination     TEXT,               -- automatic ending: checkmate, stalemate, dead-position, fivefold, seventy-five
    termination_ply INTEGER,            -- ply at which that ending happened (0 = start position)
    threefold_ply   INTEGER,            -- first ply at which a threefold repetition could be claimed
    fifty_ply       INTEGER,            -- first ply at which a fifty-move draw could be claimed
    laws_edition    TEXT,               -- edition applied: 1980, 1997, 2001 or 2014 (NULL: not judged)
    laws_undated    INTEGER NOT NULL DEFAULT 0, -- 1 when the edition was chosen without a usable date
    variant         TEXT    NOT NULL,   -- standard or chess960
    start_fen       TEXT,               -- FEN tag as written (the start position); NULL for the standard start
    ply_count       INTEGER NOT NULL,   -- half-moves in the main line
    final_fen       TEXT    NOT NULL,   -- FEN after the last move
    moves           BLOB    NOT NULL,   -- main line, 2 bytes per ply (docs/SCHEMA.md)
    clocks          BLOB,               -- [%clk] per ply, 4 bytes each (ms; 0xFFFFFFFF: none); NULL if none
    annotated       TEXT                -- full movetext with variations and NAGs, when the game had any
);
CREATE INDEX games_white ON games(white_id);
CREATE INDEX games_black ON games(black_id);
CREATE INDEX games_event ON games(event_id);
CREATE INDEX games_date ON games(year, month, day);
CREATE INDEX games_result ON games(result);
CREATE INDEX games_lawful ON games(lawful_result);
CREATE INDEX games_import ON games(import_id, game_number);

-- Every tag not kept in its own column of `games`, in file order, so nothing is lost.
CREATE TABLE tags (
    game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seq     INTEGER NOT NULL,           -- 0-based order among the game's tags
    name    TEXT    NOT NULL,
    value   TEXT    NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
CREATE INDEX tags_name ON tags(name, value);

-- Findings about stored games: reader, replay and the Laws.
CREATE TABLE findings (
    id       INTEGER PRIMARY KEY,
    game_id  INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    code     TEXT    NOT NULL,          -- stable code, see docs/findings.md
    severity TEXT    NOT NULL,          -- error, warning or info
    ply      INTEGER,                   -- ply the finding is about, when there is one
    line     INTEGER NOT NULL,          -- where in the file (1-based line, column; byte offset)
    col      INTEGER NOT NULL,
    byte     INTEGER NOT NULL,
    token    TEXT,                      -- the offending token, when there is one
    detail   TEXT    NOT NULL           -- the message for people
);
CREATE INDEX findings_game ON findings(game_id);
CREATE INDEX findings_code ON findings(code, severity);

-- Comments of the main line: ply 0 is before the first move, ply n after move n.
CREATE TABLE comments (
    game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    ply     INTEGER NOT NULL,
    seq     INTEGER NOT NULL,           -- order among the comments at that ply
    text    TEXT    NOT NULL,           -- as written, commands such as [%clk] included
    PRIMARY KEY (game_id, ply, seq)
) WITHOUT ROWID;

-- Games rejected during an import: kept verbatim in the quarantine file, listed here.
CREATE TABLE rejected_games (
    import_id   INTEGER NOT NULL REFERENCES imports(id),
    game_number INTEGER NOT NULL,
    byte_offset INTEGER NOT NULL,
    line        INTEGER NOT NULL,
    code        TEXT    NOT NULL,       -- the first error's code
    detail      TEXT    NOT NULL,       -- the first error's message
    PRIMARY KEY (import_id, game_number)
) WITHOUT ROWID;

-- The search's evaluation of each analysed ply (`--analyse`): the position after move `ply`
-- (ply 0: the start position), as the cheap pass or a deeper search left it.
CREATE TABLE evaluations (
    game_id   INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    ply       INTEGER NOT NULL,
    score_cp  INTEGER,                  -- centipawns from White's point of view, or NULL for a mate
    mate      INTEGER,                  -- mate in n moves from White's view (negative: Black mates), or NULL
    depth     INTEGER NOT NULL,
    nodes     INTEGER NOT NULL,
    best_move INTEGER,                  -- 16-bit move, same encoding as games.moves
    deep      INTEGER NOT NULL,         -- 1 when a deeper search re-evaluated this critical position
    PRIMARY KEY (game_id, ply)
) WITHOUT ROWID;

-- Per-game results of the analysis (docs/ANALYSIS.md): accuracy and judgement counts.
CREATE TABLE analyses (
    game_id          INTEGER PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
    white_accuracy   REAL,              -- lichess-style game accuracy, 0-100
    black_accuracy   REAL,
    white_inaccuracies INTEGER NOT NULL,
    white_mistakes   INTEGER NOT NULL,
    white_blunders   INTEGER NOT NULL,
    black_inaccuracies INTEGER NOT NULL,
    black_mistakes   INTEGER NOT NULL,
    black_blunders   INTEGER NOT NULL,
    settings         TEXT    NOT NULL   -- JSON: engine version and budgets, for reproduction
);

PRAGMA user_version = 1;
