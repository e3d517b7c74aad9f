//! Where the dead-position analysis spends its nodes on real games: run with
//! `ARBITER_PGN=file cargo test --release --test laws_costs -- --ignored --nocapture`.
//! Prints the final positions that cost the most time, to feed `arbiter dead`.

use arbiter::chess::SanMode;
use arbiter::chess::fen::write_fen;
use arbiter::game::replay::replay;
use arbiter::laws::dead::{Budget, deadness};

#[test]
#[ignore]
fn costliest_final_positions() {
    let Some(path) = std::env::var_os("ARBITER_PGN") else {
        return;
    };
    let bytes = std::fs::read(path).unwrap();
    let (games, _) = arbiter::pgn::parse_all(&bytes);
    let budget = Budget {
        nodes: 20_000,
        ..Budget::default()
    };
    let mut costs = Vec::new();
    for g in &games {
        let pos = replay(g, SanMode::Lenient).final_position();
        let t = std::time::Instant::now();
        let d = deadness(&pos, budget);
        let micros = t.elapsed().as_micros() as u64;
        costs.push((micros, format!("{d:?}"), write_fen(&pos)));
    }
    let total: u64 = costs.iter().map(|c| c.0).sum();
    costs.sort_by_key(|c| std::cmp::Reverse(c.0));
    eprintln!("{} games, {total} µs in deadness", games.len());
    for share in [10, 50, 100, 500, 1000] {
        let top: u64 = costs.iter().take(share).map(|c| c.0).sum();
        eprintln!("the costliest {share}: {top} µs");
    }
    for (n, v, fen) in costs.iter().take(25) {
        eprintln!("{n:>7} µs {v:7} {fen}");
    }
}

/// What the Laws' walk over a game's moves costs per ply, against a full replay:
/// `ARBITER_PGN=file cargo test --release --test laws_costs -- --ignored --nocapture walk`.
#[test]
#[ignore]
fn walk_costs() {
    use arbiter::game::keys::Keys;
    use arbiter::laws::claims::Occurrences;
    let Some(path) = std::env::var_os("ARBITER_PGN") else {
        return;
    };
    let bytes = std::fs::read(path).unwrap();
    let (games, _) = arbiter::pgn::parse_all(&bytes);
    let replays: Vec<_> = games
        .iter()
        .map(|g| replay(g, SanMode::Lenient))
        .filter(|r| r.complete)
        .collect();
    let plies: usize = replays.iter().map(|r| r.moves.len()).sum();
    let only = std::env::var("ARBITER_WALK_ONLY").ok();
    let time = |name: &str, f: &dyn Fn() -> u64| {
        if only.as_deref().is_some_and(|o| !name.contains(o)) {
            return;
        }
        let mut best = f64::MAX;
        let mut check = 0;
        for _ in 0..5 {
            let t = std::time::Instant::now();
            check = f();
            best = best.min(t.elapsed().as_secs_f64());
        }
        eprintln!(
            "{name:>24}: {:7.1} ms, {:5.1} ns/ply ({check})",
            best * 1e3,
            best * 1e9 / plies as f64
        );
    };
    time("play_unchecked + key", &|| {
        let mut sum = 0u64;
        for r in &replays {
            let mut pos = r.start;
            for &m in &r.moves {
                pos.play_unchecked(m);
                sum ^= pos.repetition_key();
            }
        }
        sum
    });
    time("keys walk", &|| {
        let mut sum = 0u64;
        for r in &replays {
            let mut keys = Keys::new(&r.start);
            for &m in &r.moves {
                keys.play(m);
                sum ^= keys.plain_key();
            }
        }
        sum
    });
    time("keys walk + record", &|| {
        let mut sum = 0u64;
        for r in &replays {
            let mut keys = Keys::new(&r.start);
            let mut seen = Occurrences::default();
            for &m in &r.moves {
                if keys.play(m) {
                    seen.clear();
                }
                sum += u64::from(seen.record(keys.plain_key()));
            }
        }
        sum
    });
    time("judge_replayed", &|| {
        let mut sum = 0u64;
        for r in &replays {
            let input = arbiter::laws::GameInput {
                start: r.start,
                moves: &r.moves,
                date: Some("1990.01.01"),
                result_tag: None,
                termination_tag: None,
                result_marker: None,
            };
            let v = arbiter::laws::judge_replayed(
                &input,
                &r.final_position(),
                &arbiter::laws::VerdictOptions::default(),
            );
            sum += v.findings.len() as u64;
        }
        sum
    });
}
