//! The command line: clap parses flags into plain structs (no I/O), and each subcommand lives
//! in its own file. Each command returns `error::Result` (an `Outcome` or an `AppError`);
//! `run` turns that into the process exit status in one place; `main.rs` only calls it.

use clap::{Parser, Subcommand};

pub mod analyse;
pub mod bench;
pub mod bench_import;
pub mod bench_laws;
pub mod bench_positions;
pub mod bench_synth;
pub mod check;
pub mod choice;
pub mod dead;
pub mod duplicates;
pub mod epd;
pub mod error;
pub mod export;
pub mod filter;
pub mod import;
pub mod openings;
pub mod output;
pub mod perft;
pub mod players;
pub mod ratings;
pub mod search;
pub mod shards;
pub mod show;
pub mod stats;
pub mod tournament;
pub mod tune;
pub mod uci;

pub use error::{AppError, Outcome, PathContext};

#[derive(Parser, Debug)]
#[command(
    name = "arbiter",
    version,
    about = "Rules on chess games the way a tournament arbiter would"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Replay every game of PGN files, report findings and a summary.
    #[command(after_help = EXAMPLES_CHECK)]
    Check(check::CheckArgs),
    /// Import PGN files into a SQLite database (resumable, idempotent).
    #[command(after_help = EXAMPLES_IMPORT)]
    Import(import::ImportArgs),
    /// Export games or findings from the database as PGN, CSV or JSON lines.
    #[command(after_help = EXAMPLES_EXPORT)]
    Export(Box<export::ExportArgs>),
    /// Count leaf nodes of the legal move tree (move generator test).
    #[command(after_help = EXAMPLES_PERFT)]
    Perft(perft::PerftArgs),
    /// Benchmarks with fixed inputs.
    #[command(after_help = EXAMPLES_BENCH)]
    Bench(bench::BenchArgs),
    /// Fit the evaluation to game results or an engine's evaluations, and measure it by self-play.
    #[command(after_help = EXAMPLES_TUNE)]
    Tune(tune::TuneArgs),
    /// Can each side still checkmate? (dead positions, Art. 5.2.2 and 6.9)
    #[command(after_help = EXAMPLES_DEAD)]
    Dead(dead::DeadArgs),
    /// Search one position: best move, score, depth and principal variation.
    #[command(after_help = EXAMPLES_ANALYSE)]
    Analyse(analyse::AnalyseArgs),
    /// Run an EPD test suite (`bm`/`am`); prints failures and `N passed, M failed`.
    #[command(after_help = EXAMPLES_EPD)]
    Epd(epd::EpdArgs),
    /// Persons and their spellings; suggest and apply alias files.
    Players(players::PlayersArgs),
    /// Find, store and list duplicate games with the reason for each record.
    Duplicates(duplicates::DuplicatesArgs),
    /// The opening tree of a selection: games, White's score, draws, ratings per line.
    Openings(openings::OpeningsArgs),
    /// Player statistics: dossiers, leaderboard, head-to-head, openings, performance.
    Stats(Box<stats::StatsArgs>),
    /// Rate the database's persons: pool (as Ordo), FIDE elo, glicko2 or glicko.
    Ratings(Box<ratings::RatingsArgs>),
    /// A tournament's crosstable and standings with FIDE C.07 tie-breaks (TRF-16 or stored games).
    Tournament(Box<tournament::TournamentArgs>),
    /// Speak UCI on stdin/stdout: arbiter's engine for a GUI or a match runner.
    Uci(uci::UciArgs),
    /// Games that reached a position, material, pattern, pawn structure or move sequence.
    Search(Box<search::SearchArgs>),
    /// Build the position index for games stored without it (resumable, with progress).
    Index(search::IndexArgs),
}

/// Exit codes: 0 success, 1 a check failed, 2 usage or I/O error; a closed output pipe is 0.
pub fn run() -> std::process::ExitCode {
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // clap's `help` subcommand takes no flags: `arbiter help --help` is `arbiter help`.
    if args.get(1).is_some_and(|a| a == "help")
        && args[2..].iter().any(|a| a == "--help" || a == "-h")
    {
        args.truncate(2);
    }
    use clap::{CommandFactory, FromArgMatches};
    let cli = match Cli::command()
        .try_get_matches_from(args)
        .and_then(|m| Ok((Cli::from_arg_matches(&m)?, m)))
    {
        Ok((cli, matches)) => {
            // Checks across flags (a reversed date range, a `--where` SQLite refuses).
            if let Err(message) = filter::check_selection(&matches) {
                return error::exit_code(Err(error::AppError::Usage(message)));
            }
            cli
        }
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            // `--help | head` must not fail either.
            let _ = e.print();
            return std::process::ExitCode::from(code);
        }
    };
    crate::interrupt::install_default();
    error::exit_code(dispatch(cli.command))
}

