//! The games a position search found, as rows a player reads: event, date, round, both
//! players with their ratings, result, ECO, and the moves around the matching ply (the move
//! that reached the position and the move played from it, each with its number). The order
//! (by date, by rating, as stored) is decided over every match before a limit cuts it, so
//! `--limit 20` gives the first twenty by that order, not the first twenty stored.

use super::encode::{decode_visit, start_position};
use super::lean::lean_visit;
use crate::chess::{Color, Move, Position, san::to_san};
use crate::positions::matcher::PlyMove;
use rusqlite::{Connection, OptionalExtension};
use std::cmp::Ordering;

/// How the matching games are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HitOrder {
    /// Oldest first; games without a date last; then as stored.
    #[default]
    Date,
    /// The highest average of the two ratings first (a game with one rating counts it
    /// alone, a game with none comes last); then by date.
    Elo,
    /// As stored (the import order).
    Stored,
}

impl HitOrder {
    pub const NAMES: [&'static str; 3] = ["date", "elo", "id"];

    pub fn parse(text: &str) -> Option<HitOrder> {
        match text {
            "date" => Some(HitOrder::Date),
            "elo" => Some(HitOrder::Elo),
            "id" => Some(HitOrder::Stored),
            _ => None,
        }
    }
}

/// A matching game as `arbiter search` prints it.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct HitRow {
    pub id: i64,
    pub event: Option<String>,
    pub date: Option<String>,
    pub round: Option<String>,
    pub white: Option<String>,
    pub white_elo: Option<i64>,
    pub black: Option<String>,
    pub black_elo: Option<i64>,
    pub result: Option<String>,
    pub eco: Option<String>,
    /// The first matching ply (0: the start position).
    pub ply: u32,
    /// The move that reached the position, numbered (`6. Be3`, `6... e5`); None at the start.
    pub last_move: Option<String>,
    /// The move played from the position, numbered; None where the game ends there.
    pub next_move: Option<String>,
}

/// `hits` (game id, ply) in `order`, the first `limit` of them. By date, the date index is
/// walked and the hits picked from it, so the cost follows the limit and the hits' share of
/// the games, not the number of hits (the first 20 of half the games read about 40 index
/// entries); by rating, each hit's ratings are read.
pub fn order_hits(
    conn: &Connection,
    hits: &[(i64, u32)],
    order: HitOrder,
    limit: usize,
) -> rusqlite::Result<Vec<(i64, u32)>> {
    match order {
        HitOrder::Stored => {
            let mut v = hits.to_vec();
            v.sort_unstable();
            v.truncate(limit);
            Ok(v)
        }
        HitOrder::Date => {
            // Few hits among many games: their dates looked up and sorted; else the date
            // index walked (it finds the first rows of a common position in a few entries,
            // where looking up each hit's date would read them all).
            let games: i64 =
                conn.query_row("SELECT coalesce(max(id), 0) FROM games", [], |r| r.get(0))?;
            if (hits.len() as i64).saturating_mul(SPARSE) < games {
                by_key(conn, hits, limit, false)
            } else {
                by_date(conn, hits, limit)
            }
        }
        HitOrder::Elo => by_key(conn, hits, limit, true),
    }
}

/// Hits rarer than one game in this many are ordered by looking up each one's date.
const SPARSE: i64 = 32;

fn by_date(
    conn: &Connection,
    hits: &[(i64, u32)],
    limit: usize,
) -> rusqlite::Result<Vec<(i64, u32)>> {
    let wanted: std::collections::HashMap<i64, u32> = hits.iter().copied().collect();
    let mut out = Vec::with_capacity(limit.min(hits.len()));
    // Dated games through the index, then the undated ones as stored.
    for sql in [
        "SELECT id FROM games INDEXED BY games_date WHERE year IS NOT NULL \
         ORDER BY year, month, day, id",
        "SELECT id FROM games WHERE year IS NULL ORDER BY id",
    ] {
        let mut stmt = conn.prepare_cached(sql)?;
        let mut rows = stmt.query([])?;
        while out.len() < limit.min(wanted.len())
            && let Some(r) = rows.next()?
        {
            let id: i64 = r.get(0)?;
            if let Some(&ply) = wanted.get(&id) {
                out.push((id, ply));
            }
        }
    }
    Ok(out)
}

/// A game's year, month, day, White's and Black's ratings, as stored.
type Dates = (
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
);

