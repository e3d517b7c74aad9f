//! Draw claims: the first point where a threefold repetition (2017 Art. 9.2) or the
//! fifty-move rule (9.3) could be claimed, both ways the Laws allow: the position or the
//! count is already there (9.2.1.2, 9.3.2), or the player to move writes down a move that
//! would produce it (9.2.1.1, 9.3.1). Sameness of positions is 9.2.2's, via
//! `Position::repetition_key`; `Walk` follows those keys along a game without replaying it
//! in full.

use super::edition::Edition;
use crate::chess::zobrist::BuildKeyHasher;
use crate::chess::{Color, Move, MoveList, Piece, Position, Role};
use crate::game::keys::{Board, code, piece};
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
