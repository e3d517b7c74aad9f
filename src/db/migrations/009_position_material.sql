-- arbiter database schema, version 9: the material index (docs/POSITIONS.md). Additive: one
-- new table. Never edited once released.

-- For each range of games of the index (the ranges of `position_games`): per material
-- class (the whole material with at most 8 men, else White's counts less Black's; equal
-- material among more men is not posted) the games whose material passes through it, each
-- with a bound on the plies it spent there (`positions::material`). A row holds
-- the entries of consecutive classes, about a page of them; `row` is first game << 31 | the
-- row's first class. The row `-1 - first game` says which ids the range covers (varint: last
-- game - first game). A material or imbalance query walks the spans of the games its
-- classes name instead of every game's. Written with the index's other rows; `arbiter index`
-- writes it for ranges indexed before this version, from their spans.
CREATE TABLE position_material (
    row     INTEGER PRIMARY KEY,
    entries BLOB NOT NULL
);

PRAGMA user_version = 9;
