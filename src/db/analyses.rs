//! Storage of the analysis stage: which selected games a run would analyse (a game is done
//! when its analysis read is at least as strong as the run's: `search::strength`), and each
//! analysis kept beside the game's others, one per settings, with the strongest flagged as
//! the one read (migration 011: `analyses` and `evaluations` are views of it).

use super::record::AnalysisRecord;
use crate::chess::Move;
use crate::search::strength::Strength;
use rusqlite::{Connection, OptionalExtension, params, params_from_iter};
use std::collections::{BTreeMap, HashMap};

/// A stored game the stage will analyse: what replaying it needs and where its findings point.
#[derive(Debug, Clone)]
pub struct PendingGame {
    pub id: i64,
    /// The FEN tag, `None` for the standard start.
    pub start_fen: Option<String>,
    pub chess960: bool,
    /// `games.moves`, either layout (`db::encode::decode_moves`).
    pub moves: Vec<u8>,
    /// The Result tag.
    pub result: Option<String>,
    /// The game ended by checkmate on the board.
    pub mate: bool,
    pub line: u64,
    pub byte: u64,
}

/// The games a selection holds, split by whether this run would add anything to them.
#[derive(Debug, Default)]
pub struct Selection {
    pub selected: u64,
    /// Skipped (unless `redo`): the game's analysis is at least as strong as this run's.
    pub done: u64,
    /// Of `done`, analysed under the very same settings.
    pub same_settings: u64,
    /// The rest of `done`, by the analysis they keep (`Strength`'s text).
    pub stronger: BTreeMap<String, u64>,
    pub pending: Vec<PendingGame>,
}

/// The games `games` selects. A game whose analysis read is at least as strong as one made
/// under `settings` is done, unless `redo`.
pub fn select(
    conn: &Connection,
    games: &super::query::Selection,
    settings: &str,
    redo: bool,
) -> rusqlite::Result<Selection> {
    let (from, clause, values) = games.sql();
    let sql = format!(
        "SELECT g.id, g.start_fen, g.variant, g.moves, g.result, g.termination, g.line, \
         g.byte_offset, an.settings FROM {from} LEFT JOIN analysis_runs an ON an.game_id = g.id \
         AND an.current = 1 WHERE {clause} ORDER BY g.id"
    );
    let wanted = Strength::of_settings(settings);
    // Most games share a few settings: each is read once.
    let mut strengths: HashMap<String, Strength> = HashMap::new();
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query(params_from_iter(values))?;
    let mut sel = Selection::default();
    while let Some(r) = rows.next()? {
        sel.selected += 1;
        let stored: Option<String> = r.get(8)?;
        if let (false, Some(stored)) = (redo, stored) {
            if stored == settings {
                sel.done += 1;
                sel.same_settings += 1;
                continue;
            }
            let strength = strengths
                .entry(stored)
                .or_insert_with_key(|s| Strength::of_settings(s));
            if *strength >= wanted {
                sel.done += 1;
                *sel.stronger.entry(strength.to_string()).or_default() += 1;
                continue;
            }
        }
        let variant: String = r.get(2)?;
        let termination: Option<String> = r.get(5)?;
        sel.pending.push(PendingGame {
            id: r.get(0)?,
            start_fen: r.get(1)?,
            chess960: variant == "chess960",
            moves: r.get(3)?,
            result: r.get(4)?,
            mate: termination.as_deref() == Some("checkmate"),
            line: r.get::<_, i64>(6)? as u64,
            byte: r.get::<_, i64>(7)? as u64,
        });
    }
    Ok(sel)
}

/// An analysis finding as stored: located at its game's first line.
#[derive(Debug, Clone)]
pub struct AnalysisFindingRecord {
    pub code: &'static str,
    pub severity: &'static str,
    pub ply: u32,
    pub detail: String,
}

