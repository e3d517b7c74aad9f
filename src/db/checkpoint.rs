//! Checkpoints of the write-ahead log on a thread of their own while an import writes.
//!
//! In WAL mode each commit appends the pages it changed to the `-wal` file; a checkpoint
//! copies them back into the database and, with `synchronous = NORMAL`, waits for the disk
//! (fsync) before and after. SQLite runs it on the committing connection once the log
//! passes 1,000 pages, so the import's single writer thread stood still for every fsync:
//! once a database holds a few hundred thousand games, a commit touches pages all over its
//! indexes and every commit checkpointed. Here a second connection checkpoints (PASSIVE:
//! it never blocks the writer) every `PERIOD`, and the writer's own automatic checkpoint
//! only backs it up when the log grows past `WRITER_LIMIT_PAGES`. Durability is unchanged:
//! the same syncs happen, on this thread. Measured in docs/PERFORMANCE.md ("Checkpoints").

use rusqlite::Connection;
use std::sync::mpsc::{RecvTimeoutError, Sender, channel};
use std::thread::JoinHandle;
use std::time::Duration;

/// How often the log is checkpointed.
const PERIOD: Duration = Duration::from_millis(250);

/// The writer's own automatic checkpoint, when the log has grown this far (1 GiB of 4 KiB
/// pages) because this thread could not keep up.
pub const WRITER_LIMIT_PAGES: i64 = 1 << 18;

/// The checkpointing thread; stopped (after one last checkpoint) when dropped.
pub struct Checkpointer {
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Checkpointer {
    /// Starts checkpointing the database file `conn` writes, on a connection of its own.
    /// None for a database with no file (in memory), where there is no log.
    pub fn start(conn: &Connection) -> Option<Checkpointer> {
        let path = conn.path().filter(|p| !p.is_empty())?.to_owned();
        let own = Connection::open(&path).ok()?;
        own.busy_timeout(Duration::from_secs(10)).ok()?;
        own.pragma_update(None, "synchronous", "NORMAL").ok()?;
        let (stop, stopped) = channel::<()>();
        let thread = std::thread::Builder::new()
            .name("arbiter-checkpoint".into())
            .spawn(move || {
                loop {
                    let last = match stopped.recv_timeout(PERIOD) {
                        Err(RecvTimeoutError::Timeout) => false,
                        Ok(()) | Err(RecvTimeoutError::Disconnected) => true,
                    };
                    // A failed checkpoint loses nothing: the pages stay in the log, and the
                    // next checkpoint (or the writer's own) copies them.
                    let _ = own.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
                    if last {
                        break;
                    }
                }
            })
            .ok()?;
        Some(Checkpointer {
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn committed_pages_reach_the_database_file_from_the_thread_not_the_writer() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.sqlite");
        let conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "journal_mode", "WAL").unwrap();
        // The writer never checkpoints by itself here.
        conn.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
        conn.execute_batch("CREATE TABLE t (x BLOB)").unwrap();
        let insert = |conn: &Connection| {
            conn.execute_batch("BEGIN").unwrap();
            for _ in 0..200 {
                conn.execute("INSERT INTO t VALUES (zeroblob(3000))", [])
                    .unwrap();
            }
            conn.execute_batch("COMMIT").unwrap();
        };
        let file_size = || std::fs::metadata(&path).unwrap().len();
        // Without the thread the pages stay in the log.
        insert(&conn);
        assert!(file_size() < 100_000, "{} bytes", file_size());
        let checkpointer = Checkpointer::start(&conn).expect("a file database");
        insert(&conn);
        drop(checkpointer);
        // Both transactions' pages (400 rows of 3,000 bytes) are in the file now.
        assert!(file_size() > 1_200_000, "{} bytes", file_size());
        assert!(Checkpointer::start(&Connection::open_in_memory().unwrap()).is_none());
    }
}
