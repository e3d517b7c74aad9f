-- arbiter database schema, version 13: per game, a summary that position scans rule games
-- out by (issue 46 §3, docs/POSITIONS.md). Additive: one new table. Never edited once
-- released.
--
-- One row per range of ids of the index (the ranges of `position_games`): per game, a
-- varint length and its record (`positions::summary`): the squares each side's pawns stood
-- on, each side's pawn file counts as a hashed set, the fewest men on ranks 3 to 6 after a
-- move, and which piece of each side took which. An empty record: no summary (the game is
-- never ruled out). Written with the index's other rows; `arbiter index` writes it for
-- ranges indexed before this version, by replaying their games; until then a scan reads
-- those games as before.
CREATE TABLE position_summaries (
    first_game INTEGER PRIMARY KEY,
    last_game  INTEGER NOT NULL,
    summaries  BLOB    NOT NULL
);

PRAGMA user_version = 13;