/// Runs one command; every command returns `error::Result` (or a module's own error).
fn dispatch(command: Command) -> error::Result {
    use error::finish;
    match command {
        Command::Check(args) => finish(check::run_check(&args)),
        Command::Import(args) => {
            crate::interrupt::install();
            finish(import::run_import(&args))
        }
        Command::Export(args) => {
            crate::interrupt::install();
            finish(export::run_export(&args))
        }
        Command::Perft(args) => finish(perft::run(&args)),
        Command::Bench(args) => finish(bench::run(&args)),
        Command::Tune(args) => finish(tune::run(&args)),
        Command::Dead(args) => finish(dead::run(&args)),
        Command::Analyse(args) => finish(analyse::run(&args)),
        Command::Epd(args) => finish(epd::run(&args)),
        Command::Players(args) => finish(players::run(&args)),
        Command::Duplicates(args) => finish(duplicates::run(&args)),
        Command::Openings(args) => finish(openings::run(&args)),
        Command::Stats(args) => finish(stats::run(&args)),
        Command::Ratings(args) => finish(ratings::run(&args)),
        Command::Uci(args) => finish(uci::run(&args)),
        Command::Tournament(args) => finish(tournament::run(&args)),
        Command::Search(args) => finish(search::run(&args)),
        Command::Index(args) => finish(search::run_index(&args)),
    }
}

const EXAMPLES_CHECK: &str = "Examples:
  arbiter check games.pgn.zst
  arbiter check -q --findings findings.jsonl --quarantine rejected.pgn *.pgn
  arbiter check --strict --laws 2014 --summary-json summary.json games.pgn";

const EXAMPLES_IMPORT: &str = "Examples:
  arbiter import --db games.sqlite twic1500.pgn.gz
  arbiter import -q --db games.sqlite --jobs 2 *.pgn
  arbiter import --db games.sqlite --analyse=50000 club.pgn";

const EXAMPLES_EXPORT: &str = "Examples:
  arbiter export --db games.sqlite --player 'Carlsen,M' --format pgn -o carlsen.pgn
  arbiter export --db games.sqlite --format csv --date-from 1990 --date-to 1999
  arbiter export --db games.sqlite --findings --format jsonl --severity warning";

const EXAMPLES_PERFT: &str = "Examples:
  arbiter perft 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1' 5
  arbiter perft --divide 'r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1' 3
  arbiter perft --suite standard.epd --max-nodes 1000000";

const EXAMPLES_BENCH: &str = "Examples:
  arbiter bench laws --runs 7
  arbiter bench import --games 1000000 --import-check
  arbiter bench synth --games 1000000 --players 20000 --seed 1 -o synth.pgn.zst --truth truth.csv";

const EXAMPLES_TUNE: &str = "Examples:
  arbiter tune fit --corpus ../shared/corpus --seed 1 --out src/search/weights_tuned.rs
  arbiter tune fit --corpus ../shared/corpus --seed 1 --per-game 1 --engine /usr/games/stockfish --engine-nodes 20000 --engine-jobs 2
  arbiter tune match --games 1000 --nodes 5000 --seed 1 --first tuned --second classic";

const EXAMPLES_DEAD: &str = "Examples:
  arbiter dead '8/8/4k3/8/8/3K4/8/4B3 w - - 0 1'
  arbiter dead --suite labels.txt --budget 200000
  arbiter dead --positions finals.fen --list";

const EXAMPLES_ANALYSE: &str = "Examples:
  arbiter analyse 'r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3'
  arbiter analyse --depth 12 '8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1'
  arbiter analyse --movetime 2000 --hash 64 '6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1'";

const EXAMPLES_EPD: &str = "Examples:
  arbiter epd --suite wac.epd --nodes 100000
  arbiter epd --suite wac.epd --depth 8
  arbiter epd --suite tactics.epd --movetime 500";
