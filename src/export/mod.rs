//! Exports from the database: clean PGN, CSV and JSON lines, one game at a time straight
//! from a SQLite cursor, so memory does not grow with the database. `filter` turns the
//! user's filters into one SQL condition with bound parameters.

pub mod filter;
pub mod games;
pub mod pgn;
pub mod table;

pub use filter::Filter;
pub use games::{ExportRow, for_each_game};
