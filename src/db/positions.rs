//! The position index's rows (docs/POSITIONS.md, `positions::index` for the layouts):
//! appended by the import's writer in the transaction of the games they index, built for
//! older games by `arbiter index` (one committed step at a time, so a killed run resumes),
//! and read by searches.

use crate::db::encode::{decode_moves, start_position};
use crate::positions::index::{
    FACTS_BYTES, GameEntry, TAIL_BYTES, Tail, bucket_games, bucket_of, build_buckets,
    build_pawn_rows, decode_bucket, encode_pairs, facts, game_entry, get_varint, pawn_games,
    pawn_row, put_varint,
};
use crate::positions::material;
use crate::positions::postings;
use crate::positions::query::Counts;
use crate::positions::summary;
use rayon::prelude::*;
use rusqlite::{Connection, OptionalExtension, params};

/// Games an import has written and not yet indexed: ids ascending and consecutive.
#[derive(Debug, Default)]
pub struct IndexBuffer {
    games: Vec<(u32, GameEntry)>,
}

/// Buffered games are written out when there are this many (memory: about 25 keys and a
/// tail record a game: some 80 MB at the peak of a flush).
pub const FLUSH_GAMES: usize = 65_536;

impl IndexBuffer {
    pub fn len(&self) -> usize {
        self.games.len()
    }

    pub fn is_empty(&self) -> bool {
        self.games.is_empty()
    }

    /// Adds game `id`; a gap in the ids (a game written without an entry) writes the games
    /// before it first, so that each written range covers every id in it.
    pub fn push(&mut self, conn: &Connection, id: i64, entry: GameEntry) -> rusqlite::Result<()> {
        let id = id as u32;
        if self.games.last().is_some_and(|(last, _)| *last + 1 != id) {
            self.flush(conn)?;
        }
        self.games.push((id, entry));
        if self.games.len() >= FLUSH_GAMES {
            self.flush(conn)?;
        }
        Ok(())
    }

    /// Writes the buffered games' rows (inside the caller's transaction).
    pub fn flush(&mut self, conn: &Connection) -> rusqlite::Result<()> {
        let games = std::mem::take(&mut self.games);
        write_range(conn, &games)
    }
}

/// Writes the rows of consecutive games.
fn write_range(conn: &Connection, games: &[(u32, GameEntry)]) -> rusqlite::Result<()> {
    let (Some(first), Some(last)) = (games.first(), games.last()) else {
        return Ok(());
    };
    let first_game = first.0;
    let keys: Vec<(u32, &[u64])> = games.iter().map(|(g, e)| (*g, &e.keys[..])).collect();
    // Schema version 10 on: the bit-packed rows; before, the rows of `position_keys`.
    if has_postings_table(conn)? {
        let mut stmt = conn.prepare_cached(include_str!("sql/insert_position_postings.sql"))?;
        for (bucket, blob) in postings::build_rows(first_game, &keys) {
            stmt.execute(params![bucket, first_game, blob])?;
        }
    } else {
        let mut stmt = conn.prepare_cached(include_str!("sql/insert_position_keys.sql"))?;
        for (bucket, blob) in build_buckets(first_game, &keys) {
            stmt.execute(params![bucket, first_game, blob])?;
        }
    }
    // With the home-pawn index (schema version 8) the tail records are not written: the
    // row says which ids the index covers.
    let pawns = has_pawns_table(conn)?;
    let mut records = Vec::new();
    if pawns {
        write_pawns(conn, games)?;
    } else {
        records.reserve(games.len() * TAIL_BYTES);
        for (g, e) in games {
            if let Some(t) = &e.tail {
                t.encode(*g, &mut records);
            }
        }
    }
    conn.prepare_cached(include_str!("sql/insert_position_tails.sql"))?
        .execute(params![first_game, last.0, records])?;
    if has_games_table(conn)? {
        let ids = games.iter().map(|(g, e)| (*g, e));
        let (facts, spans) = games_blobs(first_game, last.0, ids);
        conn.prepare_cached(include_str!("sql/insert_position_games.sql"))?
            .execute(params![first_game, last.0, facts, spans])?;
        if has_material_table(conn)? {
            let postings: Vec<(u32, &[(u32, u8)])> =
                games.iter().map(|(g, e)| (*g, &e.material[..])).collect();
            write_material(conn, first_game, last.0, &postings)?;
        }
        if has_summaries_table(conn)? {
            let records = games.iter().map(|(g, e)| (*g, &e.summary[..]));
            let blob = records_blob(first_game, last.0, records);
            conn.prepare_cached(include_str!("sql/insert_position_summaries.sql"))?
                .execute(params![first_game, last.0, blob])?;
        }
    }
    Ok(())
}

/// Whether the database has `position_summaries` (schema version 13 on).
pub fn has_summaries_table(conn: &Connection) -> rusqlite::Result<bool> {
    table_exists(conn, "position_summaries")
}

/// Every `position_summaries` row: `(first_game, last_game, blob)`, by first game.
pub fn summaries_rows(conn: &Connection) -> rusqlite::Result<Vec<(u32, u32, Vec<u8>)>> {
    if !has_summaries_table(conn)? {
        return Ok(Vec::new());
    }
    range_rows(
        conn,
        "SELECT first_game, last_game, summaries FROM position_summaries ORDER BY first_game",
    )
}

