//! Critical-position analysis: hand-made games with a known blunder, a missed mate, a premature
//! resignation and a draw in a won position; the lichess formulas against hand-computed values;
//! determinism; and the throughput on master games (`$ARBITER_CORPUS`, skipped when unset).

use crate::common;

use arbiter::chess::san::{SanMode, play_san};
use arbiter::chess::{Move, Position};
use arbiter::search::analysis::{
    self, AnalysisOptions, GameAnalysis, Judgement, code, win_percent, winning_chances,
};
use arbiter::search::{Limits, Score, Searcher, analyse_game, weights};
use std::time::Instant;

/// The start position and the moves of a game written in SAN.
fn game(sans: &str) -> (Position, Vec<Move>) {
    game_from(arbiter::chess::START_FEN, sans)
}

fn analyse(sans: &str, result: Option<&str>) -> GameAnalysis {
    let (start, moves) = game(sans);
    analyse_game(&start, &moves, result, false, &AnalysisOptions::default())
}

fn codes_at(a: &GameAnalysis, code: &str) -> Vec<u32> {
    a.findings
        .iter()
        .filter(|f| f.code == code)
        .map(|f| f.ply)
        .collect()
}

/// A game from a FEN, moves in SAN.
fn game_from(fen: &str, sans: &str) -> (Position, Vec<Move>) {
    let start = Position::from_fen(fen).unwrap();
    let mut pos = start;
    let moves = sans
        .split_whitespace()
        .map(|san| play_san(&mut pos, san, SanMode::Strict).unwrap().mv)
        .collect();
    (start, moves)
}

#[test]
fn a_single_earlier_occurrence_makes_no_false_blunder() {
    // White has an extra queen and the kings shuffle. After 2. Kg1, Black's Kg8 would bring
    // back the start position: once before, that is no draw (the game goes on), so 2. Kg1
    // gives nothing away. Scored as a draw it was a false blunder.
    let fen = "6k1/8/8/8/8/8/8/Q5K1 w - - 0 1";
    let (start, moves) = game_from(fen, "Kh2 Kh7 Kg1");
    let a = analyse_game(&start, &moves, None, false, &AnalysisOptions::default());
    assert!(codes_at(&a, code::BLUNDER).is_empty(), "{:#?}", a.findings);
    assert!(matches!(a.evals[3].score_white, Score::Cp(cp) if cp > 500));
    // Twice before, Kg8 makes the third occurrence, which Black can claim (Art. 9.2): now
    // 4. Kg1 throws the win away, and that is a blunder.
    let (start, moves) = game_from(fen, "Kh2 Kh7 Kg1 Kg8 Kh2 Kh7 Kg1");
    let a = analyse_game(&start, &moves, None, false, &AnalysisOptions::default());
    assert_eq!(codes_at(&a, code::BLUNDER), [7], "{:#?}", a.findings);
    assert_eq!(a.evals[7].score_white, Score::Cp(0));
}

/// The calibrated score of a position after `nodes`, from the side to move's view: the
/// analysis stage's own evaluation (`weights::ANALYSIS`) and the engine's (`Searcher::new`)
/// must both read on Stockfish's scale.
fn calibrated_cp(fen: &str, nodes: u64) -> [i32; 2] {
    let pos = Position::from_fen(fen).unwrap();
    let searchers = [
        Searcher::calibrated(16, weights::ANALYSIS),
        Searcher::new(16),
    ];
    searchers.map(
        |mut s| match s.search(&pos, &[], Limits::nodes(nodes)).score {
            Score::Cp(cp) => cp,
            s => panic!("{fen}: {s:?}"),
        },
    )
}

