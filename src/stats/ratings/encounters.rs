//! Rated games read from Parquet instead of a database, so the rating solve of a dataset too
//! big for one SQLite file runs in arbiter on one machine (spark/README.md, "where the ratings
//! reduce happens"). Two row shapes are read, chosen by their columns:
//! - `encounters` (what `spark/judge.py` reduces to): one row per finished game, `white`,
//!   `black`, `white_score`, and optionally `date`, `white_rating`, `black_rating`, `event`;
//! - `player_games` (what `arbiter export --table player_games` and `arbiter check --output`
//!   write): one row per person per game; White's rows are read, duplicates (`duplicate = 1`)
//!   skipped, `score` is White's.
//!
//! A path is one Parquet file or a folder searched for `*.parquet` (Spark's `part-*` files and
//! Hive partitions alike), read in name order so a run is reproducible; in a folder, files of
//! other tables (`games`, `findings`) are passed over and counted. Players are the names
//! as they appear (the person's canonical name in both shapes).

use super::{Date, RatedGame, WhiteResult};
use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Float64Type, Int32Type, Int64Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use std::collections::HashMap;
use std::fmt;
use std::fs::File;
use std::path::{Path, PathBuf};

/// The games of the files, ready for any rating system.
#[derive(Debug, Default)]
pub struct Encounters {
    pub games: Vec<RatedGame>,
    /// Player index → name.
    pub names: Vec<String>,
    /// Each player's Elo tag in their earliest game that has one.
    pub first_tag: Vec<Option<i32>>,
    /// Rows without a result (or without a player), counted and left out.
    pub unfinished: usize,
    /// `player_games` rows of non-surviving duplicates, left out.
    pub duplicates: usize,
    /// Files read.
    pub files: usize,
    /// Files of a folder holding other tables (`games`, `findings` beside `player_games` in
    /// `arbiter check --output`), passed over.
    pub other_files: usize,
}

#[derive(Debug)]
pub enum EncountersError {
    Io(PathBuf, std::io::Error),
    NoFiles(PathBuf),
    Parquet(PathBuf, String),
    /// Neither row shape: the columns found.
    Shape(PathBuf, Vec<String>),
    /// A column of the right name with a type that is not read (column, type).
    ColumnType(PathBuf, String, String),
}

impl fmt::Display for EncountersError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncountersError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            EncountersError::NoFiles(p) => write!(
                f,
                "{}: no .parquet files of encounters or player_games rows",
                p.display()
            ),
            EncountersError::Parquet(p, e) => write!(f, "{}: {e}", p.display()),
            EncountersError::Shape(p, cols) => write!(
                f,
                "{}: neither encounters (white, black, white_score) nor player_games \
                 (player, opponent, colour, score) rows; its columns: {}",
                p.display(),
                cols.join(", ")
            ),
            EncountersError::ColumnType(p, c, t) => {
                write!(f, "{}: column {c} has type {t}", p.display())
            }
        }
    }
}

impl std::error::Error for EncountersError {}

/// Which columns hold what, by shape.
struct Shape {
    white: &'static str,
    black: &'static str,
    score: &'static str,
    white_rating: &'static str,
    black_rating: &'static str,
    /// `player_games`: only rows with colour = white, and not duplicates.
    player_rows: bool,
}

const ENCOUNTERS: Shape = Shape {
    white: "white",
    black: "black",
    score: "white_score",
    white_rating: "white_rating",
    black_rating: "black_rating",
    player_rows: false,
};

const PLAYER_GAMES: Shape = Shape {
    white: "player",
    black: "opponent",
    score: "score",
    white_rating: "rating",
    black_rating: "opponent_rating",
    player_rows: true,
};

/// Reads every Parquet file at `path` (a file or a folder).
pub fn read(path: &Path) -> Result<Encounters, EncountersError> {
    let files = parquet_files(path)?;
    if files.is_empty() {
        return Err(EncountersError::NoFiles(path.to_path_buf()));
    }
    let folder = files.len() > 1 || path.is_dir();
    let mut reader = Reader::default();
    for file in &files {
        match reader.file(file) {
            Ok(()) => reader.out.files += 1,
            Err(EncountersError::Shape(..)) if folder => reader.out.other_files += 1,
            Err(e) => return Err(e),
        }
    }
    if reader.out.files == 0 {
        return Err(EncountersError::NoFiles(path.to_path_buf()));
    }
    let mut out = reader.out;
    out.first_tag = reader.tags.into_iter().map(|(_, t)| t).collect();
    Ok(out)
}

