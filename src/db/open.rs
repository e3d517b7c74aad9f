//! Opening a database: pragmas (WAL, foreign keys), then the schema version in
//! `PRAGMA user_version`: a new file gets `schema.sql`, an older one is migrated step by step,
//! a newer one is refused with a clear message. Three openers, one policy each:
//! - `open`: creates and migrates (`import`);
//! - `open_existing`: migrates a file that exists, never creates one (every other writer);
//! - `open_read_only`: for every command that only reads: never creates, writes or migrates,
//!   reads versions `READABLE_FROM` to `SCHEMA_VERSION`, refuses newer ones, and works on
//!   read-only files, folders and media.

use rusqlite::{Connection, OpenFlags};
use std::fmt;
use std::path::{Path, PathBuf};

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = 13;

/// The oldest schema version the readers (export, stats, openings, ratings) read without a
/// migration: version 4 packs the moves as they expect. An older file is refused by
/// `open_read_only` with the command that upgrades it.
pub const READABLE_FROM: i64 = 4;

/// The page cache of a writing connection, in KiB (the memory bound is 200 MB).
pub const CACHE_KIB: i64 = 64 << 10;

/// The first migration is the whole schema; later ones are appended here, never edited.
const MIGRATIONS: &[&str] = &[
    include_str!("../../schema.sql"),
    include_str!("migrations/002_identity.sql"),
    include_str!("migrations/003_scale.sql"),
    include_str!("migrations/004_packed.sql"),
    include_str!("migrations/005_positions.sql"),
    include_str!("migrations/006_analysis_tiers.sql"),
    include_str!("migrations/007_position_games.sql"),
    include_str!("migrations/008_position_pawns.sql"),
    include_str!("migrations/009_position_material.sql"),
    include_str!("migrations/010_position_postings.sql"),
    include_str!("migrations/011_analysis_runs.sql"),
    include_str!("migrations/012_principal_variations.sql"),
    include_str!("migrations/013_position_summaries.sql"),
];

/// What a migration needs beyond SQL, run in its transaction after its SQL (by index).
type Upgrade = fn(&Connection) -> rusqlite::Result<()>;
const UPGRADES: &[Option<Upgrade>] = &[
    None,
    Some(super::upgrade::after_v2),
    None,
    None,
    None,
    None,
    None,
    None,
    None,
    None,
    Some(super::analyses::after_v11),
    None,
    None,
];

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
    /// `user_version` is negative: no arbiter wrote it.
    BadVersion {
        path: PathBuf,
        found: i64,
    },
    /// Tables but `user_version` 0: another program's database, or one whose version was
    /// reset; `writing`: the command would have added to it.
    NotArbiter {
        path: PathBuf,
        tables: i64,
        writing: bool,
    },
    /// Opened read-only, the database needs a migration this build would have to write.
    TooOld {
        path: PathBuf,
        found: i64,
    },
    /// Another `arbiter import` holds the database's import lock.
    Busy {
        path: PathBuf,
    },
    /// The file could not be read.
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The import lock file could not be created.
    LockFile {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Opened read-only, the file does not exist.
    Missing {
        path: PathBuf,
    },
    /// The path is not a SQLite database arbiter could use: a folder, an empty file, or a
    /// file of another kind (`what` says which, and what to do).
    NotADatabase {
        path: PathBuf,
        what: &'static str,
    },
    /// Applying migration `version` failed (the SQL itself is not repeated at the user).
    Migration {
        path: PathBuf,
        version: usize,
        source: rusqlite::Error,
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
            DbError::BadVersion { path, found } => write!(
                f,
                "{}: the database has schema version {found}, which no arbiter writes; refusing to use it",
                path.display()
            ),
            DbError::NotArbiter {
                path,
                tables,
                writing,
            } => write!(
                f,
                "{}: a SQLite database with {tables} tables but no arbiter schema version (user_version 0): another program's database, not an arbiter one{}",
                path.display(),
                if *writing {
                    "; refusing to add to it"
                } else {
                    ""
                }
            ),
            DbError::NotADatabase { path, what } => write!(f, "{}: {what}", path.display()),
            DbError::TooOld { path, found } => write!(
                f,
                "{}: the database has schema version {found}; this arbiter reads version {SCHEMA_VERSION}: open it once for writing to upgrade it in place (`arbiter duplicates --db {}` does, as does an import), or use the arbiter that wrote it",
                path.display(),
                path.display()
            ),
            DbError::Missing { path } => write!(
                f,
                "{}: no such database (`arbiter import FILES --db {}` makes one)",
                path.display(),
                path.display()
            ),
            DbError::LockFile { path, source } | DbError::Read { path, source } => {
                write!(f, "{}: {source}", path.display())
            }
            DbError::Busy { path } => write!(
                f,
                "{}: another arbiter import is writing to this database now; wait for it to finish, then run this import again (it resumes where that one stopped)",
                path.display()
            ),
            DbError::Migration {
                path,
                version,
                source,
            } => {
                let why = match source {
                    rusqlite::Error::SqliteFailure(_, Some(m)) => m.clone(),
                    rusqlite::Error::SqlInputError { msg, .. } => msg.clone(),
                    other => other.to_string(),
                };
                write!(
                    f,
                    "{}: upgrading to schema version {version} failed: {why}",
                    path.display()
                )
            }
        }
    }
}

