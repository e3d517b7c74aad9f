//! Counts through the real binary on `testdata/duplicates.pgn`: `export --unique` keeps one
//! record of each duplicate group in CSV and Parquet alike; a partitioned Parquet export that
//! matches nothing writes a valid empty dataset (one file with every column and no rows); and
//! `ratings` accounts for every stored game (rated, outside the selection, duplicate records,
//! unfinished, undated for the period, left in unrated groups: the parts add up to the games
//! stored).

use crate::common::cli;

use cli::{ok, s};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Output;

/// `testdata/duplicates.pgn` imported and its duplicate groups stored: five records, two of
/// them one game (the same moves and persons, the date known to the day in one and to the
/// month in the other).
fn duplicates_db() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("d.sqlite");
    let pgn = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/duplicates.pgn");
    ok(&["import", s(&pgn), "--db", s(&db), "--quiet"]);
    ok(&["duplicates", "--db", s(&db)]);
    (dir, db)
}

fn parquet_rows(path: &Path) -> (i64, usize) {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let r = SerializedFileReader::new(File::open(path).unwrap()).unwrap();
    let m = r.metadata().file_metadata();
    (m.num_rows(), m.schema_descr().num_columns())
}

#[test]
fn unique_keeps_one_record_per_game_in_csv_and_parquet() {
    let (dir, db) = duplicates_db();
    for (flags, expected) in [(&[][..], 5), (&["--unique"][..], 4)] {
        let mut args = vec!["export", "--db", s(&db), "--format", "csv", "-q"];
        args.extend_from_slice(flags);
        let csv = String::from_utf8(ok(&args).stdout).unwrap();
        assert_eq!(csv.lines().count(), expected + 1, "{flags:?}\n{csv}");
        let file = dir.path().join(format!("u{expected}.parquet"));
        let mut args = vec![
            "export",
            "--db",
            s(&db),
            "--format",
            "parquet",
            "-q",
            "-o",
            s(&file),
        ];
        args.extend_from_slice(flags);
        ok(&args);
        assert_eq!(parquet_rows(&file).0, expected as i64, "{flags:?}");
    }
    // The survivor is the record dated to the day; the other is left out.
    let out = ok(&[
        "export",
        "--db",
        s(&db),
        "--format",
        "csv",
        "-q",
        "--unique",
        "--columns",
        "date,round",
    ]);
    let csv = String::from_utf8(out.stdout).unwrap();
    assert!(csv.contains("2020.01.10,1"), "{csv}");
    assert!(!csv.contains("2020.01.??"), "{csv}");
}

#[test]
fn a_partitioned_export_of_nothing_is_an_empty_dataset() {
    let (dir, db) = duplicates_db();
    let out_dir = dir.path().join("games");
    let out = ok(&[
        "export",
        "--db",
        s(&db),
        "--format",
        "parquet",
        "--partition",
        "year,month",
        "--min-plies",
        "100000",
        "-o",
        s(&out_dir),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no games matched"), "{err}");
    let files: Vec<_> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(files, ["part-00000.parquet"]);
    let (rows, columns) = parquet_rows(&out_dir.join("part-00000.parquet"));
    assert_eq!(rows, 0);
    // The same columns as a one-file export of the same selection, year and month included.
    let one = dir.path().join("one.parquet");
    ok(&[
        "export",
        "--db",
        s(&db),
        "--format",
        "parquet",
        "-q",
        "-o",
        s(&one),
    ]);
    assert_eq!(columns, parquet_rows(&one).1);
    // A selection that matches writes partition folders and no top-level file.
    let some = dir.path().join("some");
    ok(&[
        "export",
        "--db",
        s(&db),
        "--format",
        "parquet",
        "-q",
        "--partition",
        "year",
        "-o",
        s(&some),
    ]);
    assert!(some.join("year=2020").is_dir());
    assert!(!some.join("part-00000.parquet").exists());
}

fn last_line(out: &Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err
        .lines()
        .find(|l| l.contains("stored games"))
        .unwrap_or_else(|| panic!("no accounting line in:\n{err}"));
    // The time at the end varies.
    line.rsplit_once(", ").unwrap().0.to_owned()
}

#[test]
fn the_summary_accounts_for_every_stored_game() {
    let (_dir, db) = duplicates_db();
    let db = s(&db);
    // Five records: one game twice (a duplicate), one unfinished, one dated by year only.
    let monthly = ok(&["ratings", "--db", db, "--system", "glicko2", "--no-store"]);
    assert_eq!(
        last_line(&monthly),
        "5 stored games: 2 rated, 1 duplicate records (--all-games rates them), 1 unfinished, \
         1 without the date parts that name the period (try --period year)"
    );
    let yearly = ok(&[
        "ratings",
        "--db",
        db,
        "--system",
        "glicko2",
        "--period",
        "year",
        "--no-store",
    ]);
    assert_eq!(
        last_line(&yearly),
        "5 stored games: 3 rated, 1 duplicate records (--all-games rates them), 1 unfinished"
    );
    let all = ok(&[
        "ratings",
        "--db",
        db,
        "--system",
        "glicko2",
        "--period",
        "year",
        "--all-games",
        "--no-store",
    ]);
    assert_eq!(last_line(&all), "5 stored games: 4 rated, 1 unfinished");
    let from = ok(&[
        "ratings",
        "--db",
        db,
        "--system",
        "glicko2",
        "--period",
        "year",
        "--from",
        "2021",
        "--no-store",
    ]);
    assert_eq!(
        last_line(&from),
        "5 stored games: 2 rated, 3 outside the selection"
    );
}
