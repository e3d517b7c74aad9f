//! A game's summary (docs/POSITIONS.md, schema version 13): a few facts about all of its
//! positions and moves, made on the import's workers with the rest of its index entry, so
//! that a pattern, pawn-structure or sequence scan rules out most games without reading
//! their moves. Each fact holds for the whole game, so a query that needs what a game's
//! summary lacks cannot match anywhere in it:
//!
//! - per side, the squares its pawns stood on (at any ply, the start included);
//! - per side, its pawns' file counts at every ply (a count per file), each distinct one
//!   a bit of a 32-bit set by a hash (`file_bit`);
//! - the fewest men on ranks 3 to 6 after any move (a pattern with its middle ranks empty
//!   needs few there);
//! - per side, which of its pieces took which (6 movers × 5 pieces taken: 30 bits).
//!
//! A record: a byte (bit 0: a custom start; bits 1 to 6: the fewest men, 63 for none, a
//! game without moves); then each side's pawn squares less the standard start's pawns (for
//! a standard start), each side's file-count set, and the captures (both sides, White's in
//! the low 32 bits), each as a `put_set`.

use super::query::{Pattern, PawnSide, Pawns};
use super::spans::slot;
use crate::chess::{CastlingSide, Color, Move, MoveKind, Position, Role, Square};
use crate::game::keys::piece;

/// Ranks 3 to 6.
const MIDDLE: u64 = 0x0000_ffff_ffff_0000;
/// The standard start's pawns: White's, Black's.
const START_PAWNS: [u64; 2] = [0xff00, 0x00ff_0000_0000_0000];
/// The fewest men stored for a game without moves.
const NO_MOVES: u8 = 63;

/// The bit of a side's file counts (a nibble a file, the a-file lowest) in its 32-bit set.
pub fn file_bit(counts: u32) -> u32 {
    1 << (counts.wrapping_mul(0x9e37_79b1) >> 27)
}

/// The bit of a capture by `mover` (Q R B N P K: 0 to 5, `spans`' slots and the king)
/// taking `taken` (Q R B N P: 0 to 4).
fn capture_bit(mover: usize, taken: usize) -> u32 {
    1 << (mover * 5 + taken)
}

/// The file counts of a set of pawns.
fn file_counts(pawns: u64) -> u32 {
    (0..8).fold(0, |acc, f| {
        acc | (pawns & (0x0101_0101_0101_0101 << f)).count_ones() << (4 * f)
    })
}

/// A game's summary as it is built move by move (`index::game_entry_keyed`).
#[derive(Debug, Clone)]
pub struct Builder {
    custom: bool,
    occupied: u64,
    pawns: [u64; 2],
    visited: [u64; 2],
    files: [u32; 2],
    fewest: u8,
    captures: [u32; 2],
}

impl Builder {
    /// From the start's board (`game::keys::code` by square).
    pub fn start(board: &[u8; 64], custom: bool) -> Builder {
        let mut occupied = 0;
        let mut pawns = [0u64; 2];
        for (sq, &c) in board.iter().enumerate() {
            if c != 0 {
                occupied |= 1 << sq;
            }
            match c {
                1 => pawns[0] |= 1 << sq,
                7 => pawns[1] |= 1 << sq,
                _ => {}
            }
        }
        Builder {
            custom,
            occupied,
            pawns,
            visited: pawns,
            files: pawns.map(|p| file_bit(file_counts(p))),
            fewest: NO_MOVES,
            captures: [0, 0],
        }
    }

