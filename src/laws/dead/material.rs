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
    /// King and bishops all on squares of one colour, with no enemy pawns, knights or
    /// bishops of the other colour. The king's orthogonal neighbours are of the other
    /// colour: the winner's king guards at most one of the two next to the checking line,
    /// so an enemy rook or queen stands on the other and can take the checker or
    /// interpose (see `cannot_win`).
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
        // Say the king stands on `s` and a bishop checks it along a diagonal, `x` being
        // the square next to `s` on that diagonal (the checker's, or where a man could
        // interpose). The two squares next to both `s` and `x`, `a` and `c`, are of the
        // other colour: no bishop of the winner stands on or attacks them, and its king
        // guards at most one (only `s` and `x` touch both, and the king touches neither).
        // In a mate the other is not a flight, so it holds one of the loser's men: a rook
        // or a queen, as no other man of the loser can stand on that colour. It reaches
        // `x` in one step along a rank or file and takes or interposes. That is legal: it
        // is pinned only along the line from its king, a rank or file, and the winner
        // has no man moving along one; and the check is single. A double check needs
        // the checker to have moved off the other checker's diagonal onto a diagonal
        // through `s`, but the checker's two diagonals are parallel to the two through
        // `s` and meet them only at `s` (a king's move uncovers one bishop only, and the
        // winner has no pawn to promote). So there is no mate, whatever both sides play.
        let blockers_other_colour =
            (their_men & (pawns | knights)) | (their_men & bishops & !colour);
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
        // Two same-coloured bishops against two rooks: no double check, and a rook next
        // to the king always takes or interposes.
        assert_eq!(
            lemma("8/8/8/8/8/8/r1r5/k1K1B1B1 w - - 0 1", Color::White),
            Some(MaterialLemma::SameColourBishops)
        );
        // D3-Chess (W-): Black's dark bishops against two rooks.
        for fen in [
            "5b2/4bk2/8/8/8/8/3KR3/3R4 w - -",
            "8/8/8/8/8/2b1k1b1/3R4/4KR2 w - -",
        ] {
            assert_eq!(
                lemma(fen, Color::Black),
                Some(MaterialLemma::SameColourBishops)
            );
        }
        // ... nor against one rook.
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
