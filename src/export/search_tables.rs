//! The tables `arbiter search` writes, described for the one output convention
//! (`export::format`): the matching games, the moves played next (`--tree`) and the move
//! orders that reached the position (`--reverse-tree`), each as columns and typed cells, so
//! that CSV (with its formula guard), JSON lines and Parquet all come from one description.

use super::ExportError;
use super::format::{Format, open_table};
use super::output::{Finish, Output};
use super::table::TableFormat;
use super::text::TextFormat;
use crate::db::hits::HitRow;
use crate::positions::tree::{Branch, Trees};
use crate::table::{Cell, Column, Kind};
use std::path::Path;

/// What `arbiter search` answers.
pub enum SearchAnswer {
    /// The matching games (at most `--limit` of them, in `--sort`'s order) and how many
    /// matched.
    Rows { total: usize, rows: Vec<HitRow> },
    /// The trees of `--tree` / `--reverse-tree` and how many games reached the position.
    Trees { total: usize, trees: Trees },
}

/// How an answer is shown.
pub struct View<'a> {
    /// The row columns picked (indexes into `HIT_COLUMNS`).
    pub columns: &'a [usize],
    /// The moves played next (`--tree`), the move orders (`--reverse-tree`); text alone
    /// shows both, one table after the other.
    pub tree: bool,
    pub reverse_tree: bool,
    /// Next moves or move orders shown (`--limit`; the rows come limited).
    pub shown: usize,
    /// Under the rows, when some were left out: how to see them.
    pub more_hint: &'a str,
}

/// The answer in `format` on `output` (standard output when None), every table through the
/// one table convention; text is the aligned table with the count above it.
pub fn write(
    answer: &SearchAnswer,
    view: &View,
    format: Format,
    output: Option<&Path>,
    csv_raw: bool,
) -> Result<(), ExportError> {
    if format == Format::Text {
        let out = write_text(Output::open(super::output::named(output))?, answer, view)?;
        return Ok(out.finish()?);
    }
    let mut t = open_table(format, output, csv_raw)?;
    match answer {
        SearchAnswer::Rows { rows, .. } => write_rows(t.as_mut(), view.columns, rows)?,
        SearchAnswer::Trees { trees, .. } if view.tree => write_tree(t.as_mut(), trees, view)?,
        SearchAnswer::Trees { trees, .. } => write_orders(t.as_mut(), trees, view)?,
    }
    t.finish()
}

/// The answer as aligned text on `out`, handed back unfinished (`bench positions` writes it
/// into memory).
pub fn write_text<W: Finish + Send>(
    out: W,
    answer: &SearchAnswer,
    view: &View,
) -> Result<W, ExportError> {
    match answer {
        SearchAnswer::Rows { total, rows } => {
            let more = total - rows.len();
            let footer =
                (more > 0).then(|| format!("... and {more} more games {}", view.more_hint));
            let mut t = TextFormat::new(out)
                .caption(format!("{total} games"))
                .footer(footer);
            write_rows(&mut t, view.columns, rows)?;
            t.into_inner()
        }
        SearchAnswer::Trees { total, trees } => {
            let mut out = out;
            let mut caption = Some(format!("{total} games"));
            if view.tree {
                let mut t = TextFormat::new(out).caption(caption.take().unwrap_or_default());
                write_tree(&mut t, trees, view)?;
                out = t.into_inner()?;
            }
            if view.reverse_tree {
                let mut t = TextFormat::new(out);
                if let Some(c) = caption {
                    t = t.caption(c);
                }
                write_orders(&mut t, trees, view)?;
                out = t.into_inner()?;
            }
            Ok(out)
        }
    }
}

/// The games' rows as a table of the picked columns.
fn write_rows(
    t: &mut dyn TableFormat,
    columns: &[usize],
    rows: &[HitRow],
) -> Result<(), ExportError> {
    let picked: Vec<_> = columns.iter().map(|&i| HIT_COLUMNS[i]).collect();
    t.begin(&picked)?;
    let mut cells = Vec::with_capacity(columns.len());
    for r in rows {
        let all = hit_cells(r);
        cells.clear();
        cells.extend(columns.iter().map(|&i| all[i].clone()));
        t.row(&cells)?;
    }
    Ok(())
}

fn write_tree(t: &mut dyn TableFormat, trees: &Trees, view: &View) -> Result<(), ExportError> {
    t.begin(&TREE_COLUMNS)?;
    for b in trees.branches().into_iter().take(view.shown) {
        t.row(&branch_cells(b))?;
    }
    Ok(())
}

fn write_orders(t: &mut dyn TableFormat, trees: &Trees, view: &View) -> Result<(), ExportError> {
    t.begin(&ORDER_COLUMNS)?;
    for (order, n) in trees.move_orders().into_iter().take(view.shown) {
        t.row(&order_cells(order, n))?;
    }
    Ok(())
}

/// A matching game: the columns of `arbiter search`'s rows (`--columns` picks some); the
/// id first and the ply last.
pub const HIT_COLUMNS: [Column; 13] = [
    Column::new("id", Kind::Int, "the game's id in the database"),
    Column::new("event", Kind::Text, "the Event tag"),
    Column::new("date", Kind::Text, "the Date tag"),
    Column::new("round", Kind::Text, "the Round tag"),
    Column::new("white", Kind::Text, "White as written in the game"),
    Column::new("white_elo", Kind::Int, "White's rating"),
    Column::new("black", Kind::Text, "Black as written in the game"),
    Column::new("black_elo", Kind::Int, "Black's rating"),
    Column::new("result", Kind::Text, "the Result tag"),
    Column::new("eco", Kind::Text, "ECO code of the game's opening"),
    Column::new(
        "last_move",
        Kind::Text,
        "the move that reached the position, numbered (6. Be3, 6... e5)",
    ),
    Column::new(
        "next_move",
        Kind::Text,
        "the move played from the position, numbered",
    ),
    Column::new(
        "ply",
        Kind::Int,
        "the first matching ply (0: the start position)",
    ),
];

