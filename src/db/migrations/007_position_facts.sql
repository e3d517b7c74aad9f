-- arbiter database schema, version 7: what a position's move tree needs of each game,
-- beside the position index (docs/POSITIONS.md). Additive: one new table.
-- Never edited once released.

-- For the ids `first_game` to `last_game` (each of them, 4 bytes a game, little-endian,
-- `positions::index::facts`): the result (coalesce(lawful_result, result)) and both
-- ratings, so that `search --tree` counts the games under a position without reading
-- their rows. Written with the index's rows; `arbiter index` writes it for games indexed
-- before this version.
CREATE TABLE position_facts (
    first_game INTEGER PRIMARY KEY,
    last_game  INTEGER NOT NULL,
    facts      BLOB NOT NULL
);

PRAGMA user_version = 7;
