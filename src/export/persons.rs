//! `arbiter players`' list as a table: one row per spelling, with the person it belongs to,
//! in every table format (aligned text on the screen, CSV, JSON lines, Parquet).

use crate::db::persons::Listed;
use crate::table::{Cell, Column, Kind};

pub const COLUMNS: [Column; 7] = [
    Column::new("person", Kind::Int, "the person's id"),
    Column::new(
        "name",
        Kind::Text,
        "the person's name (its most played spelling)",
    ),
    Column::new(
        "key",
        Kind::Text,
        "what holds the person's spellings together: fide:ID or name:FOLDED",
    ),
    Column::new(
        "person_games",
        Kind::Int,
        "the person's games, every spelling",
    ),
    Column::new("spelling", Kind::Text, "a spelling as the games wrote it"),
    Column::new(
        "fide_id",
        Kind::Int,
        "the spelling's FIDE id, if a FideId tag gave one",
    ),
    Column::new("games", Kind::Int, "the games under this spelling"),
];

/// One spelling's cells in `COLUMNS`' order.
pub fn cells(r: &Listed) -> [Cell<'_>; 7] {
    [
        Cell::Int(r.person),
        Cell::text(&r.person_name),
        Cell::text(&r.key),
        Cell::Int(r.total),
        Cell::text(&r.spelling),
        r.fide_id.map_or(Cell::Null, Cell::Int),
        Cell::Int(r.games),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spelling_without_a_fide_id_leaves_the_cell_empty() {
        let r = Listed {
            person: 3,
            person_name: "Carlsen, Magnus".to_owned(),
            key: "fide:1503014".to_owned(),
            total: 12,
            spelling: "Carlsen,M".to_owned(),
            fide_id: None,
            games: 4,
        };
        let c = cells(&r);
        assert_eq!(c.len(), COLUMNS.len());
        assert_eq!(c[2], Cell::text("fide:1503014"));
        assert_eq!(c[5], Cell::Null);
        assert_eq!(c[6], Cell::Int(4));
    }
}
