//! The scan decoder (docs/POSITIONS.md): the packed move layout (`db::encode`) read onto a
//! lean board (bitboards by colour and role, a mailbox of piece codes, side to move,
//! castling rooks, en passant square; no hash, no clocks, no checkers) for a scan that
//! looks at every position of many games. It reads exactly the moves the checked decoder
//! (`encode::decode_visit`) reads: each move is one of the mover's pieces going where its
//! movement reaches (the layout cannot name anything else), and it is legal when the
//! mover's king is not attacked after it (castling: not in check, its path empty and not
//! attacked), tested on the bitboards without generating moves. Anything the checked
//! decoder would refuse (an index past a piece's squares, trailing bits, an illegal move)
//! makes it give up on the game (`Fallback`): the caller reads that game with the checked
//! decoder, which reports as before. The 2-byte legacy layout always falls back.

use super::encode::{code_shape, is_packed, packed_header};
use crate::chess::attacks;
use crate::chess::{Bitboard, CastlingSide, Color, Piece, Position, Rank, Role, Setup, Square};
use crate::positions::matcher::{PlyMove, ScanBoard};

/// No square (castling rook, en passant).
const NONE: u8 = 64;

/// A position as the scan decoder keeps it (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeanBoard {
    by_color: [u64; 2],
    by_role: [u64; 6],
    /// Piece codes (`game::keys::code`: 1 + 6·colour + role, 0 empty), a1 = 0.
    codes: [u8; 64],
    turn: Color,
    /// The square of the rook that may still castle, by colour and side (`NONE`: none).
    rooks: [[u8; 2]; 2],
    /// The same squares as one set.
    rook_mask: u64,
    /// Set after a double step when an enemy pawn attacks the square passed, as the rules
    /// core sets it (what a packed pawn move counts among).
    ep: u8,
    /// Whether the side to move is in check: kept up to date from each move (the piece
    /// moved, and a line it opened), so most moves are known legal without an attack test.
    in_check: bool,
    chess960: bool,
}

/// The lean decoder gave up on a game (module docs): read it with the checked decoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fallback;

#[inline]
fn bit(sq: u8) -> u64 {
    1u64 << sq
}

#[inline]
fn sq(i: u8) -> Square {
    Square::new(i)
}

#[inline]
const fn code(color: Color, role: Role) -> u8 {
    1 + 6 * color as u8 + role as u8
}

/// The role of a non-zero piece code.
#[inline]
fn role_of(code: u8) -> Role {
    Role::from_index(((code - 1) % 6) as usize)
}

impl LeanBoard {
    pub fn from_position(pos: &Position) -> LeanBoard {
        let mut b = LeanBoard {
            by_color: [0; 2],
            by_role: [0; 6],
            codes: [0; 64],
            turn: pos.turn(),
            rooks: [[NONE; 2]; 2],
            rook_mask: 0,
            ep: pos.ep_square().map_or(NONE, |s| s.index() as u8),
            in_check: pos.is_check(),
            chess960: pos.is_chess960(),
        };
        for s in pos.occupied() {
            if let Some(p) = pos.piece_at(s) {
                let i = s.index() as u8;
                b.by_color[p.color.index()] |= bit(i);
                b.by_role[p.role.index()] |= bit(i);
                b.codes[usize::from(i)] = code(p.color, p.role);
            }
        }
        for color in Color::ALL {
            for side in CastlingSide::ALL {
                if let Some(r) = pos.castling().rook(color, side) {
                    b.rooks[color.index()][side.index()] = r.index() as u8;
                    b.rook_mask |= bit(r.index() as u8);
                }
            }
        }
        b
    }

    #[inline]
    fn occ(&self) -> u64 {
        self.by_color[0] | self.by_color[1]
    }

    #[inline]
    fn king(&self, color: Color) -> Option<u8> {
        let k = self.by_role[Role::King.index()] & self.by_color[color.index()];
        (k != 0).then(|| k.trailing_zeros() as u8)
    }

