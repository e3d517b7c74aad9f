//! Material spans of a game (docs/POSITIONS.md): the material changes only at a capture or
//! a promotion, so a game's material at every ply is its start material and the list of
//! those events. Stored per game (about one byte an event), a material or imbalance query,
//! held for N plies or not, reads the spans instead of replaying the game.
//!
//! A record: varint `plies << 1 | custom`; for a custom start, the side to move (a byte)
//! and both sides' counts (`Counts`, a nibble each, 5 bytes); then one byte an event: the
//! plies since the previous event in the top 3 bits (0: a varint follows with them), and in
//! the low 5 the piece taken (none, Q R B N P: 0 to 5) × 5 + the piece promoted to (none,
//! Q R B N: 0 to 4). The side that moved is known from the ply.

use super::index::{get_varint, put_varint};
use super::query::{Counts, Material, VALUES, counts, imbalance_diffs};
use crate::chess::{Color, Move, Position, Role};
use crate::positions::matcher::board_of;

const STANDARD: [Counts; 2] = [[1, 2, 2, 2, 8], [1, 2, 2, 2, 8]];

/// `Counts`' slot of a role (Q R B N P), None for the king.
fn slot(role: Role) -> Option<usize> {
    match role {
        Role::Queen => Some(0),
        Role::Rook => Some(1),
        Role::Bishop => Some(2),
        Role::Knight => Some(3),
        Role::Pawn => Some(4),
        Role::King => None,
    }
}

/// The game's record (legal `moves` from `start`), appended to `out`.
pub fn encode(start: &Position, moves: &[Move], out: &mut Vec<u8>) {
    let mut record = Record::start(start, moves.len(), out);
    let mut pos = *start;
    for (i, &m) in moves.iter().enumerate() {
        record.push(i + 1, pos.captured_role(m), m.promotion_role());
        pos.play_unchecked(m);
    }
}

/// A record written move by move, by a caller that replays the game anyway
/// (`index::game_entry`).
pub struct Record<'a> {
    out: &'a mut Vec<u8>,
    last: usize,
}

