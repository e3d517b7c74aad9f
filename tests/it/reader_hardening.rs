//! The reader's defects of issue 19, each through the real binary on a small file written
//! here: findings reported once and located, files with no game, the quarantine reading back
//! as exactly the rejected games, annotation symbols, and the cost caps of one game.

use crate::common::cli;

use cli::arbiter;
use std::path::Path;
use std::process::Output;

/// `check FILE --quiet --no-laws --jobs 1` with a JSON summary, a JSON-lines findings file
/// and a quarantine in `dir`; returns the output, the summary and the findings.
fn check(dir: &Path, file: &Path) -> (Output, serde_json::Value, Vec<serde_json::Value>) {
    cli::check(dir, file, &["--no-laws", "--jobs", "1"])
}

fn rows_of<'a>(rows: &'a [serde_json::Value], code: &str) -> Vec<&'a serde_json::Value> {
    rows.iter().filter(|r| r["code"] == code).collect()
}

/// Issue 19, defect 1: a one-game file with a BOM and CR LF line ends showed `pgn.bom 2`,
/// `pgn.crlf 2`, and the CR LF finding said line 1, column 1 with byte 14.
#[test]
fn splitter_findings_are_reported_once_and_located_where_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bom-crlf.pgn");
    std::fs::write(
        &file,
        "\u{feff}[Event \"e\"]\r\n[Result \"1-0\"]\r\n\r\n1. e4 e5 1-0\r\n",
    )
    .unwrap();
    let (out, summary, rows) = check(dir.path(), &file);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(summary["games"], 1);
    assert_eq!(summary["findings"]["pgn.bom"], 1, "{summary}");
    assert_eq!(summary["findings"]["pgn.crlf"], 1, "{summary}");
    assert_eq!(rows_of(&rows, "pgn.bom").len(), 1);
    let crlf = rows_of(&rows, "pgn.crlf");
    assert_eq!(crlf.len(), 1);
    // The first CR: line 1 is `[Event "e"]` after the 3-byte BOM, so byte 14, column 12.
    assert_eq!(
        (&crlf[0]["line"], &crlf[0]["column"], &crlf[0]["byte"]),
        (&1.into(), &12.into(), &14.into()),
        "{:?}",
        crlf[0]
    );
    // Skipped text and a lone CR: once each too.
    let file = dir.path().join("garbage-cr.pgn");
    std::fs::write(&file, "junk before\r[Event \"e\"]\r\r1. e4 *\r").unwrap();
    let (_, summary, rows) = check(dir.path(), &file);
    assert_eq!(summary["findings"]["pgn.garbage-skipped"], 1, "{summary}");
    assert_eq!(summary["findings"]["pgn.cr-line-ends"], 1, "{summary}");
    let cr = rows_of(&rows, "pgn.cr-line-ends");
    assert_eq!((&cr[0]["column"], &cr[0]["byte"]), (&12.into(), &11.into()));
}

/// Issue 19, defect 6: a PNG, an empty file, plain text or an SQLite file exited 0 with 0
/// games, or flooded stderr with binary bytes.
#[test]
fn a_file_with_no_game_is_an_error_for_that_file() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &[u8], &str); 4] = [
        (
            "image.png",
            b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\x1b[2J\x07\0\xff",
            "a PNG image",
        ),
        ("empty.pgn", b"", "the file is empty"),
        (
            "notes.txt",
            b"Dear arbiter,\nthis is a letter.\n",
            "text, but no tag section or movetext",
        ),
        (
            "games.sqlite",
            b"SQLite format 3\0\x10\0\x01\x01\0@  \0\0\0\x02",
            "an SQLite database",
        ),
    ];
    for (name, bytes, what) in cases {
        let file = dir.path().join(name);
        std::fs::write(&file, bytes).unwrap();
        for command in ["check", "import"] {
            let db = dir.path().join(format!("{name}.sqlite"));
            let mut args = vec![command, file.to_str().unwrap(), "--quiet"];
            if command == "import" {
                args.extend(["--db", db.to_str().unwrap()]);
            }
            let out = arbiter(&args);
            let stderr = String::from_utf8(out.stderr.clone()).expect("stderr is text");
            assert_eq!(out.status.code(), Some(1), "{command} {name}: {out:?}");
            let expected = format!("arbiter: {}: no PGN game found ({what})\n", file.display());
            assert_eq!(stderr, expected, "{command} {name}");
            assert!(!stderr.chars().any(|c| c.is_control() && c != '\n'));
        }
    }
}

