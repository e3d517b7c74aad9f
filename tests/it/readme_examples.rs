//! Every command the README shows in an indented block runs, as printed and in order, and
//! exits 0 with something written. The set-up command runs on the bundled sample; the typical
//! workflow runs on real TWIC games (`twic/`, where `Carlsen,M` plays) and on a
//! zstd-compressed lichess file under the name the README gives it. A renamed flag, a
//! spelling that no longer resolves or a step that depends on a file the README never made
//! fails here. Lines of other programs (`duckdb`, `cargo test`) are not run here: the
//! DuckDB reading is checked by the Parquet tests, and the test command is this run.

use crate::common;

use common::corpus;
use common::shell::{Ran, Shell};
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_arbiter");

/// The README's indented command lines, with `cargo run --release --` read as `arbiter`
/// (the test runs the binary it was built with). Lines of other programs are returned apart.
fn readme_commands() -> (Vec<String>, Vec<String>) {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let (mut ours, mut others) = (Vec::new(), Vec::new());
    for line in text.lines() {
        let Some(command) = line.strip_prefix("    ") else {
            continue;
        };
        let command = command.trim();
        if let Some(rest) = command.strip_prefix("cargo run --release -- ") {
            ours.push(format!("arbiter {rest}"));
        } else if command.starts_with("arbiter ") {
            ours.push(command.to_owned());
        } else if !command.is_empty() && !command.starts_with('|') {
            others.push(command.to_owned());
        }
    }
    (ours, others)
}

#[test]
fn the_readme_lists_its_set_up_commands_and_its_workflow() {
    let (ours, others) = readme_commands();
    assert!(
        ours.iter()
            .any(|c| c == "arbiter import testdata/sample.pgn --db sample.sqlite"),
        "the set-up command is gone: {ours:?}"
    );
    assert!(
        others
            .iter()
            .any(|c| c == "ARBITER_CORPUS=../shared/corpus cargo test --profile ci"),
        "the test command is gone: {others:?}"
    );
    for step in [
        "import",
        "players",
        "duplicates",
        "stats",
        "ratings",
        "export",
    ] {
        assert!(
            ours.iter()
                .any(|c| c.starts_with(&format!("arbiter {step} "))),
            "the workflow has no `{step}` step"
        );
    }
}

#[test]
fn every_readme_command_runs_as_printed() {
    let Some(corpus) = corpus() else { return };
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path();
    std::fs::create_dir(work.join("testdata")).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sample.pgn"),
        work.join("testdata/sample.pgn"),
    )
    .unwrap();
    std::fs::create_dir(work.join("twic")).unwrap();
    for name in ["twic944.pgn", "twic1599_1000k.pgn"] {
        std::fs::copy(
            corpus.join("games/twic").join(name),
            work.join("twic").join(name),
        )
        .unwrap();
    }
    let lichess = std::fs::read(corpus.join("games/lichess/lichess_db_1000k.pgn")).unwrap();
    std::fs::write(
        work.join("lichess_2024-01.pgn.zst"),
        zstd::encode_all(&lichess[..], 3).unwrap(),
    )
    .unwrap();
    let shell = Shell::new(work);
    let (ours, _) = readme_commands();
    for command in &ours {
        let Ran { out, wrote, .. } = shell.run(command);
        let stderr = String::from_utf8_lossy(&out.stderr);
        // `import` says 1 when it rejected a game (the others are stored), and the real
        // lichess and TWIC files hold a few; `ratings --system pool` says 1 when the pool is
        // not connected (the list is still written). Any other status is a broken example.
        let code = out.status.code();
        let ok = code == Some(0)
            || (code == Some(1)
                && (command.starts_with("arbiter import") || command.contains("--system pool")));
        assert!(ok, "{command}: {code:?}\n{stderr}");
        // `duplicates` with no duplicate to list reports its groups on standard error.
        let reported = command.starts_with("arbiter duplicates") && stderr.contains("groups");
        assert!(
            !out.stdout.is_empty() || wrote || reported,
            "{command}: nothing written\n{stderr}"
        );
    }
    assert!(ours.len() >= 10, "only {} README commands", ours.len());
    // The workflow's import read both inputs: the walked folder and the compressed file.
    let out = Command::new(BIN)
        .args(["export", "--db", "games.sqlite", "--format", "csv"])
        .current_dir(work)
        .output()
        .unwrap();
    let csv = String::from_utf8_lossy(&out.stdout);
    assert!(csv.contains("Carlsen,M") || csv.contains("Carlsen, M"));
    assert!(csv.lines().count() > 2_000, "{} rows", csv.lines().count());
}
