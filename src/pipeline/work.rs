//! The pure per-game work done on rayon workers: parse one raw game, replay it through the
//! rules core, judge and analyse it, gather every finding, located, in one list, and keep
//! what the sink needs (for the database, the game's record). No I/O happens here.

use super::record::record;
use crate::chess::SanMode;
use crate::db::GameRecord;
use crate::game::keys::FirstKeys;
use crate::game::{Replayed, replay, replay_keyed};
use crate::identity::openings::Book;
use crate::laws::{self, GameInput, LawFinding, Verdict, VerdictOptions};
use crate::pgn::{Finding, Game, Pos, RawGame, Severity, parse_game};
use crate::search::analysis::code as analysis_code;
use crate::search::{AnalysisFinding, AnalysisOptions, analyse};

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
    /// The record with the game's position-index entry (`import`, unless
    /// `--no-position-index`).
    RecordIndexed,
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
    } else if options.laws.is_some() {
        // The Laws count repetitions and moves by the keys the replay keeps on its way.
        replay_keyed(&game, options.mode)
    } else {
        replay(&game, options.mode)
    };
    // The parsed game already holds the splitter's findings (BOM, line ends, skipped text)
    // ahead of its own: taking them from `raw` as well reported each one twice.
    let mut findings = std::mem::take(&mut game.findings);
    findings.append(&mut replay.findings);
    let rejected = findings.iter().any(|f| f.severity == Severity::Error);
    // A stored game is named by its opening from the keys the Laws' walk computes anyway;
    // a game the Laws do not walk, by the names' own walk (`identity::openings`).
    let book = (keep != Keep::Findings && !rejected && !replay.chess960).then(Book::get);
    let mut first_keys = FirstKeys::default();
    let verdict = match options.laws {
        Some(opts) if !rejected && replay.complete => {
            let keep_keys = book.map(|b| (b.max_ply() as usize, &mut first_keys));
            let verdict = judge(&game, &replay, &opts, keep_keys);
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
            match analyse(
                &replay.start,
                &replay.moves,
                game.tag("Result"),
                mate,
                &opts,
            ) {
                Ok(a) => {
                    findings.extend(a.findings.iter().map(|f| locate_analysis(&game, f)));
                    Some(a)
                }
                // The game is still stored and judged, without an analysis.
                Err(e) => {
                    let ply = e.ply.unwrap_or(0);
                    findings.push(at_ply(
                        &game,
                        analysis_code::ENGINE_FAILED,
                        Severity::Warning,
                        ply,
                        e.to_string(),
                    ));
                    None
                }
            }
        }
        _ => None,
    };
    let opening = book.and_then(|b| {
        let wanted = replay.moves.len().min(b.max_ply() as usize);
        if verdict.is_some() && first_keys.keys.len() == wanted {
            b.classify_keys(&replay.start, &replay.moves, &first_keys)
        } else {
            b.classify(&replay.start, &replay.moves)
        }
    });
    let record = (keep != Keep::Findings && !rejected).then(|| {
        Box::new(record(
            &game,
            &replay,
            verdict.as_ref(),
            analysis.as_ref(),
            &findings,
            opening,
            keep == Keep::RecordIndexed,
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

/// `keep_keys`: how many of the first positions' keys to hand over, and where.
fn judge(
    game: &Game,
    replay: &Replayed,
    options: &VerdictOptions,
    keep_keys: Option<(usize, &mut FirstKeys)>,
) -> Verdict {
    // The replay is complete (the caller checks): its final position is the game's last,
    // and it kept the key data of every position (`replay_keyed`).
    let (input, end) = (verdict_input(game, replay), replay.final_position());
    laws::judge_keyed(&input, &end, &replay.keys, options, keep_keys)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::split_bytes;

    /// The opening an import stores, named from the keys of the Laws' walk, and with the
    /// Laws off by the names' own walk (`identity::openings`): the same name at the same ply.
    #[test]
    fn the_opening_is_named_alike_with_and_without_the_laws() {
        let text = "[Date \"2001.01.01\"]\n\n1. d4 c5 2. d5 e5 1-0\n\n\
                    [Date \"2001.01.01\"]\n\n1. d4 c5 2. d5 e6 3. Nf3 e5 4. Ng1 *\n\n\
                    [Date \"2001.01.01\"]\n\n1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 1/2-1/2\n\n\
                    [Date \"2001.01.01\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n";
        let (raws, _) = split_bytes(text.as_bytes());
        let named = |laws| {
            let options = WorkOptions {
                mode: SanMode::Lenient,
                laws,
                analysis: None,
            };
            raws.iter()
                .map(|raw| {
                    let p = process(raw.clone(), &options, Keep::Record);
                    p.record
                        .and_then(|r| r.opening)
                        .map(|o| (o.eco, o.name, o.ply))
                })
                .collect::<Vec<_>>()
        };
        let with_laws = named(Some(VerdictOptions::default()));
        assert_eq!(
            with_laws,
            [
                // 2...e5 beside the pawn on d5: the en passant right is in the key (9.2.2).
                Some(("A44", "Benoni Defense: Old Benoni", 4)),
                // The same placement without that right is another position.
                Some(("A43", "Benoni Defense: Old Benoni", 3)),
                Some(("B90", "Sicilian Defense: Najdorf Variation", 10)),
                Some(("A00", "Barnes Opening: Fool's Mate", 4)),
            ]
        );
        assert_eq!(with_laws, named(None));
    }
}
