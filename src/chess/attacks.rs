//! Precomputed attack tables, built at compile time into read-only statics: leaper tables for
//! pawns, knights and kings, "fancy" magic bitboards for sliders, and the `between` / `line`
//! tables that pin and check detection rely on. The magic numbers were found by our own
//! fixed-seed search (`find_magic` in the tests re-derives every one of them).

use super::bitboard::Bitboard;
use super::types::{Color, Square};

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

#[rustfmt::skip]
const ROOK_MAGICS: [u64; 64] = [
    0x2080002080400010, 0x00c0002001401000, 0x2100110008402002, 0x0880080081041000,
    0x0200020020041008, 0x2300040008010012, 0x0c00283004008201, 0x0180010000407a80,
    0x0168800080400020, 0x0010400040201000, 0x1001002001001048, 0x1001002408100100,
    0x0801000408010012, 0x4001000209000400, 0x08a20004c8020001, 0x2002801145002280,
    0x0080860021004200, 0x001000c009402002, 0x00b0002004002800, 0x100a808010020800,
    0x8101010008000410, 0x0244008002000480, 0x0000040010810208, 0x2000020000448534,
    0x4104400480008033, 0x0000810100204000, 0x0440430900200010, 0x4600240900100100,
    0x0060080080040080, 0x0001000300080400, 0x0004084400011002, 0x0023040200008041,
    0x0580050043002080, 0x0400804002802008, 0x0001002001004010, 0x1000200901001000,
    0x4410800801800c00, 0xa012003806001004, 0x0020100104008802, 0x0004808402000041,
    0x0010400170898000, 0x0080500020004004, 0x1040408012020020, 0x8010040008004040,
    0x2001080100110004, 0x0000020004008080, 0x0021010810040002, 0x0800008c43020024,
    0x0000800021005100, 0x0070201040008080, 0x0000d04282006a00, 0x0010014400080240,
    0x0001080110050100, 0x0012000810240600, 0x0402000801040200, 0x028100108a004100,
    0x0050800300102045, 0x8208210040120882, 0x8010600101183441, 0x020b000910006045,
    0x0241001002480005, 0x0081000400880241, 0x0000009008024124, 0x0048122980410402,
];

#[rustfmt::skip]
const BISHOP_MAGICS: [u64; 64] = [
    0x0848020822040013, 0x8010a40085821200, 0x0008008430840822, 0x0808048108040000,
    0x1304042100008104, 0x5001012010204023, 0x81048801b8200420, 0x200a008084012000,
    0x0040102001042084, 0x840a505042428020, 0x0000700102202920, 0x44101c0c10800002,
    0x0040040422000000, 0x0180020802090202, 0x4020020811041202, 0x000104308c042000,
    0x4140661002424400, 0x0028012008010460, 0x0188062102002a00, 0x0014004840102008,
    0x0105000290400002, 0x8001022200410400, 0x104a041918013446, 0x008a000082008238,
    0x04a0060008100430, 0x0008220008820801, 0x2508041208005010, 0x4008080200202020,
    0x2441001013004000, 0x0030008060407000, 0x4008108000420800, 0x0012021050290100,
    0x0210080482200500, 0xcc01112048100480, 0x0020402806500440, 0x00048e0080580080,
    0x0040102020020080, 0x0028010440080807, 0x4601041108008800, 0x8040810e04104200,
    0x901210110400088a, 0xa003080212081050, 0x00c1004048401004, 0x900000a014400800,
    0x0008021040405401, 0x4020008206002090, 0x0004190424030100, 0x0424008a02026250,
    0x8004088250900040, 0x1c00430088a04200, 0x0001020094040001, 0x8040210020880061,
    0x2010040450442032, 0x0800840850044001, 0x0004040802140004, 0x0004080a04222020,
    0x8088802110022000, 0x1081a10416114400, 0x0205010a24060820, 0x0000000720411080,
    0x1008000208430400, 0x580c026028810840, 0x802020441020a110, 0x12c0022401020018,
];

/// The square one step away, if on the board.
const fn step(sq: usize, df: i8, dr: i8) -> Option<usize> {
    let f = (sq % 8) as i8 + df;
    let r = (sq / 8) as i8 + dr;
    if f >= 0 && f < 8 && r >= 0 && r < 8 {
        Some((r * 8 + f) as usize)
    } else {
        None
    }
}

const fn leaper(sq: usize, steps: &[(i8, i8)]) -> u64 {
    let mut bb = 0;
    let mut i = 0;
    while i < steps.len() {
        if let Some(to) = step(sq, steps[i].0, steps[i].1) {
            bb |= 1 << to;
        }
        i += 1;
    }
    bb
}

