//! `arbiter analyse FEN [--nodes N | --depth D | --movetime MS]`: searches one position and
//! prints the best move (SAN and UCI), the score, depth, nodes and the principal variation.
//! `arbiter analyse --db DB [selection] [--nodes N] [--engine PATH ...] [--redo]`: the
//! analysis stage over stored games (`pipeline::analyse`), resumable, Ctrl-C safe.

use super::check::EngineArgs;
use super::error::{AppError, Outcome, Result};
use super::filter::FilterArgs;
use crate::chess::san::to_san;
use crate::chess::uci::to_uci;
use crate::chess::{Move, Position};
use crate::pipeline::analyse::{Progress, StageOptions, StageSummary};
use crate::search::AnalysisOptions;
use crate::search::{Limits, Searcher};
use clap::Args;
use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
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
    /// Position in FEN (quote it); or, with --db, nothing: the stored games are analysed.
    #[arg(required_unless_present = "db", conflicts_with = "db")]
    pub fen: Option<String>,
    /// Analyse the games stored in this database (those the selection flags choose) that
    /// are not yet analysed under the same settings. --nodes is then the deep-search budget
    /// of each critical position (default 20000).
    #[arg(long, value_name = "DB")]
    pub db: Option<PathBuf>,
    #[command(flatten)]
    pub limits: LimitArgs,
    /// Transposition table size in MB.
    #[arg(long, default_value_t = 16)]
    pub hash: usize,
    #[command(flatten)]
    pub engine: EngineArgs,
    /// With --db: analyse again games already analysed under the same settings.
    #[arg(long, requires = "db")]
    pub redo: bool,
    /// With --db: worker threads (default: all cores).
    #[arg(long, default_value_t = 0, requires = "db")]
    pub jobs: usize,
    /// With --db: no progress line.
    #[arg(long, short, requires = "db")]
    pub quiet: bool,
    #[command(flatten)]
    pub filter: FilterArgs,
}

pub const DEFAULT_NODES: u64 = 1_000_000;

pub fn run(args: &AnalyseArgs) -> Result {
    let Some(fen) = &args.fen else {
        return run_db(args);
    };
    let pos = Position::from_fen(fen.trim())?;
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

/// `analyse --db`: the stage over the selected games.
fn run_db(args: &AnalyseArgs) -> Result {
    let db = args.db.as_ref().expect("clap: --db or a FEN");
    if args.limits.depth.is_some() || args.limits.movetime.is_some() {
        return Err(AppError::Usage(
            "analyse --db takes --nodes (the deep budget); --depth and --movetime are for one \
             position"
                .into(),
        ));
    }
    let mut analysis = AnalysisOptions {
        tt_mb: args.hash,
        ..AnalysisOptions::default()
    };
    if let Some(n) = args.limits.nodes {
        analysis.deep_nodes = n;
    }
    let options = stage_options(analysis, &args.engine, args.redo, args.jobs)?;
    let mut conn = crate::db::open_existing(db)?;
    let filter = args.filter.select(&conn, false)?;
    let games = crate::db::query::Selection::compile(&conn, &filter)?;
    run_stage(&mut conn, &games, &options, args.quiet)
}

/// The stage's options, with the engine checked first: one that cannot start is a usage
/// error before anything is stored.
pub fn stage_options(
    mut analysis: AnalysisOptions,
    engine: &EngineArgs,
    redo: bool,
    jobs: usize,
) -> Result<StageOptions> {
    analysis.engine = engine.spec();
    let engine_name = match analysis.engine {
        Some(spec) => Some(EngineArgs::check(spec)?),
        None => None,
    };
    Ok(StageOptions {
        analysis,
        engine_name,
        redo,
        jobs,
    })
}

/// Runs the stage, drawing its progress on stderr (a terminal, unless `quiet`) and printing
/// its summary; Ctrl-C commits and says how to go on.
pub fn run_stage(
    conn: &mut rusqlite::Connection,
    games: &crate::db::query::Selection,
    options: &StageOptions,
    quiet: bool,
) -> Result {
    crate::interrupt::install();
    let draw = !quiet && io::stderr().is_terminal();
    let mut last_draw = Instant::now();
    let summary = crate::pipeline::analyse::run(conn, games, options, |p| {
        if draw && last_draw.elapsed() >= Duration::from_millis(500) {
            last_draw = Instant::now();
            eprint!("\r\x1b[2K{}", progress_line(p));
        }
    })
    .map_err(|e| AppError::Other(e.to_string()))?;
    if draw {
        eprint!("\r\x1b[2K");
    }
    print_summary(&summary)?;
    if summary.interrupted {
        eprintln!(
            "interrupted: {} games analysed; run the same command to go on",
            summary.analysed
        );
        return Ok(Outcome::Errored);
    }
    Ok(Outcome::Success)
}

/// `analysed 120/400 games, 0.85 games/s, ETA 5m29s`.
pub fn progress_line(p: &Progress) -> String {
    let eta = p.eta().map_or("…".to_string(), |d| {
        let s = d.as_secs();
        if s >= 3600 {
            format!("{}h{:02}m", s / 3600, s % 3600 / 60)
        } else {
            format!("{}m{:02}s", s / 60, s % 60)
        }
    });
    format!(
        "analysed {}/{} games, {:.2} games/s, ETA {eta}",
        p.done,
        p.total,
        p.rate()
    )
}

fn print_summary(s: &StageSummary) -> Result<()> {
    let mut out = io::stdout().lock();
    writeln!(out, "selected   {:>12}", s.selected)?;
    writeln!(
        out,
        "skipped    {:>12}  (already analysed under the same settings)",
        s.skipped
    )?;
    writeln!(
        out,
        "analysed   {:>12}  ({} plies in {:.1} s, {:.2} games/s)",
        s.analysed,
        s.plies,
        s.seconds,
        s.analysed as f64 / s.seconds.max(1e-9)
    )?;
    writeln!(
        out,
        "labels     {:>12}  inaccuracies, {} mistakes, {} blunders",
        s.labels[0], s.labels[1], s.labels[2]
    )?;
    if s.positions > 0 && s.engine_positions > 0 {
        writeln!(
            out,
            "engine     {:>12}  positions of {} ({:.1} %), {} nodes",
            s.engine_positions,
            s.positions,
            100.0 * s.engine_positions as f64 / s.positions as f64,
            s.engine_nodes
        )?;
    }
    if s.engine_failed > 0 {
        writeln!(
            out,
            "failed     {:>12}  (analysis.engine-failed)",
            s.engine_failed
        )?;
    }
    if s.undecodable > 0 {
        writeln!(out, "undecodable{:>12}", s.undecodable)?;
    }
    out.flush()?;
    Ok(())
}
