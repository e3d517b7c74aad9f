//! Per-player analysis summaries (issue 45 §3): `stats player`'s analysis section, the
//! leaderboard's analysis columns and the head-to-head's accuracies, on a real database
//! analysed by arbiter's own search and by a UCI engine (`arbiter uci`, deterministic at fixed
//! nodes), each checked against the same figures computed here from the export's per-game rows.

use crate::common::cli::{BIN, arbiter, ok, s};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const PLAYERS: [&str; 3] = ["Alpha, Ann", "Beta, Bob", "Gamma, Gil"];

/// `testdata/analysis/players.pgn` (8 short games of three players, 2018-2021): the games of
/// 2019 on analysed by arbiter's own search, those of 2020 on then by the UCI engine (stronger,
/// so read instead); the 2018 game has no analysis.
fn analysed_db(dir: &Path) -> PathBuf {
    analysed_files(dir, &["players.pgn"])
}

/// `analysed_db` over these files of `testdata/analysis/`.
fn analysed_files(dir: &Path, files: &[&str]) -> PathBuf {
    let db = dir.join("p.sqlite");
    for file in files {
        let pgn = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/analysis")
            .join(file);
        ok(&["import", "-q", s(&pgn), "--db", s(&db)]);
    }
    let engine = dir.join("engine");
    std::fs::write(&engine, format!("#!/bin/sh\nexec {BIN} uci\n")).unwrap();
    let mut perm = std::fs::metadata(&engine).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(&engine, perm).unwrap();
    let analyse = ["analyse", "-q", "--jobs", "1", "--db", s(&db)];
    ok(&[&analyse[..], &["--engine", "none", "--from", "2019"]].concat());
    let with_engine = [
        "--engine",
        s(&engine),
        "--engine-nodes",
        "5000",
        "--engine-sweep-nodes",
        "1000",
        "--engine-refine-nodes",
        "0",
        "--from",
        "2020",
    ];
    ok(&[&analyse[..], &with_engine[..]].concat());
    db
}

/// One side of one exported game.
#[derive(Debug, Clone)]
struct Side {
    game: i64,
    /// 0 White, 1 Black.
    colour: usize,
    player: String,
    opponent: String,
    year: String,
    tc: String,
    engine: String,
    accuracy: Option<f64>,
    acpl: Option<f64>,
    /// Inaccuracies, mistakes, blunders (None: blank, not judged).
    counts: [Option<f64>; 3],
    moves: f64,
}

/// `export --format csv --columns COLUMNS`'s records.
fn exported(db: &Path, columns: &str) -> Vec<csv::StringRecord> {
    let out = ok(&[
        "export",
        "--db",
        s(db),
        "--format",
        "csv",
        "--columns",
        columns,
    ]);
    let mut reader = csv::Reader::from_reader(&out.stdout[..]);
    reader.records().map(Result::unwrap).collect()
}

/// The export's per-game rows, two sides each.
fn exported_sides(db: &Path) -> Vec<Side> {
    let columns = "id,white_person,black_person,year,tc_class,ply_count,white_accuracy,\
                   black_accuracy,white_acpl,black_acpl,white_inaccuracies,white_mistakes,\
                   white_blunders,black_inaccuracies,black_mistakes,black_blunders,analysis_engine";
    let mut sides = Vec::new();
    for r in exported(db, columns) {
        let num = |i: usize| (!r[i].is_empty()).then(|| r[i].parse::<f64>().unwrap());
        let plies: u32 = r[5].parse().unwrap();
        for (c, moves) in [(0, plies.div_ceil(2)), (1, plies / 2)] {
            sides.push(Side {
                game: r[0].parse().unwrap(),
                colour: c,
                player: r[1 + c].to_owned(),
                opponent: r[2 - c].to_owned(),
                year: r[3].to_owned(),
                tc: r[4].to_owned(),
                engine: r[16].to_owned(),
                accuracy: num(6 + c),
                acpl: num(8 + c),
                counts: [num(10 + 3 * c), num(11 + 3 * c), num(12 + 3 * c)],
                moves: f64::from(moves),
            });
        }
    }
    sides
}

