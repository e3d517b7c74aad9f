//! `arbiter ratings` on a real database: the pool ratings of a TCEC superfinal pinned to the
//! values that agree with Ordo 1.2.6 (run separately, see docs/RATINGS.md), the stored run, and
//! the bad-input exits.

use crate::common;

use common::corpus;
use rusqlite::Connection;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_arbiter");

fn arbiter(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("run arbiter")
}

fn imported(dir: &Path, pgn: &Path) -> PathBuf {
    let db = dir.join("t.sqlite");
    let out = arbiter(&[
        "import",
        "--db",
        db.to_str().unwrap(),
        pgn.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    db
}

/// `ratings --system pool` as Ordo was run on the TCEC superfinal (average 2300, White's
/// advantage fitted), from `source` (`--db DB` or `--encounters DIR`), written to `csv`.
fn tcec_pool(source: &[&str], csv: &Path) -> Output {
    let mut args = vec!["ratings"];
    args.extend_from_slice(source);
    args.extend_from_slice(&["--system", "pool", "--average", "2300"]);
    args.extend_from_slice(&["--white-advantage", "auto", "-o", csv.to_str().unwrap()]);
    arbiter(&args)
}

fn csv_ratings(path: &Path) -> Vec<(String, f64, u32)> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header = reader.headers().unwrap().clone();
    assert_eq!(
        &header.iter().take(6).collect::<Vec<_>>(),
        &["player", "games", "score", "rating", "error", "rank"]
    );
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (
                r[0].to_string(),
                r[3].parse().unwrap(),
                r[5].parse().unwrap(),
            )
        })
        .collect()
}

