//! Fast pieces of the helpmate lines (`fastline`, `helpmate::greedy` and the searches),
//! which run on the final position of every game judged under the 2001 and later Laws
//! (Art. 5.2.2, 6.9; 2001 Art. 9.6): the squares from which each role checks the loser's
//! king, and a mate-in-one test that rules most checks out from the loser's king's flight
//! squares before playing them. It returns exactly what the plain test returns, so the
//! greedy line, its node count and every verdict stay the same; it is only cheaper.

use crate::chess::{Bitboard, Color, Move, MoveKind, MoveList, Position, Role, attacks};

/// Squares a man of `role` and `color` on `sq` attacks, with `occ` as blockers.
#[inline]
fn attacks_of(role: Role, color: Color, sq: crate::chess::Square, occ: Bitboard) -> Bitboard {
    match role {
        Role::Pawn => attacks::pawn_attacks(color, sq),
        Role::Knight => attacks::knight_attacks(sq),
        Role::Bishop => attacks::bishop_attacks(sq, occ),
        Role::Rook => attacks::rook_attacks(sq, occ),
        Role::Queen => attacks::queen_attacks(sq, occ),
        Role::King => attacks::king_attacks(sq),
    }
}

/// Squares from which a man of each role of `winner` (index by `Role::index`) would attack
/// the loser's king, with the present occupancy.
#[inline]
pub(super) fn check_squares(pos: &Position, winner: Color) -> [Bitboard; 6] {
    let king = pos.king_of(winner.other());
    let occ = pos.occupied();
    let diagonal = attacks::bishop_attacks(king, occ);
    let straight = attacks::rook_attacks(king, occ);
    let mut direct = [Bitboard::EMPTY; 6];
    direct[Role::Pawn.index()] = attacks::pawn_attacks(winner.other(), king);
    direct[Role::Knight.index()] = attacks::knight_attacks(king);
    direct[Role::Bishop.index()] = diagonal;
    direct[Role::Rook.index()] = straight;
    direct[Role::Queen.index()] = diagonal | straight;
    direct
}

/// The first move of `list` (in its order) that checkmates, `winner` being to move: the
/// same move as playing each one out would find.
///
/// Only checks can mate: a move checks directly from its destination (the squares are
/// looked up from the king with the present occupancy: the moving man cannot have been
/// blocking its own line, or the loser would be in check already), or by leaving the only
/// square between the king and a line piece of the winner for a square off that line;
/// castling and en passant (which moves a rook or removes a second man) are let through.
///
/// Of the checks, most are ruled out before being played. Let `free` be the squares next
/// to the loser's king that hold no man of the loser and that no man of the winner attacks
/// (the king taken off the board). After an ordinary move or a promotion from `from` to
/// `to`, such a square can only be attacked by the moved man from `to` (with the new
/// occupancy) or by a line piece whose line the move opened, which needs that piece to see
/// `from` now and the square to lie on a line through `from`; blocking by the man on `to`
/// only takes attacks away, and the loser's men do not move. So if some free square is
/// neither attacked by the moved man nor behind `from`, the king can step there and the
/// move is no mate.
pub fn mate_in_one(pos: &Position, winner: Color, list: &MoveList) -> Option<Move> {
    let loser = winner.other();
    let king = pos.king_of(loser);
    let full = pos.occupied();
    let ours = pos.by_color(winner);
    let queens = pos.pieces(winner, Role::Queen);
    let rooks = pos.pieces(winner, Role::Rook) | queens;
    let bishops = pos.pieces(winner, Role::Bishop) | queens;
    let direct = check_squares(pos, winner);
    // The winner's men that alone stand between the king and a line piece of the winner.
    let mut unmasking = Bitboard::EMPTY;
    let sliders = (attacks::rook_rays(king) & rooks) | (attacks::bishop_rays(king) & bishops);
    for slider in sliders {
        let between = attacks::between(king, slider) & full;
        if let Some(sq) = between.single()
            && ours.contains(sq)
        {
            unmasking.add(sq);
        }
    }
    // By origin square, where an ordinary move of the winner's man there gives check.
    let mut checking = [Bitboard::EMPTY; 64];
    for sq in ours {
        let Some(p) = pos.piece_at(sq) else { continue };
        let mut to = direct[p.role.index()];
        if unmasking.contains(sq) {
            to |= !attacks::line(king, sq);
        }
        checking[sq.index()] = to;
    }
    let occ = full & !Bitboard::from_square(king);
    // Computed at the first check: most nodes have none.
    let mut free: Option<Bitboard> = None;
    list.iter().copied().find(|&m| {
        let (from, to) = (m.from(), m.to());
        let role = match m.kind() {
            MoveKind::Castle | MoveKind::EnPassant => None,
            MoveKind::Promotion(role) => {
                let checks = direct[role.index()].contains(to)
                    || (unmasking.contains(from) && !attacks::line(king, from).contains(to));
                if !checks {
                    return false;
                }
                Some(role)
            }
            MoveKind::Normal => {
                if !checking[from.index()].contains(to) {
                    return false;
                }
                pos.piece_at(from).map(|p| p.role)
            }
        };
        if let Some(role) = role {
            let free = *free.get_or_insert_with(|| {
                (attacks::king_attacks(king) & !pos.by_color(loser))
                    .into_iter()
                    .filter(|&sq| !pos.is_attacked_with(sq, winner, occ))
                    .fold(Bitboard::EMPTY, |b, sq| b | Bitboard::from_square(sq))
            });
            if free.nonempty() {
                let after = (occ & !Bitboard::from_square(from)) | Bitboard::from_square(to);
                let mut rest = free & !attacks_of(role, winner, to, after);
                let straight = attacks::rook_rays(from);
                if (rest & straight).nonempty()
                    && (attacks::rook_attacks(from, occ) & rooks).nonempty()
                {
                    rest &= !straight;
                }
                let diagonal = attacks::bishop_rays(from);
                if (rest & diagonal).nonempty()
                    && (attacks::bishop_attacks(from, occ) & bishops).nonempty()
                {
                    rest &= !diagonal;
                }
                if rest.nonempty() {
                    return false;
                }
            }
        }
        let mut child = *pos;
        child.play_unchecked(m);
        child.is_check() && !super::helpmate::has_flight(&child) && !has_other_move(&child)
    })
}

