//! `arbiter tournament` end to end: TRF-16 in (the T2 round robin of shared/ratings, the
//! hand-built fixtures), CSV/JSONL/text/HTML out, bad input as located errors and usage errors,
//! a PGN-built event equal to the same event's TRF, TRF out read back; the HTML page sorted in
//! headless Chromium; and, with ARBITER_CORPUS, every event of the TWIC and pgnmentor files.

use crate::common;

use rusqlite::Connection;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_arbiter");

fn arbiter(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("binary runs")
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/tournaments")
        .join(name)
        .to_str()
        .unwrap()
        .to_owned()
}

/// The T2 round robin of `shared/ratings` (beside the corpus; not copied into the repo), or
/// None with a SKIPPED line when ARBITER_CORPUS is unset.
fn rr6() -> Option<String> {
    let corpus = common::corpus()?;
    let path = corpus.join("../ratings/rr6.trf");
    assert!(
        path.is_file(),
        "{}: the T2 fixture of shared/ratings",
        path.display()
    );
    Some(path.to_str().unwrap().to_owned())
}

fn stdout(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

#[test]
fn t2_csv_has_the_expected_sonneborn_berger_and_koya() {
    let Some(rr6) = rr6() else { return };
    let out = arbiter(&[
        "tournament",
        "--trf",
        &rr6,
        "--tiebreaks",
        "SB,KS",
        "--format",
        "csv",
    ]);
    assert_eq!(
        stdout(&out),
        "sno,name,rank,pts,SB,KS\n\
         1,\"Player1, P\",1,3.5,7.50,1.5\n\
         2,\"Player2, P\",2,3.0,6.75,2.0\n\
         3,\"Player3, P\",3,3.0,6.50,1.5\n\
         4,\"Player4, P\",4,2.5,5.50,1.0\n\
         5,\"Player5, P\",5,2.0,4.75,1.5\n\
         6,\"Player6, P\",6,1.0,2.50,0.5\n"
    );
}

#[test]
fn jsonl_columns_are_named_as_given() {
    let out = arbiter(&[
        "tournament",
        "--trf",
        &fixture("swiss7.trf"),
        "--tiebreaks",
        "BH/C1,ARO",
        "--format",
        "jsonl",
    ]);
    let text = stdout(&out);
    let first = text.lines().next().unwrap();
    assert_eq!(
        first,
        r#"{"sno":1,"name":"Alpha, Anna","rank":1,"pts":3.5,"BH/C1":8.0,"ARO":2100.0}"#
    );
    assert_eq!(text.lines().count(), 7);
}

#[test]
fn rules_default_by_end_date_and_can_be_forced() {
    // swiss7 ended on 2025/06/04: the 2024 text applies; BH of player 1 is 9.5 under it and
    // 8.0 under 2026's cap.
    let f = fixture("swiss7.trf");
    let bh = |extra: &[&str]| {
        let mut args = vec![
            "tournament",
            "--trf",
            &f,
            "--tiebreaks",
            "BH",
            "--format",
            "csv",
        ];
        args.extend_from_slice(extra);
        let text = stdout(&arbiter(&args));
        text.lines()
            .nth(1)
            .unwrap()
            .rsplit(',')
            .next()
            .unwrap()
            .to_owned()
    };
    assert_eq!(bh(&[]), "9.5");
    assert_eq!(bh(&["--rules", "2026"]), "8.0");
    let out = arbiter(&[
        "tournament",
        "--trf",
        &fixture("swiss7.trf"),
        "--rules",
        "2025",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("valid values are 2024 and 2026"));
}

#[test]
fn an_unknown_tie_break_is_a_usage_error_listing_the_valid_ones() {
    let Some(rr6) = rr6() else { return };
    let out = arbiter(&["tournament", "--trf", &rr6, "--tiebreaks", "BH,BUCH"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("unknown tie-break 'BUCH'"), "{err}");
    assert!(err.contains("DE, WIN, WON, BPG, BWG, GE, REP"), "{err}");
}

#[test]
fn malformed_and_inconsistent_trf_are_located() {
    let Some(rr6) = rr6() else { return };
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(&rr6).unwrap();
    // Line 5 (player 2), round 3's result becomes 'x'.
    let bad: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 4 {
                let mut c: Vec<char> = l.chars().collect();
                c[118] = 'x';
                c.into_iter().collect()
            } else {
                l.to_owned()
            }
        })
        .collect();
    let path = dir.path().join("bad.trf");
    std::fs::write(&path, bad.join("\n")).unwrap();
    let out = arbiter(&["tournament", "--trf", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("line 5, column 119: round 3 result: found 'x'"),
        "{err}"
    );
    // Player 1's round 1 opponent becomes 5, whose line says 2: not mirrored.
    let bad = text.replacen("0006 w 1", "0005 w 1", 1);
    std::fs::write(&path, bad).unwrap();
    let err = stderr(&arbiter(&["tournament", "--trf", path.to_str().unwrap()]));
    assert!(err.contains("lines 4 and 8: round 1"), "{err}");
    // A total that does not add up.
    let bad = text.replacen("3.5    0", "4.5    0", 1);
    std::fs::write(&path, bad).unwrap();
    let err = stderr(&arbiter(&["tournament", "--trf", path.to_str().unwrap()]));
    assert!(
        err.contains(
            "line 4: column 81: player 1 has 4.5 points written but the rounds add up to 3.5"
        ),
        "{err}"
    );
}

fn import(pgn: &str, db: &Path) {
    let out = arbiter(&["import", pgn, "--db", db.to_str().unwrap(), "--quiet"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

#[test]
fn a_pgn_built_event_equals_its_trf_and_its_trf_out_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("rr5.sqlite");
    import(&fixture("rr5.pgn"), &db);
    let list = "DE,SB,SB-C1,WIN,KS,BH,PS,ARO,TPR,PTP";
    let trf_out = dir.path().join("out.trf");
    let from_db = stdout(&arbiter(&[
        "tournament",
        "--db",
        db.to_str().unwrap(),
        "--event",
        "round robin of five",
        "--tiebreaks",
        list,
        "--format",
        "csv",
        "--trf-out",
        trf_out.to_str().unwrap(),
    ]));
    let from_trf = stdout(&arbiter(&[
        "tournament",
        "--trf",
        &fixture("rr5.trf"),
        "--tiebreaks",
        list,
        "--format",
        "csv",
    ]));
    assert_eq!(from_db, from_trf);
    assert!(
        from_db.contains("4,\"Four, Fred\",4,1.5,0,1.50"),
        "{from_db}"
    );
    let read_back = stdout(&arbiter(&[
        "tournament",
        "--trf",
        trf_out.to_str().unwrap(),
        "--tiebreaks",
        list,
        "--format",
        "csv",
    ]));
    assert_eq!(read_back, from_db);
}

#[test]
fn event_names_that_match_several_or_none_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("rr5.sqlite");
    import(&fixture("rr5.pgn"), &db);
    let out = arbiter(&[
        "tournament",
        "--db",
        db.to_str().unwrap(),
        "--event",
        "round robin of six",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("no stored event is named 'round robin of six' or has it in its name; the closest:\n  'Round robin of five with a forfeit' (2026, 10 games)"),
        "{err}"
    );
    // The name exists, but not in that year: the events of that name are listed.
    let out = arbiter(&[
        "tournament",
        "--db",
        db.to_str().unwrap(),
        "--event",
        "Round robin of five with a forfeit",
        "--year",
        "2030",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("no event 'Round robin of five with a forfeit' at that site or in that year")
            && err
                .contains("'Round robin of five with a forfeit' at 'Testtown NOR', 2026: 10 games"),
        "{err}"
    );
    // The same event name in another year is a second event.
    let pgn = std::fs::read_to_string(fixture("rr5.pgn"))
        .unwrap()
        .replace("2026.03.", "2027.03.");
    let later = dir.path().join("later.pgn");
    std::fs::write(&later, pgn).unwrap();
    import(later.to_str().unwrap(), &db);
    let out = arbiter(&[
        "tournament",
        "--db",
        db.to_str().unwrap(),
        "--event",
        "five",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("2 events match"), "{err}");
    assert!(
        err.contains("2026: 10 games") && err.contains("2027: 10 games"),
        "{err}"
    );
    let out = arbiter(&[
        "tournament",
        "--db",
        db.to_str().unwrap(),
        "--event",
        "five",
        "--year",
        "2027",
    ]);
    assert!(stdout(&out).contains("One, Olga"));
}

#[test]
fn html_page_is_self_contained_and_sorts_in_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("t.html");
    let out = arbiter(&[
        "tournament",
        "--trf",
        &fixture("swiss7.trf"),
        "--html",
        page.to_str().unwrap(),
    ]);
    stdout(&out);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("id=\"standings\"") && html.contains("id=\"crosstable\""));
    assert!(!html.contains("http://") && !html.contains("https://") && !html.contains(" src="));
    let Some(chromium) = ["chromium", "chromium-browser"]
        .into_iter()
        .find(|c| Command::new(c).arg("--version").output().is_ok())
    else {
        eprintln!("SKIPPED: no chromium on this machine; the page was checked as text only");
        return;
    };
    // Click the Name header (column 3) once: ascending by name; then dump the DOM.
    let clicked = html.replace(
        "</body>",
        "<script>document.querySelectorAll('#standings th')[2].click();</script></body>",
    );
    let sorted = dir.path().join("sorted.html");
    std::fs::write(&sorted, clicked).unwrap();
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            &format!("--user-data-dir={}", dir.path().join("profile").display()),
            "--dump-dom",
        ])
        .arg(format!("file://{}", sorted.display()))
        .output()
        .expect("chromium runs");
    let dom = String::from_utf8_lossy(&out.stdout);
    let standings = &dom[dom.find("id=\"standings\"").expect("the table rendered")..];
    let names: Vec<&str> = standings
        .split("<tr>")
        .skip(2)
        .take(7)
        .map(|row| row.split("<td>").nth(1).unwrap().split('<').next().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "Alpha, Anna",
            "Bravo, Boris",
            "Charlie, Carl",
            "Delta, Dora",
            "Echo, Emil",
            "Foxtrot, Fay",
            "Golf, Gert"
        ]
    );
    // The rank column no longer leads in rank order (3 before 6 … by name, Foxtrot is 4th).
    assert!(
        standings.contains("data-dir=\"asc\""),
        "the header records the order"
    );
}

/// The corpus' TWIC and pgnmentor files imported into one database.
fn corpus_db(corpus: &Path, dir: &Path) -> PathBuf {
    let db = dir.join("events.sqlite");
    let mut files: Vec<PathBuf> = Vec::new();
    for sub in ["games/twic", "games/otb-pgnmentor"] {
        for e in std::fs::read_dir(corpus.join(sub)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "pgn") {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut args: Vec<String> = vec!["import".into(), "--db".into(), db.display().to_string()];
    args.push("--quiet".into());
    args.extend(files.iter().map(|f| f.display().to_string()));
    let out = Command::new(BIN).args(&args).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    db
}

#[test]
fn every_corpus_event_builds_and_its_totals_agree_with_the_player_games_view() {
    let Some(corpus) = std::env::var_os("ARBITER_CORPUS").map(PathBuf::from) else {
        eprintln!("SKIPPED: set ARBITER_CORPUS to build the crosstables of the corpus events");
        return;
    };
    use arbiter::stats::tournament::{event, standings, tiebreaks};
    let dir = tempfile::tempdir().unwrap();
    let db = corpus_db(&corpus, dir.path());
    let conn = Connection::open(&db).unwrap();
    let events = event::load_all(&conn).unwrap();
    assert!(events.len() > 1000, "{} events", events.len());
    // Finished games per event and year, with two distinct named persons (what a crosstable
    // can hold), duplicates once.
    let mut finished: HashMap<(i64, Option<i64>), i64> = HashMap::new();
    let mut stmt = conn
        .prepare(
            "SELECT g.event_id, g.year, count(*) FROM games g \
             JOIN player_names w ON w.id = g.white_id JOIN player_names b ON b.id = g.black_id \
             WHERE g.event_id IS NOT NULL AND w.person_id <> b.person_id \
             AND COALESCE(g.lawful_result, g.result) IN ('1-0', '0-1', '1/2-1/2') \
             AND NOT EXISTS (SELECT 1 FROM duplicate_members d WHERE d.game_id = g.id AND d.survivor = 0) \
             GROUP BY g.event_id, g.year",
        )
        .unwrap();
    for row in stmt
        .query_map([], |r| Ok(((r.get(0)?, r.get(1)?), r.get(2)?)))
        .unwrap()
    {
        let (k, v) = row.unwrap();
        finished.insert(k, v);
    }
    // Each person's score per event and year in the view `stats player` reads, on the same
    // games.
    let mut totals: HashMap<(i64, Option<i64>, String), f64> = HashMap::new();
    let mut stmt = conn
        .prepare(
            "SELECT v.event_id, v.year, p.name, sum(v.score) FROM player_games v \
             JOIN players p ON p.id = v.player_id \
             WHERE v.duplicate = 0 AND v.score IS NOT NULL AND v.event_id IS NOT NULL \
             AND v.opponent_id IS NOT NULL AND v.opponent_id <> v.player_id \
             GROUP BY v.event_id, v.year, v.player_id",
        )
        .unwrap();
    for row in stmt
        .query_map([], |r| {
            Ok((
                (r.get(0)?, r.get(1)?, r.get::<_, String>(2)?),
                r.get::<_, f64>(3)?,
            ))
        })
        .unwrap()
    {
        let (k, v) = row.unwrap();
        *totals.entry(k).or_default() += v;
    }
    let mut players = 0;
    for b in &events {
        let (c, t, left) = (&b.event, &b.tournament, &b.left);
        let kind = t.kind();
        let specs =
            tiebreaks::registry::default_list(kind == arbiter::stats::tournament::Kind::RoundRobin);
        let s = standings::compute(t, &specs, tiebreaks::Rules::R2026, kind, Some(1400));
        let sum: u32 = s.rows.iter().map(|r| r.points.0).sum();
        let games = finished.get(&(c.id, c.year)).copied().unwrap_or(0);
        // A play-off numbered apart (Tata Steel 2021's three games) is no part of the table.
        let games = games - left.other_stage as i64;
        assert_eq!(f64::from(sum) / 2.0, games as f64, "event {c}");
        // Two persons of the same name in one event would share a key: only unique names.
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for p in &t.players {
            *seen.entry(p.name.as_str()).or_default() += 1;
        }
        for p in &t.players {
            if seen[p.name.as_str()] > 1 || left.other_stage > 0 {
                continue;
            }
            let expected = totals
                .get(&(c.id, c.year, p.name.clone()))
                .copied()
                .unwrap_or(0.0);
            assert_eq!(p.points().as_f64(), expected, "{} in {c}", p.name);
            players += 1;
        }
        let _ = arbiter::stats::tournament::crosstable::render(t, &s);
    }
    eprintln!("{} events, {players} player totals checked", events.len());
}

#[test]
fn stats_player_lists_the_events_with_score_tpr_and_place() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("rr5.sqlite");
    import(&fixture("rr5.pgn"), &db);
    let text = stdout(&arbiter(&[
        "stats",
        "player",
        "Two, Tom",
        "--db",
        db.to_str().unwrap(),
    ]));
    // Two, Tom: 3 of 4 (the crosstable's 3.0), TPR as in the TRF fixture's standings (2381),
    // second on SB behind One, Olga.
    assert!(
        text.contains("Round robin of five with a forfeit")
            && text.contains("3.0 / 4   TPR  2381  place 2 of 5"),
        "{text}"
    );
    let json: serde_json::Value = serde_json::from_str(&stdout(&arbiter(&[
        "stats",
        "player",
        "Two, Tom",
        "--db",
        db.to_str().unwrap(),
        "--format",
        "json",
    ])))
    .unwrap();
    let e = &json["events"][0];
    assert_eq!(
        (e["score"].as_f64(), e["tpr"].as_i64(), e["place"].as_i64()),
        (Some(3.0), Some(2381), Some(2))
    );
    assert_eq!(json["games"].as_i64(), Some(4));
}

/// Regression (83rd Tata Steel Masters 2021 in the master games: "Swiss, 14 players, 49
/// rounds"): an event tagged round.board (`13.1`) of which only some games are stored, with
/// a play-off numbered `1`, `2` on the last day, is the 5-round round robin of its six
/// players; the play-off is left out and said so.
#[test]
fn round_board_tags_with_a_play_off_are_a_round_robin() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.sqlite");
    import(&fixture("rr6_partial_playoff.pgn"), &db);
    let out = arbiter(&[
        "tournament",
        "--db",
        db.to_str().unwrap(),
        "--event",
        "Playoff Invitational",
        "--year",
        "2024",
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = stdout(&out);
    assert!(text.contains("round robin, 6 players, 5 rounds"), "{text}");
    assert!(
        stderr(&out).contains("left out: 2 games numbered apart"),
        "{}",
        stderr(&out)
    );
}

/// `testdata/tournaments/events.pgn`: a 12-player round robin with three games not stored
/// ("Twelve Player Invitational", 2014, titles, federations and FIDE ids in the tags), one
/// player's eight games from an open ("Moscow Open A 2013") and an event whose two games have
/// no result ("Aborted Rapid").
fn events_db(dir: &Path) -> PathBuf {
    let db = dir.join("events.sqlite");
    import(&fixture("events.pgn"), &db);
    db
}

fn event(db: &Path, name: &str, extra: &[&str]) -> Output {
    let mut args = vec!["tournament", "--db", db.to_str().unwrap(), "--event", name];
    args.extend_from_slice(extra);
    arbiter(&args)
}

#[test]
fn an_incomplete_event_says_how_many_games_which_rounds_and_who() {
    let dir = tempfile::tempdir().unwrap();
    let db = events_db(dir.path());
    let out = event(&db, "Twelve Player Invitational", &[]);
    assert!(stdout(&out).contains("round robin, 12 players, 11 rounds"));
    let err = stderr(&out);
    assert!(
        err.contains(
            "note: 63 of 66 games of a 12-player round robin are stored; rounds with missing \
             games are treated as absences\n  rounds with missing games: 2, 5, 11\n  players \
             lacking games: Star, Sam (10 of 11), Alpha, Ada (10 of 11), Charlie, Cy (10 of 11)"
        ),
        "{err}"
    );
    // The HTML page says it too.
    let page = dir.path().join("t.html");
    stdout(&event(
        &db,
        "Twelve Player Invitational",
        &["--html", page.to_str().unwrap()],
    ));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("<p class=\"note\">note: 63 of 66 games"),
        "{html}"
    );
    // --all-events: the games a complete event has, the rounds and players short, and the
    // one player of a star.
    let csv = stdout(&arbiter(&[
        "tournament",
        "--db",
        db.to_str().unwrap(),
        "--all-events",
        "--format",
        "csv",
        "-q",
    ]));
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some(
            "event,site,year,type,players,rounds,games,points,expected,rounds_short,\
             players_short,only_player"
        )
    );
    let rows: Vec<&str> = lines.collect();
    assert!(
        rows.contains(
            &"Twelve Player Invitational,Utrecht NED,2014,round robin,12,11,63,63.0,66,3,6,"
        ),
        "{csv}"
    );
    assert!(
        rows.contains(&"Moscow Open A 2013,Moscow RUS,2013,Swiss,9,8,8,8.0,32,8,8,\"Star, Sam\""),
        "{csv}"
    );
}

/// Regression (Moscow Open A 2013 in a player's file: "round robin, 9 players, 9 rounds",
/// the file's owner first): one player's games against eight opponents are a star, shown as
/// his part of an event.
#[test]
fn one_players_games_from_an_open_are_not_a_round_robin() {
    let dir = tempfile::tempdir().unwrap();
    let db = events_db(dir.path());
    let out = event(&db, "Moscow Open A 2013", &[]);
    let text = stdout(&out);
    assert!(text.contains("Swiss, 9 players, 8 rounds"), "{text}");
    assert!(
        stderr(&out).contains(
            "note: only one player's games are stored: all 8 games are Star, Sam's; this is \
             that player's part of an event, not its standings"
        ),
        "{}",
        stderr(&out)
    );
}

#[test]
fn an_event_without_a_finished_game_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = events_db(dir.path());
    let out = event(&db, "Aborted Rapid", &[]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(out.stdout.is_empty());
    assert!(
        stderr(&out).contains(
            "'Aborted Rapid' at 'Nowhere', 2000: 2 games, and not one of them finished between \
             two named players (2 without a result)"
        ),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_html_crosstable_shows_start_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("t.html");
    stdout(&arbiter(&[
        "tournament",
        "--trf",
        &fixture("swiss7.trf"),
        "--html",
        page.to_str().unwrap(),
    ]));
    let html = std::fs::read_to_string(&page).unwrap();
    let cross = &html[html.find("id=\"crosstable\"").unwrap()..];
    assert!(
        cross.contains("<th>Rank</th><th>SNo</th><th>Name</th><th>R1</th>"),
        "{cross}"
    );
    // Rank 1 is start number 1, Alpha; her round 1 opponent is start number 4.
    assert!(
        cross.contains(
            "<tr><td class=\"n\">1</td><td class=\"n\">1</td><td>Alpha, Anna</td><td class=\"n\">4w1</td>"
        ),
        "{cross}"
    );
}

#[test]
fn round_robin_headers_stay_readable_past_nine_players() {
    let dir = tempfile::tempdir().unwrap();
    let db = events_db(dir.path());
    let text = stdout(&event(&db, "Twelve Player Invitational", &[]));
    let header = text.lines().find(|l| l.contains("Name")).unwrap();
    assert!(
        header.contains(" 1  2  3  4  5  6  7  8  9 10 11 12   Pts"),
        "{header}"
    );
    let row = text.lines().find(|l| l.contains("Hotel, Hal")).unwrap();
    assert!(
        row.contains(" *  1  1  1  =  0  =  =  1  =  1  =   7.5"),
        "{row}"
    );
}

#[test]
fn titles_federations_and_fide_ids_are_shown_and_written_to_the_trf() {
    let dir = tempfile::tempdir().unwrap();
    let db = events_db(dir.path());
    let trf = dir.path().join("out.trf");
    let page = dir.path().join("t.html");
    let text = stdout(&event(
        &db,
        "Twelve Player Invitational",
        &[
            "--trf-out",
            trf.to_str().unwrap(),
            "--html",
            page.to_str().unwrap(),
        ],
    ));
    let header = text.lines().find(|l| l.contains("Name")).unwrap();
    assert!(
        header.starts_with(" Rk  SNo Ti  Name         Fed  Rtg   FIDE id"),
        "{header}"
    );
    let star = text.lines().find(|l| l.contains("Star, Sam")).unwrap();
    assert!(
        star.starts_with("  9    1 GM  Star, Sam    NED 2600   1000001"),
        "{star}"
    );
    // TRF-16: title in columns 11-13, federation 54-56, FIDE id 58-68.
    let written = std::fs::read_to_string(&trf).unwrap();
    let line: Vec<char> = written
        .lines()
        .find(|l| l.contains("Star, Sam"))
        .unwrap()
        .chars()
        .collect();
    let cols = |a: usize, b: usize| line[a - 1..b].iter().collect::<String>();
    assert_eq!(
        (cols(11, 13), cols(54, 56), cols(58, 68)),
        (" GM".to_owned(), "NED".to_owned(), "    1000001".to_owned())
    );
    // Read back, the TRF shows them as the tags did.
    let again = stdout(&arbiter(&["tournament", "--trf", trf.to_str().unwrap()]));
    assert!(
        again.contains("GM  Star, Sam    NED 2600   1000001"),
        "{again}"
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("<th>Name</th><th>Title</th><th>Fed</th><th>FIDE ID</th><th>Rating</th>")
            && html.contains("<td>Star, Sam</td><td>GM</td><td>NED</td><td>1000001</td>"),
        "{html}"
    );
}

#[test]
fn event_names_resolve_by_one_rule() {
    let dir = tempfile::tempdir().unwrap();
    let db = events_db(dir.path());
    // Case and runs of spaces do not matter.
    let out = event(&db, "  twelve  PLAYER invitational", &["-q"]);
    assert!(stdout(&out).contains("Twelve Player Invitational"));
    // A part of one name is that name.
    assert!(stdout(&event(&db, "moscow", &["-q"])).contains("Moscow Open A 2013"));
    // A part of several names lists them with their years and games.
    let out = event(&db, "a", &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("'a' is part of 3 event names; give one of them in full:")
            && err.contains("'Moscow Open A 2013' (2013, 8 games)")
            && err.contains("'Twelve Player Invitational' (2014, 63 games)")
            && err.contains("'Aborted Rapid' (2000, 2 games)"),
        "{err}"
    );
}

/// Regression (defects 7 and 9 of the 2026-11-29 new-user review): `stats player` listed the
/// events of every game whatever the selection, and its HTML page had no events.
#[test]
fn the_dossiers_events_follow_the_selection_and_reach_the_html() {
    let dir = tempfile::tempdir().unwrap();
    let db = events_db(dir.path());
    let page = dir.path().join("star.html");
    let player = |extra: &[&str]| {
        let mut args = vec!["stats", "player", "Star, Sam", "--db", db.to_str().unwrap()];
        args.extend_from_slice(extra);
        stdout(&arbiter(&args))
    };
    let all = player(&[]);
    assert!(
        all.contains("Twelve Player Invitational") && all.contains("Moscow Open A 2013"),
        "{all}"
    );
    // The star gives no place; the round robin, 63 of its 66 games stored, does.
    assert!(all.contains("4.5 / 8   TPR"), "{all}");
    let text = player(&["--date-from", "2014", "--html", page.to_str().unwrap()]);
    let events = &text[text.find("\nevents (").expect("an events section")..];
    assert!(
        events.contains("Twelve Player Invitational") && !events.contains("Moscow"),
        "{text}"
    );
    assert!(events.contains("place 9 of 12"), "{events}");
    let html = std::fs::read_to_string(&page).unwrap();
    let section = &html[html.find("<h2>Events</h2>").expect("an events section")..];
    assert!(
        section.contains("<td>Twelve Player Invitational</td><td>Utrecht NED</td>")
            && !section.contains("Moscow"),
        "{section}"
    );
}
