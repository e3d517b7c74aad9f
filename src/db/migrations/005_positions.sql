-- arbiter database schema, version 5: the position index (docs/POSITIONS.md). Additive:
-- two new tables, nothing else changes. Never edited once released.

-- The keys (Art. 9.2.2) of the positions every game reaches up to ply 24, by bucket (the
-- key's top 12 bits); each row holds the games of one range of ids (one import commit, or
-- one step of `arbiter index`, merged later by `db::positions::compact`): entries sorted by
-- the key's next 32 bits, each with its games as varint deltas from the row's first game
-- (`positions::index::encode_bucket`). `row` is bucket << 32 | first game: a rowid table
-- keeps rows of up to 4 KB on their page, where a WITHOUT ROWID table spilled every row
-- over 1 KB to a half-empty overflow page (88 bytes a game became 120).
CREATE TABLE position_keys (
    row     INTEGER PRIMARY KEY,
    entries BLOB NOT NULL
);

-- Which games the index covers (ids `first_game` to `last_game`, every one of them), and
-- the 26-byte tail record of each of those games that goes beyond ply 24
-- (`positions::index::Tail`): home pawns' order of leaving, material and castling rights
-- at ply 24 and at the end.
CREATE TABLE position_tails (
    first_game INTEGER PRIMARY KEY,
    last_game  INTEGER NOT NULL,
    records    BLOB NOT NULL
);

PRAGMA user_version = 5;
