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
    run(&[
        "analyse",
        "--quiet",
        "--jobs",
        "1",
        "--db",
        &s(&db),
        "--engine",
        &s(engine),
        "--engine-nodes",
        "50000",
        "--engine-sweep-nodes",
        "2000",
        "--engine-refine-nodes",
        "0",
    ]);
    db
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
