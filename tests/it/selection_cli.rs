//! The one set of selection flags (`src/cli/filter.rs`) end to end: the real binary on
//! testdata/selection.pgn (six games: a Najdorf blitz game, a truncated copy and a
//! re-annotated copy with another spelling of it, the same moves between other players, a
//! classical and a second blitz game), after `arbiter duplicates` has grouped the three
//! records of one game. The same flags select the same games in export, stats and ratings;
//! `export --unique` writes the survivors only; `duplicates --format pgn` writes the group;
//! a bad value is a usage error (exit 2) in every command.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_arbiter");

fn arbiter(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("binary runs")
}

fn ok(args: &[&str]) -> String {
    let out = arbiter(args);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// The imported collection with its duplicate group stored.
fn collection() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sel.sqlite");
    let pgn = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/selection.pgn");
    let d = db.to_str().unwrap();
    ok(&["import", pgn.to_str().unwrap(), "--db", d, "--quiet"]);
    ok(&["duplicates", "--db", d]);
    (dir, db)
}

/// The game ids `export` writes with these flags.
fn exported(db: &str, flags: &[&str]) -> Vec<u64> {
    let mut args = vec![
        "export",
        "--db",
        db,
        "--format",
        "csv",
        "--columns",
        "id",
        "-q",
    ];
    args.extend_from_slice(flags);
    ok(&args)
        .lines()
        .skip(1)
        .map(|l| l.parse().expect("an id"))
        .collect()
}

/// Games per person of a CSV with `player` and `games` columns.
fn games_per_person(csv_text: &str) -> BTreeMap<String, u64> {
    let mut r = csv::Reader::from_reader(csv_text.as_bytes());
    let head = r.headers().unwrap().clone();
    let col = |n: &str| head.iter().position(|h| h == n).expect("column");
    let (p, g) = (col("player"), col("games"));
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            (rec[p].to_owned(), rec[g].parse().unwrap())
        })
        .collect()
}

fn stats_players(dir: &Path, db: &str, flags: &[&str]) -> BTreeMap<String, u64> {
    let out = dir.join("board.csv");
    let mut args = vec!["stats", "players", "--db", db, "-o", out.to_str().unwrap()];
    args.extend_from_slice(flags);
    ok(&args);
    games_per_person(&std::fs::read_to_string(out).unwrap())
}