fn hit_cells(r: &HitRow) -> [Cell<'_>; 13] {
    [
        Cell::Int(r.id),
        Cell::opt_text(r.event.as_deref()),
        Cell::opt_text(r.date.as_deref()),
        Cell::opt_text(r.round.as_deref()),
        Cell::opt_text(r.white.as_deref()),
        r.white_elo.map_or(Cell::Null, Cell::Int),
        Cell::opt_text(r.black.as_deref()),
        r.black_elo.map_or(Cell::Null, Cell::Int),
        Cell::opt_text(r.result.as_deref()),
        Cell::opt_text(r.eco.as_deref()),
        Cell::opt_text(r.last_move.as_deref()),
        Cell::opt_text(r.next_move.as_deref()),
        Cell::Int(i64::from(r.ply)),
    ]
}

/// The columns a `--columns` list names, as indexes into `HIT_COLUMNS`, in its order; a
/// name that is not a column is an error listing the columns.
pub fn pick_hit_columns(list: &str) -> Result<Vec<usize>, String> {
    list.split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(|name| {
            HIT_COLUMNS
                .iter()
                .position(|c| c.name == name)
                .ok_or_else(|| {
                    let names: Vec<&str> = HIT_COLUMNS.iter().map(|c| c.name).collect();
                    format!(
                        "--columns: no column '{name}'; the columns: {}",
                        names.join(",")
                    )
                })
        })
        .collect::<Result<Vec<_>, _>>()
        .and_then(|v| {
            if v.is_empty() {
                Err("--columns: name at least one column".to_owned())
            } else {
                Ok(v)
            }
        })
}

/// A move played next (`--tree`); percentages with two decimals and ratings with one in
/// CSV, the numbers themselves in JSON lines and Parquet.
pub const TREE_COLUMNS: [Column; 7] = [
    Column::new("move", Kind::Text, "the move played next (SAN)"),
    Column::new("games", Kind::Int, "games that played it"),
    Column::new(
        "white_score",
        Kind::Float,
        "White's score in %, finished games",
    ),
    Column::new("draw_rate", Kind::Float, "draws in %, finished games"),
    Column::new("white_elo", Kind::Float, "White's average rating"),
    Column::new("black_elo", Kind::Float, "Black's average rating"),
    Column::new(
        "performance",
        Kind::Float,
        "the mover's linear performance: opponents' average + 400 (W - L) / N",
    ),
];

fn branch_cells(b: &Branch) -> [Cell<'_>; 7] {
    let t = &b.tally;
    [
        Cell::text(&b.san),
        Cell::Int(t.games as i64),
        Cell::opt_fixed(t.white_score(), 2),
        Cell::opt_fixed(t.draw_rate(), 2),
        Cell::opt_fixed(t.avg_elo(0), 1),
        Cell::opt_fixed(t.avg_elo(1), 1),
        Cell::opt_fixed(t.performance(), 1),
    ]
}

/// A move order that reached the position (`--reverse-tree`).
pub const ORDER_COLUMNS: [Column; 2] = [
    Column::new("games", Kind::Int, "games that reached the position by it"),
    Column::new(
        "moves",
        Kind::Text,
        "the moves from the start, SAN, space-separated ((start): the start position itself)",
    ),
];

/// The name of the empty move order: the position is the start position.
const START: &str = "(start)";

fn order_cells(order: &str, games: u64) -> [Cell<'_>; 2] {
    let order = if order.is_empty() { START } else { order };
    [Cell::Int(games as i64), Cell::text(order)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_row_has_one_cell_per_column_and_a_missing_value_is_null() {
        let r = HitRow {
            id: 7,
            white: Some("=cmd|' /C calc'!A0".to_owned()),
            date: Some("2024.01.02".to_owned()),
            result: Some("1-0".to_owned()),
            white_elo: Some(2700),
            ply: 12,
            ..HitRow::default()
        };
        let cells = hit_cells(&r);
        assert_eq!(cells.len(), HIT_COLUMNS.len());
        assert_eq!(cells[0], Cell::Int(7));
        assert_eq!(cells[5], Cell::Int(2700));
        assert_eq!(cells[6], Cell::Null);
        assert_eq!(cells[12], Cell::Int(12));
        assert_eq!(pick_hit_columns("id, ply,white"), Ok(vec![0, 12, 4]));
        assert!(
            pick_hit_columns("id,elo")
                .unwrap_err()
                .contains("white_elo")
        );
        let mut b = Branch {
            san: "Nf3".to_owned(),
            ..Branch::default()
        };
        b.tally.add(0, None, [None, None]);
        b.tally.add(1, None, [None, None]);
        b.tally.add(0, None, [None, None]);
        let cells = branch_cells(&b);
        assert_eq!(cells.len(), TREE_COLUMNS.len());
        // No finished game: no score, no draw rate, no ratings.
        assert_eq!(&cells[..3], &[Cell::text("Nf3"), Cell::Int(3), Cell::Null]);
        assert_eq!(
            order_cells("", 4),
            [Cell::Int(4), Cell::text("(start)")],
            "the empty order is the start position"
        );
    }
}