/// The `(first_game, last_game, blob)` rows of a statement over a table of ranges.
fn range_rows(conn: &Connection, sql: &str) -> rusqlite::Result<Vec<(u32, u32, Vec<u8>)>> {
    conn.prepare_cached(sql)?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect()
}

/// Writes the summaries of the `position_games` ranges that have none (indexed before
/// schema version 13), one committed range at a time (resumable), each range's games
/// replayed in parallel. Returns the ids covered.
pub fn build_summaries(
    conn: &Connection,
    mut progress: impl FnMut(u64, u64),
) -> rusqlite::Result<u64> {
    if !has_summaries_table(conn)? || !has_games_table(conn)? {
        return Ok(0);
    }
    let have: Vec<(u32, u32)> = conn
        .prepare_cached("SELECT first_game, last_game FROM position_summaries ORDER BY first_game")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let todo = ranges_to_build(
        conn,
        "SELECT first_game, last_game FROM position_games ORDER BY first_game",
        &have,
    )?;
    let total: u64 = todo.iter().map(|(a, b)| u64::from(b - a + 1)).sum();
    let mut done = 0u64;
    let mut stmt = conn.prepare_cached(
        "SELECT id, start_fen, variant, moves FROM games WHERE id BETWEEN ?1 AND ?2 ORDER BY id",
    )?;
    for (a, b) in todo {
        let rows: Vec<(u32, Option<String>, String, Vec<u8>)> = stmt
            .query_map(params![a, b], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })?
            .collect::<rusqlite::Result<_>>()?;
        let records: Vec<(u32, Vec<u8>)> = rows
            .par_iter()
            .map(|(id, fen, variant, blob)| {
                let record = start_position(fen.as_deref(), variant == "chess960")
                    .ok()
                    .and_then(|start| {
                        let moves = decode_moves(&start, blob).ok()?;
                        Some(summary::of(&start, &moves))
                    })
                    // A game that does not decode has no summary: never ruled out.
                    .unwrap_or_default();
                (*id, record)
            })
            .collect();
        let blob = records_blob(a, b, records.iter().map(|(g, r)| (*g, &r[..])));
        in_write_transaction(conn, || {
            conn.prepare_cached(include_str!("sql/insert_position_summaries.sql"))?
                .execute(params![a, b, blob])
                .map(|_| ())
        })?;
        crate::db::remap_pages(conn);
        done += u64::from(b - a + 1);
        progress(done, total);
    }
    Ok(done)
}

/// Whether the database has `position_postings` (schema version 10 on).
pub fn has_postings_table(conn: &Connection) -> rusqlite::Result<bool> {
    table_exists(conn, "position_postings")
}

/// Whether the database has `position_material` (schema version 9 on).
pub fn has_material_table(conn: &Connection) -> rusqlite::Result<bool> {
    table_exists(conn, "position_material")
}

/// The row id of a material row of the range from `first_game` whose first class is `class`.
fn material_row(first_game: u32, class: u32) -> i64 {
    i64::from(first_game) << 31 | i64::from(class)
}

/// Writes the material rows of the games `first` to `last` (those with postings, ascending)
/// and the row saying which ids the range covers.
fn write_material(
    conn: &Connection,
    first: u32,
    last: u32,
    games: &[(u32, &[(u32, u8)])],
) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare_cached(include_str!("sql/insert_position_material.sql"))?;
    for (class, blob) in material::build_rows(first, games) {
        stmt.execute(params![material_row(first, class), blob])?;
    }
    let mut range = Vec::new();
    put_varint(u64::from(last - first), &mut range);
    stmt.execute(params![-1 - i64::from(first), range])?;
    Ok(())
}

/// The ranges of ids `(first, last)` the material index covers, by first game.
pub fn material_ranges(conn: &Connection) -> rusqlite::Result<Vec<(u32, u32)>> {
    if !has_material_table(conn)? {
        return Ok(Vec::new());
    }
    ranges_in(
        conn,
        "SELECT -1 - row, entries FROM position_material WHERE row < 0",
    )
}

/// Whether the database has the table `name`.
fn table_exists(conn: &Connection, name: &str) -> rusqlite::Result<bool> {
    // Asked on every key look-up (which key tables to read): the statement is kept.
    conn.prepare_cached("SELECT count(*) FROM sqlite_master WHERE name = ?1")?
        .query_row([name], |r| r.get::<_, i64>(0))
        .map(|n| n > 0)
}

/// The ranges `(first, last)` of a range-marker query: rows of the first game id and a blob
/// that starts with the range's length as a varint. Sorted by first game.
fn ranges_in(conn: &Connection, sql: &str) -> rusqlite::Result<Vec<(u32, u32)>> {
    let mut stmt = conn.prepare_cached(sql)?;
    let mut rows = stmt.query([])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let first: i64 = r.get(0)?;
        let blob = r.get_ref(1)?.as_blob()?;
        let mut at = 0;
        if let Some(n) = get_varint(blob, &mut at) {
            out.push((first as u32, first as u32 + n as u32));
        }
    }
    out.sort_unstable();
    Ok(out)
}