fn parquet_files(path: &Path) -> Result<Vec<PathBuf>, EncountersError> {
    let io = |e| EncountersError::Io(path.to_path_buf(), e);
    if !path.is_dir() {
        File::open(path).map_err(io)?;
        return Ok(vec![path.to_path_buf()]);
    }
    let mut found = Vec::new();
    let mut folders = vec![path.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).map_err(io)? {
            let p = entry.map_err(io)?.path();
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            // Spark's and Hadoop's side files (`_SUCCESS`, `.part-0.crc`) are not data.
            if name.starts_with('_') || name.starts_with('.') {
                continue;
            }
            if p.is_dir() {
                folders.push(p);
            } else if name.ends_with(".parquet") {
                found.push(p);
            }
        }
    }
    found.sort();
    Ok(found)
}

#[derive(Default)]
struct Reader {
    out: Encounters,
    index: HashMap<String, u32>,
    events: HashMap<String, u32>,
    /// Per player: the date of the earliest rated tag seen, and the tag.
    tags: Vec<(Date, Option<i32>)>,
}

impl Reader {
    fn file(&mut self, file: &Path) -> Result<(), EncountersError> {
        let pq = |e: &dyn fmt::Display| EncountersError::Parquet(file.to_path_buf(), e.to_string());
        let handle = File::open(file).map_err(|e| EncountersError::Io(file.to_path_buf(), e))?;
        let builder = ParquetRecordBatchReaderBuilder::try_new(handle).map_err(|e| pq(&e))?;
        let names: Vec<String> = builder
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        let has = |c: &str| names.iter().any(|n| n == c);
        let shape = if has("white") && has("black") && has("white_score") {
            &ENCOUNTERS
        } else if has("player") && has("opponent") && has("colour") && has("score") {
            &PLAYER_GAMES
        } else {
            return Err(EncountersError::Shape(file.to_path_buf(), names));
        };
        let wanted = [
            shape.white,
            shape.black,
            shape.score,
            shape.white_rating,
            shape.black_rating,
            "colour",
            "duplicate",
            "date",
            "year",
            "month",
            "day",
            "event",
        ];
        let present: Vec<&str> = wanted.into_iter().filter(|c| has(c)).collect();
        let mask = ProjectionMask::columns(builder.parquet_schema(), present.iter().copied());
        let batches = builder
            .with_projection(mask)
            .with_batch_size(16_384)
            .build()
            .map_err(|e| pq(&e))?;
        for batch in batches {
            let batch = batch.map_err(|e| pq(&e))?;
            self.batch(file, shape, &batch)?;
        }
        Ok(())
    }

    fn batch(
        &mut self,
        file: &Path,
        shape: &Shape,
        batch: &RecordBatch,
    ) -> Result<(), EncountersError> {
        let col = |name: &str| Column::of(file, name, batch.column_by_name(name));
        let white = col(shape.white)?;
        let black = col(shape.black)?;
        let score = col(shape.score)?;
        let white_rating = col(shape.white_rating)?;
        let black_rating = col(shape.black_rating)?;
        let colour = col("colour")?;
        let duplicate = col("duplicate")?;
        let date = col("date")?;
        let (year, month, day) = (col("year")?, col("month")?, col("day")?);
        let event = col("event")?;
        for row in 0..batch.num_rows() {
            if shape.player_rows {
                if colour.text(row) != Some("white") {
                    continue;
                }
                if duplicate.number(row) == Some(1.0) {
                    self.out.duplicates += 1;
                    continue;
                }
            }
            let (Some(w), Some(b), Some(outcome)) = (
                white.text(row),
                black.text(row),
                score.number(row).and_then(WhiteResult::from_white_score),
            ) else {
                self.out.unfinished += 1;
                continue;
            };
            let when = date.text(row).and_then(parse_date).unwrap_or_else(|| {
                let part = |c: &Column, max: f64| {
                    c.number(row).filter(|v| *v >= 0.0).unwrap_or(0.0).min(max)
                };
                Date::new(
                    part(&year, 9999.0) as u16,
                    part(&month, 12.0) as u8,
                    part(&day, 31.0) as u8,
                )
            });
            let event_id = match event.text(row) {
                Some(e) if !e.is_empty() && e != "?" => {
                    let next = self.events.len() as u32 + 1;
                    *self.events.entry(e.to_string()).or_insert(next)
                }
                _ => 0,
            };
            let tag = |c: &Column| c.number(row).filter(|r| *r > 0.0).map(|r| r as i32);
            let w = self.player(w, when, tag(&white_rating));
            let b = self.player(b, when, tag(&black_rating));
            self.out.games.push(RatedGame {
                white: w,
                black: b,
                outcome,
                date: when,
                event: event_id,
            });
        }
        Ok(())
    }

