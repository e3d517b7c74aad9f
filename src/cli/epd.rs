//! `arbiter epd --suite FILE [--nodes N | --depth D | --movetime MS] [--weights classic|tuned|FILE]`: runs `bm`/`am` test
//! positions, one fresh search per position, prints each failure and ends with
//! `N passed, M failed`; the exit code is 1 if any failed.

use super::analyse::{LimitArgs, pv_san};
use super::error::{Outcome, PathContext, Result};
use crate::chess::san::to_san;
use crate::search::Searcher;
use crate::search::epd::parse_suite;
use clap::Args;
use std::io::{self, Write};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct EpdArgs {
    /// EPD file with `bm` and/or `am` operations.
    #[arg(long)]
    pub suite: PathBuf,
    #[command(flatten)]
    pub limits: LimitArgs,
    /// Transposition table size in MB (cleared before each position).
    #[arg(long, default_value_t = 16)]
    pub hash: usize,
    /// Search with these weights instead of the engine's own: classic, tuned, or a weights
    /// file written by `tune fit --out` (to measure a set before it is adopted).
    #[arg(long, value_parser = super::tune::parse_weights)]
    pub weights: Option<super::tune::WeightsName>,
}

pub fn run(args: &EpdArgs) -> Result {
    let text = std::fs::read_to_string(&args.suite).with_path(&args.suite)?;
    let limits = args.limits.to_limits(super::analyse::DEFAULT_NODES);
    let mut searcher = match &args.weights {
        Some(w) => Searcher::with_weights(args.hash, w.weights()),
        None => Searcher::new(args.hash),
    };
    let mut out = io::stdout().lock();
    let (mut passed, mut failed, mut bad, mut nodes) = (0u64, 0u64, 0u64, 0u64);
    for record in parse_suite(&text) {
        let record = match record {
            Ok(r) => r,
            Err(e) => {
                writeln!(
                    out,
                    "{}:{}: skipped: {}",
                    args.suite.display(),
                    e.line,
                    e.message
                )?;
                bad += 1;
                continue;
            }
        };
        if !record.is_test() {
            // Any move would "solve" it: a position without bm or am is no test.
            writeln!(
                out,
                "{}: skipped: {} has no bm or am operation",
                args.suite.display(),
                record.id
            )?;
            bad += 1;
            continue;
        }
        searcher.clear();
        let result = searcher.search(&record.position, &[], limits);
        nodes += result.nodes;
        match result.best_move {
            Some(m) if record.is_solved_by(m) => passed += 1,
            played => {
                failed += 1;
                let pos = &record.position;
                let list = |moves: &[crate::chess::Move]| {
                    moves
                        .iter()
                        .map(|&m| to_san(pos, m).to_string())
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                let mut wanted = String::new();
                if !record.best.is_empty() {
                    wanted.push_str(&format!("bm {}", list(&record.best)));
                }
                if !record.avoid.is_empty() {
                    if !wanted.is_empty() {
                        wanted.push_str(", ");
                    }
                    wanted.push_str(&format!("am {}", list(&record.avoid)));
                }
                writeln!(
                    out,
                    "FAIL {}: {wanted}; played {} (score {}, depth {}, pv {})",
                    record.id,
                    played.map_or("(none)".to_string(), |m| to_san(pos, m).to_string()),
                    result.score,
                    result.depth,
                    pv_san(pos, &result.pv),
                )?;
            }
        }
    }
    writeln!(out, "{nodes} nodes searched")?;
    writeln!(out, "{passed} passed, {failed} failed, {bad} skipped")?;
    Ok(Outcome::from(failed == 0 && bad == 0))
}
