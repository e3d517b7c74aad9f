//! The command line: clap parses flags into plain structs (no I/O), and each subcommand lives
//! in its own file. `run` returns the process exit code; `main.rs` only calls it.

use clap::{Parser, Subcommand};

pub mod analyse;
pub mod bench;
pub mod check;
pub mod dead;
pub mod epd;
pub mod export;
pub mod import;
pub mod perft;
pub mod shards;

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
    Check(check::CheckArgs),
    /// Import PGN files into a SQLite database (resumable, idempotent).
    Import(import::ImportArgs),
    /// Export games or findings from the database as PGN, CSV or JSON lines.
    Export(Box<export::ExportArgs>),
    /// Count leaf nodes of the legal move tree (move generator test).
    Perft(perft::PerftArgs),
    /// Benchmarks with fixed inputs.
    Bench(bench::BenchArgs),
    /// Can each side still checkmate? (dead positions, Art. 5.2.2 and 6.9)
    Dead(dead::DeadArgs),
    /// Search one position: best move, score, depth and principal variation.
    Analyse(analyse::AnalyseArgs),
    /// Run an EPD test suite (`bm`/`am`); prints failures and `N passed, M failed`.
    Epd(epd::EpdArgs),
}

/// Exit codes: 0 success, 1 a check failed, 2 usage or I/O error.
pub fn run() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    let result = match cli.command {
        Command::Check(args) => check::run_check(&args),
        Command::Import(args) => import::run_import(&args),
        Command::Export(args) => export::run_export(&args),
        Command::Perft(args) => perft::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Dead(args) => dead::run(&args),
        Command::Analyse(args) => analyse::run(&args),
        Command::Epd(args) => epd::run(&args),
    };
    match result {
        Ok(code) => code,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            eprintln!("arbiter: {e}");
            2
        }
    }
}
