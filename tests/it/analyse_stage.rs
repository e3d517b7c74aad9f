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
        .args([
            "analyse", "-q", "--engine", "none", "--jobs", "1", "--nodes", "2000000",
        ])
        .arg("--db")
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
    if !crate::common::long() {
        return;
    }
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
        .args([
            "analyse", "-q", "--engine", "none", "--jobs", "1", "--nodes", "2000000",
        ])
        .arg("--db")
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
            "analyse", "-q", "--engine", "none", "--redo", "--jobs", "2", "--nodes", "2000000",
            "--db",
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
    assert_eq!(out.status.code(), Some(130), "{out:?}");
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

/// `arbiter uci` as a UCI engine (deterministic at fixed nodes), named `name` in `dir`.
fn uci_wrapper(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\nexec {BIN} uci\n")).unwrap();
    let mut perm = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(&path, perm).unwrap();
    path
}

/// The engine name `arbiter uci` reports.
const UCI_NAME: &str = concat!("arbiter ", env!("CARGO_PKG_VERSION"));

/// `testdata/analysis/blunders.pgn` (two short games with a blunder each), not analysed.
fn blunders_db(dir: &Path) -> PathBuf {
    let db = dir.join("b.sqlite");
    let out = Command::new(BIN)
        .args(["import", "-q", "testdata/analysis/blunders.pgn", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    db
}

fn analyse(db: &Path, extra: &[&str]) -> String {
    let out = Command::new(BIN)
        .args(["analyse", "-q", "--jobs", "1", "--db"])
        .arg(db)
        .args(extra)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// Per game: the export's accuracy, label counts and engine columns, as CSV lines.
fn labels(db: &Path) -> Vec<String> {
    let out = Command::new(BIN)
        .args(["export", "--format", "csv", "--columns"])
        .arg("id,white_accuracy,black_accuracy,white_blunders,black_blunders,black_mistakes,analysis_engine")
        .arg("--db")
        .arg(db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .skip(1)
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_weaker_analysis_never_replaces_a_stronger_one() {
    // Defect 1 of the newcomer review: `analyse --db` without an engine, after an engine's
    // run, replaced every engine analysis with arbiter's own, without a word.
    let dir = tempfile::tempdir().unwrap();
    let db = blunders_db(dir.path());
    let engine = uci_wrapper(dir.path(), "engine");
    let engine = engine.to_str().unwrap();
    let at = |nodes: &'static str| {
        [
            "--engine",
            engine,
            "--engine-nodes",
            nodes,
            "--engine-sweep-nodes",
            "1000",
            "--engine-refine-nodes",
            "0",
        ]
    };
    let out = analyse(&db, &at("5000"));
    assert!(out.contains(&format!("analysed   {:>12}", 2)), "{out}");
    let by_engine = labels(&db);
    assert_eq!(by_engine.len(), 2);
    assert!(
        by_engine
            .iter()
            .all(|l| l.ends_with(&format!(",{UCI_NAME}"))),
        "{by_engine:?}"
    );
    let findings = "SELECT group_concat(code || ':' || ply || ':' || detail, '|') FROM \
                    (SELECT * FROM findings WHERE code LIKE 'analysis.%' ORDER BY id)";
    let engine_findings: String = one(&db, findings);
    assert!(
        engine_findings.contains(&format!("[{UCI_NAME}]")),
        "{engine_findings}"
    );

    // arbiter's own search is weaker: skipped, and the summary says why.
    let out = analyse(&db, &["--engine", "none"]);
    assert!(
        out.contains(&format!(
            "skipped    {:>12}  (already analysed at least as strongly: 2 by {UCI_NAME} at \
             5000 nodes a position; --redo analyses them again)",
            2
        )),
        "{out}"
    );
    assert!(out.contains(&format!("analysed   {:>12}", 0)), "{out}");
    assert_eq!(labels(&db), by_engine);

    // --redo stores the own analysis beside the engine's; the engine's stays the one read.
    let out = analyse(&db, &["--engine", "none", "--redo"]);
    assert!(out.contains(&format!("not read   {:>12}", 2)), "{out}");
    assert_eq!(labels(&db), by_engine);
    assert_eq!(one::<String>(&db, findings), engine_findings);
    assert_eq!(count(&db, "SELECT count(*) FROM analysis_runs"), 4);
    assert_eq!(count(&db, "SELECT count(*) FROM analyses"), 2);
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM analyses WHERE engine_positions > 0"
        ),
        2
    );
    // The evaluations read are the engine run's alone, one per position.
    assert_eq!(
        count(&db, "SELECT count(*) FROM evaluations"),
        count(&db, "SELECT sum(ply_count + 1) FROM games")
    );

    // A higher budget is stronger: analysed, and read from now on.
    let out = analyse(&db, &at("8000"));
    assert!(out.contains(&format!("analysed   {:>12}", 2)), "{out}");
    assert!(!out.contains("not read"), "{out}");
    assert_eq!(count(&db, "SELECT count(*) FROM analysis_runs"), 6);
    let settings: String = one(&db, "SELECT group_concat(settings) FROM analyses");
    assert!(
        settings.matches("\"nodes\":8000").count() == 2,
        "{settings}"
    );
    // The lower budget again is weaker now.
    let out = analyse(&db, &at("5000"));
    assert!(
        out.contains(&format!(
            "skipped    {:>12}  (already analysed at least as strongly: 2 by {UCI_NAME} at 8000",
            2
        )),
        "{out}"
    );
}

fn one<T: rusqlite::types::FromSql>(db: &Path, sql: &str) -> T {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

#[test]
fn the_own_search_counts_only_the_labels_it_gives_and_leaves_the_others_blank() {
    // Defect 10: "0 inaccuracies, 0 mistakes" although the own search never judges them.
    let dir = tempfile::tempdir().unwrap();
    let db = blunders_db(dir.path());
    let out = analyse(&db, &["--engine", "none"]);
    let line = out.lines().find(|l| l.starts_with("labels")).unwrap();
    let blunders = count(
        &db,
        "SELECT sum(white_blunders) + sum(black_blunders) FROM analyses",
    );
    assert!(blunders > 0);
    assert_eq!(
        line,
        format!(
            "labels     {blunders:>12}  blunders; inaccuracies and mistakes need an engine \
             (Stockfish on PATH, or --engine PATH)"
        )
    );
    // Stored and exported as unknown, not 0; the blunders and accuracy are there.
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM analyses WHERE white_inaccuracies IS NULL \
             AND black_mistakes IS NULL AND white_blunders IS NOT NULL"
        ),
        2
    );
    for row in labels(&db) {
        let cells: Vec<&str> = row.split(',').collect();
        assert_eq!(cells[5], "", "black_mistakes blank: {row}");
        assert!(!cells[1].is_empty() && !cells[3].is_empty(), "{row}");
        assert_eq!(cells[6], "arbiter", "{row}");
    }
}

#[test]
fn progress_goes_to_a_log_every_few_seconds() {
    // stderr a pipe: a progress line every 5 s, not only on a terminal.
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let (db, total) = stored_games(dir.path());
    let mut child = Command::new(BIN)
        .args([
            "analyse", "--engine", "none", "--jobs", "1", "--nodes", "2000000",
        ])
        .arg("--db")
        .arg(&db)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let line = stderr
        .lines()
        .map(Result::unwrap)
        .find(|l| l.starts_with("analysed "))
        .expect("a progress line");
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(start.elapsed() >= Duration::from_secs(4), "{line}");
    assert!(
        line.contains(&format!("/{total} games, ")) && line.contains("games/s, ETA "),
        "{line}"
    );
    assert!(
        !line.contains('\x1b'),
        "no terminal codes in a log: {line:?}"
    );
}

#[test]
fn export_gives_each_sides_average_centipawn_loss_from_the_stored_evaluations() {
    let dir = tempfile::tempdir().unwrap();
    let db = blunders_db(dir.path());
    analyse(&db, &["--engine", "none"]);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let out = Command::new(BIN)
        .args([
            "export",
            "--format",
            "csv",
            "--columns",
            "id,white_acpl,black_acpl",
            "--db",
        ])
        .arg(&db)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    for line in text.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        let id: i64 = cells[0].parse().unwrap();
        // lichess's rule by hand: White's centipawns, ±1000 at most (a mate ±1000), the
        // start at +15; each move's loss for its mover, at least 0, averaged and rounded.
        let mut curve: Vec<i64> = conn
            .prepare("SELECT score_cp, mate FROM evaluations WHERE game_id = ?1 ORDER BY ply")
            .unwrap()
            .query_map([id], |r| {
                let (cp, mate): (Option<i64>, Option<i64>) = (r.get(0)?, r.get(1)?);
                Ok(match mate {
                    Some(m) => 1000 * m.signum(),
                    None => cp.unwrap().clamp(-1000, 1000),
                })
            })
            .unwrap()
            .map(Result::unwrap)
            .collect();
        curve[0] = 15;
        let mut losses = [Vec::new(), Vec::new()];
        for (i, pair) in curve.windows(2).enumerate() {
            let loss = if i % 2 == 0 {
                pair[0] - pair[1]
            } else {
                pair[1] - pair[0]
            };
            losses[i % 2].push(loss.max(0) as f64);
        }
        let mean = |l: &Vec<f64>| (l.iter().sum::<f64>() / l.len() as f64).round().to_string();
        assert_eq!(cells[1], mean(&losses[0]), "{line} {curve:?}");
        assert_eq!(cells[2], mean(&losses[1]), "{line} {curve:?}");
    }
    assert_eq!(text.lines().count(), 3, "{text}");
}