/// Stores game `game`'s analysis made under `a.settings`, in place of an earlier one under the
/// same settings and beside those under others; it becomes the one read unless the game has a
/// stronger one, and then its `analysis.*` findings replace the game's. No analysis (the
/// engine failed twice): the game's analyses stay as they are, and `findings` are added in
/// place of an earlier `analysis.engine-failed`. Inside the caller's transaction. Returns
/// whether the analysis stored is the one read.
pub fn store(
    conn: &Connection,
    game: &PendingGame,
    analysis: Option<&AnalysisRecord>,
    findings: &[AnalysisFindingRecord],
) -> rusqlite::Result<bool> {
    let Some(a) = analysis else {
        conn.prepare_cached(include_str!("sql/delete_engine_failed.sql"))?
            .execute(params![game.id])?;
        insert_findings(conn, game, findings)?;
        return Ok(false);
    };
    for sql in [
        include_str!("sql/delete_run_evaluations.sql"),
        include_str!("sql/delete_analysis_run.sql"),
    ] {
        conn.prepare_cached(sql)?
            .execute(params![game.id, a.settings])?;
    }
    let read: Option<(i64, String)> = conn
        .prepare_cached(include_str!("sql/current_analysis.sql"))?
        .query_row(params![game.id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    // The newer of two as strong is read: `--redo` under the same strength replaces it.
    let current = match &read {
        None => true,
        Some((_, settings)) => {
            Strength::of_settings(&a.settings) >= Strength::of_settings(settings)
        }
    };
    if let (true, Some((id, _))) = (current, &read) {
        conn.prepare_cached(include_str!("sql/retire_analysis.sql"))?
            .execute(params![id])?;
    }
    insert_run(conn, game.id, a, current)?;
    if current {
        conn.prepare_cached(include_str!("sql/delete_analysis_findings.sql"))?
            .execute(params![game.id])?;
        insert_findings(conn, game, findings)?;
    }
    Ok(current)
}

fn insert_findings(
    conn: &Connection,
    game: &PendingGame,
    findings: &[AnalysisFindingRecord],
) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare_cached(include_str!("sql/insert_finding.sql"))?;
    for f in findings {
        stmt.execute(params![
            game.id,
            f.code,
            f.severity,
            f.ply,
            game.line as i64,
            1,
            game.byte as i64,
            None::<String>,
            f.detail
        ])?;
    }
    Ok(())
}

/// Inserts the first analysis of a game just stored (the import's), as the one read.
pub fn insert(conn: &Connection, game_id: i64, a: &AnalysisRecord) -> rusqlite::Result<()> {
    insert_run(conn, game_id, a, true)
}

/// Inserts an `analysis_runs` row and its evaluations.
fn insert_run(
    conn: &Connection,
    game_id: i64,
    a: &AnalysisRecord,
    current: bool,
) -> rusqlite::Result<()> {
    let judged = Strength::judged_kinds(&a.settings);
    let [w, b] = a.counts.map(|side| {
        let mut counts = [None; 3];
        for (k, n) in counts.iter_mut().enumerate() {
            *n = judged[k].then_some(side[k]);
        }
        counts
    });
    let [positions, nodes, searchable] = a.engine.map(|v| v as i64);
    conn.prepare_cached(include_str!("sql/insert_analysis.sql"))?
        .execute(params![
            game_id,
            current,
            a.accuracy[0],
            a.accuracy[1],
            w[0],
            w[1],
            w[2],
            b[0],
            b[1],
            b[2],
            a.settings,
            positions,
            nodes,
            searchable
        ])?;
    let run = conn.last_insert_rowid();
    let mut stmt = conn.prepare_cached(include_str!("sql/insert_evaluation.sql"))?;
    for e in &a.evals {
        stmt.execute(params![
            run,
            e.ply,
            e.score_cp,
            e.mate,
            e.depth,
            e.nodes as i64,
            e.best_move.map(|m| m.to_u16()),
            e.deep,
            e.engine,
            encode_pv(&e.pv)
        ])?;
    }
    Ok(())
}

/// A principal variation as stored (`run_evaluations.pv`, version 12): two bytes a move,
/// little-endian, the rules core's encoding; `None` for no line.
pub fn encode_pv(pv: &[Move]) -> Option<Vec<u8>> {
    (!pv.is_empty()).then(|| pv.iter().flat_map(|m| m.to_u16().to_le_bytes()).collect())
}

/// The moves of a stored principal variation, unchecked: the reader replays them from the
/// evaluated position and stops at the first that is not legal there.
pub fn decode_pv(blob: &[u8]) -> Vec<Move> {
    blob.chunks_exact(2)
        .map(|b| Move::from_u16(u16::from_le_bytes([b[0], b[1]])))
        .collect()
}

/// Migration 011's step beyond SQL: the inaccuracy and mistake counts of the analyses it
/// copied become NULL where the analysis never gives that label (`Strength::judged_kinds`).
pub fn after_v11(conn: &Connection) -> rusqlite::Result<()> {
    let settings: Vec<String> = conn
        .prepare(include_str!("sql/analysis_settings.sql"))?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    for s in settings {
        let [inaccuracies, mistakes, _] = Strength::judged_kinds(&s);
        if !inaccuracies || !mistakes {
            conn.execute(
                include_str!("sql/null_unjudged_counts.sql"),
                params![s, inaccuracies, mistakes],
            )?;
        }
    }
    Ok(())
}

/// The highest game id stored, 0 for none: games stored after it are a later import's.
pub fn last_game_id(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row(include_str!("sql/last_game_id.sql"), [], |r| r.get(0))
}
