//! One name per meaning: `bench --games` and `--jobs` serve `bench import` as they serve
//! `bench synth` and `import`, and `dead --budget` is also `--dead-budget` (check's and
//! import's name); the old names stay as hidden aliases.

use crate::common::cli::{arbiter, ok};

fn text(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

#[test]
fn bench_import_takes_games_and_jobs_and_their_old_names() {
    let pgn = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/duplicates.pgn");
    for (games, jobs) in [("--games", "--jobs"), ("--import-games", "--import-jobs")] {
        let out = ok(&[
            "bench",
            "import",
            games,
            "40",
            "--import-step",
            "20",
            jobs,
            "1",
            "--import-source",
            pgn,
        ]);
        let said = text(&out);
        assert!(
            said.contains("bench import: 40 games in steps of 20"),
            "{games}: {said}"
        );
    }
    let help = text(&ok(&["bench", "--help"]));
    assert!(
        help.contains("--games <N>") && help.contains("--jobs <N>"),
        "{help}"
    );
    assert!(
        !help.contains("--import-games") && !help.contains("--import-jobs"),
        "{help}"
    );
}

#[test]
fn dead_takes_budget_and_dead_budget() {
    let fen = "8/8/4k3/8/8/3K4/8/6N1 w - - 0 1";
    let a = ok(&["dead", fen, "--budget", "5000"]);
    let b = ok(&["dead", fen, "--dead-budget", "5000"]);
    assert_eq!(a.stdout, b.stdout);
    assert!(text(&a).contains("position: dead"), "{}", text(&a));
    let help = text(&ok(&["dead", "--help"]));
    assert!(!help.contains("dead-budget"), "{help}");
    assert_eq!(
        arbiter(&["dead", fen, "--dead-budget", "many"])
            .status
            .code(),
        Some(2)
    );
}
