//! UCI move text (`e2e4`, `e7e8q`, `0000` for none). Castling is written king-to-destination
//! (`e1g1`) in standard chess and king-takes-rook (`e1h1`) in Chess960; both are read.

use super::bitboard::Bitboard;
use super::moves::{Move, MoveList};
use super::position::Position;
use super::types::{Role, Square};
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UciError {
    Syntax(String),
    Illegal(String),
}

impl fmt::Display for UciError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UciError::Syntax(t) => write!(f, "{t:?} is not a UCI move"),
            UciError::Illegal(t) => write!(f, "{t:?} is not a legal move in this position"),
        }
    }
}

impl std::error::Error for UciError {}

/// Reads UCI text and returns the legal move it names.
pub fn parse_uci(pos: &Position, text: &str) -> Result<Move, UciError> {
    let short = || text.chars().take(16).collect::<String>();
    if !text.is_ascii() || !(4..=5).contains(&text.len()) {
        return Err(UciError::Syntax(short()));
    }
    let from = Square::parse(&text[0..2]).ok_or_else(|| UciError::Syntax(short()))?;
    let to = Square::parse(&text[2..4]).ok_or_else(|| UciError::Syntax(short()))?;
    let promotion = match text.as_bytes().get(4) {
        None => None,
        Some(&c) => Some(
            Role::from_char(c as char)
                .filter(|r| !matches!(r, Role::Pawn | Role::King))
                .ok_or_else(|| UciError::Syntax(short()))?,
        ),
    };
    let mut list = MoveList::new();
    pos.generate_legal_from(&mut list, Bitboard::from_square(from), Bitboard::FULL);
    list.iter()
        .copied()
        .find(|m| {
            m.promotion_role() == promotion
                && (m.to() == to
                    || (m.is_castle() && m.king_destination() == to && !pos.is_chess960()))
        })
        .ok_or_else(|| UciError::Illegal(short()))
}

/// Writes a legal move as UCI text.
pub fn to_uci(pos: &Position, m: Move) -> String {
    let to = if m.is_castle() && !pos.is_chess960() {
        m.king_destination()
    } else {
        m.to()
    };
    let mut s = format!("{}{}", m.from(), to);
    if let Some(r) = m.promotion_role() {
        s.push(r.lower_char());
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::fen::parse_fen;

    #[test]
    fn castling_both_ways() {
        let pos = parse_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
        let m = parse_uci(&pos, "e1g1").unwrap();
        assert!(m.is_castle());
        assert_eq!(parse_uci(&pos, "e1h1").unwrap(), m);
        assert_eq!(to_uci(&pos, m), "e1g1");
        let c960 = parse_fen("r3k2r/8/8/8/8/8/8/1R2K1R1 w GBkq - 0 1").unwrap();
        assert!(c960.is_chess960());
        let m = parse_uci(&c960, "e1g1").unwrap();
        assert!(m.is_castle());
        assert_eq!(to_uci(&c960, m), "e1g1");
        let m = parse_uci(&c960, "e1b1").unwrap();
        assert_eq!(m.king_destination(), Square::C1);
    }

    #[test]
    fn promotions_and_errors() {
        let pos = parse_fen("8/4P3/8/8/8/8/8/k3K3 w - - 0 1").unwrap();
        assert_eq!(to_uci(&pos, parse_uci(&pos, "e7e8n").unwrap()), "e7e8n");
        assert!(matches!(parse_uci(&pos, "e7e8"), Err(UciError::Illegal(_))));
        assert!(matches!(parse_uci(&pos, "e7e8k"), Err(UciError::Syntax(_))));
        assert!(matches!(parse_uci(&pos, "z1e2"), Err(UciError::Syntax(_))));
    }
}