/// Ray walk: the squares a slider on `sq` reaches with the given occupancy.
const fn slide(sq: usize, occupied: u64, dirs: &[(i8, i8); 4]) -> u64 {
    let mut bb = 0u64;
    let mut d = 0;
    while d < 4 {
        let mut cur = sq;
        while let Some(to) = step(cur, dirs[d].0, dirs[d].1) {
            bb |= 1 << to;
            if occupied & (1 << to) != 0 {
                break;
            }
            cur = to;
        }
        d += 1;
    }
    bb
}

/// The squares whose occupancy matters for a slider on `sq` (the last square of each ray
/// is left out: a piece there changes nothing).
const fn relevant_mask(sq: usize, dirs: &[(i8, i8); 4]) -> u64 {
    let mut bb = 0u64;
    let mut d = 0;
    while d < 4 {
        let mut cur = sq;
        while let Some(to) = step(cur, dirs[d].0, dirs[d].1) {
            if step(to, dirs[d].0, dirs[d].1).is_none() {
                break;
            }
            bb |= 1 << to;
            cur = to;
        }
        d += 1;
    }
    bb
}

#[derive(Clone, Copy)]
struct Magic {
    mask: u64,
    magic: u64,
    shift: u32,
    offset: usize,
}

const fn magics(dirs: &[(i8, i8); 4], numbers: &[u64; 64], base: usize) -> [Magic; 64] {
    let mut out = [Magic {
        mask: 0,
        magic: 0,
        shift: 0,
        offset: 0,
    }; 64];
    let mut offset = base;
    let mut sq = 0;
    while sq < 64 {
        let mask = relevant_mask(sq, dirs);
        let bits = mask.count_ones();
        out[sq] = Magic {
            mask,
            magic: numbers[sq],
            shift: 64 - bits,
            offset,
        };
        offset += 1 << bits;
        sq += 1;
    }
    out
}

const ROOK_TABLE_SIZE: usize = 102_400;
const BISHOP_TABLE_SIZE: usize = 5_248;
const SLIDER_TABLE_SIZE: usize = ROOK_TABLE_SIZE + BISHOP_TABLE_SIZE;
const ROOK: [Magic; 64] = magics(&ROOK_DIRS, &ROOK_MAGICS, 0);
const BISHOP: [Magic; 64] = magics(&BISHOP_DIRS, &BISHOP_MAGICS, ROOK_TABLE_SIZE);

const fn fill_sliders(
    mut table: [u64; SLIDER_TABLE_SIZE],
    entries: &[Magic; 64],
    dirs: &[(i8, i8); 4],
) -> [u64; SLIDER_TABLE_SIZE] {
    let mut sq = 0;
    while sq < 64 {
        let m = entries[sq];
        // Carry-rippler enumeration of every subset of the mask.
        let mut subset = 0u64;
        loop {
            let idx = (subset.wrapping_mul(m.magic) >> m.shift) as usize;
            table[m.offset + idx] = slide(sq, subset, dirs);
            subset = subset.wrapping_sub(m.mask) & m.mask;
            if subset == 0 {
                break;
            }
        }
        sq += 1;
    }
    table
}

static SLIDERS: [u64; SLIDER_TABLE_SIZE] = fill_sliders(
    fill_sliders([0; SLIDER_TABLE_SIZE], &ROOK, &ROOK_DIRS),
    &BISHOP,
    &BISHOP_DIRS,
);

const fn leaper_table(steps: &[(i8, i8)]) -> [u64; 64] {
    let mut t = [0; 64];
    let mut sq = 0;
    while sq < 64 {
        t[sq] = leaper(sq, steps);
        sq += 1;
    }
    t
}

/// Empty-board slider attacks: a 512-byte table each, against the magic table's 860 KB,
/// for the hot paths that only need the candidates on a line and test the squares between
/// with `between`.
const fn ray_table(dirs: &[(i8, i8); 4]) -> [u64; 64] {
    let mut t = [0; 64];
    let mut sq = 0;
    while sq < 64 {
        t[sq] = slide(sq, 0, dirs);
        sq += 1;
    }
    t
}

static ROOK_RAYS: [u64; 64] = ray_table(&ROOK_DIRS);
static BISHOP_RAYS: [u64; 64] = ray_table(&BISHOP_DIRS);
static QUEEN_RAYS: [u64; 64] = {
    let mut t = [0; 64];
    let mut sq = 0;
    while sq < 64 {
        t[sq] = ROOK_RAYS[sq] | BISHOP_RAYS[sq];
        sq += 1;
    }
    t
};

static KNIGHT: [u64; 64] = leaper_table(&KNIGHT_STEPS);
static KING: [u64; 64] = leaper_table(&KING_STEPS);
static PAWN: [[u64; 64]; 2] = [
    leaper_table(&[(-1, 1), (1, 1)]),
    leaper_table(&[(-1, -1), (1, -1)]),
];

