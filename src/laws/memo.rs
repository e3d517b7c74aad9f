//! A per-thread memo of dead-position verdicts (2017 Art. 5.2.2; 2001 Art. 9.6). Large
//! collections end many games in the same position (the same short draw in many files, games
//! abandoned at the start), and `dead::deadness` is a function of the position and the
//! budget alone: its answer for a position seen before on this thread is reused. Only the
//! positions that need a search are kept (`dead::settled` answers the others at once).
//!
//! The position is compared in full (men, side to move, castling rights, en passant square,
//! Chess960), never by hash alone, so a hash collision can only cost a miss. The memo holds at
//! most `CAPACITY` positions per thread and starts afresh when full: memory stays bounded
//! whatever the input size.

use super::dead::{self, Budget, Deadness};
use crate::chess::zobrist::BuildKeyHasher;
use crate::chess::{Bitboard, Castling, Color, Position, Role, Square};
use std::cell::RefCell;
use std::collections::HashMap;

/// Positions kept per thread (about 110 bytes each).
const CAPACITY: usize = 1 << 16;

/// What decides a position's deadness: not its move counters.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Exact {
    by_role: [Bitboard; 6],
    by_color: [Bitboard; 2],
    turn: Color,
    castling: Castling,
    ep_square: Option<Square>,
    chess960: bool,
}

impl Exact {
    fn of(pos: &Position) -> Exact {
        Exact {
            by_role: Role::ALL.map(|r| pos.by_role(r)),
            by_color: Color::ALL.map(|c| pos.by_color(c)),
            turn: pos.turn(),
            castling: *pos.castling(),
            ep_square: pos.ep_square(),
            chess960: pos.is_chess960(),
        }
    }
}

#[derive(Default)]
struct Memo {
    /// By repetition key: the position, the budget it was analysed with, the verdict.
    verdicts: HashMap<u64, (Exact, Budget, Deadness), BuildKeyHasher>,
}

thread_local! {
    static MEMO: RefCell<Memo> = RefCell::new(Memo::default());
}

/// `dead::deadness(pos, budget)`, from the memo when this thread has analysed the same
/// position with the same budget before.
pub fn deadness(pos: &Position, budget: Budget) -> Deadness {
    // Most positions are settled in a few hundred instructions, less than a look-up and an
    // insertion cost: only the searched ones are kept.
    if let Some(d) = dead::settled(pos) {
        return d;
    }
    let key = pos.repetition_key();
    let exact = Exact::of(pos);
    let known = MEMO.with_borrow(|m| {
        m.verdicts
            .get(&key)
            .and_then(|&(e, b, d)| (e == exact && b == budget).then_some(d))
    });
    if let Some(d) = known {
        return d;
    }
    let d = dead::deadness_unsettled(pos, budget);
    MEMO.with_borrow_mut(|m| {
        if m.verdicts.len() >= CAPACITY {
            m.verdicts.clear();
        }
        m.verdicts.insert(key, (exact, budget, d));
    });
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The memo answers as the analysis does, for positions that differ only in what the
    /// memo must tell apart (castling rights, side to move) and in what it must not
    /// (move counters).
    #[test]
    fn memo_answers_as_the_analysis() {
        let budget = Budget::default();
        for fen in [
            // A head-on pair and no eighth man keep these out of every class: searched.
            "4k3/8/8/3p4/3P4/8/8/R3K3 w Q - 0 1",
            "4k3/8/8/3p4/3P4/8/8/R3K3 w - - 0 1",
            "4k3/8/8/3p4/3P4/8/8/R3K3 w - - 37 90",
            "8/8/8/4k3/8/8/8/4K2B w - - 0 1",
            "8/8/8/4k3/8/8/8/4K2B b - - 0 1",
            "8/8/8/4k3/8/8/8/4K2B b - - 12 40",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            let first = deadness(&pos, budget);
            assert_eq!(first, dead::deadness(&pos, budget), "{fen}");
            assert_eq!(deadness(&pos, budget), first, "{fen} (from the memo)");
        }
        let bishop = Position::from_fen("8/8/8/4k3/8/8/8/4K2B w - - 0 1").unwrap();
        let rook = Position::from_fen("8/8/8/4k3/8/8/8/4K2R w - - 5 9").unwrap();
        assert_eq!(deadness(&bishop, budget), Deadness::Dead);
        assert_eq!(deadness(&rook, budget), Deadness::Alive);
        // Five positions searched (the start position too: no king has a quiet step there,
        // so no class applies): move counters do not make a new one, castling rights and the
        // side to move do. K+R v K is settled by a class, and not kept.
        assert_eq!(MEMO.with_borrow(|m| m.verdicts.len()), 5);
    }
}
