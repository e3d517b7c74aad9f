//! `arbiter uci`: arbiter's own engine over the Universal Chess Interface on stdin/stdout
//! (the server is `crate::uci`).

use clap::Args;
use std::io;
use std::sync::{Arc, Mutex};

#[derive(Args, Debug)]
#[command(after_help = "Examples:
  arbiter uci                      (then type: uci, isready, position startpos moves e2e4, go nodes 100000)
  arbiter uci < session.txt        (a file of commands: uci, position startpos, go depth 8, quit)
  cutechess-cli -engine cmd=arbiter arg=uci proto=uci -engine cmd=stockfish proto=uci ...")]
pub struct UciArgs {
    /// Transposition table size in MB at start (the `Hash` option changes it).
    #[arg(long, default_value_t = 16)]
    pub hash: usize,
}

pub fn run(args: &UciArgs) -> super::error::Result {
    let out: crate::uci::Out = Arc::new(Mutex::new(io::stdout()));
    crate::uci::serve(io::stdin().lock(), out, args.hash)?;
    Ok(super::Outcome::Success)
}
