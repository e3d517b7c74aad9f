//! `arbiter search --db DB [FEN] [--material …] [--pattern …] [--pawns …] [--sequence …]
//! [selection]`: the games that reached a position (docs/POSITIONS.md), with the first
//! matching ply; `--tree` the moves played next, `--reverse-tree` the move orders that led
//! there. `arbiter index --db DB` builds the position index for games stored without it.
//! Flags are read here; the work is in `positions` and `export::positions`.

use super::error::{AppError, Result};
use super::filter::FilterArgs;
use crate::db::{open_existing, open_read_only};
use crate::export::positions::{explore, hit_rows, search, trees};
use crate::positions::laws::{AutomaticKind, ClaimKind, LawsQuery, parse_repetition};
use crate::positions::query::{
    parse_fen_query, parse_material, parse_pattern, parse_pawns, parse_sequence,
};
use crate::positions::{Identity, Query};
use clap::{Args, ValueEnum};
use std::io::{self, Write};
use std::path::PathBuf;

/// The query flags `search` and `export` share.
#[derive(Args, Debug, Clone, Default)]
#[command(next_help_heading = "Position query (docs/POSITIONS.md)")]
pub struct QueryArgs {
    /// Material: a signature, White first (KRPKR, KQR2B2N2P8KQR2B2N2P8), one side of either
    /// colour (QR2B2N2P8), an imbalance of either colour ('R vs mPP', m: a minor piece) or a
    /// side behind by points ('down>=3', 'white-down>=3').
    #[arg(long)]
    pub material: Option<String>,
    /// The material must hold for at least this many plies from the matching one.
    #[arg(long, default_value_t = 1, value_name = "PLIES")]
    pub held: u32,
    /// Pieces on squares, FEN-like with wildcards: ? any, ! occupied, A/a any white/black
    /// piece, [..] a set ('.' empty), * any run of squares; an optional w or b after it.
    /// Repeat: all must hold.
    #[arg(long)]
    pub pattern: Vec<String>,
    /// Pawn structure, White's/Black's: squares ('a2 b2 d4/a7 b7 e6'), files ('abdfgh/abefgh')
    /// or '*' for a side left free.
    #[arg(long)]
    pub pawns: Option<String>,
    /// Moves played one after the other from the matching position ('Bxh7+ Kxh7 Ng5+').
    #[arg(long)]
    pub sequence: Option<String>,
    /// The side to move may differ.
    #[arg(long)]
    pub ignore_side: bool,
    /// Castling rights may differ.
    #[arg(long)]
    pub ignore_castling: bool,
    /// A legal en passant capture may differ.
    #[arg(long)]
    pub ignore_ep: bool,
    /// Also the colour-flipped position (and material, patterns, pawns).
    #[arg(long)]
    pub mirror: bool,
    /// The Laws: the position occurs for at least the N-th time in the game (Art. 9.2.2's
    /// sameness); its first match is the N-th occurrence. With a FEN: that position's N-th
    /// occurrence ('FEN --repetition 3': the third time it stands on the board).
    #[arg(long, value_name = "N", value_parser = repetition_count, allow_negative_numbers = true, help_heading = LAWS_HEADING)]
    pub repetition: Option<u32>,
    /// The Laws: the player to move could claim this draw here, on the board or by writing
    /// down the move that completes it (Art. 9.2 / 9.3 of the edition in force), and play
    /// went on; the first such ply.
    #[arg(long, value_enum, value_name = "KIND", help_heading = LAWS_HEADING)]
    pub claimable: Option<ClaimKind>,
    /// The Laws: the game ended here by itself under the 2014 Laws (fivefold repetition,
    /// Art. 9.6.1; 75 moves, 9.6.2) and the record goes on.
    #[arg(long, value_enum, value_name = "KIND", help_heading = LAWS_HEADING)]
    pub automatic: Option<AutomaticKind>,
}

const LAWS_HEADING: &str = "The Laws joined to positions (docs/POSITIONS.md)";

