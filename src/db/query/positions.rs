//! Position search over a database (docs/POSITIONS.md): the games of a selection that match
//! a query, with the first matching ply. Candidates come from the position index (keys up
//! to ply 24, the home-pawn rows after it) for an exact position; a material balance alone
//! is read from the games' spans; the other forms scan the selection, each game's spans
//! saying first which games and plies can match (`spans::ScanFilter`). Every candidate is
//! replayed (`positions::Matcher`), so the answer is exactly a replay's.

use super::{QueryError, Selection};
use crate::chess::Position;
use crate::db::encode::{decode_moves, decode_visit, start_position};
use crate::db::hits::{HitOrder, order_hits};
use crate::db::lean::lean_visit;
use crate::db::positions::{
    Facts, TailProbe, each_spans, for_each_tail, games_ranges, games_with_key, has_games_table,
    has_material_table, has_tables, material_candidates, material_ranges, spans_of, spans_rows,
    spans_rows_of, summaries_rows, tail_candidates, unindexed,
};
use crate::laws::result::WhiteResult;
use crate::positions::index::INDEX_PLIES;
use crate::positions::index::{castling_bits, facts_elo, facts_result, home_left};
use crate::positions::matcher::{ScanBoard, board_of};
use crate::positions::material::Sieve;
use crate::positions::query::{Counts, Material, counts};
use crate::positions::spans::{ScanFilter, SpanQuery, Window, WindowScratch, walk};
use crate::positions::tree::Trees;
use crate::positions::{Matcher, Query};
use rayon::prelude::*;
use rusqlite::Connection;
use std::collections::HashSet;

/// A matching game: its id and the first ply at which it matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    pub id: i64,
    pub ply: u32,
}

/// What a search found and what it cost.
#[derive(Debug, Default)]
pub struct Found {
    pub hits: Vec<Hit>,
    /// Games replayed to check them.
    pub replayed: u64,
    /// Games the index does not cover (scanned instead).
    pub unindexed: u64,
    /// Whether the index answered (an exact position) or the selection was scanned.
    pub indexed: bool,
}