type SquarePairs = [[u64; 64]; 64];

/// `between` (squares strictly between) and `line` (edge to edge) for aligned pairs.
const fn line_tables() -> (SquarePairs, SquarePairs) {
    let mut between = [[0u64; 64]; 64];
    let mut line = [[0u64; 64]; 64];
    let dirs = [ROOK_DIRS, BISHOP_DIRS];
    let mut a = 0;
    while a < 64 {
        let mut k = 0;
        while k < 8 {
            let (df, dr) = dirs[k / 4][k % 4];
            let mut full = 1u64 << a;
            let mut cur = a;
            while let Some(to) = step(cur, df, dr) {
                full |= 1 << to;
                cur = to;
            }
            cur = a;
            while let Some(to) = step(cur, -df, -dr) {
                full |= 1 << to;
                cur = to;
            }
            let mut passed = 0u64;
            cur = a;
            while let Some(to) = step(cur, df, dr) {
                between[a][to] = passed;
                line[a][to] = full;
                passed |= 1 << to;
                cur = to;
            }
            k += 1;
        }
        a += 1;
    }
    (between, line)
}

static LINES: (SquarePairs, SquarePairs) = line_tables();

#[inline]
fn magic_lookup(m: &Magic, occupied: Bitboard) -> Bitboard {
    let idx = ((occupied.0 & m.mask).wrapping_mul(m.magic) >> m.shift) as usize;
    Bitboard(SLIDERS[m.offset + idx])
}

#[inline]
pub fn knight_attacks(sq: Square) -> Bitboard {
    Bitboard(KNIGHT[sq.index()])
}

#[inline]
pub fn king_attacks(sq: Square) -> Bitboard {
    Bitboard(KING[sq.index()])
}

/// Squares a pawn of `color` on `sq` attacks.
#[inline]
pub fn pawn_attacks(color: Color, sq: Square) -> Bitboard {
    Bitboard(PAWN[color.index()][sq.index()])
}

#[inline]
pub fn rook_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    magic_lookup(&ROOK[sq.index()], occupied)
}

#[inline]
pub fn bishop_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    magic_lookup(&BISHOP[sq.index()], occupied)
}

/// Rook moves from `sq` on an empty board.
#[inline]
pub fn rook_rays(sq: Square) -> Bitboard {
    Bitboard(ROOK_RAYS[sq.index()])
}

/// Bishop moves from `sq` on an empty board.
#[inline]
pub fn bishop_rays(sq: Square) -> Bitboard {
    Bitboard(BISHOP_RAYS[sq.index()])
}

/// The squares of the line through `a` and `b` other than those two, as an orthogonal and a
/// diagonal part, one of them (or both) empty: the rays both squares share, kept only when
/// they are aligned, which a mask says without a branch. For the pin and discovered-check
/// tests of every move, where whether a man stands on a line through a king is a coin toss
/// the CPU mispredicted on most moves.
#[inline]
pub fn lines_through(a: Square, b: Square) -> (Bitboard, Bitboard) {
    let orthogonal = rook_rays(a).all_if_contains(b) & rook_rays(a) & rook_rays(b);
    let diagonal = bishop_rays(a).all_if_contains(b) & bishop_rays(a) & bishop_rays(b);
    (orthogonal, diagonal)
}

/// Queen moves from `sq` on an empty board: the squares on any line through it.
#[inline]
pub fn queen_rays(sq: Square) -> Bitboard {
    Bitboard(QUEEN_RAYS[sq.index()])
}

#[inline]
pub fn queen_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    rook_attacks(sq, occupied) | bishop_attacks(sq, occupied)
}

/// Squares strictly between `a` and `b` if they share a rank, file or diagonal; else empty.
#[inline]
pub fn between(a: Square, b: Square) -> Bitboard {
    Bitboard(LINES.0[a.index()][b.index()])
}

/// The whole line (edge to edge) through `a` and `b`, or empty if they are not aligned.
#[inline]
pub fn line(a: Square, b: Square) -> Bitboard {
    Bitboard(LINES.1[a.index()][b.index()])
}

/// The bits strictly between two square indices (whatever the line).
#[inline]
fn span(a: Square, b: Square) -> u64 {
    let (lo, hi) = if a.index() < b.index() {
        (a.index(), b.index())
    } else {
        (b.index(), a.index())
    };
    (1u64 << hi).wrapping_sub(1u64 << lo) & !(1u64 << lo)
}

