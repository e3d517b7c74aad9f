//! `arbiter openings --db DB [filters]`: the opening tree of a selection (`stats::tree`):
//! this file reads the flags, resolves the selection, and prints the tree as text or writes
//! it as CSV, JSON lines or Parquet through the one output convention (`export::format`).

use super::error::{Outcome, Result, warn};
use super::filter::FilterArgs;
use super::output::{Offers, TableOutput};
use crate::export::format::{self, Format};
use crate::export::output::Output;
use crate::export::table::TableFormat;
use crate::export::text::TextFormat;
use crate::stats::tree::{COLUMNS, Tree, TreeOrder};
use crate::table::{Cell, Column, Kind};
use clap::Args;
use std::path::PathBuf;

/// The formats `openings` writes.
const FORMATS: [Format; 4] = [Format::Text, Format::Csv, Format::Jsonl, Format::Parquet];

#[derive(Clone, Debug)]
pub struct OpeningsFormats;

impl Offers for OpeningsFormats {
    const FORMATS: &'static [Format] = &FORMATS;
}

#[derive(Args, Debug)]
#[command(after_help = "Examples:
  arbiter openings --db games.sqlite --depth 6
  arbiter openings --db games.sqlite --player 'Carlsen,M' --min-games 5 -o carlsen-tree.csv
  arbiter openings --db games.sqlite --opening 'Sicilian Defense' --date-from 2020 --format jsonl

Columns: games = games of the selection that followed the line; white_score = White's score
in % in those with a result; draw_rate = their draws in %; avg_elo = both players' average
rating; performance = the performance of the side that played the line's last move (its
opponents' average rating + 400 (W - L) / N); opening = the position's opening name.")]
pub struct OpeningsArgs {
    /// The database written by `arbiter import`.
    #[arg(long, default_value = "arbiter.sqlite")]
    pub db: PathBuf,
    /// Plies of the tree.
    #[arg(long, default_value_t = 8)]
    pub depth: usize,
    /// Lines followed by fewer games are left out.
    #[arg(long, default_value_t = 10)]
    pub min_games: u64,
    /// The order of the moves from one position.
    #[arg(long, value_parser = super::choice::every::<TreeOrder>(), default_value = "games")]
    pub sort: TreeOrder,
    #[command(flatten)]
    pub out: TableOutput<OpeningsFormats>,
    /// No notes on standard error.
    #[arg(short, long)]
    pub quiet: bool,
    #[command(flatten)]
    pub select: FilterArgs,
}

pub fn run(args: &OpeningsArgs) -> Result {
    let format = args.out.format()?;
    let conn = crate::db::open_read_only(&args.db)?;
    // Statistics count each duplicate group once unless --all-games.
    let filter = args.select.select(&conn, true)?;
    // A table output is opened before the pass, so an unwritable path fails at once.
    let table = match format {
        Format::Text => None,
        f => Some(format::open_table(f, args.out.path(), args.out.csv_raw)?),
    };
    let tree = Tree::collect(&conn, &filter, args.depth, args.min_games, args.sort)?;
    let other = tree.selected - tree.standard;
    if !args.quiet && (other > 0 || tree.selected == 0) {
        warn(format_args!(
            "{} selected, {} from the standard start{}",
            tree.selected,
            tree.standard,
            if other > 0 {
                " (the tree starts from the standard position; Chess960 and games from a FEN are left out)"
            } else {
                ""
            }
        ));
    }
    match table {
        Some(mut t) => {
            t.begin(&COLUMNS)?;
            for (line, n) in &tree.lines {
                t.row(&tree.cells(line, n))?;
            }
            t.finish()?;
        }
        None => write_text(&tree)?,
    }
    Ok(Outcome::Success)
}

/// The tree as the aligned text table: the same cells as the other formats, but the line
/// shown as its last move, numbered and indented by its depth, in place of the line, its
/// length and its move.
fn write_text(tree: &Tree) -> Result<()> {
    let mut t = TextFormat::new(Output::open(None)?)
        .caption(format!("{} games from the standard start", tree.standard));
    t.begin(&TEXT_COLUMNS)?;
    for (line, n) in &tree.lines {
        let indent = "  ".repeat(line.len() - 1);
        let mv = if line.len() % 2 == 1 {
            format!("{indent}{}. {}", line.len().div_ceil(2), n.san)
        } else {
            format!("{indent}{}... {}", line.len() / 2, n.san)
        };
        let mut cells = tree.cells(line, n);
        cells.splice(..TEXT_DROPS, [Cell::Text(mv.into())]);
        t.row(&cells)?;
    }
    t.into_inner()?.finish()?;
    Ok(())
}

/// Text's columns: `COLUMNS` with the first `TEXT_DROPS` (line, ply, move) made one.
const TEXT_DROPS: usize = 3;
static TEXT_COLUMNS: std::sync::LazyLock<Vec<Column>> = std::sync::LazyLock::new(|| {
    let mut c = vec![Column::new(
        "line",
        Kind::Text,
        "the line's last move, numbered, indented by its depth",
    )];
    c.extend_from_slice(&COLUMNS[TEXT_DROPS..]);
    c
});
