//! The material index (docs/POSITIONS.md, schema version 9): per material class, the games
//! whose material passes through it, so that a material or imbalance query walks the spans
//! of those games only instead of every game's.
//!
//! A class is the whole material when few men are left (`FEW_MEN`: the endings a
//! signature names), else White's counts less Black's (an imbalance; equal material is not
//! posted: every game has it). A game's posting under a class says how many plies it spent
//! there, as a bound (`ply_class`), so that a query held for N plies drops the games whose
//! matching classes add up to fewer. The layout of a range of games: entries sorted by
//! class, each the class (u32, little-endian), the length of the rest (varint), the number
//! of games, and per game `(id - previous id) << 4 | ply class` as a varint.

use super::index::{get_varint, put_varint};
use super::query::{Counts, Material};
use super::spans::walk;

/// At most this many men (kings included) on the board: the class is the whole material.
pub const FEW_MEN: u32 = 8;
/// The tag of a class that is a difference of counts.
const DIFF: u32 = 1 << 30;
/// Bytes of a row of the index, at most (one page; a longer entry has a row of its own).
pub const ROW_BYTES: usize = 4000;

/// The material class of a position with these counts, None for equal material with more
/// than `FEW_MEN` men (not posted).
pub fn class_of(mat: &[Counts; 2]) -> Option<u32> {
    let men: u32 = 2 + mat.iter().flatten().map(|&n| u32::from(n)).sum::<u32>();
    if men <= FEW_MEN {
        // At most 6 men besides the kings: each count fits 3 bits.
        let mut k = 0;
        for (i, &n) in mat.iter().flatten().enumerate() {
            k |= u32::from(n) << (3 * i);
        }
        return Some(k);
    }
    let d: [i32; 5] = std::array::from_fn(|i| i32::from(mat[0][i]) - i32::from(mat[1][i]));
    if d == [0; 5] {
        return None;
    }
    // Counts are nibbles (at most 15): a difference fits 5 bits biased by 16.
    Some(
        d.iter()
            .enumerate()
            .fold(DIFF, |k, (i, &x)| k | ((x + 16) as u32) << (5 * i)),
    )
}

/// What a class stands for: the whole material, or White's counts less Black's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Whole([Counts; 2]),
    Diff([i8; 5]),
}

pub fn class_material(k: u32) -> Class {
    if k & DIFF != 0 {
        Class::Diff(std::array::from_fn(|i| ((k >> (5 * i)) & 31) as i8 - 16))
    } else {
        let n = |i: usize| ((k >> (3 * i)) & 7) as u8;
        Class::Whole([
            [n(0), n(1), n(2), n(3), n(4)],
            [n(5), n(6), n(7), n(8), n(9)],
        ])
    }
}

/// The plies a posting's class stands for, at most: exact up to 8, then coarser (a query
/// held for N plies drops a game whose bounds add up to fewer; the master games' `down>=3
/// --held 20` kept 3,627 games to walk with powers of two, 2,462 with exact plies).
const PLY_BOUNDS: [u32; 16] = [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 20, 24, 32, 48, u32::MAX];
/// Bits of a posting for its ply class.
const PLY_BITS: u32 = 4;

/// The ply class of `plies`: the first of `PLY_BOUNDS` not below it.
pub fn ply_class(plies: u32) -> u8 {
    PLY_BOUNDS.partition_point(|&b| b < plies) as u8
}

/// The most plies a `ply_class` stands for.
pub fn ply_bound(class: u8) -> u32 {
    PLY_BOUNDS[usize::from(class) & 15]
}

