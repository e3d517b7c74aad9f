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
            Printable(&self.message, MAX_SHOWN_MESSAGE)
        )?;
        if let Some(ply) = self.ply {
            write!(f, " (ply {ply})")?;
        }
        if let Some(token) = &self.token {
            write!(f, " near `{}`", Printable(token, MAX_SHOWN_TOKEN))?;
        }
        Ok(())
    }
}

/// The stable finding codes of the PGN reader (declared in the one catalogue,
/// `crate::findings`). Never rename one: users filter on them.
pub mod code {
    pub use crate::findings::pgn::*;
}

/// Characters of a token, and of a message, a finding's text shows at most.
const MAX_SHOWN_TOKEN: usize = 40;
const MAX_SHOWN_MESSAGE: usize = 200;

/// Text from the input as it may be shown on a terminal: control characters escaped
/// (`\u{1b}`), never raw, and cut after `max` characters with `…`. Binary input read as
/// text must not reach a terminal as bytes.
struct Printable<'a>(&'a str, usize);

impl fmt::Display for Printable<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use fmt::Write;
        for (i, c) in self.0.chars().enumerate() {
            if i == self.1 {
                return f.write_char('…');
            }
            if c.is_control() {
                write!(f, "{}", c.escape_default())?;
            } else {
                f.write_char(c)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Binary input used to reach the terminal raw through an error line (issue 19, 6).
    #[test]
    fn binary_tokens_are_escaped_and_cut_when_shown() {
        let f = Finding {
            code: code::UNREADABLE_TOKEN,
            severity: Severity::Error,
            game_number: 1,
            line: 1,
            column: 1,
            byte: 0,
            ply: None,
            token: Some("\u{89}PNG\r\n\u{1a}\n\u{1b}[2J".repeat(10)),
            message: "bad\u{7}".into(),
        };
        let shown = f.to_string();
        assert!(!shown.chars().any(|c| c.is_control()), "{shown:?}");
        assert!(
            shown.contains("bad\\u{7}") && shown.contains("PNG\\r\\n"),
            "{shown}"
        );
        assert!(shown.ends_with("…`"), "{shown}");
    }
}
