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

/// Defect 8, item 4: one stray game by `Carlsen,H` beside Carlsen,M's made `--player Carlsen`
/// ambiguous. A person holding 95 % of the games (and 20 or more) is the one meant; the others
/// are named on stderr. Short of that share, the name stays a usage error listing them.
#[test]
fn a_lone_stray_spelling_does_not_block_a_surname() {
    let dir = tempfile::tempdir().unwrap();
    let mut pgn: String = (1..=20)
        .map(|i| {
            game(
                "Carlsen,M",
                "Caruana,F",
                "1-0",
                &format!("2020.01.{i:02}"),
                "",
            )
        })
        .collect();
    pgn.push_str(&game("Carlsen,H", "Carlsen,M", "0-1", "2007.08.09", ""));
    let file = dir.path().join("c.pgn");
    std::fs::write(&file, pgn).unwrap();
    let db = dir.path().join("c.sqlite");
    ok(&["import", "-q", "--db", s(&db), s(&file)]);
    let (games, err) = player_games(&db, "Carlsen");
    assert_eq!(games, 21);
    assert!(
        err.contains("note: \"Carlsen\" is #")
            && err.contains("Carlsen,M (21 games), 95 % or more of the games of the persons with that surname; also matched: #")
            && err.contains("Carlsen,H (1 game) (name one as #ID)"),
        "{err}"
    );
    // `stats player` resolves the same way.
    let out = ok(&["stats", "player", "--db", s(&db), "Carlsen"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("also matched: #"));
    // The stray one is still there by its own spelling.
    assert_eq!(player_games(&db, "Carlsen,H"), (1, String::new()));
    // 20 games of Caruana,F against one of Caruana,Fa would be 95 %: 20 of 21 games is, 20 of
    // 22 is not.
    let pgn = [
        game("Caruana,Fa", "Smith,J", "1-0", "2021.01.01", ""),
        game("Caruana,Fa", "Smith,J", "1-0", "2021.01.02", ""),
    ]
    .concat();
    let more = dir.path().join("more.pgn");
    std::fs::write(&more, pgn).unwrap();
    ok(&["import", "-q", "--db", s(&db), s(&more)]);
    let out = arbiter(&["export", "--db", s(&db), "--player", "Caruana"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("\"Caruana\" names 2 persons (with that surname); give one as #ID:"),
        "{err}"
    );
    assert!(
        err.contains("(none holds the 95 % of their games, and 20 or more"),
        "{err}"
    );
}

/// How many games `export --player NAME` selects, and what it said on stderr.
fn player_games(db: &Path, name: &str) -> (usize, String) {
    let out = ok(&[
        "export",
        "--db",
        s(db),
        "--player",
        name,
        "--format",
        "csv",
        "--columns",
        "id",
    ]);
    (
        String::from_utf8_lossy(&out.stdout).lines().count() - 1,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The stored games whose White or Black is written with this surname (a pair side left out),
/// and the ones of the person `--player SURNAME` selects.
fn surname_games(db: &Path, surname: &str) -> (usize, usize) {
    let conn = rusqlite::Connection::open(db).unwrap();
    let all: i64 = conn
        .query_row(
            "SELECT count(*) FROM games g WHERE EXISTS (SELECT 1 FROM player_names n \
             WHERE n.id IN (g.white_id, g.black_id) AND n.name LIKE ?1 || '%' \
             AND n.name NOT GLOB '*[:/&+]*')",
            [surname],
            |r| r.get(0),
        )
        .unwrap();
    (all as usize, player_games(db, surname).0)
}

/// Defect 8 on the pgnmentor player files (22 of them): the suggestions join no pair or
/// consultation side to a member, propose the spellings of one career (`Kramnik, Vladimir`
/// until 1999, `Kramnik,V` from 2000), keep apart namesakes the evidence tells apart, and
/// after the README's alias step each player's surname is one person with 95 % of the games
/// written with it or more. (Transliterations are not proposed: `Kortschnoj, Viktor` stays
/// apart from `Korchnoi,V`.)
#[test]
fn the_alias_step_makes_each_player_file_one_person() {
    let Some(corpus) = crate::common::corpus() else {
        return;
    };
    let files: Vec<PathBuf> = {
        let mut v: Vec<PathBuf> = std::fs::read_dir(corpus.join("games/otb-pgnmentor"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "pgn"))
            .collect();
        v.sort();
        v
    };
    assert!(files.len() >= 20, "{files:?}");
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("m.sqlite");
    let mut args = vec!["import", "-q", "--db", s(&db)];
    args.extend(files.iter().map(|f| s(f)));
    ok(&args);
    // Before: Kramnik,V and Kramnik, Vladimir are two persons with a third of the games each.
    assert_eq!(
        arbiter(&["export", "--db", s(&db), "--player", "Kramnik"])
            .status
            .code(),
        Some(2)
    );
    let suggested = stdout(&["players", "--db", s(&db), "--suggest"]);
    let lines: Vec<(&str, &str)> = suggested
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .filter_map(|l| l.split_once('\t'))
        .collect();
    let pairs: Vec<&(&str, &str)> = lines
        .iter()
        .filter(|(c, v)| c.contains([':', '/', '&']) || v.contains([':', '/', '&']))
        .collect();
    assert!(pairs.is_empty(), "pair names suggested: {pairs:?}");
    for line in [
        ("Kramnik,V", "Kramnik, Vladimir"),
        ("Carlsen,M", "Carlsen,Magnus"),
        ("Anand,V", "Anand, Viswanathan"),
        ("Aronian,L", "Aronian, Levon"),
        ("Karpov, Anatoly", "Karpov,An"),
        ("Karpov, Anatoly", "Karpov,Ana"),
        ("Kasparov, Gary", "Kasparov,G"),
        ("Giri,A", "Giri, Anish"),
        ("Korchnoi,V", "Korchnoi, Viktor"),
        ("Ding Liren", "Ding,L"),
    ] {
        assert!(
            lines.contains(&line),
            "{line:?} not suggested:\n{suggested}"
        );
    }
    // Namesakes: a game between them, another event on the same day, opponents rated
    // 900 points apart in the same year.
    assert!(
        lines.iter().all(|(_, v)| *v != "Carlsen,H"),
        "Carlsen,H suggested"
    );
    for stray in ["Giri,Abhishek", "Aronian,Laurel", "Kasparov,Georgy"] {
        assert!(lines.iter().all(|(_, v)| *v != stray), "{stray} suggested");
        assert!(
            suggested.lines().any(|l| l.starts_with("# persons")
                && l.contains(&format!("/ {stray:?})"))
                && l.ends_with("not suggested")),
            "{stray} not listed as kept apart:\n{suggested}"
        );
    }
    let file = dir.path().join("aliases.tsv");
    std::fs::write(&file, &suggested).unwrap();
    ok(&["players", "--db", s(&db), "--apply-aliases", s(&file)]);
    for player in [
        "Alekhine",
        "Anand",
        "Anderssen",
        "Aronian",
        "Botvinnik",
        "Bronstein",
        "Capablanca",
        "Carlsen",
        "Caruana",
        "Chigorin",
        "Ding",
        "Euwe",
        "Firouzja",
        "Fischer",
        "Giri",
        "Karpov",
        "Kasparov",
        "Keres",
        "Korchnoi",
        "Kramnik",
        "Lasker",
        "Morphy",
    ] {
        let (all, selected) = surname_games(&db, player);
        assert!(
            selected * 20 >= all * 19 && all > 100,
            "--player {player}: {selected} of the {all} games written with that surname"
        );
    }
}

/// Defect 8, item 5: `Carlsen,M` with a FIDE id on some games (TWIC's) and without on the
/// others (pgnmentor's) was two persons, and `--player 'Carlsen,M'` named both.
#[test]
fn a_spelling_split_by_a_fide_id_is_suggested_as_one_person() {
    let Some(corpus) = crate::common::corpus() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.sqlite");
    let twic = corpus.join("games/twic/twic944.pgn");
    let carlsen = corpus.join("games/otb-pgnmentor/Carlsen.pgn");
    ok(&["import", "-q", "--db", s(&db), s(&twic), s(&carlsen)]);
    let listed = stdout(&["players", "--db", s(&db), "--name", "Carlsen,M"]);
    assert!(
        listed.contains("fide:1503014") && listed.contains("name:carlsen, m"),
        "{listed}"
    );
    let (before, err) = player_games(&db, "Carlsen,M");
    assert!(
        err.contains("of the persons spelled so; also matched: #"),
        "{err}"
    );
    let suggested = stdout(&["players", "--db", s(&db), "--suggest"]);
    assert!(
        suggested.contains("\nCarlsen,M\tCarlsen,M\n"),
        "{suggested}"
    );
    let file = dir.path().join("aliases.tsv");
    std::fs::write(&file, &suggested).unwrap();
    ok(&["players", "--db", s(&db), "--apply-aliases", s(&file)]);
    let (after, err) = player_games(&db, "Carlsen,M");
    assert!(err.is_empty(), "{err}");
    let conn = rusqlite::Connection::open(&db).unwrap();
    let (persons, spelled): (i64, i64) = conn
        .query_row(
            "SELECT (SELECT count(DISTINCT person_id) FROM player_names WHERE name = 'Carlsen,M'), \
             (SELECT count(*) FROM games g JOIN player_names w ON w.id = g.white_id \
             JOIN player_names b ON b.id = g.black_id \
             WHERE w.name = 'Carlsen,M' OR b.name = 'Carlsen,M')",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(persons, 1);
    assert!(after > before, "{after} {before}");
    assert!(after as i64 >= spelled, "{after} {spelled}");
}

/// The list is a table like every other (aligned text, CSV, JSON lines), one row per
/// spelling with its person; a name no spelling contains is a usage error naming the closest.
#[test]
fn the_list_is_a_table_and_a_name_matching_nobody_names_the_closest() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let db = s(&db);
    let csv = stdout(&[
        "players", "--db", db, "--name", "caruana", "--format", "csv",
    ]);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0], "person,name,key,person_games,spelling,fide_id,games",
        "{csv}"
    );
    assert_eq!(lines.len(), 2, "{csv}");
    assert!(
        lines[1].ends_with(",Caruana Fabiano,name:caruana fabiano,3,\"Caruana, Fabiano\",,3")
            || lines[1].contains(",3,\"Caruana, Fabiano\",,3"),
        "{csv}"
    );
    let text = stdout(&["players", "--db", db, "--name", "Adams"]);
    let head = text.lines().next().unwrap();
    assert!(
        head.contains("person") && head.contains("spelling") && head.contains("games"),
        "{text}"
    );
    assert!(
        text.contains("Adams,Mi") && text.contains("Adams, Michael"),
        "{text}"
    );
    let out = arbiter(&["players", "--db", db, "--name", "Carlsem"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("no stored spelling contains \"Carlsem\"; the closest: Carlsen"),
        "{err}"
    );
}
