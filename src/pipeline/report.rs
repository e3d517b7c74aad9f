//! What a run has to tell its user while it goes, as typed notes rather than printed lines:
//! a file that cannot be opened or read to its end, one without a game, an import resumed
//! part way, a rejected game. The driver hands each note, in input order, to the caller's
//! report function; the command line prints it (`cli::check::print_note`), a test keeps it.

use super::source::SourceError;
use super::work::Processed;
use crate::pgn::{Finding, Severity, SplitError};
use std::fmt;

/// One thing that happened to one input.
#[derive(Debug, Clone, Copy)]
pub struct Note<'a> {
    /// The input as given (`-` for stdin).
    pub file: &'a str,
    pub what: What<'a>,
}

/// What happened.
#[derive(Debug, Clone, Copy)]
pub enum What<'a> {
    /// The input could not be opened; the run went on with the others.
    CannotOpen(&'a SourceError),
    /// Reading stopped part way; the games read before were delivered.
    ReadFailed(&'a SplitError),
    /// The input was read to its end and holds no game (its bytes are not echoed: they may
    /// be binary): an error for that input, never a silent success.
    NoGame(&'static str),
    /// An earlier, interrupted import committed the input's games up to this one; the run
    /// goes on after it.
    Resumed { after_game: u64 },
    /// A game was rejected (its findings say why).
    Rejected(&'a Processed),
}

impl Note<'_> {
    /// How much the note weighs: a file not read, or a game rejected, is an error (the
    /// summary counts it and the exit status says so); a resumed import is information.
    pub fn severity(&self) -> Severity {
        match self.what {
            What::Resumed { .. } => Severity::Info,
            What::CannotOpen(_) | What::ReadFailed(_) | What::NoGame(_) | What::Rejected(_) => {
                Severity::Error
            }
        }
    }

    /// A rejected game's findings of severity error, in the order they were found.
    pub fn errors(&self) -> impl Iterator<Item = &Finding> {
        let findings = match self.what {
            What::Rejected(game) => game.findings.as_slice(),
            _ => &[],
        };
        findings.iter().filter(|f| f.severity == Severity::Error)
    }
}

impl fmt::Display for Note<'_> {
    /// The note as one line, without the program's prefix; a rejected game by its first
    /// error.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = self.file;
        match self.what {
            // The error names the file itself.
            What::CannotOpen(e) => write!(f, "{e}"),
            What::ReadFailed(e) => write!(f, "{file}: {e}"),
            What::NoGame(what) => write!(f, "{file}: no PGN game found ({what})"),
            What::Resumed { after_game } => write!(
                f,
                "{file}: resuming after game {after_game} (committed by an earlier run)"
            ),
            What::Rejected(game) => match self.errors().next() {
                Some(e) => write!(f, "{file}: {e}"),
                None => write!(f, "{file}: game {} rejected", game.game_number),
            },
        }
    }
}
