//! `arbiter search --db DB [FEN] [--material …] [--pattern …] [--pawns …] [--sequence …]
//! [selection]`: the games that reached a position (docs/POSITIONS.md), with the first
//! matching ply; `--tree` the moves played next, `--reverse-tree` the move orders that led
//! there. `arbiter index --db DB` builds the position index for games stored without it.
//! Flags are read here; the work is in `positions` and `db::query::positions`.

use super::error::{AppError, Outcome, Result};
use super::filter::FilterArgs;
use super::output::{Offers, TableOutput};
use crate::db::hits::{HitOrder, hit_rows, order_hits};
use crate::db::query::positions::{explore_ordered, search, trees};
use crate::db::query::{QueryError, Selection};
use crate::db::{open_existing, open_read_only};
use crate::export::format::Format;
use crate::export::search_tables::{self, HIT_COLUMNS, SearchAnswer, View, pick_hit_columns};
use crate::positions::laws::{AutomaticKind, ClaimKind, LawsQuery, parse_repetition};
use crate::positions::query::QueryText;
use crate::positions::{Identity, Query};
use clap::Args;
use std::io;
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
    /// The material must hold for at least this many plies from the matching one; by
    /// default 4 for an imbalance or a points deficit (so that an exchange in progress does
    /// not count), 1 for a signature.
    #[arg(long, value_name = "PLIES")]
    pub held: Option<u32>,
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
    #[arg(long, value_parser = super::choice::every::<ClaimKind>(), value_name = "KIND", help_heading = LAWS_HEADING)]
    pub claimable: Option<ClaimKind>,
    /// The Laws: the game ended here by itself under the 2014 Laws (fivefold repetition,
    /// Art. 9.6.1; 75 moves, 9.6.2) and the record goes on.
    #[arg(long, value_parser = super::choice::every::<AutomaticKind>(), value_name = "KIND", help_heading = LAWS_HEADING)]
    pub automatic: Option<AutomaticKind>,
}

const LAWS_HEADING: &str = "The Laws joined to positions (docs/POSITIONS.md)";

/// `--sort`: one of `HitOrder::NAMES`.
fn sort_order(text: &str) -> std::result::Result<HitOrder, String> {
    HitOrder::parse(text).ok_or_else(|| format!("one of {}", HitOrder::NAMES.join(", ")))
}

/// Rows text shows on a terminal when `--limit` is not given.
const SCREEN_ROWS: usize = 20;

/// `--repetition N`: a whole number from 1 up.
fn repetition_count(text: &str) -> std::result::Result<u32, String> {
    parse_repetition(text).map_err(|e| e.to_string())
}

impl QueryArgs {
    /// The query these flags and an optional FEN mean; a bad value is a usage error. What
    /// the text left to be assumed is said on standard error unless `quiet`.
    pub fn query(&self, fen: Option<&str>, quiet: bool) -> Result<Query> {
        let text = QueryText {
            fen,
            material: self.material.as_deref(),
            held: self.held,
            patterns: &self.pattern,
            pawns: self.pawns.as_deref(),
            sequence: self.sequence.as_deref(),
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
        };
        let (query, notes) = text.parse().map_err(|e| AppError::usage(e.to_string()))?;
        if !quiet {
            for note in notes {
                super::error::warn(&note);
            }
        }
        Ok(query)
    }
}

/// The formats `search` writes, text (the default on the screen) first.
const FORMATS: [Format; 4] = [Format::Text, Format::Csv, Format::Jsonl, Format::Parquet];

#[derive(Clone, Debug)]
pub struct SearchFormats;

