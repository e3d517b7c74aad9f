//! The one application error of the command line, and the outcome of a command that ran to its
//! end. Each maps to one exit status in one place (`exit_code`): 0 success, 1 a check failed,
//! 2 usage or I/O error; a closed output pipe ends quietly with 0, as ripgrep does.

use crate::db::DbError;
use crate::pipeline::error::{RunError, SinkError};
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// How a command that ran to its end went. Errors met on the way that did not stop the run
/// (a file that could not be opened among several) were already printed and counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Everything checked out: exit 0.
    Success,
    /// A check failed (a rejected game, a failed suite line): exit 1.
    Failed,
    /// Some inputs could not be read; what could be read was done: exit 2.
    Errored,
}

impl Outcome {
    /// The outcome of a run over inputs: unreadable inputs outrank failed checks.
    pub fn of(errored: bool, failed: bool) -> Outcome {
        if errored {
            Outcome::Errored
        } else if failed {
            Outcome::Failed
        } else {
            Outcome::Success
        }
    }

    pub fn code(self) -> u8 {
        match self {
            Outcome::Success => 0,
            Outcome::Failed => 1,
            Outcome::Errored => 2,
        }
    }
}

impl From<bool> for Outcome {
    /// `true`: everything checked out.
    fn from(ok: bool) -> Outcome {
        if ok {
            Outcome::Success
        } else {
            Outcome::Failed
        }
    }
}

impl From<()> for Outcome {
    fn from(_: ()) -> Outcome {
        Outcome::Success
    }
}

/// Why a command stopped.
#[derive(Debug)]
pub enum AppError {
    /// A bad command-line value or combination: exit 2.
    Usage(String),
    /// Reading or writing a named file failed: exit 2.
    Io { path: PathBuf, source: io::Error },
    /// An I/O error with no file to name (standard streams, a pipe): exit 2.
    Stream(io::Error),
    /// Opening, migrating or querying a database failed: exit 2.
    Db(DbError),
    /// A query on an open database failed: exit 2.
    Sqlite(rusqlite::Error),
    /// A run over PGN inputs stopped: its sink could not write (the file named), or its
    /// workers failed: exit 2.
    Run(RunError),
    /// A check failed and the command says why in this message: exit 1.
    Failed(String),
    /// The reader of our output went away (`| head`): quiet, exit 0.
    BrokenPipe,
    /// Anything else a module reports as text: exit 2.
    Other(String),
    /// Ctrl-C stopped the command; the message says what was kept: exit 130.
    Interrupted(String),
}

pub type Result<T = Outcome> = std::result::Result<T, AppError>;

impl AppError {
    /// An I/O error on `path`.
    pub fn io(path: &Path, source: io::Error) -> AppError {
        if is_broken_pipe(&source) {
            return AppError::BrokenPipe;
        }
        AppError::Io {
            path: path.to_owned(),
            source,
        }
    }

    pub fn usage(message: impl Into<String>) -> AppError {
        AppError::Usage(message.into())
    }

    /// The exit status for this error.
    pub fn code(&self) -> u8 {
        match self {
            AppError::BrokenPipe => 0,
            AppError::Failed(_) => 1,
            AppError::Interrupted(_) => crate::interrupt::EXIT_STATUS,
            _ => 2,
        }
    }
}

impl fmt::Display for AppError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AppError::Usage(m)
            | AppError::Failed(m)
            | AppError::Other(m)
            | AppError::Interrupted(m) => f.write_str(m),
            AppError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            AppError::Stream(e) => write!(f, "{e}"),
            AppError::Db(e) => write!(f, "{e}"),
            AppError::Sqlite(e) => write!(f, "database: {e}"),
            AppError::Run(e) => write!(f, "{e}"),
            AppError::BrokenPipe => f.write_str("broken pipe"),
        }
    }
}

impl std::error::Error for AppError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AppError::Io { source, .. } | AppError::Stream(source) => Some(source),
            AppError::Db(e) => Some(e),
            AppError::Sqlite(e) => Some(e),
            AppError::Run(e) => Some(e),
            _ => None,
        }
    }
}

/// Whether `e`, or an error it wraps (a CSV writer's, say), is a closed pipe.
pub fn is_broken_pipe(e: &io::Error) -> bool {
    let pipe = |io: &io::Error| io.kind() == io::ErrorKind::BrokenPipe;
    let mut next: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = next {
        let io = match err.downcast_ref::<csv::Error>().map(csv::Error::kind) {
            Some(csv::ErrorKind::Io(io)) => Some(io),
            _ => err.downcast_ref::<io::Error>(),
        };
        if io.is_some_and(pipe) {
            return true;
        }
        // `io::Error::other(inner)` hides `inner` from `source()`.
        next = match io {
            Some(io) => io.get_ref().map(|inner| inner as _),
            None => err.source(),
        };
    }
    false
}

