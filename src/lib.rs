//! arbiter: rules on chess games the way a tournament arbiter would.
//!
//! The architecture (see `docs/ARCHITECTURE.md`): data flows one way,
//! `chess` ← `pgn` ← `game` ← {`laws`, `search`, `identity`, `positions`} ← `db` ← {`export`,
//! `stats`} ← `pipeline` ← `cli`. `db::query` is the one read path: no other module writes
//! SQL or reads the schema version. `layering` (a test) refuses an import against the flow.

pub mod bench;
pub mod chess;
pub mod choice;
pub mod cli;
pub mod db;
pub mod export;
pub mod findings;
pub mod game;
pub mod identity;
pub mod interrupt;
pub mod laws;
#[cfg(test)]
mod layering;
pub mod pgn;
pub mod pipeline;
pub mod positions;
pub mod rng;
pub mod search;
pub mod stats;
pub mod table;
pub mod tags;
pub mod tune;
pub mod uci;