/// `--repetition N`: a whole number from 1 up.
fn repetition_count(text: &str) -> std::result::Result<u32, String> {
    parse_repetition(text).map_err(|e| e.to_string())
}

impl QueryArgs {
    /// The query these flags and an optional FEN mean; a bad value is a usage error.
    pub fn query(&self, fen: Option<&str>) -> Result<Query> {
        let usage = |e: crate::positions::QueryError| AppError::usage(e.to_string());
        if self.held == 0 {
            return Err(AppError::usage(
                "--held: at least 1 ply (1: the matching ply alone)",
            ));
        }
        Ok(Query {
            position: fen.map(parse_fen_query).transpose().map_err(usage)?,
            material: self
                .material
                .as_deref()
                .map(parse_material)
                .transpose()
                .map_err(usage)?,
            held: self.held,
            patterns: self
                .pattern
                .iter()
                .map(|p| parse_pattern(p))
                .collect::<std::result::Result<_, _>>()
                .map_err(usage)?,
            pawns: self
                .pawns
                .as_deref()
                .map(parse_pawns)
                .transpose()
                .map_err(usage)?,
            sequence: self
                .sequence
                .as_deref()
                .map(parse_sequence)
                .transpose()
                .map_err(usage)?,
            identity: Identity {
                ignore_side: self.ignore_side,
                ignore_castling: self.ignore_castling,
                ignore_ep: self.ignore_ep,
                mirror: self.mirror,
            },
            laws: LawsQuery {
                repetition: self.repetition,
                claimable: self.claimable,
                automatic: self.automatic,
            },
        })
    }
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchFormat {
    Text,
    Csv,
    Jsonl,
}

const EXAMPLES: &str = "Examples:
  arbiter search --db games.sqlite 'rnbqkb1r/1p2pppp/p2p1n2/8/3NP3/2N5/PPP2PPP/R1BQKB1R w KQkq - 0 6' --min-elo 2400 --from 2015
  arbiter search --db games.sqlite --material KRPKR --mirror --held 10 --format csv -o rook-endings.csv
  arbiter search --db games.sqlite --claimable threefold --min-elo 2600
(--tree FEN, --pawns 'abdfgh/abefgh', --sequence 'Bxh7+ Kxh7 Ng5+', --pattern …, --repetition 3,
 --claimable fifty, --automatic seventy-five; every query form also filters export:
 docs/POSITIONS.md)";

#[derive(Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct SearchArgs {
    #[arg(long, default_value = "arbiter.sqlite")]
    pub db: PathBuf,
    /// An exact position: FEN, or EPD's first four fields.
    pub fen: Option<String>,
    #[command(flatten)]
    pub query: QueryArgs,
    /// The moves played next, with games, White's score, draws, average ratings and the
    /// mover's performance (needs a FEN).
    #[arg(long)]
    pub tree: bool,
    /// The move orders that reached the position, with counts (needs a FEN).
    #[arg(long)]
    pub reverse_tree: bool,
    /// At most this many rows (the count is of every match).
    #[arg(long)]
    pub limit: Option<usize>,
    #[arg(long, value_enum, default_value = "text")]
    pub format: SearchFormat,
    /// Write the rows here instead of standard output.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// No notes on standard error.
    #[arg(short, long)]
    pub quiet: bool,
    #[command(flatten)]
    pub select: FilterArgs,
}

#[derive(Args, Debug)]
#[command(after_help = "Examples:
  arbiter index --db games.sqlite
  arbiter index -q --db old.sqlite && arbiter search --db old.sqlite --material KRPKR")]
pub struct IndexArgs {
    #[arg(long, default_value = "arbiter.sqlite")]
    pub db: PathBuf,
    /// No progress on standard error.
    #[arg(short, long)]
    pub quiet: bool,
}