/// A game's postings from its spans record (`spans::encode`): each class it passes
/// through with its `ply_class`. None when the record does not decode (no postings: the
/// spans' walk finds no match in it either).
pub fn postings(record: &[u8]) -> Option<Vec<(u32, u8)>> {
    let mut plies: Vec<(u32, u32)> = Vec::new();
    let complete = walk(record, |mat, from, to| {
        if let Some(k) = class_of(mat) {
            let n = to + 1 - from;
            match plies.iter_mut().find(|(c, _)| *c == k) {
                Some((_, p)) => *p += n,
                None => plies.push((k, n)),
            }
        }
        true
    });
    if !complete || record.is_empty() {
        return None;
    }
    Some(plies.into_iter().map(|(k, n)| (k, ply_class(n))).collect())
}

/// The rows of a range of games from `first_game` (ascending ids, each with its
/// postings): `(class of the row's first entry, entries)`, up to `ROW_BYTES` a row.
pub fn build_rows(first_game: u32, games: &[(u32, &[(u32, u8)])]) -> Vec<(u32, Vec<u8>)> {
    // (class, game, ply class) packed in a u64 (the game as its offset from `first_game`):
    // plain integers sort fastest.
    let mut all: Vec<u64> = Vec::with_capacity(games.iter().map(|(_, p)| p.len()).sum());
    for &(g, postings) in games {
        let off = u64::from(g - first_game) << PLY_BITS;
        all.extend(
            postings
                .iter()
                .map(|&(k, c)| u64::from(k) << 32 | off | u64::from(c & 15)),
        );
    }
    all.sort_unstable();
    let mut rows: Vec<(u32, Vec<u8>)> = Vec::new();
    let (mut body, mut entry) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < all.len() {
        let k = (all[i] >> 32) as u32;
        let j = i + all[i..].partition_point(|&p| (p >> 32) as u32 == k);
        body.clear();
        put_varint((j - i) as u64, &mut body);
        let mut prev = 0u64;
        for &p in &all[i..j] {
            let off = (p & 0xFFFF_FFFF) >> PLY_BITS;
            put_varint((off - prev) << PLY_BITS | (p & 15), &mut body);
            prev = off;
        }
        entry.clear();
        entry.extend_from_slice(&k.to_le_bytes());
        put_varint(body.len() as u64, &mut entry);
        entry.extend_from_slice(&body);
        match rows.last_mut() {
            Some((_, row)) if row.len() + entry.len() <= ROW_BYTES => row.extend_from_slice(&entry),
            _ => rows.push((k, entry.clone())),
        }
        i = j;
    }
    rows
}

/// Calls `each(game, ply bound)` for the games of each entry of a row (from `first_game`)
/// whose class `wanted` accepts. False when the row does not decode.
pub fn each_posting(
    first_game: u32,
    row: &[u8],
    mut wanted: impl FnMut(u32) -> bool,
    mut each: impl FnMut(u32, u32),
) -> bool {
    let mut at = 0;
    while at < row.len() {
        let Some(k) = row.get(at..at + 4) else {
            return false;
        };
        let k = u32::from_le_bytes([k[0], k[1], k[2], k[3]]);
        at += 4;
        let Some(len) = get_varint(row, &mut at) else {
            return false;
        };
        let Some(body) = row.get(at..at + len as usize) else {
            return false;
        };
        at += len as usize;
        if !wanted(k) {
            continue;
        }
        let mut b = 0;
        let Some(n) = get_varint(body, &mut b) else {
            return false;
        };
        let mut g = first_game;
        for _ in 0..n {
            // Most postings are one or two bytes: read inline.
            let v = match body.get(b..b + 2) {
                Some(&[x, _]) if x < 0x80 => {
                    b += 1;
                    u64::from(x)
                }
                Some(&[x, y]) if y < 0x80 => {
                    b += 2;
                    u64::from(x & 0x7f) | u64::from(y) << 7
                }
                _ => {
                    let Some(v) = get_varint(body, &mut b) else {
                        return false;
                    };
                    v
                }
            };
            g += (v >> PLY_BITS) as u32;
            each(g, PLY_BOUNDS[(v & 15) as usize]);
        }
    }
    true
}

