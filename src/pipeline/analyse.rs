//! The analysis stage over a database (`arbiter analyse --db`, and `import --analyse` on what
//! it imported): the selected games without an analysis at least as strong as this run's
//! (`search::strength`) are analysed
//! on the workers (`search::analysis`) and written by one thread, committed every few
//! seconds, so an interrupted run loses seconds of work and the same command goes on from
//! there. Ctrl-C (`interrupt`) stops it cleanly after a commit.

use super::record::analysis_record;
use crate::db::analyses::{self, AnalysisFindingRecord, PendingGame};
use crate::db::encode::{decode_moves, start_position};
use crate::interrupt;
use crate::search::EngineError;
use crate::search::analysis::{AnalysisOptions, GameAnalysis, analyse, code, settings_json};
use rayon::prelude::*;
use rusqlite::Connection;
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// How often the writer commits: a Ctrl-C or a crash loses at most this much analysis.
pub const COMMIT_EVERY: Duration = Duration::from_secs(3);

/// What the stage is asked to do.
#[derive(Clone, Debug)]
pub struct StageOptions {
    pub analysis: AnalysisOptions,
    /// The engine's name (`id name`), when `analysis.engine` is set: part of the settings.
    pub engine_name: Option<String>,
    /// Analyse again games already analysed at least as strongly.
    pub redo: bool,
    /// Worker threads (0: all cores).
    pub jobs: usize,
}

impl StageOptions {
    /// The settings recorded with each analysis, and compared to skip games already done.
    pub fn settings(&self) -> String {
        settings_json(&self.analysis, self.engine_name.as_deref())
    }
}

/// Progress as the stage reports it after each game and each commit.
#[derive(Clone, Copy, Debug, Default)]
pub struct Progress {
    /// Games analysed (written) in this run.
    pub done: u64,
    /// Games this run has to analyse.
    pub total: u64,
    /// Of `done`, committed.
    pub committed: u64,
    pub elapsed: Duration,
}

impl Progress {
    /// Games a second in this run.
    pub fn rate(&self) -> f64 {
        self.done as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// The time the rest will take at this run's rate so far; `None` before the first game.
    pub fn eta(&self) -> Option<Duration> {
        (self.done > 0).then(|| {
            Duration::from_secs_f64((self.total - self.done) as f64 / self.rate().max(1e-9))
        })
    }
}

/// What a run of the stage did.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct StageSummary {
    /// Games the selection holds.
    pub selected: u64,
    /// Already analysed at least as strongly: skipped.
    pub skipped: u64,
    /// Of `skipped`, analysed under the very same settings.
    pub skipped_same_settings: u64,
    /// The rest of `skipped`, by the stronger (or as strong) analysis they keep.
    pub skipped_stronger: std::collections::BTreeMap<String, u64>,
    /// Of the games analysed (`--redo`), those whose stronger analysis stays the one read.
    pub not_read: u64,
    /// Analysed and committed in this run.
    pub analysed: u64,
    /// Of those, games whose engine failed (`analysis.engine-failed`): stored without an
    /// analysis after a crash or hang retried once, or with the evaluations made before an
    /// illegal reply.
    pub engine_failed: u64,
    /// Games whose moves could not be decoded (a damaged row): left as they are.
    pub undecodable: u64,
    /// Plies of the games analysed.
    pub plies: u64,
    /// Per judgement (inaccuracy, mistake, blunder): labels given.
    pub labels: [u64; 3],
    /// Per judgement: whether this run gives that label at all (arbiter's own search gives
    /// blunders only); a count of a kind not judged means nothing.
    pub judged: [bool; 3],
    /// Positions the UCI engine searched, the nodes it reported, and the positions with a
    /// legal move in the games analysed (what evaluating every position would search).
    pub engine_positions: u64,
    pub engine_nodes: u64,
    pub positions: u64,
    /// Ctrl-C stopped the run; the games committed before it stay analysed.
    pub interrupted: bool,
    pub seconds: f64,
}

/// Why the stage stopped.
#[derive(Debug)]
pub enum StageError {
    Sqlite(rusqlite::Error),
    /// The worker threads could not be started.
    Threads(String),
}

impl std::fmt::Display for StageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StageError::Sqlite(e) => write!(f, "database: {e}"),
            StageError::Threads(e) => write!(f, "cannot start the worker threads: {e}"),
        }
    }
}

impl std::error::Error for StageError {}

impl From<rusqlite::Error> for StageError {
    fn from(e: rusqlite::Error) -> StageError {
        StageError::Sqlite(e)
    }
}

/// One game's result, made on a worker.
struct Done {
    game: PendingGame,
    outcome: Outcome,
}

enum Outcome {
    Analysed(Box<GameAnalysis>, u64),
    /// The engine crashed or hung on the game twice.
    EngineFailed(EngineError),
    Undecodable,
}

