//! The tables `arbiter search` writes, described for the one output convention
//! (`export::format`): the matching games, the moves played next (`--tree`) and the move
//! orders that reached the position (`--reverse-tree`), each as columns and typed cells, so
//! that CSV (with its formula guard), JSON lines and Parquet all come from one description.

use crate::db::query::positions::HitRow;
use crate::positions::tree::Branch;
use crate::table::{Cell, Column, Kind};

/// A matching game: the columns of `arbiter search`'s rows.
pub const HIT_COLUMNS: [Column; 6] = [
    Column::new("id", Kind::Int, "the game's id in the database"),
    Column::new("white", Kind::Text, "White as written in the game"),
    Column::new("black", Kind::Text, "Black as written in the game"),
    Column::new("date", Kind::Text, "the Date tag"),
    Column::new("result", Kind::Text, "the Result tag"),
    Column::new(
        "ply",
        Kind::Int,
        "the first matching ply (0: the start position)",
    ),
];

pub fn hit_cells(r: &HitRow) -> [Cell<'_>; 6] {
    [
        Cell::Int(r.id),
        Cell::opt_text(r.white.as_deref()),
        Cell::opt_text(r.black.as_deref()),
        Cell::opt_text(r.date.as_deref()),
        Cell::opt_text(r.result.as_deref()),
        Cell::Int(i64::from(r.ply)),
    ]
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

pub fn branch_cells(b: &Branch) -> [Cell<'_>; 7] {
    [
        Cell::text(&b.san),
        Cell::Int(b.games as i64),
        Cell::opt_fixed(b.white_score(), 2),
        Cell::opt_fixed(b.draw_rate(), 2),
        Cell::opt_fixed(b.avg_elo(0), 1),
        Cell::opt_fixed(b.avg_elo(1), 1),
        Cell::opt_fixed(b.performance(), 1),
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
pub const START: &str = "(start)";

pub fn order_cells(order: &str, games: u64) -> [Cell<'_>; 2] {
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
            black: None,
            date: Some("2024.01.02".to_owned()),
            result: Some("1-0".to_owned()),
            ply: 12,
        };
        let cells = hit_cells(&r);
        assert_eq!(cells.len(), HIT_COLUMNS.len());
        assert_eq!(cells[0], Cell::Int(7));
        assert_eq!(cells[2], Cell::Null);
        assert_eq!(cells[5], Cell::Int(12));
        let mut b = Branch::default();
        b.san = "Nf3".to_owned();
        b.games = 3;
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