/// Whether a man other than the king of the side to move has a legal move. With the king
/// in check and no flight square (`has_flight`), that is the whole of `is_checkmate`
/// without its second look at the king's squares.
fn has_other_move(pos: &Position) -> bool {
    let mut list = MoveList::new();
    let king = Bitboard::from_square(pos.king_of(pos.turn()));
    pos.generate_legal_from(&mut list, !king, Bitboard::FULL);
    !list.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The filtered test agrees with playing every move out, on positions with mates,
    /// near-mates, promotions, discoveries and en passant.
    #[test]
    fn filtered_mate_in_one_agrees_with_the_plain_test() {
        let mut mates = 0;
        for fen in [
            "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
            "6k1/5ppp/8/8/8/8/5PPP/1R4K1 w - - 0 1",
            "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 0 1",
            "7k/6pp/8/8/8/8/1B6/3QK3 w - - 0 1",
            "k7/2R5/1K6/8/8/8/8/8 w - - 0 1",
            "3k4/1P6/3K4/8/8/8/8/8 w - - 0 1",
            "6rk/6pp/8/6N1/8/8/8/6K1 w - - 0 1",
            "7k/8/5K2/8/4B3/8/8/6R1 w - - 0 1",
            "4k3/8/4K3/8/8/8/8/4R3 w - - 0 1",
            "8/8/8/8/2k5/4K3/3pP3/8 b - - 0 1",
            "8/8/8/2k5/3Pp3/8/8/4K2B b - d3 0 1",
            "r1b1k2r/ppppqppp/2n2n2/8/1bB1P3/2N2N2/PPPP1PPP/R1BQK2R w KQkq - 0 1",
            "5rk1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1",
            "8/8/8/8/8/k7/p1K5/1R6 w - - 0 1",
            // Discovered checks: a knight or king unmasking a rook or bishop.
            "4k3/8/8/8/4N3/8/8/4R1K1 w - - 0 1",
            "k7/pp6/8/3B4/8/8/6K1/8 w - - 0 1",
            "k7/p7/1p6/8/8/5N2/8/1R4K1 w - - 0 1",
            "R2N3k/6pp/8/8/8/8/8/6K1 w - - 0 1",
            "6k1/5ppp/8/8/8/8/4K3/4R3 w - - 0 1",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            let winner = pos.turn();
            let list = pos.legal_moves();
            let plain = list.iter().copied().find(|&m| {
                let mut child = pos;
                child.play_unchecked(m);
                child.is_checkmate()
            });
            assert_eq!(mate_in_one(&pos, winner, &list), plain, "{fen}");
            mates += plain.is_some() as u32;
        }
        assert_eq!(mates, 8);
    }
}