    fn player(&mut self, name: &str, when: Date, tag: Option<i32>) -> u32 {
        let i = match self.index.get(name) {
            Some(&i) => i,
            None => {
                let i = self.out.names.len() as u32;
                self.index.insert(name.to_string(), i);
                self.out.names.push(name.to_string());
                self.tags.push((Date::new(u16::MAX, 0, 0), None));
                i
            }
        };
        let slot = &mut self.tags[i as usize];
        if let Some(t) = tag
            && when < slot.0
        {
            *slot = (when, Some(t));
        }
        i
    }
}

/// `YYYY.MM.DD` as PGN writes it (also `-`), unknown parts (`??`) as 0; None for no year.
fn parse_date(text: &str) -> Option<Date> {
    let mut parts = text.split(['.', '-', '/']);
    let year: u16 = parts.next()?.trim().parse().ok()?;
    let mut next = |max: u8| {
        parts
            .next()
            .and_then(|p| p.trim().parse::<u8>().ok())
            .filter(|v| *v <= max)
            .unwrap_or(0)
    };
    let month = next(12);
    let day = next(31);
    Some(Date::new(year, month, day))
}

/// One optional column of a batch, read as text or as a number whatever its Arrow type.
enum Column<'a> {
    Missing,
    Text32(&'a arrow_array::StringArray),
    Text64(&'a arrow_array::LargeStringArray),
    Number(&'a ArrayRef),
}

impl<'a> Column<'a> {
    fn of(file: &Path, name: &str, array: Option<&'a ArrayRef>) -> Result<Self, EncountersError> {
        let Some(array) = array else {
            return Ok(Column::Missing);
        };
        Ok(match array.data_type() {
            DataType::Utf8 => Column::Text32(array.as_string::<i32>()),
            DataType::LargeUtf8 => Column::Text64(array.as_string::<i64>()),
            DataType::Int32 | DataType::Int64 | DataType::Float32 | DataType::Float64 => {
                Column::Number(array)
            }
            other => {
                return Err(EncountersError::ColumnType(
                    file.to_path_buf(),
                    name.to_string(),
                    other.to_string(),
                ));
            }
        })
    }

    fn text(&self, row: usize) -> Option<&'a str> {
        match self {
            Column::Text32(a) => (!a.is_null(row)).then(|| a.value(row)),
            Column::Text64(a) => (!a.is_null(row)).then(|| a.value(row)),
            _ => None,
        }
    }

    fn number(&self, row: usize) -> Option<f64> {
        let Column::Number(a) = self else {
            return None;
        };
        if a.is_null(row) {
            return None;
        }
        Some(match a.data_type() {
            DataType::Int32 => f64::from(a.as_primitive::<Int32Type>().value(row)),
            DataType::Int64 => a.as_primitive::<Int64Type>().value(row) as f64,
            DataType::Float32 => f64::from(a.as_primitive::<Float32Type>().value(row)),
            _ => a.as_primitive::<Float64Type>().value(row),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Float64Array, Int32Array, StringArray};
    use arrow_schema::{Field, Schema};
    use parquet::arrow::ArrowWriter;
    use std::sync::Arc;

    fn write(path: &Path, columns: Vec<(&str, ArrayRef)>) {
        let schema = Arc::new(Schema::new(
            columns
                .iter()
                .map(|(n, a)| Field::new(*n, a.data_type().clone(), true))
                .collect::<Vec<_>>(),
        ));
        let batch = RecordBatch::try_new(
            schema.clone(),
            columns.into_iter().map(|(_, a)| a).collect(),
        )
        .unwrap();
        let mut w = ArrowWriter::try_new(File::create(path).unwrap(), schema, None).unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
    }

    fn text(v: &[Option<&str>]) -> ArrayRef {
        Arc::new(StringArray::from(v.to_vec()))
    }

    #[test]
    fn spark_encounters_in_part_files_are_read_in_name_order() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("encounters");
        std::fs::create_dir(&folder).unwrap();
        std::fs::write(folder.join("_SUCCESS"), b"").unwrap();
        write(
            &folder.join("part-00001.parquet"),
            vec![
                ("white", text(&[Some("Cee"), Some("Bee")])),
                ("black", text(&[Some("Ay"), Some("Cee")])),
                (
                    "white_score",
                    Arc::new(Float64Array::from(vec![Some(0.5), None])),
                ),
                ("date", text(&[Some("2021.??.??"), Some("2021.02.03")])),
                (
                    "white_rating",
                    Arc::new(Int32Array::from(vec![Some(2100), None])),
                ),
                (
                    "black_rating",
                    Arc::new(Int32Array::from(vec![None, Some(2200)])),
                ),
            ],
        );
        write(
            &folder.join("part-00000.parquet"),
            vec![
                ("white", text(&[Some("Ay")])),
                ("black", text(&[Some("Bee")])),
                ("white_score", Arc::new(Float64Array::from(vec![1.0]))),
                ("date", text(&[Some("2020.05.06")])),
                ("white_rating", Arc::new(Int32Array::from(vec![2000]))),
                ("black_rating", Arc::new(Int32Array::from(vec![1900]))),
            ],
        );
        let e = read(&folder).unwrap();
        assert_eq!(e.files, 2);
        assert_eq!(e.names, ["Ay", "Bee", "Cee"]);
        assert_eq!(e.unfinished, 1);
        assert_eq!(e.games.len(), 2);
        assert_eq!(e.games[0].outcome, WhiteResult::WhiteWins);
        assert_eq!(e.games[0].date, Date::new(2020, 5, 6));
        assert_eq!((e.games[1].white, e.games[1].black), (2, 0));
        assert_eq!(e.games[1].outcome, WhiteResult::Draw);
        assert_eq!(e.games[1].date, Date::new(2021, 0, 0));
        assert_eq!(e.first_tag, [Some(2000), Some(1900), Some(2100)]);
    }

    #[test]
    fn player_games_rows_give_whites_side_once_and_skip_duplicates() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("player_games.parquet");
        write(
            &file,
            vec![
                (
                    "player",
                    text(&[Some("Ay"), Some("Bee"), Some("Ay"), Some("Bee")]),
                ),
                (
                    "opponent",
                    text(&[Some("Bee"), Some("Ay"), Some("Bee"), Some("Ay")]),
                ),
                (
                    "colour",
                    text(&[Some("white"), Some("black"), Some("white"), Some("black")]),
                ),
                (
                    "score",
                    Arc::new(Float64Array::from(vec![0.0, 1.0, 0.0, 1.0])),
                ),
                ("duplicate", Arc::new(Int32Array::from(vec![0, 0, 1, 1]))),
                (
                    "year",
                    Arc::new(Int32Array::from(vec![1999, 1999, 1999, 1999])),
                ),
            ],
        );
        let e = read(&file).unwrap();
        assert_eq!(e.games.len(), 1);
        assert_eq!(e.duplicates, 1);
        assert_eq!(e.games[0].outcome, WhiteResult::BlackWins);
        assert_eq!(e.games[0].date, Date::new(1999, 0, 0));
    }

    #[test]
    fn a_file_of_other_rows_names_its_columns() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("findings.parquet");
        write(&file, vec![("code", text(&[Some("pgn.bom")]))]);
        let err = read(&file).unwrap_err().to_string();
        assert!(err.ends_with("its columns: code"), "{err}");
        let empty = dir.path().join("nothing");
        std::fs::create_dir(&empty).unwrap();
        assert!(
            read(&empty)
                .unwrap_err()
                .to_string()
                .ends_with("no .parquet files of encounters or player_games rows")
        );
        // In a folder, the other table is passed over once a file of rows is there.
        std::fs::rename(&file, empty.join("findings.parquet")).unwrap();
        assert!(read(&empty).is_err());
        write(
            &empty.join("player_games.parquet"),
            vec![
                ("player", text(&[Some("Ay")])),
                ("opponent", text(&[Some("Bee")])),
                ("colour", text(&[Some("white")])),
                ("score", Arc::new(Float64Array::from(vec![0.5]))),
            ],
        );
        let e = read(&empty).unwrap();
        assert_eq!((e.files, e.other_files, e.games.len()), (1, 1, 1));
    }
}
