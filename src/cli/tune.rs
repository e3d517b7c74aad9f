//! `arbiter tune fit`: samples quiet positions from the corpus games (seeded), labels them by
//! the games' results or (`--engine`) by a UCI engine's evaluations (cached), fits K and then
//! the evaluation's weights to the labels, anchors the scale to the hand-set pawn, prints the
//! error before and after, and writes the weights as Rust source (`src/search/weights_tuned.rs`).
//! `arbiter tune match`: a self-play match between two sets of weights at fixed nodes, both
//! colours of each balanced opening, printing W/D/L and the Elo difference with its 95 % bar.

use super::error::{AppError, Outcome, Result};
use crate::search::engine::UciEngine;
use crate::search::weights::{CLASSIC, TUNED, Weights};
use crate::search::{EngineLimit, EngineSpec};
use crate::tune::data::{Sample, SampleOptions, corpus_files, sample_files};
use crate::tune::label;
use crate::tune::selfplay::{
    MatchOptions, Termination, choose_openings, load_openings, play_match, summarise,
};
use crate::tune::texel::{self, Dataset, FitOptions};
use crate::tune::{TuneError, selfplay};
use clap::{Args, Subcommand, ValueEnum};
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct TuneArgs {
    #[command(subcommand)]
    pub what: TuneCommand,
}

#[derive(Subcommand, Debug)]
pub enum TuneCommand {
    /// Fit the evaluation's weights to game results, or to a UCI engine's evaluations (Texel's method).
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
    /// Label the positions with this UCI engine's evaluations instead of the games' results
    /// (e.g. /usr/games/stockfish): each position alone, after `ucinewgame`, one thread.
    #[arg(long, value_name = "PATH")]
    pub engine: Option<PathBuf>,
    /// The engine's node limit per position.
    #[arg(long, value_name = "N", default_value_t = 20_000, requires = "engine")]
    pub engine_nodes: u64,
    /// The engine's depth limit per position, instead of nodes.
    #[arg(long, value_name = "D", requires = "engine")]
    pub engine_depth: Option<u32>,
    /// Engine processes run at once (one thread each).
    #[arg(long, value_name = "N", default_value_t = 1, requires = "engine")]
    pub engine_jobs: usize,
    /// Folder of the label cache (`labels-seed<S>-<budget>.tsv`): labels found there are not
    /// asked again.
    #[arg(
        long,
        value_name = "DIR",
        default_value = "target/tune",
        requires = "engine"
    )]
    pub label_cache: PathBuf,
    /// Share of the game's result in each target, the rest the engine's (0: the engine alone).
    #[arg(long, value_name = "W", default_value_t = 0.0, requires = "engine")]
    pub result_weight: f64,
    /// Rescale the fitted weights so the pawn is worth the hand-set pawn (the search's
    /// margins are in its units), or leave them as fitted.
    #[arg(long, value_enum, default_value_t = Anchor::Pawn)]
    pub anchor: Anchor,
}

/// What fixes the fitted evaluation's scale.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    /// Middlegame and endgame weights each scaled so the pawn (material plus its table's
    /// mean) is the hand-set one.
    Pawn,
    /// The weights as the fit leaves them.
    None,
}

/// A set of weights: one the engine knows, or a file written by `tune fit --out`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WeightsName {
    /// The hand-set evaluation.
    Classic,
    /// The weights fitted by `tune fit` (src/search/weights_tuned.rs).
    Tuned,
    /// Weights read from a file written by `tune fit --out`, to measure before building them in.
    File(PathBuf, &'static Weights),
}

impl WeightsName {
    pub fn weights(&self) -> &'static Weights {
        match self {
            WeightsName::Classic => &CLASSIC,
            WeightsName::Tuned => &TUNED,
            WeightsName::File(_, w) => w,
        }
    }

    pub fn name(&self) -> String {
        match self {
            WeightsName::Classic => "classic".into(),
            WeightsName::Tuned => "tuned".into(),
            WeightsName::File(p, _) => p.display().to_string(),
        }
    }
}

/// `classic`, `tuned`, or the path of a weights file.
pub fn parse_weights(text: &str) -> std::result::Result<WeightsName, String> {
    match text {
        "classic" => return Ok(WeightsName::Classic),
        "tuned" => return Ok(WeightsName::Tuned),
        _ => {}
    }
    let path = PathBuf::from(text);
    let source = std::fs::read_to_string(&path).map_err(|e| {
        format!("not classic, tuned or a readable weights file (written by `tune fit --out`): {e}")
    })?;
    let w = Weights::parse_rust(&source).ok_or_else(|| {
        format!(
            "{text}: not a weights file (written by `tune fit --out`); the names are classic and tuned"
        )
    })?;
    Ok(WeightsName::File(path, Box::leak(Box::new(w))))
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
    /// The engine measured: classic, tuned, or a weights file written by `tune fit --out`.
    #[arg(long, value_parser = parse_weights, default_value = "tuned")]
    pub first: WeightsName,
    /// Its opponent: classic, tuned, or a weights file.
    #[arg(long, value_parser = parse_weights, default_value = "classic")]
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
        e @ (TuneError::Engine(_) | TuneError::Cache { .. }) => AppError::Other(e.to_string()),
    }
}

