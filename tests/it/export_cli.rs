//! `arbiter export` end to end, the real binary on real files: PGN round trips (import →
//! export → import gives the same games, variations, NAGs and comments), other readers
//! (python-chess, pgn-extract, DuckDB, pyarrow: run as separate programs, skipped loudly when
//! missing) read every exported file, CSV/JSON lines are typed, bad values are usage errors.

use arbiter::pgn::{MoveNode, parse_all};
use rusqlite::Connection;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_arbiter");

fn arbiter(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("binary runs")
}

fn ok(args: &[&str]) -> Output {
    let out = arbiter(args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sample.pgn")
}

/// A folder holding the bundled sample imported into `a.sqlite`.
fn sample_db() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("a.sqlite");
    ok(&["import", s(&sample()), "--db", s(&db), "--quiet"]);
    (dir, db)
}

use crate::common;
use common::corpus;

/// The PGN files of the corpus the round trip reads: annotated games, lichess (clocks and
/// evaluations), Chess960, engine games and the other parsers' edge cases.
fn round_trip_files(corpus: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in [
        "games/annotated",
        "games/lichess",
        "games/chess960",
        "games/engine-tcec",
    ] {
        for e in std::fs::read_dir(corpus.join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "pgn") {
                files.push(p);
            }
        }
    }
    let mut stack = vec![corpus.join("pgn-edge-cases")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "pgn") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

/// Variations, NAGs and comments in a game's tree.
fn annotations(moves: &[MoveNode]) -> (usize, usize, usize) {
    let mut counts = (0, 0, 0);
    let mut stack = vec![moves];
    while let Some(line) = stack.pop() {
        for node in line {
            counts.0 += node.variations().len();
            counts.1 += node.nags().len() + node.nags_before().len();
            counts.2 += node.comments_before().len() + node.comments_after().len();
            stack.extend(node.variations().iter().map(Vec::as_slice));
        }
    }
    counts
}

/// What must survive the round trip, game by game: moves, tags (other than those the
/// export fills in), comments, and the annotated text's variations, NAGs and comments.
/// Moves, tags, comments, and (variations, NAGs, comments) of the annotated text.
type Kept = (Vec<u8>, String, String, (usize, usize, usize));

fn games_of(db: &Path) -> Vec<Kept> {
    let conn = Connection::open(db).unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT g.moves, \
             (SELECT group_concat(name || '=' || value, '|') FROM \
                (SELECT name, value FROM tags t WHERE t.game_id = g.id ORDER BY seq)), \
             (SELECT group_concat(ply || ':' || text, '|') FROM \
                (SELECT ply, text FROM comments c WHERE c.game_id = g.id ORDER BY ply, seq)), \
             g.annotated FROM games g ORDER BY g.id",
        )
        .unwrap();
    stmt.query_map([], |r| {
        let annotated: Option<String> = r.get(3)?;
        let counts = annotated.map_or((0, 0, 0), |t| {
            let (games, _) = parse_all(t.as_bytes());
            annotations(&games[0].moves)
        });
        Ok((
            r.get::<_, Vec<u8>>(0)?,
            r.get::<_, Option<String>>(1)?.unwrap_or_default(),
            r.get::<_, Option<String>>(2)?.unwrap_or_default(),
            counts,
        ))
    })
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