/// The shared definition (docs/ANALYSIS.md) over `sides`, analysed or not: analysed games,
/// mean accuracy and ACPL, and each label per 100 moves of the games that give it.
#[derive(Debug, Default)]
struct Expected {
    games: u64,
    accuracy: Option<f64>,
    acpl: Option<f64>,
    rates: [Option<f64>; 3],
}

fn expected<'s>(sides: impl IntoIterator<Item = &'s Side>) -> Expected {
    let analysed: Vec<&Side> = sides.into_iter().filter(|s| !s.engine.is_empty()).collect();
    let mean = |v: Vec<f64>| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
    let rate = |k: usize| {
        let given: Vec<&&Side> = analysed.iter().filter(|s| s.counts[k].is_some()).collect();
        let moves: f64 = given.iter().map(|s| s.moves).sum();
        (moves > 0.0)
            .then(|| 100.0 * given.iter().map(|s| s.counts[k].unwrap()).sum::<f64>() / moves)
    };
    Expected {
        games: analysed.len() as u64,
        accuracy: mean(analysed.iter().filter_map(|s| s.accuracy).collect()),
        acpl: mean(analysed.iter().filter_map(|s| s.acpl).collect()),
        rates: [rate(0), rate(1), rate(2)],
    }
}

fn close(got: &Value, want: Option<f64>, what: &str) {
    match want {
        Some(w) => assert!(
            got.as_f64().is_some_and(|g| (g - w).abs() < 1e-9),
            "{what}: {got} against {w}"
        ),
        None => assert!(got.is_null(), "{what}: {got} against null"),
    }
}

/// A slice of the summary (`FiguresOut`) against the figures computed from the rows.
fn same(got: &Value, want: &Expected, what: &str) {
    assert_eq!(got["games"], want.games, "{what}: {got}");
    close(&got["accuracy"], want.accuracy, &format!("{what} accuracy"));
    close(&got["acpl"], want.acpl, &format!("{what} acpl"));
    for (k, key) in ["inaccuracy_rate", "mistake_rate", "blunder_rate"]
        .iter()
        .enumerate()
    {
        close(&got[key], want.rates[k], &format!("{what} {key}"));
    }
}

fn json(args: &[&str]) -> Value {
    serde_json::from_slice(&ok(args).stdout).unwrap()
}

