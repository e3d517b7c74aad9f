//! Precomputed attack tables, built once per process: leaper tables for pawns, knights and
//! kings, "fancy" magic bitboards for sliders, and the `between` / `line` tables that pin and
//! check detection rely on. Magic numbers are searched at start-up with a fixed seed, so the
//! tables are the same on every run.

use super::bitboard::Bitboard;
use super::types::{Color, Square};
use std::sync::OnceLock;

const ROOK_DIRS: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DIRS: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
const KNIGHT_STEPS: [(i8, i8); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];
const KING_STEPS: [(i8, i8); 8] = [
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
];

#[derive(Clone, Copy, Default)]
struct Magic {
    mask: u64,
    magic: u64,
    shift: u32,
    offset: usize,
}

struct Tables {
    knight: [Bitboard; 64],
    king: [Bitboard; 64],
    pawn: [[Bitboard; 64]; 2],
    rook_magics: [Magic; 64],
    bishop_magics: [Magic; 64],
    sliders: Vec<Bitboard>,
    between: Vec<Bitboard>,
    line: Vec<Bitboard>,
}

fn step(sq: Square, df: i8, dr: i8) -> Option<Square> {
    let f = sq.file().0 as i8 + df;
    let r = sq.rank().0 as i8 + dr;
    if (0..8).contains(&f) && (0..8).contains(&r) {
        Some(Square::new((r * 8 + f) as u8))
    } else {
        None
    }
}

fn leaper(sq: Square, steps: &[(i8, i8)]) -> Bitboard {
    let mut bb = Bitboard::EMPTY;
    for &(df, dr) in steps {
        if let Some(to) = step(sq, df, dr) {
            bb.add(to);
        }
    }
    bb
}

/// Slow ray walk, used only to fill the tables.
fn slide(sq: Square, occupied: u64, dirs: &[(i8, i8); 4]) -> u64 {
    let mut bb = 0u64;
    for &(df, dr) in dirs {
        let mut cur = sq;
        while let Some(to) = step(cur, df, dr) {
            bb |= 1 << to.index();
            if occupied & (1 << to.index()) != 0 {
                break;
            }
            cur = to;
        }
    }
    bb
}

/// The squares whose occupancy matters for a slider on `sq` (board edges excluded).
fn relevant_mask(sq: Square, dirs: &[(i8, i8); 4]) -> u64 {
    let mut bb = 0u64;
    for &(df, dr) in dirs {
        let mut cur = sq;
        while let Some(to) = step(cur, df, dr) {
            if step(to, df, dr).is_none() {
                break;
            }
            bb |= 1 << to.index();
            cur = to;
        }
    }
    bb
}

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn sparse(&mut self) -> u64 {
        self.next() & self.next() & self.next()
    }
}

fn find_magics(dirs: &[(i8, i8); 4], table: &mut Vec<Bitboard>, rng: &mut XorShift) -> [Magic; 64] {
    let mut magics = [Magic::default(); 64];
    let mut occupancies = Vec::with_capacity(4096);
    let mut attacks = Vec::with_capacity(4096);
    let mut used = vec![0u32; 4096];
    let mut epoch = 0u32;
    let mut slot = vec![0u64; 4096];
    for sq in Square::all() {
        let mask = relevant_mask(sq, dirs);
        let bits = mask.count_ones();
        occupancies.clear();
        attacks.clear();
        // Carry-rippler enumeration of every subset of the mask.
        let mut subset = 0u64;
        loop {
            occupancies.push(subset);
            attacks.push(slide(sq, subset, dirs));
            subset = subset.wrapping_sub(mask) & mask;
            if subset == 0 {
                break;
            }
        }
        let shift = 64 - bits;
        let size = 1usize << bits;
        let magic = loop {
            let candidate = rng.sparse();
            if (mask.wrapping_mul(candidate) >> 56).count_ones() < 6 {
                continue;
            }
            epoch += 1;
            let mut ok = true;
            for (occ, att) in occupancies.iter().zip(&attacks) {
                let idx = (occ.wrapping_mul(candidate) >> shift) as usize;
                if used[idx] != epoch {
                    used[idx] = epoch;
                    slot[idx] = *att;
                } else if slot[idx] != *att {
                    ok = false;
                    break;
                }
            }
            if ok {
                break candidate;
            }
        };
        let offset = table.len();
        table.resize(offset + size, Bitboard::EMPTY);
        for (occ, att) in occupancies.iter().zip(&attacks) {
            let idx = (occ.wrapping_mul(magic) >> shift) as usize;
            table[offset + idx] = Bitboard(*att);
        }
        magics[sq.index()] = Magic {
            mask,
            magic,
            shift,
            offset,
        };
    }
    magics
}

