//! The one query parser: an exact position (FEN or EPD), a material signature or imbalance,
//! piece-on-square patterns with wildcards (after pgn-extract's FENPattern), pawn structures
//! and move sequences. Every form parses into a checked value, or a `QueryError` that says
//! which option, where in its text it fails, why, and shows an example (docs/POSITIONS.md).

use super::key::{Identity, parse_position};
use super::laws::LawsQuery;
use super::matcher::{PlyMove, ScanBoard};
use crate::chess::san::Suffix;
use crate::chess::san::parse_strict;
use crate::chess::{Color, File, Position, Rank, San, Square};
use std::fmt;

/// What a search looks for; the forms present must all hold at the same ply (a sequence's
/// first move is the next one), material for `held` plies from there.
#[derive(Debug, Clone, Default)]
pub struct Query {
    pub position: Option<Position>,
    pub material: Option<Material>,
    /// Plies the material must hold for, from the matching ply on (1: that ply alone).
    pub held: u32,
    pub patterns: Vec<Pattern>,
    pub pawns: Option<Pawns>,
    pub sequence: Option<Sequence>,
    pub identity: Identity,
    /// The Laws' forms: repetitions, claims passed over, automatic draws (`positions::laws`).
    pub laws: LawsQuery,
}

impl Query {
    pub fn is_empty(&self) -> bool {
        self.position.is_none()
            && self.material.is_none()
            && self.patterns.is_empty()
            && self.pawns.is_none()
            && self.sequence.is_none()
            && self.laws.is_empty()
    }

    /// The query without its Laws' forms (what the position index can answer).
    pub fn without_laws(&self) -> Query {
        Query {
            laws: LawsQuery::default(),
            ..self.clone()
        }
    }
}

/// A bad query text: the option it came from, the character where it fails (0-based), the
/// reason, and an example of a good one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryError {
    pub option: &'static str,
    pub text: String,
    pub at: usize,
    pub reason: String,
    pub example: &'static str,
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} '{}': at character {}: {}\n  {}\n  {}^\nexample: {}",
            self.option,
            self.text,
            self.at + 1,
            self.reason,
            self.text,
            " ".repeat(self.at),
            self.example
        )
    }
}

impl std::error::Error for QueryError {}

pub const FEN_EXAMPLE: &str = "arbiter search --db games.sqlite 'rnbqkb1r/1p2pppp/p2p1n2/8/3NP3/2N5/PPP2PPP/R1BQKB1R w KQkq - 0 6'";
pub const MATERIAL_EXAMPLE: &str = "--material KRPKR (White first), --material 'R vs mPP' (imbalance, m: a minor piece), --material 'down>=3'";
pub const PATTERN_EXAMPLE: &str = "--pattern 'r?????k?/?????ppp/8/8/8/8/5PPP/??????K? w' (? any, ! occupied, A/a any white/black piece, [Qq] a set, * any run, digits: empty squares)";
pub const PAWNS_EXAMPLE: &str = "--pawns 'a2 b2 d4 f2 g2 h2/a7 b7 e6 f7 g7 h7' (squares), --pawns 'abdfgh/abefgh' (files), --pawns 'abdfgh/*' (White only)";
pub const SEQUENCE_EXAMPLE: &str = "--sequence 'Bxh7+ Kxh7 Ng5+'";

fn error(
    option: &'static str,
    text: &str,
    at: usize,
    reason: impl Into<String>,
    example: &'static str,
) -> QueryError {
    QueryError {
        option,
        text: text.to_owned(),
        at,
        reason: reason.into(),
        example,
    }
}

/// An exact position: FEN, or EPD's first four fields.
pub fn parse_fen_query(text: &str) -> Result<Position, QueryError> {
    parse_position(text).map_err(|reason| {
        // The field that failed, when the reason names one.
        let field = ["castling", "en passant", "halfmove", "fullmove", "turn"]
            .iter()
            .position(|f| reason.contains(f))
            .map_or(0, |i| [2, 3, 4, 5, 1][i]);
        let at = text
            .split_ascii_whitespace()
            .take(field)
            .map(|f| f.len() + 1)
            .sum::<usize>();
        error("FEN", text, at.min(text.len()), reason, FEN_EXAMPLE)
    })
}

/// A FEN as a user gives it: the position, and which of the fields that decide sameness
/// (Art. 9.2.2: side to move, castling rights) the text left out.
#[derive(Debug, Clone)]
pub struct FenText {
    pub position: Position,
    pub without_turn: bool,
    pub without_castling: bool,
}

/// `parse_fen_query` for a text that may stop after the placement or the side to move (as
/// board editors write it), but has nothing after its fields: at most FEN's six, or EPD's
/// four followed by operations, each ended by `;`.
pub fn parse_fen_text(text: &str) -> Result<FenText, QueryError> {
    let fields: Vec<&str> = text.split_ascii_whitespace().collect();
    let epd = fields.len() > 4 && fields[4].parse::<u32>().is_err();
    let extra = if epd {
        let ops = text.trim_end();
        (!ops.ends_with(';')).then_some(4)
    } else {
        (fields.len() > 6).then_some(6)
    };
    if let Some(n) = extra {
        let at = text
            .split_ascii_whitespace()
            .take(n)
            .map(|f| f.len() + 1)
            .sum::<usize>();
        let reason = if epd {
            "text after the four EPD fields that is not an EPD operation (ended by ';')"
        } else {
            "text after the FEN's six fields"
        };
        return Err(error("FEN", text, at.min(text.len()), reason, FEN_EXAMPLE));
    }
    Ok(FenText {
        position: parse_fen_query(text)?,
        without_turn: fields.len() < 2,
        without_castling: fields.len() < 3,
    })
}

/// The query flags as text, before parsing; `held` None is the default for the material's
/// form (`default_held`).
#[derive(Debug, Clone, Default)]
pub struct QueryText<'a> {
    pub fen: Option<&'a str>,
    pub material: Option<&'a str>,
    pub held: Option<u32>,
    pub patterns: &'a [String],
    pub pawns: Option<&'a str>,
    pub sequence: Option<&'a str>,
    pub identity: Identity,
    pub laws: LawsQuery,
}

/// The plies an imbalance or a points deficit must hold by default: two moves of each
/// side, so that the ply between a capture and its recapture (or a check in between) is not
/// "a piece up". A signature (exact material) holds from its first ply.
pub const DEFAULT_HELD_IMBALANCE: u32 = 4;

/// The default `--held` for a material form.
pub fn default_held(material: Option<&Material>) -> u32 {
    match material {
        Some(Material::Imbalance { .. } | Material::Down(..)) => DEFAULT_HELD_IMBALANCE,
        _ => 1,
    }
}

