//! Rows of games that never went through a database: the pipeline's records, as the rows
//! the store gives back (`db::query::games::ExportRow`), so every writer takes both.

use super::ExportError;
use crate::chess::Position;
use crate::db::GameRecord;
use crate::db::query::games::ExportRow;
use crate::search::Score;

/// The row of a game the pipeline has just processed, before (or without) any database:
/// what `check --output DIR --format parquet` writes. `file` is the input's name. There is
/// no id (0) and no person but the names as written.
pub fn row_of_record(file: &str, record: &GameRecord) -> Result<ExportRow, ExportError> {
    let bad = |message: String| ExportError::Game {
        id: 0,
        message: format!("{file}: game {}: {message}", record.game_number),
    };
    let start = match &record.start_fen {
        Some(fen) => {
            let setup = crate::chess::fen::parse_setup(fen).map_err(|e| bad(e.to_string()))?;
            Position::from_setup(&setup, record.chess960).map_err(|e| bad(e.to_string()))?
        }
        None => Position::new(),
    };
    let tag = |name: &str| record.tag(name).map(str::to_owned);
    let number = |name: &str| record.tag(name).and_then(|v| v.trim().parse::<i64>().ok());
    let int = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    // The Seven Tag Roster first, as the database gives them back, then the others.
    let mut tags: Vec<(String, String)> = crate::pgn::SEVEN_TAG_ROSTER
        .iter()
        .map(|&n| (n.to_owned(), tag(n).unwrap_or_else(|| "?".to_owned())))
        .collect();
    tags.extend(
        record
            .tags
            .iter()
            .filter(|(n, _)| !crate::pgn::SEVEN_TAG_ROSTER.contains(n))
            .map(|(n, v)| (n.to_owned(), v.to_owned())),
    );
    let (year, month, day) = record
        .tag("Date")
        .map_or((None, None, None), crate::db::record::date_parts);
    let analysis = record.analysis.as_ref();
    Ok(ExportRow {
        id: 0,
        file: Some(file.to_owned()),
        game_number: int(record.game_number),
        byte_offset: int(record.byte_offset),
        line: int(record.line),
        year,
        month,
        day,
        elo: [number("WhiteElo"), number("BlackElo")],
        fide_ids: [number("WhiteFideId"), number("BlackFideId")],
        persons: [tag("White"), tag("Black")],
        person_ids: [None, None],
        name_ids: [None, None],
        eco: tag("ECO"),
        opening: tag("Opening"),
        opening_family: None,
        time_control: tag("TimeControl"),
        tc_class: None,
        duplicate: false,
        result: tag("Result"),
        result_marker: record.result_marker.map(str::to_owned),
        lawful_result: record.lawful_result.map(str::to_owned),
        termination: record.termination.map(|(k, _)| k.to_owned()),
        termination_ply: record.termination.map(|(_, p)| i64::from(p)),
        threefold_ply: record.threefold_ply.map(i64::from),
        fifty_ply: record.fifty_ply.map(i64::from),
        laws_edition: record.laws_edition.map(|e| e.to_string()),
        variant: if record.chess960 {
            "chess960"
        } else {
            "standard"
        }
        .to_owned(),
        start,
        start_fen: record.start_fen.clone(),
        ply_count: record.moves.len() as i64,
        final_fen: record.final_position.fen(),
        moves: record.moves.clone(),
        sans: Vec::new(),
        clocks: record.clocks.clone(),
        comments: record.comments.clone(),
        annotated: record.annotated.clone(),
        finding_codes: record.findings.iter().map(|f| f.code.to_owned()).collect(),
        finding_plies: record.findings.iter().map(|f| f.ply).collect(),
        evals: analysis.map_or_else(Vec::new, |a| {
            a.evals
                .iter()
                .map(|e| {
                    let score = match (e.score_cp, e.mate) {
                        (_, Some(m)) => Score::Mate(m),
                        (cp, None) => Score::Cp(cp.unwrap_or(0)),
                    };
                    (e.ply, score, e.depth)
                })
                .collect()
        }),
        lines: analysis.map_or_else(Vec::new, |a| {
            a.evals
                .iter()
                .filter(|e| !e.pv.is_empty())
                .map(|e| (e.ply, e.pv.clone()))
                .collect()
        }),
        accuracy: analysis.map_or([None, None], |a| a.accuracy),
        judgements: analysis.map(|a| {
            let judged = crate::search::strength::Strength::judged_kinds(&a.settings);
            a.counts
                .map(|side| [0, 1, 2].map(|k| judged[k].then_some(side[k])))
        }),
        analysis_engine: analysis.map(|a| crate::db::query::games::engine_of(&a.settings)),
        match_ply: None,
        tags,
    })
}
