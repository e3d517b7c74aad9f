//! The findings catalogue: every code arbiter can report about a game under the Laws, with
//! its severity and the Article it rests on in each edition. Codes are stable strings; the
//! documentation (`docs/findings.md`) lists the same table.

use super::edition::Edition;
use std::fmt;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The record contradicts the Laws (a wrong result).
    Error,
    /// The record is doubtful or incomplete (moves after the end, `*` for a finished game).
    Warning,
    /// A fact the Laws attach to the game (an ending, the first claimable draw).
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A finding code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Code {
    EndCheckmate,
    EndStalemate,
    EndDeadPosition,
    EndFivefold,
    EndSeventyFive,
    ClaimThreefold,
    ClaimFifty,
    MoveAfterEnd,
    ResultMismatch,
    ResultFlagUnwinnable,
    ResultUnfinished,
    ResultTagMarkerMismatch,
    FlagUndetermined,
    DeadUndetermined,
    LawsUndated,
}

impl Code {
    pub const ALL: [Code; 15] = [
        Code::EndCheckmate,
        Code::EndStalemate,
        Code::EndDeadPosition,
        Code::EndFivefold,
        Code::EndSeventyFive,
        Code::ClaimThreefold,
        Code::ClaimFifty,
        Code::MoveAfterEnd,
        Code::ResultMismatch,
        Code::ResultFlagUnwinnable,
        Code::ResultUnfinished,
        Code::ResultTagMarkerMismatch,
        Code::FlagUndetermined,
        Code::DeadUndetermined,
        Code::LawsUndated,
    ];

