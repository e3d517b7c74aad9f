//! The store/query layer and the one output convention, through the real binary: read-only
//! commands never create a database, names resolve one way everywhere and a name that matches
//! nobody is a usage error, `-o`'s extension picks the format in every command, and every CSV
//! gets the formula guard.

use crate::common::cli;

use cli::{arbiter, ok, s};
use std::path::{Path, PathBuf};

/// Six persons; a spelling that a spreadsheet would run as a formula; an event that starts
/// with `@`; a duplicate pair (the same game recorded twice, once with a Round tag) so
/// `duplicates` has a group to list.
const PGN: &str = r#"[Event "@SUM(1+1)"]
[Date "2020.01.01"]
[White "Carlsen, Magnus"]
[Black "Caruana, Fabiano"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0

[Event "@SUM(1+1)"]
[Date "2020.01.02"]
[White "Carlsen,M"]
[Black "Caruana, Fabiano"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0

[Event "@SUM(1+1)"]
[Date "2021.03.04"]
[White "Polgar, Judit"]
[Black "Polgar, Susan"]
[Result "1/2-1/2"]

1. d4 d5 2. c4 e6 1/2-1/2

[Event "@SUM(1+1)"]
[Date "2021.03.04"]
[Round "2"]
[White "Polgar, Judit"]
[Black "Polgar, Susan"]
[Result "1/2-1/2"]

1. d4 d5 2. c4 e6 1/2-1/2

[Event "Club"]
[Date "2021.03.05"]
[White "=cmd|' /C calc'!A0"]
[Black "Polgar, Judit"]
[Result "0-1"]

1. c4 e5 0-1
"#;

fn db() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("g.pgn");
    std::fs::write(&pgn, PGN).unwrap();
    let db = dir.path().join("g.sqlite");
    ok(&["import", s(&pgn), "--db", s(&db), "--quiet"]);
    (dir, db)
}

fn fails(args: &[&str], code: i32, wanted: &str) -> String {
    let out = arbiter(args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
    assert!(err.contains(wanted), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?} printed a result");
    err
}

fn stdout(args: &[&str]) -> String {
    String::from_utf8(ok(args).stdout).unwrap()
}

#[test]
fn a_read_only_command_on_a_mistyped_path_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let typo = dir.path().join("typo.sqlite");
    let t = s(&typo);
    for args in [
        &["openings", "--db", t][..],
        &["stats", "players", "--db", t],
        &["export", "--db", t],
        &["duplicates", "--db", t],
    ] {
        fails(args, 2, "no such database");
        assert!(!typo.exists(), "{args:?} created {t}");
    }
}

#[test]
fn every_reader_refuses_a_newer_schema() {
    let (_dir, db) = db();
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.pragma_update(None, "user_version", 99).unwrap();
    drop(conn);
    let d = s(&db);
    for args in [
        &["openings", "--db", d][..],
        &["stats", "players", "--db", d],
        &["stats", "player", "Caruana", "--db", d],
        &["export", "--db", d],
        &["duplicates", "--db", d],
    ] {
        fails(args, 2, "written by a newer arbiter");
    }
}

#[test]
fn names_resolve_one_way_in_every_command() {
    let (_dir, db) = db();
    let d = s(&db);
    let games = |flags: &[&str]| -> usize {
        let mut args = vec!["export", "--db", d, "--format", "csv", "--columns", "id"];
        args.extend(flags);
        stdout(&args).lines().count() - 1
    };
    // Spellings, the other name order, initials, a surname that names one person, #ID.
    // `Carlsen,M` and `Carlsen, Magnus` stay two persons until an alias file merges them.
    assert_eq!(games(&["--player", "Carlsen,  magnus"]), 1);
    assert_eq!(games(&["--player", "carlsen, m"]), 1);
    assert_eq!(games(&["--player", "Magnus Carlsen"]), 1);
    assert_eq!(games(&["--player", "Fabiano Caruana"]), 2);
    assert_eq!(games(&["--player", "Caruana, F"]), 2);
    assert_eq!(games(&["--white", "Caruana"]), 0);
    assert_eq!(games(&["--black", "Caruana"]), 2);
    // A surname that names two persons lists both with ids and games.
    let err = fails(
        &["export", "--db", d, "--player", "Polgar"],
        2,
        "\"Polgar\" names 2 persons (with that surname); give one as #ID:",
    );
    assert!(err.contains("Polgar, Judit  games 3"), "{err}");
    let judit = err
        .lines()
        .find(|l| l.contains("Polgar, Judit"))
        .and_then(|l| l.split_whitespace().next())
        .unwrap()
        .to_owned();
    assert_eq!(games(&["--player", &judit]), 3);
    // Nobody: a usage error with the closest spellings, in every command that selects.
    for command in [
        &["export", "--db", d][..],
        &["stats", "players", "--db", d],
        &["openings", "--db", d],
        &["duplicates", "--db", d],
    ] {
        let mut args = command.to_vec();
        args.extend(["--player", "Carlsem"]);
        let err = fails(
            &args,
            2,
            "no person is called \"Carlsem\"; the closest spellings:",
        );
        assert!(err.contains("\n  Carlsen"), "{err}");
    }
    fails(
        &["stats", "player", "#999999", "--db", d],
        2,
        "no person with id 999999",
    );
    fails(
        &["stats", "player", " ", "--db", d],
        2,
        "an empty name names nobody",
    );
    fails(
        &[
            "stats",
            "h2h",
            "Caruana, Fabiano",
            "Fabiano Caruana",
            "--db",
            d,
        ],
        2,
        "are the same person",
    );
    fails(
        &["export", "--db", d, "--event", "Klub"],
        2,
        "--event: no stored event is named 'Klub' or has it in its name; the closest:\n  'Club' (",
    );
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn gunzip(bytes: &[u8]) -> String {
    use std::io::Read;
    let mut text = String::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_string(&mut text)
        .unwrap();
    text
}

#[test]
fn the_output_file_names_its_format_in_every_command() {
    let (dir, db) = db();
    let d = s(&db);
    let out = |name: &str| dir.path().join(name);
    // stats players -o x.csv.gz: gzipped CSV.
    ok(&["stats", "players", "--db", d, "-o", s(&out("board.csv.gz"))]);
    let board = gunzip(&read(&out("board.csv.gz")));
    assert!(
        board.starts_with("player_id,player,fide_id,games,"),
        "{board}"
    );
    // export, openings, duplicates, stats player: the extension decides.
    ok(&["export", "--db", d, "-o", s(&out("games.jsonl"))]);
    let first = String::from_utf8(read(&out("games.jsonl"))).unwrap();
    assert!(first.starts_with("{\"id\":"), "{first}");
    ok(&[
        "openings",
        "--db",
        d,
        "--min-games",
        "1",
        "-o",
        s(&out("tree.csv")),
    ]);
    let tree = String::from_utf8(read(&out("tree.csv"))).unwrap();
    assert!(tree.starts_with("line,ply,move,games,"), "{tree}");
    assert!(
        tree.contains("\n1.e4,1,e4,2,100,0,,,King's Pawn Game\n"),
        "{tree}"
    );
    ok(&[
        "stats",
        "player",
        "Caruana",
        "--db",
        d,
        "-o",
        s(&out("p.jsonl")),
    ]);
    let rows = String::from_utf8(read(&out("p.jsonl"))).unwrap();
    assert!(
        rows.starts_with("{\"player\":\"Caruana, Fabiano\",\"section\":\"total\""),
        "{rows}"
    );
    // check --findings f.parquet writes Parquet (it once wrote JSON lines into the file).
    let pgn = out("g.pgn");
    let parquet = out("f.parquet");
    let o = arbiter(&["check", s(&pgn), "-q", "--findings", s(&parquet)]);
    assert!(o.status.code().is_some_and(|c| c <= 1), "{o:?}");
    assert_eq!(&read(&parquet)[..4], b"PAR1");
    // What cannot be honoured is refused, and nothing is written.
    fails(
        &["stats", "players", "--db", d, "-o", s(&out("x.parquet.gz"))],
        2,
        "Parquet is compressed inside",
    );
    assert!(!out("x.parquet.gz").exists());
    fails(
        &["openings", "--db", d, "--format", "parquet"],
        2,
        "needs -o FILE",
    );
    fails(
        &[
            "export",
            "--db",
            d,
            "--format",
            "csv",
            "-o",
            s(&out("x.jsonl")),
        ],
        2,
        "--format csv but",
    );
    fails(
        &["check", s(&pgn), "--findings", s(&out("f.xlsx"))],
        2,
        "--findings:",
    );
    // clap lists only the formats the command writes.
    let err = fails(
        &["openings", "--db", d, "--format", "pgn"],
        2,
        "invalid value",
    );
    assert!(
        err.contains("[possible values: text, csv, jsonl, parquet]"),
        "{err}"
    );
}

#[test]
fn every_csv_gets_the_formula_guard() {
    let (_dir, db) = db();
    let d = s(&db);
    // A name that would run as a formula, in the dossier's rows and the leaderboard.
    let rows = stdout(&[
        "stats",
        "player",
        "Polgar, Judit",
        "--db",
        d,
        "--format",
        "csv",
    ]);
    assert!(rows.lines().count() > 2, "{rows}");
    let board = stdout(&["stats", "players", "--db", d, "--format", "csv"]);
    assert!(board.contains(",'=cmd|' /C calc'!A0,"), "{board}");
    assert!(!board.contains(",=cmd"), "{board}");
    let raw = stdout(&[
        "stats",
        "players",
        "--db",
        d,
        "--format",
        "csv",
        "--csv-raw",
    ]);
    assert!(raw.contains(",=cmd|"), "{raw}");
    // An event that would run, in duplicates' listing.
    let listed = stdout(&["duplicates", "--db", d, "--format", "csv"]);
    assert!(listed.contains(",'@SUM(1+1),"), "{listed}");
    assert!(!listed.contains(",@SUM"), "{listed}");
}