    /// Whether `theirs` (pieces of the colour `by`, a subset of the board's) attack `s`
    /// with the given occupancy.
    #[inline]
    fn attacked(&self, s: u8, by: Color, theirs: u64, occ: u64) -> bool {
        let at = sq(s);
        let r = &self.by_role;
        if attacks::knight_attacks(at).0 & r[Role::Knight.index()] & theirs != 0
            || attacks::pawn_attacks(by.other(), at).0 & r[Role::Pawn.index()] & theirs != 0
            || attacks::king_attacks(at).0 & r[Role::King.index()] & theirs != 0
        {
            return true;
        }
        let queens = r[Role::Queen.index()];
        let rq = (r[Role::Rook.index()] | queens) & theirs;
        let bq = (r[Role::Bishop.index()] | queens) & theirs;
        (rq & attacks::rook_rays(at).0 != 0 && attacks::rook_attacks(at, Bitboard(occ)).0 & rq != 0)
            || (bq & attacks::bishop_rays(at).0 != 0
                && attacks::bishop_attacks(at, Bitboard(occ)).0 & bq != 0)
    }

    /// The squares the piece of `role` on `from` reaches by its movement alone, for the
    /// side to move: `encode::reach` on this board.
    #[inline]
    fn reach(&self, from: u8, role: Role) -> u64 {
        let us = self.turn;
        let ours = self.by_color[us.index()];
        let occ = self.occ();
        let at = sq(from);
        match role {
            Role::Knight => attacks::knight_attacks(at).0 & !ours,
            Role::Bishop => attacks::bishop_attacks(at, Bitboard(occ)).0 & !ours,
            Role::Rook => attacks::rook_attacks(at, Bitboard(occ)).0 & !ours,
            Role::Queen => attacks::queen_attacks(at, Bitboard(occ)).0 & !ours,
            Role::King => {
                let mut d = attacks::king_attacks(at).0 & !ours;
                for &r in &self.rooks[us.index()] {
                    if r != NONE {
                        d |= bit(r);
                    }
                }
                d
            }
            Role::Pawn => {
                let theirs = self.by_color[us.other().index()];
                let ep = if self.ep == NONE { 0 } else { bit(self.ep) };
                let takes = attacks::pawn_attacks(us, at).0 & (theirs | ep);
                let (one, two) = if us == Color::White {
                    let one = (bit(from) << 8) & !occ;
                    (one, ((one & 0x0000_0000_00ff_0000) << 8) & !occ)
                } else {
                    let one = (bit(from) >> 8) & !occ;
                    (one, ((one & 0x0000_ff00_0000_0000) >> 8) & !occ)
                };
                takes | one | two
            }
        }
    }

    /// Whether castling with the rook on `rook` is legal (`Position::is_legal`'s rule): not
    /// in check, the king's and rook's paths empty but for the two, no square of the
    /// king's path attacked with both lifted.
    fn castle_is_legal(&self, king: u8, rook: u8, side: CastlingSide) -> bool {
        let us = self.turn;
        let them = us.other();
        let theirs = self.by_color[them.index()];
        let occ = self.occ();
        if self.attacked(king, them, theirs, occ) {
            return false;
        }
        let rank = us.back_rank();
        let king_to = Square::from_coords(side.king_to_file(), rank);
        let rook_to = Square::from_coords(side.rook_to_file(), rank);
        let king_path = attacks::between(sq(king), king_to).0 | bit(king_to.index() as u8);
        let rook_path = attacks::between(sq(rook), rook_to).0 | bit(rook_to.index() as u8);
        let others = occ & !(bit(king) | bit(rook));
        if (king_path | rook_path) & others != 0 {
            return false;
        }
        !Bitboard(king_path)
            .into_iter()
            .any(|s| self.attacked(s.index() as u8, them, theirs, others))
    }

    /// Whether the normal move, promotion or en passant capture (`ep`) of the piece of
    /// `role` from `from` to `to` leaves the mover's king unattacked.
    #[inline]
    fn leaves_king_safe(&self, from: u8, to: u8, role: Role, ep: bool) -> bool {
        let us = self.turn;
        let them = us.other();
        let taken = if ep {
            bit((from & !7) | (to & 7))
        } else {
            bit(to) & self.by_color[them.index()]
        };
        let occ = (self.occ() & !bit(from) & !taken) | bit(to);
        let king = if role == Role::King {
            to
        } else {
            match self.king(us) {
                Some(k) => k,
                None => return true,
            }
        };
        !self.attacked(king, them, self.by_color[them.index()] & !taken, occ)
    }

