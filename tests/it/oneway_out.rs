//! `search` and `tournament` write their tables the one way (issue 32, "one output
//! convention"): the format from `-o`'s extension under a compression suffix, the same
//! `--format` names, Parquet read back, the CSV formula guard, refusals as usage errors
//! (exit 2) naming the valid formats, no file left by a refused, failed or interrupted run,
//! and `-q`. The real binary on small files of `testdata/`.

use crate::common::cli::{arbiter, ok, s};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const TRF: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/testdata/tournaments/swiss7.trf"
);
const PLAYOFF: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/testdata/tournaments/rr6_partial_playoff.pgn"
);
/// After 1.e4: the first ply of the games below.
const AFTER_E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A database of three games after 1.e4, White named as a spreadsheet formula in one.
fn database(dir: &Path) -> PathBuf {
    let pgn = dir.join("f.pgn");
    let game = |white: &str, black: &str, result: &str| {
        format!(
            "[Event \"guard\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n[Date \"2024.01.02\"]\n\
             [Result \"{result}\"]\n\n1. e4 e5 2. Nf3 Nc6 {result}\n\n"
        )
    };
    let games = [
        game("=cmd|' /C calc'!A0", "@SUM(A1)", "1-0"),
        game("Plain, Paul", "-2+3", "0-1"),
        game("Other, Olga", "Plain, Paul", "1/2-1/2"),
    ]
    .concat();
    std::fs::write(&pgn, games).unwrap();
    let db = dir.join("g.sqlite");
    ok(&["import", "-q", s(&pgn), "--db", s(&db)]);
    db
}

fn search(db: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["search", "--db", s(db), AFTER_E4];
    args.extend_from_slice(extra);
    arbiter(&args)
}

/// The folder's file names, sorted (a left temporary file shows here).
fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Every row of a Parquet file as (column, value as text) pairs.
fn parquet_rows(path: &Path) -> Vec<Vec<(String, String)>> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let reader = SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap();
    reader
        .get_row_iter(None)
        .unwrap()
        .map(|row| {
            row.unwrap()
                .get_column_iter()
                .map(|(name, field)| (name.clone(), field.to_string()))
                .collect()
        })
        .collect()
}

/// The columns the search rows had before they gained the event, ratings and moves.
const FEW: &str = "id,white,black,date,result,ply";

#[test]
fn search_csv_by_extension_gets_the_formula_guard_and_csv_raw_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let csv = out_dir.join("hits.csv");
    ok(&[
        "search",
        "--db",
        s(&db),
        AFTER_E4,
        "-o",
        s(&csv),
        "--limit",
        "5",
        "--columns",
        FEW,
    ]);
    let written = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(
        written,
        "id,white,black,date,result,ply\n\
         1,'=cmd|' /C calc'!A0,'@SUM(A1),2024.01.02,1-0,1\n\
         2,\"Plain, Paul\",'-2+3,2024.01.02,0-1,1\n\
         3,\"Other, Olga\",\"Plain, Paul\",2024.01.02,1/2-1/2,1\n"
    );
    let raw = search(&db, &["--format", "csv", "--csv-raw", "--columns", FEW]);
    assert_eq!(raw.status.code(), Some(0), "{}", text(&raw.stderr));
    assert!(
        text(&raw.stdout).contains("1,=cmd|' /C calc'!A0,@SUM(A1),"),
        "{}",
        text(&raw.stdout)
    );
    // Under a compression suffix: CSV, compressed.
    let gz = out_dir.join("hits.csv.gz");
    ok(&[
        "search",
        "--db",
        s(&db),
        AFTER_E4,
        "-o",
        s(&gz),
        "--columns",
        FEW,
    ]);
    let mut unpacked = String::new();
    std::io::Read::read_to_string(
        &mut flate2::read::GzDecoder::new(std::fs::File::open(&gz).unwrap()),
        &mut unpacked,
    )
    .unwrap();
    assert_eq!(unpacked, written);
    assert_eq!(files(&out_dir), ["hits.csv", "hits.csv.gz"]);
}

