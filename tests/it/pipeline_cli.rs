//! What a run over PGN inputs tells its user (issue 44 §7: the pipeline prints nothing, its
//! notes and errors come back to the command line), and which load `import --load auto`
//! takes on a re-import (issue 46).

use crate::common::cli::{BIN, s};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const REJECTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/rejects.pgn");

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The notes of `check` and `import` in input order and in the words they had when the
/// pipeline printed them itself: an input that cannot be opened, each rejected game's error
/// (none with `--quiet`), a file without a game.
#[test]
fn check_and_import_say_what_happened_to_each_input_in_input_order() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.pgn");
    let empty = dir.path().join("empty.pgn");
    std::fs::write(&empty, "").unwrap();
    let db = dir.path().join("g.sqlite");
    let games = [
        format!(
            "{REJECTS}: game 2, line 20, column 13 (byte 367): error [move.illegal]: move 2. \
             Ke3: \"Ke3\" is not a legal move in this position (ply 3) near `Ke3`\n"
        ),
        format!(
            "{REJECTS}: game 3, line 30, column 7 (byte 505): error [pgn.unreadable-token]: \
             this is not a move, move number, NAG, comment or result (ply 2) near `Zq9`\n"
        ),
    ];
    let open = format!(
        "arbiter: cannot open {}: No such file or directory (os error 2)\n",
        missing.display()
    );
    let no_game = format!(
        "arbiter: {}: no PGN game found (the file is empty)\n",
        empty.display()
    );
    let inputs = [s(&missing), REJECTS, s(&empty)];
    let check = run(&[&["check"][..], &inputs].concat());
    assert_eq!(check.status.code(), Some(2));
    assert_eq!(
        stderr(&check),
        [open.as_str(), &games[0], &games[1], &no_game].concat()
    );
    let quiet = run(&[&["check", "-q"][..], &inputs].concat());
    assert_eq!(stderr(&quiet), [open.as_str(), &no_game].concat());
    let import = run(&[&["import", "--db", s(&db)][..], &inputs].concat());
    assert_eq!(import.status.code(), Some(2));
    assert_eq!(
        stderr(&import),
        [open.as_str(), &games[0], &games[1], &no_game].concat()
    );
}

/// A quarantine that cannot be written is named in the error (it said "No space left on
/// device" alone).
#[test]
fn a_quarantine_that_cannot_be_written_is_named() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    let out = run(&["check", "-q", "--quarantine", "/dev/full", REJECTS]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("arbiter: /dev/full: No space left on device"),
        "{}",
        stderr(&out)
    );
}

/// Games long enough (a comment of 700 characters each) that the file's size says more
/// games than the database holds once they are imported.
fn long_games(path: &Path, count: usize) {
    let moves = ["e4 e5", "d4 d5", "c4 c5", "Nf3 Nf6", "g3 g6"];
    let text: String = (0..count)
        .map(|i| {
            format!(
                "[Event \"Long {i}\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"*\"]\n\n\
                 {{{}}} 1. {} *\n\n",
                "c".repeat(700),
                moves[i % moves.len()]
            )
        })
        .collect();
    std::fs::write(path, text).unwrap();
}

fn import_auto(db: &Path, file: &Path) -> (serde_json::Value, String) {
    let json = db.with_extension("json");
    let out = run(&[
        "import",
        "-q",
        "--db",
        s(db),
        "--summary-json",
        s(&json),
        s(file),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let summary = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    (summary, String::from_utf8(out.stdout).unwrap())
}

/// Importing the same file again into its own database stores nothing, and `--load auto`
/// keeps the indexes (the rows path) instead of dropping and rebuilding them: the file is
/// recorded as imported to its end, so its bytes count for no new games.
#[test]
fn reimporting_a_file_into_its_own_database_takes_the_rows_path() {
    let dir = tempfile::tempdir().unwrap();
    let (pgn, db) = (dir.path().join("long.pgn"), dir.path().join("g.sqlite"));
    long_games(&pgn, 5);
    assert!(std::fs::metadata(&pgn).unwrap().len() / 600 >= 5);
    let (first, stdout) = import_auto(&db, &pgn);
    assert_eq!(
        (first["stored"].as_u64(), first["bulk"].as_bool()),
        (Some(5), Some(true))
    );
    assert!(stdout.contains("\nload               bulk  ("), "{stdout}");
    let (again, stdout) = import_auto(&db, &pgn);
    assert_eq!(
        (again["stored"].as_u64(), again["already_present"].as_u64()),
        (Some(0), Some(5))
    );
    assert_eq!(again["bulk"].as_bool(), Some(false));
    assert!(stdout.contains("\nload               rows  ("), "{stdout}");
    // The same games under another name are new bytes: into a database they double, bulk.
    let copy = dir.path().join("copy.pgn");
    std::fs::copy(&pgn, &copy).unwrap();
    let (copied, _) = import_auto(&db, &copy);
    assert_eq!(
        (copied["already_present"].as_u64(), copied["bulk"].as_bool()),
        (Some(5), Some(true))
    );
}

/// Progress lines written to a log or a pipe (stderr not a terminal) each end with a line
/// end (newcomer report, defect 16: `indexed 2128 of 2128 gamesindexed 2128 games`).
#[test]
fn progress_lines_to_a_pipe_end_with_a_newline() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.sqlite");
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/sample.pgn");
    let import = run(&[
        "import",
        "-q",
        "--no-position-index",
        "--db",
        s(&db),
        sample,
    ]);
    assert_eq!(import.status.code(), Some(0), "{}", stderr(&import));
    let index = run(&["index", "--db", s(&db)]);
    assert_eq!(index.status.code(), Some(0), "{}", stderr(&index));
    let err = stderr(&index);
    assert!(err.starts_with("indexed 8 of 8 games\n"), "{err}");
    assert!(
        err.ends_with('\n') && !err.contains("gamesindexed"),
        "{err}"
    );
}

/// Ctrl-C stops `check` at its next look (a tenth of a second): exit 130 with one line, and
/// neither the findings file nor the quarantine is left half written (the process used to
/// end at once, leaving the findings file's temporary name and a partial quarantine).
#[test]
fn ctrl_c_on_check_leaves_no_output_behind() {
    let dir = tempfile::tempdir().unwrap();
    let (findings, quarantine) = (dir.path().join("f.jsonl"), dir.path().join("q.pgn"));
    let mut child = Command::new(BIN)
        .args(["check", "-q", "--findings", s(&findings)])
        .args(["--quarantine", s(&quarantine), "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Standard input stays open: the run waits for more games when Ctrl-C comes.
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&std::fs::read(REJECTS).unwrap()).unwrap();
    stdin.flush().unwrap();
    // Both outputs are opened once Ctrl-C is caught, before the first game is read.
    let start = Instant::now();
    while !quarantine.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no quarantine made"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let out = child.wait_with_output().unwrap();
    drop(stdin);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(
        err.starts_with("arbiter: interrupted: ")
            && err.ends_with(" games checked; no findings or quarantine file is left\n")
            && err.lines().count() == 1,
        "{err}"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}
