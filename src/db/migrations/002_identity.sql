-- arbiter database schema, version 2 (PRAGMA user_version = 2): identity.
-- A player is a person, not a spelling; every game gets its opening by position, its
-- players' FIDE ids, titles and federations, its time control, and a hash of its moves
-- alone; duplicate groups and rating runs get their tables. Never edited once released.
-- Runs with foreign keys off (src/db/open.rs), checked with foreign_key_check before commit.

-- v1 `players` held names exactly as written: they become `player_names`, the spellings.
-- The rename rewrites the games' foreign keys, so games.white_id/black_id keep pointing at
-- the spelling; the table is then rebuilt, because a name is unique only with its FIDE id.
ALTER TABLE players RENAME TO player_names;

-- Persons. `key` says how the person was told apart: 'fide:<id>' from a FIDE id tag,
-- 'alias:<canonical>' from an alias file, 'name:<normalised name>' from the safe
-- normalisation of a spelling (docs/IDENTITY.md).
CREATE TABLE players (
    id      INTEGER PRIMARY KEY,
    name    TEXT    NOT NULL,               -- canonical display name
    fide_id INTEGER,                        -- FIDE id, when the person was identified by it
    key     TEXT    NOT NULL UNIQUE         -- identity key (above)
);

-- Names exactly as written in the White/Black tags, with the FIDE id written beside them.
CREATE TABLE player_names_v2 (
    id        INTEGER PRIMARY KEY,
    name      TEXT    NOT NULL,
    fide_id   INTEGER,                      -- WhiteFideId/BlackFideId of the games, NULL if none
    person_id INTEGER NOT NULL REFERENCES players(id),
    UNIQUE (name, fide_id)
);
-- UNIQUE treats NULLs as distinct: this index makes a name without FIDE id unique too.
CREATE UNIQUE INDEX player_names_no_fide ON player_names_v2(name) WHERE fide_id IS NULL;
CREATE INDEX player_names_person ON player_names_v2(person_id);

-- One provisional person per v1 spelling, keyed by the spelling's id; open.rs then merges
-- them by the safe normalisation (it needs Unicode NFKC, which SQL has not got).
INSERT INTO players (id, name, fide_id, key)
    SELECT id, name, NULL, 'v1:' || id FROM player_names;
INSERT INTO player_names_v2 (id, name, fide_id, person_id)
    SELECT id, name, NULL, id FROM player_names;
DROP TABLE player_names;
ALTER TABLE player_names_v2 RENAME TO player_names;

