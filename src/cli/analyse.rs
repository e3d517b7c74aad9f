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
use crate::pipeline::analyse::{Progress, StageError, StageOptions, StageSummary};
use crate::search::AnalysisOptions;
use crate::search::{Limits, Searcher};
use clap::Args;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
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
    /// have no analysis at least as strong (an engine's beats arbiter's own search, a higher
    /// budget a lower one). --nodes is then the deep-search budget
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
    /// With --db: analyse again games already analysed at least as strongly (the game's
    /// strongest analysis stays the one read).
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

/// How often `analyse --db` writes its progress line when stderr is not a terminal.
pub const LOG_EVERY: Duration = Duration::from_secs(5);

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
    run_stage(&mut conn, db, &games, &options, args.quiet)
}

/// The stage's options, with the engine checked first: one that cannot start is a usage
/// error before anything is stored.
pub fn stage_options(
    mut analysis: AnalysisOptions,
    engine: &EngineArgs,
    redo: bool,
    jobs: usize,
) -> Result<StageOptions> {
    let started = engine.start()?;
    analysis.engine = started.as_ref().map(|e| e.0);
    let engine_name = started.map(|e| e.1);
    Ok(StageOptions {
        analysis,
        engine_name,
        redo,
        jobs,
    })
}

/// Runs the stage over `db` (its file, named by a database error: a read-only file), drawing
/// its progress on stderr (a terminal, unless `quiet`) and printing its summary; Ctrl-C
/// commits and says how to go on.
pub fn run_stage(
    conn: &mut rusqlite::Connection,
    db: &Path,
    games: &crate::db::query::Selection,
    options: &StageOptions,
    quiet: bool,
) -> Result {
    crate::interrupt::install();
    // On a terminal the line is redrawn in place; to a log or a pipe a line is written
    // every `LOG_EVERY`.
    let terminal = io::stderr().is_terminal();
    let draw = !quiet && terminal;
    let log = !quiet && !terminal;
    let mut last_draw = Instant::now();
    let summary = crate::pipeline::analyse::run(conn, games, options, |p| {
        if draw && last_draw.elapsed() >= Duration::from_millis(500) {
            last_draw = Instant::now();
            eprint!("\r\x1b[2K{}", progress_line(p));
        } else if log && last_draw.elapsed() >= LOG_EVERY {
            last_draw = Instant::now();
            eprintln!("{}", progress_line(p));
        }
    })
    .map_err(|e| match e {
        StageError::Sqlite(_) => AppError::Other(format!("{}: {e}", db.display())),
        StageError::Threads(_) => AppError::Other(e.to_string()),
    })?;
    if draw {
        eprint!("\r\x1b[2K");
    }
    print_summary(&summary)?;
    if summary.interrupted {
        // Exit 130 with the one line, as every command ends on Ctrl-C.
        return Err(AppError::Interrupted(format!(
            "interrupted: {} games analysed; run the same command to go on",
            summary.analysed
        )));
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

/// Why the skipped games were skipped: `  (already analysed at least as strongly: 2 under the
/// same settings, 18 by Stockfish 16 at 1000000 nodes a position; --redo analyses them again)`.
fn skipped_why(s: &StageSummary) -> String {
    if s.skipped == 0 {
        return String::new();
    }
    let mut why = Vec::new();
    if s.skipped_same_settings > 0 {
        why.push(format!(
            "{} under the same settings",
            s.skipped_same_settings
        ));
    }
    for (strength, n) in &s.skipped_stronger {
        why.push(format!("{n} by {strength}"));
    }
    format!(
        "  (already analysed at least as strongly: {}; --redo analyses them again)",
        why.join(", ")
    )
}

/// `labels 3 inaccuracies, 1 mistakes, 2 blunders`; a kind this run never gives is said to
/// need an engine rather than counted as 0.
fn labels_line(s: &StageSummary) -> String {
    const KINDS: [&str; 3] = ["inaccuracies", "mistakes", "blunders"];
    let mut given = (0..3)
        .filter(|&k| s.judged[k])
        .map(|k| (s.labels[k], KINDS[k]));
    let mut line = match given.next() {
        Some((n, kind)) => format!("labels     {n:>12}  {kind}"),
        None => format!("labels     {:>12}", 0),
    };
    for (n, kind) in given {
        line.push_str(&format!(", {n} {kind}"));
    }
    let unjudged: Vec<&str> = (0..3).filter(|&k| !s.judged[k]).map(|k| KINDS[k]).collect();
    if !unjudged.is_empty() {
        line.push_str(&format!(
            "; {} need an engine (Stockfish on PATH, or --engine PATH)",
            unjudged.join(" and ")
        ));
    }
    line
}

fn print_summary(s: &StageSummary) -> Result<()> {
    let mut out = io::stdout().lock();
    writeln!(out, "selected   {:>12}", s.selected)?;
    writeln!(out, "skipped    {:>12}{}", s.skipped, skipped_why(s))?;
    writeln!(
        out,
        "analysed   {:>12}  ({} plies in {:.1} s, {:.2} games/s)",
        s.analysed,
        s.plies,
        s.seconds,
        s.analysed as f64 / s.seconds.max(1e-9)
    )?;
    writeln!(out, "{}", labels_line(s))?;
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
    if s.not_read > 0 {
        writeln!(
            out,
            "not read   {:>12}  (stored, but each game's stronger analysis stays the one read)",
            s.not_read
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::{RunOptions, import::ImportSink};

    /// A database the stage cannot write (a read-only file: here a read-only connection)
    /// is named in the error (it said "database: attempt to write a readonly database"
    /// alone).
    #[test]
    fn a_database_the_stage_cannot_write_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("club.sqlite");
        let pgn = dir.path().join("a.pgn");
        std::fs::write(
            &pgn,
            "[Event \"e\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n",
        )
        .unwrap();
        let writer = crate::db::StoreWriter::new(crate::db::open(&db).unwrap()).unwrap();
        let mut sink = ImportSink::new(writer, "{}".into());
        let options = RunOptions::parse_only(vec![pgn], 1);
        crate::pipeline::run(&options, &mut sink, &mut |_| {}).unwrap();
        assert_eq!(sink.finish().unwrap().stored, 1);
        let mut conn = crate::db::open_existing(&db).unwrap();
        let games = crate::db::query::Selection::compile(&conn, &Default::default()).unwrap();
        conn.pragma_update(None, "query_only", true).unwrap();
        let stage = StageOptions {
            analysis: AnalysisOptions {
                cheap_nodes: 200,
                deep_nodes: 200,
                ..AnalysisOptions::default()
            },
            engine_name: None,
            redo: false,
            jobs: 1,
        };
        let e = run_stage(&mut conn, &db, &games, &stage, true).unwrap_err();
        let message = e.to_string();
        assert!(
            message.starts_with(&format!("{}: database: ", db.display())),
            "{message}"
        );
        assert_eq!(e.code(), 2);
    }
}
