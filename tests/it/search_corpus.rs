//! The engine against the tactics corpus (`$ARBITER_CORPUS/tactics`): a Win At Chess subset at
//! a fixed node budget (an exact solved count: any change in search behaviour shows) and the
//! mate-in-1/2/3 suites, each mate found with its exact distance.

use crate::common;
use common::corpus;

use arbiter::chess::Position;
use arbiter::search::epd::parse_suite;
use arbiter::search::{Limits, Score, Searcher};

/// Positions of WAC searched, the node budget each, and how many are solved.
const WAC_POSITIONS: usize = 50;
const WAC_NODES: u64 = 200_000;
const WAC_SOLVED: usize = 48;

#[test]
fn win_at_chess_subset_at_a_fixed_node_budget() {
    let Some(dir) = corpus() else { return };
    let text = std::fs::read_to_string(dir.join("tactics/wac.epd")).unwrap();
    let mut searcher = Searcher::new(16);
    let mut solved = 0;
    let mut failed = Vec::new();
    for record in parse_suite(&text).into_iter().take(WAC_POSITIONS) {
        let record = record.unwrap();
        searcher.clear();
        let result = searcher.search(&record.position, &[], Limits::nodes(WAC_NODES));
        assert!(!result.truncated);
        match result.best_move {
            Some(m) if record.is_solved_by(m) => solved += 1,
            _ => failed.push(record.id),
        }
    }
    assert_eq!(solved, WAC_SOLVED, "failed: {failed:?}");
}

/// Runs a file of FEN lines, each a mate in `moves` for the side to move.
fn mate_suite(file: &str, moves: i32, nodes: u64) {
    let Some(dir) = corpus() else { return };
    let text = std::fs::read_to_string(dir.join("tactics").join(file)).unwrap();
    let mut searcher = Searcher::new(16);
    let mut wrong = Vec::new();
    let mut count = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let pos = Position::from_fen(line.trim()).unwrap();
        searcher.clear();
        let result = searcher.search(&pos, &[], Limits::nodes(nodes));
        count += 1;
        if result.score != Score::Mate(moves) {
            wrong.push(format!("{line}: {:?}", result.score));
            continue;
        }
        // The principal variation really mates.
        let mut after = pos;
        for &m in &result.pv {
            assert!(after.is_legal(m), "{line}: illegal pv move {m:?}");
            after.play_unchecked(m);
        }
        assert!(after.is_checkmate(), "{line}: pv does not end in mate");
    }
    assert!(count > 0, "{file} is empty");
    assert!(
        wrong.is_empty(),
        "{file}: {} of {count} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn mates_in_one() {
    mate_suite("sunfish-mate1.fen", 1, 100_000);
}

#[test]
fn mates_in_two() {
    mate_suite("sunfish-mate2.fen", 2, 1_000_000);
}

#[test]
fn mates_in_three() {
    mate_suite("sunfish-mate3.fen", 3, 3_000_000);
}
