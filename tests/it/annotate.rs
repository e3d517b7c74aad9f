//! `export --annotate` with the better move (issue 45 §2): each evaluation keeps its search's
//! principal variation (schema version 12), and a labelled move gets lichess's comment and the
//! engine's line as a variation, read back by python-chess and pgn-extract. A scripted UCI
//! engine gives a known line; arbiter's own search fills the line too.

use arbiter::chess::uci::parse_uci;
use arbiter::chess::{Move, Position};
use arbiter::search::analysis::{AnalysisOptions, analyse_game};
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_arbiter");

/// Writes an executable shell script.
fn write_script(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    let mut perm = std::fs::metadata(path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(path, perm).unwrap();
}

/// A scripted UCI engine: at ply k (`position fen START moves m1 … mk`) it answers, whatever
/// the limit, `plies[k]`'s score (centipawns from the side to move) and principal variation
/// (UCI moves, its first the best move). `options` are `option` lines it offers. It logs every
/// line it receives to `<path>.log`.
pub fn scripted_engine(dir: &Path, plies: &[(i32, &str)], options: &[&str]) -> PathBuf {
    let path = dir.join("scripted");
    let cases: String = plies
        .iter()
        .enumerate()
        .map(|(ply, (cp, pv))| format!("        {ply}) cp={cp}; pv='{pv}' ;;\n"))
        .collect();
    let offered: String = options.iter().map(|o| format!("echo '{o}'; ")).collect();
    let script = format!(
        "#!/bin/sh\nply=0\nwhile read -r line; do\n  echo \"$line\" >> '{log}'\n  case \"$line\" in\n    uci) echo 'id name Scripted'; {offered}echo uciok ;;\n    isready) echo readyok ;;\n    position*) set -- $line; if [ $# -gt 8 ]; then ply=$(($# - 9)); else ply=0; fi ;;\n    go*) set -- $line; nodes=$3\n      case \"$ply\" in\n{cases}        *) cp=0; pv=0000 ;;\n      esac\n      echo \"info depth 9 score cp $cp nodes $nodes pv $pv\"; set -- $pv; echo \"bestmove $1\" ;;\n    quit) exit 0 ;;\n  esac\ndone\n",
        log = path.with_extension("log").display(),
    );
    write_script(&path, &script);
    path
}

/// `1. e4 e5 2. Nf3 Nc6 3. Bb5 a6`: level until 2. Nf3, which the engine puts at Black +1.20
/// (a mistake: 10.8 Win% points), its line 2. Nc3 Nc6 3. Bc4 Nf6 instead.
const RUY: &str = "[Event \"annotate\"]\n[Site \"testdata\"]\n[Date \"2026.12.01\"]\n\
    [Round \"1\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"*\"]\n\n\
    1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n";
const RUY_PLIES: [(i32, &str); 7] = [
    (0, "e2e4 e7e5"),
    (0, "e7e5 g1f3"),
    (0, "b1c3 b8c6 f1c4 g8f6"),
    (120, "b8c6 f1b5"),
    (-120, "f1b5 a7a6"),
    (120, "a7a6 b5a4"),
    (-120, "b5a4 g8f6"),
];

fn run(args: &[&str]) -> std::process::Output {
    let out = Command::new(BIN).args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
    out
}

/// `pgn`'s games imported, then analysed by `engine` (a sweep, no second look).
fn analysed_db(dir: &Path, pgn: &str, engine: &Path) -> PathBuf {
    let file = dir.join("g.pgn");
    std::fs::write(&file, pgn).unwrap();
    let db = dir.join("a.sqlite");
    let s = |p: &Path| p.to_str().unwrap().to_owned();
    run(&["import", &s(&file), "--quiet", "--db", &s(&db)]);
    analyse_with(&db, engine, "50000", &[]);
    db
}

/// `analyse --db` with `engine` at `nodes`, a sweep at 2,000 and no second look.
fn analyse_with(db: &Path, engine: &Path, nodes: &str, extra: &[&str]) -> std::process::Output {
    let (db, engine) = (db.to_str().unwrap(), engine.to_str().unwrap());
    let mut args = vec![
        "analyse", "--quiet", "--jobs", "1", "--db", db, "--engine", engine,
    ];
    args.extend(["--engine-nodes", nodes, "--engine-sweep-nodes", "2000"]);
    args.extend(["--engine-refine-nodes", "0"]);
    args.extend(extra);
    run(&args)
}

/// pgn-extract on PATH or where Debian puts it.
fn pgn_extract() -> Option<PathBuf> {
    let found = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| d.join("pgn-extract"))
        .chain([PathBuf::from("/usr/games/pgn-extract")])
        .find(|p| p.is_file());
    if found.is_none() {
        eprintln!("SKIPPED: pgn-extract is not on PATH nor at /usr/games/pgn-extract");
    }
    found
}

