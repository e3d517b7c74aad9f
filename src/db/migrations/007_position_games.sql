-- arbiter database schema, version 7: per game, beside the position index, what a move
-- tree and a material query need (docs/POSITIONS.md). Additive: one new table.
-- Never edited once released.

-- For the ids `first_game` to `last_game` (each of them, the index's ranges):
-- - `facts`: 4 bytes a game, little-endian (`positions::index::facts`): the result
--   (coalesce(lawful_result, result)) and both ratings, so that `search --tree` counts the
--   games under a position without reading their rows;
-- - `spans`: per game a varint length and its material record (`positions::spans`): the
--   plies, and each capture or promotion with its ply, so that material and imbalance
--   queries read the material at every ply without replaying the game.
-- Written with the index's rows; `arbiter index` writes them for games indexed before
-- this version.
CREATE TABLE position_games (
    first_game INTEGER PRIMARY KEY,
    last_game  INTEGER NOT NULL,
    facts      BLOB NOT NULL,
    spans      BLOB NOT NULL
);

PRAGMA user_version = 7;
