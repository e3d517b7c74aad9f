//! The search commands through the real binary: `analyse` output and `epd`'s summary line and
//! exit code.

use std::process::Command;

fn arbiter(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
    )
}

#[test]
fn analyse_prints_move_score_and_pv() {
    let (code, out) = arbiter(&[
        "analyse",
        "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
        "--nodes",
        "200000",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("bestmove Qg6 (g3g6)"), "{out}");
    assert!(out.contains("score    #2"), "{out}");
    assert!(out.contains("pv       1. Qg6 fxg6 2. Nxg6#"), "{out}");
}

#[test]
fn analyse_rejects_a_bad_fen_with_exit_code_2() {
    let (code, _) = arbiter(&["analyse", "not a fen"]);
    assert_eq!(code, 2);
}

#[test]
fn epd_reports_failures_and_a_summary() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("two.epd");
    std::fs::write(
        &suite,
        concat!(
            "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id \"mate\";\n",
            "6k1/5ppp/8/8/8/8/1R3PPP/6K1 w - - am Rb8#; id \"avoid the mate\";\n",
        ),
    )
    .unwrap();
    let (code, out) = arbiter(&[
        "epd",
        "--suite",
        suite.to_str().unwrap(),
        "--nodes",
        "200000",
    ]);
    assert_eq!(code, 1);
    assert!(
        out.contains("FAIL avoid the mate: am Rb8#; played Rb8#"),
        "{out}"
    );
    assert_eq!(out.lines().last(), Some("1 passed, 1 failed, 0 skipped"));
}

#[test]
fn epd_searches_with_the_weights_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("one.epd");
    std::fs::write(
        &suite,
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - bm Nd5; id \"quiet\";\n",
    )
    .unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["epd", "--suite", suite.to_str().unwrap(), "--nodes", "3000"];
        args.extend(extra);
        arbiter(&args).1
    };
    // The engine plays the hand-set weights: naming them changes nothing.
    let own = run(&[]);
    assert_eq!(run(&["--weights", "classic"]), own);
    assert!(
        own.lines().last().unwrap().ends_with("failed, 0 skipped"),
        "{own}"
    );
    let (code, _) = arbiter(&[
        "epd",
        "--suite",
        suite.to_str().unwrap(),
        "--weights",
        "hand",
    ]);
    assert_eq!(code, 2);
}
