//! `arbiter check FILES...`: replay every game, report findings and a summary. Exit status
//! 0 when every game was accepted, 1 when any was rejected, 2 on usage or I/O errors.

use crate::chess::SanMode;
use crate::laws::{Budget, LawsChoice, VerdictOptions};
use crate::pipeline::sinks::{CheckSink, FindingsFile, Quarantine};
use crate::pipeline::{RunOptions, WorkOptions, run};
use crate::search::AnalysisOptions;
use clap::Args;
use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Instant;

/// Input and reporting options shared by `check` and `import`.
#[derive(Args, Debug, Clone)]
pub struct InputArgs {
    /// PGN files (plain, gzip, bzip2, zstd or xz, recognised by content); `-` for stdin.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Accept only standard SAN (no repairs).
    #[arg(long)]
    pub strict: bool,
    /// Worker threads (default: all cores).
    #[arg(long, default_value_t = 0)]
    pub jobs: usize,
    /// Write the raw bytes of every rejected game to this file.
    #[arg(long)]
    pub quarantine: Option<PathBuf>,
    /// Write every finding to this file: JSON lines (.jsonl) or CSV (.csv).
    #[arg(long)]
    pub findings: Option<PathBuf>,
    /// Findings CSV: write values raw. By default a text cell starting with = + - @ or a tab
    /// gets a leading ' so that spreadsheets do not run it as a formula (OWASP).
    #[arg(long)]
    pub csv_raw: bool,
    /// Write the summary as JSON to this file.
    #[arg(long)]
    pub summary_json: Option<PathBuf>,
    /// No progress bar and no per-game error lines.
    #[arg(long, short)]
    pub quiet: bool,
    /// Edition of the Laws of Chess: auto (by the Date tag), 1980, 1997, 2001 or 2014.
    #[arg(long, default_value = "auto")]
    pub laws: LawsChoice,
    /// Skip the Laws' verdict (parse and replay only).
    #[arg(long)]
    pub no_laws: bool,
    /// Critical-position analysis by arbiter's search; NODES is the deep-search budget per
    /// critical position (default 20000).
    #[arg(long, value_name = "NODES", num_args = 0..=1, default_missing_value = "20000")]
    pub analyse: Option<u64>,
    /// Node budget per side for deciding whether a final position is dead. Most final
    /// positions are decided in a few dozen nodes; 50,000 settles the long minor-piece
    /// helpmates (K+N+N v K) the stages may otherwise miss.
    #[arg(long, default_value_t = 50_000)]
    pub dead_budget: u64,
}

impl InputArgs {
    pub fn run_options(&self) -> RunOptions {
        RunOptions {
            inputs: self.files.clone(),
            work: WorkOptions {
                mode: if self.strict {
                    SanMode::Strict
                } else {
                    SanMode::Lenient
                },
                analysis: self.analyse.map(|nodes| AnalysisOptions {
                    deep_nodes: nodes,
                    ..AnalysisOptions::default()
                }),
                laws: (!self.no_laws).then(|| VerdictOptions {
                    laws: self.laws,
                    budget: Budget {
                        nodes: self.dead_budget,
                        ..Budget::default()
                    },
                }),
            },
            jobs: self.jobs,
            progress: !self.quiet,
        }
    }

    pub fn open_outputs(&self) -> io::Result<(Option<FindingsFile>, Option<Quarantine>)> {
        let context =
            |p: &PathBuf, e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", p.display()));
        let findings = match &self.findings {
            Some(p) => Some(FindingsFile::create(p, self.csv_raw).map_err(|e| context(p, e))?),
            None => None,
        };
        let quarantine = match &self.quarantine {
            Some(p) => Some(Quarantine::create(p).map_err(|e| context(p, e))?),
            None => None,
        };
        Ok((findings, quarantine))
    }
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub shards: super::shards::ShardArgs,
}

pub fn run_check(args: &CheckArgs) -> io::Result<i32> {
    let start = Instant::now();
    let (findings, quarantine) = args.input.open_outputs()?;
    let mut sink = CheckSink {
        findings,
        quarantine,
        print_errors: !args.input.quiet,
    };
    let summary = match &args.shards.output {
        Some(dir) => super::shards::run_shards(&args.input, &args.shards, dir, sink)?,
        None => {
            let summary = run(&args.input.run_options(), &mut sink)?;
            sink.finish()?;
            summary
        }
    };
    let elapsed = start.elapsed();
    if let Some(path) = &args.input.summary_json {
        let text = serde_json::to_string_pretty(&summary).map_err(io::Error::other)?;
        std::fs::write(path, text + "\n")?;
    }
    let mut out = io::stdout().lock();
    summary.write_table(&mut out, elapsed)?;
    out.flush()?;
    Ok(if !summary.failed_files.is_empty() {
        2
    } else if summary.rejected > 0 || !summary.files_without_games.is_empty() {
        1
    } else {
        0
    })
}
