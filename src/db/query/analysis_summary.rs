//! The rows of the players' analysis summaries (`stats::analysis`): every selected game with
//! its persons, date, event and time-control class, and, when it has one, its current
//! analysis (the `analyses` view: the game's strongest) with the evaluations the average
//! centipawn loss is computed from. The statistics do the arithmetic.

use super::rows::with_person;
use super::{Filter, Selection, schema_version};
use crate::chess::{Move, Position};
use crate::db::encode::{decode_moves, start_position};
use crate::search::Score;
use crate::search::lichess::Label;
use rusqlite::types::Type;
use rusqlite::{Connection, params_from_iter};

/// A game's current analysis, as stored.
#[derive(Debug, Clone, Default)]
pub struct StoredAnalysis {
    /// White's and Black's game accuracy.
    pub accuracy: [Option<f64>; 2],
    /// Per side: inaccuracies, mistakes, blunders (None: a label this analysis never gives).
    pub counts: [[Option<u32>; 3]; 2],
    /// The run's settings (JSON; `search::strength` reads the engine and budget from it).
    pub settings: String,
    /// (ply, White's score) of every evaluated position.
    pub evals: Vec<(u32, Score)>,
    /// (the move's 1-based ply, its label) of every labelled move.
    pub labels: Vec<(u32, Label)>,
    /// The game's moves from `AnalysisRow::start` (read for an analysed game only).
    pub moves: Vec<Move>,
}

/// One selected game. The buffers are reused from row to row.
#[derive(Debug, Clone, Default)]
pub struct AnalysisRow {
    pub id: i64,
    /// White's and Black's person.
    pub persons: [Option<i64>; 2],
    pub year: Option<i32>,
    pub month: Option<u8>,
    pub day: Option<u8>,
    pub event: Option<String>,
    pub tc_class: Option<String>,
    pub ply_count: u32,
    /// White made the first move (no FEN, or a FEN with White to move).
    pub white_first: bool,
    /// From the standard start (no FEN tag).
    pub standard_start: bool,
    /// The start position (set for an analysed game).
    pub start: Position,
    /// A duplicate that is not its group's survivor.
    pub duplicate: bool,
    /// None: the game has no analysis.
    pub analysis: Option<StoredAnalysis>,
}

/// Calls `each` with every game the filter selects (`person`: only this person's), in date
/// order (year, month, day, game id). Returns the number of games read.
pub fn for_each_analysis_row(
    conn: &Connection,
    filter: &Filter,
    person: Option<i64>,
    mut each: impl FnMut(&AnalysisRow),
) -> rusqlite::Result<u64> {
    let selection = Selection::for_version(schema_version(conn)?, filter.clone());
    let (from, clause, values) = with_person(&selection, person);
    let sql = format!(
        "SELECT g.id, w.person_id, b.person_id, g.year, g.month, g.day, e.name, g.tc_class, \
         g.ply_count, g.start_fen, coalesce(dm.survivor = 0, 0), a.game_id IS NOT NULL, \
         a.white_accuracy, a.black_accuracy, a.white_inaccuracies, a.white_mistakes, \
         a.white_blunders, a.black_inaccuracies, a.black_mistakes, a.black_blunders, \
         a.settings, g.variant, CASE WHEN a.game_id IS NULL THEN NULL ELSE g.moves END \
         FROM {from} LEFT JOIN analyses a ON a.game_id = g.id WHERE {clause} \
         ORDER BY g.year, g.month, g.day, g.id"
    );
    let mut stmt = conn.prepare(&sql)?;
    let mut evals = conn.prepare_cached(include_str!("../sql/game_evaluations.sql"))?;
    let mut labels = conn.prepare_cached(include_str!("../sql/game_labels.sql"))?;
    let mut rows = stmt.query(params_from_iter(values))?;
    let mut row = AnalysisRow::default();
    let mut kept = StoredAnalysis::default();
    let mut games = 0;
    while let Some(r) = rows.next()? {
        games += 1;
        row.id = r.get(0)?;
        row.persons = [r.get(1)?, r.get(2)?];
        row.year = r.get(3)?;
        row.month = r.get(4)?;
        row.day = r.get(5)?;
        row.event = r.get(6)?;
        row.tc_class = r.get(7)?;
        row.ply_count = r.get(8)?;
        let fen: Option<String> = r.get(9)?;
        row.standard_start = fen.is_none();
        row.white_first = fen
            .as_deref()
            .is_none_or(|f| f.split_whitespace().nth(1) != Some("b"));
        row.duplicate = r.get(10)?;
        // The last analysis's buffers, kept for the next analysed game.
        if let Some(a) = row.analysis.take() {
            kept = a;
        }
        if r.get::<_, bool>(11)? {
            let mut a = std::mem::take(&mut kept);
            a.accuracy = [r.get(12)?, r.get(13)?];
            a.counts = [
                [r.get(14)?, r.get(15)?, r.get(16)?],
                [r.get(17)?, r.get(18)?, r.get(19)?],
            ];
            a.settings = r.get(20)?;
            a.evals.clear();
            let mut e = evals.query([row.id])?;
            while let Some(e) = e.next()? {
                let score = match (e.get::<_, Option<i32>>(1)?, e.get::<_, Option<i32>>(2)?) {
                    (_, Some(mate)) => Score::Mate(mate),
                    (cp, None) => Score::Cp(cp.unwrap_or(0)),
                };
                a.evals.push((e.get(0)?, score));
            }
            a.labels.clear();
            let mut l = labels.query([row.id])?;
            while let Some(l) = l.next()? {
                let code: String = l.get(1)?;
                let label = crate::search::analysis::Judgement::ALL
                    .into_iter()
                    .find(|j| j.code() == code);
                if let (Some(ply), Some(label)) = (l.get::<_, Option<u32>>(0)?, label) {
                    a.labels.push((ply, label));
                }
            }
            // The phases are read from the moves: an analysed game's only.
            let chess960 = r.get::<_, String>(21)? == "chess960";
            row.start = start_position(fen.as_deref(), chess960).map_err(|e| {
                rusqlite::Error::FromSqlConversionFailure(9, Type::Text, Box::new(e))
            })?;
            let blob: Vec<u8> = r.get(22)?;
            a.moves = decode_moves(&row.start, &blob).map_err(|e| {
                rusqlite::Error::FromSqlConversionFailure(22, Type::Blob, Box::new(e))
            })?;
            row.analysis = Some(a);
        }
        each(&row);
    }
    Ok(games)
}