    /// The legal move `m` by the piece of code `moving`, which took `taken`.
    #[inline]
    pub fn moved(&mut self, m: Move, moving: u8, taken: Option<Role>) {
        let Some(p) = piece(moving) else { return };
        let side = usize::from(p.color == Color::Black);
        let (from, to) = (m.from().index(), m.to().index());
        let pawns_before = self.pawns;
        match m.kind() {
            MoveKind::Castle => {
                // The king's and the rook's squares, Chess960 too (the king may stay).
                let side_of = m.castling_side().unwrap_or(CastlingSide::KingSide);
                let rank = m.from().rank();
                let king = Square::from_coords(side_of.king_to_file(), rank).index();
                let rook = Square::from_coords(side_of.rook_to_file(), rank).index();
                self.occupied &= !(1 << from | 1 << to);
                self.occupied |= 1 << king | 1 << rook;
            }
            kind => {
                self.occupied &= !(1 << from);
                self.occupied |= 1 << to;
                let other = &mut self.pawns[1 - side];
                if kind == MoveKind::EnPassant {
                    let gone = Square::from_coords(m.to().file(), m.from().rank()).index();
                    self.occupied &= !(1 << gone);
                    *other &= !(1 << gone);
                } else {
                    *other &= !(1 << to);
                }
                if p.role == Role::Pawn {
                    self.pawns[side] &= !(1 << from);
                    if m.promotion_role().is_none() {
                        self.pawns[side] |= 1 << to;
                        self.visited[side] |= 1 << to;
                    }
                }
            }
        }
        if let Some(t) = taken.and_then(slot) {
            self.captures[side] |= capture_bit(slot(p.role).unwrap_or(5), t);
        }
        for ((files, &now), before) in self.files.iter_mut().zip(&self.pawns).zip(pawns_before) {
            // A push keeps the file counts; a capture, a pawn taken or a promotion may not.
            if now != before
                && (now.count_ones() != before.count_ones() || m.from().file() != m.to().file())
            {
                *files |= file_bit(file_counts(now));
            }
        }
        self.fewest = self.fewest.min((self.occupied & MIDDLE).count_ones() as u8);
    }

    /// The record, appended to `out`.
    pub fn finish(&self, out: &mut Vec<u8>) {
        out.push(u8::from(self.custom) | self.fewest.min(NO_MOVES) << 1);
        for (visited, start) in self.visited.iter().zip(START_PAWNS) {
            let start = if self.custom { 0 } else { start };
            put_set(visited & !start, out);
        }
        put_set(
            u64::from(self.files[0]) | u64::from(self.files[1]) << 32,
            out,
        );
        put_set(
            u64::from(self.captures[0]) | u64::from(self.captures[1]) << 32,
            out,
        );
    }
}

/// The summary of a game (legal `moves` from `start`), as the import writes it.
pub fn of(start: &Position, moves: &[Move]) -> Vec<u8> {
    let mut b = Builder::start(&super::matcher::board_of(start), *start != Position::new());
    let mut pos = *start;
    for &m in moves {
        let moving = pos.piece_at(m.from()).map_or(0, crate::game::keys::code);
        b.moved(m, moving, pos.captured_role(m));
        pos.play_unchecked(m);
    }
    let mut out = Vec::new();
    b.finish(&mut out);
    out
}

/// A set of 64 bits in as few bytes as its nonzero bytes: a byte saying which bytes are
/// nonzero (bit i: byte i), then those bytes, the lowest first.
fn put_set(set: u64, out: &mut Vec<u8>) {
    let bytes = set.to_le_bytes();
    let mask = bytes
        .iter()
        .enumerate()
        .fold(0u8, |m, (i, &b)| m | u8::from(b != 0) << i);
    out.push(mask);
    out.extend(bytes.iter().filter(|&&b| b != 0));
}

fn get_set(record: &[u8], at: &mut usize) -> Option<u64> {
    let mask = *record.get(*at)?;
    *at += 1;
    let mut set = 0u64;
    for i in 0..8 {
        if mask & (1 << i) != 0 {
            set |= u64::from(*record.get(*at)?) << (8 * i);
            *at += 1;
        }
    }
    Some(set)
}

/// A stored summary, read back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    pub custom: bool,
    /// The fewest men on ranks 3 to 6 after a move; None for a game without moves.
    pub fewest_middle: Option<u8>,
    /// The squares each side's pawns stood on.
    pub pawns: [u64; 2],
    /// Each side's file counts, as `file_bit`s.
    pub files: [u32; 2],
    /// Each side's captures, as `capture_bit`s.
    pub captures: [u32; 2],
}