impl QueryText<'_> {
    /// The checked query, with a note for each thing the text left to be assumed (for the
    /// caller to print).
    pub fn parse(&self) -> Result<(Query, Vec<String>), QueryError> {
        let mut notes = Vec::new();
        let mut identity = self.identity;
        let position = match self.fen {
            None => None,
            Some(text) => {
                let fen = parse_fen_text(text)?;
                let mut left = Vec::new();
                if fen.without_turn && !identity.ignore_side {
                    identity.ignore_side = true;
                    left.push(("side to move", "either side to move", "--ignore-side"));
                }
                if fen.without_castling && !identity.ignore_castling {
                    identity.ignore_castling = true;
                    left.push((
                        "castling rights",
                        "any castling rights",
                        "--ignore-castling",
                    ));
                }
                if !left.is_empty() {
                    let names: Vec<_> = left.iter().map(|l| l.0).collect();
                    let kinds: Vec<_> = left.iter().map(|l| l.1).collect();
                    let flags: Vec<_> = left.iter().map(|l| l.2).collect();
                    notes.push(format!(
                        "the FEN gives no {}: searching the position with {} (as {}); add the \
                         missing fields to search one exactly",
                        names.join(" and no "),
                        kinds.join(" and "),
                        flags.join(" ")
                    ));
                }
                Some(fen.position)
            }
        };
        let material = self.material.map(parse_material).transpose()?;
        let held = match self.held {
            Some(0) => {
                return Err(error(
                    "--held",
                    "0",
                    0,
                    "at least 1 ply (1: the matching ply alone)",
                    "--held 4",
                ));
            }
            Some(n) => n,
            None => default_held(material.as_ref()),
        };
        Ok((
            Query {
                position,
                material,
                held,
                patterns: self
                    .patterns
                    .iter()
                    .map(|p| parse_pattern(p))
                    .collect::<Result<_, _>>()?,
                pawns: self.pawns.map(parse_pawns).transpose()?,
                sequence: self.sequence.map(parse_sequence).transpose()?,
                identity,
                laws: self.laws,
            },
            notes,
        ))
    }
}

// ---- material ------------------------------------------------------------------------

/// Counts by role: queen, rook, bishop, knight, pawn.
pub type Counts = [u8; 5];
pub const VALUES: [i32; 5] = [9, 5, 3, 3, 1];

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Material {
    /// Exactly this material, White's then Black's; `None`: that side is free.
    Signature([Option<Counts>; 2]),
    /// One side has `more` beyond the other's material and the other `less` (a minor piece
    /// counts as bishop or knight), everything else equal; either colour.
    Imbalance {
        more: Counts,
        less: Counts,
        minors: [u8; 2],
    },
    /// A side (`None`: either) behind by at least this many points (Q 9, R 5, B 3, N 3, P 1).
    Down(Option<Color>, i32),
}

impl Material {
    /// Whether a position with these counts (`[white, black]`) matches.
    pub fn matches(&self, counts: &[Counts; 2]) -> bool {
        match self {
            Material::Signature(sides) => sides
                .iter()
                .zip(counts)
                .all(|(want, have)| want.is_none_or(|w| w == *have)),
            Material::Imbalance { more, less, minors } => {
                imbalance(counts[0], counts[1], more, less, *minors)
                    || imbalance(counts[1], counts[0], more, less, *minors)
            }
            Material::Down(side, points) => {
                let p = |c: &Counts| {
                    c.iter()
                        .zip(VALUES)
                        .map(|(&n, v)| n as i32 * v)
                        .sum::<i32>()
                };
                let (w, b) = (p(&counts[0]), p(&counts[1]));
                match side {
                    Some(Color::White) => b - w >= *points,
                    Some(Color::Black) => w - b >= *points,
                    None => (w - b).abs() >= *points,
                }
            }
        }
    }

    /// The colour-flipped query.
    pub fn mirrored(&self) -> Material {
        match self {
            Material::Signature([w, b]) => Material::Signature([*b, *w]),
            Material::Down(Some(c), p) => Material::Down(Some(c.other()), *p),
            other => other.clone(),
        }
    }
}

/// The differences White's counts less Black's (Q R B N P) that an imbalance allows, either
/// colour: what `matches` tests, listed once for a scan of many positions.
pub fn imbalance_diffs(more: &Counts, less: &Counts, minors: [u8; 2]) -> Vec<[i8; 5]> {
    imbalance_wants(more, less, minors)
        .flat_map(|want| [want, want.map(|d| -d)])
        .collect()
}

/// The differences `more`'s side less `less`'s side (Q R B N P) the imbalance allows: the
/// minors of each side (`minors[0]` on `more`'s, `minors[1]` on `less`'s) as bishops or
/// knights.
fn imbalance_wants(more: &Counts, less: &Counts, minors: [u8; 2]) -> impl Iterator<Item = [i8; 5]> {
    let base: [i8; 5] = std::array::from_fn(|i| more[i] as i8 - less[i] as i8);
    (0..=minors[0]).flat_map(move |wm| {
        (0..=minors[1]).map(move |lm| {
            let mut want = base;
            want[2] += wm as i8 - lm as i8;
            want[3] += (minors[0] - wm) as i8 - (minors[1] - lm) as i8;
            want
        })
    })
}

/// `a` has `more` than `b` and `b` has `less` than `a`, the minors of `less` as bishops or knights.
fn imbalance(a: Counts, b: Counts, more: &Counts, less: &Counts, minors: [u8; 2]) -> bool {
    // An array, not a Vec: this runs for every material span of every game of a scan.
    let diff: [i8; 5] = std::array::from_fn(|i| a[i] as i8 - b[i] as i8);
    imbalance_wants(more, less, minors).any(|want| want == diff)
}

pub fn parse_material(text: &str) -> Result<Material, QueryError> {
    let err = |at: usize, why: &str| error("--material", text, at, why, MATERIAL_EXAMPLE);
    let t = text.trim();
    let lead = text.len() - text.trim_start().len();
    if t.is_empty() {
        return Err(err(0, "empty material"));
    }
    let lower = t.to_ascii_lowercase();
    for (prefix, side) in [
        ("white-down>=", Some(Color::White)),
        ("black-down>=", Some(Color::Black)),
        ("down>=", None),
    ] {
        if let Some(n) = lower.strip_prefix(prefix) {
            return match n.trim().parse::<i32>() {
                Ok(p) if (1..=39).contains(&p) => Ok(Material::Down(side, p)),
                _ => Err(err(
                    lead + prefix.len(),
                    "expected points from 1 to 39 after '>='",
                )),
            };
        }
    }
    if let Some(i) = t.find(" vs ") {
        let (more, mm) = side_counts(&t[..i], lead, true).map_err(|(at, w)| err(at, &w))?;
        let (less, lm) =
            side_counts(&t[i + 4..], lead + i + 4, true).map_err(|(at, w)| err(at, &w))?;
        if more == [0; 5] && mm == 0 || less == [0; 5] && lm == 0 {
            return Err(err(
                lead + i + 1,
                "an imbalance needs material on both sides of 'vs'",
            ));
        }
        return Ok(Material::Imbalance {
            more,
            less,
            minors: [mm, lm],
        });
    }
    if t.contains('m') {
        return Err(err(
            lead + t.find('m').unwrap_or(0),
            "'m' (a minor piece) only in an imbalance: 'R vs mPP'",
        ));
    }
    let sides: Vec<(usize, &str)> = if let Some(i) = t.find('/') {
        vec![(lead, &t[..i]), (lead + i + 1, &t[i + 1..])]
    } else if let Some(rest) = t.strip_prefix('K') {
        match rest.find('K') {
            Some(j) => vec![(lead + 1, &t[1..j + 1]), (lead + j + 2, &t[j + 2..])],
            None => {
                return Err(err(
                    lead + t.len(),
                    "a signature names both kings: KRPKR (White first)",
                ));
            }
        }
    } else {
        // One side's material, either colour.
        let (c, _) = side_counts(t, lead, false).map_err(|(at, w)| err(at, &w))?;
        return Ok(Material::Signature([Some(c), None]));
    };
    let mut out = [None, None];
    for (k, (at, s)) in sides.into_iter().enumerate() {
        let s = s.strip_prefix('K').unwrap_or(s);
        if s.trim() == "*" {
            continue;
        }
        let (c, _) = side_counts(s, at, false).map_err(|(at, w)| err(at, &w))?;
        out[k] = Some(c);
    }
    Ok(Material::Signature(out))
}