-- Opening by position (lichess's CC0 names), players' ids, titles, federations, time control.
ALTER TABLE games ADD COLUMN eco TEXT;              -- A00..E99 of the deepest named position
ALTER TABLE games ADD COLUMN opening TEXT;          -- full name, 'Sicilian Defense: Najdorf Variation'
ALTER TABLE games ADD COLUMN opening_family TEXT;   -- the part before ':'
ALTER TABLE games ADD COLUMN opening_variation TEXT; -- the part after ':' (NULL if none)
ALTER TABLE games ADD COLUMN opening_ply INTEGER;   -- ply of the deepest named position
ALTER TABLE games ADD COLUMN white_fide_id INTEGER; -- WhiteFideId / BlackFideId when numeric
ALTER TABLE games ADD COLUMN black_fide_id INTEGER;
ALTER TABLE games ADD COLUMN white_title TEXT;      -- WhiteTitle / BlackTitle
ALTER TABLE games ADD COLUMN black_title TEXT;
ALTER TABLE games ADD COLUMN white_fed TEXT;        -- WhiteFed, else WhiteTeam (BlackFed, BlackTeam)
ALTER TABLE games ADD COLUMN black_fed TEXT;
ALTER TABLE games ADD COLUMN time_control TEXT;     -- TimeControl tag as written
ALTER TABLE games ADD COLUMN tc_class TEXT;         -- classical, rapid, blitz, bullet, correspondence, unknown
ALTER TABLE games ADD COLUMN moves_hash BLOB;       -- 16 bytes: start FEN + moves only (docs/SCHEMA.md)
CREATE INDEX games_eco ON games(eco);
CREATE INDEX games_moves_hash ON games(moves_hash);

-- Duplicate groups (arbiter duplicates): nothing is deleted, every game stays retrievable.
CREATE TABLE duplicate_groups (
    id          INTEGER PRIMARY KEY,
    kind        TEXT    NOT NULL,           -- exact, variant or contained
    survivor_id INTEGER NOT NULL REFERENCES games(id)
);
CREATE TABLE duplicate_members (
    game_id  INTEGER PRIMARY KEY REFERENCES games(id),
    group_id INTEGER NOT NULL REFERENCES duplicate_groups(id),
    survivor INTEGER NOT NULL,              -- 1 for the group's survivor
    reason   TEXT    NOT NULL               -- why it is in the group, or why it survives
);
CREATE INDEX duplicate_members_group ON duplicate_members(group_id);

-- Ratings computed by arbiter (stats): one run, its ratings and its history by period.
CREATE TABLE rating_runs (
    id         INTEGER PRIMARY KEY,
    system     TEXT    NOT NULL,
    settings   TEXT    NOT NULL,            -- JSON
    created_at TEXT    NOT NULL,
    games      INTEGER NOT NULL,
    skipped    INTEGER NOT NULL
);
CREATE TABLE ratings (
    run_id     INTEGER NOT NULL REFERENCES rating_runs(id) ON DELETE CASCADE,
    player_id  INTEGER NOT NULL REFERENCES players(id),
    games      INTEGER NOT NULL,
    score      REAL    NOT NULL,
    rating     REAL,
    error      REAL,
    rd         REAL,
    volatility REAL,
    rank       INTEGER,
    PRIMARY KEY (run_id, player_id)
) WITHOUT ROWID;
CREATE TABLE rating_history (
    run_id     INTEGER NOT NULL REFERENCES rating_runs(id) ON DELETE CASCADE,
    player_id  INTEGER NOT NULL,
    period     TEXT    NOT NULL,            -- e.g. '2024-03'
    games      INTEGER NOT NULL,
    rating     REAL    NOT NULL,
    rd         REAL,
    volatility REAL,
    PRIMARY KEY (run_id, player_id, period)
) WITHOUT ROWID;

-- One row per person per game (a self-game gives two rows): what statistics and ratings read.
CREATE VIEW player_games AS
SELECT g.id AS game_id, wn.person_id AS player_id, g.white_id AS name_id, 'white' AS colour,
       bn.person_id AS opponent_id, g.black_id AS opponent_name_id,
       g.white_elo AS rating, g.black_elo AS opponent_rating,
       COALESCE(g.lawful_result, g.result) AS result,
       CASE COALESCE(g.lawful_result, g.result)
           WHEN '1-0' THEN 1.0 WHEN '0-1' THEN 0.0 WHEN '1/2-1/2' THEN 0.5 END AS score,
       CASE g.result WHEN '1-0' THEN 1.0 WHEN '0-1' THEN 0.0 WHEN '1/2-1/2' THEN 0.5 END
           AS recorded_score,
       g.date, g.year, g.month, g.day, g.event_id, g.eco, g.opening, g.opening_family,
       g.tc_class, g.time_control, g.ply_count, g.termination, g.laws_edition,
       EXISTS (SELECT 1 FROM duplicate_members d WHERE d.game_id = g.id AND d.survivor = 0)
           AS duplicate
FROM games g JOIN player_names wn ON wn.id = g.white_id
     LEFT JOIN player_names bn ON bn.id = g.black_id
UNION ALL
SELECT g.id, bn.person_id, g.black_id, 'black', wn.person_id, g.white_id,
       g.black_elo, g.white_elo,
       COALESCE(g.lawful_result, g.result),
       CASE COALESCE(g.lawful_result, g.result)
           WHEN '1-0' THEN 0.0 WHEN '0-1' THEN 1.0 WHEN '1/2-1/2' THEN 0.5 END,
       CASE g.result WHEN '1-0' THEN 0.0 WHEN '0-1' THEN 1.0 WHEN '1/2-1/2' THEN 0.5 END,
       g.date, g.year, g.month, g.day, g.event_id, g.eco, g.opening, g.opening_family,
       g.tc_class, g.time_control, g.ply_count, g.termination, g.laws_edition,
       EXISTS (SELECT 1 FROM duplicate_members d WHERE d.game_id = g.id AND d.survivor = 0)
FROM games g JOIN player_names bn ON bn.id = g.black_id
     LEFT JOIN player_names wn ON wn.id = g.white_id;

PRAGMA user_version = 2;
