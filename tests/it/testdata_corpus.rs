//! The small hand-written corpus in `testdata/corpus/`, so that `cargo test` without
//! `ARBITER_CORPUS` still judges real games end to end: every ending the Laws know, claims,
//! a result that contradicts the board, a flag-fall against a bare king, Chess960, the 1993
//! edition, annotations, and rejected games. Each game's verdict and findings are asserted
//! exactly, through the library (the pipeline's per-game work) and through the binary
//! (`check` with its summary, findings and quarantine; `import` and the database).

use crate::common::cli;
use arbiter::chess::SanMode;
use arbiter::laws::{LawsChoice, VerdictOptions};
use arbiter::pgn::split_bytes;
use arbiter::pipeline::{Keep, WorkOptions, work::process};

use cli::{arbiter, s};
use rusqlite::Connection;
use std::path::{Path, PathBuf};
use std::process::Output;

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/corpus")
        .join(name)
}

type Expected = (bool, &'static [(&'static str, Option<u32>)]);

/// One game as the test compares it: rejected?, then each finding's code and ply.
type Verdict = (bool, Vec<(String, Option<u32>)>);

/// endings.pgn, game by game: rejected?, then every finding's code and ply, in order.
const ENDINGS: [Expected; 8] = [
    // 3. Qxe5#: the fifth half-move mates.
    (false, &[("end.checkmate", Some(5))]),
    // Loyd's ten-move stalemate: 10. Qe6 is the 19th half-move.
    (false, &[("end.stalemate", Some(19))]),
    // The placement after 2...d5 comes back at plies 8 and 12, but at ply 4 en passant was
    // possible: not the same position (Art. 9.2.2). The first claim is White's at ply 12,
    // writing 7. Nf3, whose position (after 3. Nf3, 5. Nf3) would then stand a third time.
    (false, &[("claim.threefold", Some(12))]),
    // The FEN's clock is 96: after 81. Ra3 it is 99, and Black may claim by writing 81...Ke6.
    (false, &[("claim.fifty", Some(3))]),
    // Fool's mate recorded as a draw.
    (
        false,
        &[("end.checkmate", Some(4)), ("result.mismatch", Some(4))],
    ),
    // Black wins on time with a bare king (2017 Art. 6.9): a draw.
    (false, &[("result.flag-unwinnable", Some(1))]),
    // Chess960, both sides castle short: nothing to report.
    (false, &[]),
    // 1995: the 1993 text, K+B v K ends the game at once (10.4).
    (
        false,
        &[("end.dead-position", Some(1)), ("result.mismatch", Some(1))],
    ),
];

/// annotated.pgn: a game with comments, nested variations, NAGs and Informant symbols, then
/// an illegal king move and an unreadable token.
const ANNOTATED: [Expected; 3] = [
    (
        false,
        &[
            ("pgn.annotation-symbol", None),
            ("pgn.annotation-symbol", None),
        ],
    ),
    (true, &[("move.illegal", Some(3))]),
    (true, &[("pgn.unreadable-token", Some(4))]),
];

/// The pipeline's per-game work (as `check` does it, Laws by date) on one file.
fn library_verdicts(file: &Path) -> Vec<Verdict> {
    let bytes = std::fs::read(file).unwrap();
    let options = WorkOptions {
        mode: SanMode::Lenient,
        laws: Some(VerdictOptions {
            laws: LawsChoice::Auto,
            budget: Default::default(),
        }),
        analysis: None,
    };
    let (raws, trailing) = split_bytes(&bytes);
    assert!(trailing.is_empty(), "{trailing:?}");
    raws.into_iter()
        .map(|raw| {
            let p = process(raw, &options, Keep::Findings);
            let codes = p
                .findings
                .iter()
                .map(|f| (f.code.to_owned(), f.ply))
                .collect();
            (p.rejected, codes)
        })
        .collect()
}

fn owned(expected: &[Expected]) -> Vec<Verdict> {
    expected
        .iter()
        .map(|(rejected, codes)| {
            let codes = codes.iter().map(|(c, p)| ((*c).to_owned(), *p)).collect();
            (*rejected, codes)
        })
        .collect()
}

#[test]
fn the_library_judges_each_corpus_game_exactly() {
    assert_eq!(library_verdicts(&corpus("endings.pgn")), owned(&ENDINGS));
    assert_eq!(
        library_verdicts(&corpus("annotated.pgn")),
        owned(&ANNOTATED)
    );
}

/// `check` with a summary, the findings as JSON lines and a quarantine; then the quarantine
/// is checked again and must hold exactly the rejected games.
fn check(dir: &Path, file: &Path) -> (Output, serde_json::Value, Vec<serde_json::Value>) {
    cli::check(dir, file, &[])
}