impl std::error::Error for DbError {}

/// Opens an existing database for writing, migrating it to this build's schema: the opener
/// of every command that changes a database it did not create (`players --apply-aliases`,
/// `duplicates`, `ratings`' stored runs). A path with no file is an error, never a new
/// empty database. Indexes a killed bulk import left unbuilt are built first
/// (`db::bulk::restore`).
pub fn open_existing(path: &Path) -> Result<Connection, DbError> {
    match inspect(path)? {
        Found::Database => {
            let conn = open_as(path, true)?;
            super::bulk::restore(&conn).map_err(|source| DbError::Sqlite {
                path: path.to_owned(),
                source,
            })?;
            Ok(conn)
        }
        Found::Nothing => Err(DbError::Missing {
            path: path.to_owned(),
        }),
        Found::Empty => Err(not_a_database(path, EMPTY)),
    }
}

/// Opens (creating if needed) and migrates a database: `import`'s opener. An empty file
/// becomes a database; a folder or a file of another kind is refused.
pub fn open(path: &Path) -> Result<Connection, DbError> {
    inspect(path)?;
    open_as(path, true)
}

const EMPTY: &str = "an empty file, not a database: `arbiter import FILES --db PATH` makes one";

fn not_a_database(path: &Path, what: &'static str) -> DbError {
    DbError::NotADatabase {
        path: path.to_owned(),
        what,
    }
}

/// What is at a database's path before SQLite opens it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Found {
    Nothing,
    Empty,
    Database,
}

/// Looks at the path: nothing, an empty file, or a SQLite file; anything else (a folder, a
/// Parquet or PGN file, any other bytes) is refused with what it is, where SQLite would say
/// only "file is not a database" or turn it into one.
fn inspect(path: &Path) -> Result<Found, DbError> {
    use std::io::Read;
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(Found::Nothing);
    };
    if meta.is_dir() {
        return Err(not_a_database(
            path,
            "a folder, not a database file (a `check --output` folder holds Parquet files: read them with DuckDB or Spark; give --db the SQLite file an import wrote)",
        ));
    }
    if meta.len() == 0 {
        return Ok(Found::Empty);
    }
    let mut head = [0u8; 16];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .map_err(|source| DbError::Read {
            path: path.to_owned(),
            source,
        })?;
    let head = &head[..n];
    if head.starts_with(b"SQLite format 3\0") {
        return Ok(Found::Database);
    }
    let what = if head.starts_with(b"PAR1") {
        "a Parquet file, not a database: read it with DuckDB or pyarrow, or give --db the SQLite file an import wrote"
    } else if head.starts_with(&[0x1f, 0x8b])
        || head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd])
        || head.starts_with(b"BZh")
        || head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z'])
    {
        "a compressed file, not a database: if it holds PGN, `arbiter import FILE --db games.sqlite` stores its games"
    } else if head.trim_ascii_start().starts_with(b"[")
        || head.trim_ascii_start().starts_with(b"1.")
    {
        "a PGN file, not a database: `arbiter import FILE --db games.sqlite` stores its games"
    } else {
        "not a SQLite database (the file does not start with SQLite's header)"
    };
    Err(not_a_database(path, what))
}

