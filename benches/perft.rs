//! Perft throughput (bulk counting, one thread) on the six standard positions of the Chess
//! Programming Wiki. Criterion reports elements = nodes, so its throughput line is nodes/s.

use arbiter::chess::Position;
use arbiter::chess::perft::perft;
use arbiter::cli::bench::PERFT_BENCH;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

fn bench_perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    for (name, fen, depth, nodes) in PERFT_BENCH {
        // One ply less than `arbiter bench perft`, to keep a criterion run short.
        let depth = depth - 1;
        let pos = Position::from_fen(fen).expect("benchmark FEN is legal");
        let expected = perft(&pos, depth);
        assert!(expected < nodes);
        group.throughput(Throughput::Elements(expected));
        group.bench_function(format!("{name}/depth{depth}"), |b| {
            b.iter(|| perft(black_box(&pos), depth))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_perft);
criterion_main!(benches);