/// Checks `file`, then checks its quarantine: the quarantine must hold exactly the rejected
/// games, each verbatim. Returns (games, rejected) of the first check.
fn quarantine_round_trip(dir: &Path, file: &Path) -> (u64, u64) {
    let (_, first, _) = check(dir, file);
    let again = dir.join("again.pgn");
    std::fs::copy(dir.join("quarantine.pgn"), &again).unwrap();
    let (games, rejected) = (
        first["games"].as_u64().unwrap(),
        first["rejected"].as_u64().unwrap(),
    );
    assert_eq!(games, first["accepted"].as_u64().unwrap() + rejected);
    let (out, second, _) = check(dir, &again);
    if rejected == 0 {
        assert_eq!(
            out.status.code(),
            Some(1),
            "an empty quarantine has no game"
        );
    } else {
        assert_eq!(
            second["games"].as_u64(),
            Some(rejected),
            "{first} then {second}"
        );
        assert_eq!(
            second["rejected"].as_u64(),
            Some(rejected),
            "{first} then {second}"
        );
    }
    (games, rejected)
}

/// Issue 19, defect 4: a rejected game with no termination marker followed by a rejected
/// movetext-only game became one game when the quarantine was checked again.
#[test]
fn the_quarantine_reads_back_as_exactly_the_rejected_games() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("q.pgn");
    std::fs::write(
        &file,
        "[Event \"a\"]\n\n1. e4 Zq9 2. Nf3\n\n\
         [Event \"b\"]\n\n1. e4 e5 *\n\n\
         1. d4 Ke7 *\n\n\
         [Event \"c\"]\n\n1. e4 {never closed\n",
    )
    .unwrap();
    let (games, rejected) = quarantine_round_trip(dir.path(), &file);
    assert_eq!((games, rejected), (4, 3));
    let q = std::fs::read_to_string(dir.path().join("quarantine.pgn")).unwrap();
    let sep = "% arbiter: end of game";
    assert_eq!(
        q,
        format!(
            "[Event \"a\"]\n\n1. e4 Zq9 2. Nf3\n\n{sep}\n\n1. d4 Ke7 *\n\n{sep}\n\n\
             [Event \"c\"]\n\n1. e4 {{never closed\n\n{sep}\n\n"
        )
    );
}

/// Issue 19, defect 2: a game over the reader's caps is rejected with one located finding
/// and goes to the quarantine whole, and the quarantine reads back as that one game.
#[test]
fn a_game_over_the_reader_caps_is_rejected_and_quarantined_whole() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("deep.pgn");
    let text = format!(
        "[Event \"deep\"]\n\n1. e4 {}\n\n[Event \"fine\"]\n\n1. d4 d5 *\n",
        "(1. d4 ".repeat(20_000)
    );
    std::fs::write(&file, &text).unwrap();
    let (out, summary, rows) = check(dir.path(), &file);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        (&summary["games"], &summary["accepted"]),
        (&2.into(), &1.into())
    );
    let capped = rows_of(&rows, "pgn.game-too-complex");
    assert_eq!(capped.len(), 1);
    assert_eq!(capped[0]["byte"], 16 + 6 + 7 * 128, "{:?}", capped[0]);
    let q = std::fs::read_to_string(dir.path().join("quarantine.pgn")).unwrap();
    let first = &text[..text.find("[Event \"fine\"]").unwrap()];
    assert_eq!(q, format!("{first}% arbiter: end of game\n\n"));
    assert_eq!(quarantine_round_trip(dir.path(), &file), (2, 1));
}