#[test]
fn the_calibrated_scale_reads_material_like_stockfish() {
    // Stockfish 15.1 at 1,000,000 nodes (the scale lichess's formulas assume): the start
    // position without Black's e-pawn +1.63, without a knight +5.89..5.93; a king and pawn
    // ending a pawn up +2.85. A clean extra pawn reads between one and three pawns, a clean
    // extra piece between 4.5 and 7.5 (4 for the analysis stage's own weights). (Without Black's f-pawn, an exposed king too: Stockfish
    // +2.21, arbiter +3.05 at 100,000 nodes, so it is no clean pawn and not tested.)
    let pawn_up = [
        "rnbqkbnr/pppp1ppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "4k3/ppp2ppp/8/8/8/8/PPPP1PPP/4K3 w - - 0 1",
    ];
    for fen in pawn_up {
        for cp in calibrated_cp(fen, 100_000) {
            assert!((100..=300).contains(&cp), "{fen}: {cp}");
        }
    }
    let piece_up = [
        "r1bqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "rnbqkb1r/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    ];
    for fen in piece_up {
        // The tuned weights at their scale (fitted on game positions, where most evaluations
        // are small) read a clean piece about a quarter low: 4.17 and 4.29 here.
        let [analysis, engine] = calibrated_cp(fen, 100_000);
        assert!((400..=750).contains(&analysis), "{fen}: {analysis}");
        assert!((450..=750).contains(&engine), "{fen}: {engine}");
    }
    // Level stays level: the start position within a quarter of a pawn.
    for cp in calibrated_cp(arbiter::chess::START_FEN, 100_000) {
        assert!(cp.abs() <= 60, "start: {cp}");
    }
}

const QUEEN_HUNG: &str = "e4 e5 Nf3 Qg5 Nxg5 Nc6 d4";
const MATE_MISSED: &str = "e4 e5 Bc4 Nc6 Qh5 Nf6 d3";

#[test]
fn a_hung_queen_is_a_blunder_at_its_ply() {
    let a = analyse(QUEEN_HUNG, None);
    assert_eq!(a.evals.len(), 8);
    assert_eq!(a.moves.len(), 7);
    // 2...Qg5 is ply 4.
    assert_eq!(a.moves[3].judgement, Some(Judgement::Blunder), "{a:#?}");
    assert_eq!(codes_at(&a, code::BLUNDER), [4], "{:#?}", a.findings);
    assert_eq!(a.counts[1][Judgement::Blunder.index()], 1);
    assert_eq!(a.counts[0], [0, 0, 0]);
    assert!(a.evals[3].deep && a.evals[4].deep);
    assert!(matches!(a.evals[4].score_white, Score::Cp(cp) if cp > 500));
    assert!(a.moves[3].accuracy < 20.0, "{}", a.moves[3].accuracy);
    assert!(a.accuracy[0].unwrap() > a.accuracy[1].unwrap());
    assert_eq!(a.evals[4].ply, 4);
}

#[test]
fn a_missed_mate_in_one_is_reported() {
    let a = analyse(MATE_MISSED, None);
    // After 3...Nf6 White mates with Qxf7#; 4. d3 (ply 7) lets it go, and the queen with it.
    assert_eq!(a.evals[6].score_white, Score::Mate(1));
    assert!(a.moves[6].missed_mate);
    assert_eq!(codes_at(&a, code::MISSED_MATE), [7], "{:#?}", a.findings);
    let missed = a.findings.iter().find(|f| f.code == code::MISSED_MATE);
    assert!(missed.unwrap().message.contains("Qxf7#"), "{missed:?}");
    assert_eq!(a.moves[6].judgement, Some(Judgement::Blunder));
    assert_eq!(a.moves.iter().filter(|m| m.missed_mate).count(), 1);
}

