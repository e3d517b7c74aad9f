//! `arbiter tune fit`: samples quiet positions from the corpus games (seeded), fits K and then
//! the evaluation's weights to the games' results, prints the error before and after, and
//! writes the weights as Rust source (`src/search/weights_tuned.rs`).
//! `arbiter tune match`: a self-play match between two sets of weights at fixed nodes, both
//! colours of each balanced opening, printing W/D/L and the Elo difference with its 95 % bar.

use super::error::{AppError, Outcome, Result};
use crate::search::weights::{CLASSIC, TUNED, Weights};
use crate::tune::data::{SampleOptions, corpus_files, sample_files};
use crate::tune::selfplay::{
    MatchOptions, Termination, choose_openings, load_openings, play_match, summarise,
};
use crate::tune::texel::{self, Dataset, FitOptions};
use crate::tune::{TuneError, selfplay};
use clap::{Args, Subcommand, ValueEnum};
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Args, Debug)]
pub struct TuneArgs {
    #[command(subcommand)]
    pub what: TuneCommand,
}

#[derive(Subcommand, Debug)]
pub enum TuneCommand {
    /// Fit the evaluation's weights to game results (Texel's method).
    Fit(FitArgs),
    /// Play one set of weights against another at fixed nodes per move.
    Match(MatchArgs),
}

#[derive(Args, Debug)]
pub struct FitArgs {
    /// The corpus folder (its `games/` is read); default: $ARBITER_CORPUS.
    #[arg(long)]
    pub corpus: Option<PathBuf>,
    /// Seed of the position sampling.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Quiet positions taken from each game, at most.
    #[arg(long, default_value_t = 10)]
    pub per_game: usize,
    /// Plies at the start of each game never taken.
    #[arg(long, default_value_t = 8)]
    pub skip_plies: usize,
    /// Passes of gradient descent over the whole data set.
    #[arg(long, default_value_t = 2000)]
    pub epochs: usize,
    /// Adam's step size in centipawns.
    #[arg(long, default_value_t = 1.0)]
    pub rate: f64,
    /// Ridge penalty toward the hand-set weights: moving one weight by a pawn costs this much
    /// error (0: none).
    #[arg(long, default_value_t = 0.0)]
    pub l2: f64,
    /// Write the fitted weights here as Rust source (e.g. src/search/weights_tuned.rs).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// A set of weights the engine knows.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum WeightsName {
    /// The hand-set evaluation.
    Classic,
    /// The weights fitted by `tune fit` (src/search/weights_tuned.rs).
    Tuned,
}

impl WeightsName {
    fn weights(self) -> &'static Weights {
        match self {
            WeightsName::Classic => &CLASSIC,
            WeightsName::Tuned => &TUNED,
        }
    }
}

#[derive(Args, Debug)]
pub struct MatchArgs {
    /// Games to play (even: each opening with both colours).
    #[arg(long, default_value_t = 1000)]
    pub games: usize,
    /// Nodes per move for both engines.
    #[arg(long, default_value_t = 5000)]
    pub nodes: u64,
    /// Seed of the opening draw.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The engine measured.
    #[arg(long, value_enum, default_value_t = WeightsName::Tuned)]
    pub first: WeightsName,
    /// Its opponent.
    #[arg(long, value_enum, default_value_t = WeightsName::Classic)]
    pub second: WeightsName,
    /// Folder of opening lines (`eco name pgn` TSV files); default: $ARBITER_CORPUS/openings.
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Shortest opening line, plies.
    #[arg(long, default_value_t = 4)]
    pub min_plies: usize,
    /// Longest opening line, plies.
    #[arg(long, default_value_t = 8)]
    pub max_plies: usize,
    /// A game still going after this many plies is a draw.
    #[arg(long, default_value_t = 400)]
    pub ply_cap: usize,
}

pub fn run(args: &TuneArgs) -> Result {
    match &args.what {
        TuneCommand::Fit(a) => run_fit(a),
        TuneCommand::Match(a) => run_match(a),
    }
}

fn corpus_dir(given: &Option<PathBuf>) -> Result<PathBuf> {
    match given {
        Some(p) => Ok(p.clone()),
        None => std::env::var_os("ARBITER_CORPUS")
            .map(PathBuf::from)
            .ok_or_else(|| AppError::usage("give --corpus DIR or set ARBITER_CORPUS")),
    }
}

