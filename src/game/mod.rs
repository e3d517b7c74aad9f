//! Joins PGN syntax and the rules core: a parsed game's move tokens are replayed through
//! `chess` into legal moves, canonical SAN and positions, and every problem becomes a located
//! finding. Nothing here reads files or knows about the Laws' editions.

pub mod keys;
pub mod replay;

pub use replay::{Replayed, code, replay, replay_keyed};
