//! The statistics' input in one pass: the rows of `player_games` for the selected games, in
//! date order. The store gives one row per game (`db::query::rows::for_each_sides`, which
//! reads `games` under the selection's filters, so the date index gives the order without
//! sorting two rows a game); its two sides are made here, by the same rule as the view's SQL
//! (checked against it by tests/stats_cli.rs).

use super::row::{Colour, GameFacts, PlayerGame};
use crate::db::query::rows::{for_each_sides, time_forfeits};
use crate::db::query::select::Filter;
use crate::laws::result::WhiteResult;
use rusqlite::Connection;
use std::fmt;

/// A query of the statistics' input failed.
#[derive(Debug)]
pub enum ReadError {
    Sqlite(rusqlite::Error),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Sqlite(e) => write!(f, "database: {e}"),
        }
    }
}

impl std::error::Error for ReadError {}

impl From<rusqlite::Error> for ReadError {
    fn from(e: rusqlite::Error) -> ReadError {
        ReadError::Sqlite(e)
    }
}

/// This side's score for a result text, as the view computes it.
pub fn white_score(result: Option<&str>) -> Option<f64> {
    WhiteResult::of(result).map(WhiteResult::white_score)
}

/// Calls `each` with every row of `player_games` for the games the filter selects, in date
/// order (year, month, day, game id; unknown parts first, as SQLite orders NULL), both sides of
/// a game one after the other (White first). `person`: only games of this person. Returns the
/// number of games read.
pub fn for_each_row(
    conn: &Connection,
    filter: &Filter,
    person: Option<i64>,
    mut each: impl FnMut(&PlayerGame),
) -> Result<u64, ReadError> {
    let on_time = time_forfeits(conn)?;
    let mut row = PlayerGame::new(0, 0, Colour::White);
    let games = for_each_sides(conn, filter, person, |g| {
        let id = g.id;
        row.game_id = id;
        row.result.clone_from(&g.result);
        let effective = white_score(row.result.as_deref());
        let recorded = white_score(g.recorded.as_deref());
        row.date.clone_from(&g.date);
        row.year = g.year;
        row.month = g.month;
        row.day = g.day;
        row.event_id = g.event_id;
        row.eco.clone_from(&g.eco);
        row.opening.clone_from(&g.opening);
        row.opening_family.clone_from(&g.opening_family);
        row.tc_class.clone_from(&g.tc_class);
        row.time_control.clone_from(&g.time_control);
        row.ply_count = g.ply_count;
        row.termination.clone_from(&g.termination);
        row.laws_edition.clone_from(&g.laws_edition);
        row.duplicate = g.duplicate;
        row.facts = GameFacts {
            termination_ply: g.termination_ply,
            threefold_ply: g.threefold_ply,
            fifty_ply: g.fifty_ply,
            on_time: on_time.contains(&id),
        };
        for (colour, me, them) in [(Colour::White, 0, 1), (Colour::Black, 1, 0)] {
            let (Some(person), Some(name)) = (g.persons[me], g.name_ids[me]) else {
                continue;
            };
            let flip = |s: Option<f64>| match colour {
                Colour::White => s,
                Colour::Black => s.map(|s| 1.0 - s),
            };
            row.player_id = person;
            row.name_id = name;
            row.colour = colour;
            row.opponent_id = g.persons[them];
            row.opponent_name_id = g.name_ids[them];
            row.rating = g.elo[me];
            row.opponent_rating = g.elo[them];
            row.score = flip(effective);
            row.recorded_score = flip(recorded);
            each(&row);
        }
    })?;
    Ok(games)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_follow_the_view() {
        assert_eq!(white_score(Some("1-0")), Some(1.0));
        assert_eq!(white_score(Some("1/2-1/2")), Some(0.5));
        assert_eq!(white_score(Some("0-1")), Some(0.0));
        assert_eq!(white_score(Some("*")), None);
        assert_eq!(white_score(None), None);
    }
}
