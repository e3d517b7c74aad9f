//! Opening a database: pragmas (WAL, foreign keys), then the schema version in
//! `PRAGMA user_version`: a new file gets `schema.sql`, an older one is migrated step by step,
//! a newer one is refused with a clear message.

use rusqlite::Connection;
use std::fmt;
use std::path::{Path, PathBuf};

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = 2;

/// The first migration is the whole schema; later ones are appended here, never edited.
const MIGRATIONS: &[&str] = &[
    include_str!("../../schema.sql"),
    include_str!("migrations/002_identity.sql"),
];

/// What a migration needs beyond SQL, run in its transaction after its SQL (by index).
type Upgrade = fn(&Connection) -> rusqlite::Result<()>;
const UPGRADES: &[Option<Upgrade>] = &[None, Some(super::upgrade::after_v2)];

#[derive(Debug)]
pub enum DbError {
    Sqlite {
        path: PathBuf,
        source: rusqlite::Error,
    },
    TooNew {
        path: PathBuf,
        found: i64,
    },
}

impl fmt::Display for DbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DbError::Sqlite { path, source } => write!(f, "{}: {source}", path.display()),
            DbError::TooNew { path, found } => write!(
                f,
                "{}: the database has schema version {found}, written by a newer arbiter; this one knows up to version {SCHEMA_VERSION}",
                path.display()
            ),
        }
    }
}

impl std::error::Error for DbError {}

/// Opens (creating if needed) and migrates a database.
pub fn open(path: &Path) -> Result<Connection, DbError> {
    let err = |source| DbError::Sqlite {
        path: path.to_owned(),
        source,
    };
    let conn = Connection::open(path).map_err(err)?;
    conn.pragma_update(None, "journal_mode", "WAL")
        .map_err(err)?;
    conn.pragma_update(None, "synchronous", "NORMAL")
        .map_err(err)?;
    conn.pragma_update(None, "foreign_keys", "ON")
        .map_err(err)?;
    conn.busy_timeout(std::time::Duration::from_secs(10))
        .map_err(err)?;
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(err)?;
    if version > SCHEMA_VERSION {
        return Err(DbError::TooNew {
            path: path.to_owned(),
            found: version,
        });
    }
    // Rebuilding a table (v2 renames `players`) needs foreign keys off; they are checked
    // before each commit instead, and turned back on after.
    conn.pragma_update(None, "foreign_keys", "OFF")
        .map_err(err)?;
    for (i, migration) in MIGRATIONS.iter().enumerate().skip(version as usize) {
        // Each migration sets user_version itself, inside its transaction.
        let sql = format!("BEGIN;\n{migration}");
        let run = || -> rusqlite::Result<()> {
            conn.execute_batch(&sql)?;
            if let Some(Some(upgrade)) = UPGRADES.get(i) {
                upgrade(&conn)?;
            }
            let broken: i64 =
                conn.query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| {
                    r.get(0)
                })?;
            if broken > 0 {
                return Err(rusqlite::Error::SqliteFailure(
                    rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CONSTRAINT_FOREIGNKEY),
                    Some(format!(
                        "migration to version {} would break {broken} foreign keys",
                        i + 1
                    )),
                ));
            }
            conn.execute_batch("COMMIT")
        };
        if let Err(e) = run() {
            let _ = conn.execute_batch("ROLLBACK");
            return Err(err(e));
        }
        debug_assert_eq!(i as i64 + 1, SCHEMA_VERSION.min(i as i64 + 1));
    }
    conn.pragma_update(None, "foreign_keys", "ON")
        .map_err(err)?;
    Ok(conn)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_then_reopens_and_refuses_newer() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.sqlite");
        let conn = open(&path).unwrap();
        let v: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v, SCHEMA_VERSION);
        let fk: i64 = conn
            .query_row("PRAGMA foreign_keys", [], |r| r.get(0))
            .unwrap();
        assert_eq!(fk, 1);
        drop(conn);
        // Reopening applies nothing twice.
        let conn = open(&path).unwrap();
        conn.pragma_update(None, "user_version", 99).unwrap();
        drop(conn);
        let e = open(&path).unwrap_err();
        assert!(matches!(e, DbError::TooNew { found: 99, .. }), "{e}");
        assert!(e.to_string().contains("newer arbiter"));
    }
}
