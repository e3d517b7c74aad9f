//! Draw claims: the first point where a threefold repetition (2017 Art. 9.2) or the
//! fifty-move rule (9.3) could be claimed, both ways the Laws allow: the position or the
//! count is already there (9.2.1.2, 9.3.2), or the player to move writes down a move that
//! would produce it (9.2.1.1, 9.3.1). Sameness of positions is 9.2.2's, via
//! `Position::repetition_key`; `Walk` follows those keys along a game without replaying it
//! in full.

use super::edition::Edition;
use crate::chess::attacks;
use crate::chess::zobrist::{self, BuildKeyHasher};
use crate::chess::{CastlingSide, Color, Move, MoveKind, MoveList, Piece, Position, Role, Square};
use std::collections::HashMap;

/// How a claim could be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimWay {
    /// The position has just appeared for the third time / the fifty moves are complete.
    Present,
    /// The player to move writes down this move, which would complete it.
    IntendedMove(Move),
}

/// A claim available at `ply` (to the player to move after `ply` half-moves).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Claim {
    pub ply: u32,
    pub way: ClaimWay,
}

/// Occurrences of positions since the last irreversible move (a pawn move or capture:
/// no earlier position can come back after one), by `Position::repetition_key`.
///
/// Stretches between irreversible moves are short in real games (a few dozen plies), so
/// the keys are kept in a plain list scanned linearly, which costs less than hashing
/// them; a stretch longer than `LINEAR_LIMIT` moves its counts into a hash map.
#[derive(Debug)]
pub struct Occurrences {
    /// The stretch's keys in order of play, while it is short: `keys[..len]`.
    keys: [u64; LINEAR_LIMIT],
    len: usize,
    /// Counts by key once the stretch is long (then `keys` is empty and `long` set).
    counts: HashMap<u64, u32, BuildKeyHasher>,
    long: bool,
    /// Positions seen at least twice, by key and board: only these can a written move make
    /// occur a third time.
    twice: Vec<Seen>,
}

/// Longest stretch kept as a list.
const LINEAR_LIMIT: usize = 96;

impl Default for Occurrences {
    fn default() -> Occurrences {
        Occurrences {
            keys: [0; LINEAR_LIMIT],
            len: 0,
            counts: HashMap::default(),
            long: false,
            twice: Vec::new(),
        }
    }
}

impl Occurrences {
    /// The short stretch's keys.
    fn keys(&self) -> &[u64] {
        &self.keys[..self.len]
    }

    pub fn clear(&mut self) {
        self.len = 0;
        if self.long {
            self.counts.clear();
            self.long = false;
        }
        self.twice.clear();
    }

    /// Records one occurrence of the position with this key, board and side to move, and
    /// returns how many there have been.
    #[inline]
    pub fn record(&mut self, key: u64, board: &Board, turn: Color) -> u32 {
        let n = if !self.long && self.len < LINEAR_LIMIT {
            // Only a position with the same side to move can be the same, and not the one
            // two plies back: each side has moved a piece of its own since, and no move
            // within a stretch (no capture, no pawn move) undoes the other side's. So the
            // list is read from four plies back, every other entry.
            let mut n = 1;
            let mut i = self.len;
            while i >= 4 {
                i -= 2;
                n += u32::from(self.keys[i - 2] == key);
            }
            self.keys[self.len] = key;
            self.len += 1;
            n
        } else {
            self.record_long(key)
        };
        if n == 2 {
            self.seen_twice(key, board, turn);
        }
        n
    }

    /// `record` in a long stretch: by the hash map, filled from the list the first time.
    #[inline(never)]
    fn record_long(&mut self, key: u64) -> u32 {
        if !self.long {
            for &k in &self.keys[..self.len] {
                *self.counts.entry(k).or_insert(0) += 1;
            }
            self.len = 0;
            self.long = true;
        }
        let n = self.counts.entry(key).or_insert(0);
        *n += 1;
        *n
    }