impl Summary {
    /// None when the record is empty (no summary) or does not decode.
    pub fn decode(record: &[u8]) -> Option<Summary> {
        let head = *record.first()?;
        let custom = head & 1 == 1;
        let fewest = head >> 1;
        let mut at = 1;
        let mut pawns = [0u64; 2];
        for (side, p) in pawns.iter_mut().enumerate() {
            *p = get_set(record, &mut at)? | if custom { 0 } else { START_PAWNS[side] };
        }
        let files = get_set(record, &mut at)?;
        let captures = get_set(record, &mut at)?;
        (at == record.len()).then_some(Summary {
            custom,
            fewest_middle: (fewest != NO_MOVES).then_some(fewest),
            pawns,
            files: [files as u32, (files >> 32) as u32],
            captures: [captures as u32, (captures >> 32) as u32],
        })
    }
}

/// What one side of a query (the query as it is, or its colour flip) needs of a game's
/// summary: squares each side's pawns must have stood on, each side's file counts (None:
/// free), and how many of the middle ranks' squares may hold a man at the matching ply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct SideNeeds {
    pawns: [u64; 2],
    files: [Option<u32>; 2],
    middle_free: u32,
    /// Whether the standard start position has what the side's patterns and pawns need.
    start: bool,
}

impl SideNeeds {
    fn new(patterns: &[Pattern], pawns: Option<&Pawns>) -> SideNeeds {
        let mut n = SideNeeds {
            pawns: [0, 0],
            files: [None, None],
            middle_free: 32,
            start: true,
        };
        let start = Position::new();
        let mut empty = 0u64;
        for p in patterns {
            let fast = p.fast();
            let (need, e) = fast.pawn_squares_and_empty();
            n.pawns[0] |= need[0];
            n.pawns[1] |= need[1];
            empty |= e;
            n.start &= fast.matches(&start);
        }
        n.middle_free = 32 - (empty & MIDDLE).count_ones();
        if let Some(pw) = pawns {
            n.start &= pw.matches_position(&start);
            for (side, s) in pw.0.iter().enumerate() {
                let counts = match s {
                    PawnSide::Any => continue,
                    PawnSide::Squares(set) => {
                        n.pawns[side] |= set;
                        file_counts(*set)
                    }
                    PawnSide::Files(files) => files
                        .iter()
                        .enumerate()
                        .fold(0, |acc, (f, &c)| acc | u32::from(c) << (4 * f)),
                };
                n.files[side] = Some(file_bit(counts));
            }
        }
        n
    }

    /// Whether a game of this summary may match at some ply, at the start only, or not.
    fn verdict(&self, s: &Summary) -> Verdict {
        let fits = (0..2).all(|k| {
            s.pawns[k] & self.pawns[k] == self.pawns[k]
                && self.files[k].is_none_or(|b| s.files[k] & b != 0)
        });
        if !fits {
            return Verdict::Never;
        }
        match s.fewest_middle {
            Some(f) if u32::from(f) <= self.middle_free => Verdict::Any,
            _ if s.custom || self.start => Verdict::StartOnly,
            _ => Verdict::Never,
        }
    }
}

/// Where a game may match, by its summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Nowhere.
    Never,
    /// Only at the start position (ply 0).
    StartOnly,
    /// Anywhere the other tests allow.
    Any,
}

/// A query's tests on the summaries (`ScanFilter`): per side its `SideNeeds`, and the
/// sequence's captures by mover and piece taken.
#[derive(Debug, Clone)]
pub struct SummaryTest {
    sides: Vec<SideNeeds>,
    /// Per move of the sequence that captures: its index, the mover (`capture_bit`'s
    /// numbering) and the piece taken (None: any).
    captures: Vec<(usize, usize, Option<usize>)>,
}

impl SummaryTest {
    /// `captures`: per move of the sequence, whether it takes, its mover (Q R B N P K: 0
    /// to 5) and the piece it takes (Q R B N P: 0 to 4) when the sequence tells it.
    pub fn new(
        patterns: [&[Pattern]; 2],
        pawns: [Option<&Pawns>; 2],
        mirror: bool,
        captures: &[(bool, usize, Option<usize>)],
    ) -> SummaryTest {
        let sides = (0..1 + usize::from(mirror))
            .map(|k| SideNeeds::new(patterns[k], pawns[k]))
            .collect();
        SummaryTest {
            sides,
            captures: captures
                .iter()
                .enumerate()
                .filter(|(_, c)| c.0)
                .map(|(i, c)| (i, c.1, c.2))
                .collect(),
        }
    }