#[test]
fn playing_the_mate_is_no_miss() {
    let (start, moves) = game("e4 e5 Bc4 Nc6 Qh5 Nf6 Qxf7#");
    let a = analyse_game(
        &start,
        &moves,
        Some("1-0"),
        true,
        &AnalysisOptions::default(),
    );
    // 3...Nf6 allowed the mate; 4. Qxf7# itself is neither a miss nor a mistake.
    assert_eq!(codes_at(&a, code::BLUNDER), [6], "{:#?}", a.findings);
    assert!(!a.moves[6].missed_mate && a.moves[6].judgement.is_none());
    assert!(codes_at(&a, code::MISSED_MATE).is_empty());
    assert_eq!(a.evals[7].score_white, Score::Mate(0));
    assert_eq!(a.evals[7].best_move, None);
    assert_eq!(a.moves[6].accuracy, 100.0);
}

#[test]
fn resigning_a_won_or_level_position_is_reported() {
    // White resigns a queen up.
    let a = analyse("e4 e5 Nf3 Qg5 Nxg5", Some("0-1"));
    assert_eq!(
        codes_at(&a, code::RESIGNED_NOT_LOST),
        [5],
        "{:#?}",
        a.findings
    );
    // Black resigns in a level opening.
    let a = analyse("e4 e5", Some("1-0"));
    assert_eq!(codes_at(&a, code::RESIGNED_NOT_LOST), [2]);
    // Black resigns a queen down: nothing to say.
    let a = analyse("e4 e5 Nf3 Qg5 Nxg5", Some("1-0"));
    assert!(codes_at(&a, code::RESIGNED_NOT_LOST).is_empty());
    // A mate is no resignation.
    let (start, moves) = game("f3 e5 g4 Qh4#");
    let a = analyse_game(
        &start,
        &moves,
        Some("0-1"),
        true,
        &AnalysisOptions::default(),
    );
    assert!(codes_at(&a, code::RESIGNED_NOT_LOST).is_empty());
}

#[test]
fn a_draw_agreed_a_queen_up_is_reported() {
    let a = analyse("e4 e5 Nf3 Qg5 Nxg5", Some("1/2-1/2"));
    assert_eq!(codes_at(&a, code::DRAW_IN_WON_POSITION), [5]);
    let a = analyse("e4 e5 Nf3 Nc6", Some("1/2-1/2"));
    assert!(codes_at(&a, code::DRAW_IN_WON_POSITION).is_empty());
}

#[test]
fn winning_chances_match_hand_computed_values() {
    // 2 / (1 + e^(−0.368208)) − 1 = 0.182052…
    assert!((winning_chances(100) - 0.182_051_8).abs() < 1e-6);
    assert_eq!(winning_chances(0), 0.0);
    assert!((winning_chances(-100) + winning_chances(100)).abs() < 1e-15);
    // Clamped at ±1000: 2 / (1 + e^(−3.68208)) − 1 = 0.950895…
    assert!((winning_chances(1000) - 0.950_894_9).abs() < 1e-6);
    assert_eq!(winning_chances(5000), winning_chances(1000));
    assert_eq!(
        analysis::score_winning_chances(Score::Mate(7)),
        winning_chances(1000)
    );
    assert_eq!(
        analysis::score_winning_chances(Score::Mate(-1)),
        winning_chances(-1000)
    );
    assert!((win_percent(100) - 59.102_59).abs() < 1e-4);
}

#[test]
fn analysis_is_deterministic_whatever_came_before() {
    let first = analyse(QUEEN_HUNG, Some("0-1"));
    let _other = analyse(MATE_MISSED, None);
    let again = analyse(QUEEN_HUNG, Some("0-1"));
    assert_eq!(first, again);
    assert_eq!(format!("{first:?}"), format!("{again:?}"));
    assert!(
        first.settings.contains("\"cheap_nodes\":2000"),
        "{}",
        first.settings
    );
}

// ---- the master games corpus -------------------------------------------------------------------

struct CorpusGame {
    start: Position,
    moves: Vec<Move>,
    result: Option<String>,
    mate: bool,
}