/// Replays each game of `ids` (ascending) against the query, in parallel, by chunks.
fn verify(
    conn: &Connection,
    matcher: &Matcher,
    ids: &[i64],
    found: &mut Found,
) -> Result<(), QueryError> {
    let mut stmt =
        conn.prepare_cached("SELECT start_fen, variant, moves FROM games WHERE id = ?1")?;
    for chunk in ids.chunks(4096) {
        let mut rows = Vec::with_capacity(chunk.len());
        for &id in chunk {
            let row: Option<(Option<String>, String, Vec<u8>)> = stmt
                .query_row([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                .map(Some)
                .or_else(|e| match e {
                    rusqlite::Error::QueryReturnedNoRows => Ok(None),
                    e => Err(e),
                })?;
            if let Some(row) = row {
                rows.push((id, row));
            }
        }
        found.replayed += rows.len() as u64;
        let hits: Vec<Hit> = rows
            .par_iter()
            .filter_map(|(id, (fen, variant, blob))| {
                let ply = match_game(matcher, fen.as_deref(), variant, blob)?;
                Some(Hit { id: *id, ply })
            })
            .collect();
        found.hits.extend(hits);
    }
    Ok(())
}

/// The first matching ply of a stored game (None: no match, or it does not decode).
pub fn match_game(matcher: &Matcher, fen: Option<&str>, variant: &str, blob: &[u8]) -> Option<u32> {
    let start = start_position(fen, variant == "chess960").ok()?;
    if matcher.lone_position() {
        // Decoded only up to the match (1.e4 is found at ply 1 of a game of 80).
        let mut found = None;
        let _ = decode_visit(&start, blob, |pos, ply, _| {
            found = matcher.is_target(pos).then_some(ply as u32);
            found.is_some()
        });
        return found;
    }
    let moves = decode_moves(&start, blob).ok()?;
    matcher.first_match(&start, &moves)
}

/// The games of the selection that match the query, by id.
pub fn search(
    conn: &Connection,
    query: &Query,
    selection: &Selection,
) -> Result<Found, QueryError> {
    if !query.laws.is_empty() {
        return super::laws::search(conn, query, selection);
    }
    let matcher = Matcher::new(query);
    let mut found = Found::default();
    let indexed = has_tables(conn)?;
    let holes = if indexed {
        unindexed(conn)?
    } else {
        Vec::new()
    };
    if let (Some(pos), true) = (&query.position, indexed) {
        found.indexed = true;
        let variants = query.identity.exact_variants(pos);
        let mut ids: HashSet<i64> = HashSet::new();
        for v in &variants {
            for g in games_with_key(conn, v.repetition_key())? {
                ids.insert(i64::from(g));
            }
        }
        // After the index's last ply: the games whose home pawns and men allow a target.
        let probes = tail_probes(query, &variants);
        for g in tail_candidates(conn, &probes)? {
            ids.insert(i64::from(g));
        }
        // Games the index does not cover are all candidates.
        for &(a, b) in &holes {
            let mut stmt =
                conn.prepare_cached("SELECT id FROM games WHERE id BETWEEN ?1 AND ?2")?;
            for id in stmt.query_map([a, b], |r| r.get::<_, i64>(0))? {
                ids.insert(id?);
            }
            found.unindexed += (b - a + 1) as u64;
        }
        let mut ids: Vec<i64> = ids.into_iter().collect();
        ids.sort_unstable();
        selection.keep(conn, &mut ids)?;
        verify(conn, &matcher, &ids, &mut found)?;
        found.hits.sort_by_key(|h| h.id);
        return Ok(found);
    }
    // A scan of the selection; a material signature prunes by the pawns left at the end
    // (they never come back).
    let mut pruned: HashSet<i64> = HashSet::new();
    if indexed
        && query.position.is_none()
        && !(material_only(query) && has_games_table(conn)?)
        && let Some(Material::Signature(sides)) = &query.material
        && !query.identity.mirror
    {
        for_each_tail(conn, |g, t| {
            let fewer = sides
                .iter()
                .zip(&t.material_at_end)
                .any(|(want, end)| want.is_some_and(|w| w[4] < end[4]));
            if !t.custom_start && fewer {
                pruned.insert(i64::from(g));
            }
        })?;
    }
    // A material query alone reads the games' material spans where they are stored (those
    // the material index names, where it covers them), and the selection is asked of its
    // hits only.
    if let (Some(material), true) = (&query.material, material_only(query)) {
        let all = games_ranges(conn)?;
        if !all.is_empty() {
            let span_query = SpanQuery::new(material, query.held, query.identity.mirror);
            let mut hits = material_hits(conn, query, material, &span_query, &all)?;
            hits.sort_by_key(|h| h.id);
            let mut ids: Vec<i64> = hits.iter().map(|h| h.id).collect();
            selection.keep(conn, &mut ids)?;
            hits.retain(|h| ids.binary_search(&h.id).is_ok());
            found.hits = hits;
            let ranges = outside(conn, &all)?;
            if ranges.is_empty() {
                found.unindexed = holes.iter().map(|&(a, b)| (b - a + 1) as u64).sum::<u64>();
                return Ok(found);
            }
            scan(
                conn,
                &matcher,
                &ScanFilter::new(query),
                &ranges,
                &pruned,
                selection.ids(conn)?,
                &mut found,
            )?;
            found.unindexed = holes.iter().map(|&(a, b)| (b - a + 1) as u64).sum::<u64>();
            found.hits.sort_by_key(|h| h.id);
            return Ok(found);
        }
    }
    scan_selection(conn, query, selection, &matcher, &pruned, &mut found)?;
    found.unindexed = holes.iter().map(|&(a, b)| (b - a + 1) as u64).sum::<u64>();
    found.hits.sort_by_key(|h| h.id);
    Ok(found)
}

/// Every other scan: each game's material spans rule out games and plies before any
/// replay (`spans::ScanFilter`); the games without spans are replayed whole (but the
/// `pruned` ones).
fn scan_selection(
    conn: &Connection,
    query: &Query,
    selection: &Selection,
    matcher: &Matcher,
    pruned: &HashSet<i64>,
    found: &mut Found,
) -> Result<(), QueryError> {
    let scan_filter = ScanFilter::new(query);
    let rows = spans_rows(conn)?;
    let summaries = if scan_filter.asks_summaries() {
        summaries_rows(conn)?
    } else {
        Vec::new()
    };
    let mut plan = plan(&rows, &summaries, &scan_filter);
    drop(summaries);
    let mut ids: Vec<i64> = plan.iter().map(|p| p.0).collect();
    selection.keep(conn, &mut ids)?;
    plan.retain(|p| ids.binary_search(&p.0).is_ok());
    drop(ids);
    replay_planned(conn, matcher, &scan_filter, &plan, found)?;
    let ranges = if rows.is_empty() {
        vec![(i64::MIN, i64::MAX)]
    } else {
        let covered: Vec<(u32, u32)> = rows.iter().map(|r| (r.0, r.1)).collect();
        outside(conn, &covered)?
    };
    drop(rows);
    if !ranges.is_empty() {
        scan(
            conn,
            matcher,
            &scan_filter,
            &ranges,
            pruned,
            selection.ids(conn)?,
            found,
        )?;
    }
    Ok(())
}

/// The games of the spans rows that a scan must replay, and up to which ply
/// (`ScanFilter::window_summarised`: each game's summary asked first, where its range has
/// them), ascending by id; in parallel over the rows.
fn plan(
    rows: &[(u32, u32, Vec<u8>)],
    summaries: &[(u32, u32, Vec<u8>)],
    scan_filter: &ScanFilter,
) -> Vec<(i64, u32)> {
    rows.par_iter()
        .flat_map_iter(|(first, last, blob)| {
            let mut out = Vec::new();
            let mut scratch = WindowScratch::default();
            // The range's summaries by offset from its first game (none: never ruled out).
            let mut records: Vec<&[u8]> = Vec::new();
            if let Ok(i) = summaries.binary_search_by_key(first, |r| r.0)
                && summaries[i].1 == *last
            {
                each_spans(*first, &summaries[i].2, |_, rec| records.push(rec));
            }
            each_spans(*first, blob, |g, rec| {
                if rec.is_empty() {
                    // No game under this id (or one that does not decode).
                    return;
                }
                let summary = records.get((g - first) as usize).copied().unwrap_or(&[]);
                if let Window::UpTo(limit) =
                    scan_filter.window_summarised(rec, summary, &mut scratch)
                {
                    out.push((i64::from(g), limit));
                }
            });
            out
        })
        .collect()
}

/// A stored game as a scan reads it: id, start FEN, variant, moves, and the ply to replay
/// up to.
type ScanRow = (i64, Option<String>, String, Vec<u8>, u32);

/// Replays the planned games (`plan`), reading them on this thread while the pool matches
/// the chunks read before: by id when they are few, in one pass over the table when they
/// are many.
fn replay_planned(
    conn: &Connection,
    matcher: &Matcher,
    scan_filter: &ScanFilter,
    plan: &[(i64, u32)],
    found: &mut Found,
) -> Result<(), QueryError> {
    let (Some(&(lo, _)), Some(&(hi, _))) = (plan.first(), plan.last()) else {
        return Ok(());
    };
    found.replayed += plan.len() as u64;
    let hits = std::thread::scope(|s| -> Result<Vec<Hit>, QueryError> {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<ScanRow>>(2);
        let worker = s.spawn(move || {
            let mut hits = Vec::new();
            for chunk in rx {
                let found: Vec<Hit> = chunk
                    .par_iter()
                    .filter_map(|(id, fen, variant, blob, limit)| {
                        let ply =
                            scan_game(matcher, scan_filter, *limit, fen.as_deref(), variant, blob)?;
                        Some(Hit { id: *id, ply })
                    })
                    .collect();
                hits.extend(found);
            }
            hits
        });
        let read = || -> Result<(), QueryError> {
            let mut chunk: Vec<ScanRow> = Vec::with_capacity(CHUNK);
            let send = |chunk: &mut Vec<ScanRow>| {
                let full = std::mem::replace(chunk, Vec::with_capacity(CHUNK));
                // The worker only stops early by panicking, which the join passes on.
                let _ = tx.send(full);
            };
            // A rowid lookup costs a few pages; a pass reads every page of the range. The
            // mapped pages are let go after each chunk (`db::remap_pages`).
            if (plan.len() as i64) * 8 < hi - lo + 1 {
                let mut stmt = conn
                    .prepare_cached("SELECT start_fen, variant, moves FROM games WHERE id = ?1")?;
                for &(id, limit) in plan {
                    let mut rows = stmt.query([id])?;
                    if let Some(r) = rows.next()? {
                        chunk.push((id, r.get(0)?, r.get(1)?, r.get(2)?, limit));
                    }
                    drop(rows);
                    if chunk.len() == CHUNK {
                        send(&mut chunk);
                        crate::db::remap_pages(conn);
                    }
                }
            } else {
                let mut stmt = conn.prepare_cached(
                    "SELECT id, start_fen, variant, moves FROM games WHERE id BETWEEN ?1 AND ?2 ORDER BY id",
                )?;
                let mut k = 0;
                // Windows of ids, a statement each: the map is let go between them.
                let mut a = lo;
                while a <= hi {
                    let b = a.saturating_add(4 * CHUNK as i64 - 1).min(hi);
                    let mut rows = stmt.query([a, b])?;
                    while let Some(r) = rows.next()? {
                        let id: i64 = r.get(0)?;
                        while k < plan.len() && plan[k].0 < id {
                            k += 1;
                        }
                        if k == plan.len() {
                            break;
                        }
                        if plan[k].0 != id {
                            continue;
                        }
                        chunk.push((id, r.get(1)?, r.get(2)?, r.get(3)?, plan[k].1));
                        if chunk.len() == CHUNK {
                            send(&mut chunk);
                        }
                    }
                    drop(rows);
                    crate::db::remap_pages(conn);
                    a = b.saturating_add(1);
                }
            }
            send(&mut chunk);
            Ok(())
        };
        let read = read();
        drop(tx);
        let hits = worker
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e));
        read?;
        Ok(hits)
    })?;
    found.hits.extend(hits);
    Ok(())
}

