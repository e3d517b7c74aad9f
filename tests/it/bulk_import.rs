//! The bulk load of `import` (`--load bulk`, the default into a new database: `db::bulk`)
//! against the row-by-row load (`--load rows`): the same games give byte-identical exports,
//! the same search answers and the same indexes; a killed bulk load resumes to the same
//! database, and indexes it left unbuilt are built by the next import.

use crate::common::{self, cli::BIN, cli::ok, cli::s};
use rusqlite::Connection;
use std::path::{Path, PathBuf};
use std::process::Command;

const AFTER_E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";

fn import(db: &Path, files: &[&Path], load: &str) -> serde_json::Value {
    let json = db.with_extension("json");
    let mut args = vec!["import", "--db", s(db), "--quiet", "--load", load];
    args.extend(["--summary-json", s(&json)]);
    args.extend(files.iter().map(|f| s(f)));
    let out = Command::new(BIN).args(&args).output().unwrap();
    // Exit 1: some game was rejected (stored in `rejected_games`), which both loads share.
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap()
}

/// The indexes of a database: `(name, definition)`, by name.
fn indexes(db: &Path) -> Vec<(String, Option<String>)> {
    let conn = Connection::open(db).unwrap();
    let mut stmt = conn
        .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name")
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// Everything a reader sees of a database: its exports in PGN and CSV, the answers of a few
/// searches (an exact position, material, a pattern, a sequence), and its indexes.
fn seen(db: &Path, dir: &Path) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for format in ["pgn", "csv"] {
        let file = dir.join(format!(
            "{}.{format}",
            db.file_stem().unwrap().to_string_lossy()
        ));
        ok(&[
            "export",
            "--db",
            s(db),
            "--format",
            format,
            "-o",
            s(&file),
            "-q",
        ]);
        out.push(std::fs::read(&file).unwrap());
    }
    for query in [
        vec![AFTER_E4],
        vec!["--material", "KRPKR"],
        vec!["--pattern", "*/*/*/3P4/*/*/*/*"],
        vec!["--sequence", "e4 c5 Nf3 d6"],
    ] {
        let mut args = vec!["search", "--db", s(db)];
        args.extend(query);
        out.push(ok(&args).stdout);
    }
    out.push(format!("{:?}", indexes(db)).into_bytes());
    out
}

fn master_files(corpus: &Path, names: &[&str]) -> Vec<PathBuf> {
    names
        .iter()
        .map(|n| corpus.join(format!("games/otb-pgnmentor/{n}.pgn")))
        .collect()
}

fn same_database_both_ways(files: &[PathBuf]) {
    let dir = tempfile::tempdir().unwrap();
    let refs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let bulk = dir.path().join("bulk.sqlite");
    let rows = dir.path().join("rows.sqlite");
    let auto = dir.path().join("auto.sqlite");
    assert_eq!(import(&bulk, &refs, "bulk")["bulk"], true);
    assert_eq!(import(&rows, &refs, "rows")["bulk"], false);
    // Into a new database `auto` loads in bulk.
    assert_eq!(import(&auto, &refs, "auto")["bulk"], true);
    let (a, b) = (seen(&bulk, dir.path()), seen(&rows, dir.path()));
    assert!(
        a[0].len() > 1000 && a[2].len() > 100,
        "something to compare"
    );
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        assert!(x == y, "bulk and rows differ in output {i}");
    }
    // A second import of the same files into the bulk-loaded database, row by row, stores
    // nothing and changes nothing a reader sees.
    let again = import(&bulk, &refs, "rows");
    assert_eq!(again["bulk"], false);
    assert_eq!(again["stored"], 0);
    assert!(seen(&bulk, dir.path()) == b);
}

#[test]
fn bulk_and_row_loads_give_identical_exports_search_answers_and_indexes() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sample.pgn");
    let rejects = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/rejects.pgn");
    let mut files = vec![sample, rejects];
    if let Some(corpus) = common::corpus() {
        files.extend(master_files(&corpus, &["Fischer", "Morphy"]));
    }
    same_database_both_ways(&files);
}

#[test]
fn bulk_and_row_loads_of_the_master_games_are_the_same_database() {
    if !common::long() {
        return;
    }
    let Some(corpus) = common::corpus() else {
        return;
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus.join("games/otb-pgnmentor"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "pgn"))
        .collect();
    files.sort();
    same_database_both_ways(&files);
}

/// The deferred indexes a database lacks.
fn missing(db: &Path) -> Vec<&'static str> {
    arbiter::db::bulk::missing(&Connection::open(db).unwrap()).unwrap()
}

#[test]
fn a_killed_bulk_load_resumes_to_the_same_database() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    // Three player files, three times over: long enough that the import is still running
    // after its first commit (16,384 games or 2 s in a new database).
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("three.pgn");
    let mut text = Vec::new();
    for f in master_files(&corpus, &["Kasparov", "Karpov", "Fischer"]) {
        text.extend(std::fs::read(f).unwrap());
    }
    std::fs::write(&input, text.repeat(3)).unwrap();
    let whole = tmp.path().join("whole.sqlite");
    import(&whole, &[&input], "rows");

    let killed = tmp.path().join("killed.sqlite");
    let mut child = Command::new(BIN)
        .args(["import", s(&input), "--db", s(&killed), "--quiet"])
        .args(["--jobs", "1", "--load", "bulk"])
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    let mut committed = 0;
    while committed == 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
        committed = Connection::open(&killed)
            .ok()
            .and_then(|c| {
                c.query_row("SELECT last_game FROM imports", [], |r| r.get::<_, i64>(0))
                    .ok()
            })
            .unwrap_or(0);
    }
    child.kill().unwrap();
    assert!(
        !child.wait().unwrap().success(),
        "killed before it finished"
    );
    assert!(committed > 0, "a batch was committed before the kill");
    // The bulk load had dropped the deferred indexes; the kill left them unbuilt.
    let all: Vec<&str> = arbiter::db::bulk::DEFERRED.iter().map(|d| d.0).collect();
    assert_eq!(missing(&killed), all);

    // The same command again: it resumes after the committed games and builds the rest.
    let s2 = import(&killed, &[&input], "bulk");
    assert!(s2["resumed"].as_u64().unwrap() >= committed as u64);
    assert!(missing(&killed).is_empty());
    assert!(seen(&killed, tmp.path()) == seen(&whole, tmp.path()));

    // A kill during the build leaves some indexes made and some not: the next import (here
    // of nothing new, row by row) makes the rest before it stores anything, as does any
    // other writing command (`index` here).
    let conn = Connection::open(&killed).unwrap();
    conn.execute_batch("DROP INDEX games_date; DROP INDEX findings_code")
        .unwrap();
    drop(conn);
    import(&killed, &[&input], "rows");
    assert!(missing(&killed).is_empty());
    Connection::open(&killed)
        .unwrap()
        .execute_batch("DROP INDEX games_white")
        .unwrap();
    ok(&["index", "--db", s(&killed), "-q"]);
    assert!(missing(&killed).is_empty());
    assert!(seen(&killed, tmp.path()) == seen(&whole, tmp.path()));
}