/// Each hit's date and ratings looked up, then sorted: by rating first (`rating`), or by date.
fn by_key(
    conn: &Connection,
    hits: &[(i64, u32)],
    limit: usize,
    rating: bool,
) -> rusqlite::Result<Vec<(i64, u32)>> {
    let mut stmt = conn
        .prepare_cached("SELECT year, month, day, white_elo, black_elo FROM games WHERE id = ?1")?;
    // (rating, date, id): the highest average first, then the oldest, then as stored.
    type Key = (Option<f64>, Option<(i64, i64, i64)>, i64);
    let mut keyed: Vec<(Key, u32)> = Vec::with_capacity(hits.len());
    for (i, &(id, ply)) in hits.iter().enumerate() {
        if i % 4096 == 4095 {
            super::remap_pages(conn);
        }
        let (y, m, d, we, be): Dates = stmt.query_row([id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })?;
        let date = y.map(|y| (y, m.unwrap_or(0), d.unwrap_or(0)));
        let elo = match (we, be) {
            (Some(a), Some(b)) => Some((a + b) as f64 / 2.0),
            (a, b) => a.or(b).map(|e| e as f64),
        };
        keyed.push(((elo, date, id), ply));
    }
    fn none_last<T>(a: Option<T>, b: Option<T>, cmp: impl Fn(T, T) -> Ordering) -> Ordering {
        match (a, b) {
            (Some(x), Some(y)) => cmp(x, y),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        }
    }
    keyed.sort_by(|(a, _), (b, _)| {
        let by_rating = if rating {
            none_last(a.0, b.0, |x, y| y.total_cmp(&x))
        } else {
            Ordering::Equal
        };
        by_rating
            .then_with(|| none_last(a.1, b.1, |x, y| x.cmp(&y)))
            .then(a.2.cmp(&b.2))
    });
    Ok(keyed
        .into_iter()
        .take(limit)
        .map(|((_, _, id), ply)| (id, ply))
        .collect())
}

/// The rows of `hits`, in their order.
pub fn hit_rows(conn: &Connection, hits: &[(i64, u32)]) -> rusqlite::Result<Vec<HitRow>> {
    let mut stmt = conn.prepare_cached(
        "SELECT e.name, g.date, g.round, w.name, g.white_elo, b.name, g.black_elo, g.result, \
         g.eco, g.start_fen, g.variant, g.moves FROM games g \
         LEFT JOIN events e ON e.id = g.event_id \
         LEFT JOIN player_names w ON w.id = g.white_id \
         LEFT JOIN player_names b ON b.id = g.black_id WHERE g.id = ?1",
    )?;
    let mut rows = Vec::with_capacity(hits.len());
    for (i, &(id, ply)) in hits.iter().enumerate() {
        if i % 4096 == 4095 {
            super::remap_pages(conn);
        }
        let found = stmt
            .query_row([id], |r| {
                let fen: Option<String> = r.get(9)?;
                let variant: String = r.get(10)?;
                let blob: Vec<u8> = r.get(11)?;
                let (last_move, next_move) = moves_around(fen.as_deref(), &variant, &blob, ply);
                Ok(HitRow {
                    id,
                    event: r.get(0)?,
                    date: r.get(1)?,
                    round: r.get(2)?,
                    white: r.get(3)?,
                    white_elo: r.get(4)?,
                    black: r.get(5)?,
                    black_elo: r.get(6)?,
                    result: r.get(7)?,
                    eco: r.get(8)?,
                    ply,
                    last_move,
                    next_move,
                })
            })
            .optional()?;
        rows.extend(found);
    }
    Ok(rows)
}

/// `12. e4` or `12... e5`: a move as a score sheet numbers it, from the position before it.
fn numbered(pos: &Position, san: &str) -> String {
    match pos.turn() {
        Color::White => format!("{}. {san}", pos.fullmove_number()),
        Color::Black => format!("{}... {san}", pos.fullmove_number()),
    }
}

/// The moves before and after `ply` of a stored game, numbered; None where there is none or
/// the game does not read back. The moves up to the position before `ply` are read on the
/// scan decoder's lean board (no move generation a ply); the two moves named are then
/// checked and written by the rules core. A blob the lean board does not read takes the
/// checked decoder all the way.
fn moves_around(
    fen: Option<&str>,
    variant: &str,
    blob: &[u8],
    ply: u32,
) -> (Option<String>, Option<String>) {
    let Ok(start) = start_position(fen, variant == "chess960") else {
        return (None, None);
    };
    lean_moves_around(&start, blob, ply as usize)
        .unwrap_or_else(|| checked_moves_around(&start, blob, ply as usize))
}