/// One side: piece letters, each with an optional count (`QR2B2N2P8`); `m` minor pieces
/// when `minor` is allowed.
fn side_counts(s: &str, base: usize, minor: bool) -> Result<(Counts, u8), (usize, String)> {
    let mut c = [0u8; 5];
    let mut minors = 0u8;
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let ch = b[i];
        if ch == b' ' {
            i += 1;
            continue;
        }
        let slot = match ch {
            b'Q' => Some(0),
            b'R' => Some(1),
            b'B' => Some(2),
            b'N' => Some(3),
            b'P' => Some(4),
            b'm' if minor => None,
            b'K' => return Err((base + i, "a king only at the start of a side: KRPKR".into())),
            _ => {
                return Err((
                    base + i,
                    format!(
                        "'{}' is no piece letter (Q R B N P{})",
                        ch as char,
                        if minor { " m" } else { "" }
                    ),
                ));
            }
        };
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let n: u8 = if start == i {
            1
        } else {
            match s[start..i].parse::<u8>() {
                Ok(n) if n <= 10 => n,
                _ => return Err((base + start, "a count is at most 10".into())),
            }
        };
        match slot {
            Some(k) => c[k] = c[k].saturating_add(n),
            None => minors = minors.saturating_add(n),
        }
    }
    if c[4] > 8 {
        return Err((base, format!("{} pawns: at most 8 a side", c[4])));
    }
    let extra = c[0].saturating_sub(1)
        + c[1].saturating_sub(2)
        + c[2].saturating_sub(2)
        + c[3].saturating_sub(2);
    if !minor && extra > 8 - c[4] {
        return Err((
            base,
            format!(
                "impossible material: {extra} promoted pieces but only {} pawns gone",
                8 - c[4]
            ),
        ));
    }
    Ok((c, minors))
}

/// Material counts of a board of piece codes (`game::keys::code`).
pub fn counts(board: &[u8; 64]) -> [Counts; 2] {
    let mut c = [[0u8; 5]; 2];
    for &p in board {
        if p == 0 {
            continue;
        }
        let color = usize::from(p > 6);
        let role = (p - 1) % 6; // pawn 0, knight 1, bishop 2, rook 3, queen 4, king 5
        let slot = match role {
            0 => 4,
            1 => 3,
            2 => 2,
            3 => 1,
            4 => 0,
            _ => continue,
        };
        c[color][slot] += 1;
    }
    c
}

// ---- patterns ---------------------------------------------------------------------------

/// A set of what may stand on a square: bit `code` (0: empty, `game::keys::code` of a piece).
type Allowed = u16;
const EMPTY: Allowed = 1;
const ANY: Allowed = (1 << 13) - 1;
const WHITE: Allowed = 0b111_1110;
const BLACK: Allowed = 0b1_1111_1000_0000;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Cell {
    One(Allowed),
    /// Any number of squares, anything on them.
    Run,
}

/// A board pattern: per rank from the 8th down, its cells; optionally a side to move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    ranks: Vec<Vec<Cell>>,
    turn: Option<Color>,
}

fn piece_bit(ch: u8) -> Option<Allowed> {
    let p = crate::chess::Piece::from_char(ch as char)?;
    Some(1 << crate::game::keys::code(p))
}

pub fn parse_pattern(text: &str) -> Result<Pattern, QueryError> {
    let err = |at: usize, why: String| error("--pattern", text, at, why, PATTERN_EXAMPLE);
    let mut fields = text.split_ascii_whitespace();
    let board = fields
        .next()
        .ok_or_else(|| err(0, "empty pattern".into()))?;
    let base = text.find(board).unwrap_or(0);
    let turn = match fields.next() {
        None => None,
        Some("w") => Some(Color::White),
        Some("b") => Some(Color::Black),
        Some(t) => {
            return Err(err(
                text.find(t).unwrap_or(0),
                format!("side to move is w or b, not '{t}'"),
            ));
        }
    };
    if let Some(extra) = fields.next() {
        return Err(err(
            text.rfind(extra).unwrap_or(0),
            "a pattern is a board and an optional side to move".into(),
        ));
    }
    let mut ranks = Vec::new();
    let b = board.as_bytes();
    let mut i = 0;
    let mut rank: Vec<Cell> = Vec::new();
    let mut width = 0;
    let mut run = false;
    let mut rank_start = 0;
    loop {
        let end = i >= b.len();
        if end || b[i] == b'/' {
            if !run && width != 8 {
                return Err(err(
                    base + rank_start,
                    format!("rank {} covers {width} squares, not 8", 8 - ranks.len()),
                ));
            }
            if run && width > 8 {
                return Err(err(
                    base + rank_start,
                    format!("rank {} covers more than 8 squares", 8 - ranks.len()),
                ));
            }
            ranks.push(std::mem::take(&mut rank));
            if ranks.len() > 8 {
                return Err(err(base + i, "more than 8 ranks".into()));
            }
            width = 0;
            run = false;
            if end {
                break;
            }
            i += 1;
            rank_start = i;
            continue;
        }
        let ch = b[i];
        let (cell, len) = match ch {
            b'1'..=b'8' => {
                let n = (ch - b'0') as usize;
                for _ in 0..n {
                    rank.push(Cell::One(EMPTY));
                }
                width += n;
                i += 1;
                continue;
            }
            b'?' => (Cell::One(ANY), 1),
            b'!' => (Cell::One(ANY & !EMPTY), 1),
            b'A' => (Cell::One(WHITE), 1),
            b'a' => (Cell::One(BLACK), 1),
            b'*' => {
                run = true;
                (Cell::Run, 1)
            }
            b'[' => {
                let close = board[i..]
                    .find(']')
                    .ok_or_else(|| err(base + i, "'[' without ']'".into()))?;
                let mut set = 0;
                for (k, &c) in b[i + 1..i + close].iter().enumerate() {
                    set |= match c {
                        b'.' | b'_' => EMPTY,
                        b'A' => WHITE,
                        b'a' => BLACK,
                        b'!' => ANY & !EMPTY,
                        c => piece_bit(c).ok_or_else(|| {
                            err(
                                base + i + 1 + k,
                                format!(
                                    "'{}' cannot be in a set (pieces, A, a, '.' for empty)",
                                    c as char
                                ),
                            )
                        })?,
                    };
                }
                if set == 0 {
                    return Err(err(base + i, "an empty set matches nothing".into()));
                }
                (Cell::One(set), close + 1)
            }
            c => match piece_bit(c) {
                Some(bit) => (Cell::One(bit), 1),
                None => {
                    return Err(err(
                        base + i,
                        format!("'{}' is not a pattern symbol", c as char),
                    ));
                }
            },
        };
        if let Cell::One(set) = cell {
            // A pawn required on the first or last rank: no position has one.
            let pawns = (1 << 1) | (1 << 7);
            let r = ranks.len();
            if (r == 0 || r == 7) && set & !pawns == 0 {
                return Err(err(
                    base + i,
                    "pawns cannot stand on the first or last rank".into(),
                ));
            }
            width += 1;
        }
        rank.push(cell);
        i += len;
    }
    if ranks.len() != 8 {
        return Err(err(
            base + board.len(),
            format!("{} ranks, a pattern has 8 separated by '/'", ranks.len()),
        ));
    }
    kings_fit(&ranks).map_err(|why| err(base, why))?;
    Ok(Pattern { ranks, turn })
}