/// A database error met by a command still written with `io::Result`, whose row loop
/// writes to standard output and so hands its write errors back inside a
/// `rusqlite::Error`: a closed output pipe stays a broken pipe, so that the command ends
/// quietly (`players | head`); anything else is named by the database's path. Flattening
/// both into text was why `players | head` said "Broken pipe" and exited 2.
pub fn db_io_error(db: &Path, e: rusqlite::Error) -> io::Error {
    if let rusqlite::Error::ToSqlConversionFailure(inner) = &e
        && inner
            .downcast_ref::<io::Error>()
            .is_some_and(is_broken_pipe)
    {
        return io::Error::from(io::ErrorKind::BrokenPipe);
    }
    io::Error::other(format!("{}: {e}", db.display()))
}

impl From<io::Error> for AppError {
    fn from(e: io::Error) -> AppError {
        if is_broken_pipe(&e) {
            AppError::BrokenPipe
        } else {
            AppError::Stream(e)
        }
    }
}

impl From<RunError> for AppError {
    fn from(e: RunError) -> AppError {
        match e {
            RunError::Sink(e) => AppError::from(e),
            e => AppError::Run(e),
        }
    }
}

impl From<SinkError> for AppError {
    /// A closed pipe stays quiet (`--findings -` into `| head`); any other error names its
    /// file.
    fn from(e: SinkError) -> AppError {
        if e.is_broken_pipe() {
            AppError::BrokenPipe
        } else {
            AppError::Run(RunError::Sink(e))
        }
    }
}

impl From<DbError> for AppError {
    fn from(e: DbError) -> AppError {
        AppError::Db(e)
    }
}

impl From<rusqlite::Error> for AppError {
    fn from(e: rusqlite::Error) -> AppError {
        AppError::Sqlite(e)
    }
}

impl From<serde_json::Error> for AppError {
    fn from(e: serde_json::Error) -> AppError {
        match e.io_error_kind() {
            Some(io::ErrorKind::BrokenPipe) => AppError::BrokenPipe,
            _ => AppError::Other(e.to_string()),
        }
    }
}

impl From<csv::Error> for AppError {
    fn from(e: csv::Error) -> AppError {
        match e.kind() {
            csv::ErrorKind::Io(io) if io.kind() == io::ErrorKind::BrokenPipe => {
                AppError::BrokenPipe
            }
            _ => AppError::Other(e.to_string()),
        }
    }
}

impl From<crate::export::ExportError> for AppError {
    fn from(e: crate::export::ExportError) -> AppError {
        if e.is_broken_pipe() {
            AppError::BrokenPipe
        } else {
            AppError::Other(e.to_string())
        }
    }
}

impl From<crate::db::query::QueryError> for AppError {
    fn from(e: crate::db::query::QueryError) -> AppError {
        match e {
            crate::db::query::QueryError::Sqlite(e) => AppError::Sqlite(e),
            e => AppError::Other(e.to_string()),
        }
    }
}

impl From<crate::stats::read::ReadError> for AppError {
    fn from(e: crate::stats::read::ReadError) -> AppError {
        match e {
            crate::stats::read::ReadError::Sqlite(e) => AppError::Sqlite(e),
        }
    }
}

impl From<crate::db::directory::ResolveError> for AppError {
    /// A name on the command line that means nobody, or several persons: a usage error.
    fn from(e: crate::db::directory::ResolveError) -> AppError {
        match e {
            crate::db::directory::ResolveError::Sqlite(e) => AppError::Sqlite(e),
            other => AppError::Usage(other.to_string()),
        }
    }
}

impl From<crate::chess::FenError> for AppError {
    /// A FEN given on the command line.
    fn from(e: crate::chess::FenError) -> AppError {
        AppError::Usage(e.to_string())
    }
}

impl From<crate::pipeline::source::SourceError> for AppError {
    fn from(e: crate::pipeline::source::SourceError) -> AppError {
        AppError::Other(e.to_string())
    }
}

/// Adds the file name to an I/O error: `fs::read(p).with_path(p)?`.
pub trait PathContext<T> {
    fn with_path(self, path: &Path) -> Result<T>;
}

impl<T> PathContext<T> for io::Result<T> {
    fn with_path(self, path: &Path) -> Result<T> {
        self.map_err(|e| AppError::io(path, e))
    }
}