    /// Plays a move read and checked by `lean_visit`.
    #[inline]
    fn play(&mut self, m: &PlyMove) {
        let us = self.turn;
        let them = us.other();
        let (from, to) = (m.from.index() as u8, m.to.index() as u8);
        let (fb, tb) = (bit(from), bit(to));
        self.ep = NONE;
        let mut special = m.castle.is_some();
        if let Some(side) = m.castle {
            let rank = us.back_rank();
            let king_to = Square::from_coords(side.king_to_file(), rank).index() as u8;
            let rook_to = Square::from_coords(side.rook_to_file(), rank).index() as u8;
            let king_move = fb ^ bit(king_to);
            let rook_move = tb ^ bit(rook_to);
            self.by_role[Role::King.index()] ^= king_move;
            self.by_role[Role::Rook.index()] ^= rook_move;
            self.by_color[us.index()] ^= king_move ^ rook_move;
            self.codes[usize::from(from)] = 0;
            self.codes[usize::from(to)] = 0;
            self.codes[usize::from(king_to)] = code(us, Role::King);
            self.codes[usize::from(rook_to)] = code(us, Role::Rook);
        } else {
            let placed = m.promotion.unwrap_or(m.role);
            if m.captured.is_some() {
                let at = if self.codes[usize::from(to)] == 0 {
                    // En passant: the pawn passed by.
                    special = true;
                    (from & !7) | (to & 7)
                } else {
                    to
                };
                let c = self.codes[usize::from(at)];
                self.by_role[role_of(c).index()] ^= bit(at);
                self.by_color[them.index()] ^= bit(at);
                self.codes[usize::from(at)] = 0;
            }
            self.by_role[m.role.index()] ^= fb;
            self.by_role[placed.index()] ^= tb;
            self.by_color[us.index()] ^= fb | tb;
            self.codes[usize::from(from)] = 0;
            self.codes[usize::from(to)] = code(us, placed);
            if m.role == Role::Pawn && from.abs_diff(to) == 16 {
                let passed = (from + to) / 2;
                if attacks::pawn_attacks(us, sq(passed)).0
                    & self.by_role[Role::Pawn.index()]
                    & self.by_color[them.index()]
                    != 0
                {
                    self.ep = passed;
                }
            }
        }
        let king_moved = m.role == Role::King;
        if self.rook_mask & (fb | tb) != 0 || (king_moved && self.rooks[us.index()] != [NONE; 2]) {
            for color in Color::ALL {
                for r in &mut self.rooks[color.index()] {
                    if *r != NONE && (*r == from || *r == to || (king_moved && color == us)) {
                        *r = NONE;
                    }
                }
            }
            self.rook_mask = self
                .rooks
                .iter()
                .flatten()
                .filter(|&&r| r != NONE)
                .fold(0, |m, &r| m | bit(r));
        }
        self.turn = them;
        self.in_check = self.gives_check(m, us, special);
    }

    /// Whether the move `m` just played by `us` checks the other king: the piece from its
    /// square, or a slider on a line through the king and the square it left; after
    /// castling or en passant (`special`: a second man moved or taken) every attacker.
    #[inline]
    fn gives_check(&self, m: &PlyMove, us: Color, special: bool) -> bool {
        let Some(k) = self.king(us.other()) else {
            return false;
        };
        let ours = self.by_color[us.index()];
        let occ = self.occ();
        if special {
            return self.attacked(k, us, ours, occ);
        }
        let to = m.to.index() as u8;
        let at = sq(to);
        let ksq = sq(k);
        let kb = bit(k);
        let direct = match m.promotion.unwrap_or(m.role) {
            Role::Pawn => attacks::pawn_attacks(us, at).0 & kb != 0,
            Role::Knight => attacks::knight_attacks(at).0 & kb != 0,
            Role::King => false,
            Role::Bishop => {
                attacks::bishop_rays(at).0 & kb != 0
                    && attacks::between_diagonal(at, ksq).0 & occ == 0
            }
            Role::Rook => {
                attacks::rook_rays(at).0 & kb != 0
                    && attacks::between_orthogonal(at, ksq).0 & occ == 0
            }
            Role::Queen => {
                (attacks::bishop_rays(at).0 & kb != 0
                    && attacks::between_diagonal(at, ksq).0 & occ == 0)
                    || (attacks::rook_rays(at).0 & kb != 0
                        && attacks::between_orthogonal(at, ksq).0 & occ == 0)
            }
        };
        if direct {
            return true;
        }
        if attacks::queen_rays(ksq).0 & bit(m.from.index() as u8) == 0 {
            return false;
        }
        // A line the move opened: our sliders that see the king now.
        let r = &self.by_role;
        let queens = r[Role::Queen.index()];
        let rq = (r[Role::Rook.index()] | queens) & ours;
        let bq = (r[Role::Bishop.index()] | queens) & ours;
        attacks::rook_attacks(ksq, Bitboard(occ)).0 & rq != 0
            || attacks::bishop_attacks(ksq, Bitboard(occ)).0 & bq != 0
    }