fn open_as(path: &Path, writing: bool) -> Result<Connection, DbError> {
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
    // SQLite's page cache is 2 MB unless set: an import into a database of millions of games
    // then reads the index pages it touches from the file again and again.
    conn.pragma_update(None, "cache_size", -CACHE_KIB)
        .map_err(err)?;
    let version = checked_version(&conn, path, writing)?;
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
            return Err(DbError::Migration {
                path: path.to_owned(),
                version: i + 1,
                source: e,
            });
        }
        debug_assert_eq!(i as i64 + 1, SCHEMA_VERSION.min(i as i64 + 1));
    }
    conn.pragma_update(None, "foreign_keys", "ON")
        .map_err(err)?;
    Ok(conn)
}

/// The schema version of an open database, refused when no arbiter could have written it:
/// negative, newer than this build, or 0 on a file that already has tables.
fn checked_version(conn: &Connection, path: &Path, writing: bool) -> Result<i64, DbError> {
    let err = |source| DbError::Sqlite {
        path: path.to_owned(),
        source,
    };
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(err)?;
    let path = path.to_owned();
    if version < 0 {
        return Err(DbError::BadVersion {
            path,
            found: version,
        });
    }
    if version > SCHEMA_VERSION {
        return Err(DbError::TooNew {
            path,
            found: version,
        });
    }
    if version == 0 {
        let tables: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
                [],
                |r| r.get(0),
            )
            .map_err(err)?;
        if tables > 0 {
            return Err(DbError::NotArbiter {
                path,
                tables,
                writing,
            });
        }
    }
    Ok(version)
}

/// Opens a database for reading only: nothing is created, migrated or written, and no
/// `-wal`/`-shm` side file is left behind. Where this process cannot write the file or its
/// folder (read-only media, a shared archive) and no writer left a write-ahead log, the file
/// is opened `immutable`: SQLite then takes no locks and needs no side files, which is sound
/// because nobody can be writing a file that cannot be written. A log left by a writer is
/// read the ordinary way, so committed games in it are never missed.
pub fn open_read_only(path: &Path) -> Result<Connection, DbError> {
    let err = |source| DbError::Sqlite {
        path: path.to_owned(),
        source,
    };
    match inspect(path)? {
        Found::Database => {}
        Found::Nothing => {
            return Err(DbError::Missing {
                path: path.to_owned(),
            });
        }
        Found::Empty => return Err(not_a_database(path, EMPTY)),
    }
    let wal = side_file(path, "-wal");
    let log_left = std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0);
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = if !log_left && !writable(path) {
        Connection::open_with_flags(uri(path, "?immutable=1"), flags).map_err(err)?
    } else {
        Connection::open_with_flags(uri(path, ""), flags).map_err(err)?
    };
    conn.busy_timeout(std::time::Duration::from_secs(10))
        .map_err(err)?;
    let version = checked_version(&conn, path, false)?;
    if version == 0 {
        return Err(not_a_database(
            path,
            "a SQLite database without arbiter's tables: it holds no games (`arbiter import FILES --db PATH` stores some)",
        ));
    }
    if version < READABLE_FROM {
        return Err(DbError::TooOld {
            path: path.to_owned(),
            found: version,
        });
    }
    Ok(conn)
}

/// Held by an import for its whole life: a second import of the same database fails at once
/// with `DbError::Busy` instead of reading the first one's progress as an interrupted run's.
/// An exclusive `flock` on `PATH-import.lock`; the kernel drops it when the process ends, even
/// by `kill -9`, so a crash never leaves the database locked. The file is removed on drop.
pub struct ImportLock {
    file: std::fs::File,
    path: PathBuf,
}