fn tune_error(e: TuneError) -> AppError {
    match e {
        TuneError::Io { path, source } => AppError::io(&path, source),
        TuneError::Empty(m) => AppError::usage(m),
    }
}

fn run_fit(args: &FitArgs) -> Result {
    if args.per_game == 0
        || args.epochs == 0
        || args.rate.is_nan()
        || args.rate <= 0.0
        || args.l2.is_nan()
        || args.l2 < 0.0
    {
        return Err(AppError::usage(
            "--per-game and --epochs must be at least 1, --rate above 0 and --l2 at least 0",
        ));
    }
    let corpus = corpus_dir(&args.corpus)?;
    let mut out = io::stdout().lock();
    let started = Instant::now();
    let files = corpus_files(&corpus).map_err(tune_error)?;
    let opts = SampleOptions {
        seed: args.seed,
        per_game: args.per_game,
        skip_plies: args.skip_plies,
    };
    let (samples, stats) = sample_files(&files, &opts).map_err(tune_error)?;
    // One game in ten, by its number, is held out to check the fit on games it never saw.
    let (valid, train): (Vec<_>, Vec<_>) = samples.into_iter().partition(|s| s.game % 10 == 9);
    writeln!(
        out,
        "data: {} files, {} games, {} with a result used; {} quiet positions (seed {}, at most {} a game after ply {}): {} to fit, {} held out; {:.1} s",
        stats.files,
        stats.games,
        stats.games_used,
        stats.positions,
        args.seed,
        args.per_game,
        args.skip_plies,
        train.len(),
        valid.len(),
        started.elapsed().as_secs_f64()
    )?;
    let train_set = Dataset::from_samples(&train, &CLASSIC);
    let valid_set = Dataset::from_samples(&valid, &CLASSIC);
    let start = texel::params_of(&CLASSIC);
    let k = texel::fit_k(&train_set, &start);
    let report = |out: &mut dyn Write, label: &str, w: &Weights, p: &[[f64; 2]]| {
        writeln!(
            out,
            "{label}: error {:.6} (held out {:.6}); engine's integer evaluation {:.6} (held out {:.6})",
            texel::loss(&train_set, p, k),
            texel::loss(&valid_set, p, k),
            texel::engine_loss(&train, w, k),
            texel::engine_loss(&valid, w, k),
        )
    };
    writeln!(out, "K = {k:.4}")?;
    report(&mut out, "before (hand-set weights)", &CLASSIC, &start)?;
    let fit_opts = FitOptions {
        epochs: args.epochs,
        rate: args.rate,
        l2: args.l2,
    };
    let every = (args.epochs / 10).max(1);
    let fitted = texel::fit(&train_set, &start, k, &fit_opts, |epoch, l| {
        if epoch % every == 0 {
            eprintln!("epoch {epoch:>5}  error {l:.6}");
        }
    });
    let tuned = texel::round(&fitted);
    report(
        &mut out,
        "after (fitted, rounded)",
        &tuned,
        &texel::params_of(&tuned),
    )?;
    if let Some(path) = &args.out {
        let header = format!(
            "// Written by `arbiter tune fit --seed {} --per-game {} --skip-plies {} --epochs {} --rate {} --l2 {}`\n\
             // over the corpus games: {} quiet positions fitted ({} held out), K = {:.4}.\n\
             // Error before {:.6} (held out {:.6}), after {:.6} (held out {:.6}).\n",
            args.seed,
            args.per_game,
            args.skip_plies,
            args.epochs,
            args.rate,
            args.l2,
            train.len(),
            valid.len(),
            k,
            texel::engine_loss(&train, &CLASSIC, k),
            texel::engine_loss(&valid, &CLASSIC, k),
            texel::engine_loss(&train, &tuned, k),
            texel::engine_loss(&valid, &tuned, k),
        );
        write_file(path, &(header + &tuned.to_rust()))?;
        writeln!(out, "wrote {}", path.display())?;
    }
    writeln!(out, "time {:.1} s", started.elapsed().as_secs_f64())?;
    Ok(Outcome::Success)
}

fn write_file(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| AppError::io(path, e))
}

