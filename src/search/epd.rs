//! Test-suite records in EPD: a position (four FEN fields) and operations such as `bm` (best
//! moves), `am` (moves to avoid) and `id`. Moves are SAN, read leniently against the position.

use crate::chess::san::{SanMode, resolve};
use crate::chess::{Move, Position};
use std::fmt;

/// One position of a test suite.
#[derive(Clone, Debug)]
pub struct EpdRecord {
    pub id: String,
    pub position: Position,
    /// Any of these solves the position (empty: none required).
    pub best: Vec<Move>,
    /// None of these may be played.
    pub avoid: Vec<Move>,
}

impl EpdRecord {
    /// Does playing `m` solve this record?
    /// Does the record test anything: has it a `bm` or an `am`? A position alone is not a
    /// test; a suite runner skips it rather than count it passed.
    pub fn is_test(&self) -> bool {
        !self.best.is_empty() || !self.avoid.is_empty()
    }

    pub fn is_solved_by(&self, m: Move) -> bool {
        (self.best.is_empty() || self.best.contains(&m)) && !self.avoid.contains(&m)
    }
}

/// Why a line is not a usable EPD record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EpdError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for EpdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for EpdError {}

/// Parses one EPD line (`line` is its 1-based number, for errors and the default id).
pub fn parse_line(text: &str, line: usize) -> Result<EpdRecord, EpdError> {
    let err = |message: String| EpdError { line, message };
    let mut fields = text.split_ascii_whitespace();
    let fen_fields: Vec<&str> = fields.by_ref().take(4).collect();
    if fen_fields.len() < 4 {
        return Err(err("fewer than four position fields".into()));
    }
    let fen = format!("{} 0 1", fen_fields.join(" "));
    let position = Position::from_fen(&fen).map_err(|e| err(format!("{fen}: {e}")))?;
    // The rest of the line after the four fields, split into `;`-terminated operations.
    let rest_start = {
        let mut seen = 0;
        let mut idx = text.len();
        let mut in_field = false;
        for (i, c) in text.char_indices() {
            if c.is_ascii_whitespace() {
                if in_field {
                    in_field = false;
                    seen += 1;
                    if seen == 4 {
                        idx = i;
                        break;
                    }
                }
            } else {
                in_field = true;
            }
        }
        idx
    };
    let mut record = EpdRecord {
        id: format!("line {line}"),
        position,
        best: Vec::new(),
        avoid: Vec::new(),
    };
    for op in split_operations(&text[rest_start..]) {
        let op = op.trim();
        let (code, operands) = op.split_once(char::is_whitespace).unwrap_or((op, ""));
        let operands = operands.trim();
        match code {
            "id" => record.id = operands.trim_matches('"').to_string(),
            "bm" | "am" => {
                for token in operands.split_ascii_whitespace() {
                    let m = resolve(&record.position, token, SanMode::Lenient)
                        .map_err(|e| err(format!("{code} {token}: {e}")))?
                        .mv;
                    if code == "bm" {
                        record.best.push(m);
                    } else {
                        record.avoid.push(m);
                    }
                }
            }
            _ => {}
        }
    }
    Ok(record)
}

/// Splits on `;` outside double quotes.
fn split_operations(text: &str) -> Vec<&str> {
    let mut ops = Vec::new();
    let mut start = 0;
    let mut quoted = false;
    for (i, c) in text.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ';' if !quoted => {
                ops.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if !text[start..].trim().is_empty() {
        ops.push(&text[start..]);
    }
    ops.into_iter().filter(|o| !o.trim().is_empty()).collect()
}

/// Parses every non-blank, non-comment line; each bad line is its own error.
pub fn parse_suite(text: &str) -> Vec<Result<EpdRecord, EpdError>> {
    crate::chess::lines::suite_lines(text)
        .map(|(n, l)| parse_line(l, n))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::uci::to_uci;

    #[test]
    fn reads_best_and_avoid_moves_and_the_id() {
        let r = parse_line(
            r#"2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id "WAC.001";"#,
            1,
        )
        .unwrap();
        assert_eq!(r.id, "WAC.001");
        assert_eq!(to_uci(&r.position, r.best[0]), "g3g6");
        assert!(r.is_solved_by(r.best[0]));
        let r = parse_line(
            r#"r1b1k2r/ppppnppp/2n2q2/2b5/3NP3/2P1B3/PP3PPP/RN1QKB1R w KQkq - am Nxc6 Nf5; id "a;b";"#,
            7,
        )
        .unwrap();
        assert_eq!(r.id, "a;b");
        assert_eq!(r.avoid.len(), 2);
        assert!(!r.is_solved_by(r.avoid[1]));
    }

    #[test]
    fn a_position_without_bm_or_am_is_no_test() {
        let r = parse_line(r#"4k3/8/8/8/8/8/8/4K3 w - - id "bare";"#, 3).unwrap();
        assert!(!r.is_test());
        let r = parse_line("4k3/8/8/8/8/8/8/3QK3 w - - am Qd7;", 4).unwrap();
        assert!(r.is_test());
    }

    #[test]
    fn a_bad_move_is_an_error_with_its_line() {
        let e = parse_line("4k3/8/8/8/8/8/8/4K3 w - - bm Qh5;", 9).unwrap_err();
        assert_eq!(e.line, 9);
    }
}
