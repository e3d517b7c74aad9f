//! `arbiter analyse FEN [--nodes N | --depth D | --movetime MS]`: searches one position and
//! prints the best move (SAN and UCI), the score, depth, nodes and the principal variation.

use super::error::{Outcome, Result};
use crate::chess::san::to_san;
use crate::chess::uci::to_uci;
use crate::chess::{Move, Position};
use crate::search::{Limits, Searcher};
use clap::Args;
use std::io::{self, Write};
use std::time::{Duration, Instant};

/// The search budget flags shared by `analyse` and `epd`: at most one of them.
#[derive(Args, Debug, Clone, Copy)]
#[group(multiple = false)]
pub struct LimitArgs {
    /// Stop after this many nodes (reproducible).
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Stop after this many plies of iterative deepening (reproducible).
    #[arg(long)]
    pub depth: Option<u32>,
    /// Stop after this many milliseconds (results may differ between runs).
    #[arg(long)]
    pub movetime: Option<u64>,
}

impl LimitArgs {
    /// The limits asked for, or `default_nodes` when none was.
    pub fn to_limits(self, default_nodes: u64) -> Limits {
        let mut limits = Limits {
            nodes: self.nodes,
            depth: self.depth,
            movetime: self.movetime.map(Duration::from_millis),
        };
        if limits == Limits::default() {
            limits.nodes = Some(default_nodes);
        }
        limits
    }
}

#[derive(Args, Debug)]
pub struct AnalyseArgs {
    /// Position in FEN (quote it).
    pub fen: String,
    #[command(flatten)]
    pub limits: LimitArgs,
    /// Transposition table size in MB.
    #[arg(long, default_value_t = 16)]
    pub hash: usize,
}

pub const DEFAULT_NODES: u64 = 1_000_000;

pub fn run(args: &AnalyseArgs) -> Result {
    let pos = Position::from_fen(args.fen.trim())?;
    let mut searcher = Searcher::new(args.hash);
    let start = Instant::now();
    let result = searcher.search(&pos, &[], args.limits.to_limits(DEFAULT_NODES));
    let secs = start.elapsed().as_secs_f64();
    let mut out = io::stdout().lock();
    match result.best_move {
        Some(m) => writeln!(out, "bestmove {} ({})", to_san(&pos, m), to_uci(&pos, m))?,
        None => writeln!(out, "bestmove (none)")?,
    }
    writeln!(out, "score    {}", result.score)?;
    writeln!(
        out,
        "depth    {} (seldepth {})",
        result.depth, result.seldepth
    )?;
    writeln!(
        out,
        "nodes    {} in {secs:.3} s ({:.2} Mnps){}",
        result.nodes,
        result.nodes as f64 / secs.max(1e-9) / 1e6,
        if result.truncated {
            ", cut short by the time cap"
        } else {
            ""
        }
    )?;
    writeln!(out, "pv       {}", pv_san(&pos, &result.pv))?;
    Ok(Outcome::Success)
}

/// The principal variation in SAN, with move numbers.
pub fn pv_san(pos: &Position, pv: &[Move]) -> String {
    let mut pos = *pos;
    let mut parts = Vec::with_capacity(pv.len());
    for (i, &m) in pv.iter().enumerate() {
        if !pos.is_legal(m) {
            break;
        }
        let white = pos.turn() == crate::chess::Color::White;
        if white {
            parts.push(format!("{}. {}", pos.fullmove_number(), to_san(&pos, m)));
        } else if i == 0 {
            parts.push(format!("{}... {}", pos.fullmove_number(), to_san(&pos, m)));
        } else {
            parts.push(to_san(&pos, m).to_string());
        }
        pos.play_unchecked(m);
    }
    parts.join(" ")
}
