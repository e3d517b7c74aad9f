//! Perft throughput (bulk counting, one thread) on the six standard positions of the Chess
//! Programming Wiki; the throughput line is nodes per second.

use arbiter::chess::Position;
use arbiter::chess::perft::perft;
use arbiter::cli::bench::PERFT_BENCH;
use std::hint::black_box;

mod harness;
use harness::Throughput;

fn main() {
    for (name, fen, depth, nodes) in PERFT_BENCH {
        // One ply less than `arbiter bench perft`, to keep a run short.
        let depth = depth - 1;
        let pos = Position::from_fen(fen).expect("benchmark FEN is legal");
        let expected = perft(&pos, depth);
        assert!(expected < nodes);
        harness::group("perft")
            .throughput(Throughput::Elements(expected))
            .bench(&format!("{name}/depth{depth}"), || {
                perft(black_box(&pos), depth)
            });
    }
}
