//! Search speed: fixed-node searches of middlegame positions from an empty table, measured in
//! nodes per second (the throughput line).

use arbiter::chess::Position;
use arbiter::search::{Limits, Searcher};
use std::hint::black_box;
use std::time::Instant;

mod harness;
use harness::Throughput;

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

fn main() {
    let group = harness::group("search").throughput(Throughput::Elements(NODES));
    let mut searcher = Searcher::new(16);
    for (name, fen) in POSITIONS {
        let pos = Position::from_fen(fen).unwrap();
        // Clearing the table is not part of the search: time only the search itself.
        group.bench_timed(name, || {
            searcher.clear();
            let start = Instant::now();
            black_box(searcher.search(&pos, &[], Limits::nodes(NODES)));
            start.elapsed()
        });
    }
}
