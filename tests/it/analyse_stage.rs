//! `arbiter analyse --db`: the analysis stage over stored games is idempotent and resumable.
//! Killed mid-run, the games it committed stay analysed and the same command does the rest;
//! Ctrl-C commits and says how to go on.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_arbiter");

/// 20 stored games: the sample, stats and selection test files.
fn stored_games(dir: &Path) -> (PathBuf, i64) {
    let db = dir.join("games.sqlite");
    let out = Command::new(BIN)
        .args([
            "import",
            "-q",
            "testdata/sample.pgn",
            "testdata/stats.pgn",
            "testdata/selection.pgn",
            "--db",
        ])
        .arg(&db)
        .output()
        .unwrap();
    assert!(out.status.code().is_some_and(|c| c <= 1), "{out:?}");
    let n = count(&db, "SELECT count(*) FROM games");
    assert!(n >= 15, "{n}");
    (db, n)
}

fn count(db: &Path, sql: &str) -> i64 {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

/// A slow analysis (deep searches of 2,000,000 nodes: about 20 s for the 20 games) on one
/// thread, so that it is still
/// running after its first commit.
fn slow_run(db: &Path) -> Child {
    Command::new(BIN)
        .args(["analyse", "-q", "--jobs", "1", "--nodes", "2000000", "--db"])
        .arg(db)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits until the run has committed at least one analysis.
fn wait_for_a_commit(db: &Path) -> i64 {
    let start = Instant::now();
    loop {
        let n = count(db, "SELECT count(*) FROM analyses");
        if n > 0 {
            return n;
        }
        assert!(start.elapsed() < Duration::from_secs(120), "no commit");
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn a_killed_run_keeps_what_it_committed_and_the_same_command_does_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let (db, total) = stored_games(dir.path());
    let mut child = slow_run(&db);
    wait_for_a_commit(&db);
    child.kill().unwrap(); // SIGKILL: no chance to commit anything more
    child.wait().unwrap();
    let kept = count(&db, "SELECT count(*) FROM analyses");
    assert!(kept >= 1 && kept < total, "{kept} of {total}");
    let ids_before: Vec<i64> = {
        let conn = rusqlite::Connection::open(&db).unwrap();
        let mut st = conn
            .prepare("SELECT game_id FROM analyses ORDER BY game_id")
            .unwrap();
        st.query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let out = Command::new(BIN)
        .args(["analyse", "-q", "--jobs", "1", "--nodes", "2000000", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("skipped    {kept:>12}")),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("analysed   {:>12}", total - kept)),
        "{stdout}"
    );
    assert_eq!(count(&db, "SELECT count(*) FROM analyses"), total);
    // The games analysed before the kill kept their rows (they were not analysed again).
    let conn = rusqlite::Connection::open(&db).unwrap();
    for id in ids_before {
        let n: i64 = conn
            .query_row(
                "SELECT count(*) FROM analyses WHERE game_id = ?1",
                [id],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(n, 1);
    }
    // --redo analyses everything again under the same settings.
    let out = Command::new(BIN)
        .args([
            "analyse", "-q", "--redo", "--jobs", "2", "--nodes", "2000000", "--db",
        ])
        .arg(&db)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("analysed   {total:>12}")),
        "{stdout}"
    );
}

#[test]
fn ctrl_c_commits_and_says_how_to_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let (db, total) = stored_games(dir.path());
    let child = slow_run(&db);
    wait_for_a_commit(&db);
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let kept = count(&db, "SELECT count(*) FROM analyses");
    assert!(kept < total, "{kept} of {total}");
    assert!(
        stderr.contains(&format!(
            "interrupted: {kept} games analysed; run the same command to go on"
        )),
        "{stderr}"
    );
}