/// Every position has one king of each colour: a pattern with no square that may hold one, or
/// with two squares that must, matches nothing, and is an error rather than an empty answer.
fn kings_fit(ranks: &[Vec<Cell>]) -> Result<(), String> {
    let cells = || ranks.iter().flatten();
    let run = cells().any(|c| *c == Cell::Run);
    for (ch, name) in [(b'K', "white"), (b'k', "black")] {
        let bit = piece_bit(ch).expect("a king is a piece");
        let may = |c: &&Cell| matches!(c, Cell::One(set) if set & bit != 0);
        let must = cells().filter(|c| **c == Cell::One(bit)).count();
        if !run && !cells().any(|c| may(&c)) {
            return Err(format!(
                "no square may hold the {name} king, and every position has one \
                 (use '?', '!', '{}' or a set with '{}')",
                if ch == b'K' { 'A' } else { 'a' },
                ch as char
            ));
        }
        if must > 1 {
            return Err(format!(
                "{must} squares must hold the {name} king; a position has one"
            ));
        }
    }
    Ok(())
}

/// A square's character by piece code (`game::keys::code`; 0: empty), as the position rows
/// of a dataset write a board (`pipeline::parquet_positions::board_text`).
pub const BOARD_CHARS: &[u8; 13] = b".PNBRQKpnbrqk";

impl Pattern {
    /// The pattern as a regular expression (Java's and Python's syntax alike) that a board
    /// text (`BOARD_CHARS`, ranks 8 to 1 joined by '/', a space, the side to move) matches
    /// exactly when `matches` holds for that board and side.
    pub fn board_regex(&self) -> String {
        let mut re = String::from("^");
        for (k, cells) in self.ranks.iter().enumerate() {
            if k > 0 {
                re.push('/');
            }
            for cell in cells {
                match cell {
                    Cell::Run => re.push_str("[^/]*"),
                    Cell::One(ANY) => re.push_str("[^/]"),
                    Cell::One(EMPTY) => re.push_str(r"\."),
                    Cell::One(set) if set.count_ones() == 1 => {
                        re.push(BOARD_CHARS[set.trailing_zeros() as usize] as char);
                    }
                    Cell::One(set) => {
                        re.push('[');
                        for (code, &ch) in BOARD_CHARS.iter().enumerate() {
                            if set & (1 << code) != 0 {
                                re.push(ch as char);
                            }
                        }
                        re.push(']');
                    }
                }
            }
        }
        re.push_str(match self.turn {
            None => " [wb]$",
            Some(Color::White) => " w$",
            Some(Color::Black) => " b$",
        });
        re
    }
}

impl Pattern {
    /// Whether the board (piece codes by square, a1 = 0) and side to move match.
    pub fn matches(&self, board: &[u8; 64], turn: Color) -> bool {
        if self.turn.is_some_and(|t| t != turn) {
            return false;
        }
        self.ranks.iter().enumerate().all(|(k, cells)| {
            let r = 7 - k;
            rank_matches(cells, &board[r * 8..r * 8 + 8])
        })
    }
}

/// Piece codes (`game::keys::code`) by index: 1-6 White's pawn to king, 7-12 Black's.
const CODES: usize = 13;

/// A pattern in the form a scan tests cheaply on a `Position`'s bitboards (`Pattern::matches`
/// on a board of codes is the reference, and the tests compare the two): over the ranks
/// without a `*`, the squares that must be empty, those that must hold one kind of piece,
/// those that must be occupied, and per piece the squares where it may not stand; the
/// ranks with a `*` are matched cell by cell.
#[derive(Debug, Clone)]
pub struct FastPattern {
    empty: u64,
    occupied: u64,
    /// (colour, role, squares where that piece must stand): a cell that allows it alone.
    need: Vec<(Color, crate::chess::Role, u64)>,
    /// (colour, role, squares where it may not stand), but the squares above.
    forbid: Vec<(Color, crate::chess::Role, u64)>,
    /// Ranks (0: the first) with a run, and their cells; a rank of `*` alone is left out.
    runs: Vec<(usize, Vec<Cell>)>,
    turn: Option<Color>,
}

impl FastPattern {
    /// The squares where a white and a black pawn must stand, and those that must be
    /// empty, over the ranks without a `*` (what a game's summary is asked: `summary`).
    pub fn pawn_squares_and_empty(&self) -> ([u64; 2], u64) {
        let mut pawns = [0u64; 2];
        for &(c, r, sq) in &self.need {
            if r == crate::chess::Role::Pawn {
                pawns[usize::from(c == Color::Black)] |= sq;
            }
        }
        (pawns, self.empty)
    }

    #[inline]
    pub fn matches<B: ScanBoard>(&self, pos: &B) -> bool {
        if self.turn.is_some_and(|t| t != pos.turn()) {
            return false;
        }
        let occupied = pos.occupied();
        if occupied & self.empty != 0 || self.occupied & !occupied != 0 {
            return false;
        }
        if !self
            .need
            .iter()
            .all(|&(c, r, sq)| pos.pieces(c, r) & sq == sq)
        {
            return false;
        }
        if !self
            .forbid
            .iter()
            .all(|&(c, r, sq)| pos.pieces(c, r) & sq == 0)
        {
            return false;
        }
        self.runs.iter().all(|(r, cells)| {
            let squares: [u8; 8] = std::array::from_fn(|f| pos.code_at(r * 8 + f));
            rank_matches(cells, &squares)
        })
    }
}

/// What a query's forms need of a position's material and home pawns, for a scan to skip
/// the plies (or games) that cannot match: bounds on each piece's count (by code, kings
/// left free) and the home squares (rank 2 for White, 7 for Black) whose pawn must still be
/// there. A white pawn on the second rank has never moved (pawns only go forward), so once
/// it has left no later position has it: a game can stop there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Needs {
    pub lo: [u8; CODES],
    pub hi: [u8; CODES],
    /// Home squares (a1 = 0) whose white / black pawn must be there.
    pub home: [u64; 2],
}

impl Default for Needs {
    fn default() -> Needs {
        Needs {
            lo: [0; CODES],
            hi: [u8::MAX; CODES],
            home: [0, 0],
        }
    }
}

impl Needs {
    fn and(&mut self, other: &Needs) {
        for c in 0..CODES {
            self.lo[c] = self.lo[c].max(other.lo[c]);
            self.hi[c] = self.hi[c].min(other.hi[c]);
        }
        self.home[0] |= other.home[0];
        self.home[1] |= other.home[1];
    }

    /// The needs of the colour-flipped query, on the position as it is.
    pub fn mirrored(&self) -> Needs {
        let mut m = Needs::default();
        for c in 1..CODES {
            let f = if c <= 6 { c + 6 } else { c - 6 };
            m.lo[f] = self.lo[c];
            m.hi[f] = self.hi[c];
        }
        m.home = [
            self.home[1].swap_bytes(), // ranks reversed: a7 becomes a2
            self.home[0].swap_bytes(),
        ];
        m
    }

    /// Whether material `[white, black]` (Q R B N P) is within the bounds.
    pub fn material_ok(&self, mat: &[Counts; 2]) -> bool {
        // Counts' slots (Q R B N P) as code offsets (pawn 1 … queen 5).
        const ROLE: [usize; 5] = [5, 4, 3, 2, 1];
        (0..2).all(|side| {
            (0..5).all(|slot| {
                let c = 6 * side + ROLE[slot];
                (self.lo[c]..=self.hi[c]).contains(&mat[side][slot])
            })
        })
    }

    /// Whether the home pawns the query needs are on their squares.
    pub fn home_ok<B: ScanBoard>(&self, pos: &B) -> bool {
        use crate::chess::Role;
        pos.pieces(Color::White, Role::Pawn) & self.home[0] == self.home[0]
            && pos.pieces(Color::Black, Role::Pawn) & self.home[1] == self.home[1]
    }

    pub fn is_free(&self) -> bool {
        *self == Needs::default()
    }
}

impl Query {
    /// What the position-level forms (patterns, pawns) need at the matching ply.
    pub fn needs(&self) -> Needs {
        let mut n = Needs::default();
        for p in &self.patterns {
            n.and(&p.needs());
        }
        if let Some(p) = &self.pawns {
            n.and(&p.needs());
        }
        n
    }
}