/// Games a scan matches at a time.
const CHUNK: usize = 4096;

/// Where a scan of one game stops reading (`scan_game`): at `limit`, or `after` plies past
/// the first ply where none of the home pawns the query needs is left.
struct Stop<'a> {
    filter: &'a ScanFilter,
    limit: usize,
    /// Whether the query needs home pawns at all (else `home_alive` is never asked).
    home: bool,
    dead: Option<usize>,
}

impl Stop<'_> {
    #[inline]
    fn past<B: ScanBoard>(&mut self, pos: &B, ply: usize) -> bool {
        if self.home && self.dead.is_none() && !self.filter.home_alive(pos) {
            self.dead = Some(ply);
        }
        ply >= self.limit
            || self
                .dead
                .is_some_and(|d| ply >= d + self.filter.after as usize)
    }
}

/// The first matching ply of a stored game in a scan: read no further than `limit` plies,
/// nor beyond the plies after which none of the home pawns the query needs is left (and the
/// plies a sequence or held material needs after that), and matched on bitboards
/// (`Matcher::scanner`). The packed moves are read by the lean decoder (`db::lean`); a game
/// it gives up on, or a query that needs each position's key, by the checked one. None: no
/// match, or the game does not decode.
fn scan_game(
    matcher: &Matcher,
    scan_filter: &ScanFilter,
    limit: u32,
    fen: Option<&str>,
    variant: &str,
    blob: &[u8],
) -> Option<u32> {
    let start = start_position(fen, variant == "chess960").ok()?;
    let stop = || Stop {
        filter: scan_filter,
        limit: limit as usize,
        home: scan_filter.needs_home(),
        dead: None,
    };
    if !matcher.needs_key()
        && let Some(mut scanner) = matcher.scanner_from(&start)
    {
        let mut stop = stop();
        let mut found = None;
        let read = lean_visit(&start, blob, |b, ply, next| {
            found = scanner.visit_board(b, 0, ply, next);
            found.is_some() || stop.past(b, ply)
        });
        if read.is_ok() {
            return found;
        }
    }
    let mut stop = stop();
    match matcher.scanner_from(&start) {
        Some(mut scanner) => {
            let mut found = None;
            decode_visit(&start, blob, |pos, ply, next| {
                found = scanner.visit(pos, ply, next);
                found.is_some() || stop.past(pos, ply)
            })
            .ok()?;
            found
        }
        None => {
            let mut moves = Vec::new();
            decode_visit(&start, blob, |pos, ply, next| {
                if stop.past(pos, ply) {
                    return true;
                }
                moves.extend(next);
                false
            })
            .ok()?;
            matcher.first_match_fast(&start, &moves)
        }
    }
}