/// [`between`] for two squares known to share a rank or file, from the 512-byte ray table
/// (the two squares' rook rays meet exactly on the squares of their line, less themselves),
/// where `between`'s 32 KB table misses the cache on the replay's hot path.
#[inline]
pub fn between_orthogonal(a: Square, b: Square) -> Bitboard {
    Bitboard(ROOK_RAYS[a.index()] & ROOK_RAYS[b.index()] & span(a, b))
}

/// [`between`] for two squares known to share a diagonal, from the bishop ray table.
#[inline]
pub fn between_diagonal(a: Square, b: Square) -> Bitboard {
    Bitboard(BISHOP_RAYS[a.index()] & BISHOP_RAYS[b.index()] & span(a, b))
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

    struct XorShift(u64);

    impl XorShift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    /// How the magic numbers were found: sparse random candidates from a fixed-seed
    /// xorshift until every occupancy subset maps without a harmful collision.
    fn find_magic(sq: usize, dirs: &[(i8, i8); 4], rng: &mut XorShift) -> u64 {
        let mask = relevant_mask(sq, dirs);
        let shift = 64 - mask.count_ones();
        let mut subsets = Vec::new();
        let mut subset = 0u64;
        loop {
            subsets.push((subset, slide(sq, subset, dirs)));
            subset = subset.wrapping_sub(mask) & mask;
            if subset == 0 {
                break;
            }
        }
        'candidates: loop {
            let candidate = rng.next() & rng.next() & rng.next();
            if (mask.wrapping_mul(candidate) >> 56).count_ones() < 6 {
                continue;
            }
            let mut slots = std::collections::HashMap::new();
            for &(occ, att) in &subsets {
                let idx = occ.wrapping_mul(candidate) >> shift;
                if *slots.entry(idx).or_insert(att) != att {
                    continue 'candidates;
                }
            }
            return candidate;
        }
    }

    /// `lines_through` is the line through both squares without them, whichever kind,
    /// and nothing for squares on no common line: checked against `line` and `between`
    /// for every pair of squares.
    #[test]
    fn lines_through_is_the_common_line() {
        for a in 0..64u8 {
            for b in 0..64u8 {
                let (a, b) = (Square::new(a), Square::new(b));
                let (orthogonal, diagonal) = lines_through(a, b);
                let expected = if a == b {
                    Bitboard::EMPTY
                } else {
                    line(a, b) - Bitboard::from_square(a) - Bitboard::from_square(b)
                };
                assert_eq!(orthogonal | diagonal, expected, "{a:?} {b:?}");
                assert!((orthogonal & diagonal).is_empty());
                assert_eq!(
                    orthogonal.nonempty(),
                    rook_rays(a).contains(b) && expected.nonempty()
                );
            }
        }
        // Two squares a knight's jump apart share no line (their rays cross twice).
        assert_eq!(
            lines_through(Square::new(0), Square::new(10)),
            (Bitboard::EMPTY, Bitboard::EMPTY)
        );
    }

    #[test]
    fn magic_numbers_are_rederived_by_the_documented_search() {
        let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
        for (sq, magic) in ROOK_MAGICS.iter().enumerate() {
            assert_eq!(find_magic(sq, &ROOK_DIRS, &mut rng), *magic, "rook {sq}");
        }
        for (sq, magic) in BISHOP_MAGICS.iter().enumerate() {
            assert_eq!(
                find_magic(sq, &BISHOP_DIRS, &mut rng),
                *magic,
                "bishop {sq}"
            );
        }
    }

    #[test]
    fn magic_lookups_match_ray_walks() {
        let mut rng = XorShift(12345);
        for _ in 0..2000 {
            let occ = rng.next() & rng.next();
            for s in Square::all() {
                assert_eq!(
                    rook_attacks(s, Bitboard(occ)).0,
                    slide(s.index(), occ, &ROOK_DIRS)
                );
                assert_eq!(
                    bishop_attacks(s, Bitboard(occ)).0,
                    slide(s.index(), occ, &BISHOP_DIRS)
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
    fn rays_are_empty_board_attacks() {
        for i in 0..64 {
            let s = Square::new(i);
            assert_eq!(rook_rays(s), rook_attacks(s, Bitboard::EMPTY));
            assert_eq!(bishop_rays(s), bishop_attacks(s, Bitboard::EMPTY));
        }
        for a in (0..64).map(Square::new) {
            for b in (0..64).map(Square::new) {
                if rook_rays(a).contains(b) {
                    assert_eq!(between_orthogonal(a, b), between(a, b), "{a} {b}");
                }
                if bishop_rays(a).contains(b) {
                    assert_eq!(between_diagonal(a, b), between(a, b), "{a} {b}");
                }
            }
        }
        assert_eq!(rook_rays(sq("a1")).count(), 14);
        assert_eq!(bishop_rays(sq("d4")).count(), 13);
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
