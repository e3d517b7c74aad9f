//! Move ordering: the hash move, then winning and equal captures by MVV-LVA, killers, quiet
//! moves by history, and losing captures last. Static exchange evaluation (SEE) sorts the
//! captures and lets quiescence skip the losing ones.

use super::eval::PIECE_VALUE;
use super::score::MAX_PLY;
use crate::chess::{Bitboard, Color, Move, MoveList, Position, Role, attacks};

const HASH_MOVE: i32 = 30_000_000;
const GOOD_CAPTURE: i32 = 20_000_000;
const KILLER: i32 = 10_000_000;
const COUNTER: i32 = 9_000_000;
const BAD_CAPTURE: i32 = -10_000_000;
const UNDER_PROMOTION: i32 = -20_000_000;
/// History scores stay within ±this.
const HISTORY_MAX: i32 = 16_384;

/// Killers, history and countermoves: what earlier cutoffs teach about quiet moves.
pub struct OrderingTables {
    killers: [[Move; 2]; MAX_PLY + 1],
    history: Box<[[[i32; 64]; 64]; 2]>,
    /// The quiet move that last refuted a move, indexed by that move's from and to.
    counters: Box<[[Move; 64]; 64]>,
}

impl Default for OrderingTables {
    fn default() -> Self {
        OrderingTables {
            killers: [[Move::NONE; 2]; MAX_PLY + 1],
            history: Box::new([[[0; 64]; 64]; 2]),
            counters: Box::new([[Move::NONE; 64]; 64]),
        }
    }
}

impl OrderingTables {
    pub fn clear(&mut self) {
        *self = OrderingTables::default();
    }

    /// Killers are per ply and mean little for the next search.
    pub fn clear_killers(&mut self) {
        self.killers = [[Move::NONE; 2]; MAX_PLY + 1];
    }

    #[inline]
    pub fn killers(&self, ply: usize) -> [Move; 2] {
        self.killers[ply]
    }

    #[inline]
    pub fn history(&self, color: Color, m: Move) -> i32 {
        self.history[color.index()][m.from().index()][m.to().index()]
    }

    /// A quiet move caused a cutoff: it becomes a killer, gains history, and the quiet moves
    /// tried before it lose some.
    pub fn record_cutoff(
        &mut self,
        color: Color,
        m: Move,
        prev: Move,
        ply: usize,
        depth: i32,
        tried: &[Move],
    ) {
        if self.killers[ply][0] != m {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = m;
        }
        if prev != Move::NONE {
            self.counters[prev.from().index()][prev.to().index()] = m;
        }
        let bonus = (depth * depth).min(1_200);
        self.update_history(color, m, bonus);
        for &q in tried {
            if q != m {
                self.update_history(color, q, -bonus);
            }
        }
    }

    #[inline]
    fn update_history(&mut self, color: Color, m: Move, bonus: i32) {
        // Gravity: entries saturate towards ±HISTORY_MAX instead of growing without bound.
        let h = &mut self.history[color.index()][m.from().index()][m.to().index()];
        *h += bonus - *h * bonus.abs() / HISTORY_MAX;
    }

    /// Scores every move of `list` for the main search into `scores`.
    pub fn score_moves(
        &self,
        pos: &Position,
        list: &MoveList,
        keys: &mut [u64],
        hash_move: Move,
        prev: Move,
        ply: usize,
    ) {
        let killers = self.killers[ply];
        let counter = if prev == Move::NONE {
            Move::NONE
        } else {
            self.counters[prev.from().index()][prev.to().index()]
        };
        let color = pos.turn();
        for (i, &m) in list.iter().enumerate() {
            let score = if m == hash_move {
                HASH_MOVE
            } else if let Some(promo) = m.promotion_role() {
                if promo == Role::Queen {
                    GOOD_CAPTURE + PIECE_VALUE[Role::Queen.index()] + mvv_lva(pos, m)
                } else {
                    UNDER_PROMOTION + promo as i32
                }
            } else if let Some(victim) = pos.captured_role(m) {
                let attacker = pos.piece_at(m.from()).map_or(Role::Pawn, |p| p.role);
                // Taking a piece worth at least the taker never loses material.
                if PIECE_VALUE[victim.index()] >= PIECE_VALUE[attacker.index()] || see(pos, m) >= 0
                {
                    GOOD_CAPTURE + mvv_lva(pos, m)
                } else {
                    BAD_CAPTURE + mvv_lva(pos, m)
                }
            } else if m == killers[0] {
                KILLER + 1
            } else if m == killers[1] {
                KILLER
            } else if m == counter {
                COUNTER
            } else {
                self.history(color, m)
            };
            keys[i] = pack(score, m);
        }
    }
}

/// Most valuable victim first, then least valuable attacker.
#[inline]
pub fn mvv_lva(pos: &Position, m: Move) -> i32 {
    let victim = pos.captured_role(m).map_or(0, |r| PIECE_VALUE[r.index()]);
    let attacker = pos.piece_at(m.from()).map_or(0, |p| p.role.index() as i32);
    victim * 8 - attacker
}

