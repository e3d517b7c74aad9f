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

/// Runs `arbiter ARGS... --suite FILE` on `text` written to a file named `suite.epd`.
fn run_suite(args: &[&str], suite: &str) -> (Option<i32>, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("suite.epd");
    std::fs::write(&path, suite).unwrap();
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--suite", path.to_str().unwrap()]);
    let out = arbiter(&all);
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

#[test]
fn suite_lines_padded_with_nul_are_read_and_one_bad_line_does_not_fail_the_file() {
    let (code, out, err) = run_suite(
        &["perft"],
        "K7/8/8/8/8/8/8/7k w - - 0 1 ;D1 3 ;D2 9\0\0\0\n\
         K7/8/8/8/8/8/8/7k w - - 0 1 ;D1 x\n\
         K7/8/8/8/8/8/8/7k w - - 0 1 ;D1 3  \t\r\n",
    );
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(
        out.contains("suite.epd:2: skipped: bad depth field"),
        "{out}"
    );
    assert!(out.ends_with("3 passed, 0 failed, 1 skipped\n"), "{out}");

    let (code, out, err) = run_suite(
        &["epd", "--nodes", "2000"],
        "7k/8/6K1/8/8/8/8/1Q6 w - - bm Qb8#; id \"mate\";\0\0\n\
         not an epd line\n",
    );
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("suite.epd:2: skipped: "), "{out}");
    assert!(out.ends_with("1 passed, 0 failed, 1 skipped\n"), "{out}");

    let (code, out, err) = run_suite(
        &["dead"],
        "-- 8/8/4k3/8/8/3K4/8/8 w - - 0 1\0\0\n\
         XX 8/8/4k3/8/8/3K4/8/8 w - - 0 1\n",
    );
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("suite.epd:2: skipped: bad label"), "{out}");
    assert!(
        out.ends_with("1 passed, 0 failed, 0 undetermined, 1 skipped\n"),
        "{out}"
    );
}

#[test]
fn already_checkmate_is_not_called_cannot_win_by_dead() {
    let out = arbiter(&["dead", "8/8/8/8/8/2b1k1b1/8/3RKR2 w - -"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout.contains("Black: has checkmated"), "{stdout}");
    assert!(stdout.contains("position: checkmate"), "{stdout}");
    assert!(!stdout.contains("Black: cannot win"), "{stdout}");
}

#[test]
fn import_analyse_followed_by_a_file_does_not_read_the_file_as_the_node_count() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("a.sqlite");
    let sample = testdata("sample.pgn");
    let out = arbiter(&[
        "import",
        "-q",
        "--db",
        db.to_str().unwrap(),
        "--engine",
        "none",
        "--analyse",
        sample.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let conn = Connection::open(&db).unwrap();
    let games: i64 = conn
        .query_row("SELECT count(*) FROM games", [], |r| r.get(0))
        .unwrap();
    assert_eq!(games, 8);
    let analysed: i64 = conn
        .query_row("SELECT count(*) FROM analyses", [], |r| r.get(0))
        .unwrap();
    assert_eq!(analysed, 8);
}

#[test]
fn help_help_does_not_error() {
    let out = arbiter(&["help", "--help"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("Usage: arbiter"));
}

#[test]
fn second_import_while_the_first_runs_says_so_instead_of_resuming() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("a.sqlite");
    // Enough games for the first import to run for a while: the sample, 500 times.
    let sample = std::fs::read_to_string(testdata("sample.pgn")).unwrap();
    let big = dir.path().join("big.pgn");
    std::fs::write(&big, sample.repeat(500)).unwrap();
    let args = [
        "import",
        "-q",
        "--jobs",
        "1",
        "--db",
        db.to_str().unwrap(),
        big.to_str().unwrap(),
    ];
    let mut first = Command::new(BIN)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let lock = dir.path().join("a.sqlite-import.lock");
    let started = std::time::Instant::now();
    while !lock.exists() && started.elapsed().as_secs() < 30 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let second = arbiter(&args);
    let still_running = first.try_wait().unwrap().is_none();
    let first_status = first.wait().unwrap();
    assert!(
        still_running,
        "the first import ended before the second started"
    );
    let err = text(&second.stderr);
    assert_eq!(second.status.code(), Some(2), "{err}");
    assert!(err.contains("another arbiter import is writing"), "{err}");
    assert!(!err.contains("resuming"), "{err}");
    assert_eq!(first_status.code(), Some(0));
    // Once the first has ended, the same command runs (and finds every game present).
    let again = arbiter(&args);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    assert!(!lock.exists());
}

#[test]
fn every_subcommand_help_has_examples() {
    let top = text(&arbiter(&["--help"]).stdout);
    let commands: Vec<&str> = top
        .split("Commands:")
        .nth(1)
        .unwrap()
        .split("Options:")
        .next()
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() >= 8, "{commands:?}");
    for command in commands {
        let out = arbiter(&[command, "--help"]);
        assert_eq!(out.status.code(), Some(0), "{command}");
        let help = text(&out.stdout);
        let examples = help.split("Examples:").nth(1).unwrap_or("");
        let count = examples
            .lines()
            .filter(|l| {
                // A command line: arbiter itself, or arbiter at the end of a pipe.
                let l = l.trim_start();
                l.starts_with("arbiter ") || (!l.starts_with('#') && l.contains("| arbiter "))
            })
            .count();
        assert!(
            (2..=3).contains(&count),
            "arbiter {command} --help:\n{help}"
        );
    }
}