fn check_fit_args(args: &FitArgs) -> Result<()> {
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
    if !(0.0..=1.0).contains(&args.result_weight) {
        return Err(AppError::usage(format!(
            "--result-weight must be from 0 to 1, not {}",
            args.result_weight
        )));
    }
    if args.engine.is_some()
        && (args.engine_jobs == 0 || args.engine_nodes == 0 || args.engine_depth == Some(0))
    {
        return Err(AppError::usage(
            "--engine-jobs, --engine-nodes and --engine-depth must be at least 1",
        ));
    }
    Ok(())
}

/// The engine that labels the positions, started once first: one that cannot start is a
/// usage error before any work.
fn label_engine(args: &FitArgs, path: &Path) -> Result<EngineSpec> {
    let spec = EngineSpec {
        path: path.to_path_buf(),
        limit: match args.engine_depth {
            Some(d) => EngineLimit::Depth(d),
            None => EngineLimit::Nodes(args.engine_nodes),
        },
        threads: 1,
        options: vec![("Hash".into(), "16".into())],
        search_timeout: Duration::from_secs(60),
        sweep_nodes: 0,
        refine_nodes: 0,
    };
    UciEngine::start(&spec).map_err(|e| AppError::Usage(format!("--engine: {e}")))?;
    Ok(spec)
}

/// What the targets are: the games' results, or the engine's labels (with K_engine, the scale
/// that best predicts the results from them on the fitted games).
struct Labels {
    targets: Vec<Sample>,
    describe: String,
}

fn engine_labels(
    out: &mut dyn Write,
    args: &FitArgs,
    spec: &EngineSpec,
    samples: &[Sample],
) -> Result<Labels> {
    let path = &spec.path;
    let cache = label::cache_file(&args.label_cache, args.seed, spec.limit);
    let started = Instant::now();
    let tty = io::stderr().is_terminal();
    let (scores, stats) = label::label_samples(samples, spec, &cache, args.engine_jobs, |d, t| {
        if tty || d.is_multiple_of(1024) || d == t {
            eprint!(
                "\rlabelled {d}/{t}  {:.0} s",
                started.elapsed().as_secs_f64()
            );
        }
    })
    .map_err(tune_error)?;
    if stats.asked > 0 {
        eprintln!();
    }
    let pairs: Vec<(f64, f64)> = samples
        .iter()
        .zip(&scores)
        .filter(|(s, _)| !held_out(s))
        .map(|(s, &sc)| (label::white_cp(sc, s.pos.turn()), s.result as f64))
        .collect();
    let k_engine = texel::fit_k_pairs(&pairs);
    writeln!(
        out,
        "labels: {} at {:?}; {} distinct positions, {} from {}, {} asked ({} nodes, {:.1} s); K_engine = {k_engine:.4} (engine's centipawns to the fitted games' results)",
        path.display(),
        spec.limit,
        stats.distinct,
        stats.cached,
        cache.display(),
        stats.asked,
        stats.nodes,
        started.elapsed().as_secs_f64()
    )?;
    let targets = label::relabel(samples, &scores, k_engine, args.result_weight);
    let engine_alone = label::relabel(samples, &scores, k_engine, 0.0);
    let misses: Vec<f64> = engine_alone
        .iter()
        .zip(samples)
        .filter(|(_, s)| held_out(s))
        .map(|(t, s)| (t.result - s.result) as f64)
        .collect();
    writeln!(
        out,
        "the engine's labels against the held-out results: error {:.6}",
        misses.iter().map(|d| d * d).sum::<f64>() / misses.len().max(1) as f64
    )?;
    Ok(Labels {
        targets,
        describe: format!(
            "{} at {:?} (cp clamped to ±{}, target (1 − {w})·sigmoid({k_engine:.4}·cp) + {w}·result)",
            path.display(),
            spec.limit,
            label::CLAMP_CP,
            w = args.result_weight
        ),
    })
}

/// One game in ten, by its number, is held out to check the fit on games it never saw.
fn held_out(s: &Sample) -> bool {
    s.game % 10 == 9
}

/// The error against the games' results of the engine's integer evaluation with `w`, K fitted
/// for `w` on the fitted games: (K, fitted, held out).
fn result_error(samples: &[Sample], w: &Weights) -> (f64, f64, f64) {
    let (valid, train): (Vec<Sample>, Vec<Sample>) = samples.iter().cloned().partition(held_out);
    let k = texel::fit_k_pairs(&texel::engine_evals(&train, w));
    (
        k,
        texel::engine_loss(&train, w, k),
        texel::engine_loss(&valid, w, k),
    )
}