    #[cold]
    #[inline(never)]
    fn seen_twice(&mut self, key: u64, board: &Board, turn: Color) {
        self.twice.push(Seen {
            key,
            board: *board,
            turn,
        });
    }

    /// How many times `key` has been recorded since the last `clear`.
    pub fn count(&self, key: u64) -> u32 {
        if !self.long {
            self.keys().iter().filter(|&&k| k == key).count() as u32
        } else {
            self.counts.get(&key).copied().unwrap_or(0)
        }
    }

    /// Moves the one occurrence of `old` to `new`: the key of the stretch's first position
    /// turned out to include an en passant capture (see `Walk::ep_pending`).
    pub fn rekey(&mut self, old: u64, new: u64) {
        if !self.long {
            if let Some(k) = self.keys[..self.len].iter_mut().find(|k| **k == old) {
                *k = new;
            }
        } else if let Some(n) = self.counts.get_mut(&old) {
            *n -= 1;
            if *n == 0 {
                self.counts.remove(&old);
            }
            *self.counts.entry(new).or_insert(0) += 1;
        }
    }

    /// Could one move from the position with this board and side to move make a position
    /// seen twice occur a third time (9.2.1.1)? Answered from the boards alone, so that most
    /// plies need no move generation: a move that is neither a pawn move nor a capture
    /// takes one piece of the mover to an empty square, or (castling) moves only the
    /// mover's king and rook, over at most four squares.
    #[inline]
    pub fn may_repeat_next(&self, board: &Board, turn: Color) -> bool {
        !self.twice.is_empty()
            && self
                .twice
                .iter()
                .any(|seen| seen.turn != turn && one_move_apart(board, &seen.board, turn))
    }

    /// Is a threefold claim available in `pos`, which has already been recorded
    /// (`occurrences` times, as `record` said: looking it up again is a wasted probe)?
    pub fn threefold(&self, pos: &Position, occurrences: u32) -> Option<ClaimWay> {
        if occurrences >= 3 {
            return Some(ClaimWay::Present);
        }
        if self.twice.is_empty() {
            return None;
        }
        self.intended_threefold(pos)
    }

    /// 9.2.1.1: the first legal move (in generation order) that would make a position
    /// already seen twice occur a third time.
    #[inline(never)]
    pub fn intended_threefold(&self, pos: &Position) -> Option<ClaimWay> {
        if self.twice.is_empty() {
            return None;
        }
        let mut list = MoveList::new();
        pos.generate_legal(&mut list);
        list.iter().copied().find_map(|m| {
            if pos.is_zeroing(m) {
                return None;
            }
            let mut child = *pos;
            child.play_unchecked(m);
            let key = child.repetition_key();
            self.twice
                .iter()
                .any(|seen| seen.key == key)
                .then_some(ClaimWay::IntendedMove(m))
        })
    }
}

/// The placement of the pieces by square: 0 for an empty one, else `code(piece)`.
pub type Board = [u8; 64];

/// A position seen twice in the current stretch.
#[derive(Debug, Clone, Copy)]
struct Seen {
    key: u64,
    board: Board,
    turn: Color,
}

/// Could one move by `mover`, neither a pawn move nor a capture, turn `from` into `to`?
/// Necessary conditions only (legality is for a full position to tell).
fn one_move_apart(from: &Board, to: &Board, mover: Color) -> bool {
    let changed: u32 = from.iter().zip(to).map(|(a, b)| u32::from(a != b)).sum();
    if !(2..=4).contains(&changed) {
        return false;
    }
    let own = |role: Role| code(Piece::new(mover, role));
    let (king, rook) = (own(Role::King), own(Role::Rook));
    let squares = || (0..64).filter(|&i| from[i] != to[i]);
    // Castling: only the mover's king and rook move.
    let castling = squares().all(|i| {
        [from[i], to[i]]
            .iter()
            .all(|&c| c == 0 || c == king || c == rook)
    });
    if castling {
        return true;
    }
    // Any other move: one piece of the mover, not a pawn, from a square to an empty one.
    let pawn = own(Role::Pawn);
    let mine = |c: u8| c != 0 && c != pawn && piece(c).is_some_and(|p| p.color == mover);
    changed == 2 && {
        let mut it = squares();
        let (a, b) = (it.next().unwrap_or(0), it.next().unwrap_or(0));
        let moved =
            |x: usize, y: usize| mine(from[x]) && to[x] == 0 && from[y] == 0 && to[y] == from[x];
        moved(a, b) || moved(b, a)
    }
}

