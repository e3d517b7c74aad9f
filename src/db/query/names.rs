//! The names behind a game's ids (spelling and person, event, import file, opening), looked
//! up once per id and kept, instead of joined into every row: a million games name a few
//! thousand players, events and files, and the seven joins per row were the largest part of
//! the games cursor's time (docs/PERFORMANCE.md). Schema version 3 on.

use super::QueryError;
use rusqlite::{CachedStatement, Connection, OptionalExtension};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Entries a table keeps before it starts again: bounds memory on a database with millions
/// of spellings while keeping the hit rate of the usual thousands.
const MAX_ENTRIES: usize = 1 << 18;

/// Hashes an id by one multiplication (Fibonacci hashing): ids are trusted integers, so
/// the default SipHash's protection against chosen keys only costs time here.
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn write_i64(&mut self, n: i64) {
        self.0 = (n as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// One table's rows by id, read on first use.
struct Table<'c, V> {
    statement: CachedStatement<'c>,
    rows: HashMap<i64, Option<V>, BuildHasherDefault<IdHasher>>,
}

impl<'c, V: Clone> Table<'c, V> {
    fn new(conn: &'c Connection, sql: &str) -> Result<Table<'c, V>, QueryError> {
        Ok(Table {
            statement: conn.prepare_cached(sql)?,
            rows: HashMap::default(),
        })
    }

    fn get(
        &mut self,
        id: Option<i64>,
        read: impl FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<V>,
    ) -> Result<Option<&V>, QueryError> {
        let Some(id) = id else { return Ok(None) };
        if !self.rows.contains_key(&id) {
            if self.rows.len() >= MAX_ENTRIES {
                self.rows.clear();
            }
            let row = self.statement.query_row([id], read).optional()?;
            self.rows.insert(id, row);
        }
        Ok(self.rows.get(&id).and_then(Option::as_ref))
    }
}

/// A spelling: the name as written and its person's id.
#[derive(Clone)]
pub struct Spelling {
    pub name: String,
    pub person_id: i64,
}

/// An opening's full name and family.
#[derive(Clone)]
pub struct Opening {
    pub name: String,
    pub family: String,
}

/// The lookups of one export.
pub struct Names<'c> {
    spellings: Table<'c, Spelling>,
    persons: Table<'c, String>,
    events: Table<'c, String>,
    imports: Table<'c, String>,
    openings: Table<'c, Opening>,
}

impl<'c> Names<'c> {
    pub fn new(conn: &'c Connection) -> Result<Names<'c>, QueryError> {
        Ok(Names {
            spellings: Table::new(
                conn,
                "SELECT name, person_id FROM player_names WHERE id = ?1",
            )?,
            persons: Table::new(conn, "SELECT name FROM players WHERE id = ?1")?,
            events: Table::new(conn, "SELECT name FROM events WHERE id = ?1")?,
            imports: Table::new(conn, "SELECT path FROM imports WHERE id = ?1")?,
            openings: Table::new(conn, "SELECT name, family FROM openings WHERE id = ?1")?,
        })
    }

    pub fn spelling(&mut self, id: Option<i64>) -> Result<Option<&Spelling>, QueryError> {
        self.spellings.get(id, |r| {
            Ok(Spelling {
                name: r.get(0)?,
                person_id: r.get(1)?,
            })
        })
    }

    /// The person's canonical name.
    pub fn person(&mut self, id: Option<i64>) -> Result<Option<&String>, QueryError> {
        self.persons.get(id, |r| r.get(0))
    }

    pub fn event(&mut self, id: Option<i64>) -> Result<Option<&String>, QueryError> {
        self.events.get(id, |r| r.get(0))
    }

    /// The imported file's path.
    pub fn import(&mut self, id: Option<i64>) -> Result<Option<&String>, QueryError> {
        self.imports.get(id, |r| r.get(0))
    }

    pub fn opening(&mut self, id: Option<i64>) -> Result<Option<&Opening>, QueryError> {
        self.openings.get(id, |r| {
            Ok(Opening {
                name: r.get(0)?,
                family: r.get(1)?,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_resolve_once_and_missing_rows_are_none() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE player_names (id INTEGER PRIMARY KEY, name, person_id);
             CREATE TABLE players (id INTEGER PRIMARY KEY, name);
             CREATE TABLE events (id INTEGER PRIMARY KEY, name);
             CREATE TABLE imports (id INTEGER PRIMARY KEY, path);
             CREATE TABLE openings (id INTEGER PRIMARY KEY, name, family);
             INSERT INTO player_names VALUES (3, 'Tal, M.', 7);
             INSERT INTO players VALUES (7, 'Tal, Mikhail');
             INSERT INTO events VALUES (1, 'Riga');
             INSERT INTO openings VALUES (2, 'Sicilian Defense: Najdorf', 'Sicilian Defense');",
        )
        .unwrap();
        let mut names = Names::new(&conn).unwrap();
        let s = names.spelling(Some(3)).unwrap().unwrap().clone();
        assert_eq!((s.name.as_str(), s.person_id), ("Tal, M.", 7));
        assert_eq!(
            names.person(Some(s.person_id)).unwrap().unwrap(),
            "Tal, Mikhail"
        );
        assert_eq!(names.event(Some(1)).unwrap().unwrap(), "Riga");
        assert!(names.event(Some(2)).unwrap().is_none());
        assert!(names.event(None).unwrap().is_none());
        assert!(names.import(Some(1)).unwrap().is_none());
        let o = names.opening(Some(2)).unwrap().unwrap();
        assert_eq!(o.family, "Sicilian Defense");
        // Kept: a change to the table after the first look-up is not seen again.
        conn.execute("UPDATE events SET name = 'Tallinn'", [])
            .unwrap();
        assert_eq!(names.event(Some(1)).unwrap().unwrap(), "Riga");
    }
}
