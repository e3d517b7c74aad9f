-- arbiter database schema, version 3 (PRAGMA user_version = 3): import at scale.
-- `games` is rebuilt once, smaller: what can be derived is not stored (the final FEN is the
-- replay of the moves), opening names live once in `openings`, the content hash moves to
-- its own lookup table, and indexes nobody reads are gone. Measured on the master games:
-- docs/PERFORMANCE.md. Never edited once released.
-- Runs with foreign keys off (src/db/open.rs), checked with foreign_key_check before commit.

-- Openings by position, one row per name (lichess's CC0 names): a game holds its id.
CREATE TABLE openings (
    id        INTEGER PRIMARY KEY,
    eco       TEXT    NOT NULL,             -- A00..E99
    name      TEXT    NOT NULL UNIQUE,      -- 'Sicilian Defense: Najdorf Variation'
    family    TEXT    NOT NULL,             -- the part before ':'
    variation TEXT                          -- the part after ':' (NULL if none)
);
INSERT INTO openings (eco, name, family, variation)
    SELECT eco, opening, min(opening_family), min(opening_variation) FROM games
    WHERE opening IS NOT NULL GROUP BY opening ORDER BY opening;

-- The content hash of every stored game (docs/SCHEMA.md): what makes an import idempotent.
-- Its own table, not a column of `games`: `games` grows at its end (ids in insertion order),
-- and only this lookup takes the random insert a hash implies.
CREATE TABLE game_hashes (
    content_hash BLOB    PRIMARY KEY,       -- 16 bytes: identifying tags + moves
    game_id      INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE
) WITHOUT ROWID;
INSERT INTO game_hashes (content_hash, game_id) SELECT content_hash, id FROM games;

-- The view reads `games`: it goes while the table is rebuilt, and comes back below.
DROP VIEW player_games;

-- Small columns first, the blobs last: a scan that reads no moves never reads their pages.
CREATE TABLE games_v3 (
    id              INTEGER PRIMARY KEY,
    import_id       INTEGER NOT NULL REFERENCES imports(id),
    game_number     INTEGER NOT NULL,   -- 1-based position of the game in its file
    byte_offset     INTEGER NOT NULL,   -- decompressed byte offset of the game's first byte
    line            INTEGER NOT NULL,   -- 1-based line of the game's first byte
    event_id        INTEGER REFERENCES events(id),
    site            TEXT,               -- Site tag
    date            TEXT,               -- Date tag as written (YYYY.MM.DD, '?' for unknown parts)
    year            INTEGER,            -- parts of the date that are known, else NULL
    month           INTEGER,
    day             INTEGER,
    round           TEXT,               -- Round tag
    white_id        INTEGER REFERENCES player_names(id),
    black_id        INTEGER REFERENCES player_names(id),
    white_elo       INTEGER,            -- WhiteElo / BlackElo when numeric
    black_elo       INTEGER,
    result          TEXT,               -- Result tag as written
    result_marker   TEXT,               -- the termination marker after the moves
    lawful_result   TEXT,               -- the result the Laws decide (NULL: left to the players)
    termination     TEXT,               -- automatic ending (checkmate, stalemate, ...)
    termination_ply INTEGER,            -- ply at which that ending happened (0 = start position)
    threefold_ply   INTEGER,            -- first ply at which a threefold repetition could be claimed
    fifty_ply       INTEGER,            -- first ply at which a fifty-move draw could be claimed
    laws_edition    TEXT,               -- edition applied: 1980, 1993 (1997 before the rename), 2001 or 2014 (NULL: not judged)
    laws_undated    INTEGER NOT NULL DEFAULT 0, -- 1 when the edition was chosen without a usable date
    variant         TEXT    NOT NULL,   -- standard or chess960
    start_fen       TEXT,               -- FEN tag as written; NULL for the standard start
    ply_count       INTEGER NOT NULL,   -- half-moves in the main line
    eco             TEXT,               -- A00..E99 of the deepest named position
    opening_id      INTEGER REFERENCES openings(id), -- that position's name
    opening_ply     INTEGER,            -- ply of the deepest named position
    white_fide_id   INTEGER,            -- WhiteFideId / BlackFideId when numeric
    black_fide_id   INTEGER,
    white_title     TEXT,               -- WhiteTitle / BlackTitle
    black_title     TEXT,
    white_fed       TEXT,               -- WhiteFed, else WhiteTeam (BlackFed, BlackTeam)
    black_fed       TEXT,
    time_control    TEXT,               -- TimeControl tag as written
    tc_class        TEXT,               -- classical, rapid, blitz, bullet, correspondence, unknown
    moves_hash      BLOB,               -- 16 bytes: start FEN + moves only (docs/SCHEMA.md)
    moves           BLOB    NOT NULL,   -- main line, 2 bytes per ply (docs/SCHEMA.md)
    clocks          BLOB,               -- [%clk] per ply, 4 bytes each; NULL if none
    annotated       TEXT                -- full movetext with variations and NAGs, when it had any
);
INSERT INTO games_v3 (id, import_id, game_number, byte_offset, line, event_id, site, date, year,
    month, day, round, white_id, black_id, white_elo, black_elo, result, result_marker,
    lawful_result, termination, termination_ply, threefold_ply, fifty_ply, laws_edition,
    laws_undated, variant, start_fen, ply_count, eco, opening_id, opening_ply, white_fide_id,
    black_fide_id, white_title, black_title, white_fed, black_fed, time_control, tc_class,
    moves_hash, moves, clocks, annotated)
SELECT g.id, g.import_id, g.game_number, g.byte_offset, g.line, g.event_id, g.site, g.date,
    g.year, g.month, g.day, g.round, g.white_id, g.black_id, g.white_elo, g.black_elo, g.result,
    g.result_marker, g.lawful_result, g.termination, g.termination_ply, g.threefold_ply,
    g.fifty_ply, g.laws_edition, g.laws_undated, g.variant, g.start_fen, g.ply_count, g.eco,
    o.id, g.opening_ply, g.white_fide_id, g.black_fide_id, g.white_title, g.black_title,
    g.white_fed, g.black_fed, g.time_control, g.tc_class, g.moves_hash, g.moves, g.clocks,
    g.annotated
FROM games g LEFT JOIN openings o ON o.name = g.opening ORDER BY g.id;
DROP TABLE games;
ALTER TABLE games_v3 RENAME TO games;

-- The indexes that queries use: players, events, dates, openings. Gone: result and lawful
-- result (three values each: a scan is as quick), import (nothing looks games up by it),
-- moves_hash (duplicates reads every game in order), tags' (name, value) (nothing looks a
-- tag up by its value; the one reader of a tag by name scans).
CREATE INDEX games_white ON games(white_id);
CREATE INDEX games_black ON games(black_id);
CREATE INDEX games_event ON games(event_id);
CREATE INDEX games_date ON games(year, month, day);
CREATE INDEX games_eco ON games(eco);
DROP INDEX tags_name;

