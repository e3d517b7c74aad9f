//! Fitting the evaluation to data and measuring the result: quiet positions sampled from real
//! games reproducibly from a seed (`data`), a Texel fit of the evaluation's weights to the
//! games' results or to a UCI engine's evaluations of them (`texel`, `label`), and a
//! self-play match between two sets of weights (`selfplay`). Built on `search` (evaluation,
//! quiescence, the searcher, the UCI client) and the PGN reader; no I/O beyond reading the
//! input files and the label cache.

pub mod data;
pub mod label;
pub mod selfplay;
pub mod texel;

use std::fmt;
use std::path::PathBuf;

/// What can go wrong reading the tuner's inputs.
#[derive(Debug)]
pub enum TuneError {
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// An input that holds nothing usable (no games with a result, no opening lines).
    Empty(String),
    /// The labelling engine failed (after one restart for a crash or hang).
    Engine(crate::search::EngineError),
    /// A line of the label cache that cannot be read.
    Cache {
        path: PathBuf,
        line: usize,
        message: String,
    },
}

impl fmt::Display for TuneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TuneError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            TuneError::Empty(what) => f.write_str(what),
            TuneError::Engine(e) => write!(f, "{e}"),
            TuneError::Cache {
                path,
                line,
                message,
            } => write!(f, "{}: line {line}: {message}", path.display()),
        }
    }
}

impl std::error::Error for TuneError {}