/// The games of the material index (every range it covers) whose classes `sieve` wants add
/// up to `held` plies at least (the postings' bounds), ascending.
pub fn material_candidates(
    conn: &Connection,
    sieve: &material::Sieve,
    held: u32,
) -> rusqlite::Result<Vec<u32>> {
    let ranges = material_ranges(conn)?;
    let mut out = Vec::new();
    // Per range (the rows come by first game): the plies of each game, in a byte (the sums
    // saturate at 255: a game there is walked whatever `held` is; a range's bytes then stay
    // in the nearest cache, where 4 bytes a game cost a third of the query in misses).
    let held = held.min(255) as u8;
    let mut range: Option<(u32, u32)> = None;
    let mut plies: Vec<u8> = Vec::new();
    let mut memo: Vec<(u32, bool)> = Vec::new();
    let mut cursor = 0;
    let flush = |range: Option<(u32, u32)>, plies: &[u8], out: &mut Vec<u32>| {
        if let Some((first, _)) = range {
            let hits = plies.iter().enumerate().filter(|&(_, &p)| p >= held);
            out.extend(hits.map(|(i, _)| first + i as u32));
        }
    };
    let mut stmt = conn
        .prepare_cached("SELECT row, entries FROM position_material WHERE row >= 0 ORDER BY row")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let row: i64 = r.get(0)?;
        let first = (row >> 31) as u32;
        if range.is_none_or(|(a, _)| a != first) {
            flush(range, &plies, &mut out);
            // A row of a range without its covering row is not read (a write in progress).
            let Ok(i) = ranges.binary_search_by_key(&first, |r| r.0) else {
                range = None;
                continue;
            };
            range = Some(ranges[i]);
            plies.clear();
            plies.resize((ranges[i].1 - first + 1) as usize, 0);
            cursor = 0;
        }
        let Some((first, last)) = range else { continue };
        let blob = r.get_ref(1)?.as_blob()?;
        // The classes come in ascending order within a range, and the ranges have mostly
        // the same ones: the sieve's answers are kept in a sorted list walked along.
        material::each_posting(
            first,
            blob,
            |k| {
                while cursor < memo.len() && memo[cursor].0 < k {
                    cursor += 1;
                }
                if cursor < memo.len() && memo[cursor].0 == k {
                    return memo[cursor].1;
                }
                let want = sieve.wants(k);
                memo.insert(cursor, (k, want));
                want
            },
            |g, p| {
                if g <= last {
                    let e = &mut plies[(g - first) as usize];
                    *e = e.saturating_add(p.min(255) as u8);
                }
            },
        );
    }
    flush(range, &plies, &mut out);
    Ok(out)
}

/// The spans records of the games `ids` (ascending) where `position_games` holds them, one
/// after the other in `bytes`: `(game, end of its record in bytes)`, ascending.
pub fn spans_of(
    conn: &Connection,
    ids: &[u32],
    bytes: &mut Vec<u8>,
) -> rusqlite::Result<Vec<(u32, usize)>> {
    let mut out = Vec::with_capacity(ids.len());
    let (Some(&lo), Some(&hi)) = (ids.first(), ids.last()) else {
        return Ok(out);
    };
    let mut stmt = conn.prepare_cached(
        "SELECT first_game, spans FROM position_games \
         WHERE last_game >= ?1 AND first_game <= ?2 ORDER BY first_game",
    )?;
    let mut rows = stmt.query(params![lo, hi])?;
    let mut k = 0;
    while let Some(r) = rows.next()? {
        let first: u32 = r.get(0)?;
        let blob = r.get_ref(1)?.as_blob()?;
        each_spans(first, blob, |g, rec| {
            while k < ids.len() && ids[k] < g {
                k += 1;
            }
            if k < ids.len() && ids[k] == g {
                bytes.extend_from_slice(rec);
                out.push((g, bytes.len()));
            }
        });
    }
    Ok(out)
}

/// Writes the material rows of the `position_games` ranges the material index does not
/// cover (indexed before schema version 9), from their spans, one committed range at a
/// time (resumable). Returns the ids covered.
pub fn build_material(
    conn: &Connection,
    mut progress: impl FnMut(u64, u64),
) -> rusqlite::Result<u64> {
    if !has_material_table(conn)? || !has_games_table(conn)? {
        return Ok(0);
    }
    let todo = ranges_to_build(
        conn,
        "SELECT first_game, last_game FROM position_games ORDER BY first_game",
        &material_ranges(conn)?,
    )?;
    let total: u64 = todo.iter().map(|(a, b)| u64::from(b - a + 1)).sum();
    let mut done = 0u64;
    for (a, b) in todo {
        let blob: Vec<u8> = conn.query_row(
            "SELECT spans FROM position_games WHERE first_game = ?1",
            [a],
            |r| r.get(0),
        )?;
        let mut records: Vec<(u32, &[u8])> = Vec::new();
        each_spans(a, &blob, |g, rec| records.push((g, rec)));
        let postings: Vec<(u32, Vec<(u32, u8)>)> = records
            .par_iter()
            .filter_map(|&(g, rec)| material::postings(rec).map(|p| (g, p)))
            .collect();
        let refs: Vec<(u32, &[(u32, u8)])> = postings.iter().map(|(g, p)| (*g, &p[..])).collect();
        in_write_transaction(conn, || write_material(conn, a, b, &refs))?;
        done += u64::from(b - a + 1);
        progress(done, total);
    }
    Ok(done)
}

