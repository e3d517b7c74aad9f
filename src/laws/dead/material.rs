//! Material lemmas: configurations of force with which a side can never deliver mate,
//! whatever the placement. Each lemma is a proof on its own, so it is sound at any node of
//! a search (material only shrinks or promotes along a line, and promotion needs pawns).

use crate::chess::{Bitboard, Color, Position, Role};

/// Which material lemma proved that a side cannot win.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaterialLemma {
    /// Only the king is left: a king never gives check.
    BareKing,
    /// King and one knight against king and queens only. A knight's check cannot be
    /// blocked, so the mated king must be hemmed in by its own men, and a queen standing
    /// next to the king always sees the checking knight or an escape square the winner's
    /// king cannot cover.
    LoneKnight,
    /// King and bishops all on squares of one colour, with no enemy man that could ever
    /// stand on a square of the other colour to hem in the king (no pawns, knights or
    /// bishops of the other colour; and at most one rook or queen when the winner has two
    /// bishops, since only a double check beats those). The king's orthogonal neighbours
    /// are of the other colour and the winner's king can guard at most one of them.
    SameColourBishops,
}

impl MaterialLemma {
    pub fn describe(self) -> &'static str {
        match self {
            MaterialLemma::BareKing => "bare king",
            MaterialLemma::LoneKnight => "a lone knight cannot mate against queens only",
            MaterialLemma::SameColourBishops => {
                "bishops on one colour with nothing that could block the other colour"
            }
        }
    }
}

/// A lemma proving that `winner` can never checkmate, if one applies.
pub fn cannot_win(pos: &Position, winner: Color) -> Option<MaterialLemma> {
    let ours = pos.by_color(winner);
    let theirs = pos.by_color(winner.other());
    let kings = pos.by_role(Role::King);
    let pawns = pos.by_role(Role::Pawn);
    let knights = pos.by_role(Role::Knight);
    let bishops = pos.by_role(Role::Bishop);
    let heavy = pos.by_role(Role::Rook) | pos.by_role(Role::Queen);

    let our_men = ours & !kings;
    if our_men.is_empty() {
        return Some(MaterialLemma::BareKing);
    }
    // Pawns can promote to anything; rooks and queens mate a bare king.
    if (our_men & (pawns | heavy)).nonempty() {
        return None;
    }
    let their_men = theirs & !kings;
    if our_men == (ours & knights) && our_men.count() == 1 {
        let their_queens = theirs & pos.by_role(Role::Queen);
        if their_men == their_queens {
            return Some(MaterialLemma::LoneKnight);
        }
        return None;
    }
    if our_men == (ours & bishops) {
        let colour = if (our_men & Bitboard::DARK_SQUARES).nonempty() {
            Bitboard::DARK_SQUARES
        } else {
            Bitboard::LIGHT_SQUARES
        };
        if (our_men & !colour).nonempty() {
            return None; // bishops on both colours
        }
        // Rooks and queens next to the king can always interpose on or take at the
        // diagonal square of a single check; only a double check (two bishops) beats
        // them, and then the king must stand off the corner, with at least two of its
        // orthogonal neighbours filled by its own men.
        let their_heavy = their_men & heavy;
        let heavy_can_block = our_men.more_than_one() && their_heavy.more_than_one();
        let blockers_other_colour = (their_men & (pawns | knights))
            | (their_men & bishops & !colour)
            | if heavy_can_block {
                their_heavy
            } else {
                Bitboard::EMPTY
            };
        if blockers_other_colour.is_empty() {
            return Some(MaterialLemma::SameColourBishops);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lemma(fen: &str, c: Color) -> Option<MaterialLemma> {
        cannot_win(&Position::from_fen(fen).unwrap(), c)
    }

    #[test]
    fn lemmas_apply_only_where_proved() {
        let kbk = "4k3/8/8/8/8/5B2/8/4K3 w - - 0 1";
        assert_eq!(lemma(kbk, Color::Black), Some(MaterialLemma::BareKing));
        assert_eq!(
            lemma(kbk, Color::White),
            Some(MaterialLemma::SameColourBishops)
        );
        // K+N v K+Q: the knight cannot mate; the queen can.
        let knkq = "8/3k4/2q5/8/8/K1N5/8/8 b - - 0 1";
        assert_eq!(lemma(knkq, Color::White), Some(MaterialLemma::LoneKnight));
        assert_eq!(lemma(knkq, Color::Black), None);
        // Two same-coloured bishops against two rooks: a double check can mate.
        assert_eq!(
            lemma("8/8/8/8/8/8/r1r5/k1K1B1B1 w - - 0 1", Color::White),
            None
        );
        // ... but not against one rook.
        assert_eq!(
            lemma("3b4/8/8/6b1/8/8/R7/K1k5 w - - 0 1", Color::Black),
            Some(MaterialLemma::SameColourBishops)
        );
        // One bishop against rooks cannot.
        assert_eq!(
            lemma("8/8/8/8/8/8/r1r5/k1K1B3 w - - 0 1", Color::White),
            Some(MaterialLemma::SameColourBishops)
        );
        // Opposite-coloured bishop of the defender can block.
        assert_eq!(lemma("8/4bk2/8/8/8/8/3KB3/8 w - - 0 1", Color::White), None);
    }
}
