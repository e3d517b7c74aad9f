//! Label files of dead and winnable positions, checked against `analyse`: a CHA-style file
//! (`WB`, `W-`, `-B` or `--`, a space, a FEN; `#` lines are comments) or a tab-separated one
//! (`fen`, `dead`, `white_can_win`, `black_can_win` as `yes`/`no`, further columns
//! ignored, a header line starting `fen`). `arbiter dead --suite FILE` prints what this
//! finds.

use super::{Budget, Winnability, analyse};
use crate::chess::lines::suite_lines;
use crate::chess::{Color, FenError, Position};

/// One line of a label file: the FEN and whether White and Black can win; `None` for the
/// tab-separated file's header line.
pub fn parse_label(line: &str) -> Result<Option<(&str, bool, bool)>, &'static str> {
    if line.contains('\t') {
        let mut cols = line.split('\t').map(str::trim);
        let fen = cols.next().unwrap_or("");
        if fen == "fen" {
            return Ok(None);
        }
        let mut yes_no = || match cols.next() {
            Some("yes") => Ok(true),
            Some("no") => Ok(false),
            _ => Err("bad label: the dead, white_can_win and black_can_win columns take yes or no"),
        };
        let (dead, white, black) = (yes_no()?, yes_no()?, yes_no()?);
        if dead == (white || black) {
            return Err("bad label: dead must be yes exactly when neither side can win");
        }
        return Ok(Some((fen, white, black)));
    }
    let (label, fen) = line.split_at(line.len().min(2));
    match label.as_bytes() {
        [w @ (b'W' | b'-'), b @ (b'B' | b'-')] => Ok(Some((fen.trim(), *w == b'W', *b == b'B'))),
        _ => Err("bad label"),
    }
}

/// What checking one line found, with its line number.
#[derive(Debug, PartialEq)]
pub enum Event<'a> {
    /// A line that is no label: it fails the suite.
    Malformed { line: usize, why: &'static str },
    /// A well-formed line whose position cannot arise (D3-Chess's vector holds 48 on
    /// purpose): skipped, but no fault of the file.
    Illegal { line: usize, error: FenError },
    /// A side the label says can (or cannot) win, found otherwise; `can_win` is what the
    /// analysis found.
    Wrong {
        line: usize,
        color: Color,
        can_win: bool,
        fen: &'a str,
    },
    /// The label agrees as far as the analysis got, but a side is undetermined.
    Undetermined { line: usize, fen: &'a str },
}

/// The suite's counts.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    pub passed: u64,
    pub failed: u64,
    pub undetermined: u64,
    pub malformed: u64,
    pub illegal: u64,
}

impl Tally {
    /// Positions analysed.
    pub fn positions(&self) -> u64 {
        self.passed + self.failed + self.undetermined
    }

    /// No disagreement and no malformed line (a position that cannot arise is only skipped).
    pub fn ok(&self) -> bool {
        self.failed == 0 && self.malformed == 0
    }
}

/// Checks every label of `text` with the search's `budget`, telling `each` what it finds.
pub fn check<'a>(text: &'a str, budget: Budget, mut each: impl FnMut(Event<'a>)) -> Tally {
    let mut tally = Tally::default();
    for (line, entry) in suite_lines(text) {
        let (fen, white, black) = match parse_label(entry) {
            Ok(Some(label)) => label,
            Ok(None) => continue,
            Err(why) => {
                each(Event::Malformed { line, why });
                tally.malformed += 1;
                continue;
            }
        };
        let fen = fen.trim();
        let pos = match Position::from_fen(fen) {
            Ok(p) => p,
            Err(error) => {
                each(Event::Illegal { line, error });
                tally.illegal += 1;
                continue;
            }
        };
        let u = analyse(&pos, budget);
        let mut ok = true;
        let mut undetermined = false;
        for (color, expected) in [(Color::White, white), (Color::Black, black)] {
            match (expected, u.side(color)) {
                (_, Winnability::Unknown { .. }) => undetermined = true,
                (true, Winnability::CanWin { .. }) | (false, Winnability::CannotWin(_)) => {}
                (_, got) => {
                    ok = false;
                    each(Event::Wrong {
                        line,
                        color,
                        can_win: got.can_win(),
                        fen,
                    });
                }
            }
        }
        if !ok {
            tally.failed += 1;
        } else if undetermined {
            tally.undetermined += 1;
            each(Event::Undetermined { line, fen });
        } else {
            tally.passed += 1;
        }
    }
    tally
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_in_both_formats() {
        let k = "8/8/4k3/8/8/3K4/8/8 w - - 0 1";
        assert_eq!(parse_label(&format!("-- {k}")), Ok(Some((k, false, false))));
        assert_eq!(parse_label(&format!("W- {k}")), Ok(Some((k, true, false))));
        assert_eq!(parse_label(&format!("WB {k}")), Ok(Some((k, true, true))));
        assert_eq!(parse_label(&format!("XB {k}")), Err("bad label"));
        assert_eq!(
            parse_label("fen\tdead\twhite_can_win\tblack_can_win\tsource"),
            Ok(None)
        );
        assert_eq!(
            parse_label(&format!("{k}\tyes\tno\tno\tconstructed\tK v K")),
            Ok(Some((k, false, false)))
        );
        assert_eq!(
            parse_label(&format!("{k}\tno\tno\tyes")),
            Ok(Some((k, false, true)))
        );
        assert!(parse_label(&format!("{k}\tyes\tyes\tno")).is_err());
        assert!(parse_label(&format!("{k}\tmaybe\tno\tno")).is_err());
        assert!(parse_label(&format!("{k}\tno\tyes")).is_err());
    }

    #[test]
    fn a_tab_separated_suite_is_checked_line_by_line() {
        let text = "fen\tdead\twhite_can_win\tblack_can_win\n\
                    8/8/4k3/8/8/3K4/8/8 w - - 0 1\tyes\tno\tno\n\
                    8/8/4k3/8/8/3K4/8/7R w - - 0 1\tno\tyes\tno\n\
                    8/8/4k3/8/8/3K4/8/7R w - - 0 1\tyes\tno\tno\n\
                    8/8/4k3/8/8/3K4/8/7R w - - 0 1\tyes\tyes\tno\n\
                    QQQQQQQQ/PPPPPPPP/4k3/8/8/3K4/8/Q7 w - - 0 1\tno\tyes\tno\n";
        let mut events = Vec::new();
        let tally = check(text, Budget::default(), |e| events.push(e));
        assert_eq!(
            tally,
            Tally {
                passed: 2,
                failed: 1,
                undetermined: 0,
                malformed: 1,
                illegal: 1
            }
        );
        assert!(!tally.ok());
        assert_eq!(
            events[0],
            Event::Wrong {
                line: 4,
                color: Color::White,
                can_win: true,
                fen: "8/8/4k3/8/8/3K4/8/7R w - - 0 1"
            }
        );
        assert_eq!(
            events[1],
            Event::Malformed {
                line: 5,
                why: "bad label: dead must be yes exactly when neither side can win"
            }
        );
        assert!(matches!(events[2], Event::Illegal { line: 6, .. }));
    }
}
