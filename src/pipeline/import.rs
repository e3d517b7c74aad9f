//! The sink of `arbiter import`: hands each accepted game's `GameRecord` (made on the
//! worker, `pipeline::record`) to the database writer; rejected games go to the quarantine
//! file and `rejected_games`. Commits at batch ends, so an interrupted import resumes after
//! its last committed batch.

use super::error::SinkError;
use super::run::{Begun, Sink, SourceInfo};
use super::sinks::{FindingsFile, Quarantine};
use super::work::{Keep, Processed};
use crate::db::{ImportState, SourceIdentity, StoreWriter, Stored};
use crate::pgn::{Finding, RawGame, Severity};
use std::io::Read;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// What an import did, beyond the driver's summary.
#[derive(Debug, Default, Clone, Copy, serde::Serialize)]
pub struct ImportCounts {
    pub stored: u64,
    /// Games already in the database (same content hash).
    pub already_present: u64,
    pub rejected: u64,
    /// Games an interrupted earlier run of the same file had committed (stored or rejected
    /// then); skipped without work. Games read = stored + already present + rejected + resumed.
    pub resumed: u64,
}

/// One file's part of an import: games delivered (stored, present or rejected; resumed
/// games are not counted) and the time from its first game's delivery to its last.
#[derive(Debug, Clone)]
pub struct FileRate {
    pub name: String,
    pub games: u64,
    pub stored: u64,
    pub seconds: f64,
}

pub struct ImportSink {
    writer: StoreWriter,
    /// The database's file, named by its errors: as SQLite has it (absolute) unless the
    /// caller names it as the user did.
    pub db: PathBuf,
    settings: String,
    /// The input being imported (the last one begun), and its `imports` row.
    file: String,
    current: Option<ImportState>,
    pub counts: ImportCounts,
    pub findings: Option<FindingsFile>,
    pub quarantine: Option<Quarantine>,
    /// Whether the workers make each game's position-index entry (`positions::index`).
    pub index_positions: bool,
    /// Progress of the batches written since the last commit: (last byte, last game).
    uncommitted: Option<(u64, u64)>,
    uncommitted_games: usize,
    last_commit: Instant,
    /// Games in the database when the writer was given to this sink.
    stored_at_start: u64,
    /// Files looked up ahead of their `begin_file` (`prepare_file`), in input order.
    prepared: Vec<(String, (SourceIdentity, u64))>,
    /// Files begun in this run.
    begun: std::collections::HashSet<String>,
    /// Each file's resume point: games up to this number were committed earlier.
    resume: std::collections::HashMap<String, u64>,
    /// When the current file began, and the counts then.
    file_start: (Instant, ImportCounts),
    /// Per file, in input order.
    pub files: Vec<FileRate>,
    /// A bulk load (`db::bulk`): the deferred indexes are built, and the position index's
    /// key rows rewritten in key order, after the games.
    bulk: bool,
}

/// When a transaction is committed: once it holds this many games or is this old, both
/// growing with the games already stored (`commit_due`). Batches are small (for the
/// workers' caches); a commit per batch made the import a fifth slower. Each commit writes
/// every page it changed to the log, and in a large database the games' indexes and the
/// content hashes put nearly every new game on pages of its own: at 1.86 million games, a
/// further 228,435 games took 17.5 s with commits of 16,384 games, 15.7 s with 65,536 and
/// 14.3 s with 262,144 (docs/PERFORMANCE.md). A killed import redoes at most one
/// transaction's games; the time bounds that on slow inputs.
const COMMIT_GAMES: (usize, usize) = (16_384, 262_144);
const COMMIT_AFTER: (Duration, Duration) = (Duration::from_secs(2), Duration::from_secs(30));

/// Whether a transaction of `games` games, `age` old, is due, in a database that held
/// `stored` games when the import began: games up to an eighth of those stored, within the
/// bounds above, and 2 s plus 1 s per 100,000 stored games.
fn commit_due(games: usize, age: Duration, stored: u64) -> bool {
    let limit = usize::try_from(stored / 8)
        .unwrap_or(usize::MAX)
        .clamp(COMMIT_GAMES.0, COMMIT_GAMES.1);
    let after = (COMMIT_AFTER.0 + Duration::from_secs(stored / 100_000)).min(COMMIT_AFTER.1);
    games >= limit || age >= after
}

/// A 16-byte hash of the first MiB of a file, part of its identity.
fn head_hash(path: &str) -> [u8; 16] {
    let mut h = crate::db::encode::Fnv128::default();
    if path != "-"
        && let Ok(file) = std::fs::File::open(path)
    {
        let mut head = Vec::with_capacity(1 << 20);
        if file.take(1 << 20).read_to_end(&mut head).is_ok() {
            h.write(&head);
        }
    }
    h.finish()
}

