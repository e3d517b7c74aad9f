//! What naming the opening costs against what `check` does per game, on the master games
//! (`$ARBITER_CORPUS/games/otb-pgnmentor/*.pgn`, 45,687 games), one thread: `check`'s work
//! (split + parse + replay + the Laws' verdict, `pipeline::work::process`) and the
//! classification of the same games (`identity::openings::classify` on the replayed moves,
//! as the import calls it), timed in interleaved runs; prints each median and their ratio.
//! `cargo bench --bench openings [-- RUNS]` (default 5 runs). Skipped without ARBITER_CORPUS.

use arbiter::chess::{Move, Position, SanMode};
use arbiter::identity::openings::{Book, classify};
use arbiter::laws::VerdictOptions;
use arbiter::pgn::{Splitter, parse_game};
use arbiter::pipeline::work::{Keep, WorkOptions, process};
use std::hint::black_box;
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let Some(corpus) = std::env::var_os("ARBITER_CORPUS") else {
        println!("ARBITER_CORPUS not set: skipping the openings bench");
        return;
    };
    let runs: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(5);
    let dir = std::path::Path::new(&corpus).join("games/otb-pgnmentor");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("master games folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "pgn"))
        .collect();
    files.sort();
    let mut data = Vec::new();
    for f in &files {
        data.extend(std::fs::read(f).expect("readable"));
        data.push(b'\n');
    }
    // The replayed games, as the import hands them to the classification.
    let games: Vec<(Position, Vec<Move>)> = Splitter::new(&data[..])
        .map(|raw| {
            let g = parse_game(&raw.expect("in memory"));
            let r = arbiter::game::replay(&g, SanMode::Lenient);
            (r.start, r.moves)
        })
        .collect();
    Book::get();
    let options = WorkOptions {
        mode: SanMode::Lenient,
        laws: Some(VerdictOptions::default()),
        analysis: None,
    };
    let (mut check, mut naming) = (Vec::new(), Vec::new());
    let mut named = 0;
    for _ in 0..runs {
        let t = Instant::now();
        let plies: usize = Splitter::new(&data[..])
            .map(|raw| process(raw.expect("in memory"), &options, Keep::Findings).plies)
            .sum();
        check.push(t.elapsed().as_secs_f64());
        black_box(plies);
        let t = Instant::now();
        named = games
            .iter()
            .filter(|(start, moves)| black_box(classify(start, moves)).is_some())
            .count();
        naming.push(t.elapsed().as_secs_f64());
    }
    let (c, n) = (median(check), median(naming));
    println!(
        "{} games ({named} named), {runs} interleaved runs, medians: check's work {c:.3} s, \
         classification {n:.4} s ({:.2} us a game) = {:.2} % of check's work",
        games.len(),
        1e6 * n / games.len() as f64,
        100.0 * n / c
    );
}
