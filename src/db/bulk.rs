//! The bulk load of an import into a new or a much smaller database: the secondary indexes
//! of the tables an import fills are dropped before the games go in and made again after
//! them, each by one sorted pass (SQLite sorts the column and writes the index's pages in
//! order) instead of one b-tree insertion a game; the position index's key rows are then
//! rewritten in key order (`positions::compact`).
//!
//! No state is kept beyond the schema itself: a deferred index that is missing is an index
//! still to build. A killed bulk import leaves some missing; the next import (which goes on
//! in bulk or restores them first) or the next writing opener (`open_existing`) makes them,
//! each in a statement of its own, so a kill during the build loses only the index being
//! made. Readers do not need them to answer, only to answer fast.

use super::SourceIdentity;
use rusqlite::{Connection, OptionalExtension, params};

/// The indexes a bulk load defers: `(name, definition)`, exactly as the schema makes them
/// (`schema.sql` and the migrations after it; a test holds the two equal).
pub const DEFERRED: &[(&str, &str)] = &[
    ("games_white", "CREATE INDEX games_white ON games(white_id)"),
    ("games_black", "CREATE INDEX games_black ON games(black_id)"),
    ("games_event", "CREATE INDEX games_event ON games(event_id)"),
    (
        "games_date",
        "CREATE INDEX games_date ON games(year, month, day)",
    ),
    (
        "findings_game",
        "CREATE INDEX findings_game ON findings(game_id)",
    ),
    (
        "findings_code",
        "CREATE INDEX findings_code ON findings(code, severity)",
    ),
];

/// Bytes of input a game takes, roughly (the master games: 31 MB for 45,687 games, 680 a
/// game; a compressed file counts its compressed bytes, so it is taken for fewer games).
pub const BYTES_A_GAME: u64 = 600;

/// Whether an import of `input_bytes` of PGN not yet in the database (`bytes_left`) into a
/// database of `stored` games is a bulk load: into a new database always; else when the
/// input holds at least as many games as the database (roughly: by its size), so that the
/// import at least doubles it and building the indexes over all the games once costs less
/// than keeping them up to date game by game. A file imported again counts none: its games
/// are found present one by one, and rebuilding six indexes over them would gain nothing.
pub fn wanted(stored: u64, input_bytes: u64) -> bool {
    stored == 0 || input_bytes / BYTES_A_GAME >= stored
}

/// Bytes of a source its import has still to read, by the `imports` row of the same
/// identity (path, size, modification time, head): none when that import went to the end;
/// what follows its last committed game when it was interrupted (a plain file: a
/// compressed one's offsets are in decompressed bytes, so all of it counts); all of it when
/// the database never saw it.
pub fn bytes_left(conn: &Connection, source: &SourceIdentity) -> rusqlite::Result<u64> {
    let size = source.size.unwrap_or(0);
    let found = conn
        .prepare_cached(include_str!("sql/find_import.sql"))?
        .query_row(
            params![
                source.path,
                source.size.map(|s| s as i64),
                source.mtime,
                &source.head_hash[..]
            ],
            |r| {
                Ok((
                    r.get::<_, i64>(1)?,
                    r.get::<_, Option<String>>(3)?.is_some(),
                ))
            },
        )
        .optional()?;
    Ok(match found {
        Some((_, true)) => 0,
        Some((last_byte, false)) if source.compression == "none" => {
            size.saturating_sub(last_byte.max(0) as u64)
        }
        _ => size,
    })
}

/// The deferred indexes the database lacks, in `DEFERRED`'s order.
pub fn missing(conn: &Connection) -> rusqlite::Result<Vec<&'static str>> {
    let mut stmt = conn
        .prepare_cached("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = ?1")?;
    let mut out = Vec::new();
    for &(name, _) in DEFERRED {
        if stmt.query_row([name], |r| r.get::<_, i64>(0))? == 0 {
            out.push(name);
        }
    }
    Ok(out)
}