/// Scores captures and promotions for quiescence (MVV-LVA only; SEE is checked lazily).
pub fn score_captures(pos: &Position, list: &MoveList, keys: &mut [u64], hash_move: Move) {
    for (i, &m) in list.iter().enumerate() {
        let score = if m == hash_move {
            HASH_MOVE
        } else {
            mvv_lva(pos, m)
                + m.promotion_role()
                    .map_or(0, |r| PIECE_VALUE[r.index()] - PIECE_VALUE[0])
        };
        keys[i] = pack(score, m);
    }
}

/// A move and its ordering score in one sortable word: score above, move bits below, so ties
/// break on the move's encoding and the order never depends on anything else.
#[inline]
pub fn pack(score: i32, m: Move) -> u64 {
    (((score as i64 + (1 << 31)) as u64) << 16) | m.to_u16() as u64
}

#[inline]
pub fn unpack(key: u64) -> (Move, i32) {
    (
        Move::from_u16(key as u16),
        ((key >> 16) as i64 - (1 << 31)) as i32,
    )
}

/// Picks selected one at a time before the rest is sorted: most nodes cut off within the
/// first few moves, and the others are searched to the end anyway.
const SELECT_FIRST: usize = 3;

/// The `i`-th best of `keys` (call with i = 0, 1, 2, … in turn).
#[inline]
pub fn pick(keys: &mut [u64], i: usize) -> (Move, i32) {
    if i < SELECT_FIRST {
        let rest = &keys[i..];
        let mut best = 0;
        for (j, &k) in rest.iter().enumerate().skip(1) {
            if k > rest[best] {
                best = j;
            }
        }
        keys.swap(i, i + best);
    } else if i == SELECT_FIRST {
        keys[i..].sort_unstable_by(|a, b| b.cmp(a));
    }
    unpack(keys[i])
}

/// Does this move give check? Exact for moves that are not castling, en passant or a
/// promotion (those answer true, so callers treat them as checks and search them); much cheaper
/// than making the move.
pub fn quiet_gives_check(pos: &Position, m: Move) -> bool {
    if m.is_castle() || m.is_en_passant() || m.promotion_role().is_some() {
        return true;
    }
    let Some(piece) = pos.piece_at(m.from()) else {
        return true;
    };
    let us = pos.turn();
    let king = pos.king_of(us.other());
    let from = Bitboard::from_square(m.from());
    let to = Bitboard::from_square(m.to());
    let occ = (pos.occupied() - from) | to;
    let after = |role: Role| {
        let bb = pos.pieces(us, role);
        if piece.role == role {
            (bb - from) | to
        } else {
            bb
        }
    };
    let diag = after(Role::Bishop) | after(Role::Queen);
    let orth = after(Role::Rook) | after(Role::Queen);
    (attacks::bishop_attacks(king, occ) & diag).nonempty()
        || (attacks::rook_attacks(king, occ) & orth).nonempty()
        || (attacks::knight_attacks(king) & after(Role::Knight)).nonempty()
        || (attacks::pawn_attacks(us.other(), king) & after(Role::Pawn)).nonempty()
}

/// Static exchange evaluation: the material balance of the capture sequence on the move's
/// destination, each side capturing with its least valuable piece and free to stop.
/// Pins are ignored.
pub fn see(pos: &Position, m: Move) -> i32 {
    if m.is_castle() {
        return 0;
    }
    let to = m.to();
    let from = m.from();
    let mut gain = [0i32; 34];
    let mut occ = pos.occupied();
    gain[0] = pos.captured_role(m).map_or(0, |r| PIECE_VALUE[r.index()]);
    let mut on_square = pos
        .piece_at(from)
        .map_or(0, |p| PIECE_VALUE[p.role.index()]);
    if let Some(promo) = m.promotion_role() {
        gain[0] += PIECE_VALUE[promo.index()] - PIECE_VALUE[0];
        on_square = PIECE_VALUE[promo.index()];
    }
    occ.remove(from);
    if m.is_en_passant() {
        occ.remove(crate::chess::Square::from_coords(to.file(), from.rank()));
    }
    let diag = pos.by_role(Role::Bishop) | pos.by_role(Role::Queen);
    let orth = pos.by_role(Role::Rook) | pos.by_role(Role::Queen);
    let mut side = pos.turn().other();
    let mut d = 0;
    loop {
        let all = attackers_to(pos, to, occ, diag, orth) & occ;
        let ours = all & pos.by_color(side);
        if ours.is_empty() {
            break;
        }
        let (role, sq) = least_valuable(pos, ours);
        d += 1;
        gain[d] = on_square - gain[d - 1];
        if (-gain[d - 1]).max(gain[d]) < 0 || d == gain.len() - 1 {
            break;
        }
        occ.remove(sq);
        on_square = PIECE_VALUE[role.index()];
        side = side.other();
    }
    while d > 0 {
        gain[d - 1] = -(-gain[d - 1]).max(gain[d]);
        d -= 1;
    }
    gain[0]
}

