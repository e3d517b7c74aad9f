//! Regression tests for the command-line defects of issue 19, each named after what broke:
//! the real binary on real files, a real pipe closed early, real SQLite files.

use rusqlite::Connection;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_arbiter");

fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(name)
}

fn arbiter(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A database with the sample games in it.
fn sample_db(dir: &Path) -> PathBuf {
    let db = dir.join("a.sqlite");
    let out = arbiter(&[
        "import",
        "-q",
        "--db",
        db.to_str().unwrap(),
        testdata("sample.pgn").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    db
}

/// Runs arbiter with its standard output a pipe whose reading end is closed before the
/// program writes (as `| head -0` would), and returns the exit status and standard error.
fn with_closed_pipe(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(BIN)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    drop(child.stdout.take());
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (child.wait().unwrap().code(), err)
}

#[test]
fn broken_pipe_ends_every_command_quietly_with_status_0() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(dir.path());
    let db = db.to_str().unwrap();
    let sample = testdata("sample.pgn");
    let sample = sample.to_str().unwrap();
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let runs: Vec<Vec<&str>> = vec![
        vec!["export", "--db", db, "--format", "csv"],
        vec!["export", "--db", db, "--format", "pgn"],
        vec!["export", "--db", db, "--format", "jsonl"],
        vec!["export", "--db", db, "--format", "csv", "--findings"],
        vec!["export", "--db", db, "--format", "jsonl", "--findings"],
        vec!["check", "-q", sample],
        vec!["perft", "--divide", start, "2"],
        vec!["perft", start, "1"],
        vec!["dead", "8/8/4k3/8/8/3K4/8/8 w - - 0 1"],
        vec!["analyse", "--nodes", "1000", start],
        vec!["--help"],
        vec!["check", "--help"],
    ];
    for args in runs {
        let (code, err) = with_closed_pipe(&args);
        assert_eq!(code, Some(0), "arbiter {}: {err}", args.join(" "));
        assert!(
            !err.contains("Broken pipe") && !err.contains("os error 32"),
            "arbiter {}: {err}",
            args.join(" ")
        );
    }
}

#[test]
fn read_only_database_file_leaves_no_wal_or_shm_behind() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(dir.path());
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o444)).unwrap();
    let out = arbiter(&["export", "--db", db.to_str().unwrap(), "--format", "csv"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout).lines().count(),
        1 + 8,
        "{}",
        text(&out.stdout)
    );
    let mut left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["a.sqlite"]);
}

#[test]
fn read_only_database_in_read_only_folder_exports() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("archive");
    std::fs::create_dir(&folder).unwrap();
    let db = sample_db(&folder);
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o444)).unwrap();
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o555)).unwrap();
    let out = arbiter(&["export", "--db", db.to_str().unwrap(), "--format", "pgn"]);
    let names: Vec<_> = std::fs::read_dir(&folder).unwrap().collect();
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).matches("[Event ").count(), 8);
    assert_eq!(names.len(), 1, "side files written into a read-only folder");
}

/// Sets `user_version` on a database built by a real import.
fn db_with_version(dir: &Path, version: i64) -> PathBuf {
    let db = sample_db(dir);
    let conn = Connection::open(&db).unwrap();
    conn.pragma_update(None, "user_version", version).unwrap();
    drop(conn);
    db
}

/// Import and export both refuse the database with one line on standard error containing
/// `expected`, exit 2.
fn refused_with_one_line(db: &Path, expected: &str) {
    let db = db.to_str().unwrap();
    let sample = testdata("sample.pgn");
    for args in [
        vec!["import", "-q", "--db", db, sample.to_str().unwrap()],
        vec!["export", "--db", db],
    ] {
        let out = arbiter(&args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(!err.contains("CREATE"), "{err}");
        assert!(err.contains(expected), "{err}");
    }
}

#[test]
fn populated_database_with_user_version_0_is_refused_without_printing_the_schema() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_with_version(dir.path(), 0);
    refused_with_one_line(&db, "no arbiter schema version");
}

#[test]
fn database_with_user_version_minus_1_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_with_version(dir.path(), -1);
    refused_with_one_line(&db, "schema version -1");
}