const PIECES: [Option<Piece>; 13] = {
    let mut pieces = [None; 13];
    let mut i = 0;
    while i < 12 {
        let color = if i < 6 { Color::White } else { Color::Black };
        pieces[i + 1] = Some(Piece::new(color, Role::from_index(i % 6)));
        i += 1;
    }
    pieces
};

#[inline]
fn code(p: Piece) -> u8 {
    1 + 6 * p.color.index() as u8 + p.role.index() as u8
}

#[inline]
fn piece(code: u8) -> Option<Piece> {
    PIECES.get(code as usize).copied().flatten()
}

/// A game's repetition keys, walked cheaply: each move updates a board of piece codes and
/// the Zobrist hash exactly as `Position::play_unchecked` does, so the keys are
/// `Position::repetition_key`'s, but without bitboards or check detection. The few plies
/// that need a full `Position` get one from a `Replayer`.
#[derive(Debug, Clone, Copy)]
pub struct Keys {
    board: Board,
    castling: [[Option<Square>; 2]; 2],
    /// `castle_squares`: where a move changes castling rights, as a mask by square index.
    castle_squares: u64,
    /// Each side's king square at the start.
    kings: [Square; 2],
    piece_keys: &'static PieceKeys,
    /// As `Position`'s own: pieces, side to move and castling rights; no en passant part.
    hash: u64,
    turn: Color,
    clock: u32,
    /// The en passant square after a double step next to an enemy pawn: whether the capture
    /// is legal (and so part of the key, 9.2.2) takes a full position to tell.
    ep: Option<Square>,
}

impl Keys {
    pub fn new(start: &Position) -> Keys {
        let mut board = [0; 64];
        for sq in start.occupied() {
            board[sq.index()] = start.piece_at(sq).map_or(0, code);
        }
        let mut castling = [[None; 2]; 2];
        for color in Color::ALL {
            for side in CastlingSide::ALL {
                castling[color.index()][side.index()] = start.castling().rook(color, side);
            }
        }
        let kings = Color::ALL.map(|c| start.king_of(c));
        let ep_part = start
            .legal_ep_square()
            .map_or(0, |ep| zobrist::en_passant_key(ep.file()));
        Keys {
            board,
            castling,
            castle_squares: castle_squares(&castling, kings),
            kings,
            piece_keys: piece_keys(),
            hash: start.repetition_key() ^ ep_part,
            turn: start.turn(),
            clock: start.halfmove_clock(),
            ep: None,
        }
    }

    #[inline]
    pub fn halfmove_clock(&self) -> u32 {
        self.clock
    }

    #[inline]
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// The current placement of the pieces.
    #[inline]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The current position's repetition key, unless `ep_pending`: then it is this or
    /// this with the en passant file added.
    #[inline]
    pub fn plain_key(&self) -> u64 {
        self.hash
    }

    /// The last move was a double step that may have made an en passant capture legal.
    #[inline]
    pub fn ep_pending(&self) -> bool {
        self.ep.is_some()
    }