/// A set of codes with the colours swapped.
fn flip_set(set: Allowed) -> Allowed {
    let white = (set >> 1) & 0b11_1111;
    let black = (set >> 7) & 0b11_1111;
    (set & EMPTY) | black << 1 | white << 7
}

impl Pattern {
    /// The pattern of the colour-flipped position: what `matches` of the flipped board
    /// and side is, on the board as it is (ranks reversed, colours and side swapped).
    pub fn mirrored(&self) -> Pattern {
        let flip = |c: &Cell| match c {
            Cell::One(set) => Cell::One(flip_set(*set)),
            Cell::Run => Cell::Run,
        };
        Pattern {
            ranks: self
                .ranks
                .iter()
                .rev()
                .map(|cells| cells.iter().map(flip).collect())
                .collect(),
            turn: self.turn.map(Color::other),
        }
    }

    pub fn fast(&self) -> FastPattern {
        let mut forbid = [0u64; CODES];
        let mut need = [0u64; CODES];
        let mut empty = 0u64;
        let mut runs = Vec::new();
        for (k, cells) in self.ranks.iter().enumerate() {
            let r = 7 - k;
            if cells.contains(&Cell::Run) {
                if cells.iter().any(|c| *c != Cell::Run) {
                    runs.push((r, cells.clone()));
                }
                continue;
            }
            for (f, cell) in cells.iter().enumerate() {
                let Cell::One(set) = *cell else { continue };
                let sq = 1u64 << (r * 8 + f);
                if set == EMPTY {
                    empty |= sq;
                } else if set.count_ones() == 1 {
                    need[set.trailing_zeros() as usize] |= sq;
                } else {
                    for (c, mask) in forbid.iter_mut().enumerate() {
                        if set & (1 << c) == 0 {
                            *mask |= sq;
                        }
                    }
                }
            }
        }
        // Codes 1-6 White's pawn to king, 7-12 Black's.
        let piece = |c: usize| {
            (
                Color::ALL[(c - 1) / 6],
                crate::chess::Role::from_index((c - 1) % 6),
            )
        };
        let list = |masks: &[u64; CODES]| {
            (1..CODES)
                .filter(|&c| masks[c] != 0)
                .map(|c| {
                    let (color, role) = piece(c);
                    (color, role, masks[c])
                })
                .collect()
        };
        FastPattern {
            empty,
            occupied: forbid[0],
            need: list(&need),
            forbid: list(&forbid),
            runs,
            turn: self.turn,
        }
    }

    /// Bounds on the pieces and the home pawns the pattern needs: a cell that allows one
    /// piece alone is a piece of that kind; with no `*` anywhere, a piece stands only on
    /// the cells that allow it.
    pub fn needs(&self) -> Needs {
        let mut n = Needs::default();
        let fixed = !self.ranks.iter().flatten().any(|c| *c == Cell::Run);
        if fixed {
            n.hi = [0; CODES];
        }
        for (k, cells) in self.ranks.iter().enumerate() {
            let r = 7 - k;
            let placed = !cells.contains(&Cell::Run);
            for (f, cell) in cells.iter().enumerate() {
                let Cell::One(set) = *cell else { continue };
                for c in 1..CODES {
                    if set & (1 << c) != 0 && fixed {
                        n.hi[c] = n.hi[c].saturating_add(1);
                    }
                }
                if set.count_ones() == 1 && set != EMPTY {
                    let c = set.trailing_zeros() as usize;
                    n.lo[c] += 1;
                    // A pawn of its own colour on its home rank, where the file is known.
                    if placed && c == 1 && r == 1 {
                        n.home[0] |= 1 << (8 + f);
                    }
                    if placed && c == 7 && r == 6 {
                        n.home[1] |= 1 << (48 + f);
                    }
                }
            }
        }
        // Kings are not counted in material.
        n.lo[6] = 0;
        n.lo[12] = 0;
        n.hi[6] = u8::MAX;
        n.hi[12] = u8::MAX;
        n
    }
}

fn rank_matches(cells: &[Cell], squares: &[u8]) -> bool {
    match cells.split_first() {
        None => squares.is_empty(),
        Some((Cell::One(set), rest)) => {
            !squares.is_empty() && set & (1 << squares[0]) != 0 && rank_matches(rest, &squares[1..])
        }
        Some((Cell::Run, rest)) => (0..=squares.len()).any(|k| rank_matches(rest, &squares[k..])),
    }
}

// ---- pawn structures ------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PawnSide {
    Any,
    /// Exactly these squares (a1 = 0 bits).
    Squares(u64),
    /// Exactly this many pawns on each file.
    Files([u8; 8]),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pawns(pub [PawnSide; 2]);

pub fn parse_pawns(text: &str) -> Result<Pawns, QueryError> {
    let err = |at: usize, why: String| error("--pawns", text, at, why, PAWNS_EXAMPLE);
    let (w, b, boff) = match text.find('/') {
        Some(i) => (&text[..i], &text[i + 1..], i + 1),
        None => {
            return Err(err(
                text.len(),
                "White's pawns, '/', Black's pawns ('*' for either side)".into(),
            ));
        }
    };
    let mut sides = [PawnSide::Any, PawnSide::Any];
    for (k, (s, off)) in [(w, 0), (b, boff)].into_iter().enumerate() {
        let t = s.trim();
        let at0 = off + s.len() - s.trim_start().len();
        if t == "*" {
            continue;
        }
        let letters: Vec<(usize, u8)> = t
            .bytes()
            .enumerate()
            .filter(|(_, c)| *c != b' ' && *c != b',')
            .collect();
        if letters.iter().any(|(_, c)| c.is_ascii_digit()) {
            let mut set = 0u64;
            if !letters.len().is_multiple_of(2) {
                return Err(err(
                    at0 + t.len(),
                    "squares come as file and rank: d4".into(),
                ));
            }
            for pair in letters.chunks(2) {
                let (i, f) = pair[0];
                let (_, r) = pair[1];
                let (Some(file), Some(rank)) =
                    (File::from_char(f as char), Rank::from_char(r as char))
                else {
                    return Err(err(
                        at0 + i,
                        format!("'{}{}' is no square", f as char, r as char),
                    ));
                };
                if rank.0 == 0 || rank.0 == 7 {
                    return Err(err(
                        at0 + i,
                        "pawns cannot stand on the first or last rank".into(),
                    ));
                }
                set |= 1 << Square::from_coords(file, rank).index();
            }
            if set.count_ones() > 8 {
                return Err(err(
                    at0,
                    format!("{} pawns: at most 8 a side", set.count_ones()),
                ));
            }
            sides[k] = PawnSide::Squares(set);
        } else {
            let mut files = [0u8; 8];
            for (i, c) in letters {
                let f = File::from_char(c as char)
                    .ok_or_else(|| err(at0 + i, format!("'{}' is no file (a to h)", c as char)))?;
                files[usize::from(f.0)] += 1;
            }
            if files.iter().map(|&n| n as u32).sum::<u32>() > 8 {
                return Err(err(at0, "more than 8 pawns on one side".into()));
            }
            sides[k] = PawnSide::Files(files);
        }
    }
    if sides == [PawnSide::Any, PawnSide::Any] {
        return Err(err(0, "both sides '*' matches every position".into()));
    }
    Ok(Pawns(sides))
}

impl Pawns {
    /// The structure of the colour-flipped position, on the board as it is.
    pub fn mirrored(&self) -> Pawns {
        let flip = |side: &PawnSide| match side {
            PawnSide::Squares(set) => PawnSide::Squares(set.swap_bytes()),
            other => other.clone(),
        };
        Pawns([flip(&self.0[1]), flip(&self.0[0])])
    }