#[test]
fn search_writes_parquet_and_json_lines_with_the_same_columns() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let pq = dir.path().join("hits.parquet");
    ok(&[
        "search",
        "--db",
        s(&db),
        AFTER_E4,
        "-o",
        s(&pq),
        "--columns",
        FEW,
    ]);
    let rows = parquet_rows(&pq);
    assert_eq!(rows.len(), 3);
    let names: Vec<&str> = rows[0].iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["id", "white", "black", "date", "result", "ply"]);
    assert_eq!(rows[1][0].1, "2");
    assert_eq!(rows[1][1].1, "\"Plain, Paul\"");
    assert_eq!(rows[1][5].1, "1");
    let out = search(
        &db,
        &["--format", "jsonl", "--limit", "1", "--columns", FEW],
    );
    assert_eq!(
        text(&out.stdout),
        "{\"id\":1,\"white\":\"=cmd|' /C calc'!A0\",\"black\":\"@SUM(A1)\",\"date\":\"2024.01.02\",\"result\":\"1-0\",\"ply\":1}\n"
    );
    // The tree as a table: one row per next move, White's score with two decimals in CSV.
    let out = search(&db, &["--tree", "--format", "csv"]);
    assert_eq!(
        text(&out.stdout),
        "move,games,white_score,draw_rate,white_elo,black_elo,performance\n\
         e5,3,50.00,33.33,,,\n"
    );
    // The move orders, with a header now like every CSV.
    let out = search(&db, &["--reverse-tree", "--format", "csv"]);
    assert_eq!(text(&out.stdout), "games,moves\n3,e4\n");
}

