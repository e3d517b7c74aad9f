//! What naming the opening costs against what `check` does per game, on the master games
//! (`$ARBITER_CORPUS/games/otb-pgnmentor/*.pgn`, 45,687 games), one thread, in interleaved
//! runs: `check`'s work (split + parse + replay + the Laws' verdict,
//! `pipeline::work::process`); the Laws' verdict of the replayed games alone, and again
//! handing over the keys of the first positions and looking them up (`classify_keys`, what
//! an import does): the difference is what naming costs there; and the names' own walk
//! (`classify`, an import without the Laws). Prints each median and the ratios.
//! `cargo bench --bench openings [-- RUNS]` (default 5 runs). Skipped without ARBITER_CORPUS.

use arbiter::chess::SanMode;
use arbiter::game::keys::FirstKeys;
use arbiter::identity::openings::Book;
use arbiter::laws::{VerdictOptions, judge_keyed};
use arbiter::pgn::{Splitter, parse_game};
use arbiter::pipeline::work::{Keep, WorkOptions, process, verdict_input};
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
    // The replayed games, with their last positions and key data, as the import hands them on.
    let games: Vec<_> = Splitter::new(&data[..])
        .map(|raw| {
            let g = parse_game(&raw.expect("in memory"));
            let r = arbiter::game::replay_keyed(&g, SanMode::Lenient);
            let end = r.final_position();
            (g, r, end)
        })
        .filter(|(_, r, _)| r.complete && !r.chess960)
        .collect();
    let book = Book::get();
    let plies = book.max_ply() as usize;
    let laws = VerdictOptions::default();
    let options = WorkOptions {
        mode: SanMode::Lenient,
        laws: Some(laws),
        analysis: None,
    };
    let (mut check, mut judged, mut judged_named, mut walked) = (vec![], vec![], vec![], vec![]);
    let mut named = 0;
    let mut keys = FirstKeys::default();
    for _ in 0..runs {
        let t = Instant::now();
        let total: usize = Splitter::new(&data[..])
            .map(|raw| process(raw.expect("in memory"), &options, Keep::Findings).plies)
            .sum();
        check.push(t.elapsed().as_secs_f64());
        black_box(total);

        let t = Instant::now();
        for (g, r, end) in &games {
            black_box(judge_keyed(&verdict_input(g, r), end, &r.keys, &laws, None));
        }
        judged.push(t.elapsed().as_secs_f64());

        let t = Instant::now();
        named = 0;
        for (g, r, end) in &games {
            keys.clear();
            let kept = Some((plies, &mut keys));
            let v = judge_keyed(&verdict_input(g, r), end, &r.keys, &laws, kept);
            black_box(v);
            // As the import: a game the walk left early (moves after its end) walks itself.
            let name = if keys.keys.len() == r.moves.len().min(plies) {
                book.classify_keys(&r.start, &r.moves, &keys)
            } else {
                book.classify(&r.start, &r.moves)
            };
            named += usize::from(black_box(name).is_some());
        }
        judged_named.push(t.elapsed().as_secs_f64());

        let t = Instant::now();
        let n = games
            .iter()
            .filter(|(_, r, _)| black_box(book.classify(&r.start, &r.moves)).is_some())
            .count();
        walked.push(t.elapsed().as_secs_f64());
        assert_eq!(n, named, "the two ways name the same games");
    }
    let (c, j, jn, w) = (
        median(check),
        median(judged),
        median(judged_named),
        median(walked),
    );
    let per_game = |s: f64| 1e6 * s / games.len() as f64;
    println!(
        "{} games ({named} named), {runs} interleaved runs, medians: check's work {c:.3} s; \
         the Laws' verdict {j:.3} s, with the names from its keys {jn:.3} s: naming adds \
         {:.4} s ({:.2} us a game) = {:.2} % of check's work; the names' own walk (no Laws) \
         {w:.4} s ({:.2} us a game) = {:.2} %",
        games.len(),
        jn - j,
        per_game(jn - j),
        100.0 * (jn - j) / c,
        per_game(w),
        100.0 * w / c
    );
}