/// `moves_around` on the lean board; None where it falls back.
fn lean_moves_around(
    start: &Position,
    blob: &[u8],
    ply: usize,
) -> Option<(Option<String>, Option<String>)> {
    // The board before the last move (or at `ply` itself from the start), and the moves.
    let first = ply.saturating_sub(1);
    let mut board = None;
    let (mut last, mut next) = (None, None);
    lean_visit(start, blob, |b, at, mv| {
        if at == first {
            board = Some(*b);
            if ply == 0 {
                next = mv;
                return true;
            }
            last = mv;
        } else if at == ply {
            next = mv;
            return true;
        }
        false
    })
    .ok()?;
    let board = board?;
    let mut setup = board.to_setup();
    // The lean board keeps no clocks: the move number follows from the start's and the plies.
    let plies_from_white = first + usize::from(start.turn() == Color::Black);
    setup.fullmove_number = start.fullmove_number() + (plies_from_white / 2) as u32;
    let mut pos = Position::from_setup(&setup, start.is_chess960()).ok()?;
    let mut out = (None, None);
    if ply > 0 {
        let Some(m) = last else {
            return Some(out);
        };
        let m = legal(&pos, &m)?;
        out.0 = Some(numbered(&pos, to_san(&pos, m).as_str()));
        pos.play_unchecked(m);
    }
    if let Some(m) = next {
        let m = legal(&pos, &m)?;
        out.1 = Some(numbered(&pos, to_san(&pos, m).as_str()));
    }
    Some(out)
}

/// The rules core's legal move that the lean board's move names.
fn legal(pos: &Position, m: &PlyMove) -> Option<Move> {
    pos.legal_moves()
        .into_iter()
        .copied()
        .find(|l| l.from() == m.from && l.to() == m.to && l.promotion_role() == m.promotion)
}

/// `moves_around` by the checked decoder.
fn checked_moves_around(
    start: &Position,
    blob: &[u8],
    ply: usize,
) -> (Option<String>, Option<String>) {
    let (mut last, mut next) = (None, None);
    let _ = decode_visit(start, blob, |pos, at, mv| {
        if at + 1 == ply
            && let Some(m) = mv
        {
            last = Some(numbered(pos, to_san(pos, m).as_str()));
        }
        if at == ply {
            if let Some(m) = mv {
                next = Some(numbered(pos, to_san(pos, m).as_str()));
            }
            return true;
        }
        false
    });
    (last, next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::san::line;
    use crate::db::encode::encode_moves;

    #[test]
    fn the_moves_around_a_ply_are_numbered_as_on_a_score_sheet() {
        let moves = line(Position::new(), "e4 c5 Nf3 d6 d4");
        let blob = encode_moves(&moves);
        let around = |ply| moves_around(None, "standard", &blob, ply);
        assert_eq!(around(0), (None, Some("1. e4".to_owned())));
        assert_eq!(
            around(2),
            (Some("1... c5".to_owned()), Some("2. Nf3".to_owned()))
        );
        assert_eq!(around(5), (Some("3. d4".to_owned()), None));
        // A game from a FEN counts from its move number.
        let fen = "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 14";
        let start = start_position(Some(fen), false).unwrap();
        let blob = encode_moves(&line(start, "Nf3 d6"));
        assert_eq!(
            moves_around(Some(fen), "standard", &blob, 1),
            (Some("14. Nf3".to_owned()), Some("14... d6".to_owned()))
        );
    }

    #[test]
    fn the_lean_board_names_the_moves_the_checked_decoder_names() {
        use crate::db::encode::pack_moves;
        // Castling both sides, en passant, promotions with and without a capture, checks,
        // a game from a FEN with Black to move, and a Chess960 game castling.
        let games: &[(Option<&str>, bool, &str)] = &[
            (
                None,
                false,
                "e4 d5 e5 f5 exf6 Nxf6 d4 e6 Nf3 c5 c4 cxd4 Nxd4 Bb4+ Nc3 O-O Be2 Nc6 O-O Bxc3 \
                 bxc3 e5 Nxc6 bxc6 Ba3 Re8 Qxd5+ Kh8",
            ),
            (
                None,
                false,
                "d4 e5 dxe5 d6 Nc3 dxe5 Qxd8+ Kxd8 Bg5+ f6 O-O-O+ Bd7",
            ),
            (
                Some("4k3/1P6/8/8/8/8/6p1/4K2R b K - 3 40"),
                false,
                "gxh1=Q+ Kd2 Kd7 b8=N+",
            ),
            (
                Some("bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w EGeg - 0 1"),
                true,
                "g4 g5 Ng3 Ng6 Nf5 Nf4 O-O O-O",
            ),
        ];
        for &(fen, chess960, san) in games {
            let start = start_position(fen, chess960).unwrap();
            let moves = line(start, san);
            let blob = pack_moves(&start, &moves).unwrap();
            for ply in 0..=moves.len() + 1 {
                let lean = lean_moves_around(&start, &blob, ply);
                let checked = checked_moves_around(&start, &blob, ply);
                if ply <= moves.len() {
                    assert_eq!(lean, Some(checked.clone()), "{san} at ply {ply}");
                }
                assert!(
                    ply == 0 || checked.0.is_some() || ply > moves.len(),
                    "{san} {ply}"
                );
            }
        }
    }

    #[test]
    fn hit_orders_parse_by_name() {
        for name in HitOrder::NAMES {
            assert!(HitOrder::parse(name).is_some(), "{name}");
        }
        assert_eq!(HitOrder::parse("rating"), None);
    }
}