fn run_fit(args: &FitArgs) -> Result {
    check_fit_args(args)?;
    let corpus = corpus_dir(&args.corpus)?;
    let engine = match &args.engine {
        Some(path) => Some(label_engine(args, path)?),
        None => None,
    };
    let mut out = io::stdout().lock();
    let started = Instant::now();
    let files = corpus_files(&corpus).map_err(tune_error)?;
    let opts = SampleOptions {
        seed: args.seed,
        per_game: args.per_game,
        skip_plies: args.skip_plies,
    };
    let (samples, stats) = sample_files(&files, &opts).map_err(tune_error)?;
    let held = samples.iter().filter(|s| held_out(s)).count();
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
        samples.len() - held,
        held,
        started.elapsed().as_secs_f64()
    )?;
    let labels = match &engine {
        Some(spec) => engine_labels(&mut out, args, spec, &samples)?,
        None => Labels {
            targets: samples.clone(),
            describe: "the games' results".into(),
        },
    };
    let (valid, train): (Vec<Sample>, Vec<Sample>) =
        labels.targets.iter().cloned().partition(held_out);
    let train_set = Dataset::from_samples(&train, &CLASSIC);
    let valid_set = Dataset::from_samples(&valid, &CLASSIC);
    let start = texel::params_of(&CLASSIC);
    let k = texel::fit_k(&train_set, &start);
    writeln!(out, "targets: {}; K = {k:.4}", labels.describe)?;
    let report = |out: &mut dyn Write, label: &str, w: &Weights, p: &[[f64; 2]]| {
        let (kr, rt, rv) = result_error(&samples, w);
        writeln!(
            out,
            "{label}: error {:.6} (held out {:.6}); engine's integer evaluation {:.6} (held out {:.6}); against the results (K {kr:.4}) {rt:.6} (held out {rv:.6})",
            texel::loss(&train_set, p, k),
            texel::loss(&valid_set, p, k),
            texel::engine_loss(&train, w, k),
            texel::engine_loss(&valid, w, k),
        )
    };
    report(&mut out, "before (hand-set weights)", &CLASSIC, &start)?;
    let fit_opts = FitOptions {
        epochs: args.epochs,
        rate: args.rate,
        l2: args.l2,
    };
    let every = (args.epochs / 10).max(1);
    let mut fitted = texel::fit(&train_set, &start, k, &fit_opts, |epoch, l| {
        if epoch % every == 0 {
            eprintln!("epoch {epoch:>5}  error {l:.6}");
        }
    });
    writeln!(
        out,
        "fitted pawn (material + mean table): middlegame {:.1}, endgame {:.1} (hand-set {:.1}, {:.1})",
        texel::pawn_value(&fitted, 0),
        texel::pawn_value(&fitted, 1),
        texel::pawn_value(&start, 0),
        texel::pawn_value(&start, 1)
    )?;
    if args.anchor == Anchor::Pawn {
        let f = texel::anchor_pawn(&mut fitted, &start);
        writeln!(
            out,
            "anchored to the hand-set pawn: middlegame weights ×{:.4}, endgame ×{:.4}",
            f[0], f[1]
        )?;
    }
    let tuned = texel::round(&fitted);
    report(
        &mut out,
        "after (fitted, rounded)",
        &tuned,
        &texel::params_of(&tuned),
    )?;
    if let Some(path) = &args.out {
        write_weights(path, args, &labels, &train, &valid, k, &tuned)?;
        writeln!(out, "wrote {}", path.display())?;
    }
    writeln!(out, "time {:.1} s", started.elapsed().as_secs_f64())?;
    Ok(Outcome::Success)
}

/// The fitted weights as Rust source, with the command and the errors in its header.
fn write_weights(
    path: &Path,
    args: &FitArgs,
    labels: &Labels,
    train: &[Sample],
    valid: &[Sample],
    k: f64,
    tuned: &Weights,
) -> Result<()> {
    let engine = match &args.engine {
        Some(p) => match args.engine_depth {
            Some(d) => format!(" --engine {} --engine-depth {d}", p.display()),
            None => format!(
                " --engine {} --engine-nodes {} --result-weight {}",
                p.display(),
                args.engine_nodes,
                args.result_weight
            ),
        },
        None => String::new(),
    };
    let header = format!(
        "// Written by `arbiter tune fit --seed {} --per-game {} --skip-plies {} --epochs {} --rate {} --l2 {}{engine} --anchor {}`\n\
         // over the corpus games: {} quiet positions fitted ({} held out), labelled by {}, K = {:.4}.\n\
         // Error before {:.6} (held out {:.6}), after {:.6} (held out {:.6}).\n",
        args.seed,
        args.per_game,
        args.skip_plies,
        args.epochs,
        args.rate,
        args.l2,
        match args.anchor {
            Anchor::Pawn => "pawn",
            Anchor::None => "none",
        },
        train.len(),
        valid.len(),
        labels.describe,
        k,
        texel::engine_loss(train, &CLASSIC, k),
        texel::engine_loss(valid, &CLASSIC, k),
        texel::engine_loss(train, tuned, k),
        texel::engine_loss(valid, tuned, k),
    );
    write_file(path, &(header + &tuned.to_rust()))
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
        "{} {} against {}: {} games, {} nodes a move, {} openings of {}–{} plies (seed {}) from {} lines, each within ±{} cp at {} nodes",
        env!("CARGO_PKG_NAME"),
        args.first.name(),
        args.second.name(),
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
        "{}: {} wins, {} draws, {} losses (W/D/L), score {:.1} %",
        args.first.name(),
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
