//! The `player_games` table: one row per person per game (two per game, a self-game too),
//! with colour, opponent, score, ratings, date and opening: what statistics and ratings at
//! scale read. The same columns as the database's `player_games` view (docs/SCHEMA.md), with
//! the names beside the ids.

use super::ExportRow;
use super::table::{Cell, Column, Kind, TableFormat};
use super::{ExportError, Writer};
use crate::laws::result::WhiteResult;
use std::borrow::Cow;

macro_rules! columns {
    ($(($name:literal, $kind:ident, $meaning:literal)),* $(,)?) => {
        [$(Column { name: $name, kind: Kind::$kind, meaning: $meaning }),*]
    };
}

pub const PLAYER_GAME_COLUMNS: [Column; 27] = columns![
    ("game_id", Int, "arbiter's game id"),
    (
        "player_id",
        Int,
        "the person's id (players.id; on a version-1 database the spelling's)"
    ),
    ("player", Text, "the person's canonical name"),
    ("name_id", Int, "the spelling's id"),
    ("name", Text, "the name as written in the game"),
    ("colour", Text, "white or black"),
    ("opponent_id", Int, "the opponent's person id"),
    ("opponent", Text, "the opponent's canonical name"),
    ("opponent_name_id", Int, "the opponent's spelling id"),
    ("opponent_name", Text, "the opponent's name as written"),
    ("rating", Int, "this side's Elo tag"),
    ("opponent_rating", Int, "the opponent's Elo tag"),
    (
        "result",
        Text,
        "effective result: the lawful result, else the recorded one"
    ),
    (
        "score",
        Float,
        "1, 0.5 or 0 for this player from the effective result; empty when unfinished"
    ),
    ("recorded_score", Float, "the same from the Result tag"),
    ("date", Text, "Date tag as written"),
    ("year", Int, "year, when known"),
    ("month", Int, "month, when known"),
    ("day", Int, "day, when known"),
    ("event", Text, "Event tag"),
    (
        "eco",
        Text,
        "ECO code (arbiter's classification, else the tag)"
    ),
    (
        "opening",
        Text,
        "opening name (arbiter's classification, else the tag)"
    ),
    ("tc_class", Text, "class of the time control"),
    ("time_control", Text, "TimeControl tag"),
    ("ply_count", Int, "half-moves in the main line"),
    ("termination", Text, "automatic ending found by the Laws"),
    (
        "duplicate",
        Int,
        "1 when the game is a duplicate that is not its group's survivor"
    ),
];

/// This side's score from a result text: 1, 0.5, 0; None when unfinished or unknown.
pub fn score(result: Option<&str>, white: bool) -> Option<f64> {
    let white_score = WhiteResult::of(result)?.white_score();
    Some(if white {
        white_score
    } else {
        1.0 - white_score
    })
}

/// The two rows of a game (White's, then Black's).
pub fn player_game_cells(row: &ExportRow) -> [Vec<Cell<'_>>; 2] {
    let effective = row.lawful_result.as_deref().or(row.result.as_deref());
    let side = |me: usize| {
        let other = 1 - me;
        let written = |k: usize| Cell::opt_text(row.tag(if k == 0 { "White" } else { "Black" }));
        let person = |k: usize| match &row.persons[k] {
            Some(p) => Cell::Text(Cow::Borrowed(p.as_str())),
            None => written(k),
        };
        let float = |x: Option<f64>| x.map_or(Cell::Null, Cell::Float);
        vec![
            Cell::Int(row.id),
            Cell::opt_int(row.person_ids[me]),
            person(me),
            Cell::opt_int(row.name_ids[me]),
            written(me),
            Cell::text(if me == 0 { "white" } else { "black" }),
            Cell::opt_int(row.person_ids[other]),
            person(other),
            Cell::opt_int(row.name_ids[other]),
            written(other),
            Cell::opt_int(row.elo[me]),
            Cell::opt_int(row.elo[other]),
            Cell::opt_text(effective),
            float(score(effective, me == 0)),
            float(score(row.result.as_deref(), me == 0)),
            Cell::opt_text(row.tag("Date")),
            Cell::opt_int(row.year),
            Cell::opt_int(row.month),
            Cell::opt_int(row.day),
            Cell::opt_text(row.tag("Event")),
            Cell::opt_text(row.eco.as_deref()),
            Cell::opt_text(row.opening.as_deref()),
            Cell::opt_text(row.tc_class.as_deref()),
            Cell::opt_text(row.time_control.as_deref()),
            Cell::Int(row.ply_count),
            Cell::opt_text(row.termination.as_deref()),
            Cell::Int(i64::from(row.duplicate)),
        ]
    };
    [side(0), side(1)]
}

/// A table format as a game writer of `player_games` rows.
pub struct PlayerGamesTable {
    format: Box<dyn TableFormat>,
}

impl PlayerGamesTable {
    pub fn new(format: Box<dyn TableFormat>) -> PlayerGamesTable {
        PlayerGamesTable { format }
    }
}

impl Writer for PlayerGamesTable {
    fn begin(&mut self) -> Result<(), ExportError> {
        self.format.begin(&PLAYER_GAME_COLUMNS)
    }

    fn game(&mut self, row: &ExportRow) -> Result<(), ExportError> {
        for cells in player_game_cells(row) {
            self.format.row(&cells)?;
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<(), ExportError> {
        self.format.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_rows_a_game_with_scores_from_each_side() {
        let row = ExportRow {
            id: 7,
            tags: vec![
                ("White".into(), "Carlsen,M".into()),
                ("Black".into(), "Caruana, Fabiano".into()),
            ],
            persons: [Some("Carlsen, Magnus".into()), None],
            result: Some("1-0".into()),
            lawful_result: Some("1/2-1/2".into()),
            elo: [Some(2850), None],
            ..ExportRow::default()
        };
        let [w, b] = player_game_cells(&row);
        assert_eq!(w.len(), PLAYER_GAME_COLUMNS.len());
        fn at<'c>(cells: &[Cell<'c>], name: &str) -> Cell<'c> {
            cells[PLAYER_GAME_COLUMNS
                .iter()
                .position(|c| c.name == name)
                .unwrap()]
            .clone()
        }
        assert_eq!(at(&w, "player"), Cell::text("Carlsen, Magnus"));
        assert_eq!(at(&w, "name"), Cell::text("Carlsen,M"));
        assert_eq!(at(&b, "player"), Cell::text("Caruana, Fabiano"));
        assert_eq!(at(&b, "opponent"), Cell::text("Carlsen, Magnus"));
        assert_eq!(at(&w, "score"), Cell::Float(0.5));
        assert_eq!(at(&w, "recorded_score"), Cell::Float(1.0));
        assert_eq!(at(&b, "recorded_score"), Cell::Float(0.0));
        assert_eq!(at(&b, "opponent_rating"), Cell::Int(2850));
        assert_eq!(at(&b, "rating"), Cell::Null);
        assert_eq!(score(Some("*"), true), None);
    }
}
