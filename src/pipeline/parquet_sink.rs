//! The map step of a cluster run (`arbiter check FILES --output DIR --format parquet`): each
//! input becomes a shard folder `DIR/NAME/` holding the judged games, their findings, the
//! `player_games` rows and the games' positions (`parquet_positions`) as Parquet, in the export's row formats, and last the completion marker
//! `_SUCCESS` (the shard's counts as JSON), with no database. The folder is filled under a
//! temporary name and renamed when whole, so a shard cut short is never taken for complete
//! and a re-run replaces it; the output is a function of the input alone (no time stamps,
//! input order), so the same shard gives byte-identical files.

use super::error::SinkError;
use super::parquet_positions::{POSITIONS, PositionsTable};
use super::run::{Begun, Sink, SourceInfo};
use super::sinks::CheckSink;
use super::work::{Keep, Processed};
use crate::export::findings::{FindingsTable, finding_row};
use crate::export::parquet::{ParquetFormat, Target};
use crate::export::players::PlayerGamesTable;
use crate::export::table::{GameTable, Selection};
use crate::export::{ExportError, Writer};
use crate::pgn::{Finding, RawGame};
use std::collections::BTreeMap;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// The completion marker's file name (Hadoop's and Spark's name for it).
pub const MARKER: &str = "_SUCCESS";
/// The tables of a shard folder, by file name.
pub const GAMES: &str = "games.parquet";
pub const FINDINGS: &str = "findings.parquet";
pub const PLAYER_GAMES: &str = "player_games.parquet";

/// Why shard names cannot be made for the inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShardNameError {
    /// Two inputs would write the same folder.
    Same {
        name: String,
        first: String,
        second: String,
    },
    /// `--name` names one shard, and several inputs were given.
    NameWithSeveralInputs(usize),
    /// A name that is not a plain file name (empty, `.`, `..`, or with a `/`).
    Invalid(String),
}

impl fmt::Display for ShardNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShardNameError::Same {
                name,
                first,
                second,
            } => write!(
                f,
                "{first} and {second} would both write the shard {name:?}: give them different file names"
            ),
            ShardNameError::NameWithSeveralInputs(n) => {
                write!(f, "--name names one shard, and {n} inputs were given")
            }
            ShardNameError::Invalid(name) => {
                write!(
                    f,
                    "{name:?} is not a shard name: a file name without '/' is"
                )
            }
        }
    }
}

impl std::error::Error for ShardNameError {}

/// The shard name of each input, in order: `name` when given (one input), else the input's
/// file name, `stdin` for `-`.
pub fn shard_names(inputs: &[PathBuf], name: Option<&str>) -> Result<Vec<String>, ShardNameError> {
    if name.is_some() && inputs.len() > 1 {
        return Err(ShardNameError::NameWithSeveralInputs(inputs.len()));
    }
    let mut seen: BTreeMap<String, &Path> = BTreeMap::new();
    let mut names = Vec::with_capacity(inputs.len());
    for input in inputs {
        let n = match name {
            Some(n) => n.to_owned(),
            None if input.as_os_str() == "-" => "stdin".to_owned(),
            None => input
                .file_name()
                .map_or_else(String::new, |f| f.to_string_lossy().into_owned()),
        };
        if n.is_empty() || n == "." || n == ".." || n.contains('/') || n.contains('\\') {
            return Err(ShardNameError::Invalid(n));
        }
        if let Some(first) = seen.insert(n.clone(), input) {
            return Err(ShardNameError::Same {
                name: n,
                first: first.display().to_string(),
                second: input.display().to_string(),
            });
        }
        names.push(n);
    }
    Ok(names)
}

/// A shard's counts, written into its marker: the same as `check`'s summary of that input.
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ShardCounts {
    pub shard: String,
    pub games: u64,
    pub accepted: u64,
    pub rejected: u64,
    pub plies: u64,
    pub findings: u64,
    /// Rows written: `player_games` has two a game.
    pub player_games: u64,
}

/// The three tables of a shard.
struct Tables {
    games: GameTable,
    players: PlayerGamesTable,
    findings: FindingsTable,
    positions: PositionsTable,
}

/// The shard being written: its tables in the temporary folder.
struct Shard {
    temp: PathBuf,
    dir: PathBuf,
    /// Taken when the shard is finished.
    tables: Option<Tables>,
    counts: ShardCounts,
}

impl Shard {
    fn create(out: &Path, name: &str) -> Result<Shard, ExportError> {
        let dir = out.join(name);
        // What a killed run of this shard left behind goes first: one run writes a shard
        // at a time (spark/judge.py never starts two tasks on one shard at once).
        let stale = format!(".{name}.tmp-");
        for entry in std::fs::read_dir(out)? {
            let entry = entry?;
            if entry.file_name().to_string_lossy().starts_with(&stale) {
                std::fs::remove_dir_all(entry.path())?;
            }
        }
        let temp = out.join(format!("{stale}{}", std::process::id()));
        std::fs::create_dir_all(&temp)?;
        let table = |file: &str| -> Result<Box<ParquetFormat>, ExportError> {
            Ok(Box::new(ParquetFormat::create(Target::File(
                temp.join(file),
            ))?))
        };
        let mut games = GameTable::new(table(GAMES)?, Selection::default_with(false));
        games.begin()?;
        let mut players = PlayerGamesTable::new(table(PLAYER_GAMES)?);
        players.begin()?;
        let findings = FindingsTable::begin(table(FINDINGS)?)?;
        let positions = PositionsTable::begin(table(POSITIONS)?)?;
        Ok(Shard {
            temp,
            dir,
            tables: Some(Tables {
                games,
                players,
                findings,
                positions,
            }),
            counts: ShardCounts {
                shard: name.to_owned(),
                ..ShardCounts::default()
            },
        })
    }

