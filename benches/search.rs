//! Search speed: fixed-node searches of middlegame positions from an empty table, measured in
//! nodes per second (criterion's element throughput).

use arbiter::chess::Position;
use arbiter::search::{Limits, Searcher};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::{Duration, Instant};

const NODES: u64 = 200_000;

const POSITIONS: [(&str, &str); 3] = [
    (
        "kiwipete",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    ),
    (
        "italian",
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    ),
    (
        "wac001",
        "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
    ),
];

fn search(c: &mut Criterion) {
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    group.throughput(Throughput::Elements(NODES));
    let mut searcher = Searcher::new(16);
    for (name, fen) in POSITIONS {
        let pos = Position::from_fen(fen).unwrap();
        group.bench_function(name, |b| {
            // Clearing the table is not part of the search: time only the search itself.
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    searcher.clear();
                    let start = Instant::now();
                    black_box(searcher.search(&pos, &[], Limits::nodes(NODES)));
                    total += start.elapsed();
                }
                total
            })
        });
    }
    group.finish();
}

criterion_group!(benches, search);
criterion_main!(benches);
