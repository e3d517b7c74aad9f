//! `arbiter import` and `arbiter export` end to end: the real binary on real files (plain and
//! gzip), the real SQLite file opened afterwards. Counts balance, values match the PGN, moves
//! decode exactly, a second import stores nothing, a killed import resumes to the same database.

use crate::common;
use common::corpus;

use arbiter::chess::Position;
use arbiter::db::encode::decode_moves;
use rusqlite::Connection;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_arbiter");

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sample.pgn")
}

fn rejects() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/rejects.pgn")
}

fn arbiter(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("binary runs")
}

fn summary(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn count(conn: &Connection, sql: &str) -> i64 {
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

#[test]
fn imports_the_sample_with_balanced_counts_and_exact_values() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("a.sqlite");
    let json = dir.path().join("s.json");
    let quarantine = dir.path().join("q.pgn");
    let out = arbiter(&[
        "import",
        sample().to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--quiet",
        "--summary-json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let s = summary(&json);
    let counts = |s: &serde_json::Value| {
        (
            s["games"].as_u64(),
            s["stored"].as_u64(),
            s["rejected"].as_u64(),
        )
    };
    assert_eq!(counts(&s), (Some(8), Some(8), Some(0)));
    assert_eq!(s["findings"]["result.mismatch"], 3);
    assert_eq!(s["findings"]["result.flag-unwinnable"], 1);
    // Rejected games are kept verbatim in the quarantine file, and listed in the database.
    let out = arbiter(&[
        "import",
        rejects().to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--quiet",
        "--summary-json",
        json.to_str().unwrap(),
        "--quarantine",
        quarantine.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "two games are rejected: {out:?}"
    );
    assert_eq!(counts(&summary(&json)), (Some(3), Some(1), Some(2)));
    let q = std::fs::read_to_string(&quarantine).unwrap();
    let original = std::fs::read_to_string(rejects()).unwrap();
    let second = original
        .find("[Event \"arbiter rejects\"]\n[Site \"Testdata\"]\n[Date \"2021.03.03\"]")
        .unwrap();
    let sep = arbiter::pgn::split::GAME_SEPARATOR;
    let games = original[second..]
        .trim_end()
        .replace("\n\n[Event", &format!("\n\n{sep}\n\n[Event"));
    assert_eq!(
        q,
        format!("{games}\n\n{sep}\n\n"),
        "the two rejected games byte for byte, each followed by the separator line"
    );

    let conn = Connection::open(&db).unwrap();
    assert_eq!(count(&conn, "SELECT count(*) FROM games"), 9);
    assert_eq!(
        count(
            &conn,
            "SELECT count(*) FROM rejected_games WHERE code = 'pgn.unreadable-token'"
        ),
        1
    );
    assert_eq!(
        count(
            &conn,
            "SELECT count(*) FROM rejected_games WHERE code = 'move.illegal'"
        ),
        1
    );
    assert_eq!(count(&conn, "SELECT sum(games_read) FROM imports"), 11);
    // Values as in the PGN.
    let (white, black, elo, date, year): (String, String, i64, String, i64) = conn
        .query_row(
            "SELECT w.name, b.name, g.white_elo, g.date, g.year FROM games g JOIN player_names w ON w.id = g.white_id \
             JOIN player_names b ON b.id = g.black_id WHERE g.round = '2'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .unwrap();
    assert_eq!(
        (white.as_str(), black.as_str(), elo, date.as_str(), year),
        ("Beta", "Alpha", 1500, "2021.03.01", 2021)
    );
    // Verdicts.
    let row = |round: &str| -> (Option<String>, Option<String>, Option<i64>, String) {
        conn.query_row(
            "SELECT lawful_result, termination, termination_ply, laws_edition FROM games WHERE round = ?1",
            [round],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap()
    };
    assert_eq!(
        row("1"),
        (
            Some("0-1".into()),
            Some("checkmate".into()),
            Some(4),
            "2014".into()
        )
    );
    assert_eq!(
        row("5"),
        (
            Some("1/2-1/2".into()),
            Some("stalemate".into()),
            Some(1),
            "2014".into()
        )
    );
    assert_eq!(
        row("6"),
        (
            Some("1/2-1/2".into()),
            Some("dead-position".into()),
            Some(1),
            "2014".into()
        )
    );
    assert_eq!(row("9").3, "2001");
    // Clocks and comments of game 2; the annotated text keeps the variation.
    let (clocks, annotated): (Vec<u8>, String) = conn
        .query_row(
            "SELECT clocks, annotated FROM games WHERE round = '2'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let clocks = arbiter::db::encode::decode_clocks(&clocks);
    assert_eq!(clocks[0], Some(300_000));
    assert_eq!(clocks[6], Some(285_000));
    assert!(annotated.contains("(3... g6 4. Qf3 Nf6)"), "{annotated}");
    assert_eq!(
        count(
            &conn,
            "SELECT count(*) FROM comments WHERE text LIKE '%defend f7%'"
        ),
        1
    );
    // Moves decode exactly, from the stored start position.
    let mut stmt = conn
        .prepare("SELECT start_fen, variant, moves, ply_count FROM games")
        .unwrap();
    let rows = stmt
        .query_map([], |r| {
            Ok((
                r.get::<_, Option<String>>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Vec<u8>>(2)?,
                r.get::<_, i64>(3)?,
            ))
        })
        .unwrap();
    for r in rows {
        let (fen, variant, blob, plies) = r.unwrap();
        let start = match fen {
            Some(f) => {
                let setup = arbiter::chess::fen::parse_setup(&f).unwrap();
                Position::from_setup(&setup, variant == "chess960").unwrap()
            }
            None => Position::new(),
        };
        let moves = decode_moves(&start, &blob).unwrap();
        assert_eq!(moves.len() as i64, plies);
    }
    // The final FEN is the replay's, computed on read (schema version 3): not stored.
    assert_eq!(
        count(
            &conn,
            "SELECT count(*) FROM pragma_table_info('games') WHERE name = 'final_fen'"
        ),
        0
    );
    assert_eq!(
        count(&conn, "SELECT count(*) FROM pragma_foreign_key_check"),
        0
    );
}

#[test]
fn importing_twice_stores_nothing_new_and_gzip_is_read_by_content() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("a.sqlite");
    let json = dir.path().join("s.json");
    let args = |input: &str| {
        vec![
            "import".to_string(),
            input.to_string(),
            "--db".into(),
            db.to_str().unwrap().into(),
            "--quiet".into(),
            "--summary-json".into(),
            json.to_str().unwrap().into(),
        ]
    };
    let plain = sample();
    let run = |input: &str| {
        let a = args(input);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        arbiter(&a);
        summary(&json)
    };
    let first = run(plain.to_str().unwrap());
    assert_eq!(first["stored"], 8);
    let second = run(plain.to_str().unwrap());
    assert_eq!(
        (
            second["stored"].as_u64(),
            second["already_present"].as_u64(),
            second["rejected"].as_u64()
        ),
        (Some(0), Some(8), Some(0))
    );
    // The same games gzip-compressed, under a name that does not say so.
    let gz = dir.path().join("sample.data");
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::default(),
    );
    std::io::Write::write_all(&mut enc, &std::fs::read(&plain).unwrap()).unwrap();
    enc.finish().unwrap();
    let third = run(gz.to_str().unwrap());
    assert_eq!(
        (third["games"].as_u64(), third["already_present"].as_u64()),
        (Some(8), Some(8))
    );
    let conn = Connection::open(&db).unwrap();
    assert_eq!(count(&conn, "SELECT count(*) FROM games"), 8);
    assert_eq!(count(&conn, "SELECT count(*) FROM imports"), 2);
}

#[test]
fn export_reads_back_as_the_same_games() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("a.sqlite");
    arbiter(&[
        "import",
        sample().to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--quiet",
    ]);
    let pgn = dir.path().join("out.pgn");
    let out = arbiter(&[
        "export",
        "--db",
        db.to_str().unwrap(),
        "--format",
        "pgn",
        "-o",
        pgn.to_str().unwrap(),
        "--add-tags",
    ]);
    assert!(out.status.success(), "{out:?}");
    let text = std::fs::read_to_string(&pgn).unwrap();
    // Canonical SAN replaces the repaired tokens.
    assert!(
        text.contains("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 5. O-O f6 1/2-1/2"),
        "{text}"
    );
    assert!(
        text.contains("[ArbiterTermination \"stalemate (Art. 5.2.1, FIDE 2014)\"]"),
        "{text}"
    );
    // Re-importing the export finds every game already there: same tags, same moves.
    let json = dir.path().join("s.json");
    arbiter(&[
        "import",
        pgn.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--quiet",
        "--summary-json",
        json.to_str().unwrap(),
    ]);
    let s = summary(&json);
    assert_eq!(
        (
            s["games"].as_u64(),
            s["already_present"].as_u64(),
            s["rejected"].as_u64()
        ),
        (Some(8), Some(8), Some(0))
    );
    // --fix-results writes the lawful result.
    let fixed = arbiter(&[
        "export",
        "--db",
        db.to_str().unwrap(),
        "--fix-results",
        "--result",
        "1-0",
        "--has-finding",
        "result.mismatch",
    ]);
    let fixed = String::from_utf8(fixed.stdout).unwrap();
    assert_eq!(fixed.matches("[Result \"1/2-1/2\"]").count(), 2, "{fixed}");
    assert_eq!(fixed.matches("[Result \"0-1\"]").count(), 1, "{fixed}");
    // CSV: a header and one parsable row per game.
    let csv_out = arbiter(&[
        "export",
        "--db",
        db.to_str().unwrap(),
        "--format",
        "csv",
        "--player",
        "Alpha",
    ]);
    let mut reader = csv::Reader::from_reader(csv_out.stdout.as_slice());
    let headers = reader.headers().unwrap().clone();
    assert_eq!(&headers[0], "id");
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 5);
    let ply_col = headers.iter().position(|h| h == "ply_count").unwrap();
    assert!(rows.iter().all(|r| r[ply_col].parse::<u32>().is_ok()));
    // JSON lines of findings.
    let f = arbiter(&[
        "export",
        "--db",
        db.to_str().unwrap(),
        "--format",
        "jsonl",
        "--findings",
        "--has-finding",
        "result.flag-unwinnable",
    ]);
    let lines: Vec<serde_json::Value> = String::from_utf8(f.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        lines
            .iter()
            .any(|l| l["code"] == "result.flag-unwinnable" && l["ply"] == 3)
    );
}

#[test]
fn a_newer_database_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("a.sqlite");
    Connection::open(&db)
        .unwrap()
        .pragma_update(None, "user_version", arbiter::db::SCHEMA_VERSION + 1)
        .unwrap();
    let out = arbiter(&[
        "import",
        sample().to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("newer arbiter"));
}

/// Content hash, game number, moves and lawful result of one stored game.
type GameKey = (Vec<u8>, i64, Vec<u8>, Option<String>);

/// Everything that identifies the stored games, in a comparable form.
fn fingerprint(db: &Path) -> (i64, Vec<GameKey>) {
    let conn = Connection::open(db).unwrap();
    let n = count(&conn, "SELECT count(*) FROM findings");
    let mut stmt = conn.prepare("SELECT h.content_hash, g.game_number, g.moves, g.lawful_result FROM games g JOIN game_hashes h ON h.game_id = g.id ORDER BY g.game_number").unwrap();
    let rows = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap();
    (n, rows.map(Result::unwrap).collect())
}

#[test]
fn corpus_import_balances_and_a_killed_import_resumes_to_the_same_database() {
    let Some(dir) = corpus() else { return };
    // Three player files, five times over, in one input: long enough that an import is
    // still running well after its first commit (in a new database a transaction holds
    // 16,384 games or 2 seconds of them: `pipeline::import::commit_due`). The copies after
    // the first are games already present.
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("three.pgn");
    let mut text = Vec::new();
    for name in ["Kasparov", "Karpov", "Fischer"] {
        let path = dir.join(format!("games/otb-pgnmentor/{name}.pgn"));
        text.extend(std::fs::read(path).unwrap());
    }
    std::fs::write(&input, text.repeat(5)).unwrap();
    let whole = tmp.path().join("whole.sqlite");
    let json = tmp.path().join("s.json");
    let out = arbiter(&[
        "import",
        input.to_str().unwrap(),
        "--db",
        whole.to_str().unwrap(),
        "--quiet",
        "--summary-json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let s = summary(&json);
    let games = s["games"].as_u64().unwrap();
    assert_eq!(
        games,
        s["stored"].as_u64().unwrap()
            + s["already_present"].as_u64().unwrap()
            + s["rejected"].as_u64().unwrap()
    );
    assert_eq!(games, 5 * 6475);

    // Kill an import of the same file part way, then rerun the same command.
    let killed = tmp.path().join("killed.sqlite");
    let mut child = Command::new(BIN)
        .args([
            "import",
            input.to_str().unwrap(),
            "--db",
            killed.to_str().unwrap(),
            "--quiet",
            "--jobs",
            "1",
        ])
        .spawn()
        .unwrap();
    // Wait until at least one batch is committed, then SIGKILL.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        std::thread::sleep(std::time::Duration::from_millis(20));
        let committed = Connection::open(&killed)
            .ok()
            .and_then(|c| {
                c.query_row("SELECT last_game FROM imports", [], |r| r.get::<_, i64>(0))
                    .ok()
            })
            .unwrap_or(0);
        if committed > 0 || std::time::Instant::now() > deadline {
            break;
        }
    }
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert!(
        !status.success(),
        "the import was killed before it finished"
    );
    let partial = Connection::open(&killed).unwrap();
    let stored_before = count(&partial, "SELECT count(*) FROM games");
    assert!(
        stored_before > 0 && stored_before < 5 * 6475,
        "killed after {stored_before} games"
    );
    // The games the killed run committed: stored, already present (the file repeats some
    // games) or rejected, up to its last committed game; and exactly those were stored.
    let (committed, stored_then) = partial
        .query_row("SELECT last_game, games_stored FROM imports", [], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?))
        })
        .unwrap();
    assert_eq!(stored_then, stored_before);
    let unfinished: bool = partial
        .query_row("SELECT finished_at IS NULL FROM imports", [], |r| r.get(0))
        .unwrap();
    assert!(unfinished, "the kill came after the import's last commit");
    drop(partial);
    let out = arbiter(&[
        "import",
        input.to_str().unwrap(),
        "--db",
        killed.to_str().unwrap(),
        "--quiet",
        "--summary-json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("resuming after game"));
    let s = summary(&json);
    assert_eq!(s["resumed"].as_u64().unwrap(), committed as u64);
    let part = |k: &str| s[k].as_u64().unwrap();
    assert_eq!(part("games"), 5 * 6475);
    assert_eq!(
        part("games"),
        part("stored") + part("already_present") + part("rejected") + part("resumed")
    );
    assert_eq!(fingerprint(&killed), fingerprint(&whole));
    let conn = Connection::open(&killed).unwrap();
    let ok: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ok, "ok");
}

#[test]
fn analysis_is_stored_and_exported() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("a.sqlite");
    let out = arbiter(&[
        "import",
        sample().to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--quiet",
        "--engine",
        "none",
        "--analyse",
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let conn = Connection::open(&db).unwrap();
    // One evaluation per position (start included) and one analysis row per game.
    assert_eq!(count(&conn, "SELECT count(*) FROM analyses"), 8);
    assert_eq!(
        count(&conn, "SELECT count(*) FROM evaluations"),
        count(&conn, "SELECT sum(ply_count + 1) FROM games")
    );
    let mut stmt = conn
        .prepare(
            "SELECT g.round, f.ply, f.code FROM findings f JOIN games g ON g.id = f.game_id \
             WHERE f.code LIKE 'analysis.%' ORDER BY g.round, f.ply",
        )
        .unwrap();
    let found: Vec<(String, u32, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    // arbiter's own tier alone emits blunders only (its inaccuracies and mistakes do not
    // reach precision 0.5 against Stockfish: docs/ANALYSIS.md).
    let expected = [
        ("1", 3, "analysis.blunder"),           // 2. g4?? allows Qh4#
        ("2", 6, "analysis.blunder"),           // 3... Nf6?? allows Qxf7#
        ("4", 3, "analysis.blunder"),           // the same fool's mate
        ("5", 1, "analysis.blunder"),           // 1. Qc7?? stalemates a won ending
        ("6", 3, "analysis.resigned-not-lost"), // K+B v K recorded as a win
        ("9", 3, "analysis.resigned-not-lost"), // a bare king recorded as winning on time
    ];
    let found: Vec<(&str, u32, &str)> = found
        .iter()
        .map(|(r, p, c)| (r.as_str(), *p, c.as_str()))
        .collect();
    assert_eq!(found, expected);
    let blunders = count(
        &conn,
        "SELECT sum(white_blunders) + sum(black_blunders) FROM analyses",
    );
    assert_eq!(blunders, 4);
    // Export writes the evaluations as lichess does, and accuracy columns in CSV.
    let pgn = arbiter(&[
        "export",
        "--db",
        db.to_str().unwrap(),
        "--where",
        "g.round = '3'",
    ]);
    let text = String::from_utf8(pgn.stdout).unwrap();
    // A comment may be wrapped between its words; reading it back joins them again.
    assert_eq!(text.matches("[%eval").count(), 10, "{text}");
    let csv_out = arbiter(&["export", "--db", db.to_str().unwrap(), "--format", "csv"]);
    let mut reader = csv::Reader::from_reader(csv_out.stdout.as_slice());
    let headers = reader.headers().unwrap().clone();
    let acc = headers.iter().position(|h| h == "white_accuracy").unwrap();
    for r in reader.records() {
        let v: f64 = r.unwrap()[acc].parse().unwrap();
        assert!((0.0..=100.0).contains(&v));
    }
}

/// Many files in one run: the workers go on into the next file while the writer is busy
/// with the earlier ones, and each file still resumes at its own point. The third file's
/// import is made to look interrupted after its tenth game; the rerun of all six stores
/// its thirty missing games, skips its first ten, and finds every other game present.
#[test]
fn many_files_resume_each_at_its_own_point() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("m.sqlite");
    let json = dir.path().join("s.json");
    let moves = ["1. Nf3 *", "1. e4 e5 *", "1. d4 d5 2. c4 *", "1. c4 *"];
    let files: Vec<PathBuf> = (0..6)
        .map(|k| {
            let path = dir.path().join(format!("f{k}.pgn"));
            let text: String = (1..=40)
                .map(|i| format!("[Event \"f{k} game {i}\"]\n\n{}\n\n", moves[i % 4]))
                .collect();
            std::fs::write(&path, text).unwrap();
            path
        })
        .collect();
    let run = |inputs: &[&PathBuf]| {
        let mut a = vec![
            "import",
            "--quiet",
            "--jobs",
            "2",
            "--db",
            db.to_str().unwrap(),
        ];
        a.extend(["--summary-json", json.to_str().unwrap()]);
        a.extend(inputs.iter().map(|p| p.to_str().unwrap()));
        let out = arbiter(&a);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        (
            summary(&json),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let all: Vec<&PathBuf> = files.iter().collect();
    let (first, stdout) = run(&all);
    assert_eq!(first["stored"], 240);
    // One line a file, with its own count.
    assert_eq!(stdout.matches("games in").count(), 6, "{stdout}");
    {
        let conn = Connection::open(&db).unwrap();
        let f2 = files[2].to_str().unwrap();
        conn.execute(
            "DELETE FROM games WHERE game_number > 10 AND import_id = \
             (SELECT id FROM imports WHERE path = ?1)",
            [f2],
        )
        .unwrap();
        conn.execute(
            "UPDATE imports SET finished_at = NULL, last_game = 10 WHERE path = ?1",
            [f2],
        )
        .unwrap();
        assert_eq!(count(&conn, "SELECT count(*) FROM games"), 210);
        assert_eq!(count(&conn, "SELECT count(*) FROM game_hashes"), 210);
    }
    let (second, _) = run(&all);
    assert_eq!(
        (
            second["stored"].as_u64(),
            second["resumed"].as_u64(),
            second["already_present"].as_u64(),
            second["games"].as_u64()
        ),
        (Some(30), Some(10), Some(200), Some(240))
    );
    // A file named twice in one run: the second time, every game is present.
    let (twice, _) = run(&[&files[0], &files[0]]);
    assert_eq!(
        (twice["stored"].as_u64(), twice["already_present"].as_u64()),
        (Some(0), Some(80))
    );
    let conn = Connection::open(&db).unwrap();
    assert_eq!(count(&conn, "SELECT count(*) FROM games"), 240);
    assert_eq!(
        count(
            &conn,
            "SELECT count(DISTINCT game_number) FROM games WHERE import_id = \
             (SELECT id FROM imports WHERE path LIKE '%f2.pgn')"
        ),
        40
    );
}