/// python-chess, or `None` after a note.
fn python_chess() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import chess.pgn"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("SKIPPED: python3 with python-chess (pip install chess) is not here");
    }
    ok
}

#[test]
fn a_labelled_move_gets_the_better_move_and_the_engines_line_which_python_chess_and_pgn_extract_read()
 {
    let dir = tempfile::tempdir().unwrap();
    let engine = scripted_engine(dir.path(), &RUY_PLIES, &[]);
    let db = analysed_db(dir.path(), RUY, &engine);
    // The line is stored with the evaluation: four moves, two bytes each.
    let conn = rusqlite::Connection::open(&db).unwrap();
    let stored: Vec<u8> = conn
        .query_row("SELECT pv FROM evaluations WHERE ply = 2", [], |r| r.get(0))
        .unwrap();
    assert_eq!(stored.len(), 8);
    let out = run(&["export", "--db", db.to_str().unwrap(), "--annotate"]);
    let text = String::from_utf8(out.stdout).unwrap();
    let movetext = text.split("\n\n").nth(1).unwrap().replace('\n', " ");
    assert!(
        movetext.contains(
            "2. Nf3 $2 {[%eval -1.20,9]} {Mistake. Nc3 was best.} (2. Nc3 Nc6 3. Bc4 Nf6) \
             2... Nc6 {[%eval -1.20,9]}"
        ),
        "{movetext}"
    );
    // Without --annotate the better move is not written.
    let plain = run(&["export", "--db", db.to_str().unwrap()]);
    assert!(
        !String::from_utf8(plain.stdout)
            .unwrap()
            .contains("was best")
    );

    let exported = dir.path().join("annotated.pgn");
    std::fs::write(&exported, &text).unwrap();
    if python_chess() {
        let script = "import sys, chess.pgn\n\
            g = chess.pgn.read_game(open(sys.argv[1]))\n\
            assert not g.errors, g.errors\n\
            node = g.next().next()\n\
            played = node.next()\n\
            assert played.san() == 'Nf3', played.san()\n\
            assert 'Mistake. Nc3 was best.' in played.comment, played.comment\n\
            assert played.nags == {2}, played.nags\n\
            alt = node.variations[1]\n\
            print(' '.join(n.san() for n in [alt] + list(alt.mainline())))\n";
        let out = Command::new("python3")
            .args(["-c", script])
            .arg(&exported)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        assert_eq!(
            String::from_utf8(out.stdout).unwrap().trim(),
            "Nc3 Nc6 Bc4 Nf6"
        );
    }
    if let Some(extract) = pgn_extract() {
        let out = Command::new(extract)
            .args(["-s", "--quiet"])
            .arg(&exported)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let read = String::from_utf8(out.stdout).unwrap().replace('\n', " ");
        assert!(
            read.contains("{ Mistake. Nc3 was best. } (2. Nc3 Nc6 3. Bc4 Nf6) 2... Nc6"),
            "{read}"
        );
    }
}

/// arbiter's own search keeps its principal variation with every evaluation too: its best
/// move first, every move legal in turn.
#[test]
fn the_own_search_keeps_a_legal_line_starting_with_its_best_move() {
    let start = Position::new();
    let mut pos = start;
    let moves: Vec<Move> = "e2e4 e7e5 g1f3 d8g5 f3g5 b8c6 d2d4"
        .split_whitespace()
        .map(|t| {
            let m = parse_uci(&pos, t).unwrap();
            pos.play_unchecked(m);
            m
        })
        .collect();
    let a = analyse_game(&start, &moves, None, false, &AnalysisOptions::default());
    let mut pos = start;
    for (k, e) in a.evals.iter().enumerate() {
        let line = e.pv.as_slice();
        assert_eq!(line.first().copied(), e.best_move, "ply {k}");
        assert!(!line.is_empty(), "ply {k}");
        let mut p = pos;
        for &m in line {
            assert!(p.is_legal(m), "ply {k}: {line:?}");
            p.play_unchecked(m);
        }
        if let Some(&m) = moves.get(k) {
            pos.play_unchecked(m);
        }
    }
    assert!(a.evals.iter().any(|e| e.pv.as_slice().len() > 1));
}