impl Offers for SearchFormats {
    const FORMATS: &'static [Format] = &FORMATS;
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
    /// At most this many rows (the count is of every match); on a terminal, text shows the
    /// first 20 unless told.
    #[arg(long)]
    pub limit: Option<usize>,
    /// The order of the games: date (oldest first, the default), elo (the highest average
    /// rating first) or id (as stored).
    #[arg(long, value_name = "ORDER", value_parser = sort_order, default_value = "date")]
    pub sort: HitOrder,
    /// The columns of the games' rows, comma-separated (default: all): id, event, date,
    /// round, white, white_elo, black, black_elo, result, eco, last_move, next_move, ply.
    #[arg(long, value_name = "LIST")]
    pub columns: Option<String>,
    #[command(flatten)]
    pub out: TableOutput<SearchFormats>,
    /// No notes on standard error.
    #[arg(short, long)]
    pub quiet: bool,
    /// Print what the query means over a dataset's position rows as JSON (the keys, the
    /// material rule, the patterns as regular expressions; spark/README.md) and stop: no
    /// database is read.
    #[arg(long)]
    pub explain: bool,
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
    // Progress is redrawn in place on a terminal; a log or a pipe gets each step as a line.
    let live = !quiet && std::io::IsTerminal::is_terminal(&io::stderr());
    let say = |text: String| {
        if live {
            eprint!("\r{text}");
        } else if !quiet {
            eprintln!("{text}");
        }
    };
    let step = crate::db::positions::BUILD_STEP;
    let n = crate::db::positions::build(&conn, step, |done, total| {
        say(format!("indexed {done} of {total} games"));
    })?;
    // Key rows written before schema version 10 are re-encoded (no replay), resumably.
    let converted = crate::db::positions::convert_keys(
        &conn,
        crate::db::positions::CONVERT_STEP,
        |done, total| {
            say(format!("key index rows re-encoded: {done} of {total}"));
        },
    )?;
    if converted > 0 && live {
        eprintln!();
    }
    crate::db::positions::compact(&conn, 1)?;
    if !quiet {
        eprintln!(
            "{}indexed {n} games in {:.1} s",
            if live { "\r" } else { "" },
            start.elapsed().as_secs_f64()
        );
    }
    // Games indexed before schema version 7 get their trees' facts and material spans.
    let f = crate::db::positions::build_games(&conn, step, |done, total| {
        say(format!(
            "tree facts and material spans: {done} of {total} games"
        ));
    })?;
    if f > 0 && live {
        eprintln!();
    }
    // Ranges indexed before schema version 8 get the home-pawn index.
    let p = crate::db::positions::build_pawns(&conn, |done, total| {
        say(format!("home-pawn index: {done} of {total} games"));
    })?;
    if p > 0 && live {
        eprintln!();
    }
    // Ranges indexed before schema version 9 get the material index, from their spans.
    let m = crate::db::positions::build_material(&conn, |done, total| {
        say(format!("material index: {done} of {total} games"));
    })?;
    if m > 0 && live {
        eprintln!();
    }
    // Ranges indexed before schema version 13 get their games' summaries, by replay.
    let s = crate::db::positions::build_summaries(&conn, |done, total| {
        say(format!("game summaries: {done} of {total} games"));
    })?;
    if s > 0 && live {
        eprintln!();
    }
    Ok(Outcome::Success)
}

pub fn run(args: &SearchArgs) -> Result {
    if args.explain {
        let query = args.query.query(args.fen.as_deref(), args.quiet)?;
        if query.is_empty() {
            return Err(AppError::usage(
                "--explain needs a query: a FEN, --material or --pattern",
            ));
        }
        let json = crate::pipeline::parquet_positions::explain(&query)
            .map_err(|e| AppError::usage(e.to_string()))?;
        println!("{json}");
        return Ok(Outcome::Success);
    }
    let format = args.out.format()?;
    if format != Format::Text && args.tree && args.reverse_tree {
        return Err(AppError::usage(format!(
            "--tree and --reverse-tree together are two tables, which only text prints one after the other; give one of them with --format {format}"
        )));
    }
    let columns = columns(args)?;
    let view = view(args, &columns);
    let conn = open_read_only(&args.db)?;
    crate::db::map_pages(&conn);
    let screen = format == Format::Text
        && args.out.path().is_none()
        && std::io::IsTerminal::is_terminal(&io::stdout());
    let limit = args
        .limit
        .or(screen.then_some(SCREEN_ROWS))
        .unwrap_or(usize::MAX);
    let answer = answer(&conn, args, limit)?;
    // The output is opened once the search is done, so a search stopped by an error or by
    // Ctrl-C leaves no file; from here Ctrl-C stops the writing and the temporary file is
    // removed, as in `export`.
    crate::interrupt::install();
    search_tables::write(&answer, &view, format, args.out.path(), args.out.csv_raw)?;
    Ok(Outcome::Success)
}

