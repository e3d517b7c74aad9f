//! Why a run stopped: a sink that could not write (`SinkError`: an output file in a table
//! format, a plain file, the database, each named), or the driver's own workers
//! (`RunError`). An input that cannot be read does not stop a run: it is a note
//! (`pipeline::report`) and a count in the summary.

use crate::export::ExportError;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// Why a sink stopped the run.
#[derive(Debug)]
pub enum SinkError {
    /// Writing an output file in a table format (the findings file, a shard's tables)
    /// failed: the file, and the format's or the file's error.
    Format { path: PathBuf, source: ExportError },
    /// Writing or renaming a file (the quarantine, a shard folder) failed.
    Io { path: PathBuf, source: io::Error },
    /// The database refused a statement.
    Database {
        path: PathBuf,
        source: rusqlite::Error,
    },
    /// An input's import cannot go on as it began (its resume point moved under it, a game
    /// came without its record or outside an input).
    Import { file: String, problem: String },
}

impl SinkError {
    pub fn format(path: &Path, source: impl Into<ExportError>) -> SinkError {
        SinkError::Format {
            path: path.to_owned(),
            source: source.into(),
        }
    }

    pub fn io(path: &Path, source: io::Error) -> SinkError {
        SinkError::Io {
            path: path.to_owned(),
            source,
        }
    }

    pub fn database(path: &Path, source: rusqlite::Error) -> SinkError {
        SinkError::Database {
            path: path.to_owned(),
            source,
        }
    }

    pub fn import(file: &str, problem: impl Into<String>) -> SinkError {
        SinkError::Import {
            file: file.to_owned(),
            problem: problem.into(),
        }
    }

    /// The reader of our output went away (`--findings -` into `| head`).
    pub fn is_broken_pipe(&self) -> bool {
        match self {
            SinkError::Format { source, .. } => source.is_broken_pipe(),
            SinkError::Io { source, .. } => source.kind() == io::ErrorKind::BrokenPipe,
            SinkError::Database { .. } | SinkError::Import { .. } => false,
        }
    }
}

impl fmt::Display for SinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SinkError::Format { path, source } => write!(f, "{}: {source}", path.display()),
            SinkError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            SinkError::Database { path, source } => {
                write!(f, "{}: database: {source}", path.display())
            }
            SinkError::Import { file, problem } => write!(f, "{file}: {problem}"),
        }
    }
}

impl std::error::Error for SinkError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SinkError::Format { source, .. } => Some(source),
            SinkError::Io { source, .. } => Some(source),
            SinkError::Database { source, .. } => Some(source),
            SinkError::Import { .. } => None,
        }
    }
}

/// Why the driver stopped.
#[derive(Debug)]
pub enum RunError {
    Sink(SinkError),
    /// The worker threads could not be started.
    Threads(rayon::ThreadPoolBuildError),
    /// A worker panicked (the panic hook has printed where): the run stops.
    WorkerPanicked,
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Sink(e) => write!(f, "{e}"),
            RunError::Threads(e) => write!(f, "cannot start the worker threads: {e}"),
            RunError::WorkerPanicked => {
                f.write_str("a worker panicked; the run stops (please report it)")
            }
        }
    }
}

impl std::error::Error for RunError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RunError::Sink(e) => Some(e),
            RunError::Threads(e) => Some(e),
            RunError::WorkerPanicked => None,
        }
    }
}

impl From<SinkError> for RunError {
    fn from(e: SinkError) -> RunError {
        RunError::Sink(e)
    }
}
