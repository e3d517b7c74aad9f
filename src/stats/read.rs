//! Reading the statistics' input out of SQLite in one pass: the rows of `player_games` for the
//! selected games, in date order, plus the persons and spellings to name them. The query reads
//! `games` with the view's two sides made in Rust (the same rule as the view's SQL, checked
//! against it by tests/stats_cli.rs), because the export filters are written against `g`, `w`,
//! `b`, `e`, and because the date index then gives the order without sorting two rows a game.

use super::row::{Colour, GameFacts, PlayerGame};
use crate::db::select::Filter;
use rusqlite::types::Value;
use rusqlite::{Connection, params_from_iter};
use std::collections::{HashMap, HashSet};
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
    match result? {
        "1-0" => Some(1.0),
        "0-1" => Some(0.0),
        "1/2-1/2" => Some(0.5),
        _ => None,
    }
}

/// The view's columns for both sides of a game, then the facts it lacks (`GameFacts`); the
/// FROM clause is the export's, so every export filter applies.
const COLUMNS: &str = "g.id, w.person_id, g.white_id, b.person_id, g.black_id, \
    g.white_elo, g.black_elo, COALESCE(g.lawful_result, g.result), g.result, g.date, g.year, \
    g.month, g.day, g.event_id, g.eco, {opening}, g.tc_class, g.time_control, \
    g.ply_count, g.termination, g.laws_edition, coalesce(dm.survivor = 0, 0), \
    g.termination_ply, g.threefold_ply, g.fifty_ply";

/// Games whose Termination tag says they were decided on time.
fn on_time_games(conn: &Connection) -> Result<HashSet<i64>, ReadError> {
    let mut stmt = conn.prepare("SELECT game_id, value FROM tags WHERE name = 'Termination'")?;
    let mut rows = stmt.query([])?;
    let mut set = HashSet::new();
    while let Some(r) = rows.next()? {
        let value: String = r.get(1)?;
        if crate::laws::result::is_time_forfeit(&value) {
            set.insert(r.get(0)?);
        }
    }
    Ok(set)
}

/// Per analysed game: (accuracy, blunders) of White and of Black.
type Analysis = [(Option<f64>, Option<u32>); 2];

fn analyses(conn: &Connection) -> Result<HashMap<i64, Analysis>, ReadError> {
    let mut stmt = conn.prepare(
        "SELECT game_id, white_accuracy, black_accuracy, white_blunders, black_blunders FROM analyses",
    )?;
    let mut rows = stmt.query([])?;
    let mut map = HashMap::new();
    while let Some(r) = rows.next()? {
        map.insert(r.get(0)?, [(r.get(1)?, r.get(3)?), (r.get(2)?, r.get(4)?)]);
    }
    Ok(map)
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
    let on_time = on_time_games(conn)?;
    let analysed = analyses(conn)?;
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let (mut clause, mut values) = filter.to_sql(version);
    if let Some(p) = person {
        values.push(Value::Integer(p));
        let n = values.len();
        clause = format!(
            "({clause}) AND (g.white_id IN (SELECT id FROM player_names WHERE person_id = ?{n}) \
             OR g.black_id IN (SELECT id FROM player_names WHERE person_id = ?{n}))"
        );
    }
    let from = crate::db::select::games_from(version);
    let columns = COLUMNS.replace("{opening}", crate::db::select::opening_columns(version));
    let sql = format!(
        "SELECT {columns} FROM {from} WHERE {clause} ORDER BY g.year, g.month, g.day, g.id"
    );
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query(params_from_iter(values))?;
    let mut row = PlayerGame::new(0, 0, Colour::White);
    let mut games = 0;
    let text = |r: &rusqlite::Row, i: usize, into: &mut Option<String>| -> rusqlite::Result<()> {
        match r.get_ref(i)?.as_str_or_null()? {
            Some(s) => {
                let buf = into.get_or_insert_with(String::new);
                buf.clear();
                buf.push_str(s);
            }
            None => *into = None,
        }
        Ok(())
    };
    while let Some(r) = rows.next()? {
        games += 1;
        let id: i64 = r.get(0)?;
        let white: Option<i64> = r.get(1)?;
        let white_name: Option<i64> = r.get(2)?;
        let black: Option<i64> = r.get(3)?;
        let black_name: Option<i64> = r.get(4)?;
        let white_elo: Option<i64> = r.get(5)?;
        let black_elo: Option<i64> = r.get(6)?;
        row.game_id = id;
        text(r, 7, &mut row.result)?;
        let effective = white_score(row.result.as_deref());
        let recorded = white_score(
            r.get_ref(8)?
                .as_str_or_null()
                .map_err(rusqlite::Error::from)?,
        );
        text(r, 9, &mut row.date)?;
        row.year = r.get(10)?;
        row.month = r.get(11)?;
        row.day = r.get(12)?;
        row.event_id = r.get(13)?;
        text(r, 14, &mut row.eco)?;
        text(r, 15, &mut row.opening)?;
        text(r, 16, &mut row.opening_family)?;
        text(r, 17, &mut row.tc_class)?;
        text(r, 18, &mut row.time_control)?;
        row.ply_count = r.get(19)?;
        text(r, 20, &mut row.termination)?;
        text(r, 21, &mut row.laws_edition)?;
        row.duplicate = r.get(22)?;
        let analysis = analysed.get(&id);
        let facts = GameFacts {
            termination_ply: r.get(23)?,
            threefold_ply: r.get(24)?,
            fifty_ply: r.get(25)?,
            on_time: on_time.contains(&id),
            accuracy: None,
            blunders: None,
        };
        let sides = [
            (
                Colour::White,
                white,
                white_name,
                black,
                black_name,
                white_elo,
                black_elo,
            ),
            (
                Colour::Black,
                black,
                black_name,
                white,
                white_name,
                black_elo,
                white_elo,
            ),
        ];
        for (colour, me, me_name, them, them_name, mine, theirs) in sides {
            let (Some(me), Some(me_name)) = (me, me_name) else {
                continue;
            };
            let flip = |s: Option<f64>| match colour {
                Colour::White => s,
                Colour::Black => s.map(|s| 1.0 - s),
            };
            row.player_id = me;
            row.name_id = me_name;
            row.colour = colour;
            row.opponent_id = them;
            row.opponent_name_id = them_name;
            row.rating = mine;
            row.opponent_rating = theirs;
            row.score = flip(effective);
            row.recorded_score = flip(recorded);
            row.facts = GameFacts {
                accuracy: analysis.and_then(|a| a[colour.index()].0),
                blunders: analysis.and_then(|a| a[colour.index()].1),
                ..facts.clone()
            };
            each(&row);
        }
    }
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