#[test]
fn search_refuses_what_it_cannot_honour_and_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let at = |name: &str| s(&out_dir.join(name)).to_owned();
    for (args, says) in [
        (
            vec!["--format".to_owned(), "parquet".to_owned()],
            "needs -o FILE",
        ),
        (
            vec!["-o".to_owned(), at("x.xlsx")],
            "name it .csv, .jsonl, .parquet",
        ),
        (
            vec!["-o".to_owned(), at("x.parquet.gz")],
            "Parquet is compressed inside",
        ),
        (
            vec!["--format".to_owned(), "pgn".to_owned()],
            "[possible values: text, csv, jsonl, parquet]",
        ),
        (
            vec![
                "--format".to_owned(),
                "csv".to_owned(),
                "-o".to_owned(),
                at("x.jsonl"),
            ],
            "--format csv but",
        ),
        (
            vec![
                "--tree".to_owned(),
                "--reverse-tree".to_owned(),
                "-o".to_owned(),
                at("t.csv"),
            ],
            "give one of them with --format csv",
        ),
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = search(&db, &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        assert!(
            text(&out.stderr).contains(says),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    // A search refused after -o was read (no query) once left an empty file behind.
    let out = arbiter(&["search", "--db", s(&db), "-o", &at("none.csv")]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(files(&out_dir).is_empty(), "{:?}", files(&out_dir));
    // A text answer goes to a file only when asked for by name.
    let t = at("hits.txt");
    ok(&[
        "search",
        "--db",
        s(&db),
        AFTER_E4,
        "--format",
        "text",
        "-o",
        &t,
    ]);
    assert!(
        std::fs::read_to_string(&t)
            .unwrap()
            .starts_with("3 games\n")
    );
}

/// Sends SIGINT to the child, as Ctrl-C in its terminal would.
fn interrupt(pid: u32) {
    let status = Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
}

#[test]
fn an_interrupted_search_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    // Games distinct by White's name, each a row of the answer.
    let pgn = dir.path().join("many.pgn");
    let games: String = (0..40_000)
        .map(|i| {
            format!(
                "[Event \"e\"]\n[White \"A{i}\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n\
                 1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 \
                 8. c3 O-O 9. h3 Nb8 10. d4 Nbd7 1-0\n\n"
            )
        })
        .collect();
    std::fs::write(&pgn, games).unwrap();
    let db = dir.path().join("many.sqlite");
    ok(&["import", "-q", s(&pgn), "--db", s(&db)]);
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let out_file = out_dir.join("x.csv");
    // The search takes a few tenths of a second, and a loaded machine may sleep the test
    // longer than that, so each try sends Ctrl-C sooner. Whatever the timing, a run either
    // wrote the whole file or none of it: stopped during the search (the output is opened
    // only once the search is done) or during the writing (the handler's exit, 130, with
    // the temporary file removed).
    let mut stopped = false;
    for delay_ms in [100, 40, 15, 5, 1] {
        let child = Command::new(crate::common::cli::BIN)
            .args(["search", "--db", s(&db), "--sequence", "e4"])
            .args(["-o", s(&out_file)])
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        interrupt(child.id());
        let out = child.wait_with_output().unwrap();
        if out.status.success() {
            // Done before Ctrl-C: the whole answer, the header and one row a game.
            let written = std::fs::read_to_string(&out_file).unwrap();
            assert_eq!(written.lines().count(), 40_001);
            std::fs::remove_file(&out_file).unwrap();
            continue;
        }
        assert!(matches!(out.status.code(), None | Some(130)), "{out:?}");
        assert!(files(&out_dir).is_empty(), "{:?}", files(&out_dir));
        stopped = true;
        break;
    }
    assert!(stopped, "every search ended before its Ctrl-C");
}

fn tournament(extra: &[&str]) -> Output {
    let mut args = vec!["tournament", "--trf", TRF, "--tiebreaks", "BH,SB,ARO"];
    args.extend_from_slice(extra);
    arbiter(&args)
}

#[test]
fn tournament_writes_by_extension_with_the_guard_and_parquet() {
    let dir = tempfile::tempdir().unwrap();
    // Player 1's name becomes a formula (the same width: TRF's columns are fixed).
    let trf = std::fs::read_to_string(TRF)
        .unwrap()
        .replacen("Alpha, Anna", "=SUM(A1:A9)", 1);
    let bad = dir.path().join("f.trf");
    std::fs::write(&bad, trf).unwrap();
    let csv = dir.path().join("s.csv");
    ok(&[
        "tournament",
        "--trf",
        s(&bad),
        "--tiebreaks",
        "BH,SB",
        "-o",
        s(&csv),
    ]);
    let written = std::fs::read_to_string(&csv).unwrap();
    assert!(
        written.starts_with("sno,name,rank,pts,BH,SB\n1,'=SUM(A1:A9),1,3.5,9.5,"),
        "{written}"
    );
    // Parquet by its name: the same columns, numbers typed.
    let pq = dir.path().join("s.parquet");
    let out = tournament(&["-o", s(&pq)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let rows = parquet_rows(&pq);
    assert_eq!(rows.len(), 7);
    let names: Vec<&str> = rows[0].iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["sno", "name", "rank", "pts", "BH", "SB", "ARO"]);
    assert_eq!(rows[0][1].1, "\"Alpha, Anna\"");
    assert_eq!(rows[0][3].1, "3.5");
    assert_eq!(rows[0][4].1, "9.5");
    // JSON lines: the same numbers; CSV: C.07's decimals.
    let jsonl = text(&tournament(&["--format", "jsonl"]).stdout);
    assert!(
        jsonl.starts_with(r#"{"sno":1,"name":"Alpha, Anna","rank":1,"pts":3.5,"BH":9.5,"#),
        "{jsonl}"
    );
    // Refusals: usage errors naming the formats.
    let out = tournament(&["--format", "parquet"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("needs -o FILE"), "{out:?}");
    let out = tournament(&["-o", s(&dir.path().join("s.pgn"))]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("its formats are: text, csv, jsonl, parquet"),
        "{out:?}"
    );
    let mut left = files(dir.path());
    left.sort();
    assert_eq!(left, ["f.trf", "s.csv", "s.parquet"]);
}

#[test]
fn tournament_quiet_and_all_events_as_a_table() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.sqlite");
    ok(&["import", "-q", PLAYOFF, "--db", s(&db)]);
    let event = [
        "tournament",
        "--db",
        s(&db),
        "--event",
        "Playoff Invitational",
    ];
    let out = ok(&event);
    assert!(text(&out.stderr).contains("left out: 2 games numbered apart"));
    let out = ok(&[&event[..], &["-q"]].concat());
    assert_eq!(text(&out.stderr), "");
    assert!(text(&out.stdout).contains("round robin, 6 players, 5 rounds"));
    // Every event as CSV by name, and as Parquet.
    let csv = dir.path().join("events.csv");
    let out = ok(&[
        "tournament",
        "--db",
        s(&db),
        "--all-events",
        "-q",
        "-o",
        s(&csv),
    ]);
    assert_eq!(text(&out.stderr), "");
    let written = std::fs::read_to_string(&csv).unwrap();
    let mut lines = written.lines();
    assert_eq!(
        lines.next(),
        Some(
            "event,site,year,type,players,rounds,games,points,expected,rounds_short,\
             players_short,only_player"
        )
    );
    let first = lines.next().unwrap();
    assert!(
        first.starts_with("Playoff Invitational,") && first.contains(",round robin,6,5,9,9.0,15,"),
        "{written}"
    );
    let pq = dir.path().join("events.parquet");
    ok(&["tournament", "--db", s(&db), "--all-events", "-o", s(&pq)]);
    let rows = parquet_rows(&pq);
    assert_eq!(rows.len(), written.lines().count() - 1);
    assert_eq!(rows[0][7], ("points".to_owned(), "9.0".to_owned()));
}
