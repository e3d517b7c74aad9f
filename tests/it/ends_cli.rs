//! Consistent ends across commands (issue 44, newcomer report 2026-11-29 defects 13, 15,
//! 16): `-o -` is standard output, as in other command-line tools.

use crate::common::cli::{BIN, s};
use std::process::Command;

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/sample.pgn");

#[test]
fn dash_as_output_is_standard_output_in_every_table_command() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.sqlite");
    let run = |args: &[&str]| {
        let out = Command::new(BIN)
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    run(&["import", "-q", "--db", s(&db), SAMPLE]);
    let csv = run(&["export", "--db", s(&db), "--format", "csv", "-o", "-"]);
    assert_eq!(csv.lines().count(), 9, "{csv}");
    assert_eq!(csv, run(&["export", "--db", s(&db), "--format", "csv"]));
    let board = run(&[
        "stats",
        "players",
        "--db",
        s(&db),
        "--format",
        "csv",
        "-o",
        "-",
    ]);
    assert!(
        board.lines().next().unwrap().contains("player_id"),
        "{board}"
    );
    let pgn = run(&["export", "--db", s(&db), "-o", "-"]);
    assert_eq!(pgn.matches("[Event ").count(), 8);
    assert!(
        !dir.path().join("-").exists(),
        "a file named '-' was written"
    );
    // Parquet cannot go to standard output, as without -o.
    let out = Command::new(BIN)
        .args(["export", "--db", s(&db), "--format", "parquet", "-o", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// Sends SIGINT to the child, as Ctrl-C in its terminal would.
fn ctrl_c(child: &std::process::Child) {
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
}

#[test]
fn ctrl_c_is_exit_130_with_one_line_in_a_command_that_polls_nothing() {
    // perft to depth 7 from the start runs for minutes: Ctrl-C stops it.
    let child = Command::new(BIN)
        .args([
            "perft",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "7",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    ctrl_c(&child);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "arbiter: interrupted (Ctrl-C)\n"
    );
}

#[test]
fn a_bad_engine_option_value_names_the_option_and_what_it_takes() {
    let Some(sf) = crate::common::stockfish() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.sqlite");
    let ok = Command::new(BIN)
        .args(["import", "-q", "--db", s(&db), SAMPLE])
        .status()
        .unwrap();
    assert!(ok.success());
    let out = Command::new(BIN)
        .args(["analyse", "--db", s(&db), "--engine", s(&sf)])
        .args(["--engine-option", "Hash=notanumber"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--engine-option Hash=notanumber: the engine's option Hash takes a whole number from 1 to"),
        "{stderr}"
    );
    assert!(!stderr.contains("stopped answering"), "{stderr}");
}