    /// The pawns' counts (exact for a side given) and the home pawns they need.
    pub fn needs(&self) -> Needs {
        let mut n = Needs::default();
        for (k, side) in self.0.iter().enumerate() {
            let c = 1 + 6 * k;
            let count = match side {
                PawnSide::Any => continue,
                PawnSide::Squares(set) => {
                    n.home[k] |= set
                        & if k == 0 {
                            0xff00
                        } else {
                            0x00ff_0000_0000_0000
                        };
                    set.count_ones() as u8
                }
                PawnSide::Files(files) => files.iter().sum(),
            };
            n.lo[c] = count;
            n.hi[c] = count;
        }
        n
    }

    /// `matches` on a position's bitboards.
    pub fn matches_position<B: ScanBoard>(&self, pos: &B) -> bool {
        self.0.iter().enumerate().all(|(k, side)| {
            let have = pos.pieces(Color::ALL[k], crate::chess::Role::Pawn);
            match side {
                PawnSide::Any => true,
                PawnSide::Squares(set) => have == *set,
                PawnSide::Files(files) => (0..8).all(|f| {
                    (have & (0x0101_0101_0101_0101u64 << f)).count_ones() == u32::from(files[f])
                }),
            }
        })
    }

    pub fn matches(&self, board: &[u8; 64]) -> bool {
        self.0.iter().enumerate().all(|(k, side)| {
            let code = if k == 0 { 1 } else { 7 };
            match side {
                PawnSide::Any => true,
                PawnSide::Squares(set) => {
                    let mut have = 0u64;
                    for (sq, &p) in board.iter().enumerate() {
                        if p == code {
                            have |= 1 << sq;
                        }
                    }
                    have == *set
                }
                PawnSide::Files(files) => {
                    let mut have = [0u8; 8];
                    for (sq, &p) in board.iter().enumerate() {
                        if p == code {
                            have[sq & 7] += 1;
                        }
                    }
                    have == *files
                }
            }
        })
    }
}

// ---- move sequences ---------------------------------------------------------------------

/// Moves in SAN played one after the other; a `+` or `#` written must be there. A move
/// number written before a move pins the ply (`12. e4`: White's 12th move, `12... e5`:
/// Black's); a bare `...` before the first move pins the side to move only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sequence {
    pub moves: Vec<(San, Option<Suffix>)>,
    pub start: Option<SeqStart>,
}

/// Where a sequence's first move must be played, as its text numbers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeqStart {
    /// `... c5`: the first move is this side's, at any move number.
    Side(Color),
    /// `12. e4`, `12... e5`: the first move is this side's move of this number (counted
    /// as the game counts, from its FEN's move number when it has one).
    Move(u32, Color),
}

/// The plies from move 1 with White to move to the move `number` of `side`.
fn half_moves(number: u32, side: Color) -> i64 {
    2 * (i64::from(number) - 1) + i64::from(side == Color::Black)
}

/// A move-number marker at the start of a word: `12.`, `12...`, `12…`, `...`; the number
/// (None for a bare `...`), the side it names and the bytes it takes.
fn move_marker(word: &str) -> Option<(Option<u32>, Color, usize)> {
    let digits = word.bytes().take_while(u8::is_ascii_digit).count();
    let rest = &word[digits..];
    let (side, dots) = if rest.starts_with("...") {
        (
            Color::Black,
            rest.bytes().take_while(|&b| b == b'.').count(),
        )
    } else if rest.starts_with('\u{2026}') {
        (Color::Black, '\u{2026}'.len_utf8())
    } else if digits > 0 && rest.starts_with('.') {
        (Color::White, 1)
    } else {
        return None;
    };
    let number = if digits == 0 {
        None
    } else {
        Some(word[..digits].parse::<u32>().ok().filter(|&n| n >= 1)?)
    };
    Some((number, side, digits + dots))
}

/// Castling written with zeros (`0-0`, `0-0-0`, as old movetext has it) read as `O-O`.
fn castling_with_zeros(word: &str) -> Option<String> {
    let body = word.trim_end_matches(['+', '#']);
    (body == "0-0" || body == "0-0-0").then(|| word.replace('0', "O"))
}

pub fn parse_sequence(text: &str) -> Result<Sequence, QueryError> {
    let mut moves = Vec::new();
    // The start the markers imply, as half-moves from move 1 (or a side alone), with the
    // character of the marker that set it.
    let mut pinned: Option<(i64, usize)> = None;
    let mut side: Option<(Color, usize)> = None;
    let mut at = 0;
    for tok in text.split_inclusive(' ') {
        let here = at + (tok.len() - tok.trim_start().len());
        at += tok.len();
        let mut word = tok.trim();
        let mut skipped = 0;
        if castling_with_zeros(word).is_none()
            && let Some((number, marked, len)) = move_marker(word)
        {
            let i = moves.len() as i64;
            match number {
                Some(n) => {
                    let start = half_moves(n, marked) - i;
                    if start < 0 {
                        return Err(error(
                            "--sequence",
                            text,
                            here,
                            format!("move {n} cannot come {i} plies after the first move"),
                            SEQUENCE_EXAMPLE,
                        ));
                    }
                    match pinned {
                        Some((s, _)) if s != start => {
                            return Err(error(
                                "--sequence",
                                text,
                                here,
                                "this move number does not follow from the one before it",
                                SEQUENCE_EXAMPLE,
                            ));
                        }
                        _ => pinned = Some((start, here)),
                    }
                }
                None => {
                    // `...`: the next move is Black's.
                    let first = if i % 2 == 0 { marked } else { marked.other() };
                    match side {
                        Some((s, _)) if s != first => {
                            return Err(error(
                                "--sequence",
                                text,
                                here,
                                "'...' marks a Black move here, but the moves before make it White's",
                                SEQUENCE_EXAMPLE,
                            ));
                        }
                        _ => side = Some((first, here)),
                    }
                }
            }
            word = &word[len..];
            skipped = len;
        }
        if word.is_empty() {
            continue;
        }
        let castle = castling_with_zeros(word);
        let word = castle
            .as_deref()
            .unwrap_or(word)
            .trim_end_matches(['!', '?']);
        match parse_strict(word) {
            Ok(m) => moves.push(m),
            Err(e) => {
                return Err(error(
                    "--sequence",
                    text,
                    here + skipped,
                    format!("'{word}': {e}"),
                    SEQUENCE_EXAMPLE,
                ));
            }
        }
    }
    if moves.is_empty() {
        return Err(error("--sequence", text, 0, "no move", SEQUENCE_EXAMPLE));
    }
    let start = match (pinned, side) {
        (Some((half, _)), Some((s, at))) if (half % 2 == 1) != (s == Color::Black) => {
            return Err(error(
                "--sequence",
                text,
                at,
                "'...' names the other side than the move numbers do",
                SEQUENCE_EXAMPLE,
            ));
        }
        (Some((half, _)), _) => {
            let side = if half % 2 == 0 {
                Color::White
            } else {
                Color::Black
            };
            Some(SeqStart::Move((half / 2 + 1) as u32, side))
        }
        (None, Some((s, _))) => Some(SeqStart::Side(s)),
        (None, None) => None,
    };
    Ok(Sequence { moves, start })
}

impl Sequence {
    /// Whether the sequence may begin at a position with `turn` to move in move `number`.
    pub fn may_start(&self, turn: Color, number: u32) -> bool {
        match self.start {
            None => true,
            Some(SeqStart::Side(side)) => side == turn,
            Some(SeqStart::Move(n, side)) => side == turn && n == number,
        }
    }

