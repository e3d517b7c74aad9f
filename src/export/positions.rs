//! Position search over a database (docs/POSITIONS.md): the games of a selection that match
//! a query, with the first matching ply. Candidates come from the position index (keys up
//! to ply 24, tail records after it) for an exact position; the other forms scan the
//! selection, pruned by the tail records where they can be. Every candidate is replayed
//! (`positions::Matcher`), so the answer is exactly a replay's.

use super::ExportError;
use super::games::schema_version;
use crate::db::encode::{decode_moves, start_position};
use crate::db::positions::{for_each_tail, games_with_key, has_tables, unindexed};
use crate::db::select::{Filter, games_from};
use crate::positions::index::{castling_bits, home_left};
use crate::positions::matcher::board_of;
use crate::positions::query::{Material, counts};
use crate::positions::{Matcher, Query};
use rayon::prelude::*;
use rusqlite::{Connection, params_from_iter};
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

/// The selection's game ids, or None when the filter selects every game.
fn selected(conn: &Connection, filter: &Filter) -> Result<Option<HashSet<i64>>, ExportError> {
    let version = schema_version(conn)?;
    let (clause, values) = filter.to_sql(version);
    if clause == "1" {
        return Ok(None);
    }
    let sql = format!("SELECT g.id FROM {} WHERE {clause}", games_from(version));
    let mut stmt = conn.prepare(&sql)?;
    let ids = stmt
        .query_map(params_from_iter(values), |r| r.get::<_, i64>(0))?
        .collect::<rusqlite::Result<HashSet<i64>>>()?;
    Ok(Some(ids))
}

/// Replays each game of `ids` (ascending) against the query, in parallel, by chunks.
fn verify(
    conn: &Connection,
    matcher: &Matcher,
    ids: &[i64],
    found: &mut Found,
) -> Result<(), ExportError> {
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
    let moves = decode_moves(&start, blob).ok()?;
    matcher.first_match(&start, &moves)
}

/// The games of the selection that match the query, by id.
pub fn search(conn: &Connection, query: &Query, filter: &Filter) -> Result<Found, ExportError> {
    if !query.laws.is_empty() {
        return super::position_laws::search(conn, query, filter);
    }
    let matcher = Matcher::new(query);
    let selection = selected(conn, filter)?;
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
        // After the index's last ply: the games whose tail records allow one of the targets.
        let probes: Vec<_> = variants
            .iter()
            .map(|v| {
                let b = board_of(v);
                let castling = (!query.identity.ignore_castling).then(|| castling_bits(v));
                (home_left(&b), counts(&b), castling)
            })
            .collect();
        for_each_tail(conn, |g, t| {
            if probes
                .iter()
                .any(|(left, c, castling)| t.may_hold(*left, c, *castling))
            {
                ids.insert(i64::from(g));
            }
        })?;
        // Games the index does not cover are all candidates.
        for &(a, b) in &holes {
            let mut stmt =
                conn.prepare_cached("SELECT id FROM games WHERE id BETWEEN ?1 AND ?2")?;
            for id in stmt.query_map([a, b], |r| r.get::<_, i64>(0))? {
                ids.insert(id?);
            }
            found.unindexed += (b - a + 1) as u64;
        }
        let mut ids: Vec<i64> = ids
            .into_iter()
            .filter(|id| selection.as_ref().is_none_or(|s| s.contains(id)))
            .collect();
        ids.sort_unstable();
        verify(conn, &matcher, &ids, &mut found)?;
        found.hits.sort_by_key(|h| h.id);
        return Ok(found);
    }
    // A scan of the selection; a material signature prunes by the pawns left at the end
    // (they never come back).
    let mut pruned: HashSet<i64> = HashSet::new();
    if indexed
        && query.position.is_none()
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
    // One pass over the table (a statement per game cost a fifth of a scan), the games
    // matched in parallel by chunks.
    let mut stmt = conn.prepare("SELECT id, start_fen, variant, moves FROM games ORDER BY id")?;
    let mut rows = stmt.query([])?;
    let mut chunk: Vec<(i64, Option<String>, String, Vec<u8>)> = Vec::with_capacity(4096);
    let flush = |chunk: &mut Vec<(i64, Option<String>, String, Vec<u8>)>, found: &mut Found| {
        found.replayed += chunk.len() as u64;
        let hits: Vec<Hit> = chunk
            .par_iter()
            .filter_map(|(id, fen, variant, blob)| {
                let ply = match_game(&matcher, fen.as_deref(), variant, blob)?;
                Some(Hit { id: *id, ply })
            })
            .collect();
        found.hits.extend(hits);
        chunk.clear();
    };
    while let Some(r) = rows.next()? {
        let id: i64 = r.get(0)?;
        if pruned.contains(&id) || selection.as_ref().is_some_and(|s| !s.contains(&id)) {
            continue;
        }
        chunk.push((id, r.get(1)?, r.get(2)?, r.get(3)?));
        if chunk.len() == 4096 {
            flush(&mut chunk, &mut found);
        }
    }
    flush(&mut chunk, &mut found);
    found.unindexed = holes.iter().map(|&(a, b)| (b - a + 1) as u64).sum::<u64>();
    found.hits.sort_by_key(|h| h.id);
    Ok(found)
}

/// A matching game as `arbiter search` prints it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct HitRow {
    pub id: i64,
    pub white: Option<String>,
    pub black: Option<String>,
    pub date: Option<String>,
    pub result: Option<String>,
    pub ply: u32,
}

/// The rows of hits: players as written, date and result tags.
pub fn hit_rows(conn: &Connection, hits: &[Hit]) -> Result<Vec<HitRow>, ExportError> {
    let mut stmt = conn.prepare_cached(
        "SELECT w.name, b.name, g.date, g.result FROM games g \
         LEFT JOIN player_names w ON w.id = g.white_id \
         LEFT JOIN player_names b ON b.id = g.black_id WHERE g.id = ?1",
    )?;
    let mut rows = Vec::with_capacity(hits.len());
    for h in hits {
        let (white, black, date, result) =
            stmt.query_row([h.id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
        rows.push(HitRow {
            id: h.id,
            white,
            black,
            date,
            result,
            ply: h.ply,
        });
    }
    Ok(rows)
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
pub fn trees(
    conn: &Connection,
    hits: &[Hit],
    reverse: bool,
) -> Result<crate::positions::tree::Trees, ExportError> {
    let mut stmt = conn.prepare_cached(
        "SELECT start_fen, variant, moves, coalesce(lawful_result, result), white_elo, black_elo \
         FROM games WHERE id = ?1",
    )?;
    let mut trees = crate::positions::tree::Trees::default();
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
        let white = match result.as_deref() {
            Some("1-0") => Some(0),
            Some("1/2-1/2") => Some(1),
            Some("0-1") => Some(2),
            _ => None,
        };
        trees.add(&start, &moves, h.ply as usize, white, [we, be], reverse);
    }
    Ok(trees)
}