fn run_match(args: &MatchArgs) -> Result {
    if args.games < 2 || !args.games.is_multiple_of(2) {
        return Err(AppError::usage(format!(
            "--games must be even and at least 2 (each opening is played with both colours), not {}",
            args.games
        )));
    }
    if args.nodes == 0 || args.min_plies > args.max_plies {
        return Err(AppError::usage(
            "--nodes must be at least 1 and --min-plies at most --max-plies",
        ));
    }
    let dir = match &args.openings {
        Some(d) => d.clone(),
        None => corpus_dir(&None)
            .map_err(|_| AppError::usage("give --openings DIR or set ARBITER_CORPUS"))?
            .join("openings"),
    };
    let mut out = io::stdout().lock();
    let started = Instant::now();
    let lines = load_openings(&dir, args.min_plies, args.max_plies).map_err(tune_error)?;
    let pairs = args.games / 2;
    let openings = choose_openings(
        &lines,
        pairs,
        args.seed,
        &CLASSIC,
        BALANCE_NODES,
        BALANCE_CP,
    );
    if openings.len() < pairs {
        return Err(AppError::usage(format!(
            "only {} balanced openings of {} to {} plies in {}; ask for at most {} games",
            openings.len(),
            args.min_plies,
            args.max_plies,
            dir.display(),
            2 * openings.len()
        )));
    }
    writeln!(
        out,
        "{} {:?} against {:?}: {} games, {} nodes a move, {} openings of {}–{} plies (seed {}) from {} lines, each within ±{} cp at {} nodes",
        env!("CARGO_PKG_NAME"),
        args.first,
        args.second,
        args.games,
        args.nodes,
        pairs,
        args.min_plies,
        args.max_plies,
        args.seed,
        lines.len(),
        BALANCE_CP,
        BALANCE_NODES
    )?;
    let opts = MatchOptions {
        nodes: args.nodes,
        max_plies: args.ply_cap,
        ..MatchOptions::default()
    };
    let tty = io::stderr().is_terminal();
    let total = args.games;
    let progress = move |done: usize| {
        if tty || done.is_multiple_of(100) || done == total {
            eprint!(
                "\r{done}/{total} games  {:.0} s",
                started.elapsed().as_secs_f64()
            );
        }
    };
    let games = play_match(
        args.first.weights(),
        args.second.weights(),
        &openings,
        &opts,
        &progress,
    );
    eprintln!();
    print_summary(&mut out, &games, args, &opts)?;
    writeln!(out, "time {:.1} s", started.elapsed().as_secs_f64())?;
    Ok(Outcome::Success)
}

/// Openings are kept when the hand-set engine scores them within this many centipawns...
const BALANCE_CP: i32 = 80;
/// ...at this many nodes.
const BALANCE_NODES: u64 = 20_000;

fn print_summary(
    out: &mut dyn Write,
    games: &[selfplay::GameRecord],
    args: &MatchArgs,
    opts: &MatchOptions,
) -> io::Result<()> {
    let s = summarise(games);
    let plies: usize = games.iter().map(|g| g.moves.len()).sum();
    writeln!(
        out,
        "{:?}: {} wins, {} draws, {} losses (W/D/L), score {:.1} %",
        args.first,
        s.wins,
        s.draws,
        s.losses,
        100.0 * s.score
    )?;
    writeln!(
        out,
        "pairs scoring 0/0.5/1/1.5/2: {}/{}/{}/{}/{}",
        s.pairs[0], s.pairs[1], s.pairs[2], s.pairs[3], s.pairs[4]
    )?;
    writeln!(
        out,
        "Elo difference {:+.1}, 95 % interval [{:+.1}, {:+.1}] (±{:.1})",
        s.elo,
        s.elo_low,
        s.elo_high,
        (s.elo_high - s.elo_low) / 2.0
    )?;
    let mut ends = String::new();
    for t in Termination::ALL {
        let n = games.iter().filter(|g| g.termination == t).count();
        if n > 0 {
            ends.push_str(&format!("{} {n}, ", t.name()));
        }
    }
    writeln!(
        out,
        "endings: {}(adjudicated: both engines ≥ {} cp for {} plies; ply cap {}); mean length {:.0} plies",
        ends,
        opts.adjudicate_cp,
        opts.adjudicate_plies,
        opts.max_plies,
        plies as f64 / games.len().max(1) as f64
    )?;
    writeln!(out, "signature {:016x}", selfplay::signature(games))
}