impl ImportSink {
    pub fn new(writer: StoreWriter, settings: String) -> ImportSink {
        let stored_at_start = writer.games_stored().unwrap_or(0);
        let db = PathBuf::from(
            writer
                .connection()
                .path()
                .filter(|p| !p.is_empty())
                .unwrap_or(":memory:"),
        );
        ImportSink {
            stored_at_start,
            writer,
            db,
            settings,
            file: String::new(),
            current: None,
            counts: ImportCounts::default(),
            findings: None,
            quarantine: None,
            index_positions: true,
            uncommitted: None,
            uncommitted_games: 0,
            last_commit: Instant::now(),
            prepared: Vec::new(),
            begun: Default::default(),
            resume: Default::default(),
            file_start: (Instant::now(), ImportCounts::default()),
            files: Vec::new(),
            bulk: false,
        }
    }

    /// Games in the database when the writer was given to this sink.
    pub fn stored_at_start(&self) -> u64 {
        self.stored_at_start
    }

    /// Chooses how the games go in, before the first: a bulk load drops the deferred
    /// indexes (`db::bulk`; those an interrupted bulk load dropped stay dropped) for `finish`
    /// to build; otherwise they are made first where an interrupted bulk load left them
    /// unbuilt, and kept up to date game by game.
    pub fn set_bulk(&mut self, bulk: bool) -> Result<(), SinkError> {
        let conn = self.writer.connection();
        if bulk {
            crate::db::bulk::begin(conn).map_err(|e| self.sql(e))?;
        } else {
            crate::db::bulk::restore(conn).map_err(|e| self.sql(e))?;
        }
        self.bulk = bulk;
        Ok(())
    }

    /// Bytes of `inputs` the database does not hold yet (`db::bulk::bytes_left`: none of a
    /// file its imports record as read to the end): what `--load auto` weighs against the
    /// games stored. Stdin, which has no identity to find, counts none.
    pub fn bytes_to_import(&self, inputs: &[PathBuf]) -> Result<u64, SinkError> {
        let mut bytes = 0;
        for path in inputs {
            if path.as_os_str() == "-" {
                continue;
            }
            // An input that cannot be opened is the run's to report.
            let Ok(source) = super::source::open(path) else {
                continue;
            };
            let info = SourceInfo {
                size: source.size(),
                compression: source.compression().as_str(),
            };
            let identity = identity(&path.display().to_string(), &info);
            bytes += crate::db::bulk::bytes_left(self.writer.connection(), &identity)
                .map_err(|e| self.sql(e))?;
        }
        Ok(bytes)
    }

    /// A database error, naming the database.
    fn sql(&self, e: rusqlite::Error) -> SinkError {
        SinkError::database(&self.db, e)
    }

    pub fn is_bulk(&self) -> bool {
        self.bulk
    }

    /// Commits the games written so far with the progress of the last batch among them, so
    /// a resumed import starts exactly after them.
    fn commit(&mut self) -> Result<(), SinkError> {
        if let Some((last_byte, last_game)) = self.uncommitted.take() {
            let id = self.import_id()?;
            self.writer
                .commit_batch(id, last_byte, last_game)
                .map_err(|e| SinkError::database(&self.db, e))?;
        }
        self.uncommitted_games = 0;
        self.last_commit = Instant::now();
        Ok(())
    }

    fn import_id(&self) -> Result<i64, SinkError> {
        self.current
            .map(|s| s.id)
            .ok_or_else(|| SinkError::import(&self.file, "a game outside an import"))
    }

    pub fn finish(mut self) -> Result<ImportCounts, SinkError> {
        if self.current.is_some() {
            // A file the run stopped in (Ctrl-C): what was delivered of it is committed
            // with its progress, so the next run resumes right after it.
            self.commit()?;
        }
        self.writer.flush_positions().map_err(|e| self.sql(e))?;
        // Interrupted or not, the database is left with every index (a kill during these
        // steps leaves them to the next import or writer: `db::bulk`).
        let conn = self.writer.connection();
        crate::db::bulk::restore(conn).map_err(|e| self.sql(e))?;
        if self.bulk && self.index_positions {
            crate::db::positions::compact(conn, 1).map_err(|e| self.sql(e))?;
        }
        if let Some(f) = self.findings {
            f.finish()?;
        }
        if let Some(q) = self.quarantine {
            q.finish()?;
        }
        Ok(self.counts)
    }
}