/// `arbiter index`: indexes the games the position index does not cover, resumably.
pub fn run_index(args: &IndexArgs) -> Result {
    let conn = open_existing(&args.db)?;
    let start = std::time::Instant::now();
    let quiet = args.quiet;
    let step = crate::db::positions::BUILD_STEP;
    let n = crate::db::positions::build(&conn, step, |done, total| {
        if !quiet {
            eprint!("\rindexed {done} of {total} games");
        }
    })?;
    crate::db::positions::compact(&conn, 1)?;
    if !quiet {
        eprintln!(
            "\rindexed {n} games in {:.1} s",
            start.elapsed().as_secs_f64()
        );
    }
    // Games indexed before schema version 7 get their trees' facts and material spans.
    let f = crate::db::positions::build_games(&conn, step, |done, total| {
        if !quiet {
            eprint!("\rtree facts and material spans: {done} of {total} games");
        }
    })?;
    if f > 0 && !quiet {
        eprintln!();
    }
    // Ranges indexed before schema version 8 get the home-pawn index.
    let p = crate::db::positions::build_pawns(&conn, |done, total| {
        if !quiet {
            eprint!("\rhome-pawn index: {done} of {total} games");
        }
    })?;
    if p > 0 && !quiet {
        eprintln!();
    }
    Ok(super::Outcome::Success)
}

pub fn run(args: &SearchArgs) -> Result {
    let conn = open_read_only(&args.db)?;
    crate::db::map_pages(&conn);
    let mut out: Box<dyn Write> = match &args.output {
        Some(p) => Box::new(io::BufWriter::new(
            std::fs::File::create(p).map_err(|e| AppError::io(p, e))?,
        )),
        None => Box::new(io::BufWriter::new(io::stdout().lock())),
    };
    run_on(&conn, args, &mut out)?;
    out.flush()?;
    Ok(super::Outcome::Success)
}

/// The search of `args` on an open database, written to `out` (`bench positions` runs
/// it on one connection, many times).
pub fn run_on(conn: &rusqlite::Connection, args: &SearchArgs, out: &mut dyn Write) -> Result {
    let query = args.query.query(args.fen.as_deref())?;
    if query.is_empty() {
        return Err(AppError::usage(format!(
            "search: give a FEN or one of --material, --pattern, --pawns, --sequence, --repetition, --claimable, --automatic\n{EXAMPLES}"
        )));
    }
    if (args.tree || args.reverse_tree) && query.position.is_none() {
        return Err(AppError::usage("--tree and --reverse-tree need a FEN"));
    }
    let filter = args.select.select(conn, false)?;
    let other = |e: crate::export::ExportError| AppError::Other(e.to_string());
    let unindexed_note = |n: u64| {
        if n > 0 && !args.quiet {
            eprintln!(
                "arbiter: {n} games are not in the position index and were replayed; `arbiter index --db {}` indexes them",
                args.db.display()
            );
        }
    };
    // An exact position from the key index (count, first rows, tree); the move orders of
    // `--reverse-tree` and the other forms replay the games.
    let limit = if args.tree {
        0
    } else {
        args.limit.unwrap_or(usize::MAX)
    };
    if !args.reverse_tree
        && let Some(e) = explore(conn, &query, &filter, limit, args.tree).map_err(other)?
    {
        unindexed_note(e.unindexed);
        if let Some(t) = &e.trees {
            write_trees(out, args, e.total, t)?;
            out.flush()?;
            return Ok(super::Outcome::Success);
        }
        let rows = hit_rows(conn, &e.hits).map_err(other)?;
        return write_rows(out, args, e.total, &rows);
    }
    let found = search(conn, &query, &filter).map_err(other)?;
    unindexed_note(found.unindexed);
    let total = found.hits.len();
    let shown = &found.hits[..args.limit.unwrap_or(total).min(total)];
    if args.tree || args.reverse_tree {
        let t = trees(conn, &found.hits, args.reverse_tree).map_err(other)?;
        write_trees(out, args, total, &t)?;
        out.flush()?;
        return Ok(super::Outcome::Success);
    }
    let rows = hit_rows(conn, shown).map_err(other)?;
    write_rows(out, args, total, &rows)
}