#[inline]
fn attackers_to(
    pos: &Position,
    sq: crate::chess::Square,
    occ: Bitboard,
    diag: Bitboard,
    orth: Bitboard,
) -> Bitboard {
    (attacks::rook_attacks(sq, occ) & orth)
        | (attacks::bishop_attacks(sq, occ) & diag)
        | (attacks::knight_attacks(sq) & pos.by_role(Role::Knight))
        | (attacks::king_attacks(sq) & pos.by_role(Role::King))
        | (attacks::pawn_attacks(Color::White, sq) & pos.pieces(Color::Black, Role::Pawn))
        | (attacks::pawn_attacks(Color::Black, sq) & pos.pieces(Color::White, Role::Pawn))
}

#[inline]
fn least_valuable(pos: &Position, set: Bitboard) -> (Role, crate::chess::Square) {
    for role in Role::ALL {
        if let Some(sq) = (set & pos.by_role(role)).first() {
            return (role, sq);
        }
    }
    // `set` is never empty here.
    (Role::King, set.first().unwrap_or(crate::chess::Square::A1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::uci::parse_uci;

    fn see_of(fen: &str, uci: &str) -> i32 {
        let pos = Position::from_fen(fen).unwrap();
        see(&pos, parse_uci(&pos, uci).unwrap())
    }

    #[test]
    fn see_counts_exchanges() {
        // Pawn takes an undefended knight.
        assert_eq!(see_of("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1", "e4d5"), 320);
        // Queen takes a pawn defended by a pawn: loses the queen for a pawn.
        assert_eq!(
            see_of("4k3/8/2p5/3p4/8/8/3Q4/4K3 w - - 0 1", "d2d5"),
            100 - 950
        );
        // Rook takes a rook defended by a rook, backed by a queen behind (x-ray): the
        // exchange wins one rook.
        assert_eq!(see_of("3rk3/8/8/3r4/8/8/3R4/3QK3 w - - 0 1", "d2d5"), 500);
        // A quiet move to an attacked square loses the piece.
        assert_eq!(see_of("4k3/8/8/4p3/8/8/8/3NK3 w - - 0 1", "d1e3"), 0);
        assert_eq!(see_of("4k3/8/4p3/8/8/8/8/3NK3 w - - 0 1", "d1c3"), 0);
        assert_eq!(see_of("4k3/8/8/4p3/8/8/8/R3K3 w - - 0 1", "a1d1"), 0);
        assert_eq!(see_of("4k3/8/8/8/3p4/8/8/3NK3 w - - 0 1", "d1c3"), -320);
    }

    #[test]
    fn quiet_checks_are_seen_without_playing() {
        use crate::chess::MoveList;
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "4k3/8/8/8/8/8/3B4/R3K1Q1 w Q - 0 1",
            "4k3/4r3/8/8/4B3/8/8/4K1N1 b - - 0 1",
            "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        ];
        for fen in fens {
            let pos = Position::from_fen(fen).unwrap();
            let mut list = MoveList::new();
            pos.generate_legal(&mut list);
            for &m in list.iter() {
                if m.is_castle() || m.is_en_passant() || m.promotion_role().is_some() {
                    continue;
                }
                assert_eq!(
                    quiet_gives_check(&pos, m),
                    pos.gives_check(m),
                    "{fen} {m:?}"
                );
            }
        }
    }

    #[test]
    fn picks_in_score_order() {
        use crate::chess::Square;
        let moves: Vec<Move> = (1..10u8)
            .map(|i| Move::normal(Square::A1, Square::new(i)))
            .collect();
        let scores = [5, -3, 40, 7, 7, 0, -20_000_000, 30_000_000, 12];
        let mut keys: Vec<u64> = moves.iter().zip(scores).map(|(&m, s)| pack(s, m)).collect();
        let picked: Vec<i32> = (0..keys.len()).map(|i| pick(&mut keys, i).1).collect();
        assert_eq!(picked, [30_000_000, 40, 12, 7, 7, 5, 0, -3, -20_000_000]);
        assert_eq!(unpack(pack(-7, moves[3])), (moves[3], -7));
    }

    #[test]
    fn history_saturates() {
        let mut t = OrderingTables::default();
        let m = Move::normal(crate::chess::Square::E1, crate::chess::Square::F1);
        for _ in 0..1000 {
            t.record_cutoff(Color::White, m, Move::NONE, 0, 30, &[]);
        }
        let h = t.history(Color::White, m);
        assert!(h > 0 && h <= HISTORY_MAX, "{h}");
        assert_eq!(t.killers(0)[0], m);
    }
}
