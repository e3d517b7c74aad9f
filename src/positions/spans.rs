//! Material spans of a game (docs/POSITIONS.md): the material changes only at a capture or
//! a promotion, so a game's material at every ply is its start material and the list of
//! those events. Stored per game (about one byte an event), a material or imbalance query,
//! held for N plies or not, reads the spans instead of replaying the game, and a scan of
//! the other forms reads them first to skip the games and plies that cannot match
//! (`ScanFilter`).
//!
//! A record: varint `plies << 1 | custom`; for a custom start, the side to move (a byte)
//! and both sides' counts (`Counts`, a nibble each, 5 bytes); then one byte an event: the
//! plies since the previous event in the top 3 bits (0: a varint follows with them), and in
//! the low 5 the piece taken (none, Q R B N P: 0 to 5) × 5 + the piece promoted to (none,
//! Q R B N: 0 to 4). The side that moved is known from the ply.

use super::index::{get_varint, put_varint};
use super::query::{Counts, Material, Needs, Query, VALUES, counts, imbalance_diffs};
use super::query::{Pattern, Pawns};
use super::summary::{SummaryTest, Verdict};
use crate::chess::{Color, Move, Position, Role, San, Square};
use crate::positions::matcher::{ScanBoard, board_of};

const STANDARD: [Counts; 2] = [[1, 2, 2, 2, 8], [1, 2, 2, 2, 8]];

