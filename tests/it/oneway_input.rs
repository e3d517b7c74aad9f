//! Issue 32's reading, interrupt and small-command defects, each named after what broke: the
//! real binary on real files, a real SIGINT, a real pipe closed after one line, real SQLite
//! files opened afterwards.

use rusqlite::Connection;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

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

fn count(conn: &Connection, sql: &str) -> i64 {
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

fn summary(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `bench synth`'s distinct games between `players` persons, written to `path`.
fn synth(path: &Path, games: u32, players: u32) {
    let out = arbiter(&[
        "bench",
        "synth",
        "--games",
        &games.to_string(),
        "--players",
        &players.to_string(),
        "-o",
        path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

/// A database of 20,000 synthetic games between 4,000 persons, built once per run of these
/// tests (under the target's temporary folder) for the outputs far larger than a pipe holds.
fn big_db() -> &'static Path {
    static DB: OnceLock<PathBuf> = OnceLock::new();
    DB.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("oneway-input");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let pgn = dir.join("synth.pgn");
        synth(&pgn, 20_000, 4_000);
        let db = dir.join("big.sqlite");
        let out = arbiter(&[
            "import",
            "-q",
            pgn.to_str().unwrap(),
            "--db",
            db.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        db
    })
}

/// Sends SIGINT to the child, as Ctrl-C in its terminal would.
fn interrupt(child: &Child) {
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
}

/// Waits until `ready` holds, polling every few milliseconds, for at most a minute.
fn wait_for(mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !ready() {
        assert!(Instant::now() < deadline, "timed out");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_folder_is_walked_for_pgn_files_not_refused_as_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("games");
    let sample = std::fs::read(testdata("sample.pgn")).unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let path = root.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    };
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&sample).unwrap();
    write("b.pgn", &sample);
    write("a/c.pgn.gz", &gz.finish().unwrap());
    write("d.PGN.zst", &zstd::encode_all(&sample[..], 1).unwrap());
    // Not taken: hidden files and folders, other names.
    write(".hidden.pgn", &sample);
    write(".git/x.pgn", &sample);
    write("notes.txt", b"not a game");
    let json = dir.path().join("s.json");
    let out = arbiter(&[
        "check",
        "-q",
        root.to_str().unwrap(),
        "--summary-json",
        json.to_str().unwrap(),
    ]);
    let err = text(&out.stderr);
    assert!(!err.contains("Is a directory"), "{err}");
    let s = summary(&json);
    assert_eq!(
        (s["files"].as_u64(), s["games"].as_u64()),
        (Some(3), Some(24))
    );

    // An import reports each file on its own, in name order within each folder.
    let db = dir.path().join("g.sqlite");
    let out = arbiter(&[
        "import",
        "-q",
        root.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ]);
    assert!(!text(&out.stderr).contains("Is a directory"), "{out:?}");
    let stdout = text(&out.stdout);
    let files: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("file "))
        .map(|l| l.rsplit(": ").next().unwrap())
        .collect();
    let names: Vec<String> = ["a/c.pgn.gz", "b.pgn", "d.PGN.zst"]
        .iter()
        .map(|n| root.join(n).display().to_string())
        .collect();
    assert_eq!(files, names, "{stdout}");
    let conn = Connection::open(&db).unwrap();
    assert_eq!(count(&conn, "SELECT count(*) FROM imports"), 3);

    // A folder with no PGN file in it is an error that says so.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let out = arbiter(&["check", "-q", empty.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("a folder holding no PGN file"),
        "{out:?}"
    );
}

#[test]
fn a_tag_broken_over_two_lines_leaves_no_headless_game_stored() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.sqlite");
    let json = dir.path().join("s.json");
    let out = arbiter(&[
        "import",
        "-q",
        testdata("broken-tag.pgn").to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--summary-json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let s = summary(&json);
    // Two games, both stored: the counts balance.
    assert_eq!(
        (
            s["games"].as_u64(),
            s["stored"].as_u64(),
            s["rejected"].as_u64()
        ),
        (Some(2), Some(2), Some(0))
    );
    assert_eq!(s["findings"]["pgn.tag-line-break"], 1);
    let conn = Connection::open(&db).unwrap();
    assert_eq!(count(&conn, "SELECT count(*) FROM games"), 2);
    // No game without an Event (the fragment had none), and the tag was joined.
    assert_eq!(
        count(&conn, "SELECT count(*) FROM games WHERE event_id IS NULL"),
        0
    );
    let white: String = conn
        .query_row(
            "SELECT n.name FROM games g JOIN player_names n ON n.id = g.white_id \
             ORDER BY g.id LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(white, "Tal, Mikhail");
    // The finding is located at the broken tag.
    let (code, line): (String, i64) = conn
        .query_row(
            "SELECT code, line FROM findings WHERE code = 'pgn.tag-line-break'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((code.as_str(), line), ("pgn.tag-line-break", 5));
}

#[test]
fn a_result_glued_to_the_last_move_and_variant_regular_are_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("s.json");
    let out = arbiter(&[
        "check",
        "-q",
        testdata("glued-result.pgn").to_str().unwrap(),
        "--summary-json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let s = summary(&json);
    assert_eq!(
        (s["games"].as_u64(), s["accepted"].as_u64()),
        (Some(3), Some(3))
    );
    assert_eq!(s["findings"]["pgn.glued-result"], 2);
    for code in [
        "pgn.unreadable-token",
        "pgn.missing-result-marker",
        "pgn.unsupported-variant",
    ] {
        assert!(s["findings"].get(code).is_none(), "{code}: {s}");
    }
}

#[test]
fn epd_lines_without_bm_or_am_are_skipped_not_passed() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("s.epd");
    std::fs::write(
        &suite,
        "6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Ra8#; id \"mate\";\n\
         4k3/8/8/8/8/8/8/4K2R w K - id \"no operation\";\n",
    )
    .unwrap();
    let out = arbiter(&["epd", "--suite", suite.to_str().unwrap(), "--nodes", "2000"]);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("1 passed, 0 failed, 1 skipped"), "{stdout}");
    assert!(stdout.contains("no operation has no bm or am"), "{stdout}");
    assert_eq!(out.status.code(), Some(1), "{stdout}");
}

#[test]
fn ctrl_c_on_import_commits_says_how_to_resume_and_the_rerun_completes() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("synth.pgn");
    let total = 60_000;
    synth(&pgn, total, 3_000);
    let db = dir.path().join("i.sqlite");
    let mut child = Command::new(BIN)
        .args(["import", "-q", "--jobs", "1", pgn.to_str().unwrap(), "--db"])
        .arg(&db)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The first commit, then Ctrl-C while the import goes on.
    wait_for(|| {
        Connection::open(&db)
            .ok()
            .and_then(|c| {
                c.query_row("SELECT last_game FROM imports", [], |r| r.get::<_, i64>(0))
                    .ok()
            })
            .is_some_and(|n| n > 0)
    });
    interrupt(&child);
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{err}");
    let line = err
        .lines()
        .find(|l| l.contains("interrupted:"))
        .unwrap_or_else(|| panic!("{err}"));
    let stored: i64 = line
        .split("interrupted: ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    assert!(
        line.ends_with(&format!(
            "interrupted: {stored} games stored; run the same command to resume"
        )),
        "{line}"
    );
    // Everything delivered before the interrupt was committed, no more.
    let conn = Connection::open(&db).unwrap();
    assert_eq!(count(&conn, "SELECT count(*) FROM games"), stored);
    assert!(stored > 0 && stored < i64::from(total), "{stored}");
    drop(conn);

    let json = dir.path().join("s.json");
    let out = arbiter(&[
        "import",
        "-q",
        pgn.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--summary-json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let s = summary(&json);
    assert_eq!(s["resumed"].as_i64(), Some(stored));
    let conn = Connection::open(&db).unwrap();
    assert_eq!(count(&conn, "SELECT count(*) FROM games"), i64::from(total));
}

#[test]
fn ctrl_c_on_export_leaves_no_temporary_file() {
    let db = big_db();
    for name in ["out.pgn", "out.csv.gz", "out.parquet"] {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join(name);
        let mut child = Command::new(BIN)
            .args(["export", "-q", "--db", db.to_str().unwrap(), "-o"])
            .arg(&target)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The temporary file is made before any row is read: interrupt as soon as it is.
        wait_for(|| std::fs::read_dir(dir.path()).unwrap().next().is_some());
        interrupt(&child);
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        assert_eq!(child.wait().unwrap().code(), Some(130), "{name}: {err}");
        assert!(err.contains("interrupted"), "{name}: {err}");
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(left.is_empty(), "{name}: left {left:?}");
    }
}

#[test]
fn a_missing_input_or_a_bad_alias_file_creates_no_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("new.sqlite");
    let missing = dir.path().join("typo.pgn");
    let out = arbiter(&[
        "import",
        missing.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("typo.pgn"), "{out:?}");
    let aliases = dir.path().join("aliases.tsv");
    std::fs::write(&aliases, "one field only\n").unwrap();
    let out = arbiter(&[
        "import",
        testdata("sample.pgn").to_str().unwrap(),
        "--aliases",
        aliases.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("aliases.tsv:1"), "{out:?}");
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "aliases.tsv")
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn a_pipe_closed_after_one_line_ends_every_command_quietly() {
    let db = big_db().to_str().unwrap();
    let runs: Vec<Vec<&str>> = vec![
        vec!["players", "--db", db],
        vec!["stats", "players", "--db", db, "--limit", "100000"],
        vec!["ratings", "--db", db, "--system", "elo"],
        vec!["export", "--db", db],
        vec!["export", "--db", db, "--format", "csv"],
        vec!["export", "--db", db, "--format", "jsonl"],
    ];
    for args in runs {
        let mut child = Command::new(BIN)
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        stdout.read_line(&mut first).unwrap();
        assert!(!first.is_empty(), "arbiter {}", args.join(" "));
        // What `| head -1` does: one line read, the pipe closed with more to come. The
        // rest is far more than a pipe holds, so the writer meets the closed pipe.
        let mut buffered = vec![0u8; 1 << 20];
        let more = stdout.read(&mut buffered).unwrap();
        assert!(more > 0, "arbiter {}: a one-line output", args.join(" "));
        drop(stdout);
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        let code = child.wait().unwrap().code();
        assert_eq!(code, Some(0), "arbiter {}: {err}", args.join(" "));
        assert!(
            !err.contains("Broken pipe") && !err.contains("os error 32"),
            "arbiter {}: {err}",
            args.join(" ")
        );
    }
}

/// The commands whose output fits in a pipe's buffer: the pipe is closed before they write
/// (as `| head -0`), so every write meets it.
#[test]
fn a_pipe_closed_before_any_output_ends_the_smaller_commands_quietly() {
    let db = big_db().to_str().unwrap();
    let runs: Vec<Vec<&str>> = vec![
        vec!["players", "--db", db, "--suggest"],
        vec!["players", "--db", db, "--name", "a"],
        vec!["duplicates", "--db", db],
        vec!["openings", "--db", db],
        vec!["stats", "player", "#1", "--db", db],
        vec!["stats", "player", "#1", "--db", db, "--format", "json"],
        vec!["stats", "openings", "#1", "--db", db],
        vec!["stats", "players", "--db", db, "--format", "csv"],
    ];
    for args in runs {
        let mut child = Command::new(BIN)
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        let code = child.wait().unwrap().code();
        assert_eq!(code, Some(0), "arbiter {}: {err}", args.join(" "));
        assert!(
            !err.contains("Broken pipe") && !err.contains("os error 32"),
            "arbiter {}: {err}",
            args.join(" ")
        );
    }
}

#[test]
fn stats_escapes_invisible_characters_in_names_as_players_does() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("z.sqlite");
    let out = arbiter(&[
        "import",
        "-q",
        testdata("invisible-names.pgn").to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let db = db.to_str().unwrap();
    let players = text(&arbiter(&["players", "--db", db]).stdout);
    assert!(players.contains("Zero\\u{200b}width, A"), "{players}");
    let board = arbiter(&["stats", "players", "--db", db]);
    let board = text(&board.stdout);
    assert!(board.contains("Zero\\u{200b}width, A"), "{board}");
    assert!(!board.contains('\u{200b}'), "{board}");
    let h2h = arbiter(&["stats", "h2h", "#1", "#2", "--db", db]);
    let h2h = text(&h2h.stdout);
    assert!(!h2h.contains('\u{200b}'), "{h2h}");
    assert!(h2h.contains("\\u{200b}"), "{h2h}");
}

#[test]
fn impossible_dates_reversed_ranges_and_bad_where_are_short_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.sqlite");
    let out = arbiter(&[
        "import",
        "-q",
        testdata("sample.pgn").to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let db = db.to_str().unwrap();
    for command in [&["export"][..], &["stats", "players"], &["openings"]] {
        let run = |extra: &[&str]| {
            let mut args = command.to_vec();
            args.extend_from_slice(&["--db", db]);
            args.extend_from_slice(extra);
            let out = arbiter(&args);
            (out.status.code(), text(&out.stderr))
        };
        for (date, why) in [("2020.13.45", "no month 13"), ("2020.02.30", "has 29 days")] {
            let (code, err) = run(&["--date-from", date]);
            assert_eq!(code, Some(2), "{command:?} {date}: {err}");
            assert!(
                err.contains(date) && err.contains(why),
                "{command:?}: {err}"
            );
        }
        let (code, err) = run(&["--date-from", "2020", "--date-to", "2019"]);
        assert_eq!(code, Some(2), "{command:?}: {err}");
        assert!(
            err.contains("2020") && err.contains("2019"),
            "{command:?}: {err}"
        );
        let (code, err) = run(&["--where", "g.nosuch = 1"]);
        assert_eq!(code, Some(2), "{command:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{command:?}: {err}");
        assert!(
            err.contains("g.nosuch = 1") && err.contains("no such column: g.nosuch"),
            "{command:?}: {err}"
        );
        assert!(!err.contains("SELECT"), "{command:?}: {err}");
        let (code, err) = run(&["--where", "g.nosuch = 1", "-v"]);
        assert_eq!(code, Some(2), "{command:?}: {err}");
        assert!(
            err.contains("SELECT") && err.contains("FROM games g"),
            "{command:?}: {err}"
        );
        // A good condition and range still select.
        let (code, err) = run(&["--where", "g.ply_count > 0", "--date-from", "1900"]);
        assert_eq!(code, Some(0), "{command:?}: {err}");
    }
}
