//! Draw claims: the first point where a threefold repetition (2017 Art. 9.2) or the
//! fifty-move rule (9.3) could be claimed, both ways the Laws allow: the position or the
//! count is already there (9.2.1.2, 9.3.2), or the player to move writes down a move that
//! would produce it (9.2.1.1, 9.3.1). Sameness of positions is 9.2.2's, via
//! `Position::repetition_key`; `Walk` follows those keys along a game without replaying it
//! in full.

use super::edition::Edition;
use crate::chess::zobrist::BuildKeyHasher;
use crate::chess::{Color, Move, MoveList, Piece, Position, Role, Square};
use crate::game::keys::PlyKey;
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

    /// Records one occurrence of the position with this key, and returns how many there
    /// have been. At two, the caller says so with the side to move (`seen_twice`).
    #[inline]
    pub fn record(&mut self, key: u64) -> u32 {
        if !self.long && self.len < LINEAR_LIMIT {
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
        }
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

    /// The position just recorded a second time (`record` said 2), with its side to move:
    /// a written move may make it occur a third time (`may_repeat_next`).
    #[cold]
    #[inline(never)]
    pub fn seen_twice(&mut self, key: u64, turn: Color) {
        self.twice.push(Seen { key, turn });
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

    /// Could one move from the position with this key (`plain_key`: without an en passant
    /// part) and side to move make a position seen twice occur a third time (9.2.1.1)?
    /// Answered from the keys alone, so that most plies need no move generation, and a
    /// necessary condition only (the full position decides, `threefold`). A move that
    /// repeats a position of the stretch is neither a pawn move nor a capture, and changes
    /// no castling right (the rights only shrink along a stretch, and the earlier position
    /// had them all): it takes one piece of the mover from a square to another, so the two
    /// keys differ by that piece's two square keys and the side to move (`MOVE_KEYS`). A
    /// castling move changes rights, so it never repeats a position.
    #[inline]
    pub fn may_repeat_next(&self, key: u64, turn: Color) -> bool {
        !self.twice.is_empty()
            && self.twice.iter().any(|seen| {
                seen.turn != turn
                    && one_piece_move(
                        turn,
                        key ^ seen.key ^ crate::chess::zobrist::black_to_move_key(),
                    )
            })
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

/// How many of a game's first plies the walk that counts occurrences and looks for claims
/// can skip: where no position can occur twice and no half-move count reaches 99 (where a
/// fifty-move claim may begin). `start_key` is the first position's repetition key and
/// `start_clock` its count, `plies` the key data after each move.
///
/// All of them (`plies.len()`) when no key comes back within a stretch between
/// irreversible moves (the only place a position can occur again) and every count stays
/// under 99: the walk would find every position once and no claim. Otherwise the ply that
/// began the first stretch where that may fail (an irreversible move's, or 0 for the first
/// stretch): the walk must start there, with every earlier position seen once and nothing
/// carried over, as an irreversible move clears the counts. Two keys that share their top
/// 8 and low 32 bits also stop the skip, which costs only time.
pub fn quiet_plies(start_key: u64, start_clock: u32, plies: &[PlyKey]) -> usize {
    if start_clock >= FIFTY_WATCH {
        return 0;
    }
    // Open addressing by the key's top byte; a slot holds the stretch it was filled in
    // (older stretches' slots count as empty, so nothing is cleared between stretches) and
    // the key's low 32 bits. A stretch has at most 100 positions (its counts stay under 99),
    // so the table never fills and a probe always ends.
    let mut table = [(0u32, 0u32); SCAN_SLOTS];
    let mut stretch = 1u32;
    let mut seen_before = |key: u64, stretch: u32| -> bool {
        let mut i = (key >> 56) as usize;
        loop {
            let (s, low) = table[i];
            if s != stretch {
                table[i] = (stretch, key as u32);
                return false;
            }
            if low == key as u32 {
                return true;
            }
            i = (i + 1) % SCAN_SLOTS;
        }
    };
    seen_before(start_key, stretch);
    let mut began = 0;
    for (i, p) in plies.iter().enumerate() {
        let clock = p.halfmove_clock();
        if clock >= FIFTY_WATCH {
            return began;
        }
        if clock == 0 {
            stretch += 1;
            began = i;
        }
        if seen_before(p.plain_key(), stretch) {
            return began;
        }
    }
    plies.len()
}

/// From this count of half-moves on, the walk tests for a fifty-move claim (`fifty`: every
/// limit is at least 100, and the written-move form starts one half-move before).
const FIFTY_WATCH: u32 = 99;
/// `quiet_plies`' table: a power of two, over twice the longest stretch it follows.
const SCAN_SLOTS: usize = 256;

/// A position seen twice in the current stretch.
#[derive(Debug, Clone, Copy)]
struct Seen {
    key: u64,
    turn: Color,
}

/// Slots of each colour's table of one-piece moves: a power of two, over three times its
/// 10,080 keys.
const MOVE_SLOTS: usize = 1 << 15;

/// By colour, the exclusive-or of a piece's keys on two different squares, for each of
/// that colour's pieces but a pawn, as an open-addressing table (0: an empty slot; no such
/// value is 0, the keys being distinct): what one move of that piece does to a position's
/// key, the side to move aside.
fn move_keys() -> &'static [Vec<u64>; 2] {
    static TABLES: std::sync::OnceLock<[Vec<u64>; 2]> = std::sync::OnceLock::new();
    TABLES.get_or_init(|| {
        Color::ALL.map(|color| {
            let mut table = vec![0u64; MOVE_SLOTS];
            for role in Role::ALL.into_iter().filter(|&r| r != Role::Pawn) {
                let p = Piece::new(color, role);
                for a in Square::all() {
                    for b in Square::all().filter(|b| b.index() > a.index()) {
                        let d = crate::chess::zobrist::piece_key(p, a)
                            ^ crate::chess::zobrist::piece_key(p, b);
                        let mut i = move_slot(d);
                        while table[i] != 0 && table[i] != d {
                            i = (i + 1) & (MOVE_SLOTS - 1);
                        }
                        table[i] = d;
                    }
                }
            }
            table
        })
    })
}

#[inline]
fn move_slot(d: u64) -> usize {
    (d >> 48) as usize & (MOVE_SLOTS - 1)
}

/// Is `d` what one move of a piece of `mover` (not a pawn) from a square to another does to
/// a key?
#[inline]
fn one_piece_move(mover: Color, d: u64) -> bool {
    let table = &move_keys()[mover.index()];
    let mut i = move_slot(d);
    loop {
        match table[i] {
            0 => return false,
            v if v == d => return true,
            _ => i = (i + 1) & (MOVE_SLOTS - 1),
        }
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

    fn sq(s: &str) -> Square {
        Square::parse(s).unwrap()
    }

    /// Records a key as the verdict does: a position seen twice hands over its board.
    fn record(seen: &mut Occurrences, key: u64) -> u32 {
        let n = seen.record(key);
        if n == 2 {
            seen.seen_twice(key, Color::White);
        }
        n
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
            assert_eq!(record(&mut seen, key), expected[i % 8], "record #{i}");
            assert_eq!(seen.count(key), expected[i % 8]);
        }
        assert_eq!(seen.count(12345), 0);
        assert_eq!(seen.twice.len(), 8);
        seen.clear();
        assert_eq!(seen.count(1), 0);
        assert!(seen.twice.is_empty());
        // A short one after the clear: every position comes back four plies later.
        let counts: Vec<u32> = [5, 6, 7, 8, 5, 6, 7, 8, 5]
            .map(|key| record(&mut seen, key))
            .to_vec();
        assert_eq!(counts, [1, 1, 1, 1, 2, 2, 2, 2, 3]);
        assert_eq!(seen.twice.len(), 4);
        assert_eq!(seen.twice[0].key, 5);
        assert_eq!(seen.count(5), 3);
        assert_eq!(seen.count(6), 2);
    }

    /// The key data after each of `sans`, played from `fen`.
    fn plies(fen: &str, sans: &str) -> (Position, Vec<PlyKey>) {
        let start = Position::from_fen(fen).unwrap();
        let moves = crate::chess::san::line(start, sans);
        (start, PlyKey::walk(&start, &moves))
    }

    fn quiet(fen: &str, sans: &str) -> usize {
        let (start, keys) = plies(fen, sans);
        quiet_plies(start.repetition_key(), start.halfmove_clock(), &keys)
    }

    /// The walk may skip every ply of a game in which nothing repeats, and otherwise starts
    /// at the irreversible move that began the stretch where a position may come back.
    #[test]
    fn quiet_plies_end_at_the_stretch_that_may_repeat() {
        let start = crate::chess::START_FEN;
        assert_eq!(quiet(start, "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O"), 9);
        // The start comes back after four plies: nothing can be skipped.
        assert_eq!(quiet(start, "Nf3 Nf6 Ng1 Ng8 e4"), 0);
        // After 1...e5 (ply index 1, a pawn move) the knights go out and back.
        assert_eq!(quiet(start, "e4 e5 Nf3 Nf6 Ng1 Ng8 d4"), 1);
        // The same shuffle after a capture further on: the walk starts at 3.exd5.
        assert_eq!(quiet(start, "e4 d5 Nc3 Nf6 exd5 Nbd7 Nf3 Nb8 Ng1 Nbd7"), 4);
        // Knights that come back to other squares repeat nothing.
        assert_eq!(quiet(start, "e4 e5 Nf3 Nf6 Ng1 Nh5 Nh3 Nf6"), 8);
        // A count that reaches 99 half-moves: from its stretch (the start's here), or at once
        // when the game starts there.
        let kings = "8/8/4k3/8/8/3K4/8/8 w - - 98 80";
        assert_eq!(quiet(kings, "Kd4"), 0);
        assert_eq!(quiet("8/8/4k3/8/8/3K4/8/8 w - - 99 80", "Kd4"), 0);
        assert_eq!(quiet("8/8/4k3/8/8/3K4/8/8 w - - 97 80", "Kd4"), 1);
        assert_eq!(quiet("8/p7/4k3/8/8/3K4/8/8 b - - 97 80", "a5 Kd4"), 2);
        assert_eq!(quiet("8/p7/4k3/8/8/3K4/8/8 w - - 97 80", "Kd4 a5"), 2);
        assert_eq!(
            quiet("8/p7/4k3/8/8/3K4/8/8 w - - 97 80", "Kc4 Kd6 Kd4 a5"),
            0
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

    /// The key test of `may_repeat_next` lets through every move that could repeat a
    /// position (a move of one of the mover's pieces, not a pawn, changing no castling
    /// right) and stops the other side's moves and two men moved.
    #[test]
    fn one_piece_moves_are_told_from_the_keys() {
        let btm = crate::chess::zobrist::black_to_move_key();
        let pos =
            Position::from_fen("r3k2r/ppp2ppp/2n2n2/3pp3/3PP3/2N2N2/PPP2PPP/R3K2R w KQkq - 0 1")
                .unwrap();
        let mut list = MoveList::new();
        pos.generate_legal(&mut list);
        let mut told = 0;
        for &m in list.iter() {
            let mut child = pos;
            child.play_unchecked(m);
            let d = pos.plain_key() ^ child.plain_key() ^ btm;
            let repeats_possible = !pos.is_zeroing(m) && child.castling() == pos.castling();
            assert_eq!(one_piece_move(Color::White, d), repeats_possible, "{m:?}");
            // Black's pieces never make White's move.
            assert!(!one_piece_move(Color::Black, d), "{m:?}");
            told += usize::from(repeats_possible);
        }
        // The knights' nine moves to empty squares; not the captures, pawn moves, castling,
        // or the king's and rooks' moves (they end castling rights).
        assert_eq!(told, 9);
        // Two knights moved at once: no one move.
        let two = pos.plain_key()
            ^ crate::chess::zobrist::piece_key(Piece::new(Color::White, Role::Knight), sq("c3"))
            ^ crate::chess::zobrist::piece_key(Piece::new(Color::White, Role::Knight), sq("b1"))
            ^ crate::chess::zobrist::piece_key(Piece::new(Color::White, Role::Knight), sq("f3"))
            ^ crate::chess::zobrist::piece_key(Piece::new(Color::White, Role::Knight), sq("g1"));
        assert!(!one_piece_move(Color::White, pos.plain_key() ^ two));
    }
}