/// Replays the games of the id ranges (of the selection, but the pruned ones) against the
/// query.
fn scan(
    conn: &Connection,
    matcher: &Matcher,
    scan_filter: &ScanFilter,
    ranges: &[(i64, i64)],
    pruned: &HashSet<i64>,
    selection: Option<&HashSet<i64>>,
    found: &mut Found,
) -> Result<(), QueryError> {
    // The games without spans are replayed whole, read as the planned ones are.
    let mut plan = Vec::new();
    let mut stmt = conn.prepare("SELECT id FROM games WHERE id BETWEEN ?1 AND ?2 ORDER BY id")?;
    for &(a, b) in ranges {
        for id in stmt.query_map([a, b], |r| r.get::<_, i64>(0))? {
            let id = id?;
            if !pruned.contains(&id) && selection.is_none_or(|s| s.contains(&id)) {
                plan.push((id, u32::MAX));
            }
        }
    }
    replay_planned(conn, matcher, scan_filter, &plan, found)
}

/// Whether a query is a material balance alone (the spans answer it).
fn material_only(q: &Query) -> bool {
    q.material.is_some()
        && q.position.is_none()
        && q.patterns.is_empty()
        && q.pawns.is_none()
        && q.sequence.is_none()
        && q.laws.is_empty()
}

