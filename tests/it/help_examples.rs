//! Every example in the `--help` of the commands that read a database runs, as printed, on the
//! master games (real pgnmentor spellings: `Carlsen,M`, `Kasparov, Gary`, ...) and exits 0
//! with something written: on standard output, or in the files it names. An example that
//! stopped working (a renamed flag, a name that no longer resolves) fails here.

use crate::common;

use common::corpus;
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
        .filter(|l| l.starts_with("arbiter "))
        .map(str::to_owned)
        .collect()
}

fn files_in(dir: &Path) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                e.metadata().map_or(0, |m| m.len()),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn every_database_example_in_help_runs_on_real_spellings() {
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
    let bin = work.join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(BIN, bin.join("arbiter")).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut ran = 0;
    for command in COMMANDS {
        for example in examples(command) {
            if let Some((_, why)) = NOT_RUN.iter().find(|(s, _)| example.contains(s)) {
                eprintln!("not run ({why}): {example}");
                continue;
            }
            let before = files_in(work);
            let out = Command::new("sh")
                .args(["-c", &example])
                .current_dir(work)
                .env("PATH", &path)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            // `ratings --system pool` says 1 when the pool is not connected (the list is
            // still written); any other status is a broken example.
            let ok = out.status.code() == Some(0)
                || (out.status.code() == Some(1) && example.contains("--system pool"));
            assert!(ok, "{example}: {:?}\n{stderr}", out.status.code());
            let after = files_in(work);
            let wrote = after.iter().any(|f| f.1 > 0 && !before.contains(f));
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