/// The `facts` and `spans` blobs of `position_games` for ids `first` to `last` from the
/// entries of the games there are (ascending).
fn games_blobs<'a>(
    first: u32,
    last: u32,
    games: impl Iterator<Item = (u32, &'a GameEntry)>,
) -> (Vec<u8>, Vec<u8>) {
    let mut facts = vec![0u8; (last - first + 1) as usize * FACTS_BYTES];
    let spans = records_blob(
        first,
        last,
        games.map(|(g, e)| {
            let at = (g - first) as usize * FACTS_BYTES;
            facts[at..at + FACTS_BYTES].copy_from_slice(&e.facts.to_le_bytes());
            (g, &e.spans[..])
        }),
    );
    (facts, spans)
}

/// The per-game records of ids `first` to `last` (ascending, each a varint length and its
/// bytes; an id without a game an empty record), as `each_spans` reads them.
fn records_blob<'a>(
    first: u32,
    last: u32,
    games: impl Iterator<Item = (u32, &'a [u8])>,
) -> Vec<u8> {
    let mut out = Vec::new();
    let mut next = first;
    for (g, record) in games {
        out.extend(std::iter::repeat_n(0, (g - next) as usize));
        put_varint(record.len() as u64, &mut out);
        out.extend_from_slice(record);
        next = g + 1;
    }
    out.extend(std::iter::repeat_n(0, (last + 1 - next) as usize));
    out
}

/// Writes the home-pawn rows of consecutive games and the row of their range.
fn write_pawns(conn: &Connection, games: &[(u32, GameEntry)]) -> rusqlite::Result<()> {
    let (Some(first), Some(last)) = (games.first(), games.last()) else {
        return Ok(());
    };
    let postings: Vec<(u32, &[_])> = games.iter().map(|(g, e)| (*g, &e.pawns[..])).collect();
    let mut stmt = conn.prepare_cached(include_str!("sql/insert_position_pawns.sql"))?;
    for (left, blob) in build_pawn_rows(first.0, &postings) {
        stmt.execute(params![pawn_row(first.0, left), blob])?;
    }
    let mut range = Vec::new();
    put_varint(u64::from(last.0 - first.0), &mut range);
    stmt.execute(params![-1 - i64::from(first.0), range])?;
    Ok(())
}

/// Whether the database has `position_pawns` (schema version 8 on).
pub fn has_pawns_table(conn: &Connection) -> rusqlite::Result<bool> {
    table_exists(conn, "position_pawns")
}

/// The ranges of ids `(first, last)` the home-pawn index covers, by first game.
pub fn pawn_ranges(conn: &Connection) -> rusqlite::Result<Vec<(u32, u32)>> {
    if !has_pawns_table(conn)? {
        return Ok(Vec::new());
    }
    ranges_in(
        conn,
        "SELECT -1 - row, entries FROM position_pawns WHERE row < 0",
    )
}

/// What a target position is asked of the index after its last ply: the home pawns gone,
/// the material (Q R B N P counts of each side) and the castling rights (None: ignored).
pub type TailProbe = (u16, [Counts; 2], Option<u8>);