#[test]
fn pgn_round_trip_gives_the_same_games_on_the_corpus() {
    let Some(corpus) = corpus() else { return };
    let dir = tempfile::tempdir().unwrap();
    let files = round_trip_files(&corpus);
    assert!(files.len() > 20, "{files:?}");
    let (db1, db2) = (dir.path().join("1.sqlite"), dir.path().join("2.sqlite"));
    let (a, b) = (dir.path().join("a.pgn"), dir.path().join("b.pgn"));
    let mut args = vec!["import", "--db", s(&db1), "--quiet"];
    args.extend(files.iter().map(|p| s(p)));
    // Some edge-case files hold rejected games (exit 1); what is stored must come back.
    let out = arbiter(&args);
    assert!(
        out.status.code() == Some(0) || out.status.code() == Some(1),
        "{out:?}"
    );
    ok(&["export", "--db", s(&db1), "-o", s(&a), "-q"]);
    ok(&["import", s(&a), "--db", s(&db2), "--quiet"]);
    ok(&["export", "--db", s(&db2), "-o", s(&b), "-q"]);
    let (ta, tb) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    assert!(ta == tb, "export → import → export is not a fixed point");
    let (g1, g2) = (games_of(&db1), games_of(&db2));
    assert_eq!(g1.len(), g2.len());
    assert!(g1.len() > 3_000, "{}", g1.len());
    let mut totals = (0, 0, 0);
    for (k, (x, y)) in g1.iter().zip(&g2).enumerate() {
        assert_eq!(x.0, y.0, "game {}: moves", k + 1);
        assert_eq!(x.2, y.2, "game {}: comments", k + 1);
        assert_eq!(x.3, y.3, "game {}: variations, NAGs, comments", k + 1);
        // The other tags come back in file order (the export adds none by default).
        assert_eq!(x.1, y.1, "game {}: tags", k + 1);
        totals.0 += x.3.0;
        totals.1 += x.3.1;
        totals.2 += x.3.2;
    }
    // The annotated files alone hold 867 variations and 687 NAGs.
    assert!(totals.0 >= 867 && totals.1 >= 687, "{totals:?}");
    // And the exported text has them all, as arbiter's reader counts them.
    let (games, _) = parse_all(&ta);
    let exported = games
        .iter()
        .map(|g| annotations(&g.moves))
        .fold((0, 0, 0), |t, c| (t.0 + c.0, t.1 + c.1, t.2 + c.2));
    assert_eq!((exported.0, exported.1), (totals.0, totals.1));
    assert!(exported.2 >= totals.2);
}

/// Says loudly that a reader is missing; fails instead when CI asks for every reader
/// (`ARBITER_REQUIRE_READERS=1`, set by `.ci/run`).
fn skip(why: &str) {
    assert!(
        std::env::var_os("ARBITER_REQUIRE_READERS").is_none(),
        "ARBITER_REQUIRE_READERS is set but {why}"
    );
    eprintln!("SKIPPED: {why}");
}

fn have(program: &str, probe: &[&str]) -> bool {
    let found = Command::new(program)
        .args(probe)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        skip(&format!("{program} {} is not available", probe.join(" ")));
    }
    found
}

fn pgn_extract() -> Option<&'static str> {
    ["pgn-extract", "/usr/games/pgn-extract"]
        .into_iter()
        .find(|p| Command::new(p).arg("-h").output().is_ok())
        .or_else(|| {
            skip("pgn-extract is not installed (apt-get install pgn-extract)");
            None
        })
}

/// python-chess and pgn-extract read every game arbiter exports, as many as they read from
/// the original files.
#[test]
fn python_chess_and_pgn_extract_read_every_exported_game() {
    if !crate::common::long() {
        return;
    }
    let Some(corpus) = corpus() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<PathBuf> = ["annotated", "lichess", "chess960"]
        .iter()
        .flat_map(|d| std::fs::read_dir(corpus.join("games").join(d)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "pgn"))
        .collect();
    files.sort();
    let db = dir.path().join("a.sqlite");
    let mut args = vec!["import", "--db", s(&db), "--quiet"];
    args.extend(files.iter().map(|p| s(p)));
    ok(&args);
    let conn = Connection::open(&db).unwrap();
    let stored: i64 = conn
        .query_row("SELECT count(*) FROM games", [], |r| r.get(0))
        .unwrap();
    let a = dir.path().join("a.pgn");
    ok(&["export", "--db", s(&db), "-o", s(&a), "-q"]);
    if have("python3", &["-c", "import chess.pgn"]) {
        let script = "import sys, chess.pgn\n\
            n = bad = 0\n\
            f = open(sys.argv[1], encoding='utf-8')\n\
            while True:\n\
            \x20   g = chess.pgn.read_game(f)\n\
            \x20   if g is None: break\n\
            \x20   n += 1\n\
            \x20   bad += bool(g.errors)\n\
            print(n, bad)\n";
        let out = Command::new("python3")
            .args(["-c", script, s(&a)])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(
            text.trim(),
            format!("{stored} 0"),
            "python-chess: games, games with errors"
        );
    }
    if let Some(pe) = pgn_extract() {
        // pgn-extract cannot read a NAG before a variation's first move (Informant's
        // `( $142 38... b5`), in the original files as in ours: it must read as many games
        // from the export as from the originals, and report no other error.
        let count = |paths: &[&Path]| {
            let out = Command::new(pe)
                .args(paths)
                .args(["-o", "/dev/null"])
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr).into_owned();
            let matched = err.lines().find_map(|l| {
                l.strip_suffix('.')
                    .and_then(|l| l.split(" games matched out of ").nth(1))
                    .map(|n| n.to_owned())
            });
            (matched, err.matches("Failed to make move").count())
        };
        let originals: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
        let (from_files, failed_files) = count(&originals);
        let (from_export, failed_export) = count(&[&a]);
        assert!(from_export.is_some(), "pgn-extract gave no count");
        assert_eq!(from_export, from_files);
        assert!(
            failed_export <= failed_files,
            "{failed_export} > {failed_files}"
        );
    }
}