impl Tables {
    fn build() -> Tables {
        let mut knight = [Bitboard::EMPTY; 64];
        let mut king = [Bitboard::EMPTY; 64];
        let mut pawn = [[Bitboard::EMPTY; 64]; 2];
        for sq in Square::all() {
            knight[sq.index()] = leaper(sq, &KNIGHT_STEPS);
            king[sq.index()] = leaper(sq, &KING_STEPS);
            pawn[0][sq.index()] = leaper(sq, &[(-1, 1), (1, 1)]);
            pawn[1][sq.index()] = leaper(sq, &[(-1, -1), (1, -1)]);
        }
        let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
        let mut sliders = Vec::with_capacity(102_400 + 5_248);
        let rook_magics = find_magics(&ROOK_DIRS, &mut sliders, &mut rng);
        let bishop_magics = find_magics(&BISHOP_DIRS, &mut sliders, &mut rng);

        let mut between = vec![Bitboard::EMPTY; 64 * 64];
        let mut line = vec![Bitboard::EMPTY; 64 * 64];
        for a in Square::all() {
            for &(df, dr) in ROOK_DIRS.iter().chain(BISHOP_DIRS.iter()) {
                // Walk one direction from `a`, recording the squares passed on the way to each
                // square, and the whole edge-to-edge line for it.
                let mut ray = Bitboard::EMPTY;
                let mut cur = a;
                while let Some(to) = step(cur, df, dr) {
                    between[a.index() * 64 + to.index()] = ray;
                    ray.add(to);
                    cur = to;
                }
                let mut back = Bitboard::EMPTY;
                let mut cur = a;
                while let Some(to) = step(cur, -df, -dr) {
                    back.add(to);
                    cur = to;
                }
                let full = ray | back | Bitboard::from_square(a);
                for b in ray {
                    line[a.index() * 64 + b.index()] = full;
                }
            }
        }
        Tables {
            knight,
            king,
            pawn,
            rook_magics,
            bishop_magics,
            sliders,
            between,
            line,
        }
    }
}

static TABLES: OnceLock<Tables> = OnceLock::new();

#[inline]
fn tables() -> &'static Tables {
    TABLES.get_or_init(Tables::build)
}

/// Builds the tables now rather than at first use (for benchmarks and servers).
pub fn init() {
    let _ = tables();
}

#[inline]
fn magic_lookup(t: &Tables, m: &Magic, occupied: Bitboard) -> Bitboard {
    let idx = ((occupied.0 & m.mask).wrapping_mul(m.magic) >> m.shift) as usize;
    // SAFETY-free indexing: offset + idx < table length by construction.
    t.sliders[m.offset + idx]
}

#[inline]
pub fn knight_attacks(sq: Square) -> Bitboard {
    tables().knight[sq.index()]
}

#[inline]
pub fn king_attacks(sq: Square) -> Bitboard {
    tables().king[sq.index()]
}

/// Squares a pawn of `color` on `sq` attacks.
#[inline]
pub fn pawn_attacks(color: Color, sq: Square) -> Bitboard {
    tables().pawn[color.index()][sq.index()]
}

#[inline]
pub fn rook_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    let t = tables();
    magic_lookup(t, &t.rook_magics[sq.index()], occupied)
}

#[inline]
pub fn bishop_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    let t = tables();
    magic_lookup(t, &t.bishop_magics[sq.index()], occupied)
}

#[inline]
pub fn queen_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    rook_attacks(sq, occupied) | bishop_attacks(sq, occupied)
}

/// Squares strictly between `a` and `b` if they share a rank, file or diagonal; else empty.
#[inline]
pub fn between(a: Square, b: Square) -> Bitboard {
    tables().between[a.index() * 64 + b.index()]
}

/// The whole line (edge to edge) through `a` and `b`, or empty if they are not aligned.
#[inline]
pub fn line(a: Square, b: Square) -> Bitboard {
    tables().line[a.index() * 64 + b.index()]
}

/// True when `c` lies on the line through `a` and `b`.
#[inline]
pub fn aligned(a: Square, b: Square, c: Square) -> bool {
    line(a, b).contains(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        Square::parse(s).unwrap()
    }

    #[test]
    fn magic_lookups_match_ray_walks() {
        let mut rng = XorShift(12345);
        for _ in 0..2000 {
            let occ = rng.next() & rng.next();
            for s in Square::all() {
                assert_eq!(rook_attacks(s, Bitboard(occ)).0, slide(s, occ, &ROOK_DIRS));
                assert_eq!(
                    bishop_attacks(s, Bitboard(occ)).0,
                    slide(s, occ, &BISHOP_DIRS)
                );
            }
        }
    }

    #[test]
    fn leapers() {
        assert_eq!(knight_attacks(sq("a1")).count(), 2);
        assert_eq!(knight_attacks(sq("d4")).count(), 8);
        assert_eq!(king_attacks(sq("h8")).count(), 3);
        assert_eq!(
            pawn_attacks(Color::White, sq("e4")),
            Bitboard::from_square(sq("d5")) | Bitboard::from_square(sq("f5"))
        );
        assert_eq!(
            pawn_attacks(Color::Black, sq("a5")),
            Bitboard::from_square(sq("b4"))
        );
    }

    #[test]
    fn between_and_line() {
        assert_eq!(between(sq("a1"), sq("d4")).count(), 2);
        assert_eq!(between(sq("a1"), sq("b3")), Bitboard::EMPTY);
        assert_eq!(line(sq("a1"), sq("c3")).count(), 8);
        assert_eq!(
            line(sq("b1"), sq("b5")),
            Bitboard::from_file(crate::chess::types::File::B)
        );
        assert!(aligned(sq("a1"), sq("h8"), sq("e5")));
        assert!(!aligned(sq("a1"), sq("h8"), sq("e4")));
        assert_eq!(line(sq("a1"), sq("b3")), Bitboard::EMPTY);
    }
}
