-- arbiter database schema, version 4 (PRAGMA user_version = 4): moves packed, nothing rebuilt.
-- `games` keeps its version 3 table (it was rebuilt once, in version 3). From this version on
-- the writer stores `games.moves` in the packed layout (a format byte, the ply count, each
-- move as its piece's and its square's indexes: about 6 bits a ply instead of 16) and leaves
-- `games.moves_hash` NULL (duplicate detection computes it on read). Rows written by
-- versions 1 to 3 keep their 2-byte moves and their hash and decode as they are: the blob
-- says which layout it holds (docs/SCHEMA.md). The version changes so that an older arbiter,
-- which reads only the 2-byte layout, refuses the file instead of misreading its new rows.
-- Never edited once released.

-- `games_eco` goes: `--eco` filters with LIKE, which SQLite cannot answer from a BINARY
-- index (it scanned the whole index instead of the table), and nothing else reads it.
DROP INDEX games_eco;

PRAGMA user_version = 4;