/// Which classes a material query reads, made once for a search: the query's test and its
/// colour flip on each class. None when the index cannot answer it (a side left free, or
/// equal material among many men, which is not posted): the caller walks every game.
#[derive(Debug, Clone)]
pub struct Sieve {
    tests: Vec<Material>,
}

impl Sieve {
    pub fn new(material: &Material, mirror: bool) -> Option<Sieve> {
        let mut tests = vec![material.clone()];
        if mirror {
            tests.push(material.mirrored());
        }
        for t in &tests {
            match t {
                Material::Signature([Some(w), Some(b)]) => {
                    let men: u32 = 2 + w.iter().chain(b).map(|&n| u32::from(n)).sum::<u32>();
                    if men > FEW_MEN && w == b {
                        return None;
                    }
                }
                Material::Signature(_) => return None,
                Material::Imbalance { more, less, minors } => {
                    let diffs = super::query::imbalance_diffs(more, less, *minors);
                    if diffs.contains(&[0; 5]) {
                        return None;
                    }
                }
                Material::Down(..) => {}
            }
        }
        Some(Sieve { tests })
    }

    /// Whether a position of class `k` may match (its games are then candidates). For a
    /// difference this is exact but for a signature of many men, which it only bounds.
    pub fn wants(&self, k: u32) -> bool {
        match class_material(k) {
            Class::Whole(mat) => self.tests.iter().any(|t| t.matches(&mat)),
            Class::Diff(d) => self.tests.iter().any(|t| diff_may_match(t, &d)),
        }
    }
}