impl<'a> Record<'a> {
    /// The record's head: the plies, and for a custom start its side to move and material.
    pub fn start(start: &Position, plies: usize, out: &'a mut Vec<u8>) -> Record<'a> {
        let custom = *start != Position::new();
        put_varint((plies as u64) << 1 | u64::from(custom), out);
        if custom {
            out.push(u8::from(start.turn() == Color::Black));
            let c = counts(&board_of(start));
            let n: Vec<u8> = c.iter().flatten().map(|&x| x.min(15)).collect();
            for pair in n.chunks(2) {
                out.push(pair[0] | pair[1] << 4);
            }
        }
        Record { out, last: 0 }
    }

    /// The `ply`-th move, which took `taken` and promoted to `promoted`.
    pub fn push(&mut self, ply: usize, taken: Option<Role>, promoted: Option<Role>) {
        let taken = taken.and_then(slot).map_or(0, |s| s + 1);
        let promoted = promoted.and_then(slot).map_or(0, |s| s + 1);
        if taken == 0 && promoted == 0 {
            return;
        }
        let code = (taken * 5 + promoted) as u8;
        let delta = ply - self.last;
        self.last = ply;
        if delta < 8 {
            self.out.push((delta as u8) << 5 | code);
        } else {
            self.out.push(code);
            put_varint(delta as u64, self.out);
        }
    }
}

/// Calls `each(material, first ply, last ply)` for each span of equal material of a record,
/// in order, while it returns true. False when the record does not decode.
pub fn walk(record: &[u8], mut each: impl FnMut(&[Counts; 2], u32, u32) -> bool) -> bool {
    let mut at = 0;
    let Some(head) = get_varint(record, &mut at) else {
        return false;
    };
    let plies = (head >> 1) as u32;
    let (mut mat, mut black_first) = (STANDARD, false);
    if head & 1 == 1 {
        let Some(b) = record.get(at..at + 6) else {
            return false;
        };
        black_first = b[0] == 1;
        for i in 0..10 {
            let nib = (b[1 + i / 2] >> (4 * (i % 2))) & 15;
            mat[i / 5][i % 5] = nib;
        }
        at += 6;
    }
    let mut from = 0u32;
    let mut ply = 0u32;
    while at < record.len() {
        let b = record[at];
        at += 1;
        let delta = match b >> 5 {
            0 => match get_varint(record, &mut at) {
                Some(d) => d as u32,
                None => return false,
            },
            d => u32::from(d),
        };
        ply += delta;
        if ply == 0 || ply > plies {
            return false;
        }
        if !each(&mat, from, ply - 1) {
            return true;
        }
        from = ply;
        // The side that made the ply-th move.
        let mover = usize::from((ply % 2 == 1) == black_first);
        let code = b & 31;
        let (taken, promoted) = ((code / 5) as usize, (code % 5) as usize);
        if taken > 0 {
            let c = &mut mat[1 - mover][taken - 1];
            *c = c.saturating_sub(1);
        }
        if promoted > 0 {
            mat[mover][4] = mat[mover][4].saturating_sub(1);
            mat[mover][promoted - 1] += 1;
        }
    }
    each(&mat, from, plies);
    true
}

/// The first ply at which `material` (or its colour flip, with `mirror`) holds for `held`
/// plies, as `Matcher::first_match` finds it for a material-only query.
pub fn first_match(record: &[u8], material: &Material, held: u32, mirror: bool) -> Option<u32> {
    let flipped = mirror.then(|| material.mirrored());
    let tests = [Some(material), flipped.as_ref()];
    first_held(record, held.max(1), |s, mat| {
        tests[s].map(|m| m.matches(mat))
    })
}

/// The first ply from which one of two tests holds for `held` plies in a row on a game's
/// record: `test(s, material)` answers test `s` (0 the query, 1 its colour flip), or `None`
/// when there is no such test.
#[inline]
fn first_held(
    record: &[u8],
    held: u32,
    test: impl Fn(usize, &[Counts; 2]) -> Option<bool>,
) -> Option<u32> {
    let mut run: [Option<u32>; 2] = [None, None];
    let mut found = None;
    walk(record, |mat, from, to| {
        let mut best: Option<u32> = None;
        for (s, start_of_run) in run.iter_mut().enumerate() {
            match test(s, mat) {
                None => {}
                Some(true) => {
                    let start = *start_of_run.get_or_insert(from);
                    if to + 1 - start >= held {
                        best = Some(best.map_or(start, |b: u32| b.min(start)));
                    }
                }
                Some(false) => *start_of_run = None,
            }
        }
        found = best;
        best.is_none()
    });
    found
}

/// A material query prepared for the records of many games: `first_match` with the colour
/// flip made once, and the fewest events (captures and promotions, a byte each at least) a
/// game from the standard position needs to reach the material: most records of a query
/// like `KRPKR` are shorter and are not walked.
#[derive(Debug, Clone)]
pub struct SpanQuery {
    material: Test,
    flipped: Option<Test>,
    held: u32,
    min_events: usize,
}

/// `Material::matches` in the form cheapest to test on every span of every game.
#[derive(Debug, Clone)]
enum Test {
    Signature([Option<Counts>; 2]),
    /// White's counts less Black's, any of these.
    Diffs(Vec<[i8; 5]>),
    /// White's points less Black's: at least this, or (either side) its absolute value.
    Down {
        white_less: bool,
        either: bool,
        points: i32,
    },
}

impl Test {
    fn new(m: &Material) -> Test {
        match m {
            Material::Signature(sides) => Test::Signature(*sides),
            Material::Imbalance { more, less, minors } => {
                Test::Diffs(imbalance_diffs(more, less, *minors))
            }
            Material::Down(side, points) => Test::Down {
                white_less: *side == Some(Color::White),
                either: side.is_none(),
                points: *points,
            },
        }
    }

    #[inline]
    fn matches(&self, mat: &[Counts; 2]) -> bool {
        match self {
            Test::Signature([w, b]) => {
                w.is_none_or(|w| w == mat[0]) && b.is_none_or(|b| b == mat[1])
            }
            Test::Diffs(diffs) => {
                let d: [i8; 5] = std::array::from_fn(|i| mat[0][i] as i8 - mat[1][i] as i8);
                diffs.contains(&d)
            }
            Test::Down {
                white_less,
                either,
                points,
            } => {
                let mut diff = 0;
                for i in 0..5 {
                    diff += (i32::from(mat[0][i]) - i32::from(mat[1][i])) * VALUES[i];
                }
                if *either {
                    diff.abs() >= *points
                } else if *white_less {
                    -diff >= *points
                } else {
                    diff >= *points
                }
            }
        }
    }
}

impl SpanQuery {
    pub fn new(material: &Material, held: u32, mirror: bool) -> SpanQuery {
        let min_events = match material {
            // Each side's men taken: a capture each.
            Material::Signature(sides) => sides
                .iter()
                .flatten()
                .map(|c| 15usize.saturating_sub(c.iter().map(|&n| usize::from(n)).sum()))
                .sum(),
            // Equal material is the start's: an imbalance needs an event.
            Material::Imbalance { .. } => 1,
            Material::Down(_, points) => usize::from(*points > 0),
        };
        SpanQuery {
            material: Test::new(material),
            flipped: mirror.then(|| Test::new(&material.mirrored())),
            held: held.max(1),
            min_events,
        }
    }