/// The first `count` complete games of Carlsen.pgn, or `None` without `$ARBITER_CORPUS`.
fn carlsen(count: usize) -> Option<Vec<CorpusGame>> {
    let dir = common::corpus()?;
    let path = dir.join("games/otb-pgnmentor/Carlsen.pgn");
    let bytes = std::fs::read(path).unwrap();
    let (games, _) = arbiter::pgn::parse_all(&bytes);
    let out = games
        .iter()
        .filter_map(|g| {
            let r = arbiter::game::replay(g, SanMode::Lenient);
            (r.complete && !r.is_rejected()).then(|| CorpusGame {
                start: r.start,
                moves: r.moves.clone(),
                result: g.tag("Result").map(str::to_owned),
                mate: r.final_position().is_checkmate(),
            })
        })
        .take(count)
        .collect();
    Some(out)
}

/// The default budget, or `ARBITER_ANALYSIS_BUDGET=cheap,deep` for measuring others.
fn corpus_options() -> AnalysisOptions {
    let mut options = AnalysisOptions::default();
    if let Ok(text) = std::env::var("ARBITER_ANALYSIS_BUDGET")
        && let Some((cheap, deep)) = text.split_once(',')
    {
        options.cheap_nodes = cheap.trim().parse().unwrap();
        options.deep_nodes = deep.trim().parse().unwrap();
    }
    options
}

fn analyse_corpus_game(g: &CorpusGame) -> GameAnalysis {
    analyse_game(
        &g.start,
        &g.moves,
        g.result.as_deref(),
        g.mate,
        &corpus_options(),
    )
}

#[test]
fn corpus_games_give_the_same_analysis_in_any_order() {
    let Some(games) = carlsen(3) else { return };
    let forward: Vec<_> = games.iter().map(analyse_corpus_game).collect();
    let backward: Vec<_> = games.iter().rev().map(analyse_corpus_game).collect();
    for (a, b) in forward.iter().zip(backward.iter().rev()) {
        assert_eq!(a, b);
    }
}

/// Games analysed for the throughput measurement, sized to keep the test near 20 s on two
/// cores; `ARBITER_ANALYSIS_GAMES=200` gives the figure in `docs/ANALYSIS.md`.
const THROUGHPUT_GAMES: usize = 60;

#[test]
fn throughput_on_master_games_at_the_default_budget() {
    if !crate::common::long() {
        return;
    }
    let count = std::env::var("ARBITER_ANALYSIS_GAMES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(THROUGHPUT_GAMES);
    let Some(games) = carlsen(count) else { return };
    let started = Instant::now();
    let analyses: Vec<GameAnalysis> = {
        use rayon::prelude::*;
        games.par_iter().map(analyse_corpus_game).collect()
    };
    let wall = started.elapsed().as_secs_f64();
    let plies: usize = games.iter().map(|g| g.moves.len()).sum();
    let deep: usize = analyses
        .iter()
        .map(|a| a.evals.iter().filter(|e| e.deep).count())
        .sum();
    let nodes: u64 = analyses
        .iter()
        .flat_map(|a| &a.evals)
        .map(|e| e.nodes)
        .sum();
    let mut counts = [0u32; 3];
    for a in &analyses {
        for side in a.counts {
            for (c, n) in counts.iter_mut().zip(side) {
                *c += n;
            }
        }
    }
    let threads = rayon::current_num_threads();
    eprintln!(
        "analysis {:?}: {} games, {plies} plies in {wall:.1} s on {threads} threads: {:.1} games/s \
         ({:.1} per thread); {deep} deep positions ({:.1}%), {:.0} recorded nodes/game; \
         inaccuracies/mistakes/blunders {counts:?}",
        corpus_options(),
        games.len(),
        games.len() as f64 / wall,
        games.len() as f64 / wall / threads as f64,
        100.0 * deep as f64 / (plies + games.len()) as f64,
        nodes as f64 / games.len() as f64,
    );
    assert_eq!(analyses.len(), games.len());
    for (a, g) in analyses.iter().zip(&games) {
        assert_eq!(a.evals.len(), g.moves.len() + 1);
        assert_eq!(a.moves.len(), g.moves.len());
    }
}