/// Whether some material with more than `FEW_MEN` men and White's counts less Black's `d`
/// may match `t`.
fn diff_may_match(t: &Material, d: &[i8; 5]) -> bool {
    match t {
        Material::Signature([Some(w), Some(b)]) => {
            let men: u32 = 2 + w.iter().chain(b).map(|&n| u32::from(n)).sum::<u32>();
            men > FEW_MEN && (0..5).all(|i| w[i] as i8 - b[i] as i8 == d[i])
        }
        Material::Signature(_) => true,
        // An imbalance and points depend on the difference alone: the counts it is made of
        // give it.
        _ => {
            let mut mat = [[0u8; 5]; 2];
            for i in 0..5 {
                mat[0][i] = d[i].max(0) as u8;
                mat[1][i] = (-d[i]).max(0) as u8;
            }
            t.matches(&mat)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Position;
    use crate::positions::query::parse_material;
    use crate::positions::spans::{SpanQuery, encode};

    #[test]
    fn classes_round_trip_and_ply_bounds_hold() {
        let end = [[0, 1, 0, 0, 1], [0, 1, 0, 0, 0]];
        let k = class_of(&end).unwrap();
        assert_eq!(class_material(k), Class::Whole(end));
        let mid = [[1, 2, 1, 2, 6], [1, 1, 2, 2, 8]];
        assert_eq!(
            class_material(class_of(&mid).unwrap()),
            Class::Diff([0, 1, -1, 0, -2])
        );
        assert_eq!(class_of(&[[1, 2, 2, 2, 8]; 2]), None);
        // Bare kings and equal endings are posted.
        assert_eq!(
            class_material(class_of(&[[0; 5]; 2]).unwrap()),
            Class::Whole([[0; 5]; 2])
        );
        for p in 1..200 {
            let c = ply_class(p);
            assert!(ply_bound(c) >= p, "{p}");
            assert!(c == 0 || ply_bound(c - 1) < p, "{p}");
        }
    }

    /// Every game a query matches is among the postings the sieve reads, with plies enough.
    #[test]
    fn the_sieve_keeps_every_game_a_walk_of_the_spans_matches() {
        let games = [
            "e4 e5 Nf3 Nc6 Bc4 Nf6 d3 Be7 O-O O-O Re1 d6 c3 Be6 Bxe6 fxe6 d4 exd4 cxd4 d5 e5 Ne4 Nc3 Nxc3 bxc3 Rxf3 Qxf3 Qd7",
            "e4 d5 exd5 Qxd5 Nc3 Qa5 d4 c6 Nf3 Nf6 Bd2 Bf5 Nd5 Qxd5 c4 Qe4+ Be2 Bg4 h3 Bxf3 gxf3 Qxd4",
            "d4 d5 c4 e6 Nc3 Nf6 cxd5 exd5 Bg5 Be7 e3 O-O Bd3 Nbd7 Nf3 Re8 O-O c6 Qc2 Nf8 Bxf6 Bxf6 b4 a6 a4 Be7 b5 axb5 axb5 Rxa1 Rxa1 cxb5 Nxb5 Qb6",
        ];
        let mut records = Vec::new();
        for g in games {
            let s = Position::new();
            let mut rec = Vec::new();
            encode(&s, &crate::chess::san::line(s, g), &mut rec);
            records.push(rec);
        }
        let s = Position::from_fen("4k3/1P6/8/8/8/8/6p1/4K2R b K - 0 1").unwrap();
        let mut rec = Vec::new();
        encode(
            &s,
            &crate::chess::san::line(s, "gxh1=N b8=Q+ Kd7 Qb7+"),
            &mut rec,
        );
        records.push(rec);
        let mut matched = 0;
        for text in [
            "down>=1",
            "down>=3",
            "white-down>=2",
            "black-down>=1",
            "N vs PP",
            "R vs mPP",
            "Q vs N",
            "KQR2B2NP5KQR2B2N2P7",
            "KQR2B2N2P6KQR2B2N2P7",
            "KQKN",
            "KNKP",
            "KRKN",
        ] {
            let m = parse_material(text).unwrap();
            for (held, mirror) in [(1, false), (1, true), (3, false), (5, true)] {
                let sieve = Sieve::new(&m, mirror).unwrap();
                let q = SpanQuery::new(&m, held, mirror);
                for rec in &records {
                    let Some(p) = q.first_match_packed(rec) else {
                        continue;
                    };
                    matched += 1;
                    let bound: u32 = postings(rec)
                        .unwrap()
                        .iter()
                        .filter(|(k, _)| sieve.wants(*k))
                        .map(|&(_, c)| ply_bound(c))
                        .fold(0, u32::saturating_add);
                    assert!(bound >= held, "{text} held {held} at {p}");
                }
            }
        }
        assert!(matched >= 20, "{matched}");
        // Forms the index does not answer.
        for text in ["QR2B2N2P8", "KQR2B2N2P8KQR2B2N2P8", "m vs m"] {
            assert!(Sieve::new(&parse_material(text).unwrap(), false).is_none());
        }
    }

    #[test]
    fn rows_give_back_every_posting() {
        let a = [(5u32, 0u8), (DIFF | 77, 3)];
        let b = [(5u32, 7u8)];
        let rows = build_rows(10, &[(10, &a[..]), (13, &b[..])]);
        let mut got = Vec::new();
        for (_, row) in &rows {
            assert!(each_posting(10, row, |_| true, |g, p| got.push((g, p))));
        }
        assert_eq!(got, [(10, 1), (13, 8), (10, 4)]);
        let mut only = Vec::new();
        each_posting(10, &rows[0].1, |k| k == DIFF | 77, |g, p| only.push((g, p)));
        assert_eq!(only, [(10, 4)]);
        // Postings of one, two and three bytes (ids 1, 200 and 3,000 apart).
        let c = [(9u32, 2u8)];
        let games = [(10, &c[..]), (11, &c[..]), (211, &c[..]), (3211, &c[..])];
        let rows = build_rows(10, &games);
        let mut got = Vec::new();
        for (_, row) in &rows {
            assert!(each_posting(10, row, |_| true, |g, _| got.push(g)));
        }
        assert_eq!(got, [10, 11, 211, 3211]);
    }
}
