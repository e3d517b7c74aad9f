//! `arbiter bench laws`: what the Laws cost on top of parse and replay (issue 36). One
//! thread, the games held in memory: every game split, parsed and replayed, without and
//! with the Laws' verdict, the two interleaved `--runs` times; then the dead-position test
//! alone on the games' final positions. Prints medians of the thread's CPU time (wall time
//! where Linux's per-thread figure is missing) and the ratio the goals are stated
//! in (the replay's time over the time with the Laws).

use super::error::{AppError, Result};
use crate::chess::{Position, SanMode};
use crate::laws::VerdictOptions;
use crate::laws::dead::{self, Budget, Deadness};
use crate::pgn::Splitter;
use crate::pipeline::work::{Keep, WorkOptions, process};
use clap::Args;
use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct LawsBenchArgs {
    /// laws: PGN files (default: $ARBITER_CORPUS/games/otb-pgnmentor/*.pgn, the master games).
    #[arg(id = "laws_source", long = "laws-source", value_name = "PGN")]
    pub sources: Vec<PathBuf>,
}

fn load(args: &LawsBenchArgs) -> Result<Vec<u8>> {
    let paths = super::bench_import::sources_or_master_games(
        &args.sources,
        "bench laws: give --laws-source FILE.pgn",
    )?;
    let mut data = Vec::new();
    for p in &paths {
        let bytes = std::fs::read(p).map_err(|source| AppError::Io {
            path: p.clone(),
            source,
        })?;
        data.extend_from_slice(&bytes);
        data.push(b'\n');
    }
    Ok(data)
}

/// One pass over the games: plies replayed and findings made.
fn pass(data: &[u8], options: &WorkOptions) -> (usize, usize, usize) {
    let (mut games, mut plies, mut findings) = (0, 0, 0);
    for raw in Splitter::new(data).flatten() {
        let p = process(raw, options, Keep::Findings);
        games += 1;
        plies += p.plies;
        findings += p.findings.len();
    }
    (games, plies, findings)
}

/// A stopwatch of this thread's CPU time where Linux tells it (`/proc/thread-self/schedstat`,
/// nanoseconds on the CPU), else of wall time: on a busy host the CPU time is the figure
/// that compares. The kernel brings that sum up to date at its scheduler ticks, so it is
/// good to a few milliseconds: enough for the master games' hundreds of milliseconds, not
/// for a small file.
struct Clock {
    cpu: Option<u64>,
    wall: Instant,
}

fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

impl Clock {
    fn start() -> Clock {
        Clock {
            cpu: thread_cpu_ns(),
            wall: Instant::now(),
        }
    }

    /// Seconds since `start`.
    fn secs(&self) -> f64 {
        match (self.cpu, thread_cpu_ns()) {
            (Some(a), Some(b)) => b.saturating_sub(a) as f64 / 1e9,
            _ => self.wall.elapsed().as_secs_f64(),
        }
    }
}

/// `pass` on a thread of its own, as a run of `check` starts: the Laws keep a per-thread
/// memo of dead-position verdicts, which a second pass on the same thread would find full.
fn timed_pass(data: &[u8], options: &WorkOptions) -> (f64, (usize, usize, usize)) {
    std::thread::scope(|s| {
        s.spawn(|| {
            let t = Clock::start();
            let counts = pass(data, options);
            (t.secs(), counts)
        })
        .join()
        .expect("the bench's pass does not panic")
    })
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

pub fn run(args: &LawsBenchArgs, runs: usize) -> Result {
    let data = load(args)?;
    let runs = runs.max(1);
    let mut out = io::stdout().lock();
    let replay_only = WorkOptions {
        mode: SanMode::Lenient,
        laws: None,
        analysis: None,
    };
    let with_laws = WorkOptions {
        laws: Some(VerdictOptions::default()),
        ..replay_only
    };
    let (mut t_replay, mut t_laws) = (Vec::new(), Vec::new());
    let mut counts = (0, 0, 0);
    for _ in 0..runs {
        t_replay.push(timed_pass(&data, &replay_only).0);
        let (secs, c) = timed_pass(&data, &with_laws);
        t_laws.push(secs);
        counts = c;
    }
    let (games, plies, findings) = counts;
    let (r, l) = (median(t_replay), median(t_laws));
    writeln!(
        out,
        "{games} games, {plies} plies, {:.1} MB, one thread, median of {runs} interleaved runs, {}",
        data.len() as f64 / 1e6,
        if thread_cpu_ns().is_some() {
            "the thread's CPU time"
        } else {
            "wall time"
        }
    )?;
    writeln!(out, "parse + replay          {:>9.1} ms", r * 1e3)?;
    writeln!(
        out,
        "parse + replay + Laws   {:>9.1} ms  ({findings} findings; replay / Laws = {:.2}x)",
        l * 1e3,
        r / l
    )?;

    // The dead-position test on the final positions, as `check` asks it of every game
    // judged under the 2001 and later Laws (here of every game, without the memo).
    let finals: Vec<Position> = Splitter::new(&data[..])
        .flatten()
        .filter_map(|raw| {
            let game = crate::pgn::parse_game(&raw);
            let r = crate::game::replay(&game, SanMode::Lenient);
            (r.complete && !r.is_rejected()).then(|| r.final_position())
        })
        .collect();
    let budget = Budget {
        nodes: 50_000,
        ..Budget::default()
    };
    let mut times = Vec::new();
    let mut tally = [0usize; 3];
    for _ in 0..runs {
        tally = [0; 3];
        let t = Clock::start();
        for pos in &finals {
            let i = match dead::deadness(pos, budget) {
                Deadness::Alive => 0,
                Deadness::Dead => 1,
                Deadness::Unknown => 2,
            };
            tally[i] += 1;
        }
        times.push(t.secs());
    }
    let settled = finals
        .iter()
        .filter(|p| {
            p.has_legal_moves()
                && crate::chess::Color::ALL
                    .into_iter()
                    .any(|c| dead::alive::proof(p, c).is_some())
        })
        .count();
    let d = median(times);
    writeln!(
        out,
        "dead positions          {:>9.1} ms  ({} finals, {:.2} µs each: {} alive, {} dead, {} undetermined; {settled} settled by a class)",
        d * 1e3,
        finals.len(),
        d * 1e6 / finals.len().max(1) as f64,
        tally[0],
        tally[1],
        tally[2]
    )?;
    Ok(super::error::Outcome::Success)
}
