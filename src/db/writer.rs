//! The single database writer: one connection, one transaction per commit (the import sink
//! decides when: after whole batches), games in input order. The games and the import's
//! progress row commit together, so a killed import leaves whole batches only, and a rerun
//! resumes after the last one.

use super::checkpoint::{Checkpointer, WRITER_LIMIT_PAGES};
use super::persons::{PersonRules, upsert_person};
use super::record::{ColumnTag as T, GameRecord};
use crate::identity::openings::Opening;
use rusqlite::{Connection, OptionalExtension, params};
use std::collections::HashMap;

/// Where an import stands when it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImportState {
    pub id: i64,
    /// Games up to this number were committed by an earlier, interrupted run.
    pub resume_after_game: u64,
    /// An earlier run of the same source went to the end.
    pub finished_before: bool,
}

/// What happened to a game given to `write_game`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    New(i64),
    AlreadyPresent,
}

/// Counts of the batch in progress, written to `imports` at commit.
#[derive(Debug, Default, Clone, Copy)]
struct BatchCounts {
    read: u64,
    stored: u64,
    present: u64,
    rejected: u64,
}

pub struct StoreWriter {
    conn: Connection,
    /// Checkpoints the log on its own thread (`db::checkpoint`); None in memory.
    _checkpointer: Option<Checkpointer>,
    /// Spelling (name as written, then FIDE id) → `player_names.id`; looked up by `&str`,
    /// so a known spelling costs no allocation.
    players: HashMap<String, Vec<(Option<i64>, i64)>>,
    persons: PersonRules,
    /// Event, then site → `events.id`.
    events: HashMap<String, HashMap<String, i64>>,
    /// Opening name → `openings.id`.
    openings: HashMap<&'static str, i64>,
    in_batch: bool,
    counts: BatchCounts,
    /// The id the next stored game gets: read when a transaction begins (another writer may
    /// have added games between two), then counted up.
    next_game_id: i64,
    /// Stored games' position-index entries, written before each commit.
    positions: super::positions::IndexBuffer,
}

/// Identity of a source file.
#[derive(Debug, Clone)]
pub struct SourceIdentity {
    pub path: String,
    pub size: Option<u64>,
    pub mtime: Option<i64>,
    pub head_hash: [u8; 16],
    pub compression: &'static str,
}

impl StoreWriter {
    /// The writer turns the connection's foreign key enforcement off: every id it writes
    /// it has just read or made in the same transaction, and the content hash goes in
    /// before its game (one statement finds a stored game and reserves a new one's id).
    /// `tests/import_cli.rs` checks `foreign_key_check` after imports.
    /// Checkpoints of the log run on a thread of their own (`db::checkpoint`).
    pub fn new(conn: Connection) -> rusqlite::Result<StoreWriter> {
        conn.pragma_update(None, "foreign_keys", "OFF")?;
        let checkpointer = Checkpointer::start(&conn);
        if checkpointer.is_some() {
            conn.pragma_update(None, "wal_autocheckpoint", WRITER_LIMIT_PAGES)?;
        }
        Ok(StoreWriter {
            conn,
            _checkpointer: checkpointer,
            players: HashMap::new(),
            persons: PersonRules::default(),
            events: HashMap::new(),
            openings: HashMap::new(),
            in_batch: false,
            counts: BatchCounts::default(),
            next_game_id: 1,
            positions: Default::default(),
        })
    }

