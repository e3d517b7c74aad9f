//! The reader's defects of issue 19, each through the real binary on a small file written
//! here: findings reported once and located, files with no game, the quarantine reading back
//! as exactly the rejected games, annotation symbols, and the cost caps of one game.

use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_arbiter");

fn arbiter(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("binary runs")
}

/// `check FILE --quiet --no-laws` with a JSON summary, a JSON-lines findings file and a
/// quarantine in `dir`; returns the output, the summary and the findings.
fn check(dir: &Path, file: &Path) -> (Output, serde_json::Value, Vec<serde_json::Value>) {
    let json = dir.join("summary.json");
    let findings = dir.join("findings.jsonl");
    let quarantine = dir.join("quarantine.pgn");
    let out = arbiter(&[
        "check",
        file.to_str().unwrap(),
        "--quiet",
        "--no-laws",
        "--jobs",
        "1",
        "--summary-json",
        json.to_str().unwrap(),
        "--findings",
        findings.to_str().unwrap(),
        "--quarantine",
        quarantine.to_str().unwrap(),
    ]);
    let summary = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let rows = std::fs::read_to_string(&findings)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (out, summary, rows)
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
