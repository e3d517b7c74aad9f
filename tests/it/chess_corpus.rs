//! Rules-core checks against the perft suites of other projects in `$ARBITER_CORPUS/perft/`:
//! exact node counts under a CI-sized limit, SAN and UCI round trips for every legal move of
//! every suite position, and incremental Zobrist hashes equal to recomputed ones.

use crate::common;
use common::corpus;

use arbiter::chess::perft::{SuiteEntry, parse_suite, run_suite};
use arbiter::chess::san::{SanMode, resolve, to_san};
use arbiter::chess::uci::{parse_uci, to_uci};
use arbiter::chess::{Position, fen};

const SUITES: [(&str, usize); 4] = [
    ("perft/ethereal-standard.epd", 128),
    ("perft/ethereal-fischer.epd", 960),
    ("perft/python-chess-tricky.perft", 19),
    ("perft/shakmaty-chess960.perft", 960),
];

fn load(dir: &std::path::Path, name: &str) -> Vec<SuiteEntry> {
    let text = std::fs::read_to_string(dir.join(name)).expect("suite file readable");
    parse_suite(&text).expect("suite parses")
}

/// Positions as the suite runner reads them (stale castling letters dropped).
fn positions(entries: &[SuiteEntry]) -> Vec<Position> {
    entries
        .iter()
        .map(|e| {
            let mut setup = fen::parse_setup(&e.fen).expect("FEN parses");
            setup.drop_invalid_castling();
            Position::from_setup(&setup, false).expect("position is legal")
        })
        .collect()
}

#[test]
fn perft_suites_pass_under_node_limit() {
    let Some(dir) = corpus() else { return };
    for (name, count) in SUITES {
        let entries = load(&dir, name);
        assert_eq!(entries.len(), count, "{name}: number of positions");
        let report = run_suite(&entries, 200_000);
        assert_eq!(report.failed, 0, "{name}: {:?}", report.failures);
        assert!(
            report.passed >= count,
            "{name}: only {} depths ran",
            report.passed
        );
    }
}

#[test]
fn every_legal_move_round_trips_through_san_and_uci() {
    let Some(dir) = corpus() else { return };
    let mut checked = 0usize;
    for (name, _) in SUITES {
        for pos in positions(&load(&dir, name)) {
            // The position and its children, so that moves from many shapes are covered.
            let mut nodes = vec![pos];
            for &m in pos.legal_moves().iter() {
                let mut child = pos;
                child.play_unchecked(m);
                nodes.push(child);
            }
            for node in nodes {
                for &m in node.legal_moves().iter() {
                    let san = to_san(&node, m);
                    let strict = resolve(&node, san.as_str(), SanMode::Strict)
                        .unwrap_or_else(|e| panic!("{}: {san}: {e}", node.fen()));
                    assert_eq!(strict.mv, m, "{} {san}", node.fen());
                    let lenient = resolve(&node, san.as_str(), SanMode::Lenient).unwrap();
                    assert_eq!(
                        (lenient.mv, lenient.repairs.len()),
                        (m, 0),
                        "{} {san}",
                        node.fen()
                    );
                    let uci = to_uci(&node, m);
                    assert_eq!(parse_uci(&node, &uci), Ok(m), "{} {uci}", node.fen());
                    checked += 1;
                }
            }
        }
    }
    // Measured: every move of every suite position and of each of its children.
    assert_eq!(checked, 1_468_107);
}

fn walk(pos: &Position, depth: u32, seen: &mut u64) {
    assert_eq!(pos.zobrist(), pos.zobrist_from_scratch(), "{}", pos.fen());
    // The FEN of a position rebuilds the same position and hash.
    if depth.is_multiple_of(2) {
        let again = Position::from_fen(&pos.fen()).expect("written FEN reads back");
        assert_eq!(again.zobrist(), pos.zobrist(), "{}", pos.fen());
        assert_eq!(again.fen(), pos.fen());
    }
    *seen += 1;
    if depth == 0 {
        return;
    }
    for &m in pos.legal_moves().iter() {
        let mut child = *pos;
        child.play_unchecked(m);
        walk(&child, depth - 1, seen);
    }
}

#[test]
fn incremental_zobrist_equals_recomputed() {
    let Some(dir) = corpus() else { return };
    use rayon::prelude::*;
    let mut seen = 0;
    for (name, _) in SUITES {
        let depth = if name.contains("fischer") || name.contains("960") {
            2
        } else {
            3
        };
        // Each suite position's tree on its own thread: the same walk, on both cores.
        seen += positions(&load(&dir, name))
            .par_iter()
            .map(|pos| {
                let mut n = 0;
                walk(pos, depth, &mut n);
                n
            })
            .sum::<u64>();
    }
    // Measured: every node of those trees, each checked once.
    assert_eq!(seen, 2_323_973);
}