    /// Plays a move, legal in the current position; true when it was a pawn move or a
    /// capture (Art. 9.3: it starts a new count, and no earlier position can occur again).
    #[inline(always)]
    pub fn play(&mut self, m: Move) -> bool {
        // `Move`'s stable 16-bit form: origin, destination, then the kind (0: normal).
        let bits = m.to_u16();
        let (f, t) = (usize::from(bits & 63), usize::from(bits >> 6 & 63));
        let moving = self.board[f];
        // `play_unchecked` leaves the position as it is, too.
        if moving == 0 {
            return false;
        }
        self.ep = None;
        let zeroing = if bits >> 12 == 0 {
            // A normal move, nearly every ply: one piece from `f` to `t`, taking what was there.
            let captured = self.board[t];
            let keys = self.piece_keys;
            let mover = usize::from(moving).min(12);
            self.hash ^= keys[mover][f] ^ keys[mover][t] ^ keys[usize::from(captured).min(12)][t];
            self.board[f] = 0;
            self.board[t] = moving;
            let pawn = moving == WHITE_PAWN || moving == BLACK_PAWN;
            if pawn && f.abs_diff(t) == 16 {
                self.double_step(self.turn, Square::new(f as u8), Square::new(t as u8));
            }
            pawn || captured != 0
        } else {
            self.play_special(m, f, t, moving)
        };
        self.clock = if zeroing { 0 } else { self.clock + 1 };
        // Castling rights go with a king move, a rook leaving its square, or a capture on
        // it: `castle_squares` holds those rooks' squares and the kings' of sides with a right.
        if self.castle_squares & (1u64 << f | 1u64 << t) != 0 {
            self.update_castling(
                self.turn,
                moving,
                Square::new(f as u8),
                Square::new(t as u8),
            );
        }
        self.turn = self.turn.other();
        self.hash ^= zobrist::black_to_move_key();
        zeroing
    }

    /// Castling, en passant and promotions: the rare kinds of `play`.
    #[inline(never)]
    fn play_special(&mut self, m: Move, f: usize, t: usize, moving: u8) -> bool {
        let us = self.turn;
        let (from, to) = (m.from(), m.to());
        match m.kind() {
            MoveKind::Castle => {
                let side = m.castling_side().unwrap_or(CastlingSide::KingSide);
                let rank = us.back_rank();
                let rook = self.board[t];
                self.set(f, 0);
                self.set(t, 0);
                let king_to = Square::from_coords(side.king_to_file(), rank);
                let rook_to = Square::from_coords(side.rook_to_file(), rank);
                self.set(king_to.index() & 63, moving);
                self.set(rook_to.index() & 63, rook);
                false
            }
            MoveKind::EnPassant => {
                let taken = Square::from_coords(to.file(), from.rank());
                self.set(taken.index() & 63, 0);
                self.set(f, 0);
                self.set(t, moving);
                true
            }
            MoveKind::Normal | MoveKind::Promotion(_) => {
                let captured = self.board[t];
                let placed = m
                    .promotion_role()
                    .map_or(moving, |role| code(Piece::new(us, role)));
                self.set(f, 0);
                self.set(t, placed);
                let pawn = moving == WHITE_PAWN || moving == BLACK_PAWN;
                if pawn && f.abs_diff(t) == 16 {
                    self.double_step(us, from, to);
                }
                pawn || captured != 0
            }
        }
    }

    /// Puts `code` (0: nothing) on square index `sq`, keeping the hash.
    #[inline(always)]
    fn set(&mut self, sq: usize, code: u8) {
        let sq = sq & 63;
        let old = std::mem::replace(&mut self.board[sq], code);
        let keys = &self.piece_keys[(old as usize).min(12)];
        let new = &self.piece_keys[(code as usize).min(12)];
        self.hash ^= keys[sq] ^ new[sq];
    }

    /// As `play_unchecked`: the en passant square is kept when an enemy pawn attacks it.
    fn double_step(&mut self, us: Color, from: Square, to: Square) {
        let ep = Square::new(((from.index() + to.index()) / 2) as u8);
        let enemy_pawn = code(Piece::new(us.other(), Role::Pawn));
        if attacks::pawn_attacks(us, ep)
            .into_iter()
            .any(|sq| self.board[sq.index()] == enemy_pawn)
        {
            self.ep = Some(ep);
        }
    }

