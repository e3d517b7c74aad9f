//! Position search (docs/POSITIONS.md): which games reached a position, a material balance,
//! a pattern of pieces, a pawn structure or a sequence of moves, and at which ply. `key`
//! says which positions are the same (Art. 9.2.2 and its relaxations), `query` parses every
//! form, `matcher` replays a game against a query, `index` is what each game adds to the
//! stored index (made on the import's workers), `spans` a game's material ply by ply,
//! `material` the index from material classes to the games passing through them,
//! `summary` the per-game facts a scan rules games out by,
//! `tree` the moves played from a position.
//! Named apart from `search/`, which is the engine.

pub mod index;
pub mod key;
pub mod laws;
pub mod matcher;
pub mod material;
pub mod postings;
pub mod query;
pub mod spans;
pub mod summary;
pub mod tree;

pub use key::Identity;
pub use matcher::Matcher;
pub use query::{Query, QueryError};
