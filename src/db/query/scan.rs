//! The one fast read of the selected games for the consumers that need a few numbers per game
//! (the leaderboard of `stats players`, every rating system): one scan of `games` returning
//! only integer columns and the two result texts, with the spelling → person map and the
//! duplicate records (non-survivors) loaded once beside it instead of joined per row. The WHERE
//! clause and FROM list are the selection's (`Selection`), so the same flags select the same
//! games; SQLite drops the LEFT JOINs nothing reads, so an unfiltered scan reads `games`
//! alone, in rowid (game id) order.

use super::{Filter, Selection, schema_version};
pub use crate::laws::result::WhiteResult;
use rusqlite::{Connection, params_from_iter};

/// One selected game, in the few columns the board and the ratings read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameRow {
    pub id: i64,
    /// The persons (players.id) behind the White and Black spellings; None when the side has
    /// no name or its spelling no person.
    pub white: Option<i64>,
    pub black: Option<i64>,
    /// The recorded Result tag, and the result the Laws decide (None: left to the players).
    pub recorded: Option<WhiteResult>,
    /// `lawful_result` is NULL: the effective result is the recorded one.
    pub lawful_unset: bool,
    pub lawful: Option<WhiteResult>,
    pub year: Option<i64>,
    pub month: Option<i64>,
    pub day: Option<i64>,
    pub white_elo: Option<i64>,
    pub black_elo: Option<i64>,
    pub event_id: Option<i64>,
    pub ply_count: i64,
    /// A duplicate group's member that is not its survivor.
    pub duplicate: bool,
}

impl GameRow {
    /// The Laws' result where they decide, else the recorded one (`COALESCE(lawful_result,
    /// result)` of the view).
    pub fn effective(&self) -> Option<WhiteResult> {
        if self.lawful_unset {
            self.recorded
        } else {
            self.lawful
        }
    }
}

/// Spelling id → person id, dense when the ids are (they are `INTEGER PRIMARY KEY`s filled
/// from 1), a sorted list otherwise.
enum PersonOf {
    Dense(Vec<Option<i64>>),
    Sorted(Vec<(i64, i64)>),
}

impl PersonOf {
    fn load(conn: &Connection) -> rusqlite::Result<PersonOf> {
        let mut stmt = conn.prepare("SELECT id, person_id FROM player_names")?;
        let mut pairs: Vec<(i64, i64)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get::<_, Option<i64>>(1)?)))?
            .filter_map(|r| match r {
                Ok((id, Some(p))) => Some(Ok((id, p))),
                Ok((_, None)) => None,
                Err(e) => Some(Err(e)),
            })
            .collect::<rusqlite::Result<_>>()?;
        let max = pairs.iter().map(|p| p.0).max().unwrap_or(0);
        let min = pairs.iter().map(|p| p.0).min().unwrap_or(0);
        if min >= 0 && (max as u64) <= 4 * pairs.len() as u64 + 1024 {
            let mut dense = vec![None; max as usize + 1];
            for (id, p) in pairs {
                dense[id as usize] = Some(p);
            }
            Ok(PersonOf::Dense(dense))
        } else {
            pairs.sort_unstable();
            Ok(PersonOf::Sorted(pairs))
        }
    }

    fn get(&self, spelling: Option<i64>) -> Option<i64> {
        let s = spelling?;
        match self {
            PersonOf::Dense(v) => usize::try_from(s).ok().and_then(|i| v.get(i).copied()?),
            PersonOf::Sorted(v) => v.binary_search_by_key(&s, |p| p.0).ok().map(|i| v[i].1),
        }
    }
}

/// The ids of the duplicate records that are not their group's survivor, sorted.
fn non_survivors(conn: &Connection, version: i64) -> rusqlite::Result<Vec<i64>> {
    if version < 2 {
        return Ok(Vec::new());
    }
    let mut stmt = conn.prepare("SELECT game_id FROM duplicate_members WHERE survivor = 0")?;
    let mut ids: Vec<i64> = stmt
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    ids.sort_unstable();
    Ok(ids)
}

/// The order the games come in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Game id: the stored order, a plain scan of `games`.
    Id,
    /// Date (year, month, day, unknown parts first as SQLite orders NULL), then game id: the
    /// order of `stats::read`, so sums over a person's games add up in the same order.
    Date,
}

