//! `arbiter check FILES...`: replay every game, report findings and a summary. Exit status
//! 0 when every game was accepted, 1 when any was rejected, 2 on usage or I/O errors.

use super::error::{AppError, Outcome, PathContext, Result, warn};
use crate::chess::SanMode;
use crate::laws::{Budget, LawsChoice, VerdictOptions};
use crate::pipeline::report::{Note, What};
use crate::pipeline::sinks::{CheckSink, FindingsFile, Quarantine};
use crate::pipeline::{RunOptions, Summary, WorkOptions, run};
use crate::search::{AnalysisOptions, EngineLimit, EngineSpec};
use clap::Args;
use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Instant;

/// Input and reporting options shared by `check` and `import`.
#[derive(Args, Debug, Clone)]
pub struct InputArgs {
    /// PGN files (plain, gzip, bzip2, zstd or xz, recognised by content); `-` for stdin. A
    /// folder is walked for files named *.pgn, *.pgn.gz, *.pgn.zst, *.pgn.bz2 or *.pgn.xz,
    /// in name order, hidden files and folders skipped.
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
    /// Edition of the Laws of Chess: auto (by the Date tag), 1980, 1993 (alias 1997), 2001 or 2014.
    #[arg(long, default_value = "auto")]
    pub laws: LawsChoice,
    /// Skip the Laws' verdict (parse and replay only).
    #[arg(long)]
    pub no_laws: bool,
    /// Critical-position analysis by arbiter's search; NODES is the deep-search budget per
    /// critical position (default 20000). Give it as `--analyse=NODES`: a bare `--analyse`
    /// never takes the next argument (a file name) as its value.
    #[arg(
        long,
        value_name = "NODES",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "20000"
    )]
    pub analyse: Option<u64>,
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Node budget per side for deciding whether a final position is dead. Most final
    /// positions are decided in a few dozen nodes; 50,000 settles the long minor-piece
    /// helpmates (K+N+N v K) the stages may otherwise miss.
    #[arg(long, default_value_t = 50_000)]
    pub dead_budget: u64,
}

/// The second tier of the analysis: a UCI engine run as a separate program.
#[derive(Args, Debug, Clone, Default)]
pub struct EngineArgs {
    /// The UCI engine that judges the positions arbiter's own search marks as critical, one
    /// process per worker, `ucinewgame` per game; `none`: arbiter's own search alone (it
    /// labels blunders only). Without it the analysis uses `stockfish` on PATH, else
    /// /usr/games/stockfish (Debian's package), else arbiter's own search. Given, it implies
    /// --analyse. For instance:
    ///   --engine /usr/games/stockfish
    ///   --engine stockfish --engine-nodes 1000000 --engine-threads 1
    ///   --engine ./myengine --engine-depth 18 --engine-option Hash=64
    ///   --engine none
    #[arg(long, value_name = "PATH|none", verbatim_doc_comment)]
    pub engine: Option<PathBuf>,
    /// The engine's node limit per position (default 1000000, lichess's budget).
    #[arg(long, value_name = "N", conflicts_with = "engine_depth")]
    pub engine_nodes: Option<u64>,
    /// The engine's depth limit per position, instead of nodes.
    #[arg(long, value_name = "D")]
    pub engine_depth: Option<u32>,
    /// The engine's Threads option (1 keeps a node-limited analysis reproducible).
    #[arg(long, value_name = "T", default_value_t = 1)]
    pub engine_threads: u32,
    /// An engine option, NAME=VALUE (repeatable), e.g. Hash=64.
    #[arg(long, value_name = "NAME=VALUE", value_parser = parse_engine_option)]
    pub engine_option: Vec<(String, String)>,
    /// Seconds the engine may take for one position before it is killed, restarted and the
    /// game retried once.
    #[arg(long, value_name = "SECS", default_value_t = 60)]
    pub engine_timeout: u64,
    /// Nodes of the engine's sweep: a quick search of every position whose curve marks the
    /// positions the engine then searches at its budget (0: arbiter's own search marks them).
    #[arg(long, value_name = "N", default_value_t = ENGINE_SWEEP_NODES)]
    pub engine_sweep_nodes: u64,
    /// Nodes of a second look at the moves the sweep puts just under its mark (4 to 5 Win%
    /// points down); those it puts 5 points down get the budget too (0: no second look).
    #[arg(long, value_name = "N", default_value_t = ENGINE_REFINE_NODES)]
    pub engine_refine_nodes: u64,
}