/// A source's identity: path, size, modification time, hash of its head.
fn identity(name: &str, info: &SourceInfo) -> SourceIdentity {
    let meta = (name != "-")
        .then(|| std::fs::metadata(name).ok())
        .flatten();
    let mtime = meta
        .as_ref()
        .and_then(|m| m.modified().ok())
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_secs() as i64);
    SourceIdentity {
        path: name.to_owned(),
        size: info.size,
        mtime,
        head_hash: head_hash(name),
        compression: info.compression,
    }
}

impl Sink for ImportSink {
    /// Looks the file's resume point up while the writer is still busy with earlier files,
    /// so the workers go on into it. A file named twice in one run waits for the first
    /// to be delivered (its resume point is that run's).
    fn prepare_file(&mut self, name: &str, info: &SourceInfo) -> Result<bool, SinkError> {
        if self.prepared.iter().any(|(n, _)| n == name) || self.begun.contains(name) {
            return Ok(false);
        }
        let identity = identity(name, info);
        let resume = self
            .writer
            .resume_point(&identity)
            .map_err(|e| self.sql(e))?;
        self.prepared.push((name.to_owned(), (identity, resume)));
        self.resume.insert(name.to_owned(), resume);
        Ok(true)
    }

    fn begin_file(&mut self, name: &str, info: &SourceInfo) -> Result<Begun, SinkError> {
        let (identity, prepared) = match self.prepared.iter().position(|(n, _)| n == name) {
            Some(i) => {
                let (identity, resume) = self.prepared.remove(i).1;
                (identity, Some(resume))
            }
            None => (identity(name, info), None),
        };
        self.begun.insert(name.to_owned());
        name.clone_into(&mut self.file);
        let state = self
            .writer
            .begin_import(&identity, &self.settings)
            .map_err(|e| SinkError::database(&self.db, e))?;
        if prepared.is_some_and(|r| r != state.resume_after_game) {
            return Err(SinkError::import(
                name,
                "its resume point changed while it was queued (another import?)",
            ));
        }
        self.resume.insert(name.to_owned(), state.resume_after_game);
        self.file_start = (Instant::now(), self.counts);
        self.current = Some(state);
        Ok(match state.resume_after_game {
            0 => Begun::FromStart,
            after => Begun::ResumedAfter(after),
        })
    }

    /// The resume point `wants` reads is the one `begin_file` found for the file.
    fn wants_after_begin(&self) -> bool {
        true
    }

    fn keeps(&self) -> Keep {
        if self.index_positions {
            Keep::RecordIndexed
        } else {
            Keep::Record
        }
    }

    fn wants(&mut self, name: &str, raw: &RawGame) -> bool {
        match self.resume.get(name) {
            Some(&after) if raw.game_number <= after => {
                self.counts.resumed += 1;
                false
            }
            _ => true,
        }
    }

    fn game(&mut self, name: &str, p: &Processed) -> Result<(), SinkError> {
        let import_id = self.import_id()?;
        self.uncommitted_games += 1;
        if let Some(f) = &mut self.findings {
            f.write(name, &p.findings)?;
        }
        if p.rejected {
            let first = p.findings.iter().find(|f| f.severity == Severity::Error);
            let (code, detail) = first.map_or(("unknown", ""), |f| (f.code, f.message.as_str()));
            self.writer
                .write_rejected(
                    import_id,
                    p.game_number,
                    p.byte_offset,
                    p.line,
                    code,
                    detail,
                )
                .map_err(|e| SinkError::database(&self.db, e))?;
            if let Some(q) = &mut self.quarantine {
                q.write(p)?;
            }
            self.counts.rejected += 1;
            return Ok(());
        }
        let Some(record) = &p.record else {
            return Err(SinkError::import(
                name,
                format!(
                    "game {} reached the database without its record",
                    p.game_number
                ),
            ));
        };
        let stored = self
            .writer
            .write_game(import_id, record)
            .map_err(|e| SinkError::database(&self.db, e))?;
        match stored {
            Stored::New(_) => self.counts.stored += 1,
            Stored::AlreadyPresent => self.counts.already_present += 1,
        }
        Ok(())
    }

    fn end_batch(&mut self, _name: &str, last_byte: u64, last_game: u64) -> Result<(), SinkError> {
        self.uncommitted = Some((last_byte, last_game));
        if commit_due(
            self.uncommitted_games,
            self.last_commit.elapsed(),
            self.stored_at_start,
        ) {
            self.commit()?;
        }
        Ok(())
    }