    /// Games stored in the database (the largest id: rows are never deleted by an import).
    pub fn games_stored(&self) -> rusqlite::Result<u64> {
        self.conn
            .query_row("SELECT coalesce(max(id), 0) FROM games", [], |r| {
                r.get::<_, i64>(0)
            })
            .map(|n| n.max(0) as u64)
    }

    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// The stored import of this source: its id, last committed game, and whether it went
    /// to the end. Stdin has no identity to resume by: every run is a new import.
    fn find_import(&self, source: &SourceIdentity) -> rusqlite::Result<Option<(i64, i64, bool)>> {
        if source.path == "-" {
            return Ok(None);
        }
        let size = source.size.map(|s| s as i64);
        self.conn
            .prepare_cached(include_str!("sql/find_import.sql"))?
            .query_row(
                params![source.path, size, source.mtime, &source.head_hash[..]],
                |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, i64>(2)?,
                        r.get::<_, Option<String>>(3)?.is_some(),
                    ))
                },
            )
            .optional()
    }

    /// The game after which an import of this source would resume (0: from the start),
    /// as `begin_import` will find it; writes nothing.
    pub fn resume_point(&self, source: &SourceIdentity) -> rusqlite::Result<u64> {
        Ok(match self.find_import(source)? {
            Some((_, last_game, false)) => last_game as u64,
            _ => 0,
        })
    }

    /// Finds or creates the `imports` row of a source.
    pub fn begin_import(
        &mut self,
        source: &SourceIdentity,
        settings: &str,
    ) -> rusqlite::Result<ImportState> {
        let size = source.size.map(|s| s as i64);
        let found = self.find_import(source)?;
        if let Some((id, last_game, finished_before)) = found {
            return Ok(ImportState {
                id,
                resume_after_game: if finished_before { 0 } else { last_game as u64 },
                finished_before,
            });
        }
        self.conn
            .prepare_cached(include_str!("sql/insert_import.sql"))?
            .execute(params![
                source.path,
                size,
                source.mtime,
                &source.head_hash[..],
                source.compression,
                settings
            ])?;
        Ok(ImportState {
            id: self.conn.last_insert_rowid(),
            resume_after_game: 0,
            finished_before: false,
        })
    }

    fn ensure_batch(&mut self) -> rusqlite::Result<()> {
        if !self.in_batch {
            self.conn.execute_batch("BEGIN IMMEDIATE")?;
            self.in_batch = true;
            self.next_game_id = self.games_stored()? as i64 + 1;
        }
        Ok(())
    }

    /// How new spellings get their person (`import --aliases`); the caller has applied
    /// the same rules to the stored spellings (`persons::apply_aliases`).
    pub fn set_person_rules(&mut self, rules: PersonRules) {
        self.persons = rules;
    }

    /// The spelling's id, made with its person when new: by FIDE id, then aliases, then the
    /// safe normalisation.
    fn player(&mut self, name: &str, fide_id: Option<i64>) -> rusqlite::Result<i64> {
        if let Some(ids) = self.players.get(name)
            && let Some(&(_, id)) = ids.iter().find(|(f, _)| *f == fide_id)
        {
            return Ok(id);
        }
        let found = self
            .conn
            .prepare_cached(include_str!("sql/find_player_name.sql"))?
            .query_row(params![name, fide_id], |r| r.get(0))
            .optional()?;
        let id = match found {
            Some(id) => id,
            None => {
                let person = upsert_person(&self.conn, &self.persons.person(name, fide_id))?;
                self.conn
                    .prepare_cached(include_str!("sql/insert_player_name.sql"))?
                    .execute(params![name, fide_id, person])?;
                self.conn.last_insert_rowid()
            }
        };
        self.players
            .entry(name.to_owned())
            .or_default()
            .push((fide_id, id));
        Ok(id)
    }

    fn event(&mut self, name: &str, site: &str) -> rusqlite::Result<i64> {
        if let Some(&id) = self.events.get(name).and_then(|sites| sites.get(site)) {
            return Ok(id);
        }
        let id = self
            .conn
            .prepare_cached(include_str!("sql/upsert_event.sql"))?
            .query_row([name, site], |r| r.get(0))?;
        self.events
            .entry(name.to_owned())
            .or_default()
            .insert(site.to_owned(), id);
        Ok(id)
    }

    fn opening(&mut self, o: &Opening) -> rusqlite::Result<i64> {
        if let Some(&id) = self.openings.get(o.name) {
            return Ok(id);
        }
        let id = self
            .conn
            .prepare_cached(include_str!("sql/upsert_opening.sql"))?
            .query_row(params![o.eco, o.name, o.family(), o.variation()], |r| {
                r.get(0)
            })?;
        self.openings.insert(o.name, id);
        Ok(id)
    }

    /// Records a rejected game (its bytes go to the quarantine file, not here).
    pub fn write_rejected(
        &mut self,
        import_id: i64,
        game_number: u64,
        byte_offset: u64,
        line: u64,
        code: &str,
        detail: &str,
    ) -> rusqlite::Result<()> {
        self.ensure_batch()?;
        self.counts.read += 1;
        self.counts.rejected += 1;
        self.conn
            .prepare_cached(include_str!("sql/insert_rejected.sql"))?
            .execute(params![
                import_id,
                game_number as i64,
                byte_offset as i64,
                line as i64,
                code,
                detail
            ])?;
        Ok(())
    }

    /// Writes one accepted game, unless a game with the same content hash is stored.
    pub fn write_game(&mut self, import_id: i64, g: &GameRecord) -> rusqlite::Result<Stored> {
        self.ensure_batch()?;
        self.counts.read += 1;
        let c = &g.columns;
        let tag = |k: T| c.tag(&g.tags, k);
        let event_id = match (tag(T::Event), tag(T::Site)) {
            (None, None) => None,
            (e, s) => Some(self.event(e.unwrap_or("?"), s.unwrap_or("?"))?),
        };
        let white_id = tag(T::White)
            .map(|n| self.player(n, c.white_fide_id))
            .transpose()?;
        let black_id = tag(T::Black)
            .map(|n| self.player(n, c.black_fide_id))
            .transpose()?;
        // The content hash first, with the id the game will have: a game already stored
        // costs this one statement (the insert is ignored), a new one no separate lookup.
        let id = self.next_game_id;
        let inserted = self
            .conn
            .prepare_cached(include_str!("sql/insert_game_hash.sql"))?
            .execute(params![&g.content_hash[..], id])?;
        if inserted == 0 {
            self.counts.present += 1;
            return Ok(Stored::AlreadyPresent);
        }
        self.next_game_id += 1;
        let opening = g.opening.as_ref();
        let opening_id = opening.map(|o| self.opening(o)).transpose()?;
        self.conn
            .prepare_cached(include_str!("sql/insert_game.sql"))?
            .execute(params![
                id,
                import_id,
                g.game_number as i64,
                g.byte_offset as i64,
                g.line as i64,
                event_id,
                tag(T::Site),
                tag(T::Date),
                c.year,
                c.month,
                c.day,
                tag(T::Round),
                white_id,
                black_id,
                c.white_elo,
                c.black_elo,
                tag(T::Result),
                g.result_marker,
                g.lawful_result,
                g.termination.map(|t| t.0),
                g.termination.map(|t| t.1),
                g.threefold_ply,
                g.fifty_ply,
                g.laws_edition.map(|y| y.to_string()),
                g.laws_undated,
                if g.chess960 { "chess960" } else { "standard" },
                g.start_fen,
                g.moves.len() as i64,
                &g.moves_blob,
                g.clocks_blob,
                g.annotated,
                opening.map(|o| o.eco),
                opening_id,
                opening.map(|o| o.ply),
                c.white_fide_id,
                c.black_fide_id,
                tag(T::WhiteTitle),
                tag(T::BlackTitle),
                tag(T::WhiteFed).or(tag(T::WhiteTeam)),
                tag(T::BlackFed).or(tag(T::BlackTeam)),
                tag(T::TimeControl),
                c.tc_class,
            ])?;
        self.counts.stored += 1;
        if let Some(entry) = &g.positions {
            let mut entry = entry.clone();
            entry.facts = crate::positions::index::facts(
                g.lawful_result.or(tag(T::Result)),
                c.white_elo,
                c.black_elo,
            );
            self.positions.push(&self.conn, id, entry)?;
        }
        // Each list's statement is looked up only when there is something to insert: the
        // lookup hashes the statement's text.
        if !c.extra.is_empty() {
            let mut stmt = self
                .conn
                .prepare_cached(include_str!("sql/insert_tag.sql"))?;
            for &seq in &c.extra {
                if let Some((name, value)) = g.tags.get(seq as usize) {
                    stmt.execute(params![id, seq, name, value])?;
                }
            }
        }
        if !g.findings.is_empty() {
            let mut stmt = self
                .conn
                .prepare_cached(include_str!("sql/insert_finding.sql"))?;
            for f in &g.findings {
                stmt.execute(params![
                    id,
                    f.code,
                    f.severity,
                    f.ply,
                    f.line as i64,
                    f.column,
                    f.byte as i64,
                    f.token,
                    f.detail
                ])?;
            }
        }
        if !g.comments.is_empty() {
            let mut stmt = self
                .conn
                .prepare_cached(include_str!("sql/insert_comment.sql"))?;
            let mut last: Option<(u32, i64)> = None;
            for (ply, text) in &g.comments {
                let seq = match last {
                    Some((p, s)) if p == *ply => s + 1,
                    _ => 0,
                };
                last = Some((*ply, seq));
                stmt.execute(params![id, ply, seq, text])?;
            }
        }
        if let Some(a) = &g.analysis {
            super::analyses::insert(&self.conn, id, a)?;
        }
        Ok(Stored::New(id))
    }

    /// Commits the batch together with the import's progress.
    pub fn commit_batch(
        &mut self,
        import_id: i64,
        last_byte: u64,
        last_game: u64,
    ) -> rusqlite::Result<()> {
        self.ensure_batch()?;
        let c = std::mem::take(&mut self.counts);
        self.conn
            .prepare_cached(include_str!("sql/update_import_progress.sql"))?
            .execute(params![
                import_id,
                last_byte as i64,
                last_game as i64,
                c.read as i64,
                c.stored as i64,
                c.present as i64,
                c.rejected as i64
            ])?;
        self.conn.execute_batch("COMMIT")?;
        self.in_batch = false;
        Ok(())
    }

    /// Writes the position-index rows of the games stored so far, in a transaction of their
    /// own. The index's rows are held back across commits and files (one row per bucket
    /// per `positions::FLUSH_GAMES` games, not per commit: each row costs its key and
    /// offsets again); games a killed import stored without them are indexed later
    /// (`db::positions::build`), and searched by replay meanwhile.
    pub fn flush_positions(&mut self) -> rusqlite::Result<()> {
        if self.positions.is_empty() {
            return Ok(());
        }
        if self.in_batch {
            return self.positions.flush(&self.conn);
        }
        self.conn.execute_batch("BEGIN IMMEDIATE")?;
        match self.positions.flush(&self.conn) {
            Ok(()) => self.conn.execute_batch("COMMIT"),
            Err(e) => {
                let _ = self.conn.execute_batch("ROLLBACK");
                Err(e)
            }
        }
    }

    pub fn finish_import(&mut self, import_id: i64) -> rusqlite::Result<()> {
        if self.in_batch {
            self.conn.execute_batch("COMMIT")?;
            self.in_batch = false;
        }
        self.conn
            .prepare_cached(include_str!("sql/finish_import.sql"))?
            .execute([import_id])?;
        Ok(())
    }
}