    /// The board as an unchecked setup (clocks 0 and 1), for what only the rules core
    /// answers (mate).
    pub fn to_setup(&self) -> Setup {
        let mut s = Setup::empty();
        for (i, &c) in self.codes.iter().enumerate() {
            if c != 0 {
                let color = if c > 6 { Color::Black } else { Color::White };
                s.board[i] = Some(Piece::new(color, role_of(c)));
            }
        }
        s.turn = self.turn;
        s.castling_rooks = Bitboard(self.rook_mask);
        s.ep_square = (self.ep != NONE).then(|| sq(self.ep));
        s
    }

    /// The castling rooks by colour and side, as the rules core's `Castling` gives them.
    pub fn castling_rook(&self, color: Color, side: CastlingSide) -> Option<Square> {
        let r = self.rooks[color.index()][side.index()];
        (r != NONE).then(|| sq(r))
    }

    pub fn ep_square(&self) -> Option<Square> {
        (self.ep != NONE).then(|| sq(self.ep))
    }
}

impl ScanBoard for LeanBoard {
    #[inline]
    fn turn(&self) -> Color {
        self.turn
    }
    #[inline]
    fn occupied(&self) -> u64 {
        self.occ()
    }
    #[inline]
    fn pieces(&self, color: Color, role: Role) -> u64 {
        self.by_color[color.index()] & self.by_role[role.index()]
    }
    #[inline]
    fn code_at(&self, sq: usize) -> u8 {
        self.codes[sq]
    }
    fn is_check(&self) -> bool {
        self.in_check
    }
    /// Through the rules core: a board reached by legal moves is a legal position, and a
    /// mate is rare enough to build one for.
    fn is_checkmate(&self) -> bool {
        self.is_check()
            && Position::from_setup(&self.to_setup(), self.chess960).is_ok_and(|p| p.is_checkmate())
    }
}

/// Bits least significant first, read a word at a time (`encode::BitReader` reads a byte
/// at a time, for the checked decoder).
struct Bits<'a> {
    bytes: &'a [u8],
    next: usize,
    /// The `bits` next bits, nothing above them.
    acc: u64,
    bits: u32,
}

impl Bits<'_> {
    /// Once every few moves: out of line, so that `take_index` inlines small.
    #[inline(never)]
    fn refill(&mut self) {
        if let Some(word) = self.bytes.get(self.next..self.next + 8) {
            let w = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
            let take = (63 - self.bits) / 8;
            self.acc |= w << self.bits;
            self.bits += take * 8;
            self.acc &= (1u64 << self.bits) - 1;
            self.next += take as usize;
        } else {
            while self.bits <= 56 && self.next < self.bytes.len() {
                self.acc |= u64::from(self.bytes[self.next]) << self.bits;
                self.bits += 8;
                self.next += 1;
            }
        }
    }

    /// `k` (at most 9) more bits, or None past the end.
    #[inline]
    fn take(&mut self, k: u32) -> Option<u64> {
        if self.bits < k {
            self.refill();
            if self.bits < k {
                return None;
            }
        }
        let v = self.acc & ((1u64 << k) - 1);
        self.acc >>= k;
        self.bits -= k;
        Some(v)
    }

    /// An index below `n` in its truncated binary code (`encode::BitWriter::put_index`):
    /// the first `k` bits, and when they are not below `short` one more, read at once.
    #[inline(always)]
    fn take_index(&mut self, n: usize) -> Option<u64> {
        let (k, short) = code_shape(n);
        if self.bits <= k {
            self.refill();
            if self.bits <= k {
                // The blob's last bits: one at a time.
                let v = self.take(k)?;
                return if v < short {
                    Some(v)
                } else {
                    Some(((v << 1) | self.take(1)?) - short)
                };
            }
        }
        let v = self.acc & ((1u64 << k) - 1);
        if v < short {
            self.acc >>= k;
            self.bits -= k;
            return Some(v);
        }
        let extra = (self.acc >> k) & 1;
        self.acc >>= k + 1;
        self.bits -= k + 1;
        Some(((v << 1) | extra) - short)
    }

    /// Every bit read but the zero padding of the last byte.
    fn at_end(&self) -> bool {
        self.next == self.bytes.len() && self.bits < 8 && self.acc == 0
    }
}