/// The map step's Parquet (`check --output DIR --format parquet`, no database) rated by
/// `ratings --encounters DIR`: the same TCEC superfinal gives Ordo's values, as from a database.
#[test]
fn pool_over_the_map_steps_parquet_equals_pool_over_the_database() {
    let Some(corpus) = corpus() else { return };
    let dir = tempfile::tempdir().unwrap();
    let pgn = corpus.join("games/engine-tcec/TCEC_Season_6_-_Superfinal.pgn");
    let out_dir = dir.path().join("judged");
    let out = arbiter(&[
        "check",
        pgn.to_str().unwrap(),
        "--output",
        out_dir.to_str().unwrap(),
        "--format",
        "parquet",
        "--quiet",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = dir.path().join("pool.csv");
    let out = tcec_pool(&["--encounters", out_dir.to_str().unwrap()], &csv);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        // The shard's other tables: findings, player_games and positions.
        stderr.contains("1 files read (3 of other tables passed over): 64 games"),
        "{stderr}"
    );
    assert!(stderr.contains("white advantage 72.5"), "{stderr}");
    let rows = csv_ratings(&csv);
    assert_eq!(rows[0].0, "Stockfish 170514");
    assert!((rows[0].1 - 2319.9157).abs() < 0.001, "{rows:?}");
    assert!((rows[1].1 - 2280.0843).abs() < 0.001, "{rows:?}");
    // Selecting is the job of whoever wrote the Parquet: database filters are refused.
    let out = arbiter(&[
        "ratings",
        "--encounters",
        out_dir.to_str().unwrap(),
        "--system",
        "pool",
        "--from",
        "2014",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

/// TCEC season 6 superfinal, 64 games, average 2300, White's advantage fitted: Ordo 1.2.6
/// (-a 2300 -W -z 200.2409) gives Stockfish 170514 2319.9157, Komodo 7x 2280.0843, white
/// advantage 72.50; ours agree within 0.0002 Elo (max |Δ| over TCEC and TWIC files 0.006).
#[test]
fn pool_on_a_tcec_superfinal_matches_ordo() {
    let Some(corpus) = corpus() else { return };
    let dir = tempfile::tempdir().unwrap();
    let pgn = corpus.join("games/engine-tcec/TCEC_Season_6_-_Superfinal.pgn");
    let db = imported(dir.path(), &pgn);
    let csv = dir.path().join("pool.csv");
    let out = tcec_pool(&["--db", db.to_str().unwrap()], &csv);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("white advantage 72.5"), "{stderr}");
    let rows = csv_ratings(&csv);
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].0, "Stockfish 170514");
    assert_eq!(rows[0].2, 1);
    assert!((rows[0].1 - 2319.9157).abs() < 0.001, "{rows:?}");
    assert!((rows[1].1 - 2280.0843).abs() < 0.001, "{rows:?}");
    // Without a white advantage (Ordo -w 0): 2319.0767 / 2280.9233.
    let out = arbiter(&[
        "ratings",
        "--db",
        db.to_str().unwrap(),
        "--system",
        "pool",
        "--average",
        "2300",
        "-o",
        csv.to_str().unwrap(),
        "--no-store",
    ]);
    assert!(out.status.success());
    let rows = csv_ratings(&csv);
    assert!((rows[0].1 - 2319.0767).abs() < 0.001, "{rows:?}");
    // The first run was stored with its settings; the second was not.
    let conn = Connection::open(&db).unwrap();
    let (system, settings, games): (String, String, i64) = conn
        .query_row("SELECT system, settings, games FROM rating_runs", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .unwrap();
    assert_eq!((system.as_str(), games), ("pool", 64));
    assert!(
        settings.contains("\"white_advantage\":\"auto\""),
        "{settings}"
    );
    let stored: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM ratings WHERE rank IS NOT NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(stored, 2);
}

#[test]
fn period_systems_store_their_history_and_bad_values_are_usage_errors() {
    let Some(corpus) = corpus() else { return };
    let dir = tempfile::tempdir().unwrap();
    let pgn = corpus.join("games/engine-tcec/TCEC_Season_6_-_Superfinal.pgn");
    let db = imported(dir.path(), &pgn);
    let db = db.to_str().unwrap();
    let out = arbiter(&[
        "ratings", "--db", db, "--system", "glicko2", "--period", "year",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let conn = Connection::open(db).unwrap();
    let history: i64 = conn
        .query_row("SELECT COUNT(*) FROM rating_history", [], |r| r.get(0))
        .unwrap();
    assert!(history >= 2, "{history}");
    for (flag, value) in [
        ("--system", "bogus"),
        ("--rules", "2019"),
        ("--period", "week"),
    ] {
        let mut args = vec!["ratings", "--db", db, "--system", "elo"];
        if flag == "--system" {
            args.truncate(3);
        }
        args.extend([flag, value]);
        let out = arbiter(&args);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("possible values"));
    }
    // A selection without games says so and exits 1.
    let out = arbiter(&["ratings", "--db", db, "--system", "pool", "--from", "2100"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no rated games"));
}

/// A PGN of `sets` pairs of players: the two of a pair draw each other, and the first of each
/// pair beats the first of the next pair. No one has a perfect score, but each pair only ever
/// wins against the pairs below it: a weakly connected pool, with `sets` one-sided sets.
fn chain_of_pairs(sets: usize) -> String {
    let game = |round: usize, white: &str, black: &str, result: &str| {
        format!(
            "[Event \"Chain\"]\n[Site \"Here\"]\n[Date \"2024.01.{:02}\"]\n[Round \"{round}\"]\n\
             [White \"{white}\"]\n[Black \"{black}\"]\n[Result \"{result}\"]\n\n1. e4 e5 {result}\n\n",
            round % 28 + 1
        )
    };
    let a = |i: usize| format!("Upper{i:02}, Ann");
    let b = |i: usize| format!("Lower{i:02}, Bob");
    let mut pgn = String::new();
    for i in 0..sets {
        pgn.push_str(&game(2 * i, &a(i), &b(i), "1/2-1/2"));
        if i + 1 < sets {
            pgn.push_str(&game(2 * i + 1, &a(i), &a(i + 1), "1-0"));
        }
    }
    pgn
}

fn chain_db(dir: &Path, sets: usize) -> PathBuf {
    let pgn = dir.join("chain.pgn");
    std::fs::write(&pgn, chain_of_pairs(sets)).unwrap();
    imported(dir, &pgn)
}

/// Every one-sided set is counted, ten are shown with "and N more", `-v` lists them all, and
/// the message offers the ways forward; `--prior-draws` then rates the pool.
#[test]
fn a_weakly_connected_pool_names_every_set_and_prior_draws_rate_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = chain_db(dir.path(), 13);
    let db = db.to_str().unwrap();
    let out = arbiter(&["ratings", "--db", db, "--system", "pool", "--no-store"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("13 sets of players only won or only lost"),
        "{stderr}"
    );
    assert!(
        stderr.contains("… and 3 more sets (-v lists every one)"),
        "{stderr}"
    );
    assert_eq!(stderr.matches("2 players, e.g.").count(), 10, "{stderr}");
    assert!(stderr.contains("--prior-draws 2"), "{stderr}");
    assert!(stderr.contains("--min-games N"), "{stderr}");
    let out = arbiter(&[
        "ratings",
        "--db",
        db,
        "--system",
        "pool",
        "--no-store",
        "-v",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.matches("2 players, e.g.").count(), 13, "{stderr}");
    assert!(!stderr.contains("more sets"), "{stderr}");
    // Two virtual draws between every two players who met: a list, the chain's order kept.
    let csv = dir.path().join("prior.csv");
    let out = arbiter(&[
        "ratings",
        "--db",
        db,
        "--system",
        "pool",
        "--prior-draws",
        "2",
        "-o",
        csv.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("with 2 virtual draws"), "{stderr}");
    let rows = csv_ratings(&csv);
    assert_eq!(rows.len(), 26);
    assert_eq!(rows[0].0, "Upper00, Ann");
    let upper: Vec<f64> = (0..13)
        .map(|i| {
            let name = format!("Upper{i:02}, Ann");
            rows.iter().find(|r| r.0 == name).unwrap().1
        })
        .collect();
    assert!(upper.windows(2).all(|w| w[0] > w[1]), "{upper:?}");
    // The stored run keeps the setting.
    let conn = Connection::open(db).unwrap();
    let settings: String = conn
        .query_row("SELECT settings FROM rating_runs", [], |r| r.get(0))
        .unwrap();
    assert!(settings.contains("\"prior_draws\":2.0"), "{settings}");
}

/// `--min-games N` leaves out the games of players with fewer than N (repeatedly), counted in
/// the account of the stored games.
#[test]
fn min_games_leaves_out_passers_by() {
    let dir = tempfile::tempdir().unwrap();
    // Three players meet twice each (4 games each); a passer-by plays one game.
    let mut pgn = String::new();
    let games = [
        ("Aa, A", "Bb, B", "1-0"),
        ("Bb, B", "Cc, C", "1/2-1/2"),
        ("Cc, C", "Aa, A", "0-1"),
        ("Bb, B", "Aa, A", "1-0"),
        ("Cc, C", "Bb, B", "1-0"),
        ("Aa, A", "Cc, C", "1/2-1/2"),
        ("Aa, A", "Passer, P", "1-0"),
    ];
    for (i, (white, black, result)) in games.iter().enumerate() {
        pgn.push_str(&format!(
            "[Event \"E\"]\n[Site \"S\"]\n[Date \"2024.01.{:02}\"]\n[Round \"{}\"]\n\
             [White \"{white}\"]\n[Black \"{black}\"]\n[Result \"{result}\"]\n\n1. e4 e5 {result}\n\n",
            i + 1,
            i + 1
        ));
    }
    let file = dir.path().join("rr.pgn");
    std::fs::write(&file, pgn).unwrap();
    let db = imported(dir.path(), &file);
    let db = db.to_str().unwrap();
    let csv = dir.path().join("rr.csv");
    let out = arbiter(&[
        "ratings",
        "--db",
        db,
        "--system",
        "pool",
        "--min-games",
        "2",
        "--no-store",
        "-o",
        csv.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("7 stored games: 6 rated, 1 with a player under --min-games"),
        "{stderr}"
    );
    let rows = csv_ratings(&csv);
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().all(|r| r.0 != "Passer, P"), "{rows:?}");
    // Without it the passer-by is on the list (as a floor-less perfect loser).
    let out = arbiter(&[
        "ratings",
        "--db",
        db,
        "--system",
        "pool",
        "--no-store",
        "-o",
        csv.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    assert_eq!(csv_ratings(&csv).len(), 4);
    for bad in ["0", "-2", "many"] {
        let out = arbiter(&["ratings", "--db", db, "--system", "elo", "--min-games", bad]);
        assert_eq!(out.status.code(), Some(2), "--min-games {bad}");
    }
}

/// Numeric settings at or below 0 are usage errors naming the flag; a setting of another
/// system is refused, not ignored.
#[test]
fn settings_that_must_be_positive_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let db = chain_db(dir.path(), 2);
    let db = db.to_str().unwrap();
    for (system, flag, value) in [
        ("glicko2", "--tau", "-0.5"),
        ("glicko2", "--tau", "0"),
        ("elo", "--k", "0"),
        ("elo", "--k", "-10"),
        ("glicko", "--c", "-3"),
        ("pool", "--samples", "0"),
        ("pool", "--prior-draws", "-2"),
    ] {
        let out = arbiter(&["ratings", "--db", db, "--system", system, flag, value]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}: {stderr}");
        assert_eq!(
            stderr.trim(),
            format!("arbiter: {flag} {value}: must be > 0"),
            "{flag} {value}"
        );
    }
    let out = arbiter(&["ratings", "--db", db, "--system", "elo", "--tau", "0.5"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--tau applies to glicko2, not elo"));
    // Nothing was stored by the refused runs.
    let conn = Connection::open(db).unwrap();
    let runs: i64 = conn
        .query_row("SELECT count(*) FROM rating_runs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(runs, 0);
}

/// `-o list.csv.gz` writes gzipped CSV (the extension under the compression suffix), not the
/// text table; Parquet under a compression suffix is refused.
#[test]
fn a_compressed_csv_list_is_csv() {
    let dir = tempfile::tempdir().unwrap();
    let db = chain_db(dir.path(), 2);
    let db = db.to_str().unwrap();
    let gz = dir.path().join("list.csv.gz");
    let out = arbiter(&[
        "ratings",
        "--db",
        db,
        "--system",
        "glicko2",
        "-o",
        gz.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&gz).unwrap();
    assert_eq!(&bytes[..2], &[0x1f, 0x8b]);
    let mut text = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut text)
        .unwrap();
    assert!(
        text.starts_with("player,games,score,rating,error,rank,rd,volatility,bound\n"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 5);
    let pq = dir.path().join("list.parquet.gz");
    let out = arbiter(&[
        "ratings",
        "--db",
        db,
        "--system",
        "pool",
        "-o",
        pq.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!pq.exists());
}

/// `--anchor` resolves a name as every command does: `#ID`, the other name order, a surname
/// that names one person; a surname of two persons lists them with ids and games, and a name
/// of nobody the closest spellings, both usage errors.
#[test]
fn anchor_names_resolve_like_stats_player() {
    let dir = tempfile::tempdir().unwrap();
    let mut pgn = String::new();
    let games = [
        ("Carlsen, Magnus", "Caruana, Fabiano", "1-0"),
        ("Caruana, Fabiano", "Carlsen, Henrik", "1/2-1/2"),
        ("Carlsen, Henrik", "Carlsen, Magnus", "0-1"),
        ("Caruana, Fabiano", "Carlsen, Magnus", "1/2-1/2"),
        ("Carlsen, Henrik", "Caruana, Fabiano", "0-1"),
        ("Carlsen, Magnus", "Carlsen, Henrik", "1/2-1/2"),
    ];
    for (i, (white, black, result)) in games.iter().enumerate() {
        pgn.push_str(&format!(
            "[Event \"E\"]\n[Site \"S\"]\n[Date \"2024.01.{:02}\"]\n[Round \"{}\"]\n\
             [White \"{white}\"]\n[Black \"{black}\"]\n[Result \"{result}\"]\n\n1. e4 e5 {result}\n\n",
            i + 1,
            i + 1
        ));
    }
    let file = dir.path().join("a.pgn");
    std::fs::write(&file, pgn).unwrap();
    let db = imported(dir.path(), &file);
    let db = db.to_str().unwrap();
    let csv = dir.path().join("a.csv");
    let anchored = |anchor: &str| {
        arbiter(&[
            "ratings",
            "--db",
            db,
            "--system",
            "pool",
            "--no-store",
            "--anchor",
            anchor,
            "-o",
            csv.to_str().unwrap(),
        ])
    };
    // "First Last" finds "Last, First"; the anchored person is held at the rating.
    let out = anchored("Magnus Carlsen=2800");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = csv_ratings(&csv);
    let magnus = rows.iter().find(|r| r.0 == "Carlsen, Magnus").unwrap();
    assert_eq!(magnus.1, 2800.0);
    // A surname that names one person.
    let out = anchored("Caruana=2750");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = csv_ratings(&csv);
    assert_eq!(
        rows.iter().find(|r| r.0 == "Caruana, Fabiano").unwrap().1,
        2750.0
    );
    // Two persons: both listed with ids and games; before, one was picked silently.
    let out = anchored("Carlsen=2800");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--anchor Carlsen=2800: \"Carlsen\" names 2 persons"),
        "{stderr}"
    );
    assert!(stderr.contains("Carlsen, Magnus  games 4"), "{stderr}");
    assert!(stderr.contains("Carlsen, Henrik  games 4"), "{stderr}");
    // #ID from that list.
    let id = stderr
        .lines()
        .find(|l| l.contains("Carlsen, Henrik"))
        .and_then(|l| l.trim().strip_prefix('#'))
        .and_then(|l| l.split_whitespace().next())
        .unwrap()
        .to_owned();
    let out = anchored(&format!("#{id}=2600"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = csv_ratings(&csv);
    assert_eq!(
        rows.iter().find(|r| r.0 == "Carlsen, Henrik").unwrap().1,
        2600.0
    );
    // Nobody: the closest spellings.
    let out = anchored("Carlsne, Magnus=2800");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("no person is called \"Carlsne, Magnus\""),
        "{stderr}"
    );
    assert!(stderr.contains("Carlsen, Magnus"), "{stderr}");
}