/// Turns whatever a command returns into one result: `Result<Outcome, AppError>`, or a
/// module's own error and outcome, fit the dispatch unchanged.
pub fn finish<T: Into<Outcome>, E: Into<AppError>>(result: std::result::Result<T, E>) -> Result {
    result.map(Into::into).map_err(Into::into)
}

/// A note on standard error that does not stop the command, with the one prefix every
/// message of arbiter's has.
pub fn warn(message: impl fmt::Display) {
    eprintln!("arbiter: {message}");
}

/// The one place where an outcome becomes an exit status and an error is printed.
pub fn exit_code(result: Result) -> ExitCode {
    match result {
        Ok(outcome) => ExitCode::from(outcome.code()),
        Err(AppError::BrokenPipe) => ExitCode::SUCCESS,
        Err(e) if crate::interrupt::requested() && !matches!(e, AppError::Interrupted(_)) => {
            // The command stopped at Ctrl-C (an export at its next write): its output file,
            // if any, was removed with its temporary name.
            eprintln!("arbiter: interrupted (Ctrl-C); no output file is left behind");
            ExitCode::from(crate::interrupt::EXIT_STATUS)
        }
        Err(e) => {
            eprintln!("arbiter: {e}");
            ExitCode::from(e.code())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broken_pipe_inside_a_csv_error_is_quiet() {
        let pipe = io::Error::from(io::ErrorKind::BrokenPipe);
        let csv_err = csv::Error::from(pipe);
        // The way `src/cli/export.rs` wraps a CSV writer's error.
        let wrapped = io::Error::other(csv_err);
        assert_eq!(wrapped.kind(), io::ErrorKind::Other);
        assert!(matches!(AppError::from(wrapped), AppError::BrokenPipe));
        assert_eq!(AppError::BrokenPipe.code(), 0);
    }

    #[test]
    fn a_closed_pipe_inside_a_database_error_stays_a_closed_pipe() {
        let pipe = io::Error::from(io::ErrorKind::BrokenPipe);
        let e = rusqlite::Error::ToSqlConversionFailure(Box::new(pipe));
        let io = db_io_error(Path::new("x.sqlite"), e);
        assert!(matches!(AppError::from(io), AppError::BrokenPipe));
        let e = rusqlite::Error::InvalidQuery;
        let io = db_io_error(Path::new("x.sqlite"), e);
        assert!(io.to_string().starts_with("x.sqlite: "), "{io}");
        assert!(!matches!(AppError::from(io), AppError::BrokenPipe));
    }

    /// A sink's error names its file and exits 2; a closed pipe under it stays quiet.
    #[test]
    fn a_sink_error_names_its_file_and_a_closed_pipe_stays_quiet() {
        let full = io::Error::from_raw_os_error(28);
        let e = AppError::from(SinkError::io(Path::new("rejected.pgn"), full));
        assert!(e.to_string().starts_with("rejected.pgn: "), "{e}");
        assert_eq!(e.code(), 2);
        let e = AppError::from(RunError::Sink(SinkError::database(
            Path::new("games.sqlite"),
            rusqlite::Error::InvalidQuery,
        )));
        assert!(e.to_string().starts_with("games.sqlite: database: "), "{e}");
        let pipe = io::Error::from(io::ErrorKind::BrokenPipe);
        let e = SinkError::format(Path::new("-"), pipe);
        assert!(matches!(AppError::from(e), AppError::BrokenPipe));
        assert_eq!(AppError::from(RunError::WorkerPanicked).code(), 2);
    }

    #[test]
    fn exit_statuses() {
        assert_eq!(AppError::usage("bad").code(), 2);
        assert_eq!(
            AppError::io(Path::new("x.pgn"), io::Error::from(io::ErrorKind::NotFound)).code(),
            2
        );
        assert_eq!(AppError::Failed("3 failed".into()).code(), 1);
        assert_eq!(Outcome::of(true, true).code(), 2);
        assert_eq!(Outcome::of(false, true).code(), 1);
        assert_eq!(Outcome::of(false, false).code(), 0);
        let e = AppError::io(
            Path::new("games.pgn"),
            io::Error::from(io::ErrorKind::NotFound),
        );
        assert!(e.to_string().starts_with("games.pgn: "), "{e}");
    }

    #[test]
    fn a_module_error_and_a_bool_fit_the_dispatch() {
        let checked: std::result::Result<bool, io::Error> = Ok(false);
        assert_eq!(finish(checked).unwrap(), Outcome::Failed);
        let piped: std::result::Result<(), io::Error> =
            Err(io::Error::from(io::ErrorKind::BrokenPipe));
        assert!(matches!(finish(piped), Err(AppError::BrokenPipe)));
    }
}
