//! The Laws' findings: the codes of the one catalogue (`crate::findings`) that judge a game
//! under the Laws, as an enum, with the Article each rests on in each edition.

use super::edition::Edition;
use std::fmt;

pub use crate::findings::Severity;
use crate::findings::laws as code;

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
    FlagUndetermined,
    DeadUndetermined,
    LawsUndated,
}

impl Code {
    pub const ALL: [Code; 14] = [
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
        Code::FlagUndetermined,
        Code::DeadUndetermined,
        Code::LawsUndated,
    ];

    /// The stable code string (from the catalogue, `crate::findings`).
    pub fn as_str(self) -> &'static str {
        match self {
            Code::EndCheckmate => code::END_CHECKMATE,
            Code::EndStalemate => code::END_STALEMATE,
            Code::EndDeadPosition => code::END_DEAD_POSITION,
            Code::EndFivefold => code::END_FIVEFOLD,
            Code::EndSeventyFive => code::END_SEVENTY_FIVE,
            Code::ClaimThreefold => code::CLAIM_THREEFOLD,
            Code::ClaimFifty => code::CLAIM_FIFTY,
            Code::MoveAfterEnd => code::MOVE_AFTER_END,
            Code::ResultMismatch => code::RESULT_MISMATCH,
            Code::ResultFlagUnwinnable => code::RESULT_FLAG_UNWINNABLE,
            Code::ResultUnfinished => code::RESULT_UNFINISHED,
            Code::FlagUndetermined => code::FLAG_UNDETERMINED,
            Code::DeadUndetermined => code::DEAD_UNDETERMINED,
            Code::LawsUndated => code::LAWS_UNDATED,
        }
    }

    /// The catalogue's severity.
    pub fn severity(self) -> Severity {
        crate::findings::severity(self.as_str())
    }

    /// What the code means, in one line (the catalogue's meaning).
    pub fn summary(self) -> &'static str {
        crate::findings::entry(self.as_str()).map_or("", |e| e.meaning)
    }

    /// The Article the finding rests on in `edition`, or `None` where that edition has no
    /// such rule. Findings about the end of the game cite the ending's Article instead.
    pub fn article(self, edition: Edition) -> Option<&'static str> {
        use Edition::*;
        Some(match (self, edition) {
            (Code::EndCheckmate, Fide1980) => "11.1",
            (Code::EndCheckmate, Fide1993) => "10.1",
            (Code::EndCheckmate, Fide2001) => "5.1(a)",
            (Code::EndCheckmate, Fide2014) => "5.1.1",
            (Code::EndStalemate, Fide1980) => "12.1",
            (Code::EndStalemate, Fide1993) => "10.3",
            (Code::EndStalemate, Fide2001) => "5.2",
            (Code::EndStalemate, Fide2014) => "5.2.1",
            (Code::EndDeadPosition, Fide1980) => return None,
            (Code::EndDeadPosition, Fide1993) => "10.4",
            (Code::EndDeadPosition, Fide2001) => "9.6",
            (Code::EndDeadPosition, Fide2014) => "5.2.2",
            (Code::EndFivefold, Fide2014) => "9.6.1",
            (Code::EndSeventyFive, Fide2014) => "9.6.2",
            (Code::EndFivefold | Code::EndSeventyFive, _) => return None,
            (Code::ClaimThreefold, Fide1980) => "12.3",
            (Code::ClaimThreefold, Fide1993) => "10.10",
            (Code::ClaimThreefold, Fide2001) => "9.2",
            (Code::ClaimThreefold, Fide2014) => "9.2.1",
            (Code::ClaimFifty, Fide1980) => "12.4",
            (Code::ClaimFifty, Fide1993) => "10.12",
            (Code::ClaimFifty, Fide2001) => "9.3",
            (Code::ClaimFifty, Fide2014) => "9.3",
            (Code::ResultFlagUnwinnable, Fide1980) => return None,
            (Code::ResultFlagUnwinnable, Fide1993) => "10.5, 10.14",
            // Before 2001 a flag-fall needs no analysis (1993: a bare king is plain to see).
            (Code::FlagUndetermined, Fide1980 | Fide1993) => return None,
            (Code::ResultFlagUnwinnable | Code::FlagUndetermined, _) => "6.9",
            (Code::DeadUndetermined, Fide2001) => "9.6",
            (Code::DeadUndetermined, Fide2014) => "5.2.2",
            (Code::DeadUndetermined, _) => return None,
            (
                Code::MoveAfterEnd
                | Code::ResultMismatch
                | Code::ResultUnfinished
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
            Code::EndDeadPosition.article(Edition::Fide1993),
            Some("10.4")
        );
        assert_eq!(Code::EndFivefold.article(Edition::Fide2001), None);
        assert_eq!(Code::ResultMismatch.severity(), Severity::Error);
        for c in Code::ALL {
            assert!(crate::findings::entry(c.as_str()).is_some(), "{c}");
        }
        let laws = crate::findings::CATALOGUE
            .iter()
            .filter(|e| e.stage == crate::findings::Stage::Laws);
        assert_eq!(laws.count(), Code::ALL.len());
    }

    /// docs/findings.md's Laws table gives, per edition (its columns are named by the
    /// editions' years), exactly the Article `Code::article` cites: "—" where the edition has
    /// no such rule, "ending's" for the findings that cite the ending's Article.
    #[test]
    fn docs_give_each_editions_article() {
        let docs = include_str!("../../docs/findings.md");
        let cells = |l: &str| -> Vec<String> {
            l.trim()
                .trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        };
        let header = docs
            .lines()
            .find(|l| l.starts_with("| Code | Severity | Meaning | 1980"))
            .expect("the Laws table's header");
        let years: Vec<String> = cells(header)[3..].to_vec();
        let names: Vec<String> = Edition::ALL.iter().map(|e| e.year().to_string()).collect();
        assert_eq!(years, names, "one column per edition, named by its year");
        let cites_ending = [
            Code::MoveAfterEnd,
            Code::ResultMismatch,
            Code::ResultUnfinished,
        ];
        let mut rows = 0;
        for code in Code::ALL {
            let line = docs
                .lines()
                .find(|l| l.starts_with(&format!("| `{code}` |")))
                .unwrap_or_else(|| panic!("{code} is not in docs/findings.md"));
            let row = cells(line);
            for (i, edition) in Edition::ALL.into_iter().enumerate() {
                let want = match code.article(edition) {
                    Some(a) => a,
                    None if cites_ending.contains(&code) => "ending's",
                    None => "—",
                };
                assert_eq!(row[3 + i], want, "{code} under {edition}");
            }
            rows += 1;
        }
        assert_eq!(rows, 14);
    }
}