    fn update_castling(&mut self, us: Color, moving: u8, from: Square, to: Square) {
        let before = self.castling;
        if moving == WHITE_KING || moving == BLACK_KING {
            self.castling[us.index()] = [None, None];
        }
        for rights in &mut self.castling {
            for right in rights.iter_mut() {
                if right.is_some_and(|r| r == from || r == to) {
                    *right = None;
                }
            }
        }
        if before != self.castling {
            for color in Color::ALL {
                let c = color.index();
                for r in before[c].iter().chain(&self.castling[c]).flatten() {
                    self.hash ^= zobrist::castling_key(color, r.file());
                }
            }
            self.castle_squares = castle_squares(&self.castling, self.kings);
        }
    }
}

/// `zobrist::piece_key` by piece code and square index; no key for code 0 (no piece).
type PieceKeys = [[u64; 64]; 13];

fn piece_keys() -> &'static PieceKeys {
    static KEYS: std::sync::OnceLock<PieceKeys> = std::sync::OnceLock::new();
    KEYS.get_or_init(|| {
        let mut keys = [[0; 64]; 13];
        for (code, row) in keys.iter_mut().enumerate() {
            if let Some(p) = piece(code as u8) {
                for sq in Square::all() {
                    row[sq.index()] = zobrist::piece_key(p, sq);
                }
            }
        }
        keys
    })
}

/// The squares a move must touch to change castling rights: the rooks' that may still
/// castle, and the king's of each side with a right (it has not moved, so it is still on
/// the square it had at the start).
fn castle_squares(castling: &[[Option<Square>; 2]; 2], kings: [Square; 2]) -> u64 {
    let mut mask = 0;
    for (rights, king) in castling.iter().zip(kings) {
        for rook in rights.iter().flatten() {
            mask |= 1u64 << rook.index();
            mask |= 1u64 << king.index();
        }
    }
    mask
}

/// Piece codes (`code`) of the pawns and kings, which `Keys::play` tests by value.
const WHITE_PAWN: u8 = 1;
const BLACK_PAWN: u8 = 7;
const WHITE_KING: u8 = 6;
const BLACK_KING: u8 = 12;

/// Full positions of a game on demand, replayed from the last one made (or from the start
/// when an earlier one is asked for).
#[derive(Debug, Clone)]
pub struct Replayer<'a> {
    moves: &'a [Move],
    start: &'a Position,
    /// The position after all of `moves`, when the caller has it.
    end: Option<&'a Position>,
    full: Position,
    full_ply: usize,
}