    fn file_findings(&mut self, name: &str, findings: &[Finding]) -> Result<(), SinkError> {
        if let Some(f) = &mut self.findings {
            f.write(name, findings)?;
        }
        Ok(())
    }

    fn end_file(&mut self, name: &str, complete: bool) -> Result<(), SinkError> {
        self.commit()?;
        let id = self.import_id()?;
        if complete {
            self.writer
                .finish_import(id)
                .map_err(|e| SinkError::database(&self.db, e))?;
        }
        self.current = None;
        let (start, before) = self.file_start;
        let c = self.counts;
        self.files.push(FileRate {
            name: name.to_owned(),
            games: (c.stored + c.already_present + c.rejected)
                - (before.stored + before.already_present + before.rejected),
            stored: c.stored - before.stored,
            seconds: start.elapsed().as_secs_f64(),
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::{RunError, RunOptions};

    #[test]
    fn transactions_grow_with_the_database_within_bounds() {
        let s = Duration::from_secs;
        // A new database: 16,384 games or 2 s.
        assert!(!commit_due(16_383, s(1), 0));
        assert!(commit_due(16_384, s(1), 0));
        assert!(commit_due(10, s(2), 0));
        // 1.6 million games: an eighth is 200,000 games; 2 s + 16 s.
        assert!(!commit_due(199_999, s(17), 1_600_000));
        assert!(commit_due(200_000, s(1), 1_600_000));
        assert!(commit_due(10, s(18), 1_600_000));
        // 10 million games: at most 262,144 games or 30 s.
        assert!(!commit_due(262_143, s(29), 10_000_000));
        assert!(commit_due(262_144, s(0), 10_000_000));
        assert!(commit_due(1, s(30), 10_000_000));
    }

    /// A statement the database refuses ends the run with an error that names the
    /// database's file (it said "database: attempt to write a readonly database" alone).
    #[test]
    fn a_database_error_names_the_database() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("games.sqlite");
        let pgn = dir.path().join("a.pgn");
        std::fs::write(&pgn, "[Event \"e\"]\n\n1. e4 e5 *\n").unwrap();
        let writer = StoreWriter::new(crate::db::open(&db).unwrap()).unwrap();
        let mut sink = ImportSink::new(writer, "{}".into());
        sink.writer
            .connection()
            .pragma_update(None, "query_only", true)
            .unwrap();
        let options = RunOptions::parse_only(vec![pgn], 1);
        let e = crate::pipeline::run(&options, &mut sink, &mut |_| {}).unwrap_err();
        assert!(
            matches!(&e, RunError::Sink(SinkError::Database { path, .. })
                if path.ends_with("games.sqlite")),
            "{e:?}"
        );
        let message = e.to_string();
        assert!(
            message.contains("games.sqlite: database: ") && message.contains("readonly"),
            "{message}"
        );
    }

    /// `--load auto` weighs the bytes not yet imported: a file imported to its end counts
    /// none, so importing it again into its own database keeps the indexes.
    #[test]
    fn a_file_imported_to_its_end_counts_no_bytes_for_the_load() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("games.sqlite");
        let pgn = dir.path().join("a.pgn");
        // Tags long enough that the file's size says more games than it holds.
        let text: String = (1..=3)
            .map(|i| format!("[Event \"{i} {}\"]\n\n1. e4 e5 *\n\n", "x".repeat(700)))
            .collect();
        std::fs::write(&pgn, &text).unwrap();
        let size = text.len() as u64;
        let options = RunOptions::parse_only(vec![pgn.clone()], 1);
        let sink = |db: &std::path::Path| {
            ImportSink::new(
                StoreWriter::new(crate::db::open(db).unwrap()).unwrap(),
                "{}".into(),
            )
        };
        let mut first = sink(&db);
        assert_eq!(first.bytes_to_import(&options.inputs).unwrap(), size);
        crate::pipeline::run(&options, &mut first, &mut |_| {}).unwrap();
        assert_eq!(first.finish().unwrap().stored, 3);
        let again = sink(&db);
        assert_eq!(again.stored_at_start(), 3);
        assert_eq!(again.bytes_to_import(&options.inputs).unwrap(), 0);
        assert!(!crate::db::bulk::wanted(3, 0));
        // Before, the file's size alone decided: over 2,100 bytes for 3 games stored.
        assert!(crate::db::bulk::wanted(3, size));
        // The same games under another name are new bytes.
        let copy = dir.path().join("b.pgn");
        std::fs::write(&copy, &text).unwrap();
        assert_eq!(again.bytes_to_import(&[copy]).unwrap(), size);
    }
}