/// The games that may reach one of the probes after the key index's last ply (a superset:
/// the caller replays them), ascending: from the home-pawn index where it covers the ids,
/// from the tail records elsewhere (ranges indexed before schema version 8).
pub fn tail_candidates(conn: &Connection, probes: &[TailProbe]) -> rusqlite::Result<Vec<u32>> {
    let covered = pawn_ranges(conn)?;
    let mut out = Vec::new();
    if !covered.is_empty() {
        let mut asked: Vec<(u16, u8)> = probes
            .iter()
            .map(|(left, c, _)| (*left, c.iter().flatten().sum::<u8>() + 2))
            .collect();
        asked.sort_unstable();
        asked.dedup();
        // Per range, the row whose first set is the last at or before the one asked.
        let mut stmt = conn.prepare_cached(
            "SELECT entries FROM position_pawns WHERE row BETWEEN ?1 AND ?2 \
             ORDER BY row DESC LIMIT 1",
        )?;
        for (left, men) in asked {
            for &(first, _) in &covered {
                let mut rows = stmt.query([pawn_row(first, 0), pawn_row(first, left)])?;
                if let Some(r) = rows.next()? {
                    pawn_games(first, r.get_ref(0)?.as_blob()?, left, men, &mut out);
                }
            }
        }
    }
    // Ranges the home-pawn index does not cover: their tail records.
    let firsts: Vec<u32> = conn
        .prepare_cached("SELECT first_game FROM position_tails ORDER BY first_game")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let lefts: Vec<u8> = probes.iter().map(|p| p.0.count_ones() as u8).collect();
    let mut read =
        conn.prepare_cached("SELECT records FROM position_tails WHERE first_game = ?1")?;
    for first in firsts {
        if covered.binary_search_by_key(&first, |r| r.0).is_ok() {
            continue;
        }
        let mut rows = read.query([first])?;
        while let Some(r) = rows.next()? {
            for rec in r.get_ref(0)?.as_blob()?.chunks_exact(TAIL_BYTES) {
                if lefts.iter().any(|&k| Tail::may_have_left(rec, k)) {
                    let (g, t) = Tail::decode(rec);
                    if probes
                        .iter()
                        .any(|(left, c, castling)| t.may_hold(*left, c, *castling))
                    {
                        out.push(g);
                    }
                }
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// Writes the home-pawn rows of the index's ranges that have none (indexed before schema
/// version 8), one committed range at a time (resumable), and empties their tail records,
/// which those rows replace. Returns the ids covered.
pub fn build_pawns(conn: &Connection, mut progress: impl FnMut(u64, u64)) -> rusqlite::Result<u64> {
    if !has_pawns_table(conn)? {
        return Ok(0);
    }
    let todo = ranges_to_build(
        conn,
        "SELECT first_game, last_game FROM position_tails ORDER BY first_game",
        &pawn_ranges(conn)?,
    )?;
    let total: u64 = todo.iter().map(|(a, b)| u64::from(b - a + 1)).sum();
    let mut done = 0u64;
    for (a, b) in todo {
        let all = whole_range(entries_of(conn, i64::from(a), i64::from(b))?, a, b);
        in_write_transaction(conn, || {
            write_pawns(conn, &all)?;
            conn.execute(
                "UPDATE position_tails SET records = x'' WHERE first_game = ?1",
                [a],
            )?;
            Ok(())
        })?;
        done += u64::from(b - a + 1);
        progress(done, total);
    }
    Ok(done)
}

/// The ranges `(first, last)` a range query (`sql`: first and last game, by first game)
/// names that `covered` (an index's own ranges, sorted) does not start: what a build of that
/// index still has to do.
fn ranges_to_build(
    conn: &Connection,
    sql: &str,
    covered: &[(u32, u32)],
) -> rusqlite::Result<Vec<(u32, u32)>> {
    let ranges: Vec<(u32, u32)> = conn
        .prepare(sql)?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(ranges
        .into_iter()
        .filter(|&(a, _)| covered.binary_search_by_key(&a, |r| r.0).is_err())
        .collect())
}

/// Runs `f` in an immediate (write) transaction: committed if it succeeds, rolled back if not.
fn in_write_transaction<T>(
    conn: &Connection,
    f: impl FnOnce() -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    conn.execute_batch("BEGIN IMMEDIATE")?;
    match f() {
        Ok(v) => {
            conn.execute_batch("COMMIT")?;
            Ok(v)
        }
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(e)
        }
    }
}

/// The entries of ids `first` to `last` with an empty entry added at either end where no
/// game has that id, so the range written covers every id in it.
fn whole_range(mut entries: Vec<(u32, GameEntry)>, first: u32, last: u32) -> Vec<(u32, GameEntry)> {
    if entries.first().is_none_or(|(g, _)| *g != first) {
        entries.insert(0, (first, GameEntry::default()));
    }
    if entries.last().is_some_and(|(g, _)| *g < last) {
        entries.push((last, GameEntry::default()));
    }
    entries
}

/// Whether the database has `position_games` (schema version 7 on).
pub fn has_games_table(conn: &Connection) -> rusqlite::Result<bool> {
    table_exists(conn, "position_games")
}

/// The facts (`positions::index::facts`) of the games of a range of ids, where stored.
#[derive(Debug, Default)]
pub struct Facts {
    /// `(first_game, last_game, 4 bytes a game)`, by first game.
    rows: Vec<(u32, u32, Vec<u8>)>,
}

impl Facts {
    /// Every stored row overlapping ids `lo` to `hi`.
    pub fn load(conn: &Connection, lo: u32, hi: u32) -> rusqlite::Result<Facts> {
        if !has_games_table(conn)? {
            return Ok(Facts::default());
        }
        let mut stmt = conn.prepare_cached(
            "SELECT first_game, last_game, facts FROM position_games \
             WHERE last_game >= ?1 AND first_game <= ?2 ORDER BY first_game",
        )?;
        let rows = stmt
            .query_map(params![lo, hi], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<rusqlite::Result<Vec<(u32, u32, Vec<u8>)>>>()?;
        Ok(Facts { rows })
    }

    /// `get` for ids asked in ascending order: `cursor` (from 0) follows the rows.
    pub fn get_from(&self, cursor: &mut usize, id: u32) -> Option<u32> {
        while *cursor + 1 < self.rows.len() && self.rows[*cursor + 1].0 <= id {
            *cursor += 1;
        }
        let (first, last, blob) = self.rows.get(*cursor)?;
        if id < *first || id > *last {
            return None;
        }
        let at = (id - first) as usize * FACTS_BYTES;
        let b = blob.get(at..at + FACTS_BYTES)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// The facts of game `id`, None when no row holds it.
    pub fn get(&self, id: u32) -> Option<u32> {
        let i = self.rows.partition_point(|r| r.0 <= id).checked_sub(1)?;
        let (first, last, blob) = &self.rows[i];
        if id > *last {
            return None;
        }
        let at = (id - first) as usize * FACTS_BYTES;
        let b = blob.get(at..at + FACTS_BYTES)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}

/// Every `position_games` row's spans: `(first_game, last_game, blob)`, by first game.
pub fn spans_rows(conn: &Connection) -> rusqlite::Result<Vec<(u32, u32, Vec<u8>)>> {
    if !has_games_table(conn)? {
        return Ok(Vec::new());
    }
    range_rows(
        conn,
        "SELECT first_game, last_game, spans FROM position_games ORDER BY first_game",
    )
}

/// The ranges of ids `(first, last)` of the `position_games` rows, by first game.
pub fn games_ranges(conn: &Connection) -> rusqlite::Result<Vec<(u32, u32)>> {
    if !has_games_table(conn)? {
        return Ok(Vec::new());
    }
    conn.prepare_cached("SELECT first_game, last_game FROM position_games ORDER BY first_game")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect()
}

/// The spans of the `position_games` rows with these first games: `(first_game, last_game,
/// blob)`, by first game.
pub fn spans_rows_of(
    conn: &Connection,
    firsts: &[u32],
) -> rusqlite::Result<Vec<(u32, u32, Vec<u8>)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT first_game, last_game, spans FROM position_games WHERE first_game = ?1",
    )?;
    let mut out = Vec::new();
    for &f in firsts {
        let mut rows = stmt.query([f])?;
        if let Some(r) = rows.next()? {
            out.push((r.get(0)?, r.get(1)?, r.get(2)?));
        }
    }
    Ok(out)
}

/// Calls `each(game, record)` for each game of a spans blob (an empty record: no game, or
/// one that does not decode).
pub fn each_spans<'a>(first: u32, blob: &'a [u8], mut each: impl FnMut(u32, &'a [u8])) {
    let mut at = 0;
    let mut g = first;
    while at < blob.len() {
        // Most records are shorter than 128 bytes: their length is read inline.
        let n = match blob[at] {
            b if b < 0x80 => {
                at += 1;
                u64::from(b)
            }
            _ => match get_varint(blob, &mut at) {
                Some(n) => n,
                None => return,
            },
        };
        let end = (at + n as usize).min(blob.len());
        each(g, &blob[at..end]);
        at = end;
        g += 1;
    }
}

/// Ranges of ids the index covers without `position_games` rows (indexed before schema
/// version 7).
pub fn missing_games(conn: &Connection) -> rusqlite::Result<Vec<(i64, i64)>> {
    if !has_games_table(conn)? {
        return Ok(Vec::new());
    }
    let read = |sql: &str| -> rusqlite::Result<Vec<(i64, i64)>> {
        conn.prepare(sql)?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect()
    };
    let covered = read("SELECT first_game, last_game FROM position_tails ORDER BY first_game")?;
    let have = read("SELECT first_game, last_game FROM position_games ORDER BY first_game")?;
    let mut out = Vec::new();
    let mut h = have.iter().peekable();
    for (a, b) in covered {
        let mut next = a;
        while next <= b {
            while h.peek().is_some_and(|&&(_, hb)| hb < next) {
                h.next();
            }
            match h.peek() {
                Some(&&(ha, hb)) if ha <= next => next = hb + 1,
                Some(&&(ha, _)) if ha <= b => {
                    out.push((next, ha - 1));
                    next = ha;
                }
                _ => {
                    out.push((next, b));
                    next = b + 1;
                }
            }
        }
    }
    Ok(out)
}

/// Writes the `position_games` rows of indexed games that have none, one committed step
/// of `step` ids at a time (resumable like `build`), the games of a step replayed in
/// parallel. Returns the ids covered.
pub fn build_games(
    conn: &Connection,
    step: i64,
    mut progress: impl FnMut(u64, u64),
) -> rusqlite::Result<u64> {
    let missing = missing_games(conn)?;
    let total: i64 = missing.iter().map(|(a, b)| b - a + 1).sum();
    let mut done = 0u64;
    for (a, b) in missing {
        let mut lo = a;
        while lo <= b {
            let hi = (lo + step.max(1) - 1).min(b);
            let entries = entries_of(conn, lo, hi)?;
            let (facts, spans) =
                games_blobs(lo as u32, hi as u32, entries.iter().map(|(g, e)| (*g, e)));
            conn.prepare_cached(include_str!("sql/insert_position_games.sql"))?
                .execute(params![lo, hi, facts, spans])?;
            done += (hi - lo + 1) as u64;
            progress(done, total as u64);
            lo = hi + 1;
        }
    }
    Ok(done)
}

/// The index entries of the stored games with ids `lo` to `hi`, replayed in parallel.
fn entries_of(conn: &Connection, lo: i64, hi: i64) -> rusqlite::Result<Vec<(u32, GameEntry)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, start_fen, variant, moves, \
         coalesce(lawful_result, result), white_elo, black_elo \
         FROM games WHERE id BETWEEN ?1 AND ?2 ORDER BY id",
    )?;
    let rows: Vec<BuildRow> = stmt
        .query_map(params![lo, hi], |r| {
            let result: Option<String> = r.get(4)?;
            let f = facts(result.as_deref(), r.get(5)?, r.get(6)?);
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, f))
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows
        .par_iter()
        .map(|(id, fen, variant, blob, f)| {
            let mut entry = start_position(fen.as_deref(), variant == "chess960")
                .ok()
                .and_then(|start| {
                    decode_moves(&start, blob)
                        .ok()
                        .map(|m| game_entry(&start, &m))
                })
                // A game that does not decode has no positions to find.
                .unwrap_or_default();
            entry.facts = *f;
            (*id as u32, entry)
        })
        .collect())
}

/// Whether the database has the index's tables (schema version 5 on).
pub fn has_tables(conn: &Connection) -> rusqlite::Result<bool> {
    table_exists(conn, "position_tails")
}

/// Ranges of game ids (inclusive) the index does not cover, in order.
pub fn unindexed(conn: &Connection) -> rusqlite::Result<Vec<(i64, i64)>> {
    // Two statements: SQLite answers min() or max() alone from the rowid's b-tree, but both
    // in one statement scan the table (80 ms at 1M games).
    let lo: Option<i64> = conn.query_row("SELECT min(id) FROM games", [], |r| r.get(0))?;
    let hi: Option<i64> = conn.query_row("SELECT max(id) FROM games", [], |r| r.get(0))?;
    let (Some(lo), Some(hi)) = (lo, hi) else {
        return Ok(Vec::new());
    };
    let mut covered: Vec<(i64, i64)> = Vec::new();
    if has_tables(conn)? {
        let mut stmt =
            conn.prepare("SELECT first_game, last_game FROM position_tails ORDER BY first_game")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        for r in rows {
            covered.push(r?);
        }
    }
    let mut holes = Vec::new();
    let mut next = lo;
    for (a, b) in covered {
        if a > next {
            holes.push((next, (a - 1).min(hi)));
        }
        next = next.max(b + 1);
    }
    if next <= hi {
        holes.push((next, hi));
    }
    holes.retain(|(a, b)| a <= b);
    Ok(holes)
}

/// How many games the index does not cover.
pub fn unindexed_games(conn: &Connection) -> rusqlite::Result<u64> {
    let mut n = 0;
    for (a, b) in unindexed(conn)? {
        n += conn.query_row(
            "SELECT count(*) FROM games WHERE id BETWEEN ?1 AND ?2",
            params![a, b],
            |r| r.get::<_, i64>(0),
        )? as u64;
    }
    Ok(n)
}

/// The games whose indexed positions (up to `INDEX_PLIES`) may include `key` (a fingerprint
/// may collide: the caller replays them), ascending: from the rows of both layouts (those
/// of `position_keys` not yet re-encoded, and `position_postings`).
pub fn games_with_key(conn: &Connection, key: u64) -> rusqlite::Result<Vec<u32>> {
    let (bucket, fp) = bucket_of(key);
    let mut out = Vec::new();
    let bucket_rows = |table: &str, read: &mut dyn FnMut(u32, &[u8])| -> rusqlite::Result<()> {
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT row & 4294967295, entries FROM {table} WHERE row BETWEEN ?1 << 32 AND (?1 << 32) | 4294967295"
        ))?;
        let mut rows = stmt.query([bucket])?;
        while let Some(r) = rows.next()? {
            let first: i64 = r.get(0)?;
            read(first as u32, r.get_ref(1)?.as_blob()?);
        }
        Ok(())
    };
    bucket_rows("position_keys", &mut |first, blob| {
        bucket_games(first, blob, fp, &mut out)
    })?;
    if has_postings_table(conn)? {
        bucket_rows("position_postings", &mut |first, blob| {
            postings::row_games(first, blob, fp, &mut out)
        })?;
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// Rows of `position_keys` re-encoded per committed step of `convert_keys`, and the most
/// bytes of them a step reads (one row at least).
pub const CONVERT_STEP: usize = 256;
const CONVERT_BYTES: usize = 8 << 20;

/// Re-encodes the rows of `position_keys` (written before schema version 10) into
/// `position_postings`, `step` rows (and at most about 8 MB of them) per committed step, each old row deleted in the step
/// that writes its new one (a killed run keeps its steps; the next goes on from there, and
/// a search reads both tables meanwhile). A row whose id is already in the new table is
/// merged with it. Returns the rows converted.
pub fn convert_keys(
    conn: &Connection,
    step: usize,
    mut progress: impl FnMut(u64, u64),
) -> rusqlite::Result<u64> {
    if !has_postings_table(conn)? {
        return Ok(0);
    }
    let total: i64 = conn.query_row("SELECT count(*) FROM position_keys", [], |r| r.get(0))?;
    let mut done = 0u64;
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    loop {
        // Up to `step` rows and `CONVERT_BYTES` of them (at 10M games a bucket's row is
        // 120 KB on average, the start position's 10 MB).
        let mut batch: Vec<(i64, Vec<u8>)> = Vec::new();
        let mut bytes = 0;
        {
            let mut stmt = conn
                .prepare_cached("SELECT row, entries FROM position_keys ORDER BY row LIMIT ?1")?;
            let mut rows = stmt.query([step.max(1) as i64])?;
            while bytes < CONVERT_BYTES
                && let Some(r) = rows.next()?
            {
                let blob: Vec<u8> = r.get(1)?;
                bytes += blob.len();
                batch.push((r.get(0)?, blob));
            }
        }
        if batch.is_empty() {
            break;
        }
        in_write_transaction(conn, || {
            let mut existing =
                conn.prepare_cached("SELECT entries FROM position_postings WHERE row = ?1")?;
            let mut insert = conn.prepare_cached(
                "INSERT OR REPLACE INTO position_postings (row, entries) VALUES (?1, ?2)",
            )?;
            let mut delete = conn.prepare_cached("DELETE FROM position_keys WHERE row = ?1")?;
            for (row, blob) in &batch {
                let first = (row & 0xFFFF_FFFF) as u32;
                pairs.clear();
                // A pair takes a byte at least in the old rows: reserved at once, the list
                // of the largest row (10M games: the start position's) is not doubled.
                pairs.reserve(blob.len());
                decode_bucket(first, blob, &mut pairs);
                if let Some(have) = existing
                    .query_row([row], |r| r.get::<_, Vec<u8>>(0))
                    .optional()?
                {
                    postings::decode(first, &have, &mut pairs);
                }
                insert.execute(params![row, postings::encode_pairs(first, &mut pairs)])?;
                delete.execute([row])?;
            }
            Ok(())
        })?;
        done += batch.len() as u64;
        progress(done, total as u64);
    }
    Ok(done)
}

/// Calls `each` with every stored tail record.
pub fn for_each_tail(conn: &Connection, each: impl FnMut(u32, &Tail)) -> rusqlite::Result<()> {
    for_each_tail_where(conn, |_| true, each)
}

/// Calls `each` with every stored tail record that passes `pass` (a test on the stored
/// bytes, before decoding: at 1M games most records fail `Tail::may_have_left`).
pub fn for_each_tail_where(
    conn: &Connection,
    pass: impl Fn(&[u8]) -> bool,
    mut each: impl FnMut(u32, &Tail),
) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare_cached("SELECT records FROM position_tails")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let blob = r.get_ref(0)?.as_blob()?;
        for rec in blob.chunks_exact(TAIL_BYTES) {
            if pass(rec) {
                let (g, t) = Tail::decode(rec);
                each(g, &t);
            }
        }
    }
    Ok(())
}

