//! `arbiter tune fit --engine`: the positions labelled by a UCI engine through the real
//! binary. Stockfish when it is installed (skipped loudly otherwise) labels a tiny corpus of
//! three games, and a second run reads every label from the cache; an engine that cannot
//! start is a usage error before any work.

use crate::common::cli::{self, s};
use crate::common::stockfish;
use std::path::{Path, PathBuf};

/// A corpus folder in the layout the tuner reads, holding testdata's four tuning games.
fn tiny_corpus(dir: &Path) -> PathBuf {
    let corpus = dir.join("corpus");
    for sub in ["otb-pgnmentor", "otb", "twic", "lichess", "engine-tcec"] {
        std::fs::create_dir_all(corpus.join("games").join(sub)).unwrap();
    }
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/tune/games.pgn"),
        corpus.join("games/otb/games.pgn"),
    )
    .unwrap();
    corpus
}

#[test]
fn an_engine_that_cannot_start_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = tiny_corpus(dir.path());
    let cache = dir.path().join("cache");
    let out = cli::arbiter(&[
        "tune",
        "fit",
        "--corpus",
        s(&corpus),
        "--engine",
        "/nonexistent/engine",
        "--label-cache",
        s(&cache),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--engine: engine /nonexistent/engine: cannot start it"),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "nothing done before the check");
    assert!(!cache.exists());
    let out = cli::arbiter(&[
        "tune",
        "fit",
        "--corpus",
        s(&corpus),
        "--engine",
        "/nonexistent/engine",
        "--result-weight",
        "1.5",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("--result-weight must be from 0 to 1, not 1.5")
    );
}

#[test]
fn stockfish_labels_the_positions_once() {
    let Some(sf) = stockfish() else { return };
    let dir = tempfile::tempdir().unwrap();
    let corpus = tiny_corpus(dir.path());
    let cache = dir.path().join("cache");
    let weights = dir.path().join("weights.rs");
    let args = [
        "tune",
        "fit",
        "--corpus",
        s(&corpus),
        "--seed",
        "3",
        "--per-game",
        "4",
        "--epochs",
        "20",
        "--engine",
        s(&sf),
        "--engine-nodes",
        "3000",
        "--label-cache",
        s(&cache),
        "--out",
        s(&weights),
    ];
    let first = String::from_utf8(cli::ok(&args).stdout).unwrap();
    let file = cache.join("labels-seed3-nodes3000.tsv");
    let text = std::fs::read_to_string(&file).unwrap();
    let labels: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    // Three games with a result, up to four quiet positions each.
    assert!((6..=12).contains(&labels.len()), "{text}");
    for l in &labels {
        let (fen, score) = l.split_once('\t').unwrap();
        assert!(arbiter::chess::Position::from_fen(fen).is_ok(), "{l}");
        assert!(
            score.starts_with("cp ") || score.starts_with("mate "),
            "{l}"
        );
    }
    let asked = format!("{} distinct positions, 0 from", labels.len());
    assert!(first.contains(&asked), "{first}");
    assert!(
        first.contains(&format!("{} asked", labels.len())),
        "{first}"
    );
    assert!(first.contains("anchored to the hand-set pawn"), "{first}");
    let written = std::fs::read_to_string(&weights).unwrap();
    assert!(written.contains("--engine-nodes 3000"), "{written}");
    // The second run asks nothing and fits the same weights.
    let second = String::from_utf8(cli::ok(&args).stdout).unwrap();
    let cached = format!("{0} distinct positions, {0} from", labels.len());
    assert!(
        second.contains(&cached) && second.contains(", 0 asked"),
        "{second}"
    );
    assert_eq!(std::fs::read_to_string(&weights).unwrap(), written);
}