    /// `first_match` of the query on one game's record.
    pub fn first_match(&self, record: &[u8]) -> Option<u32> {
        let mut at = 0;
        let head = get_varint(record, &mut at)?;
        if head & 1 == 0 && record.len() - at < self.min_events {
            return None;
        }
        first_held(record, self.held, |s, mat| match s {
            0 => Some(self.material.matches(mat)),
            _ => self.flipped.as_ref().map(|f| f.matches(mat)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::positions::Matcher;
    use crate::positions::query::{Query, parse_material};

    use crate::chess::san::line as game;

    #[test]
    fn spans_follow_captures_and_promotions_and_agree_with_the_matcher() {
        let s = Position::new();
        let g = game(
            s,
            "e4 d5 exd5 Qxd5 Nc3 Qa5 d4 c6 Nf3 Nf6 Bd2 Bf5 Nd5 Qxd5 c4 Qe4+ Be2 Bg4 h3 Bxf3 gxf3 Qxd4",
        );
        let mut rec = Vec::new();
        encode(&s, &g, &mut rec);
        let mut spans = Vec::new();
        assert!(walk(&rec, |m, a, b| {
            spans.push((m[0][4], m[1][4], m[0][3], a, b));
            true
        }));
        // Pawns and White's knights: 8/8 to ply 2, 8/7 (exd5) to 3, 7/7 (Qxd5) to 13, a
        // knight gone (Qxd5) to 19, the other (Bxf3), the bishop back (gxf3), d4 taken.
        assert_eq!(
            spans,
            [
                (8, 8, 2, 0, 2),
                (8, 7, 2, 3, 3),
                (7, 7, 2, 4, 13),
                (7, 7, 1, 14, 19),
                (7, 7, 0, 20, 20),
                (7, 7, 0, 21, 21),
                (6, 7, 0, 22, 22)
            ]
        );
        for (text, held, mirror) in [
            ("down>=1", 1, false),
            ("down>=1", 2, false),
            ("down>=3", 1, true),
            ("white-down>=3", 3, false),
            ("black-down>=3", 1, false),
            ("QR2B2N2P7", 1, false),
            ("KQR2B2NP5KQR2B2N2P7", 1, true),
            ("KQR2B2NP6KQR2B2N2P7", 4, false),
            ("N vs PP", 1, false),
        ] {
            let m = parse_material(text).unwrap();
            let mut q = Query {
                material: Some(m.clone()),
                held,
                ..Query::default()
            };
            q.identity.mirror = mirror;
            assert_eq!(
                first_match(&rec, &m, held, mirror),
                Matcher::new(&q).first_match(&s, &g),
                "{text} held {held}"
            );
            assert_eq!(
                SpanQuery::new(&m, held, mirror).first_match(&rec),
                first_match(&rec, &m, held, mirror),
                "{text} held {held}"
            );
        }
    }

    #[test]
    fn custom_starts_and_promotions() {
        let s = Position::from_fen("4k3/1P6/8/8/8/8/6p1/4K2R b K - 0 1").unwrap();
        let g = game(s, "gxh1=N b8=Q+ Kd7 Qb7+");
        let mut rec = Vec::new();
        encode(&s, &g, &mut rec);
        let mut spans = Vec::new();
        walk(&rec, |m, a, b| {
            spans.push((m[0], m[1], a, b));
            true
        });
        assert_eq!(
            spans,
            [
                ([0, 1, 0, 0, 1], [0, 0, 0, 0, 1], 0, 0),
                ([0, 0, 0, 0, 1], [0, 0, 0, 1, 0], 1, 1),
                ([1, 0, 0, 0, 0], [0, 0, 0, 1, 0], 2, 4)
            ]
        );
    }
}
