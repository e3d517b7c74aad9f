//! The query texts a player types (newcomer report 2026-11-29, defects 2, 3, 6 and 16):
//! move numbers and `...` in `--sequence` pin the ply or the side, castling may be written
//! with zeros, a FEN without its side to move or castling field is completed with a note
//! (never 0 games in silence), text after a FEN is refused, and an imbalance or a points
//! deficit holds 4 plies by default so that an exchange in progress does not count.
//! On `testdata/positions/forms.pgn`: four hand-checked games (ids 1 to 4 in file order).

use crate::common::cli::{BIN, arbiter, s};
use std::path::{Path, PathBuf};

const FORMS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/positions/forms.pgn");

fn database() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("forms.sqlite");
    let out = arbiter(&["import", "-q", "--db", s(&db), FORMS]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (dir, db)
}

/// `(id, ply)` of every row of `search --format csv`, and standard error.
fn hits(db: &Path, args: &[&str]) -> (Vec<(i64, u32)>, String) {
    let mut all = vec!["search", "--db", s(db), "--format", "csv"];
    all.extend_from_slice(args);
    let out = arbiter(&all);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{BIN} {all:?}: {stderr}");
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (id, ply) = (col("id"), col("ply"));
    let rows = lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[id].parse().unwrap(), f[ply].parse().unwrap())
        })
        .collect();
    (rows, stderr)
}

fn refused(db: &Path, args: &[&str]) -> String {
    let mut all = vec!["search", "--db", s(db)];
    all.extend_from_slice(args);
    let out = arbiter(&all);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{all:?} should be a usage error"
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn move_numbers_in_a_sequence_pin_the_ply_and_dots_the_side() {
    let (_dir, db) = database();
    // c5 is Black's first move in game 1, White's third in game 2 and Black's seventh in
    // game 3.
    assert_eq!(
        hits(&db, &["--sequence", "c5"]).0,
        vec![(1, 1), (2, 4), (3, 13)]
    );
    assert_eq!(hits(&db, &["--sequence", "1... c5"]).0, vec![(1, 1)]);
    assert_eq!(hits(&db, &["--sequence", "1...c5"]).0, vec![(1, 1)]);
    assert_eq!(
        hits(&db, &["--sequence", "... c5"]).0,
        vec![(1, 1), (3, 13)]
    );
    assert_eq!(hits(&db, &["--sequence", "3. c5"]).0, vec![(2, 4)]);
    assert_eq!(
        hits(&db, &["--sequence", "3. c5 Nf6 4. Nc3"]).0,
        vec![(2, 4)]
    );
    assert!(hits(&db, &["--sequence", "2... c5"]).0.is_empty());
    assert!(hits(&db, &["--sequence", "30. e4"]).0.is_empty());
    // Game 3's 7... c5 is a Black c5 too, at move 7 only.
    assert_eq!(hits(&db, &["--sequence", "7... c5"]).0, vec![(3, 13)]);
    // Numbers that do not follow from each other are refused, with the place.
    let e = refused(&db, &["--sequence", "1. e4 3. e5"]);
    assert!(e.contains("does not follow"), "{e}");
}

#[test]
fn castling_written_with_zeros_is_castling() {
    let (_dir, db) = database();
    let letters = hits(&db, &["--sequence", "O-O"]).0;
    assert_eq!(letters, vec![(3, 8)]);
    assert_eq!(hits(&db, &["--sequence", "0-0"]).0, letters);
    assert_eq!(hits(&db, &["--sequence", "5. 0-0 f6"]).0, letters);
}

#[test]
fn a_fen_without_side_or_castling_is_completed_and_said() {
    let (_dir, db) = database();
    // After 1. e4 c5 (game 1, ply 2).
    let board = "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR";
    let (rows, note) = hits(&db, &[board]);
    assert_eq!(rows, vec![(1, 2)]);
    assert!(
        note.contains("gives no side to move and no castling rights"),
        "{note}"
    );
    assert!(note.contains("--ignore-side --ignore-castling"), "{note}");
    let (rows, note) = hits(&db, &[&format!("{board} w")]);
    assert_eq!(rows, vec![(1, 2)]);
    assert!(
        note.contains("--ignore-castling") && !note.contains("--ignore-side"),
        "{note}"
    );
    // The full FEN is exact and says nothing; the wrong side to move finds nothing.
    let (rows, note) = hits(&db, &[&format!("{board} w KQkq - 0 2")]);
    assert_eq!((rows, note.is_empty()), (vec![(1, 2)], true), "{note}");
    assert!(hits(&db, &[&format!("{board} b KQkq - 0 2")]).0.is_empty());
    // -q keeps the note to itself.
    assert!(hits(&db, &[board, "-q"]).1.is_empty());
}

#[test]
fn text_after_a_fen_is_refused() {
    let (_dir, db) = database();
    let fen = "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
    let e = refused(&db, &[&format!("{fen} extra")]);
    assert!(e.contains("text after the FEN's six fields"), "{e}");
    // EPD's four fields with an operation are a position.
    let epd = "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - id \"sicilian\";";
    assert_eq!(hits(&db, &[epd]).0, vec![(1, 2)]);
    let e = refused(
        &db,
        &["rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - id"],
    );
    assert!(e.contains("EPD operation"), "{e}");
}

#[test]
fn an_imbalance_holds_four_plies_by_default() {
    let (_dir, db) = database();
    // Game 3: 4. Bxc6 leaves Black a knight down for one ply (4... dxc6), and 8... Qxd1 White
    // a queen down for one (9. Rxd1). Game 4 (Legal's mate): 5... Bxd1 leaves White a queen
    // for a pawn down from ply 10 to the mate at ply 13, four positions.
    assert_eq!(hits(&db, &["--material", "down>=3"]).0, vec![(4, 10)]);
    assert_eq!(
        hits(&db, &["--material", "down>=3", "--held", "4"]).0,
        vec![(4, 10)]
    );
    assert_eq!(
        hits(&db, &["--material", "down>=3", "--held", "1"]).0,
        vec![(3, 7), (4, 10)]
    );
    assert!(
        hits(&db, &["--material", "down>=3", "--held", "5"])
            .0
            .is_empty()
    );
    // A signature holds from its first ply, as before.
    let e = refused(&db, &["--material", "down>=3", "--held", "0"]);
    assert!(e.contains("at least 1 ply"), "{e}");
}