/// A material query's hits in the games of `position_games` (its ranges `all`): where the
/// material index covers a range, the spans of the games its classes name (most ranges
/// then read a few of their games' records), elsewhere every game's spans.
fn material_hits(
    conn: &Connection,
    query: &Query,
    material: &Material,
    span_query: &SpanQuery,
    all: &[(u32, u32)],
) -> Result<Vec<Hit>, QueryError> {
    let sieve = if has_material_table(conn)? {
        Sieve::new(material, query.identity.mirror)
    } else {
        None
    };
    let covered = match &sieve {
        Some(_) => material_ranges(conn)?,
        None => Vec::new(),
    };
    let mut hits = Vec::new();
    if let (Some(sieve), false) = (&sieve, covered.is_empty()) {
        let candidates = material_candidates(conn, sieve, query.held.max(1))?;
        let mut bytes = Vec::new();
        let ends = spans_of(conn, &candidates, &mut bytes)?;
        hits = (0..ends.len())
            .into_par_iter()
            .with_min_len(1024)
            .filter_map(|i| {
                let from = if i == 0 { 0 } else { ends[i - 1].1 };
                let ply = span_query.first_match_packed(&bytes[from..ends[i].1])?;
                Some(Hit {
                    id: i64::from(ends[i].0),
                    ply,
                })
            })
            .collect();
    }
    let rest: Vec<u32> = all
        .iter()
        .filter(|r| covered.binary_search_by_key(&r.0, |c| c.0).is_err())
        .map(|r| r.0)
        .collect();
    if !rest.is_empty() {
        let rows = if rest.len() == all.len() {
            spans_rows(conn)?
        } else {
            spans_rows_of(conn, &rest)?
        };
        hits.extend(span_hits(&rows, span_query));
    }
    Ok(hits)
}

/// The games of `position_games` rows (`(first, last, spans)`) whose spans match, in
/// parallel over the rows.
fn span_hits(rows: &[(u32, u32, Vec<u8>)], query: &SpanQuery) -> Vec<Hit> {
    rows.par_iter()
        .flat_map_iter(|(first, _, blob)| {
            let mut hits = Vec::new();
            each_spans(*first, blob, |g, rec| {
                if let Some(ply) = query.first_match_packed(rec) {
                    hits.push(Hit {
                        id: i64::from(g),
                        ply,
                    });
                }
            });
            hits
        })
        .collect()
}