/// The SELECT of the scan: the selection's FROM and WHERE, `extra` ANDed to the filter.
fn scan_sql(from: &str, clause: &str, extra: &str, order: Order) -> String {
    let order = match order {
        Order::Id => "g.id",
        Order::Date => "g.year, g.month, g.day, g.id",
    };
    format!(
        "SELECT g.id, g.white_id, g.black_id, g.result, g.lawful_result, g.year, g.month, g.day, \
         g.white_elo, g.black_elo, g.event_id, g.ply_count FROM {from} WHERE ({clause}){extra} \
         ORDER BY {order}"
    )
}

/// Calls `each` with every game the filter selects (`filter.unique` is the caller's to apply:
/// every row says whether it is a duplicate record), in `order`; `white_named`: only games
/// with a White name (the rows of the `player_games` view's White side). Returns the number of
/// games read.
pub fn for_each_game(
    conn: &Connection,
    filter: &Filter,
    white_named: bool,
    order: Order,
    mut each: impl FnMut(&GameRow),
) -> rusqlite::Result<u64> {
    let version = schema_version(conn)?;
    let selection = Selection::for_version(version, filter.clone());
    let (from, clause, values) = selection.sql();
    let person = PersonOf::load(conn)?;
    let duplicates = non_survivors(conn, version)?;
    let extra = if white_named {
        " AND g.white_id IS NOT NULL"
    } else {
        ""
    };
    let mut stmt = conn.prepare(&scan_sql(from, clause, extra, order))?;
    let mut rows = stmt.query(params_from_iter(values))?;
    let mut games = 0;
    while let Some(r) = rows.next()? {
        games += 1;
        let id: i64 = r.get(0)?;
        let result = |i: usize| -> rusqlite::Result<(bool, Option<WhiteResult>)> {
            Ok(match r.get_ref(i)?.as_bytes_or_null()? {
                None => (true, None),
                Some(t) => (false, WhiteResult::parse(t)),
            })
        };
        let (_, recorded) = result(3)?;
        let (lawful_unset, lawful) = result(4)?;
        let row = GameRow {
            id,
            white: person.get(r.get(1)?),
            black: person.get(r.get(2)?),
            recorded,
            lawful_unset,
            lawful,
            year: r.get(5)?,
            month: r.get(6)?,
            day: r.get(7)?,
            white_elo: r.get(8)?,
            black_elo: r.get(9)?,
            event_id: r.get(10)?,
            ply_count: r.get(11)?,
            duplicate: duplicates.binary_search(&id).is_ok(),
        };
        each(&row);
    }
    Ok(games)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_parse_as_the_view_reads_them() {
        assert_eq!(WhiteResult::parse(b"1-0"), Some(WhiteResult::WhiteWins));
        assert_eq!(WhiteResult::parse(b"1/2-1/2"), Some(WhiteResult::Draw));
        assert_eq!(WhiteResult::parse(b"0-1"), Some(WhiteResult::BlackWins));
        assert_eq!(WhiteResult::parse(b"*"), None);
        // The one result parser's spellings: a draw as `½-½`, space around a token.
        assert_eq!(
            WhiteResult::parse("½-½".as_bytes()),
            Some(WhiteResult::Draw)
        );
        assert_eq!(WhiteResult::parse(b"1-0 "), Some(WhiteResult::WhiteWins));
        assert_eq!(WhiteResult::parse(b"1-1"), None);
        assert_eq!(WhiteResult::Draw.white_score(), 0.5);
    }

    #[test]
    fn the_effective_result_is_the_lawful_one_when_set() {
        let mut g = GameRow {
            id: 1,
            white: Some(1),
            black: Some(2),
            recorded: Some(WhiteResult::WhiteWins),
            lawful_unset: true,
            lawful: None,
            year: None,
            month: None,
            day: None,
            white_elo: None,
            black_elo: None,
            event_id: None,
            ply_count: 0,
            duplicate: false,
        };
        assert_eq!(g.effective(), Some(WhiteResult::WhiteWins));
        g.lawful_unset = false;
        g.lawful = Some(WhiteResult::Draw);
        assert_eq!(g.effective(), Some(WhiteResult::Draw));
        // A lawful result that is not a score (`*`) is no result, as COALESCE keeps it.
        g.lawful = None;
        assert_eq!(g.effective(), None);
    }
}