/// `Counts`' slot of a role (Q R B N P), None for the king.
pub(super) fn slot(role: Role) -> Option<usize> {
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
        mat = header_material(b);
        at += 6;
    }
    let mut from = 0u32;
    let mut ply = 0u32;
    while at < record.len() {
        let Some((delta, code)) = next_event(record, &mut at) else {
            return false;
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
    packed: PackedTest,
    packed_flipped: Option<PackedTest>,
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
                down_by(diff, *white_less, *either, *points)
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
            // Equal material is the start's: an imbalance needs an event, unless it
            // allows equal material (`m vs m`: a bishop against a bishop).
            Material::Imbalance { more, less, minors } => {
                usize::from(!imbalance_diffs(more, less, *minors).contains(&[0; 5]))
            }
            Material::Down(_, points) => usize::from(*points > 0),
        };
        let test = Test::new(material);
        let flipped = mirror.then(|| Test::new(&material.mirrored()));
        SpanQuery {
            packed: PackedTest::new(&test),
            packed_flipped: flipped.as_ref().map(PackedTest::new),
            material: test,
            flipped,
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

    /// `first_match` on a packed material state (`Packed`), updated event by event: the
    /// scan of every game's record at a million games (`first_match` walks arrays and asks
    /// a list for each span; this is several times faster). The tests compare the two.
    pub fn first_match_packed(&self, record: &[u8]) -> Option<u32> {
        let mut at = 0;
        let head = get_varint(record, &mut at)?;
        let custom = head & 1 == 1;
        if !custom && record.len() - at < self.min_events {
            return None;
        }
        let plies = (head >> 1) as u32;
        let (mut st, mut black_first) = (Packed::of(&STANDARD), false);
        if custom {
            let b = record.get(at..at + 6)?;
            black_first = b[0] == 1;
            st = Packed::of(&header_material(b));
            at += 6;
        }
        let tests = [Some(&self.packed), self.packed_flipped.as_ref()];
        let held = self.held;
        // Per test: where its current run of matching spans began.
        let mut run: [Option<u32>; 2] = [None, None];
        let mut from = 0u32;
        let mut ply = 0u32;
        loop {
            let (to, next) = if at < record.len() {
                let (delta, code) = next_event(record, &mut at)?;
                ply += delta;
                if ply == 0 || ply > plies {
                    return None;
                }
                (ply - 1, Some(code))
            } else {
                (plies, None)
            };
            // The span `from..=to` has the material `st`.
            let mut best: Option<u32> = None;
            for (s, test) in tests.iter().enumerate() {
                let Some(test) = test else { continue };
                if test.matches(&st) {
                    let start = *run[s].get_or_insert(from);
                    if to + 1 - start >= held {
                        best = Some(best.map_or(start, |b: u32| b.min(start)));
                    }
                } else {
                    run[s] = None;
                }
            }
            if best.is_some() {
                return best;
            }
            let code = next?;
            from = ply;
            let mover = usize::from((ply % 2 == 1) == black_first);
            st.apply(mover, code);
        }
    }
}

/// Counts' slots (Q R B N P) a byte each, the queen lowest.
fn pack_side(c: &Counts) -> u64 {
    c.iter()
        .enumerate()
        .fold(0, |acc, (i, &n)| acc | u64::from(n) << (8 * i))
}

/// A material state for the span scan: each side's counts packed (`pack_side`) and points.
#[derive(Debug, Clone, Copy)]
struct Packed {
    side: [u64; 2],
    points: [i32; 2],
}

impl Packed {
    fn of(mat: &[Counts; 2]) -> Packed {
        let points = |c: &Counts| (0..5).map(|i| i32::from(c[i]) * VALUES[i]).sum();
        Packed {
            side: [pack_side(&mat[0]), pack_side(&mat[1])],
            points: [points(&mat[0]), points(&mat[1])],
        }
    }

    /// An event (`Record::push`'s code) by the side `mover`: counts saturate at 0 and
    /// grow on promotion as `walk` has them.
    #[inline]
    fn apply(&mut self, mover: usize, code: u8) {
        let (taken, promoted) = ((code / 5) as usize, (code % 5) as usize);
        if taken > 0 {
            let shift = 8 * (taken - 1);
            let other = &mut self.side[1 - mover];
            if (*other >> shift) & 0xff > 0 {
                *other -= 1 << shift;
                self.points[1 - mover] -= VALUES[taken - 1];
            }
        }
        if promoted > 0 {
            let mine = &mut self.side[mover];
            if (*mine >> 32) & 0xff > 0 {
                *mine -= 1 << 32;
                self.points[mover] -= VALUES[4];
            }
            *mine += 1 << (8 * (promoted - 1));
            self.points[mover] += VALUES[promoted - 1];
        }
    }
}

/// `Test` on a packed state.
#[derive(Debug, Clone)]
enum PackedTest {
    /// Each side's packed counts, or None: free.
    Signature([Option<u64>; 2]),
    /// White's counts less Black's, each byte biased by 16 (`BIAS`): any of these.
    Diffs(Vec<u64>),
    Down {
        white_less: bool,
        either: bool,
        points: i32,
    },
}

const BIAS: u64 = 0x10_1010_1010;

impl PackedTest {
    fn new(t: &Test) -> PackedTest {
        match t {
            Test::Signature(sides) => {
                PackedTest::Signature(sides.map(|c| c.map(|c| pack_side(&c))))
            }
            Test::Diffs(diffs) => PackedTest::Diffs(
                diffs
                    .iter()
                    .map(|d| {
                        d.iter()
                            .enumerate()
                            .fold(0, |acc, (i, &x)| acc | ((x as i64 + 16) as u64) << (8 * i))
                    })
                    .collect(),
            ),
            Test::Down {
                white_less,
                either,
                points,
            } => PackedTest::Down {
                white_less: *white_less,
                either: *either,
                points: *points,
            },
        }
    }

    #[inline]
    fn matches(&self, st: &Packed) -> bool {
        match self {
            PackedTest::Signature([w, b]) => {
                w.is_none_or(|w| w == st.side[0]) && b.is_none_or(|b| b == st.side[1])
            }
            // Counts are at most 15: no byte borrows from the next.
            PackedTest::Diffs(diffs) => diffs.contains(&(st.side[0] + BIAS - st.side[1])),
            PackedTest::Down {
                white_less,
                either,
                points,
            } => down_by(st.points[0] - st.points[1], *white_less, *either, *points),
        }
    }
}

/// What a scan may skip, read from a game's record before any replay (docs/POSITIONS.md):
/// the plies whose material the query's forms allow (a pattern's pieces, a pawn
/// structure's counts, the material asked), and for a move sequence the plies whose next
/// moves capture and promote as the sequence does (a SAN move says whether it takes and
/// what it promotes to; a move taking on the square the sequence's previous move went to
/// takes that piece). A game without such a ply is not replayed; the others only up to the
/// last one (and the plies a sequence or a held material needs after it).
#[derive(Debug, Clone)]
pub struct ScanFilter {
    /// Per side (the query, its colour flip): the bounds of its patterns and pawns, and
    /// its material test.
    sides: Vec<(Needs, Option<Test>)>,
    /// Per move of the sequence: its event code (`Record::push`'s taken × 5 + promoted),
    /// with the taken piece 0 when any capture will do, or None: no capture, no promotion.
    moves: Vec<SeqEvent>,
    /// Plies replayed after the last candidate: the sequence's moves, or the material's
    /// held plies.
    pub after: u32,
    /// Some side bounds nothing and tests no material: every material passes.
    any_material: bool,
    /// What the games' summaries are asked first (`summary`).
    summary: SummaryTest,
}

/// The buffers `ScanFilter::window_in` fills for each record, kept across the records a
/// scan plans (a fresh set of vectors per game was a tenth of a sequence scan's planning).
#[derive(Debug, Default)]
pub struct WindowScratch {
    events: Vec<(u32, u8)>,
    spans: Vec<(u32, u32)>,
    all: Vec<(u32, u32, [Counts; 2])>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct SeqEvent {
    capture: bool,
    /// The piece taken (`slot` + 1) when the sequence tells it, else 0.
    taken: u8,
    /// The piece promoted to (`slot` + 1), 0 for none.
    promoted: u8,
    /// The moving piece's `slot` (None: the king, or castling): its side has one.
    piece: Option<usize>,
}

/// What a scan does with one game (`ScanFilter::window`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    /// No ply can match.
    Skip,
    /// Replay up to this ply (the game may be shorter).
    UpTo(u32),
}

impl ScanFilter {
    pub fn new(q: &Query) -> ScanFilter {
        let needs = q.needs();
        let mut sides = vec![(needs, q.material.as_ref().map(Test::new))];
        if q.identity.mirror {
            let m = q.material.as_ref().map(|m| Test::new(&m.mirrored()));
            sides.push((needs.mirrored(), m));
        }
        let mut moves = Vec::new();
        if let Some(seq) = &q.sequence {
            let mut before: Option<(Square, Role)> = None;
            for (san, _) in &seq.moves {
                let ev = match *san {
                    San::Normal {
                        role,
                        capture,
                        to,
                        promotion,
                        ..
                    } => {
                        let taken = match before {
                            Some((sq, r)) if capture && sq == to => slot(r).map_or(0, |s| s + 1),
                            _ => 0,
                        };
                        before = Some((to, promotion.unwrap_or(role)));
                        SeqEvent {
                            capture,
                            taken: taken as u8,
                            promoted: promotion.and_then(slot).map_or(0, |s| s as u8 + 1),
                            piece: slot(role),
                        }
                    }
                    San::Castle(_) => {
                        before = None;
                        SeqEvent {
                            capture: false,
                            taken: 0,
                            promoted: 0,
                            piece: None,
                        }
                    }
                };
                moves.push(ev);
            }
        }
        let after = (moves.len() as u32).max(q.held.max(1) - 1);
        let any_material = sides.iter().any(|(n, t)| n.is_free() && t.is_none());
        let flipped: Vec<Pattern> = q.patterns.iter().map(Pattern::mirrored).collect();
        let flipped_pawns = q.pawns.as_ref().map(Pawns::mirrored);
        let captures: Vec<(bool, usize, Option<usize>)> = moves
            .iter()
            .map(|m| {
                let taken = (m.taken > 0).then(|| usize::from(m.taken) - 1);
                (m.capture, m.piece.unwrap_or(5), taken)
            })
            .collect();
        let summary = SummaryTest::new(
            [&q.patterns, &flipped],
            [q.pawns.as_ref(), flipped_pawns.as_ref()],
            q.identity.mirror,
            &captures,
        );
        ScanFilter {
            sides,
            moves,
            after,
            any_material,
            summary,
        }
    }

    /// Whether the games' summaries can rule anything out for this query.
    pub fn asks_summaries(&self) -> bool {
        !self.summary.is_free()
    }

    /// `window_in`, the game's summary (`summary::Summary`'s record; empty: none) asked
    /// first: a game it rules out is skipped before its spans are walked, and one that can
    /// match only at its start is read no further than the plies after it.
    pub fn window_summarised(
        &self,
        record: &[u8],
        summary: &[u8],
        scratch: &mut WindowScratch,
    ) -> Window {
        match self.summary.verdict(summary) {
            Verdict::Never => Window::Skip,
            Verdict::StartOnly => match self.window_in(record, scratch) {
                Window::UpTo(limit) => Window::UpTo(limit.min(self.after)),
                Window::Skip => Window::Skip,
            },
            Verdict::Any => self.window_in(record, scratch),
        }
    }

    /// Whether some side's home pawns are all where the query needs them: once none is,
    /// no later position matches (a pawn never comes back to its home square).
    pub fn home_alive<B: ScanBoard>(&self, pos: &B) -> bool {
        self.sides.iter().any(|(n, _)| n.home_ok(pos))
    }

    /// Whether `home_alive` can ever be false (some side needs a home pawn): else a scan
    /// need not ask it at every ply.
    pub fn needs_home(&self) -> bool {
        self.sides.iter().all(|(n, _)| n.home != [0, 0])
    }

    /// Whether any side's bounds and material hold for this material.
    #[inline]
    fn material_ok(&self, mat: &[Counts; 2]) -> bool {
        self.any_material
            || self
                .sides
                .iter()
                .any(|(n, t)| n.material_ok(mat) && t.as_ref().is_none_or(|t| t.matches(mat)))
    }

    /// Whether the sequence's moves can start after ply `p`: `events` are the record's
    /// (ply, code) in order, `plies` the game's length, `all` its spans (first ply, last
    /// ply, material) and `black_first` whether Black made its first move: each move's
    /// piece must be among its side's men.
    fn sequence_fits(
        &self,
        events: &[(u32, u8)],
        all: &[(u32, u32, [Counts; 2])],
        plies: u32,
        black_first: bool,
        p: u32,
    ) -> bool {
        let n = self.moves.len() as u32;
        if p + n > plies {
            return false;
        }
        // The span holding ply p, then the next ones as the moves go on.
        let mut span = all.partition_point(|s| s.1 < p);
        for (i, want) in self.moves.iter().enumerate() {
            let at = p + i as u32;
            while all.get(span).is_some_and(|s| s.1 < at) {
                span += 1;
            }
            let Some(piece) = want.piece else { continue };
            let Some(&(_, _, mat)) = all.get(span) else {
                return false;
            };
            let mover = (at % 2) as usize ^ usize::from(black_first);
            if mat[mover][piece] == 0 {
                return false;
            }
        }
        let from = events.partition_point(|e| e.0 <= p);
        let mut k = from;
        for (i, want) in self.moves.iter().enumerate() {
            let ply = p + 1 + i as u32;
            let code = match events.get(k) {
                Some(&(at, code)) if at == ply => {
                    k += 1;
                    code
                }
                _ => 0,
            };
            let (taken, promoted) = (code / 5, code % 5);
            if want.capture != (taken > 0)
                || want.promoted != promoted
                || (want.taken != 0 && want.taken != taken)
            {
                return false;
            }
        }
        true
    }

    /// What to replay of the game of this record. An empty or damaged record gives the
    /// whole game.
    pub fn window(&self, record: &[u8]) -> Window {
        self.window_in(record, &mut WindowScratch::default())
    }

    /// `window` with its buffers kept by the caller.
    pub fn window_in(&self, record: &[u8], scratch: &mut WindowScratch) -> Window {
        let whole = Window::UpTo(u32::MAX);
        let mut at = 0;
        let Some(head) = get_varint(record, &mut at) else {
            return whole;
        };
        let plies = (head >> 1) as u32;
        // The events, and the candidate plies by material: (first, last) spans.
        let WindowScratch { events, spans, all } = scratch;
        events.clear();
        spans.clear();
        all.clear();
        let black_first = head & 1 == 1 && record.get(at) == Some(&1);
        let complete = walk(record, |mat, from, to| {
            if !self.moves.is_empty() {
                all.push((from, to, *mat));
            }
            if self.material_ok(mat) {
                match spans.last_mut() {
                    Some(last) if last.1 + 1 == from => last.1 = to,
                    _ => spans.push((from, to)),
                }
            }
            true
        });
        if !complete {
            return whole;
        }
        if self.moves.is_empty() {
            return match spans.last() {
                Some(&(_, last)) => Window::UpTo(last.saturating_add(self.after)),
                None => Window::Skip,
            };
        }
        if !event_plies(record, events) {
            return whole;
        }
        // The last ply of a material span from which the sequence fits.
        let anchored = self.moves.iter().position(|m| m.capture || m.promoted > 0);
        for &(a, b) in spans.iter().rev() {
            let found = match anchored {
                // Each event that could be the sequence's i-th move names one start.
                Some(i) => events
                    .iter()
                    .rev()
                    .filter_map(|&(ply, _)| ply.checked_sub(i as u32 + 1))
                    .filter(|&p| p >= a && p <= b)
                    .find(|&p| self.sequence_fits(events, all, plies, black_first, p)),
                None => (a..=b.min(plies))
                    .rev()
                    .find(|&p| self.sequence_fits(events, all, plies, black_first, p)),
            };
            if let Some(p) = found {
                return Window::UpTo(p + self.after);
            }
        }
        Window::Skip
    }
}

/// The record's events `(ply, code)` in order (`Record::push`); false when it does not decode.
fn event_plies(record: &[u8], out: &mut Vec<(u32, u8)>) -> bool {
    let mut at = 0;
    let Some(head) = get_varint(record, &mut at) else {
        return false;
    };
    if head & 1 == 1 {
        at += 6;
    }
    let mut ply = 0u32;
    while at < record.len() {
        let Some((delta, code)) = next_event(record, &mut at) else {
            return false;
        };
        ply += delta;
        out.push((ply, code));
    }
    true
}

/// The record's next event at `at` (`Record::push`): the plies since the one before and its
/// code (the piece taken ×5 + the piece promoted to); `None` when the bytes end inside it.
#[inline]
fn next_event(record: &[u8], at: &mut usize) -> Option<(u32, u8)> {
    let b = *record.get(*at)?;
    *at += 1;
    let delta = match b >> 5 {
        0 => get_varint(record, at)? as u32,
        d => u32::from(d),
    };
    Some((delta, b & 31))
}

/// The starting material of a record from another position: the header's six bytes after
/// the side byte, a nibble per count.
fn header_material(b: &[u8]) -> [Counts; 2] {
    let mut mat = [[0u8; 5]; 2];
    for i in 0..10 {
        mat[i / 5][i % 5] = (b[1 + i / 2] >> (4 * (i % 2))) & 15;
    }
    mat
}

/// Whether White's material less Black's (`diff`, in points) leaves the side asked for
/// (`white_less`: White; `either`: either side) at least `points` down.
fn down_by(diff: i32, white_less: bool, either: bool, points: i32) -> bool {
    if either {
        diff.abs() >= points
    } else if white_less {
        -diff >= points
    } else {
        diff >= points
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
            ("m vs m", 1, false),
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
            assert_eq!(
                SpanQuery::new(&m, held, mirror).first_match_packed(&rec),
                first_match(&rec, &m, held, mirror),
                "{text} held {held}"
            );
        }
    }

    /// Games that reach the forms below: an exchange sacrifice, a bishop sacrifice on h7,
    /// an endgame, and a promotion.
    const GAMES: [&str; 4] = [
        "e4 e5 Nf3 Nc6 Bc4 Nf6 d3 Be7 O-O O-O Re1 d6 c3 Be6 Bxe6 fxe6 d4 exd4 cxd4 d5 e5 Ne4 Nc3 Nxc3 bxc3 Rxf3 Qxf3 Qd7",
        "e4 e6 d4 d5 Nc3 Nf6 e5 Nfd7 Nf3 c5 Bd3 Nc6 O-O Be7 Re1 O-O Bxh7+ Kxh7 Ng5+ Kg8 Qh5 Bxg5 Qxg5 cxd4",
        "d4 d5 c4 e6 Nc3 Nf6 cxd5 exd5 Bg5 Be7 e3 O-O Bd3 Nbd7 Nf3 Re8 O-O c6 Qc2 Nf8 Bxf6 Bxf6 b4 a6 a4 Be7 b5 axb5 axb5 Rxa1 Rxa1 cxb5 Nxb5 Qb6",
        "e4 d5 exd5 Qxd5 Nc3 Qa5 d4 c6 Nf3 Nf6 Bd2 Bf5 Nd5 Qxd5 c4 Qe4+ Be2 Bg4 h3 Bxf3 gxf3 Qxd4",
    ];

    /// Every query's first match lies within the window the scan would replay, and no game
    /// with a match is skipped; a skipped game has none.
    #[test]
    fn a_scan_window_never_cuts_off_a_match() {
        use crate::positions::query::{parse_pattern, parse_pawns, parse_sequence};
        let s = Position::new();
        let mut queries: Vec<Query> = Vec::new();
        for seq in [
            "Bxh7+ Kxh7 Ng5+",
            "Bxh7+ Kxh7",
            "Rxf3 Qxf3",
            "Nxc3 bxc3 Rxf3",
            "e5 Ne4",
            "O-O Be7",
            "Qxd5 Nc3 Qa5",
            "Bxf6 Bxf6",
        ] {
            queries.push(Query {
                sequence: Some(parse_sequence(seq).unwrap()),
                held: 1,
                ..Query::default()
            });
        }
        for pat in [
            "*/*/*/3P4/*/*/*/*",
            "r?????k?/*/*/*/*/*/5PPP/*",
            "*/*/*/*/*/*/PP3PPP/* w",
            "*/[pP]*/*/*/*/*/*/*",
        ] {
            let mut q = Query {
                patterns: vec![parse_pattern(pat).unwrap()],
                held: 1,
                ..Query::default()
            };
            queries.push(q.clone());
            q.identity.mirror = true;
            queries.push(q);
        }
        for pawns in [
            "abdfgh/abefgh",
            "a2 b2 d4 f2 g2 h2/*",
            "*/a7 b7 c6 f7 g7 h7",
        ] {
            let mut q = Query {
                pawns: Some(parse_pawns(pawns).unwrap()),
                held: 1,
                ..Query::default()
            };
            queries.push(q.clone());
            q.identity.mirror = true;
            queries.push(q);
        }
        let mut q = Query {
            sequence: Some(parse_sequence("Rxf3").unwrap()),
            material: Some(parse_material("down>=1").unwrap()),
            held: 3,
            ..Query::default()
        };
        queries.push(q.clone());
        q.identity.mirror = true;
        queries.push(q);
        let mut matched = 0;
        for text in GAMES {
            let g = game(s, text);
            let mut rec = Vec::new();
            encode(&s, &g, &mut rec);
            for q in &queries {
                let m = Matcher::new(q);
                let want = m.first_match(&s, &g);
                assert_eq!(m.first_match_fast(&s, &g), want, "{q:?}");
                if let Some(mut scanner) = m.scanner() {
                    let mut pos = s;
                    let mut got = None;
                    for ply in 0..=g.len() {
                        got = scanner.visit(&pos, ply, g.get(ply).copied());
                        if got.is_some() {
                            break;
                        }
                        if ply < g.len() {
                            pos.play_unchecked(g[ply]);
                        }
                    }
                    assert_eq!(got, want, "{q:?}");
                }
                let f = ScanFilter::new(q);
                match (f.window(&rec), want) {
                    (Window::Skip, Some(p)) => panic!("skipped a match at {p}: {q:?}"),
                    (Window::UpTo(limit), Some(p)) => {
                        matched += 1;
                        assert!(p + f.after <= limit, "{p} {limit} {q:?}");
                        let cut = &g[..g.len().min(limit as usize)];
                        assert_eq!(m.first_match_fast(&s, cut), want, "{q:?}");
                    }
                    _ => {}
                }
            }
        }
        // Each form matched somewhere, so the windows were tested on real matches.
        assert!(matched >= 20, "{matched}");
    }

    #[test]
    fn a_sequence_window_reads_captures_and_the_piece_taken() {
        use crate::positions::query::parse_sequence;
        let s = Position::new();
        let g = game(s, GAMES[1]);
        let mut rec = Vec::new();
        encode(&s, &g, &mut rec);
        let q = |seq: &str| {
            ScanFilter::new(&Query {
                sequence: Some(parse_sequence(seq).unwrap()),
                held: 1,
                ..Query::default()
            })
        };
        // Bxh7+ (ply 17) Kxh7 takes the bishop; Ng5+ is quiet: the last start is ply 16.
        assert_eq!(q("Bxh7+ Kxh7 Ng5+").window(&rec), Window::UpTo(16 + 3));
        // Captures at 17, 18 (the bishop), 22 (a knight), 23 (the bishop) and 24: a knight
        // taken right after a capture, or four captures in a row, are nowhere.
        assert_eq!(q("Nxe5 Qxe5").window(&rec), Window::Skip);
        assert_eq!(q("Bxh7 Kxh7 Nxg5 Kxg5").window(&rec), Window::Skip);
        // Three in a row: from ply 21 (Bxg5 Qxg5 cxd4).
        assert_eq!(q("Bxh7 Kxh7 Nxg5").window(&rec), Window::UpTo(21 + 3));
        // A promotion: none.
        assert_eq!(q("e8=Q").window(&rec), Window::Skip);
    }

    /// A regression: `m vs m` (a minor piece each) allows equal material, so a game
    /// without a capture matches from its start; the walk skipped every record without an
    /// event for any imbalance.
    #[test]
    fn an_imbalance_allowing_equal_material_matches_a_game_without_captures() {
        let s = Position::new();
        let mut rec = Vec::new();
        encode(&s, &game(s, "e4 e5 Nf3 Nc6"), &mut rec);
        for (text, want) in [("m vs m", Some(0)), ("N vs PP", None)] {
            let m = parse_material(text).unwrap();
            assert_eq!(SpanQuery::new(&m, 1, false).first_match_packed(&rec), want);
            assert_eq!(SpanQuery::new(&m, 1, false).first_match(&rec), want);
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