fn work(game: PendingGame, options: &AnalysisOptions) -> Done {
    let decoded = start_position(game.start_fen.as_deref(), game.chess960)
        .and_then(|start| decode_moves(&start, &game.moves).map(|moves| (start, moves)));
    let Ok((start, moves)) = decoded else {
        return Done {
            game,
            outcome: Outcome::Undecodable,
        };
    };
    let outcome = match analyse(&start, &moves, game.result.as_deref(), game.mate, options) {
        Ok(a) => Outcome::Analysed(Box::new(a), moves.len() as u64),
        Err(e) => Outcome::EngineFailed(e),
    };
    Done { game, outcome }
}

/// Runs the stage on the games `games` selects. `progress` is called after each game and
/// each commit.
pub fn run(
    conn: &mut Connection,
    games: &crate::db::query::Selection,
    options: &StageOptions,
    mut progress: impl FnMut(&Progress),
) -> Result<StageSummary, StageError> {
    let start = Instant::now();
    let settings = options.settings();
    let selection = analyses::select(conn, games, &settings, options.redo)?;
    let mut summary = StageSummary {
        selected: selection.selected,
        skipped: selection.done,
        skipped_same_settings: selection.same_settings,
        skipped_stronger: selection.stronger,
        judged: crate::search::strength::Strength::judged_kinds(&settings),
        ..StageSummary::default()
    };
    let mut state = Progress {
        total: selection.pending.len() as u64,
        ..Progress::default()
    };
    if selection.pending.is_empty() {
        summary.seconds = start.elapsed().as_secs_f64();
        return Ok(summary);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.jobs)
        .build()
        .map_err(|e| StageError::Threads(e.to_string()))?;
    let (tx, rx) = channel::<Done>();
    let analysis = options.analysis;
    let pending = selection.pending;
    // The workers run on their own thread, so this one can commit and return on Ctrl-C
    // without waiting for the games in flight.
    std::thread::spawn(move || {
        pool.install(|| {
            pending
                .into_par_iter()
                .with_max_len(1)
                .for_each_with(tx, |tx, game| {
                    if interrupt::requested() {
                        return;
                    }
                    let _ = tx.send(work(game, &analysis));
                })
        });
    });

    let mut uncommitted = 0u64;
    let mut last_commit = Instant::now();
    conn.execute_batch("BEGIN IMMEDIATE")?;
    loop {
        let received = rx.recv_timeout(Duration::from_millis(100));
        match received {
            Ok(done) => {
                write(conn, done, &mut summary)?;
                uncommitted += 1;
                state.done += 1;
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
        let stop = interrupt::requested();
        if uncommitted > 0 && (stop || last_commit.elapsed() >= COMMIT_EVERY) {
            conn.execute_batch("COMMIT; BEGIN IMMEDIATE")?;
            summary.analysed += uncommitted;
            uncommitted = 0;
            last_commit = Instant::now();
        }
        state.committed = summary.analysed;
        state.elapsed = start.elapsed();
        progress(&state);
        if stop {
            summary.interrupted = true;
            break;
        }
    }
    conn.execute_batch("COMMIT")?;
    summary.analysed += uncommitted;
    summary.seconds = start.elapsed().as_secs_f64();
    Ok(summary)
}

fn write(conn: &Connection, done: Done, summary: &mut StageSummary) -> rusqlite::Result<()> {
    let finding = |code: &'static str, ply: u32, detail: String| AnalysisFindingRecord {
        code,
        severity: crate::findings::severity(code).as_str(),
        ply,
        detail,
    };
    match done.outcome {
        Outcome::Undecodable => summary.undecodable += 1,
        Outcome::EngineFailed(e) => {
            summary.engine_failed += 1;
            let f = finding(
                code::ENGINE_FAILED,
                e.ply.unwrap_or(0),
                format!("{e}; the game was tried twice and this engine's analysis is not stored"),
            );
            analyses::store(conn, &done.game, None, &[f])?;
        }
        Outcome::Analysed(a, plies) => {
            summary.plies += plies;
            for side in a.counts {
                for (total, n) in summary.labels.iter_mut().zip(side) {
                    *total += u64::from(n);
                }
            }
            summary.engine_positions += u64::from(a.engine.positions);
            summary.engine_nodes += a.engine.nodes;
            summary.positions += u64::from(a.engine.searchable);
            let mut findings: Vec<AnalysisFindingRecord> = a
                .findings
                .iter()
                .map(|f| finding(f.code, f.ply, f.message.clone()))
                .collect();
            if let Some(e) = &a.engine_failure {
                summary.engine_failed += 1;
                findings.push(finding(
                    code::ENGINE_FAILED,
                    e.ply.unwrap_or(0),
                    format!(
                        "{e}; the engine's evaluations before it are kept, arbiter's own \
                         elsewhere"
                    ),
                ));
            }
            if !analyses::store(conn, &done.game, Some(&analysis_record(&a)), &findings)? {
                summary.not_read += 1;
            }
        }
    }
    Ok(())
}