/// The id ranges of the games table outside the rows' ranges.
fn outside(conn: &Connection, rows: &[(u32, u32)]) -> rusqlite::Result<Vec<(i64, i64)>> {
    let lo: Option<i64> = conn.query_row("SELECT min(id) FROM games", [], |r| r.get(0))?;
    let hi: Option<i64> = conn.query_row("SELECT max(id) FROM games", [], |r| r.get(0))?;
    let (Some(lo), Some(hi)) = (lo, hi) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    let mut next = lo;
    for &(a, b) in rows {
        if i64::from(a) > next {
            out.push((next, i64::from(a) - 1));
        }
        next = next.max(i64::from(b) + 1);
    }
    if next <= hi {
        out.push((next, hi));
    }
    Ok(out)
}

/// An exact position's count, first rows and move tree, from the key index (`explore`).
#[derive(Debug, Default)]
pub struct Explored {
    /// Every matching game of the selection.
    pub total: usize,
    /// The first `limit` of them by id, with their matching ply.
    pub hits: Vec<Hit>,
    pub trees: Option<Trees>,
    /// Games replayed: the rows shown, candidates the keys do not settle, tree games whose
    /// next move the keys do not settle.
    pub replayed: u64,
    pub unindexed: u64,
}

/// An exact position's answer without replaying the games the key index settles
/// (docs/POSITIONS.md): a game under the position's key reached it by ply `INDEX_PLIES`,
/// so it counts without a replay; only the rows shown are replayed (for their ply), and
/// candidates after the index's last ply (tail records) and unindexed games are replayed
/// to be counted. The tree's next move of a game is the one child position (the position
/// after a legal move) whose key also holds the game; a game under none or several is
/// replayed. None when the query is not one exact position alone (or `tree` with a
/// relaxation or `--mirror`, which match several positions): `search` answers those.
pub fn explore(
    conn: &Connection,
    query: &Query,
    selection: &Selection,
    limit: usize,
    tree: bool,
) -> Result<Option<Explored>, QueryError> {
    explore_ordered(conn, query, selection, limit, tree, HitOrder::Stored)
}

/// `explore`, its first `limit` rows the first in `order` (`db::hits::order_hits`) among
/// every match: the order is decided on the ids the index gives, and only the games shown
/// are replayed for their ply.
pub fn explore_ordered(
    conn: &Connection,
    query: &Query,
    selection: &Selection,
    limit: usize,
    tree: bool,
    order: HitOrder,
) -> Result<Option<Explored>, QueryError> {
    let Some(pos) = &query.position else {
        return Ok(None);
    };
    if query.material.is_some()
        || !query.patterns.is_empty()
        || query.pawns.is_some()
        || query.sequence.is_some()
        || !query.laws.is_empty()
        || !has_tables(conn)?
    {
        return Ok(None);
    }
    let variants = query.identity.exact_variants(pos);
    if tree && variants.len() != 1 {
        return Ok(None);
    }
    let matcher = Matcher::new(query);
    let mut keyed: Vec<u32> = Vec::new();
    for v in &variants {
        keyed.extend(games_with_key(conn, v.repetition_key())?);
    }
    keyed.sort_unstable();
    keyed.dedup();
    // Candidates the keys do not hold: after the index's last ply, or not indexed.
    let mut others: Vec<i64> = Vec::new();
    let probes = tail_probes(query, &variants);
    for g in tail_candidates(conn, &probes)? {
        if keyed.binary_search(&g).is_err() {
            others.push(i64::from(g));
        }
    }
    let mut wide: Vec<i64> = keyed.iter().map(|&g| i64::from(g)).collect();
    selection.keep(conn, &mut wide)?;
    keyed = wide.into_iter().map(|g| g as u32).collect();
    let mut out = Explored::default();
    for (a, b) in unindexed(conn)? {
        let mut stmt = conn.prepare_cached("SELECT id FROM games WHERE id BETWEEN ?1 AND ?2")?;
        for id in stmt.query_map([a, b], |r| r.get::<_, i64>(0))? {
            others.push(id?);
        }
        out.unindexed += (b - a + 1) as u64;
    }
    others.sort_unstable();
    others.dedup();
    selection.keep(conn, &mut others)?;
    let materials: Vec<[Counts; 2]> = probes.iter().map(|p| p.1).collect();
    keep_by_spans(conn, &mut others, &materials)?;
    let mut checked = Found::default();
    verify(conn, &matcher, &others, &mut checked)?;
    out.total = keyed.len() + checked.hits.len();
    // The first rows in the order asked for, among every match: keyed games (replayed for
    // their ply once chosen; 0 stands for it until then) and checked ones.
    let mut all: Vec<(i64, u32)> = keyed.iter().map(|&g| (i64::from(g), 0)).collect();
    all.extend(checked.hits.iter().map(|h| (h.id, h.ply)));
    all.sort_unstable();
    let first = if limit == 0 {
        Vec::new()
    } else {
        order_hits(conn, &all, order, limit)?
    };
    let mut rows = Found::default();
    let mut keyed_first: Vec<i64> = first
        .iter()
        .map(|&(id, _)| id)
        .filter(|&id| keyed.binary_search(&(id as u32)).is_ok())
        .collect();
    keyed_first.sort_unstable();
    verify(conn, &matcher, &keyed_first, &mut rows)?;
    let plies: std::collections::HashMap<i64, u32> = rows
        .hits
        .iter()
        .chain(&checked.hits)
        .map(|h| (h.id, h.ply))
        .collect();
    out.hits = first
        .iter()
        .filter_map(|&(id, _)| plies.get(&id).map(|&ply| Hit { id, ply }))
        .collect();
    out.replayed = checked.replayed + rows.replayed;
    if tree {
        let mut t = Trees::default();
        let unsettled = tree_from_keys(conn, &variants[0], &keyed, &mut t)?;
        let mut again = Found::default();
        verify(conn, &matcher, &unsettled, &mut again)?;
        again.hits.extend_from_slice(&checked.hits);
        add_replayed(conn, &again.hits, false, &mut t)?;
        out.replayed += again.replayed;
        out.trees = Some(t);
    }
    Ok(Some(out))
}

