//! Blocked positions: when every pawn is jammed against a pawn and no man can ever come to
//! take a pawn or be taken by one, the pawn skeleton is permanent; each piece then lives in
//! the set of squares it can reach around it, and a side whose pieces can never attack any
//! square of the enemy king's region can never give check, let alone mate.

use crate::chess::{Bitboard, Color, Position, Role, Square, attacks};

const NOT_A: u64 = 0xfefe_fefe_fefe_fefe;
const NOT_H: u64 = 0x7f7f_7f7f_7f7f_7f7f;
const NOT_AB: u64 = 0xfcfc_fcfc_fcfc_fcfc;
const NOT_GH: u64 = 0x3f3f_3f3f_3f3f_3f3f;

/// Every square one king step from a square of `b`.
fn king_spread(b: u64) -> u64 {
    let h = b | ((b << 1) & NOT_A) | ((b >> 1) & NOT_H);
    h | (h << 8) | (h >> 8)
}

/// Every square one knight jump from a square of `b`.
fn knight_spread(b: u64) -> u64 {
    let l1 = (b >> 1) & NOT_H;
    let l2 = (b >> 2) & NOT_GH;
    let r1 = (b << 1) & NOT_A;
    let r2 = (b << 2) & NOT_AB;
    let h1 = l1 | r1;
    let h2 = l2 | r2;
    (h1 << 16) | (h1 >> 16) | (h2 << 8) | (h2 >> 8)
}

/// Squares attacked by the pawns `pawns` of `color`.
fn pawn_spread(color: Color, pawns: u64) -> u64 {
    match color {
        Color::White => ((pawns << 7) & NOT_H) | ((pawns << 9) & NOT_A),
        Color::Black => ((pawns >> 9) & NOT_H) | ((pawns >> 7) & NOT_A),
    }
}

/// Squares a piece of `role` attacks from any square of `from`, pawns as the only obstacles.
fn attacks_from(role: Role, from: u64, pawns: Bitboard) -> u64 {
    match role {
        Role::King => king_spread(from) & !from,
        Role::Knight => knight_spread(from),
        Role::Bishop | Role::Rook | Role::Queen => {
            let mut out = 0;
            for sq in Bitboard(from) {
                out |= slider(role, sq, pawns).0;
            }
            out
        }
        Role::Pawn => 0,
    }
}

fn slider(role: Role, sq: Square, occ: Bitboard) -> Bitboard {
    match role {
        Role::Bishop => attacks::bishop_attacks(sq, occ),
        Role::Rook => attacks::rook_attacks(sq, occ),
        _ => attacks::queen_attacks(sq, occ),
    }
}

/// The squares a piece of `role` standing on `from` can ever reach, moving only over
/// `allowed` squares (pawns as the only obstacles).
fn region(role: Role, from: Square, allowed: u64, pawns: Bitboard) -> u64 {
    let mut reached = 1u64 << from.index();
    let mut frontier = reached;
    while frontier != 0 {
        let next = attacks_from(role, frontier, pawns) & allowed & !reached;
        reached |= next;
        frontier = next;
    }
    reached
}

/// Proves that `winner` can never give check, when the pawn skeleton is permanent.
/// Returns false whenever the argument does not apply (it never guesses).
pub fn cannot_win(pos: &Position, winner: Color) -> bool {
    let pawns = pos.by_role(Role::Pawn);
    if pawns.is_empty() || pos.ep_square().is_some() || pos.is_check() {
        return false;
    }
    let white_pawns = pos.pieces(Color::White, Role::Pawn).0;
    let black_pawns = pos.pieces(Color::Black, Role::Pawn).0;
    // Every pawn faces a pawn, so it can only ever move by capturing.
    if (white_pawns << 8) & !pawns.0 != 0 || (black_pawns >> 8) & !pawns.0 != 0 {
        return false;
    }
    let pawn_attacks = [
        pawn_spread(Color::White, white_pawns),
        pawn_spread(Color::Black, black_pawns),
    ];
    // Two pawns that attack each other can take, which unjams the skeleton.
    if pawn_attacks[0] & black_pawns != 0 {
        return false;
    }
    let own_pawns = [white_pawns, black_pawns];
    let loser = winner.other();
    let mut loser_king_region = 0;
    let mut winner_reach = 0;
    for color in Color::ALL {
        let enemy = color.other().index();
        let enemy_pawn_attacks = pawn_attacks[enemy];
        // A pawn defended by a pawn can never be taken by a king.
        let king_takable = own_pawns[enemy] & !pawn_attacks[enemy];
        for role in [
            Role::King,
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
        ] {
            for sq in pos.pieces(color, role) {
                let (allowed, takable) = if role == Role::King {
                    (!pawns.0 & !enemy_pawn_attacks, king_takable)
                } else {
                    (!pawns.0, own_pawns[enemy])
                };
                let reach = region(role, sq, allowed, pawns);
                // A piece that can step where a pawn takes it could unjam the skeleton.
                if role != Role::King && reach & enemy_pawn_attacks != 0 {
                    return false;
                }
                let hits = attacks_from(role, reach, pawns);
                if hits & takable != 0 {
                    return false;
                }
                if color == loser && role == Role::King {
                    loser_king_region = reach;
                } else if color == winner && role != Role::King {
                    winner_reach |= hits;
                }
            }
        }
    }
    winner_reach & loser_king_region == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocked(fen: &str, c: Color) -> bool {
        cannot_win(&Position::from_fen(fen).unwrap(), c)
    }

    #[test]
    fn spreads_stay_on_the_board() {
        assert_eq!(king_spread(1), 0x303);
        assert_eq!(knight_spread(1), 0x20400);
        assert_eq!(knight_spread(1 << 63), 0x0020_4000_0000_0000);
        assert_eq!(pawn_spread(Color::White, 1 << 8), 1 << 17);
    }

    #[test]
    fn locked_wall_with_bishops_on_one_side_each() {
        let fen = "2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/8/2B1K3 w - - 0 1";
        assert!(blocked(fen, Color::White));
        assert!(blocked(fen, Color::Black));
        // d6-d5 is answered by e4xd5: the pawns are not jammed for good.
        assert!(!blocked(
            "8/8/8/1p1pp2k/pP1pP1p1/P2P2P1/6K1/8 w - - 0 1",
            Color::White
        ));
        // Kings can walk round and take an undefended pawn: not applicable.
        assert!(!blocked("4k3/8/8/3p4/3P4/8/8/4K3 w - - 0 1", Color::White));
        assert!(!blocked("4k3/8/8/8/3P4/8/8/4K3 w - - 0 1", Color::White));
    }
}