/// Drops the deferred indexes (those there are), in one transaction: the start of a bulk
/// load.
pub fn begin(conn: &Connection) -> rusqlite::Result<()> {
    let present: Vec<&str> = {
        let missing = missing(conn)?;
        DEFERRED
            .iter()
            .map(|&(name, _)| name)
            .filter(|n| !missing.contains(n))
            .collect()
    };
    if present.is_empty() {
        return Ok(());
    }
    let mut sql = String::from("BEGIN IMMEDIATE;");
    for name in present {
        sql.push_str(&format!("DROP INDEX IF EXISTS {name};"));
    }
    sql.push_str("COMMIT;");
    conn.execute_batch(&sql).inspect_err(|_| {
        let _ = conn.execute_batch("ROLLBACK");
    })
}

/// Makes every deferred index the database lacks, each in a transaction of its own (a kill
/// keeps those made). Returns how many it made.
pub fn restore(conn: &Connection) -> rusqlite::Result<usize> {
    let missing = missing(conn)?;
    for &(name, sql) in DEFERRED {
        if missing.contains(&name) {
            conn.execute_batch(sql)?;
        }
    }
    Ok(missing.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_deferred_indexes_are_the_schemas_own_and_come_back_after_a_bulk_begin() {
        let dir = tempfile::tempdir().unwrap();
        let conn = crate::db::open(&dir.path().join("a.sqlite")).unwrap();
        for &(name, sql) in DEFERRED {
            let stored: String = conn
                .query_row(
                    "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?1",
                    [name],
                    |r| r.get(0),
                )
                .unwrap();
            assert_eq!(stored, sql, "{name}");
        }
        assert!(missing(&conn).unwrap().is_empty());
        begin(&conn).unwrap();
        let all: Vec<&str> = DEFERRED.iter().map(|d| d.0).collect();
        assert_eq!(missing(&conn).unwrap(), all);
        // A second begin (a resumed bulk load) finds nothing to drop.
        begin(&conn).unwrap();
        // A kill between two of the builds: the next restore makes the rest.
        conn.execute_batch(DEFERRED[0].1).unwrap();
        assert_eq!(restore(&conn).unwrap(), DEFERRED.len() - 1);
        assert!(missing(&conn).unwrap().is_empty());
        assert_eq!(restore(&conn).unwrap(), 0);
    }

    #[test]
    fn a_load_is_bulk_when_it_at_least_doubles_the_database() {
        assert!(wanted(0, 0));
        assert!(wanted(1_000, 1_000 * BYTES_A_GAME));
        assert!(!wanted(1_000, 1_000 * BYTES_A_GAME - 1));
        assert!(!wanted(10_000_000, 31 << 20));
    }

    /// The bytes an import of a source has still to read, by its `imports` row: all of a
    /// file never imported, what follows the last commit of an interrupted one (all of a
    /// compressed one), none of one imported to its end.
    #[test]
    fn bytes_left_follow_the_imports_row() {
        let dir = tempfile::tempdir().unwrap();
        let conn = crate::db::open(&dir.path().join("a.sqlite")).unwrap();
        let mut writer = crate::db::StoreWriter::new(conn).unwrap();
        let source = |path: &str, compression| SourceIdentity {
            path: path.to_owned(),
            size: Some(10_000),
            mtime: Some(1),
            head_hash: [7; 16],
            compression,
        };
        let (plain, packed) = (source("a.pgn", "none"), source("a.pgn.gz", "gzip"));
        assert_eq!(bytes_left(writer.connection(), &plain).unwrap(), 10_000);
        for s in [&plain, &packed] {
            let id = writer.begin_import(s, "{}").unwrap().id;
            writer.commit_batch(id, 4_000, 12).unwrap();
        }
        assert_eq!(bytes_left(writer.connection(), &plain).unwrap(), 6_000);
        assert_eq!(bytes_left(writer.connection(), &packed).unwrap(), 10_000);
        let id = writer.begin_import(&plain, "{}").unwrap().id;
        writer.finish_import(id).unwrap();
        assert_eq!(bytes_left(writer.connection(), &plain).unwrap(), 0);
        // Another modification time is another file.
        let touched = SourceIdentity {
            mtime: Some(2),
            ..plain.clone()
        };
        assert_eq!(bytes_left(writer.connection(), &touched).unwrap(), 10_000);
    }
}
