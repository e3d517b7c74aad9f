//! UCI both ways: `--engine` analysis through a UCI engine (Stockfish when it is installed,
//! skipped loudly otherwise; a scripted fake engine for the failures: not UCI, rejected
//! option, crash mid-game), and `arbiter uci` driven by a scripted session through the real
//! binary.

use arbiter::chess::uci::parse_uci;
use arbiter::chess::{Move, Position};
use arbiter::search::analysis::{AnalysisOptions, Judgement, analyse, code};
use arbiter::search::engine::EngineErrorKind;
use arbiter::search::{EngineLimit, EngineSpec, Score};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_arbiter");

fn stockfish() -> Option<PathBuf> {
    let found = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| d.join("stockfish"))
        .chain([PathBuf::from("/usr/games/stockfish")])
        .find(|p| p.is_file());
    if found.is_none() {
        eprintln!("SKIPPED: stockfish is not on PATH nor at /usr/games/stockfish");
    }
    found
}

fn spec(path: &Path, nodes: u64, options: Vec<(String, String)>) -> &'static EngineSpec {
    Box::leak(Box::new(EngineSpec {
        path: path.to_path_buf(),
        limit: EngineLimit::Nodes(nodes),
        threads: 1,
        options,
        search_timeout: Duration::from_secs(20),
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

fn options(engine: &'static EngineSpec) -> AnalysisOptions {
    AnalysisOptions {
        engine: Some(engine),
        ..AnalysisOptions::default()
    }
}

#[test]
fn stockfish_finds_the_hung_queen_and_is_recorded_in_the_settings() {
    let Some(sf) = stockfish() else { return };
    let (start, moves) = game("e2e4 e7e5 g1f3 d8g5 f3g5 b8c6 d2d4");
    let engine = spec(&sf, 50_000, vec![("Hash".into(), "16".into())]);
    let a = analyse(&start, &moves, None, false, &options(engine)).unwrap();
    assert_eq!(a.evals.len(), 8);
    assert_eq!(a.moves[3].judgement, Some(Judgement::Blunder), "{a:#?}");
    assert!(matches!(a.evals[4].score_white, Score::Cp(cp) if cp > 500));
    assert!(a.evals.iter().all(|e| e.deep && e.nodes > 0));
    let settings: serde_json::Value = serde_json::from_str(&a.settings).unwrap();
    assert!(
        settings["engine"]
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

#[test]
fn an_option_the_engine_does_not_have_is_named() {
    let Some(sf) = stockfish() else { return };
    let (start, moves) = game("e2e4 e7e5");
    let engine = spec(&sf, 1000, vec![("NoSuchOption".into(), "1".into())]);
    let e = analyse(&start, &moves, None, false, &options(engine)).unwrap_err();
    assert_eq!(e.kind, EngineErrorKind::Option("NoSuchOption".into()));
    assert!(
        e.to_string().contains("has no option \"NoSuchOption\""),
        "{e}"
    );
}

/// A shell script that speaks just enough UCI, then does `on_go` when asked to search.
fn fake_engine(dir: &Path, name: &str, on_go: &str) -> PathBuf {
    let path = dir.join(name);
    let script = format!(
        "#!/bin/sh\nwhile read -r line; do\n  case \"$line\" in\n    uci) echo 'id name Fake'; echo uciok ;;\n    isready) echo readyok ;;\n    go*) {on_go} ;;\n    quit) exit 0 ;;\n  esac\ndone\n"
    );
    std::fs::write(&path, script).unwrap();
    let mut perm = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(&path, perm).unwrap();
    path
}

#[test]
fn a_program_that_is_not_a_uci_engine_is_a_clear_error() {
    let (start, moves) = game("e2e4");
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
    let (start, moves) = game("e2e4 e7e5");
    let engine = spec(&crash, 1000, Vec::new());
    let e = analyse(&start, &moves, None, false, &options(engine)).unwrap_err();
    assert_eq!(e.kind, EngineErrorKind::Died);
    assert_eq!(e.ply, Some(0));
    assert!(
        e.to_string().contains(&format!(
            "engine {}: it stopped answering (crashed or quit) at position {}",
            crash.display(),
            start.fen()
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
    let (start, moves) = game("e2e4");
    let engine = Box::leak(Box::new(EngineSpec {
        search_timeout: Duration::from_millis(300),
        ..spec(&hang, 1000, Vec::new()).clone()
    }));
    let e = analyse(&start, &moves, None, false, &options(engine)).unwrap_err();
    assert_eq!(e.kind, EngineErrorKind::Timeout(Duration::from_millis(300)));
}

#[test]
fn import_stores_the_game_with_an_engine_failed_finding() {
    let dir = tempfile::tempdir().unwrap();
    let crash = fake_engine(dir.path(), "crash", "exit 3");
    let db = dir.path().join("a.sqlite");
    let out = Command::new(BIN)
        .args([
            "import",
            "testdata/sample.pgn",
            "--quiet",
            "--jobs",
            "1",
            "--db",
        ])
        .arg(&db)
        .arg("--engine")
        .arg(&crash)
        .output()
        .unwrap();
    assert!(out.status.code().is_some_and(|c| c <= 1), "{out:?}");
    let conn = rusqlite::Connection::open(&db).unwrap();
    let games: i64 = conn
        .query_row("SELECT count(*) FROM games", [], |r| r.get(0))
        .unwrap();
    let failed: i64 = conn
        .query_row(
            "SELECT count(DISTINCT game_id) FROM findings WHERE code = ?1",
            [code::ENGINE_FAILED],
            |r| r.get(0),
        )
        .unwrap();
    let analyses: i64 = conn
        .query_row("SELECT count(*) FROM analyses", [], |r| r.get(0))
        .unwrap();
    assert!(games > 0);
    assert_eq!((failed, analyses), (games, 0));
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
