-- arbiter database schema, version 8: the home-pawn index of the positions after the key
-- index's last ply (docs/POSITIONS.md). Additive: one new table. Never edited once released.

-- For the positions a game reaches after ply 24: the set of home pawns gone (pawns never
-- come back home, so each set holds over one interval of plies) → the games, each with the
-- men on the board over that interval (`positions::index::build_pawn_rows`). A row holds
-- the entries of consecutive sets for one range of games, about a page of them; `row` is
-- first game << 16 | the row's first set. The row `-1 - first game` says which ids the
-- range covers (varint: last game - first game). It replaces the tail records of
-- `position_tails` for the ranges it covers: a search reads one row a range instead of
-- every game's record. Written with the index's other rows; `arbiter index` writes it for
-- ranges indexed before this version.
CREATE TABLE position_pawns (
    row     INTEGER PRIMARY KEY,
    entries BLOB NOT NULL
);

PRAGMA user_version = 8;