/// A game as `build` reads it: id, start, variant, moves, facts.
type BuildRow = (i64, Option<String>, String, Vec<u8>, u32);

/// Games per committed step of `build`.
pub const BUILD_STEP: i64 = 16_384;

/// Indexes every game the index does not cover, one committed step of `step` ids at a
/// time (a killed run keeps its finished steps and goes on from there), the games of a step
/// replayed in parallel. `progress(done, total)` after each step. Returns the games indexed.
pub fn build(
    conn: &Connection,
    step: i64,
    mut progress: impl FnMut(u64, u64),
) -> rusqlite::Result<u64> {
    let total = unindexed_games(conn)?;
    let mut done = 0u64;
    for (a, b) in unindexed(conn)? {
        let mut lo = a;
        while lo <= b {
            let hi = (lo + step.max(1) - 1).min(b);
            let entries = entries_of(conn, lo, hi)?;
            let stored = entries.len();
            // Ids in the step without a game are covered too: the range is written whole.
            let all = whole_range(entries, lo as u32, hi as u32);
            in_write_transaction(conn, || write_range(conn, &all))?;
            done += stored as u64;
            progress(done, total);
            lo = hi + 1;
        }
    }
    Ok(done)
}

/// When some bucket has more than `max_rows` rows, rewrites the key table (`position_postings`
/// from schema version 10 on, else `position_keys`) with one row per bucket, in one
/// transaction: each import commit adds a row per bucket, each row costs its key and
/// offsets again, and rows added in the middle of the table split its pages (half empty).
/// The new table is written in key order, so its pages are full. Returns whether it
/// rewrote.
pub fn compact(conn: &Connection, max_rows: i64) -> rusqlite::Result<bool> {
    type Decode = fn(u32, &[u8], &mut Vec<(u32, u32)>);
    type Encode = fn(u32, &mut [(u32, u32)]) -> Vec<u8>;
    let (table, decode, encode): (&str, Decode, Encode) = if has_postings_table(conn)? {
        (
            "position_postings",
            postings::decode,
            postings::encode_pairs,
        )
    } else {
        ("position_keys", decode_bucket, encode_pairs)
    };
    let most: Option<i64> = conn.query_row(
        &format!("SELECT max(n) FROM (SELECT count(*) AS n FROM {table} GROUP BY row >> 32)"),
        [],
        |r| r.get(0),
    )?;
    if most.is_none_or(|n| n <= max_rows) {
        return Ok(false);
    }
    let run = || -> rusqlite::Result<()> {
        conn.execute_batch(&format!(
            "CREATE TABLE {table}_new (row INTEGER PRIMARY KEY, entries BLOB NOT NULL)"
        ))?;
        let mut read = conn.prepare(&format!("SELECT row, entries FROM {table} ORDER BY row"))?;
        let mut insert = conn.prepare(&format!(
            "INSERT INTO {table}_new (row, entries) VALUES (?1, ?2)"
        ))?;
        let mut rows = read.query([])?;
        let mut current: Option<(i64, u32)> = None;
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        let mut put = |bucket: i64, first: u32, pairs: &mut Vec<(u32, u32)>| {
            let blob = encode(first, pairs);
            pairs.clear();
            insert.execute(params![bucket << 32 | i64::from(first), blob])
        };
        while let Some(r) = rows.next()? {
            let row: i64 = r.get(0)?;
            let (bucket, first) = (row >> 32, (row & 0xFFFF_FFFF) as u32);
            match current {
                Some((b, f)) if b == bucket => current = Some((b, f.min(first))),
                Some((b, f)) => {
                    put(b, f, &mut pairs)?;
                    current = Some((bucket, first));
                }
                None => current = Some((bucket, first)),
            }
            decode(first, r.get_ref(1)?.as_blob()?, &mut pairs);
        }
        if let Some((b, f)) = current {
            put(b, f, &mut pairs)?;
        }
        drop(rows);
        conn.execute_batch(&format!(
            "DROP TABLE {table}; ALTER TABLE {table}_new RENAME TO {table}"
        ))
    };
    in_write_transaction(conn, run)?;
    Ok(true)
}

/// The index's size: bytes of its tables (`dbstat`), when SQLite has that table.
pub fn index_bytes(conn: &Connection) -> Option<i64> {
    conn.query_row(
        "SELECT sum(pgsize) FROM dbstat WHERE name IN ('position_keys', 'position_postings', 'position_tails', 'position_games', 'position_pawns', 'position_material', 'position_summaries')",
        [],
        |r| r.get::<_, Option<i64>>(0),
    )
    .optional()
    .ok()
    .flatten()
    .flatten()
}
