//! `arbiter stats` end to end: the real binary on a constructed collection with known answers
//! (testdata/stats.pgn: a mate, an agreed draw with a missing rating, a self-game, a forfeit, an
//! undated unfinished game, a loss on time), the HTML page, bad names, and the `player_games`
//! view's numbers against the command's on the master games (needs ARBITER_CORPUS).

use rusqlite::Connection;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_arbiter");

fn arbiter(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("binary runs")
}

fn import(pgn: &Path, db: &Path) {
    let out = arbiter(&[
        "import",
        pgn.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

fn constructed() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.sqlite");
    import(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/stats.pgn"),
        &db,
    );
    (dir, db)
}

fn json(args: &[&str]) -> Value {
    let out = arbiter(args);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

fn tally(v: &Value) -> [u64; 5] {
    ["games", "wins", "draws", "losses", "unfinished"].map(|k| v[k].as_u64().unwrap())
}

/// `(key, games)` of a JSON table.
fn keyed_games(v: &Value) -> Vec<(String, u64)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["key"].as_str().unwrap().to_owned(),
                l["games"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn constructed_collection_gives_the_known_dossier() {
    let (_dir, db) = constructed();
    let db = db.to_str().unwrap();
    let p = json(&[
        "stats",
        "player",
        "Alpha, Ann",
        "--db",
        db,
        "--format",
        "json",
    ]);
    assert_eq!(p["player"], "Alpha, Ann");
    // Alpha's rows: W (mate), D, W + L (self-game), W (forfeit), * (undated), L (time).
    assert_eq!(tally(&p), [6, 3, 1, 2, 1]);
    assert_eq!(p["score"], 3.5);
    assert_eq!(tally(&p["white"]), [4, 3, 0, 1, 0]);
    assert_eq!(tally(&p["black"]), [2, 0, 1, 1, 1]);
    // Performance: the five finished non-forfeit games with a rated opponent
    // (2100 W, 2110 D, 2210 W, 2210 L, 2090 L): Ra 2144, p 0.50.
    let perf = &p["performance"];
    assert_eq!(perf["games"], 5);
    assert_eq!(perf["score"], 2.5);
    assert_eq!(perf["average_opponent"], 2144.0);
    assert_eq!(perf["fide"], 2144);
    assert_eq!(perf["linear"], 2144.0);
    assert_eq!(
        format!("{:.2}", perf["perfect"].as_f64().unwrap()),
        "2143.84"
    );
    // Expected only where both were rated: 2200-2100, 2210-2210 twice, 2220-2090.
    assert_eq!(perf["expected"]["games"], 4);
    assert_eq!(perf["expected"]["actual"], 2.0);
    assert_eq!(p["laws"]["forfeits"], 1);
    assert_eq!(p["laws"]["on_time"], 1);
    let endings = keyed_games(&p["endings"]);
    let e = |k: &str| endings.iter().find(|(n, _)| n == k).map(|(_, g)| *g);
    assert_eq!(e("checkmate"), Some(1));
    assert_eq!(e("resignation"), Some(2));
    assert_eq!(e("forfeit"), Some(1));
    assert_eq!(e("time"), Some(1));
    assert_eq!(e("draw, agreed"), Some(1));
    assert_eq!(e("unfinished"), Some(1));
    // Dated finished games in date order: W D W L W L.
    assert_eq!(p["streaks"]["unbeaten"]["length"], 3);
    assert_eq!(p["streaks"]["unbeaten"]["from"], "2020.01.10");
    assert_eq!(p["streaks"]["winning"]["length"], 1);
    assert_eq!(p["streaks"]["losing"]["length"], 1);
    let years = keyed_games(&p["by_year"]);
    assert_eq!(
        years,
        [
            ("unknown".into(), 0),
            ("2020".into(), 5),
            ("2021".into(), 1)
        ]
    );
    assert_eq!(p["first_date"], "2020.01.10");
    assert_eq!(p["last_date"], "2021.05.05");
    // Beta, from the other side of the same games.
    let b = json(&[
        "stats",
        "player",
        "beta, bob",
        "--db",
        db,
        "--format",
        "json",
    ]);
    assert_eq!(tally(&b), [4, 1, 1, 2, 1]);

    // Head-to-head: Alpha against Beta leaves out the self-game.
    let h = json(&[
        "stats",
        "h2h",
        "Alpha, Ann",
        "Beta, Bob",
        "--db",
        db,
        "--format",
        "json",
    ]);
    assert_eq!(tally(&h), [4, 2, 1, 1, 1]);

    // The text dossier names the spelling used and aligns its tables.
    let out = arbiter(&["stats", "player", "Alpha, Ann", "--db", db]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("spellings: Alpha, Ann (7)"), "{text}");
    assert!(text.contains("FIDE table 8.1.1 2144"), "{text}");
}

#[test]
fn leaderboard_files_have_one_row_per_person() {
    let (dir, db) = constructed();
    let csv = dir.path().join("board.csv");
    let out = arbiter(&[
        "stats",
        "players",
        "--db",
        db.to_str().unwrap(),
        "-o",
        csv.to_str().unwrap(),
        "--sort",
        "score",
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let mut r = csv::Reader::from_path(&csv).unwrap();
    let header = r.headers().unwrap().clone();
    let rows: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
    assert_eq!(rows.len(), 2);
    let at = |row: &csv::StringRecord, k: &str| {
        row[header.iter().position(|h| h == k).unwrap()].to_owned()
    };
    assert_eq!(at(&rows[0], "player"), "Alpha, Ann");
    assert_eq!(at(&rows[0], "games"), "6");
    assert_eq!(at(&rows[0], "score"), "3.5");
    assert_eq!(at(&rows[0], "performance_fide"), "2144");
    assert_eq!(at(&rows[1], "player"), "Beta, Bob");
    assert_eq!(at(&rows[1], "unfinished"), "1");
    let jsonl = dir.path().join("board.jsonl");
    let out = arbiter(&[
        "stats",
        "players",
        "--db",
        db.to_str().unwrap(),
        "-o",
        jsonl.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = std::fs::read_to_string(&jsonl).unwrap();
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(
        (first["player"].as_str(), first["games"].as_u64()),
        (Some("Alpha, Ann"), Some(6))
    );
    // A file name that says no format is a usage error.
    let out = arbiter(&[
        "stats",
        "players",
        "--db",
        db.to_str().unwrap(),
        "-o",
        "x.txt",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn html_page_is_self_contained_with_its_charts() {
    let (dir, db) = constructed();
    let html = dir.path().join("alpha.html");
    let out = arbiter(&[
        "stats",
        "player",
        "Alpha, Ann",
        "--db",
        db.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let page = std::fs::read_to_string(&html).unwrap();
    for needle in [
        "<svg id=\"rating-chart\"",
        "<polyline class=\"line\"",
        "<svg id=\"year-chart\"",
        "<rect class=\"bar\"",
        "<table id=\"openings\"",
        "<style>",
    ] {
        assert!(page.contains(needle), "{needle} missing");
    }
    // Nothing is fetched: no links, scripts or remote resources.
    assert!(!page.contains("http") && !page.contains("<script") && !page.contains("<link"));
}

#[test]
fn names_that_match_nobody_or_several_persons_are_usage_errors() {
    let (_dir, db) = constructed();
    let out = arbiter(&["stats", "player", "Alfa, Ann", "--db", db.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("no person is called \"Alfa, Ann\"") && err.contains("\n  Alpha, Ann"),
        "{err}"
    );
    // A second person with the same canonical name (a homonym with a FIDE id).
    let conn = Connection::open(&db).unwrap();
    conn.execute(
        "INSERT INTO players (name, fide_id, key) VALUES ('Alpha, Ann', 999, 'fide:999')",
        [],
    )
    .unwrap();
    drop(conn);
    let out = arbiter(&[
        "stats",
        "player",
        "Alpha, Ann",
        "--db",
        db.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("names 2 persons"), "{err}");
    assert!(err.contains("games 6  years 2020-2021  FIDE -"), "{err}");
    assert!(err.contains("games 0  years undated  FIDE 999"), "{err}");
}

/// The corpus folder, or None (and a loud note) when ARBITER_CORPUS is not set.
use crate::common;
use common::corpus;

/// The master games (the corpus' otb-pgnmentor files, in name order) imported into `dir`.
fn master_games(corpus: &Path, dir: &Path) -> PathBuf {
    let pgn = dir.join("master.pgn");
    let mut all = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus.join("games/otb-pgnmentor"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .collect();
    files.sort();
    for f in files {
        all.extend(std::fs::read(f).unwrap());
    }
    std::fs::write(&pgn, all).unwrap();
    let db = dir.join("master.sqlite");
    import(&pgn, &db);
    db
}

#[test]
fn player_games_view_equals_the_command_on_the_master_games() {
    let Some(corpus) = corpus() else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = master_games(&corpus, dir.path());
    let conn = Connection::open(&db).unwrap();
    // The five persons with the most rows, and one from further down.
    let mut stmt = conn
        .prepare(
            "SELECT player_id FROM player_games WHERE duplicate = 0 GROUP BY player_id \
             ORDER BY count(*) DESC, player_id LIMIT 5",
        )
        .unwrap();
    let mut ids: Vec<i64> = stmt
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    ids.push(
        conn.query_row(
            "SELECT player_id FROM player_games GROUP BY player_id ORDER BY count(*) DESC, player_id \
             LIMIT 1 OFFSET 200",
            [],
            |r| r.get(0),
        )
        .unwrap(),
    );
    assert_eq!(ids.len(), 6);
    for id in ids {
        let p = json(&[
            "stats",
            "player",
            &format!("#{id}"),
            "--db",
            db.to_str().unwrap(),
            "--format",
            "json",
        ]);
        for colour in ["white", "black"] {
            let sql: [i64; 5] = conn
                .query_row(
                    "SELECT count(score), sum(score = 1.0), sum(score = 0.5), sum(score = 0.0), \
                     sum(score IS NULL) FROM player_games \
                     WHERE player_id = ?1 AND colour = ?2 AND duplicate = 0",
                    rusqlite::params![id, colour],
                    |r| {
                        Ok([
                            r.get(0)?,
                            r.get::<_, Option<i64>>(1)?.unwrap_or(0),
                            r.get::<_, Option<i64>>(2)?.unwrap_or(0),
                            r.get::<_, Option<i64>>(3)?.unwrap_or(0),
                            r.get::<_, Option<i64>>(4)?.unwrap_or(0),
                        ])
                    },
                )
                .unwrap();
            let cmd = tally(&p[colour]).map(|v| v as i64);
            assert_eq!(cmd, sql, "person {id} {colour}");
        }
        assert_eq!(
            tally(&p)[0],
            tally(&p["white"])[0] + tally(&p["black"])[0],
            "person {id}: colours add up"
        );
        let (n, avg): (i64, Option<f64>) = conn
            .query_row(
                "SELECT count(*), avg(opponent_rating) FROM player_games WHERE player_id = ?1 \
                 AND duplicate = 0 AND score IS NOT NULL AND opponent_rating IS NOT NULL \
                 AND NOT (ply_count = 0 AND score <> 0.5)",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        match avg {
            Some(avg) => {
                assert_eq!(p["performance"]["games"].as_i64(), Some(n), "person {id}");
                let cmd = p["performance"]["average_opponent"].as_f64().unwrap();
                assert!((cmd - avg).abs() < 1e-6, "person {id}: {cmd} vs {avg}");
            }
            None => assert!(p["performance"].is_null(), "person {id}"),
        }
        eprintln!(
            "person {id} {}: {} games, view and command agree",
            p["player"], p["games"]
        );
    }
}

/// The leaderboard of `stats players` comes from `stats::board` (the lean scan, a few counters
/// per person); every row must equal the one the full dossiers give, bit for bit, for each
/// duplicate rule and for a filtered selection.
fn board_equals_dossiers(db: &Path) -> usize {
    use arbiter::db::directory::Directory;
    use arbiter::db::query::select::Filter;
    use arbiter::stats::dossier::{Selection, Stats};
    use arbiter::stats::read;
    use arbiter::stats::report::{SortBy, leaderboard};
    let conn = arbiter::db::open_read_only(db).unwrap();
    let dir = Directory::load(&conn).unwrap();
    let mut compared = 0;
    let filters = [
        Filter::default(),
        Filter {
            date_from: Some("1990".into()),
            min_plies: Some(30),
            ..Filter::default()
        },
    ];
    for filter in filters {
        for all_games in [false, true] {
            let mut stats = Stats::new(Selection {
                all_games,
                ..Selection::default()
            });
            read::for_each_row(&conn, &filter, None, |row| stats.add(row)).unwrap();
            let board = arbiter::stats::board::collect(&conn, &dir, &filter, all_games).unwrap();
            assert_eq!(board.rows, stats.rows);
            assert_eq!(board.duplicates_skipped, stats.duplicates_skipped);
            let scope = arbiter::stats::analysis::Scope {
                all_games,
                ..Default::default()
            };
            let analysis = arbiter::stats::analysis::summarise(&conn, &filter, &scope).unwrap();
            for sort in [SortBy::Games, SortBy::Score, SortBy::Performance] {
                let want = leaderboard(&stats, &dir, sort, &analysis);
                let got = board.rows(&dir, sort, &analysis);
                assert_eq!(got.len(), want.len());
                for (g, w) in got.iter().zip(&want) {
                    assert_eq!(g, w);
                }
                compared += got.len();
            }
        }
    }
    compared
}

#[test]
fn the_leaderboard_equals_the_dossiers_on_the_constructed_collection() {
    let (_dir, db) = constructed();
    // Four persons, two filters, two duplicate rules, three orders.
    assert!(board_equals_dossiers(&db) > 0);
}

#[test]
fn the_leaderboard_equals_the_dossiers_on_the_master_games() {
    let Some(corpus) = corpus() else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = master_games(&corpus, dir.path());
    // About 2,000 persons each time.
    assert!(board_equals_dossiers(&db) > 12 * 1000);
}

/// `stats player` says how many of the player's games have been analysed, and its accuracy and
/// blunder rate are over those only (issue 33 §1).
#[test]
fn stats_player_says_how_many_games_were_analysed() {
    let (_dir, db) = constructed();
    let db = db.to_str().unwrap();
    let text = |out: Output| String::from_utf8(out.stdout).unwrap();

    let out = arbiter(&["stats", "player", "Alpha, Ann", "--db", db]);
    assert!(
        text(out).contains("analysis: none of the 7 games analysed"),
        "nothing analysed yet"
    );

    // Only the game of January 2020 (Alpha, Ann with White, 1-0).
    let out = arbiter(&[
        "analyse",
        "--db",
        db,
        "--to",
        "2020-01-31",
        "-q",
        "--engine",
        "none",
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let v = json(&[
        "stats",
        "player",
        "Alpha, Ann",
        "--db",
        db,
        "--format",
        "json",
    ]);
    let a = &v["analysis"];
    assert_eq!(a["games"], 1, "{a}");
    assert_eq!(a["of_games"], 7, "{a}");
    assert_eq!(a["without_analysis"], 6, "{a}");
    let conn = Connection::open(db).unwrap();
    let (accuracy, blunders, plies): (f64, u32, u32) = conn
        .query_row(
            "SELECT a.white_accuracy, a.white_blunders, g.ply_count FROM analyses a \
             JOIN games g ON g.id = a.game_id",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    // The game's accuracy as exported (one decimal).
    let shown = (accuracy * 10.0).round() / 10.0;
    assert!(
        (a["accuracy"].as_f64().unwrap() - shown).abs() < 1e-9,
        "{a}"
    );
    assert_eq!(a["blunders"], blunders, "{a}");
    // The own search gives no inaccuracies or mistakes: unknown, not 0.
    assert!(
        a["mistakes"].is_null() && a["inaccuracy_rate"].is_null(),
        "{a}"
    );
    let own_moves = plies.div_ceil(2);
    let rate = 100.0 * f64::from(blunders) / f64::from(own_moves);
    assert!(
        (a["blunder_rate"].as_f64().unwrap() - rate).abs() < 1e-9,
        "{a}"
    );
    let out = arbiter(&["stats", "player", "Alpha, Ann", "--db", db]);
    assert!(
        text(out).contains("analysis: 1 of 7 games analysed, 6 without analysis; by arbiter"),
        "one analysed"
    );
}