/// Drops the candidates (ascending) whose material spans show none of `materials` after
/// the key index's last ply: a tail record bounds the material, the spans give it at every
/// ply (at 1M games a position at ply 40 had thousands of tail candidates to replay).
fn keep_by_spans(
    conn: &Connection,
    ids: &mut Vec<i64>,
    materials: &[[Counts; 2]],
) -> Result<(), QueryError> {
    if ids.is_empty() || !has_games_table(conn)? {
        return Ok(());
    }
    let ranges: Vec<(i64, i64)> = conn
        .prepare_cached("SELECT first_game, last_game FROM position_games ORDER BY first_game")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut read = conn.prepare_cached("SELECT spans FROM position_games WHERE first_game = ?1")?;
    let mut keep = vec![true; ids.len()];
    for (first, last) in ranges {
        // Only the rows that hold a candidate are read.
        let from = ids.partition_point(|&id| id < first);
        let to = ids.partition_point(|&id| id <= last);
        if from == to {
            continue;
        }
        let mut rows = read.query([first])?;
        let Some(r) = rows.next()? else { continue };
        let mut k = from;
        let blob = r.get_ref(0)?.as_blob().map_err(rusqlite::Error::from)?;
        each_spans(first as u32, blob, |g, rec| {
            let g = i64::from(g);
            while k < to && ids[k] < g {
                k += 1;
            }
            if k == to || ids[k] != g || rec.is_empty() {
                return;
            }
            let mut seen = false;
            let complete = walk(rec, |mat, _, to| {
                seen |= to > INDEX_PLIES as u32 && materials.contains(mat);
                !seen
            });
            keep[k] = seen || !complete;
        });
    }
    let mut k = 0;
    ids.retain(|_| {
        k += 1;
        keep[k - 1]
    });
    Ok(())
}

/// What the tail records are asked for each target position: home pawns gone, material,
/// castling rights (None when the query ignores them).
fn tail_probes(query: &Query, variants: &[Position]) -> Vec<TailProbe> {
    variants
        .iter()
        .map(|v| {
            let b = board_of(v);
            let castling = (!query.identity.ignore_castling).then(|| castling_bits(v));
            (home_left(&b), counts(&b), castling)
        })
        .collect()
}

