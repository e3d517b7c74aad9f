-- arbiter database schema, version 6 (PRAGMA user_version = 6): the analysis in two tiers
-- (issue 33). Additive only. Never edited once released.

-- 1 when the UCI engine of `--engine` (the second tier) evaluated the position; 0 for
-- arbiter's own search. A move is labelled by the engine when both its positions are.
ALTER TABLE evaluations ADD COLUMN engine INTEGER NOT NULL DEFAULT 0;

-- What the second tier cost in the game: positions the engine searched, the nodes it
-- reported, and the positions with a legal move (what evaluating every position would
-- search). NULL for analyses written before this version.
ALTER TABLE analyses ADD COLUMN engine_positions INTEGER;
ALTER TABLE analyses ADD COLUMN engine_nodes INTEGER;
ALTER TABLE analyses ADD COLUMN positions INTEGER;

PRAGMA user_version = 6;
