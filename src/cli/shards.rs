//! `arbiter check FILES --output DIR --format parquet`: the map step of a cluster run. Each
//! input becomes the shard folder `DIR/NAME/` (pipeline::parquet_sink), besides everything
//! `check` does; spark/judge.py runs it once per shard.

use super::check::InputArgs;
use super::error::{AppError, Result};
use crate::pipeline::parquet_sink::{ParquetSink, shard_names};
use crate::pipeline::run::Report;
use crate::pipeline::sinks::CheckSink;
use crate::pipeline::{Summary, run};
use clap::{Args, ValueEnum};
use std::path::{Path, PathBuf};

/// What `--output` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ShardFormat {
    /// games.parquet, findings.parquet and player_games.parquet, then the marker _SUCCESS.
    Parquet,
}

#[derive(Args, Debug)]
pub struct ShardArgs {
    /// Write each input's judged games, findings and player_games rows under DIR/NAME/
    /// (NAME: the input's file name), with the marker DIR/NAME/_SUCCESS once complete.
    #[arg(long, value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// Format of --output.
    #[arg(long, value_enum, default_value = "parquet", requires = "output")]
    pub format: ShardFormat,
    /// The shard's name under --output when there is one input (`stdin` for `-` by default).
    #[arg(long, requires = "output")]
    pub name: Option<String>,
}

/// Runs the inputs into their shard folders, the run's notes to `report`; the summary is
/// `check`'s.
pub fn run_shards(
    input: &InputArgs,
    shards: &ShardArgs,
    dir: &Path,
    check: CheckSink,
    report: &mut Report<'_>,
) -> Result<Summary> {
    let options = input.run_options();
    let names = shard_names(&options.inputs, shards.name.as_deref())
        .map_err(|e| AppError::Usage(e.to_string()))?;
    let mut sink = ParquetSink::create(check, dir, &options.inputs, names)?;
    let summary = run(&options, &mut sink, report)?;
    if summary.interrupted {
        // The shard being written goes with the sink; those complete stay.
        sink.check.abandon()?;
    } else {
        sink.check.finish()?;
    }
    Ok(summary)
}
