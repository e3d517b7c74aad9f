//! UCI both ways: `--engine` analysis through a UCI engine (Stockfish when it is installed,
//! skipped loudly otherwise; a scripted fake engine for the failures: not UCI, rejected
//! option, crash mid-game), and `arbiter uci` driven by a scripted session through the real
//! binary.

use crate::common::stockfish;
use arbiter::chess::uci::parse_uci;
use arbiter::chess::{Move, Position};
use arbiter::search::analysis::{AnalysisOptions, Judgement, Tier, analyse, code};
use arbiter::search::engine::EngineErrorKind;
use arbiter::search::{EngineLimit, EngineSpec, Score};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_arbiter");

fn spec(path: &Path, nodes: u64, options: Vec<(String, String)>) -> &'static EngineSpec {
    Box::leak(Box::new(EngineSpec {
        path: path.to_path_buf(),
        limit: EngineLimit::Nodes(nodes),
        threads: 1,
        options,
        search_timeout: Duration::from_secs(20),
        sweep_nodes: 0,
        refine_nodes: 0,
    }))
}

/// The start position and the moves of a game in UCI notation.
fn game(moves: &str) -> (Position, Vec<Move>) {
    let start = Position::new();
    let mut pos = start;
    let mut played = Vec::new();
    for text in moves.split_whitespace() {
        let m = parse_uci(&pos, text).unwrap();
        pos.play_unchecked(m);
        played.push(m);
    }
    (start, played)
}

/// `1. e4 e5 2. Nf3 Qg5 3. Nxg5 Nc6 4. d4`: Black hangs the queen at ply 4, so the first
/// tier marks positions and the engine is asked.
const QUEEN_HUNG: &str = "e2e4 e7e5 g1f3 d8g5 f3g5 b8c6 d2d4";

fn options(engine: &'static EngineSpec) -> AnalysisOptions {
    AnalysisOptions {
        engine: Some(engine),
        ..AnalysisOptions::default()
    }
}

#[test]
fn stockfish_finds_the_hung_queen_and_is_recorded_in_the_settings() {
    let Some(sf) = stockfish() else { return };
    let (start, moves) = game(QUEEN_HUNG);
    let engine = spec(&sf, 50_000, vec![("Hash".into(), "16".into())]);
    let a = analyse(&start, &moves, None, false, &options(engine)).unwrap();
    assert_eq!(a.evals.len(), 8);
    assert_eq!(a.moves[3].judgement, Some(Judgement::Blunder), "{a:#?}");
    // The second tier judged the blunder: both its positions are the engine's.
    assert_eq!(a.moves[3].tier, Tier::Engine);
    assert!(a.evals[3].engine && a.evals[4].engine);
    assert!(matches!(a.evals[4].score_white, Score::Cp(cp) if cp > 500));
    assert!(a.evals.iter().filter(|e| e.engine).all(|e| e.nodes > 0));
    assert!(a.engine.positions < a.engine.searchable, "{:?}", a.engine);
    let settings: serde_json::Value = serde_json::from_str(&a.settings).unwrap();
    assert!(
        settings["uci_engine"]["name"]
            .as_str()
            .unwrap()
            .starts_with("Stockfish")
    );
    assert_eq!(settings["uci_engine"]["nodes"], 50_000);
    assert_eq!(settings["uci_engine"]["options"][0], "Hash=16");
    // Reproducible: a fresh game (ucinewgame) gives the same analysis.
    let again = analyse(&start, &moves, None, false, &options(engine)).unwrap();
    assert_eq!(a, again);
}

