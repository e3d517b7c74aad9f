//! What `--db` names when it is not an arbiter database (newcomer report 2026-11-29,
//! defect 13): an empty file, a folder, a Parquet or PGN file, another program's SQLite
//! file. Each is a usage error that names the file and says what it is; a read-only
//! command never says it would write; and no command turns an empty file into a database
//! unless it is `import`.

use crate::common::cli::{arbiter, s};
use std::path::Path;

/// Runs `args` and returns standard error, after checking the exit status is 2.
fn refused(args: &[&str]) -> String {
    let out = arbiter(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    stderr
}

const FEN: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";

#[test]
fn an_empty_file_is_named_and_left_empty() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("empty.sqlite");
    std::fs::write(&db, b"").unwrap();
    let e = refused(&["search", "--db", s(&db), FEN]);
    assert!(
        e.contains("empty.sqlite: an empty file, not a database"),
        "{e}"
    );
    assert!(!e.contains("schema version"), "{e}");
    let e = refused(&["analyse", "--db", s(&db), "--engine", "none"]);
    assert!(e.contains("an empty file, not a database"), "{e}");
    let e = refused(&["duplicates", "--db", s(&db)]);
    assert!(e.contains("an empty file, not a database"), "{e}");
    assert_eq!(
        std::fs::metadata(&db).unwrap().len(),
        0,
        "the file was written"
    );
}

#[test]
fn a_folder_a_parquet_and_a_pgn_file_say_what_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("shards");
    std::fs::create_dir(&folder).unwrap();
    let e = refused(&["search", "--db", s(&folder), FEN]);
    assert!(e.contains("shards: a folder, not a database file"), "{e}");
    let e = refused(&["import", "--db", s(&folder), "/dev/null"]);
    assert!(e.contains("a folder, not a database file"), "{e}");

    let parquet = dir.path().join("games.parquet");
    std::fs::write(&parquet, b"PAR1\x15\x04\x15\x10\x15\x14").unwrap();
    let e = refused(&["search", "--db", s(&parquet), FEN]);
    assert!(
        e.contains("games.parquet: a Parquet file, not a database"),
        "{e}"
    );

    let pgn = dir.path().join("games.pgn");
    std::fs::write(&pgn, b"[Event \"x\"]\n\n1. e4 *\n").unwrap();
    for cmd in ["search", "export", "stats"] {
        let mut args = vec![cmd];
        if cmd == "stats" {
            args.push("players");
        }
        args.extend(["--db", s(&pgn)]);
        if cmd == "search" {
            args.push(FEN);
        }
        let e = refused(&args);
        assert!(e.contains("games.pgn: a PGN file, not a database"), "{e}");
    }
}

fn foreign(path: &Path) {
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT);")
        .unwrap();
}

#[test]
fn another_programs_database_is_refused_without_talk_of_writing_by_readers() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("notes.sqlite");
    foreign(&db);
    let e = refused(&["search", "--db", s(&db), FEN]);
    assert!(e.contains("another program's database"), "{e}");
    assert!(!e.contains("refusing to add"), "a search never adds: {e}");
    let e = refused(&["duplicates", "--db", s(&db)]);
    assert!(e.contains("refusing to add to it"), "{e}");
    // An empty SQLite database (no tables) holds no games.
    let bare = dir.path().join("bare.sqlite");
    rusqlite::Connection::open(&bare)
        .unwrap()
        .execute_batch("PRAGMA user_version = 0; VACUUM;")
        .unwrap();
    if std::fs::metadata(&bare).unwrap().len() > 0 {
        let e = refused(&["search", "--db", s(&bare), FEN]);
        assert!(e.contains("without arbiter's tables"), "{e}");
    }
}
