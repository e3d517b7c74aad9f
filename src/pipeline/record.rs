//! What the database keeps of an accepted game (`GameRecord`), built from its parse,
//! replay, verdict and analysis on the worker that processed it, so that the sink's thread
//! only writes.

use crate::db::GameRecord;
use crate::db::encode::{content_hash, encode_clocks, encode_moves, pack_replayed};
use crate::db::record::{AnalysisRecord, Columns, EvalRecord, FindingRecord};
use crate::game::Replayed;
use crate::identity::openings::Opening;
use crate::laws::{TerminationKind, Verdict};
use crate::pgn::{Command, Finding, Game};
use crate::search::{GameAnalysis, Score};

pub fn termination_name(k: TerminationKind) -> &'static str {
    match k {
        TerminationKind::Checkmate { .. } => "checkmate",
        TerminationKind::Stalemate => "stalemate",
        TerminationKind::DeadPosition => "dead-position",
        TerminationKind::Fivefold => "fivefold",
        TerminationKind::SeventyFiveMoves => "seventy-five",
    }
}

fn finding_record(f: &Finding) -> FindingRecord {
    FindingRecord {
        code: f.code,
        severity: f.severity.as_str(),
        ply: f.ply,
        line: f.line,
        column: f.column,
        byte: f.byte,
        token: f.token.clone(),
        detail: f.message.clone(),
    }
}

/// Everything the database keeps about an accepted game: its parse, replay, verdict,
/// analysis, findings and opening name.
pub fn record(
    game: &Game,
    replay: &Replayed,
    verdict: Option<&Verdict>,
    analysis: Option<&GameAnalysis>,
    findings: &[Finding],
    opening: Option<Opening>,
    index_positions: bool,
) -> GameRecord {
    let mut comments = Vec::new();
    for c in &game.leading_comments {
        comments.push((0, c.text.clone()));
    }
    let mut clocks = Vec::with_capacity(game.moves.len());
    let mut annotated = !game.trailing_comments.is_empty();
    for (i, node) in game.moves.iter().enumerate() {
        let ply = i as u32 + 1;
        for c in node.comments_after() {
            comments.push((ply, c.text.clone()));
        }
        clocks.push(node.commands().find_map(|c| match c {
            Command::Clock(t) => Some(t.millis),
            _ => None,
        }));
        annotated |= !node.variations().is_empty()
            || !node.nags().is_empty()
            || !node.nags_before().is_empty();
    }
    let tags = game.tags.clone();
    GameRecord {
        game_number: game.game_number,
        byte_offset: game.byte_offset,
        line: game.line,
        content_hash: content_hash(|n| game.tag(n), &replay.moves),
        columns: Columns::of(&tags),
        tags,
        clocks_blob: encode_clocks(&clocks),
        result_marker: game.result.map(|m| m.as_str()),
        lawful_result: verdict.and_then(|v| v.lawful_result).map(|r| r.as_str()),
        termination: verdict
            .and_then(|v| v.termination)
            .map(|(k, ply)| (termination_name(k), ply)),
        threefold_ply: verdict.and_then(|v| v.first_threefold_claim).map(|c| c.ply),
        fifty_ply: verdict.and_then(|v| v.first_fifty_claim).map(|c| c.ply),
        laws_edition: verdict.map(|v| v.edition.year()),
        laws_undated: verdict.is_some_and(|v| v.undated),
        chess960: replay.chess960,
        start_fen: replay.start_fen.clone(),
        final_position: replay.final_position(),
        moves: replay.moves.clone(),
        clocks,
        comments,
        annotated: annotated
            .then(|| crate::pgn::game_to_string(game, &crate::pgn::WriteOptions::default())),
        findings: findings.iter().map(finding_record).collect(),
        analysis: analysis.map(analysis_record),
        opening,
        // The replay's moves are legal from its start, so they pack; were one not, the 2-byte
        // layout keeps it as played (both layouts decode).
        positions: index_positions.then(|| {
            crate::positions::index::game_entry_keyed(&replay.start, &replay.moves, &replay.keys)
        }),
        moves_blob: pack_replayed(&replay.start, &replay.moves)
            .unwrap_or_else(|_| encode_moves(&replay.moves)),
    }
}

/// The stored form of an analysis (the import's records and the analysis stage's alike).
pub(crate) fn analysis_record(a: &GameAnalysis) -> AnalysisRecord {
    AnalysisRecord {
        evals: a
            .evals
            .iter()
            .map(|e| {
                let (score_cp, mate) = match e.score_white {
                    Score::Cp(cp) => (Some(cp), None),
                    Score::Mate(n) => (None, Some(n)),
                };
                EvalRecord {
                    ply: e.ply,
                    score_cp,
                    mate,
                    depth: e.depth,
                    nodes: e.nodes,
                    best_move: e.best_move,
                    pv: e.pv.as_slice().to_vec(),
                    deep: e.deep,
                    engine: e.engine,
                }
            })
            .collect(),
        accuracy: a.accuracy,
        counts: a.counts,
        settings: a.settings.clone(),
        engine: [
            u64::from(a.engine.positions),
            a.engine.nodes,
            u64::from(a.engine.searchable),
        ],
    }
}