/// With a sweep, the engine's quick look at every position marks the moves; the budget goes
/// only to both ends of the marked ones, the sweep's nodes are counted in the cost, the
/// unmarked positions carry the sweep's evaluations, and the settings record the sweep.
#[test]
fn stockfish_sweep_marks_the_hung_queen_and_its_nodes_are_counted() {
    let Some(sf) = stockfish() else { return };
    let (start, moves) = game(QUEEN_HUNG);
    let engine = Box::leak(Box::new(EngineSpec {
        sweep_nodes: 2_000,
        ..spec(&sf, 50_000, Vec::new()).clone()
    }));
    let a = analyse(&start, &moves, None, false, &options(engine)).unwrap();
    assert_eq!(a.moves[3].judgement, Some(Judgement::Blunder), "{a:#?}");
    assert_eq!(a.moves[3].tier, Tier::Engine);
    assert!(a.evals[3].engine && a.evals[4].engine);
    // Not every position gets the budget, but every one was swept.
    assert!(a.engine.positions < a.engine.searchable, "{:?}", a.engine);
    let budgeted: u64 = a.evals.iter().filter(|e| e.engine).map(|e| e.nodes).sum();
    let swept: u64 = a.evals.iter().filter(|e| !e.engine).map(|e| e.nodes).sum();
    assert!(swept > 0 && swept <= 2_100 * 8, "{swept}");
    assert!(a.engine.nodes > budgeted, "{} {budgeted}", a.engine.nodes);
    // A move the sweep did not mark gets no label, not even arbiter's.
    assert!(
        a.moves
            .iter()
            .all(|m| m.tier == Tier::Engine || m.judgement.is_none()),
        "{a:#?}"
    );
    let settings: serde_json::Value = serde_json::from_str(&a.settings).unwrap();
    assert_eq!(settings["uci_engine"]["sweep_nodes"], 2_000);
    assert_eq!(settings["analysis_version"], 6);
    assert_eq!(settings["weights"], "tuned");
    assert_eq!(settings["cp_scale_percent"], 140);
    assert_eq!(settings["cp_knee"], 525);
}

#[test]
fn an_option_the_engine_does_not_have_is_named() {
    let Some(sf) = stockfish() else { return };
    let (start, moves) = game(QUEEN_HUNG);
    let engine = spec(&sf, 1000, vec![("NoSuchOption".into(), "1".into())]);
    let e = analyse(&start, &moves, None, false, &options(engine)).unwrap_err();
    assert_eq!(e.kind, EngineErrorKind::Option("NoSuchOption".into()));
    assert!(
        e.to_string().contains("has no option \"NoSuchOption\""),
        "{e}"
    );
}