/// The square of `set` (of `n` squares) with `index` squares of `set` below it.
#[inline]
fn nth(mut set: u64, n: u64, index: u64) -> Option<u8> {
    if index >= n {
        return None;
    }
    // From whichever end is nearer: half the steps on average.
    if index * 2 >= n {
        for _ in 0..n - 1 - index {
            set &= !(1u64 << (63 - set.leading_zeros()));
        }
        return Some(63 - set.leading_zeros() as u8);
    }
    for _ in 0..index {
        set &= set.wrapping_sub(1);
    }
    Some(set.trailing_zeros() as u8)
}

/// Reads one move (`encode::take_move`) and checks it is legal; its facts.
#[inline]
fn read_move(r: &mut Bits, b: &LeanBoard) -> Option<PlyMove> {
    let us = b.turn;
    let ours = b.by_color[us.index()];
    let n = u64::from(ours.count_ones());
    let from = nth(ours, n, r.take_index(n as usize)?)?;
    let c = b.codes[usize::from(from)];
    if c == 0 || (c > 6) != (us == Color::Black) {
        return None;
    }
    let role = role_of(c);
    let reach = b.reach(from, role);
    if reach == 0 {
        return None;
    }
    let n = u64::from(reach.count_ones());
    let to = nth(reach, n, r.take_index(n as usize)?)?;
    let mut m = PlyMove {
        from: sq(from),
        to: sq(to),
        role,
        captured: None,
        promotion: None,
        castle: None,
    };
    if role == Role::King && ours & bit(to) != 0 {
        let side = if to & 7 > from & 7 {
            CastlingSide::KingSide
        } else {
            CastlingSide::QueenSide
        };
        m.castle = Some(side);
        return b.castle_is_legal(from, to, side).then_some(m);
    }
    let ep = role == Role::Pawn && to == b.ep && (from & 7) != (to & 7);
    let target = b.codes[usize::from(to)];
    if ep {
        m.captured = Some(Role::Pawn);
    } else if target != 0 {
        let taken = role_of(target);
        if taken == Role::King {
            // No legal game takes a king: a damaged blob.
            return None;
        }
        m.captured = Some(taken);
    }
    if role == Role::Pawn && sq(to).rank().relative(us) == Rank(7) {
        m.promotion = Some(Role::PROMOTIONS[r.take(2)? as usize]);
    }
    // Out of check, a move of a piece other than the king from a square on no line
    // through its king (so pinned by nothing), not en passant, is legal.
    // (Or on such a line with no enemy line piece on it, or a man between the king and it.)
    let safe = !b.in_check
        && role != Role::King
        && !ep
        && match b.king(us) {
            Some(k) => {
                attacks::queen_rays(sq(k)).0 & bit(from) == 0 || {
                    let sliders = (b.by_role[Role::Queen.index()]
                        | b.by_role[Role::Rook.index()]
                        | b.by_role[Role::Bishop.index()])
                        & b.by_color[us.other().index()];
                    attacks::line(sq(k), sq(from)).0 & sliders == 0
                        || attacks::between(sq(k), sq(from)).0 & b.occ() != 0
                }
            }
            None => false,
        };
    (safe || b.leaves_king_safe(from, to, role, ep)).then_some(m)
}