    /// The stable code string.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::EndCheckmate => "end.checkmate",
            Code::EndStalemate => "end.stalemate",
            Code::EndDeadPosition => "end.dead-position",
            Code::EndFivefold => "end.fivefold",
            Code::EndSeventyFive => "end.seventy-five",
            Code::ClaimThreefold => "claim.threefold",
            Code::ClaimFifty => "claim.fifty",
            Code::MoveAfterEnd => "move.after-end",
            Code::ResultMismatch => "result.mismatch",
            Code::ResultFlagUnwinnable => "result.flag-unwinnable",
            Code::ResultUnfinished => "result.unfinished",
            Code::ResultTagMarkerMismatch => "result.tag-marker-mismatch",
            Code::FlagUndetermined => "flag.undetermined",
            Code::DeadUndetermined => "dead.undetermined",
            Code::LawsUndated => "laws.undated",
        }
    }

    pub fn severity(self) -> Severity {
        match self {
            Code::ResultMismatch | Code::ResultFlagUnwinnable => Severity::Error,
            Code::MoveAfterEnd | Code::ResultUnfinished | Code::ResultTagMarkerMismatch => {
                Severity::Warning
            }
            _ => Severity::Info,
        }
    }

    /// What the code means, in one line.
    pub fn summary(self) -> &'static str {
        match self {
            Code::EndCheckmate => "the game ended in checkmate",
            Code::EndStalemate => "the game ended in stalemate",
            Code::EndDeadPosition => "the game ended in a dead position",
            Code::EndFivefold => "the game ended on the fifth occurrence of a position",
            Code::EndSeventyFive => {
                "the game ended after 75 moves each without pawn move or capture"
            }
            Code::ClaimThreefold => "first point where a threefold repetition could be claimed",
            Code::ClaimFifty => "first point where the fifty-move draw could be claimed",
            Code::MoveAfterEnd => "moves were recorded after the game had ended",
            Code::ResultMismatch => "the recorded result is not the one the Laws give",
            Code::ResultFlagUnwinnable => {
                "a win on time by a side that could not checkmate: the Laws make it a draw"
            }
            Code::ResultUnfinished => "`*` recorded for a game that had ended",
            Code::ResultTagMarkerMismatch => "the Result tag and the movetext's result disagree",
            Code::FlagUndetermined => {
                "a win on time whose lawfulness could not be decided within the search budget"
            }
            Code::DeadUndetermined => {
                "whether the final position is dead could not be decided within the search budget"
            }
            Code::LawsUndated => "no usable Date tag: the newest edition of the Laws was applied",
        }
    }

    /// The Article the finding rests on in `edition`, or `None` where that edition has no
    /// such rule. Findings about the end of the game cite the ending's Article instead.
    pub fn article(self, edition: Edition) -> Option<&'static str> {
        use Edition::*;
        Some(match (self, edition) {
            (Code::EndCheckmate, Fide1980) => "11.1",
            (Code::EndCheckmate, Fide1997) => "10.1",
            (Code::EndCheckmate, Fide2001) => "5.1(a)",
            (Code::EndCheckmate, Fide2014) => "5.1.1",
            (Code::EndStalemate, Fide1980) => "12.1",
            (Code::EndStalemate, Fide1997) => "10.3",
            (Code::EndStalemate, Fide2001) => "5.2",
            (Code::EndStalemate, Fide2014) => "5.2.1",
            (Code::EndDeadPosition, Fide1980) => return None,
            (Code::EndDeadPosition, Fide1997) => "10.4",
            (Code::EndDeadPosition, Fide2001) => "9.6",
            (Code::EndDeadPosition, Fide2014) => "5.2.2",
            (Code::EndFivefold, Fide2014) => "9.6.1",
            (Code::EndSeventyFive, Fide2014) => "9.6.2",
            (Code::EndFivefold | Code::EndSeventyFive, _) => return None,
            (Code::ClaimThreefold, Fide1980) => "12.3",
            (Code::ClaimThreefold, Fide1997) => "10.10",
            (Code::ClaimThreefold, Fide2001) => "9.2",
            (Code::ClaimThreefold, Fide2014) => "9.2.1",
            (Code::ClaimFifty, Fide1980) => "12.4",
            (Code::ClaimFifty, Fide1997) => "10.12",
            (Code::ClaimFifty, Fide2001) => "9.3",
            (Code::ClaimFifty, Fide2014) => "9.3",
            (Code::ResultFlagUnwinnable, Fide1980) => return None,
            (Code::ResultFlagUnwinnable, Fide1997) => "10.5, 10.14",
            (Code::ResultFlagUnwinnable | Code::FlagUndetermined, _) => "6.9",
            (Code::DeadUndetermined, Fide2001) => "9.6",
            (Code::DeadUndetermined, Fide2014) => "5.2.2",
            (Code::DeadUndetermined, _) => return None,
            (
                Code::MoveAfterEnd
                | Code::ResultMismatch
                | Code::ResultUnfinished
                | Code::ResultTagMarkerMismatch
                | Code::LawsUndated,
                _,
            ) => return None,
        })
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One thing the Laws say about a game, located at a ply (the number of half-moves played
/// when it holds: ply 0 is the starting position).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LawFinding {
    pub code: Code,
    pub severity: Severity,
    pub ply: u32,
    /// The Article, in the edition applied (e.g. `5.2.2`).
    pub article: Option<&'static str>,
    pub message: String,
}

impl LawFinding {
    /// A finding citing the code's own Article in `edition`.
    pub fn new(code: Code, edition: Edition, ply: u32, message: String) -> LawFinding {
        LawFinding::citing(code, code.article(edition), ply, message)
    }

    /// A finding citing a given Article (for findings that rest on the game's ending).
    pub fn citing(
        code: Code,
        article: Option<&'static str>,
        ply: u32,
        message: String,
    ) -> LawFinding {
        LawFinding {
            code,
            severity: code.severity(),
            ply,
            article,
            message,
        }
    }
}

impl fmt::Display for LawFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} (ply {}", self.severity, self.code, self.ply)?;
        if let Some(a) = self.article {
            write!(f, ", Art. {a}")?;
        }
        write!(f, "): {}", self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_stable() {
        let mut seen = std::collections::HashSet::new();
        for c in Code::ALL {
            assert!(seen.insert(c.as_str()), "duplicate {c}");
        }
        assert_eq!(Code::EndSeventyFive.as_str(), "end.seventy-five");
        assert_eq!(Code::EndDeadPosition.article(Edition::Fide1980), None);
        assert_eq!(
            Code::EndDeadPosition.article(Edition::Fide1997),
            Some("10.4")
        );
        assert_eq!(Code::EndFivefold.article(Edition::Fide2001), None);
        assert_eq!(Code::ResultMismatch.severity(), Severity::Error);
    }
}