/// A shell script that speaks just enough UCI, then does `on_go` when asked to search.
/// Writes an executable shell script.
fn write_script(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    let mut perm = std::fs::metadata(path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(path, perm).unwrap();
}

fn fake_engine(dir: &Path, name: &str, on_go: &str) -> PathBuf {
    let path = dir.join(name);
    let script = format!(
        "#!/bin/sh\nwhile read -r line; do\n  case \"$line\" in\n    uci) echo 'id name Fake'; echo uciok ;;\n    isready) echo readyok ;;\n    go*) {on_go} ;;\n    quit) exit 0 ;;\n  esac\ndone\n"
    );
    write_script(&path, &script);
    path
}

#[test]
fn a_program_that_is_not_a_uci_engine_is_a_clear_error() {
    let (start, moves) = game(QUEEN_HUNG);
    let engine = spec(Path::new("/bin/true"), 1000, Vec::new());
    let e = analyse(&start, &moves, None, false, &options(engine)).unwrap_err();
    assert_eq!(e.kind, EngineErrorKind::NotUci);
    assert_eq!(
        e.to_string(),
        "engine /bin/true: no `uciok` in answer to `uci`: not a UCI engine"
    );
}

#[test]
fn an_engine_that_crashes_names_the_position_and_is_restarted() {
    let dir = tempfile::tempdir().unwrap();
    let crash = fake_engine(dir.path(), "crash", "exit 3");
    let (start, moves) = game(QUEEN_HUNG);
    let engine = spec(&crash, 1000, Vec::new());
    let e = analyse(&start, &moves, None, false, &options(engine)).unwrap_err();
    assert_eq!(e.kind, EngineErrorKind::Died);
    // The first position the first tier marked: the one before 2. Nf3, next to 2... Qg5.
    let ply = e.ply.unwrap();
    let mut pos = start;
    for &m in &moves[..ply as usize] {
        pos.play_unchecked(m);
    }
    assert!(
        e.to_string().contains(&format!(
            "engine {}: it stopped answering (crashed or quit) at position {} (ply {ply}",
            crash.display(),
            pos.fen()
        )),
        "{e}"
    );
    // The next game gets a fresh process (and fails the same way, not with a dead pipe).
    let e = analyse(&start, &moves, None, false, &options(engine)).unwrap_err();
    assert_eq!(e.kind, EngineErrorKind::Died);
}

#[test]
fn an_engine_that_hangs_times_out() {
    let dir = tempfile::tempdir().unwrap();
    let hang = fake_engine(dir.path(), "hang", "sleep 30");
    let (start, moves) = game(QUEEN_HUNG);
    let engine = Box::leak(Box::new(EngineSpec {
        search_timeout: Duration::from_millis(300),
        ..spec(&hang, 1000, Vec::new()).clone()
    }));
    let e = analyse(&start, &moves, None, false, &options(engine)).unwrap_err();
    assert_eq!(e.kind, EngineErrorKind::Timeout(Duration::from_millis(300)));
}

/// A database holding `testdata/analysis/blunders.pgn` (two short games, each with a move the
/// first tier marks), imported without analysis.
fn blunders_db(dir: &Path) -> PathBuf {
    let db = dir.join("a.sqlite");
    let out = Command::new(BIN)
        .args([
            "import",
            "testdata/analysis/blunders.pgn",
            "--quiet",
            "--db",
        ])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    db
}

fn count(db: &Path, sql: &str) -> i64 {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

fn analyse_db(db: &Path, extra: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .args(["analyse", "--quiet", "--jobs", "1", "--db"])
        .arg(db)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn an_engine_that_cannot_start_is_a_usage_error_before_anything_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    let db = blunders_db(dir.path());
    let not_executable = dir.path().join("engine.txt");
    std::fs::write(&not_executable, "not a program").unwrap();
    let not_uci = PathBuf::from("/bin/true");
    for engine in [Path::new("/nonexistent/engine"), &not_executable, &not_uci] {
        let out = analyse_db(&db, &["--engine", engine.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{engine:?}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--engine: engine "), "{err}");
        // `import --engine` checks it before importing too.
        let other = dir.path().join("b.sqlite");
        let out = Command::new(BIN)
            .args(["import", "testdata/analysis/blunders.pgn", "-q", "--db"])
            .arg(&other)
            .arg("--engine")
            .arg(engine)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        assert!(!other.exists() || count(&other, "SELECT count(*) FROM games") == 0);
    }
    assert_eq!(count(&db, "SELECT count(*) FROM analyses"), 0);
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM findings WHERE code LIKE 'analysis.%'"
        ),
        0
    );
}

#[test]
fn an_engine_that_crashes_is_restarted_the_game_retried_once_then_marked_failed() {
    let dir = tempfile::tempdir().unwrap();
    let db = blunders_db(dir.path());
    let starts = dir.path().join("starts");
    // Each start leaves a line in `starts`; every search crashes.
    let crash = fake_engine(dir.path(), "crash", "exit 3");
    let script = std::fs::read_to_string(&crash).unwrap().replacen(
        "while read",
        &format!("echo started >> {}\nwhile read", starts.display()),
        1,
    );
    std::fs::write(&crash, script).unwrap();
    let out = analyse_db(&db, &["--engine", crash.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("failed                2"), "{stdout}");
    // One start to check it, then two a game (the first try and the retry).
    let started = std::fs::read_to_string(&starts).unwrap().lines().count();
    assert_eq!(started, 1 + 2 * 2);
    assert_eq!(count(&db, "SELECT count(*) FROM analyses"), 0);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let detail: String = conn
        .query_row(
            "SELECT detail FROM findings WHERE code = ?1 ORDER BY id LIMIT 1",
            [code::ENGINE_FAILED],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        detail.contains("it stopped answering (crashed or quit) at position")
            && detail.contains("tried twice"),
        "{detail}"
    );
    // A second run tries the failed games again (nothing was analysed), and the finding is
    // replaced, not repeated.
    analyse_db(&db, &["--engine", crash.to_str().unwrap()]);
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM findings WHERE code = 'analysis.engine-failed'"
        ),
        2
    );
}

#[test]
fn an_engine_that_hangs_hits_the_timeout_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let db = blunders_db(dir.path());
    let hang = fake_engine(dir.path(), "hang", "sleep 30");
    let out = analyse_db(
        &db,
        &["--engine", hang.to_str().unwrap(), "--engine-timeout", "1"],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let conn = rusqlite::Connection::open(&db).unwrap();
    let details: Vec<String> = conn
        .prepare("SELECT detail FROM findings WHERE code = 'analysis.engine-failed'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(details.len(), 2, "{details:?}");
    assert!(details[0].contains("no answer within 1 s"), "{details:?}");
}

#[test]
fn an_illegal_reply_keeps_the_evaluations_made_and_says_what_was_asked() {
    let dir = tempfile::tempdir().unwrap();
    let db = blunders_db(dir.path());
    let liar = fake_engine(
        dir.path(),
        "liar",
        "echo 'info depth 1 score cp 0 nodes 10'; echo 'bestmove a1a1'",
    );
    // Without the sweep, the first question is a budgeted search after 1. e4.
    let out = analyse_db(
        &db,
        &[
            "--engine",
            liar.to_str().unwrap(),
            "--engine-sweep-nodes",
            "0",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // Both games are analysed (arbiter's own evaluations where the engine gave none)…
    assert_eq!(count(&db, "SELECT count(*) FROM analyses"), 2);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let detail: String = conn
        .query_row(
            "SELECT detail FROM findings WHERE code = 'analysis.engine-failed' ORDER BY id",
            [],
            |r| r.get(0),
        )
        .unwrap();
    // …and the finding has the answer and the question.
    assert!(
        detail.contains("it answered \"bestmove a1a1\"")
            && detail.contains(
                "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 moves e2e4"
            )
            && detail.contains("go nodes 1000000"),
        "{detail}"
    );

    // With the sweep (the default), the first question is the sweep's, at the start; a sweep
    // cut short marks nothing, so arbiter's own labels stand.
    let out = analyse_db(&db, &["--engine", liar.to_str().unwrap(), "--redo"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let detail: String = conn
        .query_row(
            "SELECT detail FROM findings WHERE code = 'analysis.engine-failed' ORDER BY id",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        detail.contains("go nodes 20000") && detail.contains("(ply 0 of the game)"),
        "{detail}"
    );
    assert!(
        count(
            &db,
            "SELECT count(*) FROM findings WHERE code = 'analysis.blunder' AND detail LIKE '%[arbiter]'"
        ) >= 2,
        "arbiter's own blunders are kept"
    );
}

#[test]
fn engine_flags_are_checked() {
    let out = Command::new(BIN)
        .args(["check", "testdata/sample.pgn", "--engine-nodes", "5"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = Command::new(BIN)
        .args([
            "check",
            "testdata/sample.pgn",
            "--engine",
            "x",
            "--engine-option",
            "Hash",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not NAME=VALUE"));
}

/// Runs `arbiter uci` on a script and returns its output lines.
fn uci_session(script: &str) -> Vec<String> {
    let mut child = Command::new(BIN)
        .arg("uci")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn arbiter_speaks_uci() {
    let lines = uci_session(
        "uci\nisready\nucinewgame\nposition startpos moves e2e4 e7e5\ngo nodes 5000\n\
         isready\nposition fen 6k1/5ppp/8/8/8/8/1R3PPP/6K1 w - - 0 1\ngo depth 4\n\
         position startpos\ngo infinite\nstop\nquit\n",
    );
    assert_eq!(
        lines[0],
        concat!("id name arbiter ", env!("CARGO_PKG_VERSION"))
    );
    assert!(lines.contains(&"uciok".to_string()));
    assert_eq!(lines.iter().filter(|l| *l == "readyok").count(), 2);
    let best: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("bestmove "))
        .collect();
    assert_eq!(best.len(), 3, "{lines:?}");
    // The node-limited search ran to its limit (not stopped by the next commands).
    let info = lines.iter().find(|l| l.starts_with("info depth")).unwrap();
    assert!(info.contains(" nodes 5000 "), "{info}");
    // Mate in one is found and reported as such.
    assert_eq!(best[1], "bestmove b2b8");
    assert!(lines.iter().any(|l| l.contains("score mate 1 ")));
    // After `stop`, the infinite search still answers with a legal move.
    let mv = best[2].trim_start_matches("bestmove ");
    let pos = Position::new();
    assert!(parse_uci(&pos, mv).is_ok(), "{mv}");
}

#[test]
fn a_bad_position_command_is_reported_and_ignored() {
    let lines = uci_session("position startpos moves e2e5\ngo depth 1\nquit\n");
    assert!(
        lines[0].starts_with("info string move 1 (e2e5) is not legal"),
        "{lines:?}"
    );
    assert!(lines.iter().any(|l| l.starts_with("bestmove ")));
}

#[test]
fn arbiter_uci_honours_searchmoves() {
    // Alone, arbiter plays a developing move; told to choose between two rook-pawn moves it
    // plays one of them, and a single allowed move is played whatever it is worth.
    let lines = uci_session(
        "uci\nposition startpos\ngo nodes 3000 searchmoves a2a3 h2h3\nisready\n\
         position startpos moves e2e4 e7e5\ngo nodes 3000 searchmoves e1e2\nisready\nquit\n",
    );
    let best: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("bestmove "))
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(best.len(), 2, "{lines:?}");
    assert!(["a2a3", "h2h3"].contains(&best[0]), "{best:?}");
    assert_eq!(best[1], "e1e2");
}

#[test]
fn arbiter_passes_as_its_own_engine() {
    // `arbiter uci` as the second tier: every search answers a legal move, so both games are
    // analysed without an engine failure.
    let dir = tempfile::tempdir().unwrap();
    let db = blunders_db(dir.path());
    let wrapper = dir.path().join("arbiter-uci");
    write_script(&wrapper, &format!("#!/bin/sh\nexec {BIN} uci\n"));
    let out = analyse_db(
        &db,
        &[
            "--engine",
            wrapper.to_str().unwrap(),
            "--engine-nodes",
            "5000",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(count(&db, "SELECT count(*) FROM analyses"), 2);
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM findings WHERE code = 'analysis.engine-failed'"
        ),
        0
    );
    assert!(count(&db, "SELECT count(*) FROM evaluations WHERE engine = 1") > 0);
}

#[test]
fn stockfish_end_to_end_labels_the_blunders_with_a_fraction_of_the_positions() {
    if !crate::common::long() {
        return;
    }
    let Some(sf) = stockfish() else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = blunders_db(dir.path());
    let out = analyse_db(&db, &["--engine", sf.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("engine "), "{stdout}");
    // 2... Qg5 is a blunder judged by Stockfish at 1,000,000 nodes.
    let conn = rusqlite::Connection::open(&db).unwrap();
    let detail: String = conn
        .query_row(
            "SELECT detail FROM findings WHERE code = 'analysis.blunder' AND ply = 4 AND game_id = 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        detail.contains("2... Qg5 is a blunder") && detail.contains("[Stockfish"),
        "{detail}"
    );
    let (positions, searchable, settings): (i64, i64, String) = conn
        .query_row(
            "SELECT sum(engine_positions), sum(positions), min(settings) FROM analyses",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert!(
        positions > 0 && positions < searchable,
        "{positions}/{searchable}"
    );
    assert!(settings.contains("\"nodes\":1000000"), "{settings}");
    assert!(settings.contains("\"sweep_nodes\":20000"), "{settings}");
    // The same command again finds everything done.
    let out = analyse_db(&db, &["--engine", sf.to_str().unwrap()]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("skipped               2"),
        "{out:?}"
    );
}

/// A scripted UCI engine whose answer depends on the node limit asked and on the ply of the
/// position (`position fen START moves m1 … mk` is ply k): `levels` gives, per node limit,
/// each ply's score (centipawns from the side to move) and best move. It logs every `go` as
/// `NODES:PLY` to `<path>.log`.
fn table_engine(dir: &Path, name: &str, levels: &[(u64, Vec<(i32, &str)>)]) -> PathBuf {
    let path = dir.join(name);
    let mut cases = String::new();
    for (nodes, plies) in levels {
        for (ply, (cp, best)) in plies.iter().enumerate() {
            cases.push_str(&format!("        {nodes}:{ply}) cp={cp}; best={best} ;;\n"));
        }
    }
    let script = format!(
        "#!/bin/sh\nply=0\nwhile read -r line; do\n  case \"$line\" in\n    uci) echo 'id name Table'; echo uciok ;;\n    isready) echo readyok ;;\n    position*) set -- $line; if [ $# -gt 8 ]; then ply=$(($# - 9)); else ply=0; fi ;;\n    go*) set -- $line; nodes=$3; echo \"$nodes:$ply\" >> '{log}'\n      case \"$nodes:$ply\" in\n{cases}        *) cp=0; best=0000 ;;\n      esac\n      echo \"info depth 9 score cp $cp nodes $nodes pv $best\"; echo \"bestmove $best\" ;;\n    quit) exit 0 ;;\n  esac\ndone\n",
        log = path.with_extension("log").display(),
    );
    write_script(&path, &script);
    path
}

/// `1. e4 e5 2. Nf3 Nc6 3. Bb5 a6`, and a legal move in the final position.
const RUY: &str = "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6";
const RUY_BEST: [&str; 7] = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4"];

/// Per ply: 0 until ply 2, then Black 1.20 ahead from ply 3 on (so only 2. Nf3 loses
/// anything); `after` is Black's score after 2. Nf3 and `best2` the best move before it.
fn ruy_level(after: i32, best2: &'static str) -> Vec<(i32, &'static str)> {
    (0..7)
        .map(|ply| {
            let cp = match ply {
                0..=2 => 0,
                3 => after,
                _ if ply % 2 == 1 => 120,
                _ => -120,
            };
            (cp, if ply == 2 { best2 } else { RUY_BEST[ply] })
        })
        .collect()
}

/// The table engine at 50,000 nodes, its sweep at 2,000 and its second look at `refine`.
fn table_spec(path: &Path, refine: u64) -> &'static EngineSpec {
    Box::leak(Box::new(EngineSpec {
        sweep_nodes: 2_000,
        refine_nodes: refine,
        ..spec(path, 50_000, Vec::new()).clone()
    }))
}

fn logged(engine: &Path) -> Vec<String> {
    std::fs::read_to_string(engine.with_extension("log"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn the_second_look_marks_a_move_the_sweep_put_just_under_the_mark() {
    let dir = tempfile::tempdir().unwrap();
    // The sweep (2,000 nodes) puts 2. Nf3 4.1 Win% points down (Black +0.45): under the mark
    // (5), over `REFINE_FROM` (4). The second look (10,000) says +1.20: 10.9 points.
    let levels = [
        (2_000, ruy_level(45, "b1c3")),
        (10_000, ruy_level(120, "b1c3")),
        (50_000, ruy_level(120, "b1c3")),
    ];
    let path = table_engine(dir.path(), "table", &levels);
    let (start, moves) = game(RUY);
    let with = table_spec(&path, 10_000);
    let a = analyse(&start, &moves, None, false, &options(with)).unwrap();
    assert_eq!(a.moves[2].judgement, Some(Judgement::Mistake), "{a:#?}");
    assert_eq!(a.moves[2].tier, Tier::Engine);
    assert!(a.evals[2].engine && a.evals[3].engine);
    assert_eq!(a.engine.positions, 2, "{:?}", a.engine);
    // Every position swept, the two ends looked at again, then searched at the budget.
    let log = logged(&path);
    let sweep: Vec<String> = (0..=6).map(|p| format!("2000:{p}")).collect();
    assert_eq!(log[..7], sweep[..]);
    assert_eq!(log[7..], ["10000:2", "10000:3", "50000:2", "50000:3"]);
    assert_eq!(a.engine.nodes, 7 * 2_000 + 2 * 10_000 + 2 * 50_000);
    // The second look is part of the settings recorded with the analysis.
    let settings: serde_json::Value = serde_json::from_str(&a.settings).unwrap();
    assert_eq!(settings["uci_engine"]["refine_nodes"], 10_000);
    assert_eq!(settings["uci_engine"]["refine_from"], 4.0);
    assert_eq!(settings["uci_engine"]["refine_mark"], 5.0);

    // Without the second look the move is not marked, and gets no label.
    std::fs::remove_file(path.with_extension("log")).unwrap();
    let without = table_spec(&path, 0);
    let b = analyse(&start, &moves, None, false, &options(without)).unwrap();
    assert_eq!(b.moves[2].judgement, None);
    assert_eq!(b.engine.positions, 0);
    assert_eq!(logged(&path).len(), 7);
}

#[test]
fn a_move_the_engine_finds_best_at_its_budget_needs_no_search_after_it() {
    let dir = tempfile::tempdir().unwrap();
    // The sweep marks 2. Nf3 (10.9 points down, its best 2. Nc3); at the budget the engine
    // finds 2. Nf3 best, so lichess gives it no label and the position after it is not needed.
    let levels = [
        (2_000, ruy_level(120, "b1c3")),
        (50_000, ruy_level(120, "g1f3")),
    ];
    let path = table_engine(dir.path(), "table", &levels);
    let (start, moves) = game(RUY);
    let engine = table_spec(&path, 10_000);
    let a = analyse(&start, &moves, None, false, &options(engine)).unwrap();
    assert_eq!(a.moves[2].judgement, None, "{a:#?}");
    assert_eq!(a.moves[2].tier, Tier::Engine);
    assert!(a.evals[2].engine && !a.evals[3].engine);
    assert_eq!(logged(&path)[7..], ["50000:2"]);
    assert_eq!(a.engine.positions, 1);
}

#[test]
fn a_move_the_sweep_found_best_is_not_marked() {
    let dir = tempfile::tempdir().unwrap();
    // The sweep's own best, 2. Nf3, seems to lose 10.9 points: its noise, not a label.
    let levels = [(2_000, ruy_level(120, "g1f3"))];
    let path = table_engine(dir.path(), "table", &levels);
    let (start, moves) = game(RUY);
    let engine = table_spec(&path, 10_000);
    let a = analyse(&start, &moves, None, false, &options(engine)).unwrap();
    assert_eq!(a.moves[2].judgement, None, "{a:#?}");
    assert_eq!(logged(&path).len(), 7);
}

#[test]
fn without_engine_the_stockfish_on_path_is_used_and_named_and_none_means_the_own_search() {
    // A `stockfish` first on PATH (`arbiter uci` under that name, so that the run is short
    // and exact) is found without --engine, by `analyse`, `import --analyse` and
    // `check --analyse`; stderr names it, its path and its budget.
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let fake = bin.join("stockfish");
    write_script(&fake, &format!("#!/bin/sh\nexec {BIN} uci\n"));
    let path = std::env::join_paths(
        std::iter::once(bin.clone())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let small = [
        "--engine-nodes",
        "3000",
        "--engine-sweep-nodes",
        "500",
        "--engine-refine-nodes",
        "0",
    ];
    let db = blunders_db(dir.path());
    let run = |args: &[&str]| {
        Command::new(BIN)
            .args(args)
            .env("PATH", &path)
            .output()
            .unwrap()
    };
    let name = concat!("arbiter ", env!("CARGO_PKG_VERSION"));
    let said = format!(
        "analysis: {name} ({}, found; --engine none for arbiter's own search), 3000 nodes a \
         position, sweep 500 nodes, second look 0 nodes",
        fake.display()
    );
    let db_arg = db.to_str().unwrap();
    let mut analyse = vec!["analyse", "--quiet", "--jobs", "1", "--db", db_arg];
    analyse.extend(small);
    let out = run(&analyse);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(&said),
        "{out:?}"
    );
    let settings: String = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("SELECT min(settings) FROM analyses", [], |r| r.get(0))
        .unwrap();
    assert!(
        settings.contains(&format!("\"path\":\"{}\"", fake.display()))
            && settings.contains("\"nodes\":3000"),
        "{settings}"
    );

    let other = dir.path().join("imported.sqlite");
    let mut import = vec![
        "import",
        "-q",
        "--analyse",
        "testdata/analysis/blunders.pgn",
    ];
    import.extend(small);
    import.extend(["--db", other.to_str().unwrap()]);
    let out = run(&import);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(&said),
        "{out:?}"
    );
    assert_eq!(
        count(
            &other,
            "SELECT count(*) FROM analyses WHERE engine_positions > 0"
        ),
        2
    );

    let mut check = vec!["check", "-q", "--analyse", "testdata/analysis/blunders.pgn"];
    check.extend(small);
    let out = run(&check);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(&said),
        "{out:?}"
    );

    // `--engine none`: arbiter's own search, and nothing said about engines.
    let own = dir.path().join("own.sqlite");
    let out = run(&[
        "import",
        "-q",
        "--engine",
        "none",
        "testdata/analysis/blunders.pgn",
        "--db",
        own.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("analysis:"),
        "{out:?}"
    );
    assert_eq!(
        count(
            &own,
            "SELECT count(*) FROM analyses WHERE settings NOT LIKE '%uci_engine%'"
        ),
        2
    );
    // Engine settings with no engine are a usage error, not ignored.
    let mut none = vec!["analyse", "-q", "--db", db_arg, "--engine", "none"];
    none.extend(small);
    let out = run(&none);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("--engine none runs arbiter's own search alone"),
        "{out:?}"
    );
}
