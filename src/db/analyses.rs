//! Storage of the analysis stage: which selected games still need an analysis under the
//! settings of this run (an analysis records its settings; one made under others, or none, is
//! pending), and one game's analysis written in place of any earlier one.

use super::record::AnalysisRecord;
use rusqlite::{Connection, params, params_from_iter};

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

/// The games a selection holds, split by whether they are analysed under these settings.
#[derive(Debug, Default)]
pub struct Selection {
    pub selected: u64,
    /// Already analysed under the same settings: skipped (unless `redo`).
    pub done: u64,
    pub pending: Vec<PendingGame>,
}

/// The games `games` selects. A game whose stored analysis has `settings` is done, unless
/// `redo`.
pub fn select(
    conn: &Connection,
    games: &super::query::Selection,
    settings: &str,
    redo: bool,
) -> rusqlite::Result<Selection> {
    let (from, clause, values) = games.sql();
    let sql = format!(
        "SELECT g.id, g.start_fen, g.variant, g.moves, g.result, g.termination, g.line, \
         g.byte_offset, an.settings FROM {from} LEFT JOIN analyses an ON an.game_id = g.id \
         WHERE {clause} ORDER BY g.id"
    );
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query(params_from_iter(values))?;
    let mut sel = Selection::default();
    while let Some(r) = rows.next()? {
        sel.selected += 1;
        let stored: Option<String> = r.get(8)?;
        if !redo && stored.as_deref() == Some(settings) {
            sel.done += 1;
            continue;
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

/// Replaces game `game`'s analysis, evaluations and `analysis.*` findings with these (no
/// analysis: only the findings, e.g. `analysis.engine-failed`). Inside the caller's
/// transaction.
pub fn replace(
    conn: &Connection,
    game: &PendingGame,
    analysis: Option<&AnalysisRecord>,
    findings: &[AnalysisFindingRecord],
) -> rusqlite::Result<()> {
    for sql in [
        include_str!("sql/delete_analysis.sql"),
        include_str!("sql/delete_evaluations.sql"),
        include_str!("sql/delete_analysis_findings.sql"),
    ] {
        conn.prepare_cached(sql)?.execute(params![game.id])?;
    }
    if let Some(a) = analysis {
        insert(conn, game.id, a)?;
    }
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

/// Inserts a game's evaluations and its `analyses` row.
pub fn insert(conn: &Connection, game_id: i64, a: &AnalysisRecord) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare_cached(include_str!("sql/insert_evaluation.sql"))?;
    for e in &a.evals {
        stmt.execute(params![
            game_id,
            e.ply,
            e.score_cp,
            e.mate,
            e.depth,
            e.nodes as i64,
            e.best_move.map(|m| m.to_u16()),
            e.deep,
            e.engine
        ])?;
    }
    let [w, b] = a.counts;
    let [positions, nodes, searchable] = a.engine.map(|v| v as i64);
    conn.prepare_cached(include_str!("sql/insert_analysis.sql"))?
        .execute(params![
            game_id,
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
    Ok(())
}

/// The highest game id stored, 0 for none: games stored after it are a later import's.
pub fn last_game_id(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row(include_str!("sql/last_game_id.sql"), [], |r| r.get(0))
}