impl Drop for ImportLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
        let _ = &self.file;
    }
}

/// Takes the import lock of the database at `db`.
pub fn lock_for_import(db: &Path) -> Result<ImportLock, DbError> {
    use std::os::unix::io::AsRawFd;
    let path = side_file(db, "-import.lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|source| DbError::LockFile {
            path: path.clone(),
            source,
        })?;
    const LOCK_EX: std::ffi::c_int = 2;
    const LOCK_NB: std::ffi::c_int = 4;
    // SAFETY: flock(2) on a descriptor this function owns; no memory is passed.
    if unsafe { libc_flock(file.as_raw_fd(), LOCK_EX | LOCK_NB) } != 0 {
        return Err(DbError::Busy {
            path: db.to_owned(),
        });
    }
    Ok(ImportLock { file, path })
}

unsafe extern "C" {
    #[link_name = "flock"]
    fn libc_flock(fd: std::ffi::c_int, operation: std::ffi::c_int) -> std::ffi::c_int;
}

/// `PATH-wal`, `PATH-shm`.
fn side_file(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Whether this process may write both the file and its folder (where SQLite puts side files).
fn writable(path: &Path) -> bool {
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    can_write(path) && can_write(folder)
}

fn can_write(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    // No write bit at all: the owner meant it read-only, even where root could write it.
    if std::fs::metadata(path).is_ok_and(|m| m.permissions().readonly()) {
        return false;
    }
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // access(2) asks the kernel, which knows read-only mounts, ACLs and root; the mode bits
    // alone know none of them.
    unsafe { libc_access(c.as_ptr(), 2) == 0 }
}

unsafe extern "C" {
    #[link_name = "access"]
    fn libc_access(path: *const std::ffi::c_char, mode: std::ffi::c_int) -> std::ffi::c_int;
}

/// A `file:` URI for `path`, with `%`, `?` and `#` escaped as SQLite's URI rules require.
fn uri(path: &Path, query: &str) -> String {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let mut out = String::from("file:");
    for c in abs.to_string_lossy().chars() {
        match c {
            '%' => out.push_str("%25"),
            '?' => out.push_str("%3f"),
            '#' => out.push_str("%23"),
            c => out.push(c),
        }
    }
    out.push_str(query);
    out
}

/// Lets SQLite read the file through a memory map: a position search reads the index's
/// blobs whole (26 MB of tail records at 1M games), which through read() calls cost more
/// than the search itself. The map covers the file's first `MAP_BYTES` (the rest is read
/// through the page cache as without a map), so that its resident pages, which count in the
/// process's memory, stay bounded (373 MB of a search of 1.e4 at 930,000 games with the
/// whole file mapped). Best effort: a build without mmap reads as before.
pub fn map_pages(conn: &Connection) {
    let _ = conn.pragma_update(None, "mmap_size", MAP_BYTES);
}

/// The most of a database file one connection maps.
pub const MAP_BYTES: i64 = 96 << 20;

/// Drops the pages a mapped connection holds (SQLite unmaps the file and maps it again,
/// between statements only): a read spread over much of the file (a scan that replays
/// games, the rows of thousands of hits) calls it every few thousand rows, so that the
/// process does not keep every page it touched resident (500 MB of a search at a million
/// games). A connection that is not mapped stays so.
pub fn remap_pages(conn: &Connection) {
    let size: i64 = conn
        .pragma_query_value(None, "mmap_size", |r| r.get(0))
        .unwrap_or(0);
    if size > 0 {
        let _ = conn.pragma_update(None, "mmap_size", 0);
        let _ = conn.pragma_update(None, "mmap_size", size);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_database_too_old_to_read_names_a_command_that_upgrades_it() {
        // The message once said to run `arbiter import` with no files, which the CLI refuses.
        let e = super::DbError::TooOld {
            path: std::path::PathBuf::from("old.sqlite"),
            found: 2,
        };
        let text = e.to_string();
        assert!(
            text.contains("`arbiter duplicates --db old.sqlite` does")
                && !text.contains("no files"),
            "{text}"
        );
    }

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

    #[test]
    fn a_version_10_analysis_becomes_the_one_read_and_a_version_10_file_still_reads() {
        // (and the own search's counts of labels it never gives become NULL)
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v10.sqlite");
        let conn = Connection::open(&path).unwrap();
        for (i, migration) in MIGRATIONS[..10].iter().enumerate() {
            conn.execute_batch(migration).unwrap();
            if let Some(Some(upgrade)) = UPGRADES.get(i) {
                upgrade(&conn).unwrap();
            }
        }
        conn.execute_batch(
            "INSERT INTO imports (id, path, head_hash, compression, started_at, settings)
               VALUES (1, 'a.pgn', x'00', 'none', 0, '{}');
             INSERT INTO games (id, import_id, game_number, byte_offset, line, variant,
               ply_count, moves) VALUES (7, 1, 1, 0, 1, 'standard', 1, x''),
               (8, 1, 2, 0, 9, 'standard', 0, x'');
             INSERT INTO analyses VALUES (7, 91.5, 80.25, 0, 1, 2, 3, 4, 5,
               '{\"uci_engine\":{\"name\":\"Stockfish 16\",\"nodes\":1000000}}', 3, 900, 2),
               (8, 50.0, 50.0, 0, 0, 1, 0, 0, 0,
               '{\"deep_nodes\":20000,\"own_tier_labels\":[false,false,true]}', 0, 0, 0);
             INSERT INTO evaluations VALUES (7, 0, 20, NULL, 9, 100, NULL, 0, 1),
               (7, 1, NULL, -2, 9, 100, NULL, 1, 1);",
        )
        .unwrap();
        drop(conn);
        // Read-only, a version-10 file is read as it is: nothing migrated.
        let ro = open_read_only(&path).unwrap();
        let old: (f64, String) = ro
            .query_row("SELECT white_accuracy, settings FROM analyses", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        assert_eq!(old.0, 91.5);
        drop(ro);
        let conn = open_existing(&path).unwrap();
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, SCHEMA_VERSION);
        let run: (i64, i64, f64, i64, String) = conn
            .query_row(
                "SELECT game_id, current, black_accuracy, black_blunders, settings FROM analysis_runs \
                 WHERE game_id = 7",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
            )
            .unwrap();
        assert_eq!((run.0, run.1, run.2, run.3), (7, 1, 80.25, 5));
        assert!(run.4.contains("Stockfish 16"));
        // The views give the columns version 10 had, with its values.
        let read: (i64, f64, i64, i64) = conn
            .query_row(
                "SELECT game_id, white_accuracy, white_blunders, positions FROM analyses \
                 WHERE game_id = 7",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .unwrap();
        assert_eq!(read, (7, 91.5, 2, 2));
        // arbiter's own search never gave inaccuracies or mistakes: unknown, not 0.
        let own: [Option<i64>; 5] = conn
            .query_row(
                "SELECT white_inaccuracies, white_mistakes, black_inaccuracies, black_mistakes, \
                 white_blunders FROM analyses WHERE game_id = 8",
                [],
                |r| Ok([r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?]),
            )
            .unwrap();
        assert_eq!(own, [None, None, None, None, Some(1)]);
        type Eval = (i64, i64, Option<i64>, Option<i64>, i64);
        let evals: Vec<Eval> = conn
            .prepare("SELECT game_id, ply, score_cp, mate, deep FROM evaluations ORDER BY ply")
            .unwrap()
            .query_map([], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(
            evals,
            [(7, 0, Some(20), None, 0), (7, 1, None, Some(-2), 1)]
        );
        // Version 12: an evaluation stored before it has no principal variation.
        let lines: i64 = conn
            .query_row(
                "SELECT count(*) FROM evaluations WHERE pv IS NULL",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(lines, 2);
    }
}
