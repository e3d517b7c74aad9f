//! CSV and JSON lines: one row per game with its tags and the computed columns, or one row
//! per finding with `--findings`.

use super::games::ExportRow;
use serde::Serialize;

/// The columns of a game row, in order.
#[derive(Serialize)]
pub struct GameColumns<'a> {
    pub id: i64,
    pub event: &'a str,
    pub site: &'a str,
    pub date: &'a str,
    pub round: &'a str,
    pub white: &'a str,
    pub black: &'a str,
    pub white_elo: Option<&'a str>,
    pub black_elo: Option<&'a str>,
    pub result: Option<&'a str>,
    pub lawful_result: Option<&'a str>,
    pub termination: Option<&'a str>,
    pub termination_ply: Option<i64>,
    pub threefold_ply: Option<i64>,
    pub fifty_ply: Option<i64>,
    pub laws_edition: Option<&'a str>,
    pub variant: &'a str,
    pub ply_count: i64,
    pub final_fen: &'a str,
    /// Finding codes separated by `;`.
    pub findings: String,
    /// `--analyse`: game accuracy and judgement counts per side (empty when not analysed).
    pub white_accuracy: Option<f64>,
    pub black_accuracy: Option<f64>,
    pub white_inaccuracies: Option<u32>,
    pub white_mistakes: Option<u32>,
    pub white_blunders: Option<u32>,
    pub black_inaccuracies: Option<u32>,
    pub black_mistakes: Option<u32>,
    pub black_blunders: Option<u32>,
}

pub fn columns(row: &ExportRow) -> GameColumns<'_> {
    let tag = |n: &str| row.tag(n).unwrap_or("?");
    GameColumns {
        id: row.id,
        event: tag("Event"),
        site: tag("Site"),
        date: tag("Date"),
        round: tag("Round"),
        white: tag("White"),
        black: tag("Black"),
        white_elo: row.tag("WhiteElo"),
        black_elo: row.tag("BlackElo"),
        result: row.result.as_deref(),
        lawful_result: row.lawful_result.as_deref(),
        termination: row.termination.as_deref(),
        termination_ply: row.termination_ply,
        threefold_ply: row.threefold_ply,
        fifty_ply: row.fifty_ply,
        laws_edition: row.laws_edition.as_deref(),
        variant: &row.variant,
        ply_count: row.ply_count,
        final_fen: &row.final_fen,
        findings: row.finding_codes.join(";"),
        white_accuracy: row.accuracy[0].map(|a| (a * 10.0).round() / 10.0),
        black_accuracy: row.accuracy[1].map(|a| (a * 10.0).round() / 10.0),
        white_inaccuracies: row.judgements.map(|j| j[0][0]),
        white_mistakes: row.judgements.map(|j| j[0][1]),
        white_blunders: row.judgements.map(|j| j[0][2]),
        black_inaccuracies: row.judgements.map(|j| j[1][0]),
        black_mistakes: row.judgements.map(|j| j[1][1]),
        black_blunders: row.judgements.map(|j| j[1][2]),
    }
}

/// One stored finding.
#[derive(Serialize)]
pub struct FindingColumns {
    pub game_id: i64,
    pub code: String,
    pub severity: String,
    pub ply: Option<i64>,
    pub line: i64,
    pub column: i64,
    pub byte: i64,
    pub token: Option<String>,
    pub message: String,
}
