//! Findings: located, coded observations about a game's text.
//! A finding never stops the reader; an `Error` one rejects the game it belongs to.
//! The catalog of codes is documented in `docs/findings.md` (section "PGN").

use std::fmt;

/// How much a finding weighs. `Error` rejects the game; the others are reported only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

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

/// The stable finding codes of the PGN reader. Never rename one: users filter on them.
pub mod code {
    pub const BOM: &str = "pgn.bom";
    pub const CRLF: &str = "pgn.crlf";
    pub const CR: &str = "pgn.cr-line-ends";
    pub const NOT_UTF8: &str = "pgn.not-utf8";
    pub const GARBAGE_SKIPPED: &str = "pgn.garbage-skipped";
    pub const GAME_TOO_LARGE: &str = "pgn.game-too-large";
    pub const MALFORMED_TAG: &str = "pgn.malformed-tag";
    pub const DUPLICATE_TAG: &str = "pgn.duplicate-tag";
    pub const MISSING_TAG: &str = "pgn.missing-tag";
    pub const BAD_RESULT_TAG: &str = "pgn.bad-result-tag";
    pub const MISSING_RESULT_MARKER: &str = "pgn.missing-result-marker";
    pub const RESULT_MISMATCH: &str = "pgn.result-mismatch";
    pub const TEXT_AFTER_RESULT: &str = "pgn.text-after-result";
    pub const RESULT_IN_VARIATION: &str = "pgn.result-in-variation";
    pub const UNREADABLE_TOKEN: &str = "pgn.unreadable-token";
    pub const TOKEN_TOO_LONG: &str = "pgn.token-too-long";
    pub const BAD_NAG: &str = "pgn.bad-nag";
    pub const MISPLACED_NAG: &str = "pgn.misplaced-nag";
    pub const MISPLACED_VARIATION: &str = "pgn.misplaced-variation";
    pub const UNCLOSED_VARIATION: &str = "pgn.unclosed-variation";
    pub const UNOPENED_VARIATION: &str = "pgn.unopened-variation";
    pub const EMPTY_VARIATION: &str = "pgn.empty-variation";
    pub const UNTERMINATED_COMMENT: &str = "pgn.unterminated-comment";
    pub const BAD_COMMAND: &str = "pgn.bad-command";
    pub const EMPTY_GAME: &str = "pgn.empty-game";
    pub const NULL_MOVE: &str = "pgn.null-move";
    pub const UNSUPPORTED_VARIANT: &str = "pgn.unsupported-variant";

    /// Every code with its severity, in catalog order (used by docs and tests).
    pub const ALL: &[&str] = &[
        BOM,
        CRLF,
        CR,
        NOT_UTF8,
        GARBAGE_SKIPPED,
        GAME_TOO_LARGE,
        MALFORMED_TAG,
        DUPLICATE_TAG,
        MISSING_TAG,
        BAD_RESULT_TAG,
        MISSING_RESULT_MARKER,
        RESULT_MISMATCH,
        TEXT_AFTER_RESULT,
        RESULT_IN_VARIATION,
        UNREADABLE_TOKEN,
        TOKEN_TOO_LONG,
        BAD_NAG,
        MISPLACED_NAG,
        MISPLACED_VARIATION,
        UNCLOSED_VARIATION,
        UNOPENED_VARIATION,
        EMPTY_VARIATION,
        UNTERMINATED_COMMENT,
        BAD_COMMAND,
        EMPTY_GAME,
        NULL_MOVE,
        UNSUPPORTED_VARIANT,
    ];
}
