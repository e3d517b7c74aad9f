//! `arbiter bench perft`: perft speed on the six standard positions of the Chess Programming
//! Wiki at fixed depths, one thread; prints nodes, time and Mnps per position and in total.

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
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum BenchKind {
    Perft,
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

pub fn run(args: &BenchArgs) -> io::Result<i32> {
    let BenchKind::Perft = args.what;
    let mut out = io::stdout().lock();
    let runs = args.runs.max(1);
    let (mut all_nodes, mut all_secs) = (0u64, 0f64);
    let mut wrong = 0;
    for (name, fen, depth, expected) in PERFT_BENCH {
        let pos = Position::from_fen(fen).map_err(|e| io::Error::other(e.to_string()))?;
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
    Ok(if wrong > 0 { 1 } else { 0 })
}
