//! Exports from the database: PGN, CSV, JSON lines and Parquet, one game at a time straight
//! from a SQLite cursor, so memory does not grow with the database. Every format is a
//! [`Writer`] (begin / game / finish) in its own file; the table formats (CSV, JSON lines,
//! Parquet) share the column catalogue of `table` and implement [`table::TableFormat`].
//! The games come from the one read path (`db::query`);
//! `output` writes through a temporary file, compressed by extension.

pub mod csv;
pub mod findings;
pub mod format;
pub mod games;
pub mod jsonl;
pub mod output;
pub mod parquet;
pub mod persons;
pub mod pgn;
pub mod players;
pub mod search_tables;
pub mod table;
pub mod text;

pub use crate::db::query::games::ExportRow;

use std::fmt;
use std::io;

/// Why an export stopped.
#[derive(Debug)]
pub enum ExportError {
    Io(io::Error),
    Database(rusqlite::Error),
    Parquet(::parquet::errors::ParquetError),
    Arrow(arrow_schema::ArrowError),
    /// A stored game that does not read back (its id, and why).
    Game {
        id: i64,
        message: String,
    },
}

impl ExportError {
    /// The reader went away (`| head`): the export ends quietly.
    pub fn is_broken_pipe(&self) -> bool {
        match self {
            ExportError::Io(e) => e.kind() == io::ErrorKind::BrokenPipe,
            ExportError::Parquet(::parquet::errors::ParquetError::External(e)) => e
                .downcast_ref::<io::Error>()
                .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe),
            _ => false,
        }
    }
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExportError::Io(e) => write!(f, "{e}"),
            ExportError::Database(e) => write!(f, "database: {e}"),
            ExportError::Parquet(e) => write!(f, "parquet: {e}"),
            ExportError::Arrow(e) => write!(f, "arrow: {e}"),
            ExportError::Game { id, message } => write!(f, "game {id}: {message}"),
        }
    }
}

impl std::error::Error for ExportError {}

impl From<io::Error> for ExportError {
    fn from(e: io::Error) -> Self {
        ExportError::Io(e)
    }
}

impl From<rusqlite::Error> for ExportError {
    fn from(e: rusqlite::Error) -> Self {
        ExportError::Database(e)
    }
}

impl From<::parquet::errors::ParquetError> for ExportError {
    fn from(e: ::parquet::errors::ParquetError) -> Self {
        ExportError::Parquet(e)
    }
}

impl From<arrow_schema::ArrowError> for ExportError {
    fn from(e: arrow_schema::ArrowError) -> Self {
        ExportError::Arrow(e)
    }
}

impl From<crate::db::query::QueryError> for ExportError {
    fn from(e: crate::db::query::QueryError) -> Self {
        match e {
            crate::db::query::QueryError::Sqlite(e) => ExportError::Database(e),
            crate::db::query::QueryError::Game { id, message } => ExportError::Game { id, message },
        }
    }
}

impl From<serde_json::Error> for ExportError {
    fn from(e: serde_json::Error) -> Self {
        ExportError::Io(e.into())
    }
}

impl From<ExportError> for io::Error {
    fn from(e: ExportError) -> io::Error {
        match e {
            ExportError::Io(e) => e,
            e if e.is_broken_pipe() => io::Error::from(io::ErrorKind::BrokenPipe),
            e => io::Error::other(e.to_string()),
        }
    }
}

/// One export format: `begin` before the first game (headers, schemas), `game` for each
/// selected game in order, `finish` to end the output. An empty selection still gets a
/// complete, valid output (a CSV header, an empty Parquet file).
pub trait Writer {
    fn begin(&mut self) -> Result<(), ExportError>;
    fn game(&mut self, row: &ExportRow) -> Result<(), ExportError>;
    fn finish(self: Box<Self>) -> Result<(), ExportError>;
}