/// Which engine an analysis runs with, and how it came to be chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineChoice {
    /// `--engine PATH`.
    Given(PathBuf),
    /// No `--engine`: Stockfish, found here.
    Found(PathBuf),
    /// No `--engine`, and no Stockfish found: arbiter's own search.
    NotFound,
    /// `--engine none`: arbiter's own search, as asked.
    Own,
}

/// An engine that answered `uci` and `isready`, with its `id name`.
pub type StartedEngine = (&'static EngineSpec, String);

impl EngineArgs {
    /// Where the engine comes from: `--engine`, or a search for Stockfish without it.
    pub fn choice(&self) -> EngineChoice {
        match &self.engine {
            Some(p) if p.as_os_str() == "none" => EngineChoice::Own,
            Some(p) => EngineChoice::Given(p.clone()),
            None => match crate::search::discover::find_stockfish() {
                Some(p) => EngineChoice::Found(p),
                None => EngineChoice::NotFound,
            },
        }
    }

    /// The engine the analysis runs with, as one spec leaked for the whole run (shared by
    /// every worker); `None`: arbiter's own search alone.
    pub fn spec(&self) -> Option<&'static EngineSpec> {
        let path = match self.choice() {
            EngineChoice::Given(p) | EngineChoice::Found(p) => p,
            EngineChoice::NotFound | EngineChoice::Own => return None,
        };
        let limit = match (self.engine_nodes, self.engine_depth) {
            (_, Some(d)) => EngineLimit::Depth(d),
            (n, None) => EngineLimit::Nodes(n.unwrap_or(ENGINE_DEFAULT_NODES)),
        };
        Some(Box::leak(Box::new(EngineSpec {
            path,
            limit,
            threads: self.engine_threads.max(1),
            options: self.engine_option.clone(),
            search_timeout: std::time::Duration::from_secs(self.engine_timeout.max(1)),
            sweep_nodes: self.engine_sweep_nodes,
            refine_nodes: self.engine_refine_nodes,
        })))
    }

    /// The engine of an analysis about to run, started once before anything is stored: a
    /// path that does not exist, a program that is not a UCI engine or fails `isready`, is a
    /// usage error (exit 2), as are engine settings without an engine. Says on stderr which
    /// engine judges, from where and at what budget, or that arbiter's own search does.
    pub fn start(&self) -> Result<Option<StartedEngine>> {
        let choice = self.choice();
        let Some(spec) = self.spec() else {
            if self.engine_nodes.is_some()
                || self.engine_depth.is_some()
                || !self.engine_option.is_empty()
            {
                return Err(AppError::Usage(format!(
                    "--engine-nodes, --engine-depth and --engine-option set a UCI engine, and {}",
                    if choice == EngineChoice::Own {
                        "--engine none runs arbiter's own search alone".to_string()
                    } else {
                        no_stockfish()
                    }
                )));
            }
            if choice == EngineChoice::NotFound {
                eprintln!(
                    "analysis: {}; arbiter's own search labels blunders only. Install \
                     Stockfish (`apt-get install stockfish`) or give --engine PATH for \
                     inaccuracies, mistakes and blunders judged by an engine",
                    no_stockfish()
                );
            }
            return Ok(None);
        };
        let name = Self::check(spec)?;
        let budget = match spec.limit {
            EngineLimit::Nodes(n) => format!("{n} nodes a position"),
            EngineLimit::Depth(d) => format!("depth {d} a position"),
        };
        eprintln!(
            "analysis: {name} ({}{}), {budget}, sweep {} nodes, second look {} nodes",
            spec.path.display(),
            if matches!(choice, EngineChoice::Found(_)) {
                ", found; --engine none for arbiter's own search"
            } else {
                ""
            },
            spec.sweep_nodes,
            spec.refine_nodes
        );
        Ok(Some((spec, name)))
    }

    /// Starts the engine once: gives its name (`id name`), part of the analysis settings.
    pub fn check(spec: &EngineSpec) -> Result<String> {
        crate::search::engine::UciEngine::start(spec)
            .map(|e| e.name.clone())
            .map_err(|e| AppError::Usage(format!("--engine: {e}")))
    }
}

