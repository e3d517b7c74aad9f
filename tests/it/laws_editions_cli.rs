//! The 1993 edition through the real binary (issue 19, defect 14): the text arbiter called
//! `1997` took effect on 1 January 1993, so a 1995 game is judged under it; `--laws 1997`
//! is still accepted; a database that stores `1997` for it still filters and exports.

use crate::common::cli;

use cli::{ok as arbiter, s};
use rusqlite::Connection;
use std::path::Path;

/// Two games of June 1995, each judged differently under the 1980 and 1993 texts.
const GAMES_1995: &str = r#"[Event "Flag"]
[Date "1995.06.15"]
[Site "Here"]
[Round "1"]
[White "A"]
[Black "B"]
[Result "0-1"]
[Termination "time forfeit"]
[SetUp "1"]
[FEN "4k3/8/8/8/8/8/8/R3K3 b - - 0 1"]

1... Kd7 0-1

[Event "Bishop"]
[Date "1995.06.15"]
[Site "Here"]
[Round "2"]
[White "A"]
[Black "B"]
[Result "1-0"]
[SetUp "1"]
[FEN "4k3/8/8/8/8/8/4r3/4KB2 w - - 0 1"]

1. Kxe2 1-0
"#;

/// Per round: lawful result, termination, edition stored.
fn verdicts(db: &Path) -> Vec<(String, Option<String>, Option<String>, String)> {
    let conn = Connection::open(db).unwrap();
    let mut st = conn
        .prepare("SELECT round, lawful_result, termination, laws_edition FROM games ORDER BY round")
        .unwrap();
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn import(dir: &Path, name: &str, laws: &str) -> std::path::PathBuf {
    let pgn = dir.join("1995.pgn");
    std::fs::write(&pgn, GAMES_1995).unwrap();
    let db = dir.join(name);
    arbiter(&["import", s(&pgn), "--db", s(&db), "--quiet", "--laws", laws]);
    db
}

#[test]
fn a_1995_game_is_judged_under_the_1993_text() {
    let dir = tempfile::tempdir().unwrap();
    let draw = |round: &str, term: Option<&str>| {
        (
            round.to_owned(),
            Some("1/2-1/2".to_owned()),
            term.map(str::to_owned),
            "1993".to_owned(),
        )
    };
    // 10.5/10.14: Black's bare king cannot win on time; 10.4: K+B v K ends the game.
    let want = vec![draw("1", None), draw("2", Some("dead-position"))];
    for laws in ["auto", "1993", "1997"] {
        let db = import(dir.path(), &format!("{laws}.sqlite"), laws);
        assert_eq!(verdicts(&db), want, "--laws {laws}");
    }
    // The 1980 Laws (17.1, no listed endings) let both recorded results stand.
    let db = import(dir.path(), "1980.sqlite", "1980");
    assert_eq!(
        verdicts(&db),
        vec![
            ("1".into(), Some("0-1".into()), None, "1980".into()),
            ("2".into(), None, None, "1980".into()),
        ]
    );
    // `check --findings` cites the 1993 Articles.
    let findings = dir.path().join("f.jsonl");
    arbiter(&[
        "check",
        s(&dir.path().join("1995.pgn")),
        "--quiet",
        "--findings",
        s(&findings),
    ]);
    let text = std::fs::read_to_string(&findings).unwrap();
    let codes: Vec<String> = text
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["code"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_eq!(
        codes,
        [
            "result.flag-unwinnable",
            "end.dead-position",
            "result.mismatch"
        ]
    );
}

#[test]
fn a_database_that_stores_1997_reads_as_1993() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path(), "old.sqlite", "auto");
    // What a database written before the rename holds.
    Connection::open(&db)
        .unwrap()
        .execute("UPDATE games SET laws_edition = '1997'", [])
        .unwrap();
    let csv = |laws: &str| {
        let args = ["export", "--db", s(&db), "--format", "csv", "--laws", laws];
        let out = arbiter(&[&args[..], &["--columns", "round,laws_edition"]].concat());
        String::from_utf8(out.stdout).unwrap()
    };
    for laws in ["1993", "1997"] {
        let want = "round,laws_edition\n1,1993\n2,1993\n";
        assert_eq!(csv(laws), want, "--laws {laws}");
    }
    assert_eq!(csv("1980"), "round,laws_edition\n");
    let out = arbiter(&["export", "--db", s(&db), "--format", "pgn", "--add-tags"]);
    let pgn = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        pgn.matches("[ArbiterLaws \"FIDE 1993\"]").count(),
        2,
        "{pgn}"
    );
    assert!(
        pgn.contains("dead-position (Art. 10.4, FIDE 1993)"),
        "{pgn}"
    );
}