    /// Whether the moves from ply `from` on (`moves[from]` is the first) are this sequence,
    /// `pos` being the position before `moves[from]`.
    pub fn matches_at(&self, pos: &Position, moves: &[crate::chess::Move]) -> bool {
        if moves.len() < self.moves.len() || !self.may_start(pos.turn(), pos.fullmove_number()) {
            return false;
        }
        let mut p = *pos;
        for ((san, suffix), &m) in self.moves.iter().zip(moves) {
            if !san_is(&p, san, m) {
                return false;
            }
            p.play_unchecked(m);
            match suffix {
                Some(Suffix::Check) if !p.is_check() => return false,
                Some(Suffix::Mate) if !p.is_checkmate() => return false,
                _ => {}
            }
        }
        true
    }

    /// Whether the first move of the sequence can be `m` (a quick test before `matches_at`).
    pub fn first_is(&self, pos: &Position, m: crate::chess::Move) -> bool {
        self.moves
            .first()
            .is_some_and(|(san, _)| san_is(pos, san, m))
    }

    /// Whether the `i`-th move of the sequence is written as the move `m` (what a SAN move
    /// says of it: piece, capture, destination, promotion, castling; disambiguation only
    /// where written), its `+` or `#` left to the position after it (`suffix`).
    pub fn token_is(&self, i: usize, m: &PlyMove) -> bool {
        self.moves.get(i).is_some_and(|(san, _)| san_fits(san, m))
    }

    /// The `+` or `#` written after the `i`-th move, if any.
    pub fn suffix(&self, i: usize) -> Option<Suffix> {
        self.moves.get(i).and_then(|(_, s)| *s)
    }
}

/// `san_is` on a move's facts (`PlyMove`), as a decoder gives them without a `Position`.
fn san_fits(san: &San, m: &PlyMove) -> bool {
    match *san {
        San::Castle(side) => m.castle == Some(side),
        San::Normal {
            role,
            file,
            rank,
            capture,
            to,
            promotion,
        } => {
            m.castle.is_none()
                && m.to == to
                && m.promotion == promotion
                && m.role == role
                && capture == m.captured.is_some()
                && file.is_none_or(|f| m.from.file() == f)
                && rank.is_none_or(|r| m.from.rank() == r)
        }
    }
}

