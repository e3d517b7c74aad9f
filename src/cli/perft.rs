//! `arbiter perft FEN DEPTH [--divide]` and `arbiter perft --suite FILE [--max-nodes N]`.

use super::error::{AppError, Outcome, PathContext, Result};
use crate::chess::Position;
use crate::chess::perft::{divide, parse_suite, perft, run_suite};
use crate::chess::uci::to_uci;
use clap::Args;
use std::io::{self, Write};
use std::time::Instant;

#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Position in FEN (quote it); omitted with --suite.
    #[arg(required_unless_present = "suite")]
    pub fen: Option<String>,
    /// Depth in plies.
    #[arg(required_unless_present = "suite")]
    pub depth: Option<u32>,
    /// Print the node count for each first move.
    #[arg(long)]
    pub divide: bool,
    /// Run a suite file: EPD with `;D<depth> <count>` fields, or `epd`/`perft` lines.
    #[arg(long, conflicts_with_all = ["fen", "depth", "divide"])]
    pub suite: Option<std::path::PathBuf>,
    /// With --suite: skip depths whose expected count is above this.
    #[arg(long, default_value_t = 100_000_000)]
    pub max_nodes: u64,
}

pub fn run(args: &PerftArgs) -> Result {
    let mut out = io::stdout().lock();
    if let Some(path) = &args.suite {
        let text = std::fs::read_to_string(path).with_path(path)?;
        let entries =
            parse_suite(&text).map_err(|e| AppError::Other(format!("{}: {e}", path.display())))?;
        let start = Instant::now();
        let report = run_suite(&entries, args.max_nodes);
        for f in &report.failures {
            writeln!(out, "FAIL {}: {f}", path.display())?;
        }
        let secs = start.elapsed().as_secs_f64();
        eprintln!(
            "{} nodes in {:.2} s ({:.1} Mnps)",
            report.nodes,
            secs,
            report.nodes as f64 / secs.max(1e-9) / 1e6
        );
        writeln!(out, "{} passed, {} failed", report.passed, report.failed)?;
        return Ok(Outcome::from(report.failed == 0));
    }
    let (Some(fen), Some(depth)) = (&args.fen, args.depth) else {
        return Err(AppError::usage(
            "perft needs FEN and DEPTH, or --suite FILE",
        ));
    };
    let pos = Position::from_fen(fen)?;
    let start = Instant::now();
    let total = if args.divide {
        let mut total = 0;
        for (m, n) in divide(&pos, depth) {
            writeln!(out, "{}: {n}", to_uci(&pos, m))?;
            total += n;
        }
        writeln!(out)?;
        total
    } else {
        perft(&pos, depth)
    };
    let secs = start.elapsed().as_secs_f64();
    writeln!(out, "{total}")?;
    eprintln!(
        "{:.3} s, {:.1} Mnps",
        secs,
        total as f64 / secs.max(1e-9) / 1e6
    );
    Ok(Outcome::Success)
}