impl<'a> Replayer<'a> {
    /// `moves` are legal from `start`; `end`, when given, must be the position after all of
    /// them (it spares replaying the game to reach it).
    pub fn new(start: &'a Position, moves: &'a [Move], end: Option<&'a Position>) -> Replayer<'a> {
        Replayer {
            moves,
            start,
            end,
            full: *start,
            full_ply: 0,
        }
    }

    /// The position after `ply` moves (all of them, if `ply` is beyond the record).
    pub fn position_at(&mut self, ply: usize) -> &Position {
        let ply = ply.min(self.moves.len());
        if ply == self.moves.len()
            && let Some(end) = self.end
        {
            return end;
        }
        if ply < self.full_ply {
            self.full = *self.start;
            self.full_ply = 0;
        }
        for &m in self.moves.iter().take(ply).skip(self.full_ply) {
            self.full.play_unchecked(m);
        }
        self.full_ply = ply;
        &self.full
    }
}

/// Half-moves without pawn move or capture needed for a fifty-move claim in `pos`.
/// 1980 Art. 12.4 extends it to 100 moves for K+2N v K+P when the pawn is safely blocked
/// by a knight and not further advanced than the listed squares.
pub fn fifty_move_limit(pos: &Position, edition: Edition) -> u32 {
    if edition == Edition::Fide1980 && knights_v_pawn_extension(pos) {
        200
    } else {
        100
    }
}

fn knights_v_pawn_extension(pos: &Position) -> bool {
    for strong in Color::ALL {
        let weak = strong.other();
        let only = |c: Color, role: Role, n: u32| {
            pos.pieces(c, role).count() == n && (pos.by_color(c).count() == n + 1)
        };
        if !(only(strong, Role::Knight, 2) && only(weak, Role::Pawn, 1)) {
            continue;
        }
        let Some(pawn) = pos.pieces(weak, Role::Pawn).first() else {
            continue;
        };
        let ahead = match weak {
            Color::White => pawn.offset(8),
            Color::Black => pawn.offset(-8),
        };
        let blocked = ahead.is_some_and(|sq| pos.pieces(strong, Role::Knight).contains(sq));
        // Art. 12.4(b): the furthest squares allowed, by file, from White's side.
        const WHITE_LIMIT: [u8; 8] = [5, 3, 4, 5, 5, 4, 3, 5];
        const BLACK_LIMIT: [u8; 8] = [4, 6, 5, 4, 4, 5, 6, 4];
        let file = pawn.file().0 as usize;
        let rank = pawn.rank().0 + 1;
        let not_too_far = match weak {
            Color::White => rank <= WHITE_LIMIT[file],
            Color::Black => rank >= BLACK_LIMIT[file],
        };
        if blocked && not_too_far {
            return true;
        }
    }
    false
}

/// Is a fifty-move claim available in `pos`? The written-move form exists from 2001
/// (2001 Art. 9.3(a)); the older texts only let a player show the moves already made.
pub fn fifty(pos: &Position, edition: Edition) -> Option<ClaimWay> {
    let clock = pos.halfmove_clock();
    // Every limit is at least 100 half-moves: most plies are done here.
    if clock + 1 < 100 {
        return None;
    }
    let limit = fifty_move_limit(pos, edition);
    if clock >= limit {
        return Some(ClaimWay::Present);
    }
    if edition >= Edition::Fide2001 && clock + 1 == limit {
        let mut list = MoveList::new();
        pos.generate_legal(&mut list);
        return list
            .iter()
            .copied()
            .find(|&m| !pos.is_zeroing(m))
            .map(ClaimWay::IntendedMove);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Square;

    fn sq(s: &str) -> Square {
        Square::parse(s).unwrap()
    }

    #[test]
    fn occurrences_count_alike_in_short_and_long_stretches() {
        let mut seen = Occurrences::default();
        // A long stretch: the positions come back every 8 plies (as when each side moves a
        // knight out and back twice), so the list overflows into the map.
        let mut expected = [0u32; 8];
        for i in 0..(3 * LINEAR_LIMIT) {
            // Eight keys spread over the whole u64 range, as Zobrist keys are: the product
            // wraps (a plain `*` overflowed from the third key on in debug builds).
            let key = ((i % 8) as u64)
                .wrapping_mul(0x9e37_79b9_7f4a_7c15)
                .wrapping_add(1);
            expected[i % 8] += 1;
            assert_eq!(
                seen.record(key, &[0; 64], Color::White),
                expected[i % 8],
                "record #{i}"
            );
            assert_eq!(seen.count(key), expected[i % 8]);
        }
        assert_eq!(seen.count(12345), 0);
        assert_eq!(seen.twice.len(), 8);
        seen.clear();
        assert_eq!(seen.count(1), 0);
        assert!(seen.twice.is_empty());
        // A short one after the clear: every position comes back four plies later.
        let mut record = |key| seen.record(key, &[0; 64], Color::White);
        let counts: Vec<u32> = [5, 6, 7, 8, 5, 6, 7, 8, 5].map(&mut record).to_vec();
        assert_eq!(counts, [1, 1, 1, 1, 2, 2, 2, 2, 3]);
        assert_eq!(seen.twice.len(), 4);
        assert_eq!(seen.twice[0].key, 5);
        assert_eq!(seen.count(5), 3);
        assert_eq!(seen.count(6), 2);
    }

    /// Plays SAN moves from a FEN with both the full position and the key walk, comparing
    /// keys, clocks, boards and zeroing moves on every ply.
    fn walk_alike(fen: &str, sans: &str) {
        let mut pos = Position::from_fen(fen).unwrap();
        let mut keys = Keys::new(&pos);
        for tok in sans.split_whitespace() {
            let m = crate::chess::san::resolve(&pos, tok, crate::chess::SanMode::Strict)
                .unwrap_or_else(|e| panic!("{tok}: {e}"))
                .mv;
            let zeroing = pos.is_zeroing(m);
            pos.play_unchecked(m);
            assert_eq!(keys.play(m), zeroing, "{tok}");
            assert_eq!(keys.halfmove_clock(), pos.halfmove_clock(), "{tok}");
            for sq in Square::all() {
                assert_eq!(
                    piece(keys.board()[sq.index()]),
                    pos.piece_at(sq),
                    "{tok} {sq:?}"
                );
            }
            let exact = pos.repetition_key();
            if keys.ep_pending() {
                let ep = pos.ep_square().unwrap();
                assert!(
                    exact == keys.plain_key()
                        || exact == keys.plain_key() ^ zobrist::en_passant_key(ep.file()),
                    "{tok}"
                );
            } else {
                assert_eq!(keys.plain_key(), exact, "{tok}");
            }
        }
    }

    #[test]
    fn piece_codes_tested_by_value() {
        assert_eq!(code(Piece::new(Color::White, Role::Pawn)), WHITE_PAWN);
        assert_eq!(code(Piece::new(Color::Black, Role::Pawn)), BLACK_PAWN);
        assert_eq!(code(Piece::new(Color::White, Role::King)), WHITE_KING);
        assert_eq!(code(Piece::new(Color::Black, Role::King)), BLACK_KING);
    }

    #[test]
    fn key_walk_matches_full_positions() {
        // Castling both ways, en passant (legal and pinned), promotion, rook captures on
        // corner squares taking castling rights away.
        walk_alike(
            crate::chess::START_FEN,
            "e4 d5 exd5 c5 dxc6 Nxc6 Nf3 e5 Bb5 Bd6 O-O Qe7 Re1 Bd7 d4 O-O-O d5 Kb8 dxc6 Bxc6",
        );
        walk_alike(
            "4k3/8/8/8/1p6/8/P1P5/4K3 w - - 0 1",
            "a4 bxa3 c4 a2 c5 a1=Q+ Kd2 Qa5+ Kc2 Qxc5+",
        );
        // The black pawn on e4 is pinned along the rank: the en passant capture is illegal.
        walk_alike("8/8/8/8/k3p2R/8/3P4/4K3 w - - 0 1", "d4 Kb5 Ke2");
        walk_alike(
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            "Rxa8+ Kf7 Raxh8 Kg6 Kd2 Kf7 Ke1 Kg6",
        );
        // Rights lost by a rook move and by a king that moves and comes back.
        walk_alike(
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            "Rb1 Kd8 Ke2 Rb8 Ke1 Kc8 Rh7 Rg8",
        );
        // Chess960: king on f1, rooks on e1 and g1 (castling swaps king and rook squares).
        walk_alike(
            "bnqbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BNQBRKRN w GEge - 0 1",
            "O-O O-O",
        );
    }

    #[test]
    fn knights_against_pawn_extension_follows_art_12_4() {
        // Black pawn on d4 blocked by a white knight on d3: allowed (not beyond d4).
        let p = Position::from_fen("8/8/8/8/3p4/3N4/k7/2K1N3 w - - 0 1").unwrap();
        assert_eq!(p.piece_at(sq("d3")).map(|p| p.role), Some(Role::Knight));
        assert_eq!(fifty_move_limit(&p, Edition::Fide1980), 200);
        assert_eq!(fifty_move_limit(&p, Edition::Fide1993), 100);
        // Pawn on d3 is further advanced than d4: no extension.
        let p = Position::from_fen("8/8/8/8/8/3p4/k2N4/2K1N3 w - - 0 1").unwrap();
        assert_eq!(fifty_move_limit(&p, Edition::Fide1980), 100);
        // Not blocked by a knight.
        let p = Position::from_fen("8/8/8/8/3p4/8/k2N4/2K1N3 w - - 0 1").unwrap();
        assert_eq!(fifty_move_limit(&p, Edition::Fide1980), 100);
    }
}
