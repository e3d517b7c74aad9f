//! `arbiter bench synth`: writes the synthetic collection of `crate::bench::synth` (its
//! flags, the output files, the summary line).

use super::error::{AppError, Outcome, Result};
use crate::bench::synth::{Sources, Spec, generate};
use crate::export::output::Output;
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The flags of `bench synth` (the other benchmarks ignore them).
#[derive(Args, Debug, Default)]
pub struct SynthArgs {
    /// synth: number of games to write; import: games to import in all (default 1000000).
    #[arg(long, value_name = "N", alias = "import-games")]
    pub games: Option<u64>,
    /// synth: number of persons (at most N + 1, so that they can form one pool).
    #[arg(long, value_name = "P")]
    pub players: Option<u32>,
    /// synth: seed of the generator; the same seed and flags write the same file.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// synth: PGN files whose decided games lend their moves (default: a small built-in set).
    #[arg(long = "source", value_name = "PGN")]
    pub sources: Vec<PathBuf>,
    /// synth: the PGN to write (`.gz`, `.zst`, `.bz2`, `.xz` compress).
    #[arg(short = 'o', long = "output", value_name = "FILE.pgn")]
    pub output: Option<PathBuf>,
    /// synth: CSV of every person's true rating, games and score.
    #[arg(long, value_name = "FILE.csv")]
    pub truth: Option<PathBuf>,
    /// synth: share of draws between players of equal strength (fewer as the gap grows).
    #[arg(long, default_value_t = 0.3)]
    pub draw_rate: f64,
}

/// Checks the flags into a [`Spec`]: a bad value is a usage error.
pub fn spec(args: &SynthArgs) -> Result<(Spec, &Path)> {
    let (Some(games), Some(players), Some(output)) = (args.games, args.players, &args.output)
    else {
        return Err(AppError::usage(
            "bench synth needs --games N, --players P and -o FILE.pgn",
        ));
    };
    let spec = Spec::new(games, players, args.seed, args.draw_rate)
        .map_err(|e| AppError::usage(e.to_string()))?;
    Ok((spec, output))
}

pub fn run(args: &SynthArgs) -> Result {
    let (spec, path) = spec(args)?;
    let sources = if args.sources.is_empty() {
        Sources::builtin()
    } else {
        Sources::read(&args.sources)?
    };
    let counts = sources.counts();
    if let Some(missing) = sources.missing_result() {
        return Err(AppError::Failed(format!(
            "the source games hold no lawful game ending {missing}: give files with decided games of every result"
        )));
    }
    let mut out = Output::open(Some(path)).map_err(|e| AppError::io(path, e))?;
    let mut truth_file = match &args.truth {
        Some(t) => Some(std::io::BufWriter::new(
            std::fs::File::create(t).map_err(|e| AppError::io(t, e))?,
        )),
        None => None,
    };
    let written = generate(
        &spec,
        &sources,
        &mut out,
        truth_file.as_mut().map(|w| w as &mut dyn Write),
    )
    .map_err(|e| AppError::io(path, e))?;
    out.finish().map_err(|e| AppError::io(path, e))?;
    eprintln!(
        "wrote {} games between {} persons ({} active) to {}: {} white wins, {} draws, {} black wins; moves from {} source games ({} skipped)",
        written.games,
        spec.players,
        written.active,
        path.display(),
        written.results[0],
        written.results[1],
        written.results[2],
        counts.iter().sum::<usize>(),
        sources.skipped,
    );
    Ok(Outcome::Success)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_flags_are_usage_errors() {
        let args = SynthArgs {
            games: Some(10),
            players: Some(12),
            output: Some("x.pgn".into()),
            ..SynthArgs::default()
        };
        assert!(matches!(super::spec(&args), Err(AppError::Usage(_))));
        let args = SynthArgs {
            games: Some(10),
            ..SynthArgs::default()
        };
        assert!(matches!(super::spec(&args), Err(AppError::Usage(_))));
    }
}
