//! Unwinnability speed over the 74 labelled positions of the corpus
//! (`$ARBITER_CORPUS/unwinnability/dead-positions-74.tsv`): time per position, both sides.

use arbiter::chess::Position;
use arbiter::laws::dead::{Budget, analyse};
use std::hint::black_box;

mod harness;
use harness::Throughput;

fn positions() -> Vec<Position> {
    let Some(dir) = std::env::var_os("ARBITER_CORPUS") else {
        eprintln!("ARBITER_CORPUS is not set: nothing to benchmark");
        return Vec::new();
    };
    let path = std::path::Path::new(&dir).join("unwinnability/dead-positions-74.tsv");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    text.lines()
        .skip(1)
        .filter_map(|l| l.split('\t').next())
        .filter_map(|fen| Position::from_fen(fen).ok())
        .collect()
}

fn main() {
    let set = positions();
    if set.is_empty() {
        return;
    }
    harness::group("dead")
        .throughput(Throughput::Elements(set.len() as u64))
        .bench("labelled-74", || {
            for p in &set {
                black_box(analyse(p, Budget::default()));
            }
        });
}