/// A middlegame traded into an endgame, from a FEN: 1. Rxe8+ Rxe8 (eight pieces, then six:
/// the endgame) 2. Nxd5?? (White falls from 0.00 to -2.00, a blunder; Ne4 was the engine's
/// line) Nxd4.
const TRADES: &str = "[Event \"phases\"]\n[Site \"testdata\"]\n[Date \"2026.12.01\"]\n\
    [Round \"2\"]\n[White \"C\"]\n[Black \"D\"]\n[Result \"*\"]\n[SetUp \"1\"]\n\
    [FEN \"r3r1k1/ppp2ppp/2n5/3b4/3B4/2N5/PPP2PPP/R3R1K1 w - - 0 20\"]\n\n\
    20. Rxe8+ Rxe8 21. Nxd5 Nxd4 *\n";
const TRADES_PLIES: [(i32, &str); 5] = [
    (0, "e1e8 a8e8"),
    (0, "a8e8 c3d5"),
    (0, "c3e4 d5e4"),
    (200, "c6d4 g2g3"),
    (-200, "a1d1"),
];

/// The named columns of the one game `db` holds, as JSON.
fn exported_row(db: &Path, columns: &str) -> serde_json::Value {
    let out = run(&[
        "export",
        "--db",
        db.to_str().unwrap(),
        "--format",
        "jsonl",
        "--columns",
        columns,
    ]);
    serde_json::from_str(String::from_utf8(out.stdout).unwrap().trim()).unwrap()
}

#[test]
fn each_sides_accuracy_acpl_and_labels_by_phase_are_exported() {
    let columns = |side: &str| {
        ["opening", "middlegame", "endgame"]
            .iter()
            .flat_map(|p| {
                ["accuracy", "acpl", "inaccuracies", "mistakes", "blunders"]
                    .map(|f| format!("{side}_{p}_{f}"))
            })
            .collect::<Vec<_>>()
    };
    let all = [columns("white"), columns("black")].concat();
    let figures = |row: &serde_json::Value, side: &str| -> Vec<String> {
        columns(side).iter().map(|c| row[c].to_string()).collect()
    };
    // The Ruy Lopez's six plies are all the opening's. White: 1. e4 from lichess's +0.15 to
    // 0.00 (15), 2. Nf3 a mistake (120), 3. Bb5 nothing: ACPL 45; Black lost nothing.
    let dir = tempfile::tempdir().unwrap();
    let engine = scripted_engine(dir.path(), &RUY_PLIES, &[]);
    let db = analysed_db(dir.path(), RUY, &engine);
    let row = exported_row(&db, &format!("white_accuracy,{}", all.join(",")));
    let null5 = ["null"; 5].map(str::to_owned);
    assert_eq!(
        figures(&row, "white")[..5],
        [
            row["white_accuracy"].to_string(),
            "45".into(),
            "0".into(),
            "1".into(),
            "0".into()
        ]
    );
    assert_eq!(figures(&row, "white")[5..10], null5);
    assert_eq!(figures(&row, "white")[10..], null5);
    assert_eq!(figures(&row, "black")[..5], ["100.0", "0", "0", "0", "0"]);
    assert_eq!(
        figures(&row, "black")[5..],
        [null5.clone(), null5.clone()].concat()
    );

    // The FEN game: both sides' first moves in the middlegame, their second in the endgame,
    // where White's 21. Nxd5 loses 200 (move accuracy 45.7, lichess's formula).
    let dir = tempfile::tempdir().unwrap();
    let engine = scripted_engine(dir.path(), &TRADES_PLIES, &[]);
    let db = analysed_db(dir.path(), TRADES, &engine);
    let row = exported_row(&db, &all.join(","));
    assert_eq!(figures(&row, "white")[..5], null5);
    assert_eq!(
        figures(&row, "white")[5..],
        ["100.0", "0", "0", "0", "0", "45.7", "200", "0", "0", "1"]
    );
    assert_eq!(
        figures(&row, "black")[5..],
        ["100.0", "0", "0", "0", "0", "100.0", "0", "0", "0", "0"]
    );
    // The default columns carry accuracy and ACPL by phase, the label counts only when
    // chosen.
    let out = run(&["export", "--db", db.to_str().unwrap(), "--format", "csv"]);
    let header = String::from_utf8(out.stdout).unwrap();
    let header = header.lines().next().unwrap();
    assert!(header.contains("white_endgame_acpl") && header.contains("black_opening_accuracy"));
    assert!(!header.contains("endgame_blunders"), "{header}");
}

/// A Chess960 game (the Variant tag, castling rights of the rooks on a and h): 1. O-O O-O-O,
/// in UCI as the king taking its rook.
const CASTLES_960: &str = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";