    /// Whether the test rules anything out at all (else a scan need not read the summaries).
    pub fn is_free(&self) -> bool {
        self.captures.is_empty()
            && self
                .sides
                .iter()
                .any(|n| n.pawns == [0, 0] && n.files == [None, None] && n.middle_free == 32)
    }

    /// Where a game with this stored record may match (an empty or damaged record: no
    /// summary, anywhere).
    pub fn verdict(&self, record: &[u8]) -> Verdict {
        let Some(s) = Summary::decode(record) else {
            return Verdict::Any;
        };
        // The sequence's first move by either side: each capture by its mover's side.
        let captures_fit = self.captures.is_empty()
            || (0..2).any(|first| {
                self.captures.iter().all(|&(i, mover, taken)| {
                    let side = (first + i) % 2;
                    let bits = match taken {
                        Some(t) => capture_bit(mover, t),
                        None => 0b11111 << (mover * 5),
                    };
                    s.captures[side] & bits != 0
                })
            });
        if !captures_fit {
            return Verdict::Never;
        }
        self.sides
            .iter()
            .map(|n| n.verdict(&s))
            .max_by_key(|v| match v {
                Verdict::Never => 0,
                Verdict::StartOnly => 1,
                Verdict::Any => 2,
            })
            .unwrap_or(Verdict::Any)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::san::line;
    use crate::positions::matcher::board_of;

    /// The summary as a replay of every position finds it, square by square.
    fn replayed(start: &Position, moves: &[Move]) -> Summary {
        let custom = *start != Position::new();
        let mut pos = *start;
        let mut pawns = [0u64; 2];
        let mut files = [0u32; 2];
        let mut fewest = None::<u8>;
        let mut captures = [0u32; 2];
        let seen = |pos: &Position, pawns: &mut [u64; 2], files: &mut [u32; 2]| {
            let b = board_of(pos);
            for side in 0..2 {
                let code = if side == 0 { 1 } else { 7 };
                let set = (0..64)
                    .filter(|&sq| b[sq] == code)
                    .fold(0u64, |s, sq| s | 1 << sq);
                pawns[side] |= set;
                files[side] |= file_bit(file_counts(set));
            }
        };
        seen(&pos, &mut pawns, &mut files);
        for &m in moves {
            let mover = pos.piece_at(m.from()).unwrap();
            if let Some(t) = pos.captured_role(m) {
                let side = usize::from(mover.color == Color::Black);
                captures[side] |= capture_bit(slot(mover.role).unwrap_or(5), slot(t).unwrap());
            }
            pos.play_unchecked(m);
            seen(&pos, &mut pawns, &mut files);
            let b = board_of(&pos);
            let middle = (16..48).filter(|&sq| b[sq] != 0).count() as u8;
            fewest = Some(fewest.map_or(middle, |f| f.min(middle)));
        }
        Summary {
            custom,
            fewest_middle: fewest,
            pawns,
            files,
            captures,
        }
    }

    fn check(start: Position, text: &str) -> Summary {
        let moves = line(start, text);
        let rec = of(&start, &moves);
        let s = Summary::decode(&rec).unwrap();
        assert_eq!(s, replayed(&start, &moves), "{text}");
        s
    }

    #[test]
    fn the_summary_is_what_a_replay_of_every_position_finds() {
        let s = Position::new();
        // Captures, en passant (exf6), castling, a king taking a bishop.
        let g = check(
            s,
            "e4 d5 e5 f5 exf6 Nxf6 d4 e6 Nf3 Be7 Bd3 O-O O-O c5 dxc5 Bxc5 Bg5 Nc6 Nc3 Qb6 Bxf6 Rxf6 Qe2 Bd7 Rad1 Rxf3 gxf3 Qxb2 Bxh7+ Kxh7 Qd3+ Kg8 Rb1 Qxc3 Qxc3 d4 Qd3 e5 Rxb7 Bh3 Rfb1 Bf5 Qb5 Bxc2 Rb8+ Rxb8 Qxb8+ Kh7",
        );
        // The white pawn took en passant on f6: a pawn stood there, and took a pawn.
        assert!(g.pawns[0] & (1 << 45) != 0);
        assert!(g.captures[0] & capture_bit(4, 4) != 0);
        // Black's king took a bishop (Kxh7).
        assert!(g.captures[1] & capture_bit(5, 2) != 0);
        // Under-promotions and promotions with a capture, from a custom start.
        let p = Position::from_fen("4k3/1P6/8/8/8/8/6p1/4K2R b K - 0 1").unwrap();
        let g = check(p, "gxh1=N b8=Q+ Kd7 Qb7+");
        assert!(g.custom && g.fewest_middle == Some(0));
        assert_eq!(g.pawns, [1 << 49, 1 << 14]);
        // Chess960: a castling whose king stays on its square (g1), and a queenside one.
        let c960 = |fen: &str| {
            Position::from_setup(&crate::chess::fen::parse_setup(fen).unwrap(), true).unwrap()
        };
        let g = check(
            c960("bqnbrnkr/pppppppp/8/8/8/8/PPPPPPPP/BQNBRNKR w HEhe - 0 1"),
            "f4 f5 Ng3 Ng6 O-O O-O",
        );
        assert!(g.custom);
        check(
            c960("rkbbnnqr/pppppppp/8/8/8/8/PPPPPPPP/RKBBNNQR w HAha - 0 1"),
            "d3 d6 c3 c6 Bd2 Bd7 Bc2 Bc7 O-O-O O-O-O",
        );
        // A game without moves, and one of one move.
        let g = check(s, "");
        assert_eq!(g.fewest_middle, None);
        assert_eq!(check(s, "Nf3").fewest_middle, Some(1));
        // The middle emptied again: the knights back home.
        assert_eq!(check(s, "Nf3 Nf6 Ng1 Ng8").fewest_middle, Some(0));
    }

    #[test]
    fn a_summary_test_rules_out_only_games_that_cannot_match() {
        use crate::positions::query::{parse_pattern, parse_pawns};
        let s = Position::new();
        let rec = of(&s, &line(s, "d4 d5 c4 e6 Nc3 Nf6 cxd5 exd5 Bg5 Be7"));
        let pat = |t: &str| vec![parse_pattern(t).unwrap()];
        let test = |p: &[Pattern], pw: Option<&Pawns>, caps: &[(bool, usize, Option<usize>)]| {
            SummaryTest::new([p, &[]], [pw, None], false, caps).verdict(&rec)
        };
        // A white pawn stood on d4 and c4 (then took on d5), none on e4.
        assert_eq!(test(&pat("*/*/*/*/3P4/*/*/*"), None, &[]), Verdict::Any);
        assert_eq!(test(&pat("*/*/*/3P4/*/*/*/*"), None, &[]), Verdict::Any);
        assert_eq!(test(&pat("*/*/*/*/4P3/*/*/*"), None, &[]), Verdict::Never);
        // Ranks 3 to 6 never empty again after a move; the start does not match this.
        let back = pat("r?????k?/?????ppp/8/8/8/8/5PPP/??????K? w");
        assert_eq!(test(&back, None, &[]), Verdict::Never);
        // The start position matches this one: only there.
        assert_eq!(test(&pat("*/*/8/8/8/8/*/*"), None, &[]), Verdict::StartOnly);
        // Files: White's c-pawn took on d (two d-pawns, none on c), then d5 took it.
        let files = parse_pawns("abddefgh/*").unwrap();
        assert_eq!(test(&[], Some(&files), &[]), Verdict::Any);
        let files = parse_pawns("abcdefg/*").unwrap();
        assert_eq!(test(&[], Some(&files), &[]), Verdict::Never);
        // Captures: a white pawn took a pawn, a black pawn took one; no bishop took.
        assert_eq!(test(&[], None, &[(true, 4, Some(4))]), Verdict::Any);
        assert_eq!(
            test(&[], None, &[(true, 4, Some(4)), (true, 4, Some(4))]),
            Verdict::Any
        );
        assert_eq!(test(&[], None, &[(true, 2, None)]), Verdict::Never);
        // Quiet moves ask nothing.
        assert_eq!(test(&[], None, &[(false, 3, None)]), Verdict::Any);
        // No summary: anything.
        assert_eq!(
            SummaryTest::new([&back, &[]], [None, None], false, &[]).verdict(&[]),
            Verdict::Any
        );
    }
}