/// Decodes a packed blob for a scan: `visit(board, ply, Some(move))` with each position
/// before its move is played, once the move is read and checked, and `visit(last board,
/// plies, None)` at the end; decoding stops when `visit` returns true. `Err(Fallback)` for
/// a blob in the 2-byte layout or one the checked decoder would refuse (its positions up
/// to there were visited, as the checked decoder visits them): read it with
/// `encode::decode_visit` then.
pub fn lean_visit(
    start: &Position,
    blob: &[u8],
    mut visit: impl FnMut(&LeanBoard, usize, Option<PlyMove>) -> bool,
) -> Result<(), Fallback> {
    if !is_packed(blob) {
        return Err(Fallback);
    }
    let (plies, at) = packed_header(blob).map_err(|_| Fallback)?;
    let mut r = Bits {
        bytes: &blob[at..],
        next: 0,
        acc: 0,
        bits: 0,
    };
    // Most games start from the standard position: its board is made once.
    static STANDARD: std::sync::LazyLock<LeanBoard> =
        std::sync::LazyLock::new(|| LeanBoard::from_position(&Position::new()));
    let mut b = if *start == Position::new() && !start.is_chess960() {
        *STANDARD
    } else {
        LeanBoard::from_position(start)
    };
    for ply in 1..=plies {
        let m = read_move(&mut r, &b).ok_or(Fallback)?;
        if visit(&b, ply - 1, Some(m)) {
            return Ok(());
        }
        b.play(&m);
    }
    if !r.at_end() {
        return Err(Fallback);
    }
    visit(&b, plies, None);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Move;
    use crate::chess::san::{SanMode, play_san};
    use crate::db::encode::{decode_visit, pack_moves, start_position};
    use crate::positions::matcher::Matcher;
    use crate::positions::query::{Query, parse_pattern, parse_pawns, parse_sequence};

    /// Hand-made games, each from its start (None: the standard one; the flag: Chess960):
    /// checks and their answers (a block, a capture, a king move), pins (a pinned piece
    /// moving along its line, a piece pinned on a diagonal), en passant both ways,
    /// castling on both sides for both colours, Chess960 castling (a king that does not
    /// move, rooks on b and g), promotions and underpromotions with and without a capture,
    /// a discovered check and a mate.
    const GAMES: &[(Option<&str>, bool, &str)] = &[
        (
            None,
            false,
            "e4 d5 e5 f5 exf6 Nxf6 d4 e6 Nf3 c5 c4 cxd4 Nxd4 Bb4+ Nc3 O-O Be2 Nc6 O-O Bxc3 \
             bxc3 e5 Nxc6 bxc6 Ba3 Re8 Qxd5+ Kh8 Qxc6 Bd7 Qd6 Rc8 Rad1 Rxc4 Bxc4 Qb6 Qxb6 \
             axb6 Bd6 Bf5",
        ),
        (
            None,
            false,
            "d4 e5 dxe5 d6 Nc3 dxe5 Qxd8+ Kxd8 Bg5+ f6 O-O-O+ Bd7 Bxf6+ Nxf6 Nf3 Bd6 e4 Ke7 \
             Bb5 c6 Bc4 b5 Bb3 a5 a4 b4 Ne2 Nxe4 Ng3 Nxg3 hxg3 h5 Rxh5 Rxh5 Nh4 g5",
        ),
        (None, false, "f3 e5 g4 Qh4#"),
        (
            None,
            false,
            "e4 e6 d4 d5 Nc3 Bb4 e5 c5 a3 Bxc3+ bxc3 Ne7 Qg4 O-O Bd3 f5 exf6 Rxf6 Bg5 Rf7 \
             Nf3 h6 Bxe7 Rxe7 Qh5 c4 Bg6 Nc6 O-O a6 Ne5 Nxe5 dxe5 Bd7 f4 d4 cxd4 Qb6 Kh1 Qxd4",
        ),
        (
            Some("r3k2r/1P4P1/8/3pP3/8/8/1p4p1/R3K2R w KQkq d6 0 1"),
            false,
            "exd6 bxa1=N bxa8=Q+ Kd7 gxh8=N gxh1=R+ Kd2 Rh2+ Kc3 Nb3 Qb7+ Ke6 d7 Kf6 d8=B+ Ke5 \
             Qxb3 Rh1 Qb5+ Kf4",
        ),
        (
            Some("1r4kr/pppppppp/8/8/8/8/PPPPPPPP/1R4KR w KQkq - 0 1"),
            true,
            "O-O O-O-O d4 d5 Rfe1 Rde8 Kh1 Kb8",
        ),
        (
            Some("rk4r1/pppppppp/8/8/8/8/PPPPPPPP/RK4R1 w KQkq - 0 1"),
            true,
            "O-O O-O-O a4 a5 Rad1 d6",
        ),
        (
            Some("8/5k2/8/2KPp2r/8/8/8/8 w - e6 0 2"),
            false,
            "Kb6 Kf6 Ka5 e4 Kb4 e3 Kb3 e2 Kc2 e1=Q",
        ),
        (
            Some("4k3/4r3/8/8/8/8/4R3/4K3 w - - 0 1"),
            false,
            "Re5 Rxe5+ Kd2 Rd5+ Kc3 Kd7",
        ),
        (
            Some("4k3/8/8/8/8/8/4N3/4R1K1 w - - 0 1"),
            false,
            "Nf4+ Kf7 Re7+ Kf6 Nh5+ Kg6 Rg7+ Kxh5",
        ),
        (
            Some("8/8/8/k2pP2R/8/8/8/4K3 w - d6 0 1"),
            false,
            "exd6+ Kb6 d7 Kc7 d8=Q+ Kxd8",
        ),
    ];

    fn game(start: Option<&str>, chess960: bool, sans: &str) -> (Position, Vec<Move>) {
        let s = start_position(start, chess960).unwrap();
        let mut pos = s;
        let moves = sans
            .split_whitespace()
            .map(|t| {
                play_san(&mut pos, t, SanMode::Lenient)
                    .unwrap_or_else(|e| panic!("{sans}: {t}: {e:?}"))
                    .mv
            })
            .collect();
        (s, moves)
    }

    /// Every square, piece, side, right and fact the scan reads, compared.
    fn same(b: &LeanBoard, p: &Position, what: &str) {
        for color in Color::ALL {
            for role in Role::ALL {
                assert_eq!(
                    ScanBoard::pieces(b, color, role),
                    ScanBoard::pieces(p, color, role),
                    "{what}"
                );
            }
            for side in CastlingSide::ALL {
                assert_eq!(
                    b.castling_rook(color, side),
                    p.castling().rook(color, side),
                    "{what}"
                );
            }
        }
        for s in 0..64 {
            assert_eq!(b.code_at(s), p.code_at(s), "{what} square {s}");
        }
        assert_eq!(ScanBoard::turn(b), p.turn(), "{what}");
        assert_eq!(b.ep_square(), p.ep_square(), "{what}");
        assert_eq!(ScanBoard::occupied(b), p.occupied().0, "{what}");
        assert_eq!(ScanBoard::is_check(b), p.is_check(), "{what}");
        assert_eq!(ScanBoard::is_checkmate(b), p.is_checkmate(), "{what}");
    }

    /// What a decoder visited: (ply, the move's facts) and whether it read the blob to its
    /// end without an error.
    type Visits = (Vec<(usize, Option<PlyMove>)>, bool);

    fn lean_visits(start: &Position, blob: &[u8]) -> Visits {
        let mut seen = Vec::new();
        let ok = lean_visit(start, blob, |_, ply, m| {
            seen.push((ply, m));
            false
        })
        .is_ok();
        (seen, ok)
    }

    fn checked_visits(start: &Position, blob: &[u8]) -> Visits {
        let mut seen = Vec::new();
        let ok = decode_visit(start, blob, |pos, ply, m| {
            seen.push((ply, m.map(|m| PlyMove::of(pos, m))));
            false
        })
        .is_ok();
        (seen, ok)
    }

    #[test]
    fn the_lean_decoder_visits_every_position_the_checked_one_does() {
        let mut plies = 0;
        for &(fen, chess960, sans) in GAMES {
            let (start, moves) = game(fen, chess960, sans);
            let blob = pack_moves(&start, &moves).unwrap();
            let mut positions = Vec::new();
            decode_visit(&start, &blob, |pos, ply, m| {
                positions.push((*pos, ply, m));
                false
            })
            .unwrap();
            let mut k = 0;
            lean_visit(&start, &blob, |b, ply, m| {
                let (pos, p, mv) = &positions[k];
                assert_eq!(ply, *p);
                same(b, pos, &format!("{sans} at ply {ply}"));
                assert_eq!(m, mv.map(|mv| PlyMove::of(pos, mv)), "{sans} at ply {ply}");
                k += 1;
                false
            })
            .unwrap();
            assert_eq!(k, moves.len() + 1, "{sans}");
            plies += moves.len();
        }
        assert!(plies > 150, "{plies}");
        // The set holds what it says: castling both ways for both sides, en passant,
        // under-promotions, Chess960 castling with a king that stays, a mate.
        let facts: Vec<PlyMove> = GAMES
            .iter()
            .flat_map(|&(fen, c, sans)| {
                let (s, moves) = game(fen, c, sans);
                let mut pos = s;
                moves
                    .into_iter()
                    .map(move |m| {
                        let f = PlyMove::of(&pos, m);
                        pos.play_unchecked(m);
                        f
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        for side in CastlingSide::ALL {
            assert!(facts.iter().filter(|f| f.castle == Some(side)).count() >= 3);
        }
        assert!(
            facts
                .iter()
                .any(|f| f.castle.is_some() && f.from.file() == crate::chess::File::B)
        );
        assert!(
            facts
                .iter()
                .filter(|f| f.role == Role::Pawn
                    && f.captured.is_some()
                    && f.from.file() != f.to.file()
                    && f.to.rank() == Rank(5))
                .count()
                >= 2
        );
        for r in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
            assert!(facts.iter().any(|f| f.promotion == Some(r)), "{r:?}");
        }
    }

    /// A damaged blob: every single flipped bit, every cut, a byte too many. The lean
    /// decoder reads exactly what the checked one reads and gives up exactly where it
    /// fails (so the scan's fallback reports as the checked decoder does); it never panics.
    #[test]
    fn a_damaged_blob_is_read_as_the_checked_decoder_reads_it() {
        let mut refused = 0;
        let mut cases = 0;
        for &(fen, chess960, sans) in GAMES {
            let (start, moves) = game(fen, chess960, sans);
            let blob = pack_moves(&start, &moves).unwrap();
            let mut damaged: Vec<Vec<u8>> = Vec::new();
            for i in 0..blob.len() * 8 {
                let mut d = blob.clone();
                d[i / 8] ^= 1 << (i % 8);
                damaged.push(d);
            }
            for n in 0..blob.len() {
                damaged.push(blob[..n].to_vec());
            }
            let mut long = blob.clone();
            long.push(0);
            damaged.push(long);
            let mut padded = blob.clone();
            *padded.last_mut().unwrap() |= 0x80;
            damaged.push(padded);
            for d in &damaged {
                let lean = lean_visits(&start, d);
                let checked = checked_visits(&start, d);
                if is_packed(d) {
                    assert_eq!(lean, checked, "{sans}: {d:?}");
                } else {
                    // The 2-byte layout (or no layout): always the checked decoder's.
                    assert!(!lean.1);
                }
                cases += 1;
                refused += usize::from(!checked.1);
            }
        }
        // Most damage is caught somewhere (a wrong length, an illegal move).
        assert!(refused * 2 > cases, "{refused} of {cases}");
    }

    /// The scan's answer on the lean board is the replay's (`Matcher::first_match`) for
    /// patterns, structures, mirrored forms and sequences with `+`, `#`, castling and
    /// promotions.
    #[test]
    fn a_scan_on_the_lean_board_answers_as_the_replay() {
        let mut queries: Vec<Query> = Vec::new();
        for seq in [
            "Bh2+ Kh1",
            "Qh4#",
            "O-O-O+",
            "O-O O-O-O",
            "exd6",
            "d8=B+",
            "gxh1=R+ Kd2",
            "Rxe8 Rxe8",
            "Rxe1+",
            "Bxc3+ bxc3",
        ] {
            queries.push(Query {
                sequence: Some(parse_sequence(seq).unwrap()),
                held: 1,
                ..Query::default()
            });
        }
        for pat in [
            "*/*/*/4P3/*/*/*/*",
            "*/*/*/*/*/*/PPP2PPP/* w",
            "*/*/*/*/*/*/*/2K1R3",
        ] {
            for mirror in [false, true] {
                let mut q = Query {
                    patterns: vec![parse_pattern(pat).unwrap()],
                    held: 1,
                    ..Query::default()
                };
                q.identity.mirror = mirror;
                queries.push(q);
            }
        }
        queries.push(Query {
            pawns: Some(parse_pawns("*/a7 b7 c6 f7 g7 h7").unwrap()),
            held: 1,
            ..Query::default()
        });
        let mut matched = 0;
        for &(fen, chess960, sans) in GAMES {
            let (start, moves) = game(fen, chess960, sans);
            let blob = pack_moves(&start, &moves).unwrap();
            for q in &queries {
                let m = Matcher::new(q);
                let want = m.first_match(&start, &moves);
                let mut scanner = m.scanner().unwrap();
                let mut got = None;
                lean_visit(&start, &blob, |b, ply, next| {
                    got = scanner.visit_board(b, 0, ply, next);
                    got.is_some()
                })
                .unwrap();
                assert_eq!(got, want, "{sans}: {q:?}");
                matched += usize::from(want.is_some());
            }
        }
        assert!(matched >= 15, "{matched}");
    }
}