    fn tables(&mut self) -> Result<&mut Tables, ExportError> {
        self.tables
            .as_mut()
            .ok_or_else(|| ExportError::Io(io::Error::other("the shard is already finished")))
    }

    fn findings(&mut self, findings: &[Finding]) -> Result<(), ExportError> {
        let shard = self.counts.shard.clone();
        let tables = self.tables()?;
        for f in findings {
            tables.findings.write(&finding_row(&shard, f))?;
        }
        self.counts.findings += findings.len() as u64;
        Ok(())
    }

    fn game(&mut self, game: &Processed) -> Result<(), ExportError> {
        self.counts.games += 1;
        self.counts.plies += game.plies as u64;
        if game.rejected {
            self.counts.rejected += 1;
        } else {
            self.counts.accepted += 1;
        }
        self.findings(&game.findings)?;
        if let Some(record) = &game.record {
            // The export's row of a game just judged; its number in the shard is its id, so
            // that `(shard, game_id)` is the key across shards.
            let mut row = crate::export::games::row_of_record(&self.counts.shard, record)?;
            row.id = row.game_number;
            let tables = self.tables()?;
            tables.games.game(&row)?;
            tables.players.game(&row)?;
            tables.positions.game(row.id, &row.start, record)?;
            self.counts.player_games += 2;
        }
        Ok(())
    }

    /// Closes the tables, writes the marker, and puts the folder in place of any earlier one.
    fn finish(mut self) -> Result<ShardCounts, ExportError> {
        let Some(Tables {
            games,
            players,
            findings,
            positions,
        }) = self.tables.take()
        else {
            return Err(ExportError::Io(io::Error::other(
                "the shard is already finished",
            )));
        };
        Box::new(games).finish()?;
        Box::new(players).finish()?;
        findings.finish()?;
        positions.finish()?;
        let marker = serde_json::to_string_pretty(&self.counts)? + "\n";
        std::fs::write(self.temp.join(MARKER), marker)?;
        if self.dir.exists() {
            std::fs::remove_dir_all(&self.dir)?;
        }
        std::fs::rename(&self.temp, &self.dir)?;
        Ok(std::mem::take(&mut self.counts))
    }
}

impl Drop for Shard {
    /// A shard not finished (an input that could not be read to its end, a write error)
    /// leaves nothing behind; a finished one has already been renamed.
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.temp);
    }
}

/// `check`'s sink plus the shard folders: findings file and quarantine as usual, and each
/// input's tables under `out`.
pub struct ParquetSink {
    pub check: CheckSink,
    out: PathBuf,
    /// Shard names by input, as given on the command line.
    names: BTreeMap<String, String>,
    shard: Option<Shard>,
    /// The shards completed, in input order.
    pub done: Vec<ShardCounts>,
}

impl ParquetSink {
    /// Creates `out` now, so that a folder that cannot be written fails before any work.
    pub fn create(
        check: CheckSink,
        out: &Path,
        inputs: &[PathBuf],
        names: Vec<String>,
    ) -> Result<ParquetSink, SinkError> {
        std::fs::create_dir_all(out).map_err(|e| SinkError::io(out, e))?;
        let names = inputs
            .iter()
            .map(|p| p.display().to_string())
            .zip(names)
            .collect();
        Ok(ParquetSink {
            check,
            out: out.to_owned(),
            names,
            shard: None,
            done: Vec::new(),
        })
    }

    fn shard(&mut self, name: &str) -> Result<&mut Shard, SinkError> {
        self.shard
            .as_mut()
            .ok_or_else(|| SinkError::import(name, "a game arrived outside any input"))
    }
}

impl Sink for ParquetSink {
    fn begin_file(&mut self, name: &str, source: &SourceInfo) -> Result<Begun, SinkError> {
        let begun = self.check.begin_file(name, source)?;
        let shard = self
            .names
            .get(name)
            .cloned()
            .unwrap_or_else(|| name.to_owned());
        let created = Shard::create(&self.out, &shard)
            .map_err(|e| SinkError::format(&self.out.join(&shard), e))?;
        self.shard = Some(created);
        Ok(begun)
    }

    fn wants(&mut self, _name: &str, _raw: &RawGame) -> bool {
        true
    }

    fn keeps(&self) -> Keep {
        Keep::Record
    }

    fn game(&mut self, name: &str, game: &Processed) -> Result<(), SinkError> {
        self.check.game(name, game)?;
        let shard = self.shard(name)?;
        shard
            .game(game)
            .map_err(|e| SinkError::format(&shard.dir, e))
    }

    fn file_findings(&mut self, name: &str, findings: &[Finding]) -> Result<(), SinkError> {
        self.check.file_findings(name, findings)?;
        if let Some(shard) = &mut self.shard {
            shard
                .findings(findings)
                .map_err(|e| SinkError::format(&shard.dir, e))?;
        }
        Ok(())
    }

    fn end_file(&mut self, name: &str, complete: bool) -> Result<(), SinkError> {
        self.check.end_file(name, complete)?;
        if let Some(shard) = self.shard.take()
            && complete
        {
            let dir = shard.dir.clone();
            self.done
                .push(shard.finish().map_err(|e| SinkError::format(&dir, e))?);
        }
        Ok(())
    }
}
