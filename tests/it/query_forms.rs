//! The query texts a player types (newcomer report 2026-11-29, defects 2, 3, 6 and 16):
//! move numbers and `...` in `--sequence` pin the ply or the side, castling may be written
//! with zeros, a FEN without its side to move or castling field is completed with a note
//! (never 0 games in silence), text after a FEN is refused, and an imbalance or a points
//! deficit holds 4 plies by default so that an exchange in progress does not count.
//! On `testdata/positions/forms.pgn`: four hand-checked games (ids 1 to 4 in file order).

use crate::common::cli::{BIN, arbiter, s};
use std::path::{Path, PathBuf};
use std::process::Command;

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
    let mut rows: Vec<(i64, u32)> = lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[id].parse().unwrap(), f[ply].parse().unwrap())
        })
        .collect();
    // The games as a set: the order is `--sort`'s business (its own test).
    rows.sort_unstable();
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

/// The CSV cells of `search --format csv` with these arguments, header first.
fn table(db: &Path, args: &[&str]) -> Vec<Vec<String>> {
    let mut all = vec!["search", "--db", s(db), "--format", "csv"];
    all.extend_from_slice(args);
    let out = arbiter(&all);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    csv::Reader::from_reader(out.stdout.as_slice())
        .into_records()
        .map(|r| r.unwrap().iter().map(str::to_owned).collect())
        .collect()
}

#[test]
fn search_rows_say_the_event_players_ratings_and_the_moves_around_the_match() {
    let (_dir, db) = database();
    let out = arbiter(&[
        "search",
        "--db",
        s(&db),
        "--sequence",
        "c5",
        "--format",
        "csv",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text.lines().next(),
        Some(
            "id,event,date,round,white,white_elo,black,black_elo,result,eco,last_move,next_move,ply"
        )
    );
    // By date: game 2 (2019) before game 1 (2020.01.01) and game 3 (2020.01.03).
    let rows = table(&db, &["--sequence", "c5"]);
    let ids: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(ids, ["2", "1", "3"]);
    assert_eq!(
        rows[1],
        [
            "1",
            "Query forms 1",
            "2020.01.01",
            "1",
            "Anna",
            "2500",
            "Bert",
            "2400",
            "1/2-1/2",
            &rows[1][9],
            "1. e4",
            "1... c5",
            "1"
        ]
    );
    assert_eq!(
        (rows[0][10].as_str(), rows[0][11].as_str()),
        ("2... e6", "3. c5")
    );
    // By rating: game 3 (2650 on average), game 1 (2450), then the unrated by date.
    let rows = table(
        &db,
        &[
            "--sequence",
            "c5",
            "--sort",
            "elo",
            "--columns",
            "id,next_move",
        ],
    );
    assert_eq!(rows, [["3", "7... c5"], ["1", "1... c5"], ["2", "3. c5"]]);
    // As stored, and a limit after the order.
    let rows = table(
        &db,
        &["--sequence", "c5", "--sort", "id", "--columns", "id"],
    );
    assert_eq!(rows, [["1"], ["2"], ["3"]]);
    let rows = table(
        &db,
        &["--sequence", "c5", "--limit", "1", "--columns", "id"],
    );
    assert_eq!(rows, [["2"]]);
    // The start position: no move reached it.
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let rows = table(
        &db,
        &[start, "--columns", "id,last_move,next_move", "--sort", "id"],
    );
    assert_eq!(rows[0], ["1", "", "1. e4"]);
    assert_eq!(rows[1], ["2", "", "1. d4"]);
    // A column that does not exist is a usage error that lists them.
    let e = refused(&db, &["--sequence", "c5", "--columns", "id,elo"]);
    assert!(e.contains("white_elo") && e.contains("next_move"), "{e}");
    let e = refused(&db, &["--sequence", "c5", "--sort", "rating"]);
    assert!(e.contains("date, elo, id"), "{e}");
}

#[test]
fn text_rows_are_aligned_and_a_tree_takes_its_limit() {
    let (_dir, db) = database();
    let out = arbiter(&[
        "search",
        "--db",
        s(&db),
        "--sequence",
        "c5",
        "--columns",
        "id,white_elo,next_move",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text,
        "3 games\nid  white_elo  next_move\n 2             3. c5\n 1       2500  1... c5\n 3       2700  7... c5\n"
    );
    let out = arbiter(&[
        "search",
        "--db",
        s(&db),
        "--sequence",
        "c5",
        "--limit",
        "1",
        "--columns",
        "id",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.ends_with(
            " 2\n... and 2 more games (--limit N shows more; -o FILE or --format csv writes all)\n"
        ),
        "{text}"
    );
    // The start position's tree has two moves (1. e4 in games 1, 3, 4; 1. d4 in game 2).
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let rows = table(&db, &[start, "--tree"]);
    assert_eq!(rows.len(), 2);
    let rows = table(&db, &[start, "--tree", "--limit", "1"]);
    assert_eq!(
        (rows.len(), rows[0][0].as_str(), rows[0][1].as_str()),
        (1, "e4", "3")
    );
}

#[test]
fn on_a_terminal_text_shows_twenty_rows_and_counts_the_rest() {
    // `script` gives the command a terminal; without it (a pipe) every row is printed.
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("SKIPPED: no `script` to give the command a terminal");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("many.sqlite");
    let mut pgn = String::new();
    for i in 0..25 {
        pgn.push_str(&format!(
            "[Event \"E\"]\n[Date \"2000.01.{:02}\"]\n[White \"W{i}\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 e5 {} 1-0\n\n",
            i % 28 + 1,
            ["2. Nf3", "2. Nc3", "2. Bc4", "2. d4", "2. f4"][i % 5].to_owned() + &format!(" {}", ["Nc6", "Nf6", "d6", "Bc5", "a6"][i / 5])
        ));
    }
    let file = dir.path().join("many.pgn");
    std::fs::write(&file, pgn).unwrap();
    let out = arbiter(&["import", "-q", "--db", s(&db), s(&file)]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = format!("{BIN} search --db {} --sequence e4 --columns id", s(&db));
    let out = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).replace('\r', "");
    assert!(text.starts_with("25 games\n"), "{text}");
    assert_eq!(text.lines().count(), 1 + 1 + 20 + 1, "{text}");
    assert!(text.contains("... and 5 more games"), "{text}");
    let piped = arbiter(&[
        "search",
        "--db",
        s(&db),
        "--sequence",
        "e4",
        "--columns",
        "id",
    ]);
    assert_eq!(String::from_utf8(piped.stdout).unwrap().lines().count(), 27);
}

#[test]
fn event_filters_name_events_by_the_tournament_rule() {
    let (_dir, db) = database();
    // Case and spaces folded; a part of one name is that name.
    let rows = table(
        &db,
        &[
            "--sequence",
            "c5",
            "--event",
            "query  FORMS 3",
            "--columns",
            "id",
        ],
    );
    assert_eq!(rows, [["3"]]);
    // A part of several names is a usage error listing them with their years and games.
    let e = refused(&db, &["--sequence", "c5", "--event", "forms"]);
    assert!(e.contains("'forms' is part of 4 event names"), "{e}");
    assert!(e.contains("'Query forms 2' (2019, 1 games)"), "{e}");
}