/// Adds to `t` each keyed game (ascending) whose next move from `pos` the index settles:
/// the one legal move whose resulting position's key also holds the game. Returns the
/// games it does not settle (under no child or several, or without stored facts).
fn tree_from_keys(
    conn: &Connection,
    pos: &Position,
    keyed: &[u32],
    t: &mut Trees,
) -> Result<Vec<i64>, QueryError> {
    const SEVERAL: u16 = u16::MAX;
    let moves: Vec<crate::chess::Move> = pos.legal_moves().iter().copied().collect();
    // Per keyed game: 0 no child yet, i + 1 the child of moves[i], SEVERAL more than one.
    let mut child = vec![0u16; keyed.len()];
    for (i, &m) in moves.iter().enumerate() {
        let Ok(next) = pos.play(m) else { continue };
        let games = games_with_key(conn, next.repetition_key())?;
        let mut k = 0;
        for g in games {
            // Both ascending: a merge, galloping past the keyed games below `g` (a binary
            // search from the start each time cost a third of the 1.e4 tree at 1M games).
            k = gallop(keyed, k, g);
            if k == keyed.len() {
                break;
            }
            if keyed[k] == g {
                child[k] = if child[k] == 0 { i as u16 + 1 } else { SEVERAL };
            }
        }
    }
    let (Some(&lo), Some(&hi)) = (keyed.first(), keyed.last()) else {
        return Ok(Vec::new());
    };
    let facts = Facts::load(conn, lo, hi)?;
    let mut unsettled = Vec::new();
    let mut cursor = 0;
    for (k, &g) in keyed.iter().enumerate() {
        match (child[k], facts.get_from(&mut cursor, g)) {
            (c, Some(f)) if c != 0 && c != SEVERAL => {
                let elo = [facts_elo(f, 0), facts_elo(f, 1)];
                t.add_next(pos, moves[c as usize - 1], facts_result(f), elo);
            }
            _ => unsettled.push(i64::from(g)),
        }
    }
    Ok(unsettled)
}

/// The first index at or after `from` of a sorted slice whose value is not below `x`.
fn gallop(v: &[u32], from: usize, x: u32) -> usize {
    let mut step = 1;
    let mut lo = from;
    while lo + step < v.len() && v[lo + step] < x {
        lo += step;
        step *= 2;
    }
    let hi = (lo + step + 1).min(v.len());
    lo + v[lo..hi].partition_point(|&y| y < x)
}

/// A stored game as the trees read it: start FEN, variant, moves, result, ratings.
type TreeRow = (
    Option<String>,
    String,
    Vec<u8>,
    Option<String>,
    Option<i64>,
    Option<i64>,
);

/// The next moves and move orders of the hits' games at their matching ply.
pub fn trees(conn: &Connection, hits: &[Hit], reverse: bool) -> Result<Trees, QueryError> {
    let mut trees = Trees::default();
    add_replayed(conn, hits, reverse, &mut trees)?;
    Ok(trees)
}

/// Adds the hits' games to `trees`, replaying each to its matching ply.
fn add_replayed(
    conn: &Connection,
    hits: &[Hit],
    reverse: bool,
    trees: &mut Trees,
) -> Result<(), QueryError> {
    let mut stmt = conn.prepare_cached(
        "SELECT start_fen, variant, moves, coalesce(lawful_result, result), white_elo, black_elo \
         FROM games WHERE id = ?1",
    )?;
    for h in hits {
        let (fen, variant, blob, result, we, be): TreeRow = stmt.query_row([h.id], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
            ))
        })?;
        let Ok(start) = start_position(fen.as_deref(), variant == "chess960") else {
            continue;
        };
        let Ok(moves) = decode_moves(&start, &blob) else {
            continue;
        };
        // The one result parser; the tree counts White's wins, draws and losses as 0, 1, 2.
        let white = result
            .as_deref()
            .and_then(|r| WhiteResult::parse(r.as_bytes()))
            .map(|r| match r {
                WhiteResult::WhiteWins => 0,
                WhiteResult::Draw => 1,
                WhiteResult::BlackWins => 2,
            });
        trees.add(&start, &moves, h.ply as usize, white, [we, be], reverse);
    }
    Ok(())
}
