//! Findings: located, coded observations about a game's text.
//! A finding never stops the reader; an `Error` one rejects the game it belongs to.
//! Codes and severities come from the one catalogue, `crate::findings`.

use std::fmt;

pub use crate::findings::Severity;

/// One observation, located in the file. `game_number` is 1-based in its file, 0 when the
/// finding belongs to no game (text after the last game). `column` counts bytes from 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub code: &'static str,
    pub severity: Severity,
    pub game_number: u64,
    pub line: u64,
    pub column: u32,
    pub byte: u64,
    pub ply: Option<u32>,
    pub token: Option<String>,
    pub message: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "game {}, line {}, column {} (byte {}): {} [{}]: {}",
            self.game_number,
            self.line,
            self.column,
            self.byte,
            self.severity,
            self.code,
            self.message
        )?;
        if let Some(ply) = self.ply {
            write!(f, " (ply {ply})")?;
        }
        if let Some(token) = &self.token {
            write!(f, " near `{token}`")?;
        }
        Ok(())
    }
}

/// The stable finding codes of the PGN reader (declared in the one catalogue,
/// `crate::findings`). Never rename one: users filter on them.
pub mod code {
    pub use crate::findings::pgn::*;
}
