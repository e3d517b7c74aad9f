//! `arbiter bench perft`: perft speed on the six standard positions of the Chess Programming
//! Wiki at fixed depths, one thread; prints nodes, time and Mnps per position and in total.
//! `arbiter bench search`: a fixed-depth search of twelve positions; the total node count is a
//! signature that changes whenever search behaviour does, and nps measures speed.
//! `arbiter bench import`: the import's rate as the database grows (`bench_import.rs`).
//! `arbiter bench synth`: a synthetic collection for benchmarks at scale (`bench_synth.rs`).

use super::error::{Outcome, Result};
use crate::chess::Position;
use crate::chess::perft::perft;
use clap::{Args, ValueEnum};
use std::io::{self, Write};
use std::time::Instant;

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// What to measure.
    #[arg(value_enum)]
    pub what: BenchKind,
    /// Repeat each position this many times and report the median.
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    #[command(flatten)]
    pub import: super::bench_import::ImportBenchArgs,
    #[command(flatten)]
    pub synth: super::bench_synth::SynthArgs,
    #[command(flatten)]
    pub laws: super::bench_laws::LawsBenchArgs,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum BenchKind {
    Perft,
    Search,
    /// Build a database of N distinct games and print the import rate per step (see the
    /// import flags).
    Import,
    /// Write a synthetic collection with hidden true ratings (see the synth flags).
    Synth,
    /// What the Laws cost on top of parse and replay, one thread (see the laws flags).
    Laws,
}

/// The six positions, with the depth benchmarked and its known node count.
pub const PERFT_BENCH: [(&str, &str, u32, u64); 6] = [
    ("start", crate::chess::START_FEN, 6, 119_060_324),
    (
        "kiwipete",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        5,
        193_690_690,
    ),
    (
        "position3",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        7,
        178_633_661,
    ),
    (
        "position4",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        5,
        15_833_292,
    ),
    (
        "position5",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        5,
        89_941_194,
    ),
    (
        "position6",
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        5,
        164_075_551,
    ),
];

pub fn run(args: &BenchArgs) -> Result {
    match args.what {
        BenchKind::Perft => run_perft(args),
        BenchKind::Search => run_search(args),
        BenchKind::Import => {
            super::bench_import::run_bench(&super::bench_import::ImportBenchArgs {
                games: args
                    .synth
                    .games
                    .unwrap_or(super::bench_import::IMPORT_GAMES),
                ..args.import.clone()
            })
        }
        BenchKind::Synth => super::bench_synth::run(&args.synth),
        BenchKind::Laws => super::bench_laws::run(&args.laws, args.runs),
    }
}

fn run_perft(args: &BenchArgs) -> Result {
    let mut out = io::stdout().lock();
    let runs = args.runs.max(1);
    let (mut all_nodes, mut all_secs) = (0u64, 0f64);
    let mut wrong = 0;
    for (name, fen, depth, expected) in PERFT_BENCH {
        let pos = Position::from_fen(fen)?;
        let mut times = Vec::with_capacity(runs);
        let mut nodes = 0;
        for _ in 0..runs {
            let start = Instant::now();
            nodes = perft(&pos, depth);
            times.push(start.elapsed().as_secs_f64());
        }
        times.sort_by(f64::total_cmp);
        let median = times[runs / 2];
        if nodes != expected {
            wrong += 1;
        }
        all_nodes += nodes;
        all_secs += median;
        writeln!(
            out,
            "{name:<10} depth {depth}  {nodes:>11} nodes  {median:>7.3} s  {:>7.1} Mnps{}",
            nodes as f64 / median / 1e6,
            if nodes == expected {
                ""
            } else {
                "  WRONG COUNT"
            }
        )?;
    }
    writeln!(
        out,
        "total                {all_nodes:>11} nodes  {all_secs:>7.3} s  {:>7.1} Mnps (median of {runs} runs each)",
        all_nodes as f64 / all_secs / 1e6
    )?;
    Ok(Outcome::from(wrong == 0))
}

/// Depth of every search in `bench search`.
pub const SEARCH_BENCH_DEPTH: u32 = 14;

/// Openings, middlegames with tactics, and endgames (the last three), searched from an empty
/// table each.
pub const SEARCH_BENCH: [&str; 12] = [
    crate::chess::START_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "rnbqkb1r/pp1p1ppp/4pn2/2p5/2PP4/2N5/PP2PPPP/R1BQKBNR w KQkq - 0 4",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 8",
    "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
    "r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - - 0 1",
    "2r3k1/pp3ppp/2n1b3/q2p4/3P4/P1N1PN2/1P3PPP/2RQ2K1 b - - 0 1",
    "r3r1k1/ppq2pp1/2p2n1p/3p4/3P4/2PBP3/PPQ2PPP/R4RK1 w - - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "8/8/4kpp1/3p1b2/p6P/2B5/6P1/6K1 b - - 0 1",
    "8/5pk1/6p1/3R3p/r6P/6P1/5PK1/8 w - - 0 1",
];

fn run_search(args: &BenchArgs) -> Result {
    use crate::search::{Limits, Searcher};
    let mut out = io::stdout().lock();
    let runs = args.runs.max(1);
    let mut searcher = Searcher::new(16);
    let (mut all_nodes, mut all_secs) = (0u64, 0f64);
    for (i, fen) in SEARCH_BENCH.iter().enumerate() {
        let pos = Position::from_fen(fen)?;
        let mut times = Vec::with_capacity(runs);
        let mut nodes = 0;
        for _ in 0..runs {
            searcher.clear();
            let start = Instant::now();
            let result = searcher.search(&pos, &[], Limits::depth(SEARCH_BENCH_DEPTH));
            times.push(start.elapsed().as_secs_f64());
            nodes = result.nodes;
        }
        times.sort_by(f64::total_cmp);
        let median = times[runs / 2];
        all_nodes += nodes;
        all_secs += median;
        writeln!(
            out,
            "{:>2}  {nodes:>10} nodes  {median:>7.3} s  {:>6.2} Mnps",
            i + 1,
            nodes as f64 / median / 1e6
        )?;
    }
    writeln!(
        out,
        "signature {all_nodes} nodes (depth {SEARCH_BENCH_DEPTH})  {all_secs:.3} s  {:.2} Mnps (median of {runs} runs each)",
        all_nodes as f64 / all_secs / 1e6
    )?;
    Ok(Outcome::Success)
}