/// Why there is no engine when none was given.
fn no_stockfish() -> String {
    format!(
        "no `{}` on PATH nor at {}",
        crate::search::discover::STOCKFISH,
        crate::search::discover::DEBIAN_STOCKFISH
    )
}

/// Default node limit of `--engine`: near lichess's server analysis.
pub const ENGINE_DEFAULT_NODES: u64 = 1_000_000;
/// The sweep's default: 2 % of the default budget a position. Chosen on the development set
/// over 5,000 (docs/ANALYSIS.md): the same engine nodes in all, better recall.
pub const ENGINE_SWEEP_NODES: u64 = 20_000;
/// The default of `--engine-refine-nodes`: 10 % of the default budget (docs/ANALYSIS.md).
pub const ENGINE_REFINE_NODES: u64 = 100_000;

fn parse_engine_option(text: &str) -> std::result::Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.trim().is_empty() => {
            Ok((name.trim().to_string(), value.trim().to_string()))
        }
        _ => Err(format!("{text:?} is not NAME=VALUE (e.g. Hash=64)")),
    }
}

impl InputArgs {
    /// Engine settings given without an analysis to use them are a usage error: they would do
    /// nothing.
    pub fn check_engine_flags(&self) -> Result<()> {
        let e = &self.engine;
        if self.analysis_options().is_none()
            && (e.engine_nodes.is_some() || e.engine_depth.is_some() || !e.engine_option.is_empty())
        {
            return Err(AppError::Usage(
                "--engine-nodes, --engine-depth and --engine-option set the engine of an analysis: give --analyse (or --engine PATH) too".to_owned(),
            ));
        }
        Ok(())
    }

    /// The analysis asked for: `--analyse`, or `--engine` (which implies it), with the
    /// engine of `EngineArgs::spec`.
    pub fn analysis_options(&self) -> Option<AnalysisOptions> {
        if self.analyse.is_none() && self.engine.engine.is_none() {
            return None;
        }
        let mut options = AnalysisOptions::default();
        if let Some(nodes) = self.analyse {
            options.deep_nodes = nodes;
        }
        options.engine = self.engine.spec();
        Some(options)
    }

    /// The files to read: the inputs as given, each folder replaced by its PGN files.
    pub fn inputs(&self) -> Vec<PathBuf> {
        crate::pipeline::source::expand_inputs(&self.files)
    }