/// The rows of matching games in the chosen format, after the count (text).
fn write_rows(
    out: &mut dyn Write,
    args: &SearchArgs,
    total: usize,
    rows: &[crate::export::positions::HitRow],
) -> Result {
    let s = |v: &Option<String>| v.clone().unwrap_or_default();
    match args.format {
        SearchFormat::Text => {
            writeln!(out, "{total} games")?;
            for r in rows {
                writeln!(
                    out,
                    "{:>8}  ply {:>3}  {}  {} - {}  {}",
                    r.id,
                    r.ply,
                    s(&r.date),
                    s(&r.white),
                    s(&r.black),
                    s(&r.result)
                )?;
            }
        }
        SearchFormat::Csv => {
            let mut w = csv::Writer::from_writer(&mut *out);
            w.write_record(["id", "white", "black", "date", "result", "ply"])?;
            for r in rows {
                w.write_record([
                    r.id.to_string(),
                    s(&r.white),
                    s(&r.black),
                    s(&r.date),
                    s(&r.result),
                    r.ply.to_string(),
                ])?;
            }
            w.flush()?;
        }
        SearchFormat::Jsonl => {
            for r in rows {
                serde_json::to_writer(&mut *out, r)?;
                writeln!(out)?;
            }
        }
    }
    out.flush()?;
    Ok(super::Outcome::Success)
}

fn write_trees(
    out: &mut dyn Write,
    args: &SearchArgs,
    total: usize,
    t: &crate::positions::tree::Trees,
) -> Result<()> {
    let opt = |v: Option<f64>, d: usize| v.map_or(String::new(), |v| format!("{v:.d$}"));
    if args.tree {
        match args.format {
            SearchFormat::Text => {
                writeln!(out, "{total} games")?;
                writeln!(
                    out,
                    "{:<10} {:>7} {:>7} {:>6} {:>6} {:>6} {:>6}",
                    "move", "games", "White%", "draw%", "w-elo", "b-elo", "perf"
                )?;
                for b in t.branches() {
                    writeln!(
                        out,
                        "{:<10} {:>7} {:>7} {:>6} {:>6} {:>6} {:>6}",
                        b.san,
                        b.games,
                        opt(b.white_score(), 1),
                        opt(b.draw_rate(), 1),
                        opt(b.avg_elo(0), 0),
                        opt(b.avg_elo(1), 0),
                        opt(b.performance(), 0)
                    )?;
                }
            }
            SearchFormat::Csv => {
                let mut w = csv::Writer::from_writer(&mut *out);
                w.write_record([
                    "move",
                    "games",
                    "white_score",
                    "draw_rate",
                    "white_elo",
                    "black_elo",
                    "performance",
                ])?;
                for b in t.branches() {
                    w.write_record([
                        b.san.clone(),
                        b.games.to_string(),
                        opt(b.white_score(), 2),
                        opt(b.draw_rate(), 2),
                        opt(b.avg_elo(0), 1),
                        opt(b.avg_elo(1), 1),
                        opt(b.performance(), 1),
                    ])?;
                }
                w.flush()?;
            }
            SearchFormat::Jsonl => {
                for b in t.branches() {
                    let v = serde_json::json!({"move": b.san, "games": b.games, "white_score": b.white_score(), "draw_rate": b.draw_rate(), "white_elo": b.avg_elo(0), "black_elo": b.avg_elo(1), "performance": b.performance()});
                    writeln!(out, "{v}")?;
                }
            }
        }
    }
    if args.reverse_tree {
        for (order, n) in t.move_orders() {
            let order = if order.is_empty() { "(start)" } else { order };
            match args.format {
                SearchFormat::Text => writeln!(out, "{n:>7}  {order}")?,
                SearchFormat::Csv => writeln!(out, "{n},\"{order}\"")?,
                SearchFormat::Jsonl => {
                    writeln!(out, "{}", serde_json::json!({"games": n, "moves": order}))?
                }
            }
        }
    }
    Ok(())
}
