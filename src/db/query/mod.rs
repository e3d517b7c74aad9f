//! The one read path: every question a command asks of stored games goes through here, so
//! the SELECTs live in one place. A [`Selection`] is compiled once from a [`Filter`] (the
//! schema version read once, the WHERE clause built once, the selected ids read whole when
//! that is cheaper than asking about each candidate) and then answers for the games it
//! selects; `positions` searches them (the planner of docs/POSITIONS.md). No SQL text
//! leaves this module.

pub mod analysis_summary;
pub mod games;
pub mod laws;
mod names;
pub mod positions;
pub mod rows;
pub mod scan;
pub mod select;
mod side;

pub use select::{Filter, SelectError};

use rusqlite::types::Value;
use rusqlite::{Connection, params_from_iter};
use std::cell::OnceCell;
use std::collections::HashSet;
use std::fmt;

/// Why a read stopped.
#[derive(Debug)]
pub enum QueryError {
    Sqlite(rusqlite::Error),
    /// A stored game that does not read back (its id, and why).
    Game {
        id: i64,
        message: String,
    },
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueryError::Sqlite(e) => write!(f, "database: {e}"),
            QueryError::Game { id, message } => write!(f, "game {id}: {message}"),
        }
    }
}

impl std::error::Error for QueryError {}

impl From<rusqlite::Error> for QueryError {
    fn from(e: rusqlite::Error) -> QueryError {
        QueryError::Sqlite(e)
    }
}

/// The database's schema version (`PRAGMA user_version`): what the selection's SQL is
/// written for.
pub fn schema_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("PRAGMA user_version", [], |r| r.get(0))
}

/// Candidates at most this many are looked up by id however large the selection.
const LOOKUP_UP_TO: usize = 1000;
/// Beyond `LOOKUP_UP_TO`, the whole selection is read once there are more than one
/// candidate per this many games (by the largest id).
const WHOLE_PER_GAMES: i64 = 16;
/// Ids in one `IN (…)` look-up.
const LOOKUP_CHUNK: usize = 500;

/// How [`Selection::keep`] asks which candidates are selected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// No filter: every candidate is.
    Every,
    /// Against the selection's ids, read whole once (and kept for the next question).
    Whole,
    /// By id, in chunks: an SQL pass over every game cost 0.3 s at 1M games, a look-up by
    /// id some microseconds.
    ById,
}

/// A filter compiled for one database: the schema version, the WHERE clause and its values,
/// and, once asked for, the selected ids. The filter's names are resolved before
/// (`Filter::resolve_names`, which the command line does once).
#[derive(Debug)]
pub struct Selection {
    filter: Filter,
    version: i64,
    /// The WHERE clause without the keyword; `1` when the filter selects every game.
    clause: String,
    values: Vec<Value>,
    ids: OnceCell<HashSet<i64>>,
    max_id: OnceCell<i64>,
}

impl Selection {
    pub fn compile(conn: &Connection, filter: &Filter) -> Result<Selection, QueryError> {
        Ok(Selection::for_version(
            schema_version(conn)?,
            filter.clone(),
        ))
    }

    fn for_version(version: i64, filter: Filter) -> Selection {
        let (clause, values) = filter.to_sql(version);
        Selection {
            filter,
            version,
            clause,
            values,
            ids: OnceCell::new(),
            max_id: OnceCell::new(),
        }
    }

    /// The games of this selection that are also among `ids` (a position search's matches).
    pub fn narrowed(&self, ids: Vec<i64>) -> Selection {
        let filter = Filter {
            ids: Some(ids),
            ..self.filter.clone()
        };
        Selection::for_version(self.version, filter)
    }

    /// The schema version the selection was compiled for.
    pub fn version(&self) -> i64 {
        self.version
    }

    /// Whether the filter selects every game.
    pub fn is_everything(&self) -> bool {
        self.clause == "1"
    }

    /// The FROM list and WHERE clause with its values, for the statements of `db`.
    pub(in crate::db) fn sql(&self) -> (&'static str, &str, &[Value]) {
        (select::games_from(self.version), &self.clause, &self.values)
    }

    /// How many games it selects.
    pub fn count(&self, conn: &Connection) -> Result<u64, QueryError> {
        let (from, clause, values) = self.sql();
        let sql = format!("SELECT count(*) FROM {from} WHERE {clause}");
        Ok(conn.query_row(&sql, params_from_iter(values), |r| r.get::<_, i64>(0))? as u64)
    }

    /// The selected ids, read once; None when the filter selects every game.
    pub fn ids(&self, conn: &Connection) -> Result<Option<&HashSet<i64>>, QueryError> {
        if self.is_everything() {
            return Ok(None);
        }
        if let Some(ids) = self.ids.get() {
            return Ok(Some(ids));
        }
        let (from, clause, values) = self.sql();
        let sql = format!("SELECT g.id FROM {from} WHERE {clause}");
        let mut stmt = conn.prepare(&sql)?;
        let ids = stmt
            .query_map(params_from_iter(values), |r| r.get::<_, i64>(0))?
            .collect::<rusqlite::Result<HashSet<i64>>>()?;
        Ok(Some(self.ids.get_or_init(|| ids)))
    }

    /// The largest game id of the database (0 when it has none), read once.
    fn max_id(&self, conn: &Connection) -> Result<i64, QueryError> {
        if let Some(&n) = self.max_id.get() {
            return Ok(n);
        }
        let n = conn
            .query_row("SELECT max(id) FROM games", [], |r| {
                r.get::<_, Option<i64>>(0)
            })?
            .unwrap_or(0);
        Ok(*self.max_id.get_or_init(|| n))
    }