/// The columns `--columns` picks (indexes into `HIT_COLUMNS`), all of them by default.
fn columns(args: &SearchArgs) -> Result<Vec<usize>> {
    match &args.columns {
        None => Ok((0..HIT_COLUMNS.len()).collect()),
        Some(list) => pick_hit_columns(list).map_err(AppError::usage),
    }
}

/// The search of `args` on an open database, written to `out` as text (`bench positions`
/// runs it on one connection, many times).
pub fn run_on(conn: &rusqlite::Connection, args: &SearchArgs, out: &mut Vec<u8>) -> Result {
    let answer = answer(conn, args, args.limit.unwrap_or(usize::MAX))?;
    let columns = columns(args)?;
    *out = search_tables::write_text(std::mem::take(out), &answer, &view(args, &columns))?;
    Ok(Outcome::Success)
}

/// How `args` shows an answer: the picked columns, the trees asked for, `--limit` lines of
/// each.
fn view<'a>(args: &SearchArgs, columns: &'a [usize]) -> View<'a> {
    View {
        columns,
        tree: args.tree,
        reverse_tree: args.reverse_tree,
        shown: args.limit.unwrap_or(usize::MAX),
        more_hint: "(--limit N shows more; -o FILE or --format csv writes all)",
    }
}

/// The search of `args`: the query and the selection it reads, answered from the key index
/// where it can, by replaying the games where it must.
fn answer(conn: &rusqlite::Connection, args: &SearchArgs, limit: usize) -> Result<SearchAnswer> {
    let query = args.query.query(args.fen.as_deref(), args.quiet)?;
    if query.is_empty() {
        return Err(AppError::usage(format!(
            "search: give a FEN or one of --material, --pattern, --pawns, --sequence, --repetition, --claimable, --automatic\n{EXAMPLES}"
        )));
    }
    if (args.tree || args.reverse_tree) && query.position.is_none() {
        return Err(AppError::usage("--tree and --reverse-tree need a FEN"));
    }
    let filter = args.select.select(conn, false)?;
    let other = |e: QueryError| AppError::Other(e.to_string());
    let selection = Selection::compile(conn, &filter).map_err(other)?;
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
    // The order is decided over every match: the index path orders the ids it finds and
    // replays only the games shown; a replay of every game orders what it found.
    let wanted = if args.tree { 0 } else { limit };
    if !args.reverse_tree
        && let Some(e) = explore_ordered(conn, &query, &selection, wanted, args.tree, args.sort)
            .map_err(other)?
    {
        unindexed_note(e.unindexed);
        if let Some(trees) = e.trees {
            return Ok(SearchAnswer::Trees {
                total: e.total,
                trees,
            });
        }
        let shown: Vec<(i64, u32)> = e.hits.iter().map(|h| (h.id, h.ply)).collect();
        let rows = hit_rows(conn, &shown)?;
        return Ok(SearchAnswer::Rows {
            total: e.total,
            rows,
        });
    }
    let found = search(conn, &query, &selection).map_err(other)?;
    unindexed_note(found.unindexed);
    let total = found.hits.len();
    if args.tree || args.reverse_tree {
        let trees = trees(conn, &found.hits, args.reverse_tree).map_err(other)?;
        return Ok(SearchAnswer::Trees { total, trees });
    }
    let hits: Vec<(i64, u32)> = found.hits.iter().map(|h| (h.id, h.ply)).collect();
    let rows = hit_rows(conn, &order_hits(conn, &hits, args.sort, limit)?)?;
    Ok(SearchAnswer::Rows { total, rows })
}