fn chess960_game() -> (Position, Vec<Move>) {
    let setup = arbiter::chess::fen::parse_setup(CASTLES_960).unwrap();
    let start = Position::from_setup(&setup, true).unwrap();
    let mut pos = start;
    let moves = ["e1h1", "e8a8"]
        .iter()
        .map(|t| {
            let m = parse_uci(&pos, t).unwrap();
            assert!(m.is_castle());
            pos.play_unchecked(m);
            m
        })
        .collect();
    (start, moves)
}

fn engine_options(engine: &Path) -> AnalysisOptions {
    let spec = Box::leak(Box::new(arbiter::search::EngineSpec {
        path: engine.to_path_buf(),
        limit: arbiter::search::EngineLimit::Nodes(50_000),
        threads: 1,
        options: Vec::new(),
        search_timeout: std::time::Duration::from_secs(20),
        sweep_nodes: 2_000,
        refine_nodes: 0,
    }));
    AnalysisOptions {
        engine: Some(spec),
        ..AnalysisOptions::default()
    }
}

#[test]
fn a_chess960_game_turns_the_engines_chess960_mode_on_and_castles_king_takes_rook() {
    let dir = tempfile::tempdir().unwrap();
    let plies = [(0, "e1h1 e8a8"), (0, "e8a8 g1h1"), (0, "g1h1")];
    let option = "option name UCI_Chess960 type check default false";
    let engine = scripted_engine(dir.path(), &plies, &[option]);
    let (start, moves) = chess960_game();
    let a =
        arbiter::search::analyse(&start, &moves, None, false, &engine_options(&engine)).unwrap();
    assert!(a.engine_failure.is_none(), "{a:#?}");
    assert!(a.evals.iter().all(|e| e.nodes > 0), "{a:#?}");
    let log = std::fs::read_to_string(engine.with_extension("log")).unwrap();
    let lines: Vec<&str> = log.lines().collect();
    let on = lines
        .iter()
        .position(|l| *l == "setoption name UCI_Chess960 value true")
        .expect("UCI_Chess960 set");
    assert!(on < lines.iter().position(|l| *l == "ucinewgame").unwrap());
    assert!(
        lines.contains(&format!("position fen {CASTLES_960} moves e1h1 e8a8").as_str()),
        "{log}"
    );
    // The same engine on a standard game: the mode goes off again before it.
    let start = Position::new();
    let e4 = parse_uci(&start, "e2e4").unwrap();
    std::fs::remove_file(engine.with_extension("log")).unwrap();
    arbiter::search::analyse(&start, &[e4], None, false, &engine_options(&engine)).unwrap();
    let log = std::fs::read_to_string(engine.with_extension("log")).unwrap();
    assert!(
        log.starts_with("setoption name UCI_Chess960 value false\nucinewgame"),
        "{log}"
    );

    // An engine without the option is sent none.
    let dir = tempfile::tempdir().unwrap();
    let plain = scripted_engine(dir.path(), &plies, &[]);
    let (start, moves) = chess960_game();
    arbiter::search::analyse(&start, &moves, None, false, &engine_options(&plain)).unwrap();
    let log = std::fs::read_to_string(plain.with_extension("log")).unwrap();
    assert!(!log.contains("UCI_Chess960"), "{log}");
}

/// Stockfish on a real Chess960 game whose castling differs between the two forms (game 6 of
/// the corpus's `pychess-chess960rwch.pgn`: 11. O-O is `e1h1`, not `e1g1`): every position
/// evaluated, no engine failure.
#[test]
fn stockfish_analyses_a_corpus_chess960_game_with_its_castling() {
    let Some(corpus) = crate::common::corpus() else {
        return;
    };
    let Some(sf) = crate::common::stockfish() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = corpus.join("games/chess960/pychess-chess960rwch.pgn");
    let db = dir.path().join("a.sqlite");
    let s = |p: &Path| p.to_str().unwrap().to_owned();
    run(&["import", &s(&file), "--quiet", "--db", &s(&db)]);
    let out = analyse_with(&db, &sf, "20000", &["--where", "g.game_number = 6"]);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let one = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
    assert_eq!(
        one("SELECT count(*) FROM games WHERE game_number = 6 AND variant = 'chess960'"),
        1
    );
    assert_eq!(
        one("SELECT count(*) FROM findings WHERE code = 'analysis.engine-failed'"),
        0,
        "{out:?}"
    );
    // 98 plies: 99 positions, each evaluated by the engine's sweep or budget.
    assert_eq!(
        one(
            "SELECT count(*) FROM evaluations e JOIN games g ON g.id = e.game_id \
             WHERE g.game_number = 6 AND e.nodes > 0"
        ),
        99,
    );
}