#[test]
fn check_counts_and_reports_the_corpus_exactly() {
    let dir = tempfile::tempdir().unwrap();
    for (name, expected, status) in [
        ("endings.pgn", &ENDINGS[..], 0),
        ("annotated.pgn", &ANNOTATED[..], 1),
    ] {
        let (out, summary, rows) = check(dir.path(), &corpus(name));
        assert_eq!(out.status.code(), Some(status), "{name}");
        let rejected = expected.iter().filter(|(r, _)| *r).count() as u64;
        assert_eq!(summary["games"], expected.len() as u64, "{name}");
        assert_eq!(summary["rejected"], rejected, "{name}");
        assert_eq!(summary["accepted"], expected.len() as u64 - rejected);
        // Every finding once, with its game number and ply, in file order.
        let got: Vec<(u64, String, Option<u64>)> = rows
            .iter()
            .map(|r| {
                (
                    r["game"].as_u64().unwrap(),
                    r["code"].as_str().unwrap().to_owned(),
                    r["ply"].as_u64(),
                )
            })
            .collect();
        let want: Vec<(u64, String, Option<u64>)> = expected
            .iter()
            .enumerate()
            .flat_map(|(i, (_, codes))| {
                codes
                    .iter()
                    .map(move |(c, p)| (i as u64 + 1, (*c).to_owned(), p.map(u64::from)))
            })
            .collect();
        assert_eq!(got, want, "{name}");
        // The quarantine reads back as exactly the rejected games.
        let again = dir.path().join("again.pgn");
        std::fs::copy(dir.path().join("quarantine.pgn"), &again).unwrap();
        if rejected > 0 {
            let (_, second, _) = check(dir.path(), &again);
            assert_eq!(second["games"], rejected, "{name}");
            assert_eq!(second["rejected"], rejected, "{name}");
        } else {
            assert_eq!(std::fs::read(&again).unwrap(), b"");
        }
    }
}

#[test]
fn import_stores_each_verdict_of_the_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.sqlite");
    let out = arbiter(&[
        "import",
        s(&corpus("endings.pgn")),
        "--db",
        s(&db),
        "--quiet",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let conn = Connection::open(&db).unwrap();
    let mut st = conn
        .prepare(
            "SELECT round, result, lawful_result, termination, termination_ply, threefold_ply, \
             fifty_ply, laws_edition, variant FROM games ORDER BY CAST(round AS INTEGER)",
        )
        .unwrap();
    type Row = (
        String,
        String,
        Option<String>,
        Option<String>,
        Option<i64>,
        Option<i64>,
        Option<i64>,
        String,
        String,
    );
    let rows: Vec<Row> = st
        .query_map([], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
                r.get(6)?,
                r.get(7)?,
                r.get(8)?,
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let row = |round: &str,
               result: &str,
               lawful: Option<&str>,
               term: Option<(&str, i64)>,
               threefold: Option<i64>,
               fifty: Option<i64>,
               laws: &str,
               variant: &str| {
        (
            round.to_owned(),
            result.to_owned(),
            lawful.map(str::to_owned),
            term.map(|(t, _)| t.to_owned()),
            term.map(|(_, p)| p),
            threefold,
            fifty,
            laws.to_owned(),
            variant.to_owned(),
        )
    };
    let std = "standard";
    assert_eq!(
        rows,
        vec![
            row(
                "1",
                "1-0",
                Some("1-0"),
                Some(("checkmate", 5)),
                None,
                None,
                "2014",
                std
            ),
            row(
                "2",
                "1/2-1/2",
                Some("1/2-1/2"),
                Some(("stalemate", 19)),
                None,
                None,
                "2014",
                std
            ),
            row("3", "1/2-1/2", None, None, Some(12), None, "2014", std),
            row("4", "1/2-1/2", None, None, None, Some(3), "2014", std),
            row(
                "5",
                "1/2-1/2",
                Some("0-1"),
                Some(("checkmate", 4)),
                None,
                None,
                "2014",
                std
            ),
            row("6", "0-1", Some("1/2-1/2"), None, None, None, "2014", std),
            row("7", "1/2-1/2", None, None, None, None, "2014", "chess960"),
            row(
                "8",
                "1-0",
                Some("1/2-1/2"),
                Some(("dead-position", 1)),
                None,
                None,
                "1993",
                std
            ),
        ]
    );
}

/// The quarantine of every PGN fuzz seed and of the corpus files re-reads as exactly its
/// rejected games (issue 19: "the quarantine of any fuzzed input re-reads as exactly its
/// rejected games"; the proptests in `pipeline::sinks` cover arbitrary bytes).
#[test]
fn the_quarantine_of_each_fuzz_seed_reads_back_as_its_rejected_games() {
    let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/pgn");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&seeds)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 3, "{files:?}");
    files.push(corpus("annotated.pgn"));
    let dir = tempfile::tempdir().unwrap();
    for file in files {
        let (out, first, _) = check(dir.path(), &file);
        let rejected = first["rejected"].as_u64().unwrap();
        let quarantine = std::fs::read(dir.path().join("quarantine.pgn")).unwrap();
        if rejected == 0 {
            assert_eq!(quarantine, b"", "{}", file.display());
            continue;
        }
        assert_eq!(out.status.code(), Some(1), "{}", file.display());
        let again = dir.path().join("again.pgn");
        std::fs::write(&again, &quarantine).unwrap();
        let (_, second, _) = check(dir.path(), &again);
        assert_eq!(second["games"], rejected, "{}", file.display());
        assert_eq!(second["rejected"], rejected, "{}", file.display());
    }
}
