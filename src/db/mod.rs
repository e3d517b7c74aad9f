//! The SQLite side: opening a database (schema version check, migrations, WAL), the compact
//! encodings stored in it (moves, clocks, content hash), and the single writer that commits
//! imported games in batches. Each SQL statement lives in its own file under `sql/`.

pub mod analyses;
pub mod bulk;
pub mod checkpoint;
pub mod directory;
pub mod duplicate_list;
pub mod duplicates;
pub mod encode;
pub mod events;
pub mod hits;
pub mod lean;
pub mod open;
pub mod persons;
pub mod position_laws;
pub mod positions;
pub mod query;
pub mod ratings;
pub mod record;
pub mod upgrade;
pub mod writer;

pub use open::{
    DbError, ImportLock, READABLE_FROM, SCHEMA_VERSION, lock_for_import, map_pages, open,
    open_existing, open_read_only, remap_pages,
};
pub use record::GameRecord;
pub use writer::{ImportState, SourceIdentity, StoreWriter, Stored};
