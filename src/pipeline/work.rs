//! The pure per-game work done on rayon workers: parse one raw game, replay it through the
//! rules core, judge and analyse it, gather every finding, located, in one list, and keep
//! what the sink needs (for the database, the game's record). No I/O happens here.

use super::record::record;
use crate::chess::SanMode;
use crate::db::GameRecord;
use crate::game::{Replayed, replay};
use crate::laws::{self, GameInput, LawFinding, Verdict, VerdictOptions};
use crate::pgn::{Finding, Game, Pos, RawGame, Severity, parse_game};
use crate::search::{AnalysisFinding, AnalysisOptions, analyse_game};

/// Settings for the per-game work, fixed for a run.
#[derive(Debug, Clone, Copy)]
pub struct WorkOptions {
    pub mode: SanMode,
    /// The Laws' verdict for every accepted game; `None` skips it (parse and replay only).
    pub laws: Option<VerdictOptions>,
    /// Critical-position analysis by the search (`--analyse`); `None` skips it.
    pub analysis: Option<AnalysisOptions>,
}

/// What the sink keeps of each game besides its findings and counts, chosen once per run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// The findings, the counts and the raw bytes (`check`): the parsed game and its replay
    /// are dropped on the worker, where their memory is reused for the next game.
    Findings,
    /// Also the database record of every accepted game, made on the worker (`import`).
    Record,
}

/// What the sink gets of one game after the workers are done with it.
#[derive(Debug)]
pub struct Processed {
    /// The game's bytes exactly as read (for the quarantine file).
    pub raw: Vec<u8>,
    /// Number of the game in its file, and where it starts.
    pub game_number: u64,
    pub byte_offset: u64,
    pub line: u64,
    /// Half-moves replayed (up to the first that could not be played).
    pub plies: usize,
    /// Splitter, reader, replay, Laws and analysis findings, in that order.
    pub findings: Vec<Finding>,
    /// Rejected by the reader or the replay. The Laws' findings never reject a game: a
    /// wrong result is a fact about a legal game, which is kept.
    pub rejected: bool,
    /// With [`Keep::Record`], the database record of an accepted game (boxed: `check`'s
    /// results stay a fifth of the size).
    pub record: Option<Box<GameRecord>>,
}

/// Parses and replays one game, judges it and analyses it as `options` say, and keeps of
/// it what `keep` says.
pub fn process(raw: RawGame, options: &WorkOptions, keep: Keep) -> Processed {
    let mut game = parse_game(&raw);
    let mut replay = if game.is_rejected() {
        // The reader already rejected it; replaying up to the problem still locates later
        // errors, but moves past a syntax error would be misleading.
        replay_prefix(&game, options.mode)
    } else {
        replay(&game, options.mode)
    };
    // The parsed game already holds the splitter's findings (BOM, line ends, skipped text)
    // ahead of its own: taking them from `raw` as well reported each one twice.
    let mut findings = std::mem::take(&mut game.findings);
    findings.append(&mut replay.findings);
    let rejected = findings.iter().any(|f| f.severity == Severity::Error);
    let verdict = match options.laws {
        Some(opts) if !rejected && replay.complete => {
            let verdict = judge(&game, &replay, &opts);
            findings.extend(verdict.findings.iter().map(|f| locate(&game, f)));
            Some(verdict)
        }
        _ => None,
    };
    let analysis = match options.analysis {
        Some(opts) if !rejected && replay.complete => {
            let mate = verdict
                .as_ref()
                .and_then(|v| v.termination)
                .is_some_and(|(kind, _)| matches!(kind, laws::TerminationKind::Checkmate { .. }));
            let a = analyse_game(
                &replay.start,
                &replay.moves,
                game.tag("Result"),
                mate,
                &opts,
            );
            findings.extend(a.findings.iter().map(|f| locate_analysis(&game, f)));
            Some(a)
        }
        _ => None,
    };
    let record = (keep == Keep::Record && !rejected).then(|| {
        Box::new(record(
            &game,
            &replay,
            verdict.as_ref(),
            analysis.as_ref(),
            &findings,
        ))
    });
    Processed {
        raw: raw.bytes,
        game_number: game.game_number,
        byte_offset: game.byte_offset,
        line: game.line,
        plies: replay.plies(),
        findings,
        rejected,
        record,
    }
}

/// Where a ply's move stands in the file (ply 0: the game's start).
fn ply_pos(game: &Game, ply: u32) -> Pos {
    let start = Pos {
        line: game.line,
        column: 1,
        byte: game.byte_offset,
    };
    match ply {
        0 => start,
        ply => game.moves.get(ply as usize - 1).map_or(start, |n| n.pos),
    }
}

/// An analysis finding as a located finding, with the catalogue's severity.
fn locate_analysis(game: &Game, f: &AnalysisFinding) -> Finding {
    let severity = crate::findings::severity(f.code);
    at_ply(game, f.code, severity, f.ply, f.message.clone())
}

/// A finding about the move that made ply `ply` (the game's start for ply 0).
fn at_ply(
    game: &Game,
    code: &'static str,
    severity: Severity,
    ply: u32,
    message: String,
) -> Finding {
    let at = ply_pos(game, ply);
    Finding {
        code,
        severity,
        game_number: game.game_number,
        line: at.line,
        column: at.column,
        byte: at.byte,
        ply: Some(ply),
        token: None,
        message,
    }
}

/// What the Laws' verdict reads of a parsed and replayed game (the Date tag, else UTCDate).
pub fn verdict_input<'a>(game: &'a Game, replay: &'a Replayed) -> GameInput<'a> {
    GameInput {
        start: replay.start,
        moves: &replay.moves,
        date: game.tag("Date").or_else(|| game.tag("UTCDate")),
        result_tag: game.tag("Result"),
        termination_tag: game.tag("Termination"),
        result_marker: game.result.map(|m| m.as_str()),
    }
}

fn judge(game: &Game, replay: &Replayed, options: &VerdictOptions) -> Verdict {
    // The replay is complete (the caller checks): its final position is the game's last.
    laws::judge_replayed(
        &verdict_input(game, replay),
        &replay.final_position(),
        options,
    )
}

/// A Laws finding, placed at the move that made it true (ply 0: the game's start).
fn locate(game: &Game, f: &LawFinding) -> Finding {
    let severity = f.severity;
    let message = match f.article {
        Some(article) => format!("{} (Art. {article})", f.message),
        None => f.message.clone(),
    };
    at_ply(game, f.code.as_str(), severity, f.ply, message)
}

/// A rejected game's replay, kept for its position data but without adding its findings
/// twice: the reader's error is the reason given.
fn replay_prefix(game: &Game, mode: SanMode) -> Replayed {
    let mut r = replay(game, mode);
    r.findings.clear();
    r
}