#[test]
fn the_player_summary_equals_a_computation_from_the_exported_rows() {
    let dir = tempfile::tempdir().unwrap();
    let db = analysed_db(dir.path());
    let sides = exported_sides(&db);
    // Both kinds of analysis are read: the own search's blunders-only ones, the engine's.
    let engines: BTreeSet<&str> = sides.iter().map(|s| s.engine.as_str()).collect();
    assert_eq!(engines.len(), 3, "{engines:?}");
    for name in PLAYERS {
        let mine: Vec<&Side> = sides.iter().filter(|s| s.player == name).collect();
        let a = &json(&["stats", "player", name, "--db", s(&db), "--format", "json"])["analysis"];
        assert_eq!(a["of_games"], mine.len(), "{name}: {a}");
        let unanalysed = mine.iter().filter(|s| s.engine.is_empty()).count();
        assert_eq!(a["without_analysis"], unanalysed, "{name}");
        same(a, &expected(mine.iter().copied()), name);
        for (c, colour) in ["white", "black"].iter().enumerate() {
            let side = mine.iter().copied().filter(|s| s.colour == c);
            same(&a[colour], &expected(side), &format!("{name} {colour}"));
        }
        for (section, key) in [
            (
                "by_time_control",
                (|s: &Side| s.tc.clone()) as fn(&Side) -> String,
            ),
            ("by_year", |s: &Side| s.year.clone()),
        ] {
            let mut groups: BTreeMap<String, Vec<&Side>> = BTreeMap::new();
            for s in mine.iter().filter(|s| !s.engine.is_empty()) {
                groups.entry(key(s)).or_default().push(s);
            }
            let lines = a[section].as_array().unwrap();
            assert_eq!(lines.len(), groups.len(), "{name} {section}: {lines:?}");
            for line in lines {
                let k = line["key"].as_str().unwrap();
                same(
                    line,
                    &expected(groups[k].iter().copied()),
                    &format!("{name} {section} {k}"),
                );
            }
        }
        // The engines behind the games read, by name.
        let named: BTreeSet<String> = a["engines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["engine"].as_str().unwrap().to_owned())
            .collect();
        let want: BTreeSet<String> = mine
            .iter()
            .filter(|s| !s.engine.is_empty())
            .map(|s| s.engine.clone())
            .collect();
        assert_eq!(named, want, "{name}");
        // Best and worst by accuracy: the highest (lowest) first, ties by game id.
        let mut by_accuracy: Vec<(f64, i64, &str)> = mine
            .iter()
            .filter_map(|s| Some((s.accuracy?, s.game, s.opponent.as_str())))
            .collect();
        by_accuracy.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
        let listed = |key: &str| -> Vec<(f64, i64, String)> {
            a[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|g| {
                    (
                        g["accuracy"].as_f64().unwrap(),
                        g["game_id"].as_i64().unwrap(),
                        g["opponent"].as_str().unwrap().to_owned(),
                    )
                })
                .collect()
        };
        let owned = |v: &[(f64, i64, &str)]| -> Vec<(f64, i64, String)> {
            v.iter().map(|&(a, g, o)| (a, g, o.to_owned())).collect()
        };
        assert_eq!(
            listed("best"),
            owned(&by_accuracy[..by_accuracy.len().min(5)])
        );
        by_accuracy.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
        assert_eq!(
            listed("worst"),
            owned(&by_accuracy[..by_accuracy.len().min(5)])
        );
    }
    // The text says what was analysed and by what.
    let text =
        String::from_utf8(ok(&["stats", "player", "Alpha, Ann", "--db", s(&db)]).stdout).unwrap();
    assert!(
        text.contains("analysis: 7 of 8 games analysed, 1 without analysis; by "),
        "{text}"
    );
    assert!(text.contains("\nbest games by accuracy\n"), "{text}");
    // A selection narrows the summary like every other figure: 2021 only.
    let a = &json(&[
        "stats",
        "player",
        "Alpha, Ann",
        "--db",
        s(&db),
        "--format",
        "json",
        "--from",
        "2021",
    ])["analysis"];
    let in_2021 = sides
        .iter()
        .filter(|s| s.player == "Alpha, Ann" && s.year == "2021");
    same(a, &expected(in_2021), "Alpha, Ann in 2021");
}

/// The export's per-phase columns (`white_opening_accuracy` …, `_moves`), one `Side` a side
/// and phase in which the side moved (`year` holds the phase).
fn exported_phase_sides(db: &Path) -> Vec<Side> {
    let mut columns = vec![
        "id".to_owned(),
        "white_person".to_owned(),
        "black_person".to_owned(),
    ];
    columns.push("analysis_engine".to_owned());
    for side in ["white", "black"] {
        for phase in PHASES {
            for figure in [
                "accuracy",
                "acpl",
                "inaccuracies",
                "mistakes",
                "blunders",
                "moves",
            ] {
                columns.push(format!("{side}_{phase}_{figure}"));
            }
        }
    }
    let mut sides = Vec::new();
    for r in exported(db, &columns.join(",")) {
        let num = |i: usize| (!r[i].is_empty()).then(|| r[i].parse::<f64>().unwrap());
        for c in 0..2 {
            for (p, phase) in PHASES.iter().enumerate() {
                let at = 4 + 18 * c + 6 * p;
                let moves = num(at + 5).unwrap_or(0.0);
                if moves == 0.0 {
                    continue;
                }
                sides.push(Side {
                    game: r[0].parse().unwrap(),
                    colour: c,
                    player: r[1 + c].to_owned(),
                    opponent: r[2 - c].to_owned(),
                    year: (*phase).to_owned(),
                    tc: String::new(),
                    engine: r[3].to_owned(),
                    accuracy: num(at),
                    acpl: num(at + 1),
                    counts: [num(at + 2), num(at + 3), num(at + 4)],
                    moves,
                });
            }
        }
    }
    sides
}

const PHASES: [&str; 3] = ["opening", "middlegame", "endgame"];

#[test]
fn the_player_summary_by_phase_equals_a_computation_from_the_exported_phase_columns() {
    let dir = tempfile::tempdir().unwrap();
    // With two games of 52 plies (2019, 2020) that trade down to an endgame.
    let db = analysed_files(dir.path(), &["players.pgn", "phases.pgn"]);
    let sides = exported_phase_sides(&db);
    // The games reach every phase, and both kinds of analysis are read.
    let reached: BTreeSet<&str> = sides.iter().map(|s| s.year.as_str()).collect();
    assert_eq!(reached.len(), 3, "{reached:?}");
    let engines: BTreeSet<&str> = sides.iter().map(|s| s.engine.as_str()).collect();
    assert_eq!(engines.len(), 2, "{engines:?}");
    for &name in PLAYERS.iter().chain(&["Delta, Dee", "Epsilon, Eve"]) {
        let a = &json(&["stats", "player", name, "--db", s(&db), "--format", "json"])["analysis"];
        let lines = a["by_phase"].as_array().unwrap();
        assert_eq!(lines.len(), 3, "{name}: {a}");
        for (line, phase) in lines.iter().zip(PHASES) {
            assert_eq!(line["key"], phase);
            let mine = sides.iter().filter(|s| s.player == name && s.year == phase);
            same(line, &expected(mine), &format!("{name} {phase}"));
        }
    }
    // The text lists them with the other lines.
    let text =
        String::from_utf8(ok(&["stats", "player", "Delta, Dee", "--db", s(&db)]).stdout).unwrap();
    for phase in PHASES {
        assert!(text.contains(&format!("phase {phase} ")), "{text}");
    }
}

#[test]
fn the_dossier_page_has_the_analysis_and_an_accuracy_chart_beside_the_rating_chart() {
    let dir = tempfile::tempdir().unwrap();
    let db = analysed_db(dir.path());
    let page = dir.path().join("alpha.html");
    ok(&[
        "stats",
        "player",
        "Alpha, Ann",
        "--db",
        s(&db),
        "--html",
        s(&page),
    ]);
    let html = std::fs::read_to_string(&page).unwrap();
    let at = |id: &str| {
        html.find(&format!("id=\"{id}\""))
            .unwrap_or_else(|| panic!("{id}"))
    };
    // Beside the rating chart, drawn by the same code: one point a dated analysed year. Both
    // are the two sections of one row of charts, each half the page's width.
    assert!(at("rating-chart") < at("accuracy-chart") && at("accuracy-chart") < at("year-chart"));
    let row = html.find("<div class=\"charts\"><section>").unwrap();
    let between = &html[row..at("accuracy-chart")];
    assert!(between.contains("id=\"rating-chart\""), "{between}");
    assert_eq!(
        between.matches("</section><section>").count(),
        1,
        "{between}"
    );
    assert!(!between.contains("</div>"), "{between}");
    assert!(html[at("accuracy-chart")..at("year-chart")].contains("</section></div>"));
    assert!(between.contains("viewBox=\"0 0 520 300\""), "{between}");
    let chart = &html[at("accuracy-chart")..];
    let chart = &chart[..chart.find("</svg>").unwrap()];
    assert_eq!(chart.matches("<circle class=\"dot\"").count(), 3, "{chart}");
    assert!(chart.contains("<title>2019: accuracy "), "{chart}");
    for id in ["analysis", "analysis-figures", "best-games", "worst-games"] {
        at(id);
    }
}

#[test]
fn the_leaderboard_has_the_analysis_columns_and_sorts_by_them() {
    let dir = tempfile::tempdir().unwrap();
    let db = analysed_db(dir.path());
    let sides = exported_sides(&db);
    let board = dir.path().join("board.csv");
    ok(&["stats", "players", "--db", s(&db), "-o", s(&board)]);
    let mut reader = csv::Reader::from_path(&board).unwrap();
    let header = reader.headers().unwrap().clone();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 3);
    let num = |v: &str| (!v.is_empty()).then(|| Value::from(v.parse::<f64>().unwrap()));
    for r in &rows {
        let name = &r[col("player")];
        let want = expected(sides.iter().filter(|s| s.player == name));
        let got = serde_json::json!({
            "games": r[col("analysed_games")].parse::<u64>().unwrap(),
            "accuracy": num(&r[col("accuracy")]),
            "acpl": num(&r[col("acpl")]),
            "blunder_rate": num(&r[col("blunder_rate")]),
        });
        assert_eq!(got["games"], want.games, "{name}");
        close(&got["accuracy"], want.accuracy, name);
        close(&got["acpl"], want.acpl, name);
        close(&got["blunder_rate"], want.rates[2], name);
    }
    // Exact values: Alpha 7 analysed of 8, Beta 4 of 5, Gamma 3 of 3 (the 2018 game is
    // Alpha's and Beta's).
    let analysed: BTreeMap<String, String> = rows
        .iter()
        .map(|r| {
            (
                r[col("player")].to_owned(),
                r[col("analysed_games")].to_owned(),
            )
        })
        .collect();
    assert_eq!(
        analysed,
        BTreeMap::from([
            ("Alpha, Ann".to_owned(), "7".to_owned()),
            ("Beta, Bob".to_owned(), "4".to_owned()),
            ("Gamma, Gil".to_owned(), "3".to_owned()),
        ])
    );
    // Each order: accuracy highest first, ACPL and blunders per 100 moves lowest first.
    let order = |sort: &str| -> Vec<String> {
        let out = ok(&[
            "stats",
            "players",
            "--db",
            s(&db),
            "--sort",
            sort,
            "--format",
            "csv",
        ]);
        let mut r = csv::Reader::from_reader(&out.stdout[..]);
        r.records().map(|x| x.unwrap()[1].to_owned()).collect()
    };
    let by = |f: fn(&Expected) -> Option<f64>, high: bool| -> Vec<String> {
        let mut v: Vec<(f64, String)> = PLAYERS
            .iter()
            .map(|p| {
                let e = expected(sides.iter().filter(|s| s.player == *p));
                (f(&e).unwrap(), p.to_string())
            })
            .collect();
        v.sort_by(|a, b| {
            if high {
                b.0.total_cmp(&a.0)
            } else {
                a.0.total_cmp(&b.0)
            }
        });
        v.into_iter().map(|x| x.1).collect()
    };
    assert_eq!(order("accuracy"), by(|e| e.accuracy, true));
    assert_eq!(order("acpl"), by(|e| e.acpl, false));
    assert_eq!(order("blunder-rate"), by(|e| e.rates[2], false));
    assert_eq!(order("analysed"), ["Alpha, Ann", "Beta, Bob", "Gamma, Gil"]);
    // A bad order is a usage error naming the valid ones.
    let out = arbiter(&["stats", "players", "--db", s(&db), "--sort", "accurracy"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    for valid in [
        "games",
        "score",
        "performance",
        "analysed",
        "accuracy",
        "acpl",
        "blunder-rate",
    ] {
        assert!(err.contains(valid), "{err}");
    }
    // The text table shows them too.
    let text = String::from_utf8(ok(&["stats", "players", "--db", s(&db)]).stdout).unwrap();
    let header: Vec<&str> = text.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(
        header[header.len() - 4..],
        ["analysed", "accuracy", "ACPL", "blunders/100"]
    );
}

#[test]
fn head_to_head_shows_both_players_accuracy_in_their_games() {
    let dir = tempfile::tempdir().unwrap();
    let db = analysed_db(dir.path());
    let sides = exported_sides(&db);
    let (a, b) = ("Alpha, Ann", "Beta, Bob");
    let v = json(&["stats", "h2h", a, b, "--db", s(&db), "--format", "json"]);
    let between = |me: &'static str, them: &'static str| {
        expected(
            sides
                .iter()
                .filter(move |s| s.player == me && s.opponent == them),
        )
    };
    same(&v["analysis"], &between(a, b), "Alpha against Beta");
    same(
        &v["opponent_analysis"],
        &between(b, a),
        "Beta against Alpha",
    );
    assert_eq!(v["analysis"]["of_games"], 5);
    assert_eq!(v["analysis"]["without_analysis"], 1);
    let text = String::from_utf8(ok(&["stats", "h2h", a, b, "--db", s(&db)]).stdout).unwrap();
    let one = |x: Option<f64>| format!("{:.1}", x.unwrap());
    let (mine, theirs) = (between(a, b), between(b, a));
    let line = format!(
        "in these games: {a} accuracy {}, ACPL {} ({} games analysed); {b} accuracy {}, ACPL {} ({} games analysed)",
        one(mine.accuracy),
        one(mine.acpl),
        mine.games,
        one(theirs.accuracy),
        one(theirs.acpl),
        theirs.games
    );
    assert!(text.contains(&line), "{text}");
}
