-- arbiter database schema, version 10: the key index's rows in a leaner layout
-- (docs/POSITIONS.md). Additive: one new table. Never edited once released.

-- The same keys as `position_keys` (the Art. 9.2.2 keys of every game's positions up to ply
-- 24, by bucket: the key's top 12 bits; `row` is bucket << 32 | the range's first game),
-- bit-packed (`positions::postings`): the sorted fingerprints in Elias–Fano form, each
-- entry's number of games in Elias gamma, a single game's offset in the width of the row's
-- largest, two or more as an Elias–Fano list or a bitmap. The import and `arbiter index`
-- write here; `arbiter index` re-encodes the rows of `position_keys` (written before this
-- version) into this table, some rows per committed step, deleting each old row in the
-- step that writes its new one; a search reads both tables.
CREATE TABLE position_postings (
    row     INTEGER PRIMARY KEY,
    entries BLOB NOT NULL
);

PRAGMA user_version = 10;