/// Whether the legal move `m` in `pos` is written `san` (disambiguation only where written).
fn san_is(pos: &Position, san: &San, m: crate::chess::Move) -> bool {
    san_fits(san, &PlyMove::of(pos, m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn material_forms() {
        let kr = parse_material("KRPKR").unwrap();
        assert_eq!(
            kr,
            Material::Signature([Some([0, 1, 0, 0, 1]), Some([0, 1, 0, 0, 0])])
        );
        assert!(kr.matches(&[[0, 1, 0, 0, 1], [0, 1, 0, 0, 0]]));
        assert!(!kr.matches(&[[0, 1, 0, 0, 0], [0, 1, 0, 0, 1]]));
        assert!(kr.mirrored().matches(&[[0, 1, 0, 0, 0], [0, 1, 0, 0, 1]]));
        let full = parse_material("QR2B2N2P8").unwrap();
        assert!(full.matches(&[[1, 2, 2, 2, 8], [0; 5]]));
        let imb = parse_material("R vs mPP").unwrap();
        // White: rook; Black: knight and two pawns more; the rest equal.
        assert!(imb.matches(&[[1, 2, 1, 1, 4], [1, 1, 1, 2, 6]]));
        assert!(imb.matches(&[[1, 1, 2, 1, 6], [1, 2, 1, 1, 4]]));
        assert!(!imb.matches(&[[1, 2, 1, 1, 4], [1, 1, 1, 2, 5]]));
        let down = parse_material("down>=3").unwrap();
        assert!(down.matches(&[[1, 2, 2, 2, 8], [1, 2, 1, 2, 8]]));
        assert!(!down.matches(&[[1, 2, 2, 2, 8], [1, 2, 2, 2, 7]]));
    }

    #[test]
    fn bad_material_is_located() {
        let e = parse_material("KRXKR").unwrap_err();
        assert_eq!(e.at, 2);
        assert!(e.reason.contains("'X'"), "{e}");
        assert!(e.to_string().contains("example"));
        let e = parse_material("KQ9P8K").unwrap_err();
        assert!(e.reason.contains("impossible"), "{e}");
        assert!(
            parse_material("KP9K")
                .unwrap_err()
                .reason
                .contains("9 pawns")
        );
        assert!(parse_material("down>=x").is_err());
    }

    #[test]
    fn patterns_with_wildcards() {
        let p = parse_pattern("r?????k?/?????ppp/8/8/8/8/5PPP/??????K? w").unwrap();
        let board = board_of("r5k1/5ppp/8/8/8/8/5PPP/6K1 w - - 0 1");
        assert!(p.matches(&board, Color::White));
        assert!(!p.matches(&board, Color::Black));
        let run = parse_pattern("*k*/*/*/*/*/*/*/*K*").unwrap();
        assert!(run.matches(&board, Color::White));
        let set = parse_pattern("[rq]*/*/*/*/*/*/*/*").unwrap();
        assert!(set.matches(&board, Color::White));
        let e = parse_pattern("P7/8/8/8/8/8/8/8").unwrap_err();
        assert!(e.reason.contains("first or last rank"), "{e}");
        let e = parse_pattern("8/8/8/8/8/8/8/7").unwrap_err();
        assert!(e.reason.contains("7 squares"), "{e}");
        let e = parse_pattern("8/8/8/8/8/8/8/7X").unwrap_err();
        assert_eq!(e.at, 15);
        // Kings: one of each colour, somewhere the pattern allows.
        let e = parse_pattern("8/8/8/3P4/8/8/8/8").unwrap_err();
        assert!(
            e.reason.contains("no square may hold the white king"),
            "{e}"
        );
        let e = parse_pattern("K7/8/8/3P4/8/8/8/8").unwrap_err();
        assert!(
            e.reason.contains("no square may hold the black king"),
            "{e}"
        );
        let e = parse_pattern("k7/8/8/8/8/8/8/K6K").unwrap_err();
        assert!(
            e.reason.contains("2 squares must hold the white king"),
            "{e}"
        );
        assert!(parse_pattern("????????/8/8/8/8/8/8/8").is_ok());
        assert!(parse_pattern("A7/a7/8/8/8/8/8/8").is_ok());
        assert!(parse_pattern("8/8/8/3P4/*/8/8/8").is_ok());
    }

    #[test]
    fn pawn_structures() {
        let board = board_of("4k3/pp3ppp/4p3/8/3P4/8/PP3PPP/4K3 w - - 0 1");
        assert!(parse_pawns("abdfgh/abefgh").unwrap().matches(&board));
        assert!(parse_pawns("a2 b2 d4 f2 g2 h2/*").unwrap().matches(&board));
        assert!(!parse_pawns("a2 b2 d4 f2 g2/*").unwrap().matches(&board));
        assert!(
            parse_pawns("a1/*")
                .unwrap_err()
                .reason
                .contains("first or last")
        );
        assert!(parse_pawns("abdfgh").is_err());
    }

    #[test]
    fn sequences() {
        let s = parse_sequence("12. Bxh7+ Kxh7 13.Ng5+").unwrap();
        assert_eq!(s.moves.len(), 3);
        assert_eq!(s.start, Some(SeqStart::Move(12, Color::White)));
        let e = parse_sequence("Bxh7+ Kxh9").unwrap_err();
        assert_eq!(e.at, 6);
    }

    #[test]
    fn sequence_move_numbers_pin_the_start() {
        let start = |t: &str| parse_sequence(t).unwrap().start;
        assert_eq!(start("c5 Nf3"), None);
        assert_eq!(start("1... c5"), Some(SeqStart::Move(1, Color::Black)));
        assert_eq!(start("1\u{2026}c5"), Some(SeqStart::Move(1, Color::Black)));
        assert_eq!(start("... c5"), Some(SeqStart::Side(Color::Black)));
        assert_eq!(start("e4 ... e5"), Some(SeqStart::Side(Color::White)));
        // A number later in the text pins the first move too.
        assert_eq!(start("e5 2. Nf3"), Some(SeqStart::Move(1, Color::Black)));
        assert_eq!(start("30. e4"), Some(SeqStart::Move(30, Color::White)));
        // Numbers and dots that contradict each other are refused where they stand.
        let e = parse_sequence("1. e4 3. e5").unwrap_err();
        assert_eq!((e.at, e.reason.contains("does not follow")), (6, true));
        let e = parse_sequence("... e5 ... Nf3").unwrap_err();
        assert_eq!(e.at, 7);
        assert!(parse_sequence("1. e4 e5 ... Nf3").is_err());
        assert!(parse_sequence("e4 1. e5").is_err());
        let s = parse_sequence("0-0-0 0-0").unwrap();
        assert_eq!(s.moves, parse_sequence("O-O-O O-O").unwrap().moves);
        // A game from a FEN counts moves from its move number.
        let seq = parse_sequence("12... Nf6").unwrap();
        assert!(seq.may_start(Color::Black, 12));
        assert!(!seq.may_start(Color::White, 12) && !seq.may_start(Color::Black, 11));
    }

    #[test]
    fn a_fen_text_says_which_fields_it_lacks_and_refuses_trailing_text() {
        let board = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR";
        let f = parse_fen_text(board).unwrap();
        assert!(f.without_turn && f.without_castling);
        let f = parse_fen_text(&format!("{board} b")).unwrap();
        assert!(!f.without_turn && f.without_castling);
        assert_eq!(f.position.turn(), Color::Black);
        let f = parse_fen_text(&format!("{board} b KQkq e3 0 1")).unwrap();
        assert!(!f.without_turn && !f.without_castling);
        let text = format!("{board} b KQkq e3 0 1 garbage");
        assert_eq!(parse_fen_text(&text).unwrap_err().at, text.len() - 7);
        assert!(parse_fen_text(&format!("{board} b KQkq - bm e5;")).is_ok());
        assert!(parse_fen_text(&format!("{board} b KQkq - bm e5")).is_err());
        // The query built from it relaxes what was left out and says so.
        let q = QueryText {
            fen: Some(board),
            ..QueryText::default()
        };
        let (query, notes) = q.parse().unwrap();
        assert!(query.identity.ignore_side && query.identity.ignore_castling);
        assert_eq!(notes.len(), 1);
        let full = format!("{board} b KQkq - 0 1");
        let q = QueryText {
            fen: Some(&full),
            ..QueryText::default()
        };
        let (query, notes) = q.parse().unwrap();
        assert!(query.identity.is_exact() && notes.is_empty());
    }

    #[test]
    fn imbalances_and_deficits_hold_four_plies_unless_told() {
        let held = |m: &str, h: Option<u32>| {
            let q = QueryText {
                material: Some(m),
                held: h,
                ..QueryText::default()
            };
            q.parse().map(|(q, _)| q.held)
        };
        assert_eq!(held("down>=3", None), Ok(DEFAULT_HELD_IMBALANCE));
        assert_eq!(held("R vs mPP", None), Ok(4));
        assert_eq!(held("KRPKR", None), Ok(1));
        assert_eq!(held("down>=3", Some(1)), Ok(1));
        assert_eq!(held("KRPKR", Some(0)).unwrap_err().option, "--held");
    }

    /// The bitboard forms (`FastPattern`, `Pawns::matches_position`) and the mirrored
    /// ones agree with the reference tests on a board of codes, on every position of a
    /// game with castling, captures, en passant and a promotion.
    #[test]
    fn fast_patterns_and_pawns_agree_with_the_reference() {
        use crate::positions::matcher::{board_of as codes, flip_board};
        let start = Position::new();
        let moves = crate::chess::san::line(
            start,
            "e4 d5 exd5 Qxd5 Nc3 Qa5 d4 c6 Nf3 Nf6 Bd2 Bf5 Nd5 Qxd5 c4 Qe4+ Be2 Bg4 h3 Bxf3 gxf3 Qxd4 O-O e5 c5 e4 Kh1 exf3 Bxf3 Qxc5 b4 Qxb4 a3 Qe7 a4 b5 axb5 a5 bxa6 Nbd7 a7 Rb8 a8=Q",
        );
        let patterns: Vec<Pattern> = [
            "*/*/*/3P4/*/*/*/*",
            "r?????k?/?????ppp/8/8/8/8/5PPP/??????K? w",
            "*/*/*/*/*/*/PP3PPP/* w",
            "*/[pP]*/*/*/*/*/*/*",
            "*Q*/*/*/*/*/*/*/*",
            "rnbqkbnr/pppppppp/8/8/*P*/8/*/RNBQKBNR b",
            "[Aa.]*/!*/*/*/*/*/*/*K*",
            "*/*/*/*/*/*/*/R*K* b",
        ]
        .iter()
        .map(|p| parse_pattern(p).unwrap())
        .collect();
        let pawns: Vec<Pawns> = [
            "abdfgh/abefgh",
            "a2 b2 d4 f2 g2 h2/*",
            "*/a7 b7 c6 f7 g7 h7",
            "abcdefgh/*",
        ]
        .iter()
        .map(|p| parse_pawns(p).unwrap())
        .collect();
        let mut pos = start;
        let mut agreed = [0usize; 2];
        for ply in 0..=moves.len() {
            if ply > 0 {
                pos.play_unchecked(moves[ply - 1]);
            }
            let b = codes(&pos);
            let f = flip_board(&b);
            for p in &patterns {
                let want = p.matches(&b, pos.turn());
                assert_eq!(p.fast().matches(&pos), want, "{p:?} at {ply}");
                let want_flipped = p.matches(&f, pos.turn().other());
                assert_eq!(
                    p.mirrored().fast().matches(&pos),
                    want_flipped,
                    "{p:?} at {ply}"
                );
                agreed[usize::from(want || want_flipped)] += 1;
                let n = p.needs();
                if want {
                    assert!(
                        n.material_ok(&counts(&b)) && n.home_ok(&pos),
                        "{p:?} at {ply}"
                    );
                }
                if want_flipped {
                    let m = n.mirrored();
                    assert!(
                        m.material_ok(&counts(&b)) && m.home_ok(&pos),
                        "{p:?} at {ply}"
                    );
                }
            }
            for p in &pawns {
                let want = p.matches(&b);
                assert_eq!(p.matches_position(&pos), want, "{p:?} at {ply}");
                assert_eq!(
                    p.mirrored().matches_position(&pos),
                    p.matches(&f),
                    "{p:?} at {ply}"
                );
                if want {
                    assert!(p.needs().material_ok(&counts(&b)) && p.needs().home_ok(&pos));
                }
            }
        }
        // Both answers occurred, so the comparison was tested both ways.
        assert!(agreed[0] > 50 && agreed[1] > 50, "{agreed:?}");
    }

    fn board_of(fen: &str) -> [u8; 64] {
        let pos = Position::from_fen(fen).unwrap();
        let mut b = [0u8; 64];
        for sq in Square::all() {
            b[sq.index()] = pos.piece_at(sq).map_or(0, crate::game::keys::code);
        }
        b
    }
}