fn ratings(dir: &Path, db: &str, flags: &[&str]) -> BTreeMap<String, u64> {
    let out = dir.join("pool.csv");
    let mut args = vec![
        "ratings",
        "--db",
        db,
        "--system",
        "pool",
        "--no-store",
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(flags);
    ok(&args);
    games_per_person(&std::fs::read_to_string(out).unwrap())
}

/// What ratings says when the selection is too small to rate anyone (one game).
fn ratings_of_one_game(db: &str, flags: &[&str]) -> String {
    let mut args = vec!["ratings", "--db", db, "--system", "pool", "--no-store"];
    args.extend_from_slice(flags);
    let out = arbiter(&args);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {out:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn persons(list: &[(&str, u64)]) -> BTreeMap<String, u64> {
    list.iter().map(|&(p, g)| (p.to_owned(), g)).collect()
}

#[test]
fn the_same_flags_select_the_same_games_in_export_stats_and_ratings() {
    let (dir, db) = collection();
    let d = db.to_str().unwrap();
    let blitz_2020_on = [
        "--player",
        "carlsen,magnus",
        "--tc-class",
        "blitz",
        "--from",
        "2020",
    ];
    // Each group once (stats' and ratings' default, export's --unique): the survivor 3 of
    // games 1-3, and game 6.
    let mut unique = blitz_2020_on.to_vec();
    unique.push("--unique");
    assert_eq!(exported(d, &unique), [3, 6]);
    let expected = persons(&[
        ("Carlsen, Magnus", 2),
        ("Caruana, Fabiano", 1),
        ("Giri, Anish", 1),
    ]);
    assert_eq!(stats_players(dir.path(), d, &blitz_2020_on), expected);
    assert_eq!(ratings(dir.path(), d, &blitz_2020_on), expected);
    // Every record (export's default, --all-games elsewhere).
    assert_eq!(exported(d, &blitz_2020_on), [1, 2, 3, 6]);
    let mut all = blitz_2020_on.to_vec();
    all.push("--all-games");
    let expected = persons(&[
        ("Carlsen, Magnus", 4),
        ("Caruana, Fabiano", 3),
        ("Giri, Anish", 1),
    ]);
    assert_eq!(stats_players(dir.path(), d, &all), expected);
    assert_eq!(ratings(dir.path(), d, &all), expected);
    // Opening by ECO prefix and name, site, result, plies, edition.
    let najdorf_in_oslo = ["--eco", "B9", "--site", "Oslo", "--unique"];
    assert_eq!(exported(d, &najdorf_in_oslo), [3]);
    let expected = persons(&[("Carlsen, Magnus", 1), ("Caruana, Fabiano", 1)]);
    assert_eq!(stats_players(dir.path(), d, &najdorf_in_oslo), expected);
    let one = "nobody got a rating from the 1 games selected";
    assert!(ratings_of_one_game(d, &najdorf_in_oslo).contains(one));
    let najdorf = ["--opening", "sicilian defense: najdorf"];
    assert_eq!(exported(d, &najdorf), [1, 2, 3, 4]);
    let mut najdorf_all = najdorf.to_vec();
    najdorf_all.push("--all-games");
    assert_eq!(
        stats_players(dir.path(), d, &najdorf_all),
        persons(&[
            ("Anand, Viswanathan", 1),
            ("Carlsen, Magnus", 3),
            ("Caruana, Fabiano", 3),
            ("Giri, Anish", 1),
        ])
    );
    let won_by_black = ["--result", "0-1", "--max-plies", "14", "--laws", "2014"];
    assert_eq!(exported(d, &won_by_black), [5]);
    let expected = persons(&[("Carlsen, Magnus", 1), ("Caruana, Fabiano", 1)]);
    assert_eq!(stats_players(dir.path(), d, &won_by_black), expected);
    assert!(ratings_of_one_game(d, &won_by_black).contains(one));
    // The opening tree reads the same selection: the Najdorf survivor and Anand-Giri.
    let tree = ok(&[
        "openings",
        "--db",
        d,
        "--opening",
        "Sicilian",
        "--depth",
        "1",
        "--min-games",
        "1",
    ]);
    assert!(
        tree.starts_with("2 games from the standard start\n"),
        "{tree}"
    );
}

#[test]
fn export_unique_writes_the_survivors_only() {
    let (_dir, db) = collection();
    let d = db.to_str().unwrap();
    assert_eq!(exported(d, &[]), [1, 2, 3, 4, 5, 6]);
    // Games 1 (the same moves, other spelling and date) and 2 (a prefix) are not survivors.
    assert_eq!(exported(d, &["--unique"]), [3, 4, 5, 6]);
    let pgn = ok(&["export", "--db", d, "--unique", "-q"]);
    assert_eq!(pgn.matches("[Event ").count(), 4);
}

#[test]
fn duplicates_as_pgn_name_group_kind_and_reason() {
    let (_dir, db) = collection();
    let d = db.to_str().unwrap();
    let pgn = ok(&["duplicates", "--db", d, "--format", "pgn"]);
    assert_eq!(pgn.matches("[Event ").count(), 3, "{pgn}");
    assert_eq!(pgn.matches("[DuplicateGroup \"1\"]").count(), 3);
    assert_eq!(pgn.matches("[DuplicateSurvivor \"yes\"]").count(), 1);
    // The survivor comes first: the annotated record, comment kept.
    let first = pgn.find("[DuplicateSurvivor \"yes\"]").unwrap();
    assert!(first < pgn.find("[DuplicateSurvivor \"no\"]").unwrap());
    assert!(pgn.contains("{the Najdorf}"), "{pgn}");
    assert!(
        pgn.contains("[DuplicateReason \"prefix of game 3 at ply 12\"]"),
        "{pgn}"
    );
    assert!(
        pgn.contains(
            "[DuplicateReason \"same moves as game 3; differs in White spelling, date parts, \
             Round, annotations\"]"
        ),
        "{pgn}"
    );
    // The flags pick groups by their members: none of Anand's games has a copy.
    let none = ok(&["duplicates", "--db", d, "--player", "Anand, Viswanathan"]);
    assert_eq!(none, "");
    let carlsen = ok(&[
        "duplicates",
        "--db",
        d,
        "--format",
        "csv",
        "--player",
        "Carlsen, M.",
    ]);
    // `Carlsen, M.` is a surname with an initial: the one Carlsen of the collection.
    assert_eq!(carlsen.lines().count(), 4, "{carlsen}");
    let carlsen = ok(&[
        "duplicates",
        "--db",
        d,
        "--format",
        "csv",
        "--white",
        "carlsen,magnus",
    ]);
    assert_eq!(carlsen.lines().count(), 4, "{carlsen}");
}

#[test]
fn a_bad_selection_value_is_a_usage_error_in_every_command() {
    let (_dir, db) = collection();
    let d = db.to_str().unwrap();
    let commands: [&[&str]; 7] = [
        &["export", "--db", d],
        &["stats", "players", "--db", d],
        &["stats", "player", "Carlsen, Magnus", "--db", d],
        &["stats", "openings", "Carlsen, Magnus", "--db", d],
        &["openings", "--db", d],
        &["ratings", "--db", d, "--system", "elo"],
        &["duplicates", "--db", d],
    ];
    let bad: [(&[&str], &str); 5] = [
        (
            &["--tc-class", "armageddon"],
            "classical, rapid, blitz, bullet",
        ),
        (&["--eco", "Z12"], "A, B, C, D or E"),
        (&["--opening", "Martian Gambit"], "Sicilian Defense"),
        (&["--result", "1:0"], "1-0, 0-1, 1/2-1/2, *"),
        (&["--from", "last spring"], "YYYY"),
    ];
    for command in commands {
        for (flags, valid) in bad {
            let mut args = command.to_vec();
            args.extend_from_slice(flags);
            let out = arbiter(&args);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert!(err.contains(valid), "{args:?}: {err}");
        }
    }
    let out = arbiter(&["duplicates", "--db", d, "--unique"]);
    assert_eq!(out.status.code(), Some(2));
    let out = arbiter(&["export", "--db", d, "--unique", "--all-games"]);
    assert_eq!(out.status.code(), Some(2));
}
