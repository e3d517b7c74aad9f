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
        let pos = replay(g, SanMode::Lenient).final_position;
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