-- As in version 2, with the opening's names from `openings`.
CREATE VIEW player_games AS
SELECT g.id AS game_id, wn.person_id AS player_id, g.white_id AS name_id, 'white' AS colour,
       bn.person_id AS opponent_id, g.black_id AS opponent_name_id,
       g.white_elo AS rating, g.black_elo AS opponent_rating,
       COALESCE(g.lawful_result, g.result) AS result,
       CASE COALESCE(g.lawful_result, g.result)
           WHEN '1-0' THEN 1.0 WHEN '0-1' THEN 0.0 WHEN '1/2-1/2' THEN 0.5 END AS score,
       CASE g.result WHEN '1-0' THEN 1.0 WHEN '0-1' THEN 0.0 WHEN '1/2-1/2' THEN 0.5 END
           AS recorded_score,
       g.date, g.year, g.month, g.day, g.event_id, g.eco, o.name AS opening,
       o.family AS opening_family, g.tc_class, g.time_control, g.ply_count, g.termination,
       g.laws_edition,
       EXISTS (SELECT 1 FROM duplicate_members d WHERE d.game_id = g.id AND d.survivor = 0)
           AS duplicate
FROM games g JOIN player_names wn ON wn.id = g.white_id
     LEFT JOIN player_names bn ON bn.id = g.black_id
     LEFT JOIN openings o ON o.id = g.opening_id
UNION ALL
SELECT g.id, bn.person_id, g.black_id, 'black', wn.person_id, g.white_id,
       g.black_elo, g.white_elo,
       COALESCE(g.lawful_result, g.result),
       CASE COALESCE(g.lawful_result, g.result)
           WHEN '1-0' THEN 0.0 WHEN '0-1' THEN 1.0 WHEN '1/2-1/2' THEN 0.5 END,
       CASE g.result WHEN '1-0' THEN 0.0 WHEN '0-1' THEN 1.0 WHEN '1/2-1/2' THEN 0.5 END,
       g.date, g.year, g.month, g.day, g.event_id, g.eco, o.name, o.family,
       g.tc_class, g.time_control, g.ply_count, g.termination, g.laws_edition,
       EXISTS (SELECT 1 FROM duplicate_members d WHERE d.game_id = g.id AND d.survivor = 0)
FROM games g JOIN player_names bn ON bn.id = g.black_id
     LEFT JOIN player_names wn ON wn.id = g.white_id
     LEFT JOIN openings o ON o.id = g.opening_id;

PRAGMA user_version = 3;