#[test]
fn parquet_reads_in_duckdb_and_pyarrow_with_the_right_types() {
    let (dir, db) = sample_db();
    let games = dir.path().join("games.parquet");
    let findings = dir.path().join("findings.parquet");
    let players = dir.path().join("player_games.parquet");
    let empty = dir.path().join("empty.parquet");
    let parts = dir.path().join("parts");
    let db = s(&db);
    for (out, extra) in [
        (&games, &["--uci"][..]),
        (&findings, &["--findings"][..]),
        (&players, &["--player-games"][..]),
        (&empty, &["--result", "*", "--min-plies", "9999"][..]),
        (&parts, &["--partition", "year,month"][..]),
    ] {
        let mut args = vec!["export", "--db", db, "--format", "parquet", "-o", s(out)];
        args.extend(extra);
        ok(&args);
    }
    for p in [&games, &findings, &players, &empty] {
        assert!(p.is_file(), "{p:?}");
    }
    if !have("python3", &["-c", "import duckdb, pyarrow"]) {
        return;
    }
    let script = r#"
import sys, duckdb, pyarrow.parquet as pq, pyarrow as pa
games, findings, players, empty, parts = sys.argv[1:]
t = pq.read_table(games)
assert t.num_rows == 8, t.num_rows
types = {f.name: f.type for f in t.schema}
assert types["id"] == pa.int64() and types["white_elo"] == pa.int64(), types
assert types["white"] == pa.string() and types["moves"] == pa.string(), types
assert types["findings"] == pa.list_(pa.string()), types["findings"]
assert types["white_accuracy"] == pa.float64(), types
assert "uci" in types
assert pq.read_table(findings).schema.field("game").type == pa.int64()
assert pq.read_table(players).num_rows == 16
assert pq.read_table(empty).num_rows == 0
con = duckdb.connect()
n, codes = con.execute(f"SELECT count(*), sum(len(findings)) FROM '{games}'").fetchone()
assert n == 8 and codes > 0, (n, codes)
assert con.execute(f"SELECT typeof(white_elo) FROM '{games}' LIMIT 1").fetchone()[0] == "BIGINT"
score = con.execute(f"SELECT sum(score) FROM '{players}' WHERE score IS NOT NULL").fetchone()[0]
decided = con.execute(f"SELECT count(*) FROM '{games}' WHERE coalesce(lawful_result, result) IN ('1-0','0-1','1/2-1/2')").fetchone()[0]
assert score == decided, (score, decided)
rows = con.execute(f"SELECT count(*), count(DISTINCT year) FROM read_parquet('{parts}/**/*.parquet', hive_partitioning=true)").fetchone()
assert rows[0] == 8, rows
print("ok")
"#;
    let out = Command::new("python3")
        .args([
            "-c",
            script,
            s(&games),
            s(&findings),
            s(&players),
            s(&empty),
            s(&parts),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn csv_and_json_lines_are_typed_and_an_empty_selection_keeps_its_header() {
    let (dir, db) = sample_db();
    let db = s(&db);
    let out = ok(&[
        "export",
        "--db",
        db,
        "--format",
        "jsonl",
        "--columns",
        "id,white_elo,findings,moves,eco",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert!(
        first["id"].is_i64() && first["findings"].is_array(),
        "{first}"
    );
    assert!(
        first["moves"].as_str().unwrap().starts_with("1. "),
        "{first}"
    );
    let keys: Vec<_> = text
        .lines()
        .next()
        .unwrap()
        .split("\":")
        .map(|k| k.rsplit('"').next().unwrap().to_owned())
        .collect();
    assert_eq!(&keys[..5], ["id", "white_elo", "findings", "moves", "eco"]);
    let empty = ok(&[
        "export",
        "--db",
        db,
        "--format",
        "csv",
        "--min-plies",
        "100000",
        "--columns",
        "id,white",
    ]);
    assert_eq!(String::from_utf8(empty.stdout).unwrap(), "id,white\n");
    let gz = dir.path().join("g.csv.gz");
    ok(&["export", "--db", db, "--format", "csv", "-o", s(&gz)]);
    let mut csv = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&gz).unwrap())
        .read_to_string(&mut csv)
        .unwrap();
    assert_eq!(csv.lines().count(), 9);
    assert!(
        csv.starts_with("id,file,game,byte,line,event,"),
        "{}",
        &csv[..80]
    );
}

#[test]
fn check_and_export_write_findings_with_the_same_columns() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("a.sqlite");
    let checked = dir.path().join("f.csv");
    ok(&["import", s(&sample()), "--db", s(&db), "--quiet"]);
    let out = arbiter(&["check", s(&sample()), "--quiet", "--findings", s(&checked)]);
    assert!(out.status.code().is_some_and(|c| c <= 1), "{out:?}");
    let exported = ok(&["export", "--db", s(&db), "--format", "csv", "--findings"]);
    let exported = String::from_utf8(exported.stdout).unwrap();
    let checked = std::fs::read_to_string(&checked).unwrap();
    let header = "file,game,byte,line,column,ply,code,severity,token,message";
    assert_eq!(checked.lines().next(), Some(header));
    assert_eq!(exported.lines().next(), Some(header));
    // The same findings about the stored games, but for `check`'s findings about text
    // outside games: the rows of game 1 are identical.
    let rows = |t: &str| {
        t.lines()
            .filter(|l| l.split(',').nth(1) == Some("1"))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    assert!(!rows(&checked).is_empty());
    assert_eq!(rows(&checked), rows(&exported));
}

#[test]
fn csv_cells_that_would_run_as_formulas_are_prefixed_unless_raw() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("f.pgn");
    std::fs::write(
        &pgn,
        "[Event \"+SUM(1+1)\"]\n[White \"=cmd|' /C calc'!A0\"]\n[Black \"@SUM(A1)\"]\n[Result \"*\"]\n\n1. e4 *\n",
    )
    .unwrap();
    let db = dir.path().join("a.sqlite");
    ok(&["import", s(&pgn), "--db", s(&db), "--quiet"]);
    for (extra, want) in [
        (
            None,
            "event,white,black\n'+SUM(1+1),'=cmd|' /C calc'!A0,'@SUM(A1)\n",
        ),
        (
            Some("--csv-raw"),
            "event,white,black\n+SUM(1+1),=cmd|' /C calc'!A0,@SUM(A1)\n",
        ),
    ] {
        let mut args = vec!["export", "--db", s(&db), "--format", "csv"];
        args.extend(["--columns", "event,white,black"]);
        args.extend(extra);
        assert_eq!(String::from_utf8(ok(&args).stdout).unwrap(), want);
    }
}

#[test]
fn bad_values_are_usage_errors_listing_the_valid_ones() {
    let (_dir, db) = sample_db();
    let db = s(&db);
    for (args, wanted) in [
        (&["--result", "1:0"][..], "1-0, 0-1, 1/2-1/2, *"),
        (
            &["--has-finding", "result.mismatchh"][..],
            "result.mismatch,",
        ),
        (&["--severity", "fatal"][..], "info, warning, error"),
        (&["--laws", "2018"][..], "1980, 1993, 2001, 2014"),
        (
            &["--format", "csv", "--columns", "id,colour"][..],
            "white, black",
        ),
        (&["--format", "xml"][..], "pgn, csv, jsonl, parquet"),
        (&["--format", "parquet"][..], "needs -o"),
        (
            &[
                "--format",
                "parquet",
                "-o",
                "x.parquet",
                "--partition",
                "week",
            ][..],
            "year, month",
        ),
        (&["--date-from", "last year"][..], "is not a date"),
    ] {
        let mut all = vec!["export", "--db", db];
        all.extend(args);
        let out = arbiter(&all);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(wanted), "{args:?}: {err}");
    }
}

#[test]
fn an_unwritable_output_fails_at_once_and_leaves_nothing() {
    let (dir, db) = sample_db();
    let bad = dir.path().join("no/such/dir/out.csv");
    let out = arbiter(&["export", "--db", s(&db), "--format", "csv", "-o", s(&bad)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/dir/out.csv"));
    // Only the database and its side files: no temporary export left behind.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with("a.sqlite"))
        .collect();
    assert!(names.is_empty(), "{names:?}");
}

#[test]
fn a_closed_pipe_ends_the_export_quietly() {
    let Some(corpus) = corpus() else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("a.sqlite");
    let lichess = corpus.join("games/lichess/lichess_2021-10_first999.pgn");
    ok(&["import", s(&lichess), "--db", s(&db), "--quiet"]);
    for format in ["pgn", "csv", "jsonl"] {
        let mut child = Command::new(BIN)
            .args(["export", "--db", s(&db), "--format", format])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 100];
        child
            .stdout
            .as_mut()
            .unwrap()
            .read_exact(&mut first)
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{format}: {out:?}");
        assert!(
            out.stderr.is_empty(),
            "{format}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// A row made from the pipeline's record of a game (what `check --output` would write)
/// equals the row read back from the database after `import`, column by column (but for
/// the database's own id and the person/opening columns a later stage fills in).
#[test]
fn rows_from_the_pipeline_equal_rows_from_the_database() {
    use arbiter::db::query::games::{ExportRow, Order, for_each_game};
    use arbiter::db::query::select::Filter;
    use arbiter::export::games::row_of_record;
    use arbiter::export::table::{Cell, Selection};
    use arbiter::laws::{Budget, VerdictOptions};
    use arbiter::pipeline::work::process;
    use arbiter::pipeline::{Keep, WorkOptions};
    let (_dir, db) = sample_db();
    let options = WorkOptions {
        mode: arbiter::chess::SanMode::Lenient,
        laws: Some(VerdictOptions {
            laws: Default::default(),
            budget: Budget {
                nodes: 50_000,
                ..Budget::default()
            },
        }),
        analysis: None,
    };
    let file = s(&sample()).to_owned();
    let (raws, _) = arbiter::pgn::split_bytes(&std::fs::read(sample()).unwrap());
    let from_pipeline: Vec<ExportRow> = raws
        .into_iter()
        .map(|raw| process(raw, &options, Keep::Record))
        .filter_map(|p| p.record)
        .map(|r| row_of_record(&file, &r).unwrap())
        .collect();
    assert_eq!(from_pipeline.len(), 8);
    let selection = Selection::default_with(true);
    let skip = [
        "id",
        "white_person",
        "black_person",
        "eco",
        "opening",
        "tc_class",
    ];
    let names: Vec<&str> = selection.columns().iter().map(|c| c.name).collect();
    let conn = Connection::open(&db).unwrap();
    let mut k = 0;
    let every = arbiter::db::query::Selection::compile(&conn, &Filter::default()).unwrap();
    for_each_game(&conn, &every, &Order::default(), |row| {
        let (mut a, mut b): (Vec<Cell<'_>>, Vec<Cell<'_>>) = (Vec::new(), Vec::new());
        selection.cells(row, &mut a);
        selection.cells(&from_pipeline[k], &mut b);
        for ((name, x), y) in names.iter().zip(&a).zip(&b) {
            if !skip.contains(name) {
                assert_eq!(x, y, "game {}: column {name}", k + 1);
            }
        }
        k += 1;
        Ok::<(), arbiter::db::query::QueryError>(())
    })
    .unwrap();
    assert_eq!(k, 8);
}

/// An analysed game: our `[%eval]` on every analysed move by default, and with `--annotate`
/// one judgement NAG per inaccuracy ($6), mistake ($2) and blunder ($4) the analysis counted.
#[test]
fn analysed_games_get_our_evaluations_and_judgement_nags() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("a.sqlite");
    ok(&[
        "import",
        s(&sample()),
        "--db",
        s(&db),
        "--quiet",
        "--engine",
        "none",
        "--analyse=2000",
    ]);
    let conn = Connection::open(&db).unwrap();
    let one = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
    let evals = one("SELECT count(*) FROM evaluations WHERE ply > 0");
    let judged = |side_cols: &str| {
        one(&format!(
            "SELECT coalesce(sum({side_cols}), 0) FROM analyses"
        ))
    };
    let nags = [
        ("$6", judged("white_inaccuracies + black_inaccuracies")),
        ("$2", judged("white_mistakes + black_mistakes")),
        ("$4", judged("white_blunders + black_blunders")),
    ];
    assert!(evals > 10, "{evals}");
    let out = ok(&["export", "--db", s(&db), "--annotate"]);
    let text = String::from_utf8(out.stdout).unwrap();
    let words: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('['))
        .flat_map(str::split_whitespace)
        .collect();
    assert_eq!(text.matches("[%eval").count() as i64, evals);
    // Each judged move has one quality NAG: ours, or the file's own (kept) on the sample's
    // one `??`, which is also a blunder by our analysis.
    for (nag, n) in nags {
        assert_eq!(
            words.iter().filter(|w| **w == nag).count() as i64,
            n,
            "{nag}"
        );
    }
    assert!(nags.iter().map(|(_, n)| n).sum::<i64>() > 0);
    // `--evals file`: the sample has no evaluations of its own, so none are written.
    let out = ok(&["export", "--db", s(&db), "--evals", "file"]);
    assert!(!String::from_utf8(out.stdout).unwrap().contains("[%eval"));
}

/// `--player` finds the person under every spelling, ignoring case and the spacing around
/// the comma; repeated, any of them; `--player-exact` only the name as written.
#[test]
fn player_filters_match_the_person_or_the_exact_name() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("p.pgn");
    std::fs::write(
        &pgn,
        "[White \"Carlsen, Magnus\"]\n[Black \"Caruana, Fabiano\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n\n\
         [White \"Caruana,Fabiano\"]\n[Black \"CARLSEN,  Magnus\"]\n[Result \"0-1\"]\n\n1. d4 0-1\n\n\
         [White \"Nakamura, Hikaru\"]\n[Black \"So, Wesley\"]\n[Result \"*\"]\n\n1. c4 *\n",
    )
    .unwrap();
    let db = dir.path().join("p.sqlite");
    ok(&["import", s(&pgn), "--db", s(&db), "--quiet"]);
    let games = |filter: &[&str]| {
        let mut args = vec!["export", "--db", s(&db), "--format", "csv"];
        args.extend(["--columns", "game"]);
        args.extend(filter);
        let text = String::from_utf8(ok(&args).stdout).unwrap();
        text.lines()
            .skip(1)
            .map(str::to_owned)
            .collect::<Vec<_>>()
            .join(",")
    };
    assert_eq!(games(&["--player", "carlsen,magnus"]), "1,2");
    assert_eq!(games(&["--player", "CARLSEN, MAGNUS"]), "1,2");
    assert_eq!(games(&["--white", "caruana, fabiano"]), "2");
    assert_eq!(games(&["--black", "Carlsen, Magnus"]), "2");
    assert_eq!(
        games(&["--player", "So, Wesley", "--player", "Carlsen, Magnus"]),
        "1,2,3"
    );
    assert_eq!(games(&["--player-exact", "CARLSEN,  Magnus"]), "2");
    // A name written so by nobody is a usage error naming the closest, not an empty file.
    let out = arbiter(&[
        "export",
        "--db",
        s(&db),
        "--format",
        "csv",
        "--player-exact",
        "carlsen, magnus",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("the closest:\n  CARLSEN,  Magnus"), "{err}");
}