    /// How `keep` would ask about `candidates` ids.
    pub fn plan(&self, conn: &Connection, candidates: usize) -> Result<Keep, QueryError> {
        if self.is_everything() {
            return Ok(Keep::Every);
        }
        if self.ids.get().is_some() {
            return Ok(Keep::Whole);
        }
        Ok(keep_plan(candidates, self.max_id(conn)?))
    }

    /// Keeps the candidates (ascending, no repeats) the selection selects, asking as `plan`
    /// says; returns the plan used.
    pub fn keep(&self, conn: &Connection, ids: &mut Vec<i64>) -> Result<Keep, QueryError> {
        if ids.is_empty() && !self.is_everything() {
            return Ok(Keep::ById);
        }
        let plan = self.plan(conn, ids.len())?;
        match plan {
            Keep::Every => {}
            Keep::Whole => {
                if let Some(set) = self.ids(conn)? {
                    ids.retain(|id| set.contains(id));
                }
            }
            Keep::ById => {
                let (from, clause, values) = self.sql();
                let mut kept = Vec::with_capacity(ids.len());
                for chunk in ids.chunks(LOOKUP_CHUNK) {
                    let marks = vec!["?"; chunk.len()].join(",");
                    let sql = format!(
                        "SELECT g.id FROM {from} WHERE ({clause}) AND g.id IN ({marks}) \
                         ORDER BY g.id"
                    );
                    let mut stmt = conn.prepare_cached(&sql)?;
                    let mut all = values.to_vec();
                    all.extend(chunk.iter().map(|&id| Value::Integer(id)));
                    for id in stmt.query_map(params_from_iter(all), |r| r.get::<_, i64>(0))? {
                        kept.push(id?);
                    }
                }
                kept.sort_unstable();
                kept.dedup();
                *ids = kept;
            }
        }
        Ok(plan)
    }
}

/// The plan for `candidates` ids in a database whose largest id is `max_id`, when the
/// selection's ids are not read yet: few are looked up by id; many, against a database
/// not much larger, make reading the whole selection cheaper.
fn keep_plan(candidates: usize, max_id: i64) -> Keep {
    if candidates > LOOKUP_UP_TO && candidates as i64 * WHOLE_PER_GAMES > max_id {
        Keep::Whole
    } else {
        Keep::ById
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database of the current schema holding games 1..=n, game k with k plies.
    fn database(n: i64) -> (tempfile::TempDir, Connection) {
        let dir = tempfile::tempdir().unwrap();
        let conn = crate::db::open(&dir.path().join("t.db")).unwrap();
        conn.execute_batch(
            "INSERT INTO imports (id, path, head_hash, compression, started_at, settings) \
             VALUES (1, 't.pgn', x'', 'none', '', '')",
        )
        .unwrap();
        let tx = conn.unchecked_transaction().unwrap();
        {
            let mut insert = tx
                .prepare(
                    "INSERT INTO games (id, import_id, game_number, byte_offset, line, variant, \
                     ply_count, moves) VALUES (?1, 1, ?1, 0, 1, 'standard', ?1, x'')",
                )
                .unwrap();
            for k in 1..=n {
                insert.execute([k]).unwrap();
            }
        }
        tx.commit().unwrap();
        (dir, conn)
    }

    fn at_least(plies: i64) -> Filter {
        Filter {
            min_plies: Some(plies),
            ..Filter::default()
        }
    }

    #[test]
    fn few_candidates_are_looked_up_by_id_many_against_the_whole_selection() {
        assert_eq!(keep_plan(10, 1_000_000), Keep::ById);
        assert_eq!(keep_plan(1000, 1000), Keep::ById, "at most 1000: by id");
        assert_eq!(keep_plan(1001, 16_000), Keep::Whole);
        assert_eq!(
            keep_plan(1001, 16_016),
            Keep::ById,
            "one per 16 games: by id"
        );
        assert_eq!(keep_plan(100_000, 1_000_000), Keep::Whole);
    }

    #[test]
    fn each_plan_keeps_the_same_games_of_a_real_database() {
        let (_dir, conn) = database(3000);
        let every = Selection::compile(&conn, &Filter::default()).unwrap();
        let mut ids: Vec<i64> = (1..=3000).collect();
        assert_eq!(every.keep(&conn, &mut ids).unwrap(), Keep::Every);
        assert_eq!(ids.len(), 3000);
        assert_eq!(every.ids(&conn).unwrap(), None);

        // 600 candidates in 3000 games: by id, in two chunks.
        let long = Selection::compile(&conn, &at_least(2500)).unwrap();
        assert_eq!(long.count(&conn).unwrap(), 501);
        let mut few: Vec<i64> = (2001..=2600).collect();
        assert_eq!(long.keep(&conn, &mut few).unwrap(), Keep::ById);
        assert_eq!(few, (2500..=2600).collect::<Vec<_>>());

        // 2000 candidates: one per 1.5 games, the whole selection is read, then kept.
        let mut many: Vec<i64> = (1001..=3000).collect();
        assert_eq!(long.plan(&conn, many.len()).unwrap(), Keep::Whole);
        assert_eq!(long.keep(&conn, &mut many).unwrap(), Keep::Whole);
        assert_eq!(many, (2500..=3000).collect::<Vec<_>>());
        // Read once, the selection answers the next few candidates too.
        let mut again: Vec<i64> = vec![1, 2499, 2500];
        assert_eq!(long.keep(&conn, &mut again).unwrap(), Keep::Whole);
        assert_eq!(again, [2500]);

        let mut none = Vec::new();
        let short = Selection::compile(&conn, &at_least(4000)).unwrap();
        assert_eq!(short.keep(&conn, &mut none).unwrap(), Keep::ById);
        assert!(short.ids(&conn).unwrap().is_some_and(HashSet::is_empty));
    }
}
