//! Every example in the `--help` of the commands that read a database runs, as printed, on the
//! master games (real pgnmentor spellings: `Carlsen,M`, `Kasparov, Gary`, ...) and exits 0
//! with something written: on standard output, or in the files it names. An example that
//! stopped working (a renamed flag, a name that no longer resolves) fails here.

use crate::common;

use common::corpus;
use common::shell::{Ran, Shell};
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_arbiter");

/// The commands whose examples run against `games.sqlite`, with the help that holds them.
const COMMANDS: [&[&str]; 12] = [
    &["export"],
    &["openings"],
    &["duplicates"],
    &["players"],
    &["stats", "players"],
    &["stats", "player"],
    &["stats", "h2h"],
    &["stats", "openings"],
    &["ratings"],
    &["search"],
    &["index"],
    &["tournament"],
];

/// Examples that need what a test cannot give (a file of the user's), with the reason.
const NOT_RUN: [(&str, &str); 2] = [
    ("--trf open2025.trf", "a TRF file of the user's"),
    (
        "'Tata Steel Masters' --year 2024",
        "an event the master games do not hold",
    ),
];

#[test]
fn every_database_example_in_help_runs_on_real_spellings() {
    if !crate::common::long() {
        return;
    }
    let Some(corpus) = corpus() else { return };
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path();
    // The master games, as pgnmentor spells their players (the files in name order).
    let mut files: Vec<_> = std::fs::read_dir(corpus.join("games/otb-pgnmentor"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "pgn"))
        .collect();
    files.sort();
    let mut pgn = Vec::new();
    for file in files {
        pgn.extend(std::fs::read(&file).unwrap());
        pgn.push(b'\n');
    }
    std::fs::write(work.join("games.pgn"), &pgn).unwrap();
    let out = Command::new(BIN)
        .args(["import", "-q", "--db", "games.sqlite", "games.pgn"])
        .current_dir(work)
        .output()
        .unwrap();
    assert!(out.status.code().is_some_and(|c| c <= 1), "{out:?}");
    std::fs::copy(work.join("games.sqlite"), work.join("old.sqlite")).unwrap();
    // `arbiter` on the PATH, as the examples call it.
    let shell = Shell::new(work);
    let mut ran = 0;
    for command in COMMANDS {
        for example in examples(command) {
            if let Some((_, why)) = NOT_RUN.iter().find(|(s, _)| example.contains(s)) {
                eprintln!("not run ({why}): {example}");
                continue;
            }
            let Ran { out, wrote, .. } = shell.run(&example);
            let stderr = String::from_utf8_lossy(&out.stderr);
            // `ratings --system pool` says 1 when the pool is not connected (the list is
            // still written); any other status is a broken example.
            let ok = out.status.code() == Some(0)
                || (out.status.code() == Some(1) && example.contains("--system pool"));
            assert!(ok, "{example}: {:?}\n{stderr}", out.status.code());
            // `index` reports on standard error what it indexed (0 games when the import
            // already did).
            let reported = example.starts_with("arbiter index") && !out.stderr.is_empty();
            assert!(
                !out.stdout.is_empty() || wrote || reported,
                "{example}: nothing written\n{stderr}"
            );
            ran += 1;
        }
    }
    assert!(ran >= 30, "only {ran} examples ran");
}

/// The commands that need no database, whose examples run on small files under the names
/// the examples use (cut from the corpus or testdata): every one exits 0 and prints.
const FILE_COMMANDS: [&str; 8] = [
    "check", "import", "perft", "bench", "dead", "analyse", "epd", "uci",
];

/// Examples of those that take minutes by design, with the reason.
const TOO_LONG: [(&str, &str); 4] = [
    ("bench laws", "seven passes over the master games"),
    ("bench import", "a million games imported"),
    ("bench synth", "a million games written"),
    (
        "--analyse=50000",
        "an analysis of every position of every game",
    ),
];

/// An example line: it starts with `arbiter ` or pipes into it.
fn runnable(line: &str) -> bool {
    line.starts_with("arbiter ") || line.contains("| arbiter ")
}

/// The runnable lines after "Examples:" in `arbiter COMMAND... --help`.
fn examples(command: &[&str]) -> Vec<String> {
    let mut args = command.to_vec();
    args.push("--help");
    let out = Command::new(BIN).args(&args).output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    help.split("Examples:")
        .nth(1)
        .unwrap_or("")
        .lines()
        .map(str::trim)
        .filter(|l| runnable(l))
        .map(str::to_owned)
        .collect()
}

/// The first `n` lines of a corpus file.
fn head(path: &Path, n: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines().take(n).map(|l| format!("{l}\n")).collect()
}

#[test]
fn every_example_of_the_file_commands_runs() {
    let Some(corpus) = corpus() else { return };
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path();
    let testdata = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let pgn = std::fs::read(testdata.join("duplicates.pgn")).unwrap();
    for name in ["games.pgn", "club.pgn", "twic1500.pgn"] {
        std::fs::write(work.join(name), &pgn).unwrap();
    }
    for (tool, name) in [("zstd", "games.pgn"), ("gzip", "twic1500.pgn")] {
        let status = Command::new(tool)
            .args(["-q", "-k", "-f", name])
            .current_dir(work)
            .status()
            .unwrap();
        assert!(status.success(), "{tool}");
    }
    let wac: Vec<String> = head(&corpus.join("tactics/wac.epd"), 6)
        .lines()
        .map(|l| format!("{l}\n"))
        .collect();
    let files = [
        (
            "standard.epd",
            head(&corpus.join("perft/ethereal-standard.epd"), 4),
        ),
        (
            "labels.txt",
            head(&corpus.join("unwinnability/dead-positions-74.tsv"), 8),
        ),
        // WAC.003 to .006: arbiter misses WAC.001 at depth 8 and WAC.002 at 100,000 nodes
        // (epd then exits 1).
        ("wac.epd", wac[2..6].concat()),
        ("tactics.epd", wac[2..4].concat()),
        (
            "finals.fen",
            "8/8/4k3/8/8/3K4/8/8 w - - 0 1\n8/8/4k3/8/8/3K4/8/7R w - - 0 1\n".to_owned(),
        ),
        (
            "session.txt",
            "uci\nposition startpos\ngo depth 8\nposition startpos\nquit\n".to_owned(),
        ),
    ];
    for (name, text) in files {
        std::fs::write(work.join(name), text).unwrap();
    }
    let shell = Shell::new(work);
    let mut ran = 0;
    for command in FILE_COMMANDS {
        let examples = examples(&[command]);
        assert!(examples.len() >= 2, "{command}: {examples:?}");
        for example in examples {
            if let Some((_, why)) = TOO_LONG.iter().find(|(s, _)| example.contains(s)) {
                eprintln!("not run ({why}): {example}");
                continue;
            }
            let Ran {
                out,
                created,
                wrote,
            } = shell.run(&example);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "{example}\n{stderr}");
            assert!(
                !out.stdout.is_empty() || wrote,
                "{example}: nothing written\n{stderr}"
            );
            // Each example starts from the same files (check's empty quarantine is no
            // PGN for the next example's `*.pgn`).
            for name in created {
                let p = work.join(name);
                let _ = std::fs::remove_file(&p).or_else(|_| std::fs::remove_dir_all(&p));
            }
            ran += 1;
        }
    }
    assert!(ran >= 19, "only {ran} examples ran");
}