    pub fn run_options(&self) -> RunOptions {
        RunOptions {
            inputs: self.inputs(),
            work: WorkOptions {
                mode: if self.strict {
                    SanMode::Strict
                } else {
                    SanMode::Lenient
                },
                analysis: self.analysis_options(),
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

    pub fn open_outputs(&self) -> Result<(Option<FindingsFile>, Option<Quarantine>)> {
        let findings = match &self.findings {
            Some(p) => {
                FindingsFile::format_of(p)
                    .map_err(|e| super::error::AppError::usage(format!("--findings: {e}")))?;
                Some(FindingsFile::create(p, self.csv_raw)?)
            }
            None => None,
        };
        let quarantine = match &self.quarantine {
            Some(p) => Some(Quarantine::create(p)?),
            None => None,
        };
        Ok((findings, quarantine))
    }

    /// Writes the summary as JSON where `--summary-json` asks for it, with `extra` fields.
    pub fn write_summary_json(
        &self,
        summary: &Summary,
        extra: &[(&str, serde_json::Value)],
    ) -> Result<()> {
        let Some(path) = &self.summary_json else {
            return Ok(());
        };
        let mut value = serde_json::to_value(summary)?;
        for (key, v) in extra {
            value[*key] = v.clone();
        }
        let text = serde_json::to_string_pretty(&value)?;
        std::fs::write(path, text + "\n").with_path(path)
    }
}

/// Which errors of a rejected game are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rejected {
    /// Every error finding (`check`).
    All,
    /// The first: the reason the database stores (`import`).
    First,
    /// None (`--quiet`).
    Quiet,
}

impl Rejected {
    /// `shown` unless `--quiet`.
    pub fn unless_quiet(quiet: bool, shown: Rejected) -> Rejected {
        if quiet { Rejected::Quiet } else { shown }
    }
}

/// Prints a run's notes on standard error as they come, in input order: a rejected game's
/// errors as `FILE: FINDING` lines (as `rejected` says), every other note as one line with
/// the program's prefix (an input not read, one without a game, an import resumed).
pub fn print_note(rejected: Rejected) -> impl FnMut(Note<'_>) {
    move |note: Note<'_>| match note.what {
        What::Rejected(_) => {
            let shown = match rejected {
                Rejected::All => usize::MAX,
                Rejected::First => 1,
                Rejected::Quiet => 0,
            };
            for f in note.errors().take(shown) {
                eprintln!("{}: {f}", note.file);
            }
        }
        _ => warn(note),
    }
}

/// The one line of a `check` stopped by Ctrl-C (exit 130): how far it went, and that the
/// outputs asked for are not left half written.
pub fn interrupted(input: &InputArgs, summary: &Summary) -> AppError {
    let outputs = input.findings.is_some() || input.quarantine.is_some();
    AppError::Interrupted(format!(
        "interrupted: {} games checked{}",
        summary.games,
        if outputs {
            "; no findings or quarantine file is left"
        } else {
            ""
        }
    ))
}

/// The exit status of a run over PGN inputs: 2 if a file could not be read, 1 if a game was
/// rejected, else 0.
pub fn outcome(summary: &Summary) -> Outcome {
    Outcome::of(
        !summary.failed_files.is_empty(),
        summary.rejected > 0 || !summary.files_without_games.is_empty(),
    )
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub shards: super::shards::ShardArgs,
}

pub fn run_check(args: &CheckArgs) -> Result {
    // Ctrl-C stops the reading at the next batch, so that no output is left half written.
    crate::interrupt::install();
    let start = Instant::now();
    args.input.check_engine_flags()?;
    if args.input.analysis_options().is_some() {
        args.input.engine.start()?;
    }
    let (findings, quarantine) = args.input.open_outputs()?;
    let mut sink = CheckSink {
        findings,
        quarantine,
    };
    let mut report = print_note(Rejected::unless_quiet(args.input.quiet, Rejected::All));
    let summary = match &args.shards.output {
        Some(dir) => super::shards::run_shards(&args.input, &args.shards, dir, sink, &mut report)?,
        None => {
            let summary = run(&args.input.run_options(), &mut sink, &mut report)?;
            if summary.interrupted {
                sink.abandon()?;
            } else {
                sink.finish()?;
            }
            summary
        }
    };
    if summary.interrupted {
        return Err(interrupted(&args.input, &summary));
    }
    let elapsed = start.elapsed();
    args.input.write_summary_json(&summary, &[])?;
    let mut out = io::stdout().lock();
    summary.write_table(&mut out, elapsed)?;
    out.flush()?;
    Ok(outcome(&summary))
}
