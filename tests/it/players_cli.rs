//! `arbiter players`: alias files applied after a stored rating run leave no ghost persons and
//! say what they changed, undid and could not find; `--suggest` explains same-spelling pairs
//! and proposes the other name order.

use crate::common::cli;

use cli::{arbiter, ok, s};
use std::path::{Path, PathBuf};

fn game(white: &str, black: &str, result: &str, date: &str, extra: &str) -> String {
    format!(
        "[Event \"E\"]\n[Site \"S\"]\n[Date \"{date}\"]\n[Round \"1\"]\n[White \"{white}\"]\n\
         [Black \"{black}\"]\n[Result \"{result}\"]\n{extra}\n1. e4 e5 {result}\n\n"
    )
}

/// Seven persons: Carlsen with and without a FIDE id under one spelling, as `Carlsen,M` and
/// as `Magnus Carlsen`; Adams under two spellings; Caruana.
fn database(dir: &Path) -> PathBuf {
    let pgn = [
        game(
            "Carlsen, Magnus",
            "Adams, Michael",
            "1-0",
            "2020.01.10",
            "[WhiteFideId \"1503014\"]\n",
        ),
        game("Carlsen,M", "Adams,Mi", "1/2-1/2", "2020.02.10", ""),
        game("Adams, Michael", "Carlsen, Magnus", "0-1", "2020.03.10", ""),
        game(
            "Magnus Carlsen",
            "Caruana, Fabiano",
            "1/2-1/2",
            "2020.04.10",
            "",
        ),
        game("Caruana, Fabiano", "Carlsen,M", "1/2-1/2", "2020.05.10", ""),
        game("Adams,Mi", "Caruana, Fabiano", "0-1", "2020.06.10", ""),
    ]
    .concat();
    let file = dir.join("p.pgn");
    std::fs::write(&file, pgn).unwrap();
    let db = dir.join("p.sqlite");
    ok(&["import", "-q", "--db", s(&db), s(&file)]);
    db
}

fn stdout(args: &[&str]) -> String {
    String::from_utf8(ok(args).stdout).unwrap()
}

#[test]
fn aliases_after_a_rating_run_leave_no_ghosts_and_say_what_they_changed() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let db = s(&db);
    ok(&[
        "ratings", "--db", db, "--system", "glicko2", "--period", "year",
    ]);
    let a = dir.path().join("a.tsv");
    std::fs::write(
        &a,
        "Carlsen, Magnus\tCarlsen,M\nAdams, Michael\tAdams,Mi\nGhost, Casper\tGhost,C\n",
    )
    .unwrap();
    let out = stdout(&["players", "--db", db, "--apply-aliases", s(&a)]);
    // Before: "persons 7 -> 7": the merged persons stayed behind with their ratings.
    assert!(out.contains("persons 7 -> 4"), "{out}");
    assert!(
        out.contains(
            "stored ratings of merged persons: 0 rows moved to the person they joined, 6 dropped"
        ),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "{}:3: \"Ghost, Casper\" matches no stored spelling",
            s(&a)
        )),
        "{out}"
    );
    assert!(
        out.contains("\"Ghost,C\" matches no stored spelling"),
        "{out}"
    );
    // A merged name is one person again (before: ambiguous with a 0-game twin).
    let out = stdout(&["stats", "player", "--db", db, "Carlsen,M"]);
    assert!(out.contains("Carlsen"), "{out}");
    let out = stdout(&["stats", "player", "--db", db, "Adams,Mi"]);
    assert!(out.contains("Adams"), "{out}");
    // A second file replaces the first, and says what it undid.
    let b = dir.path().join("b.tsv");
    std::fs::write(&b, "Adams, Michael\tAdams,Mi\n").unwrap();
    let out = stdout(&["players", "--db", db, "--apply-aliases", s(&b)]);
    assert!(
        out.contains("this file replaces the mapping of earlier alias files: 2 spellings it does not name went back to a person of their own:"),
        "{out}"
    );
    assert!(out.contains("\"Carlsen,M\": #"), "{out}");
    assert!(out.contains("persons 4 -> 6"), "{out}");
}

#[test]
fn suggest_explains_same_spellings_and_proposes_the_other_order() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let out = stdout(&["players", "--db", s(&db), "--suggest"]);
    // The same spelling with and without a FIDE id: which one has it, and the line.
    assert!(
        out.lines()
            .any(|l| l.contains("the same spelling \"carlsen, magnus\"")
                && l.contains("FIDE id 1503014")
                && l.contains("has a FIDE id (a FideId tag)")),
        "{out}"
    );
    assert!(
        out.contains("\nCarlsen, Magnus\tCarlsen, Magnus\n"),
        "{out}"
    );
    // "First Last" and "Last, First".
    assert!(out.contains("the same name in the other order"), "{out}");
    assert!(out.contains("\nCarlsen, Magnus\tMagnus Carlsen\n"), "{out}");
    // The suggestions are a valid alias file that can be applied as printed.
    let file = dir.path().join("s.tsv");
    std::fs::write(&file, &out).unwrap();
    let applied = stdout(&["players", "--db", s(&db), "--apply-aliases", s(&file)]);
    assert!(applied.contains("persons 7 -> "), "{applied}");
    // A missing database is a usage error and is not created.
    let missing = dir.path().join("nosuch.sqlite");
    let out = arbiter(&["players", "--db", s(&missing)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!missing.exists());
}
