//! Parquet (arrow-rs): typed columns (integers as INT64, floats as DOUBLE, text as UTF-8,
//! finding codes as a list of UTF-8), zstd compression, streamed in batches of 8,192 rows
//! into row groups of at most 65,536 rows or 64 MiB, so memory does not grow with the
//! output; the Parquet encoding runs on a writer thread beside the database reads. With partition columns (`--partition year,month`) rows go to Hive-style folders
//! (`year=2014/month=06/part-00000.parquet`, as lichess's own Parquet release does) and the
//! partition columns live in the folder names only, as Spark and DuckDB expect.

use super::ExportError;
use super::output::{TempFile, with_path};
use super::table::{Cell, Column, Kind, TableFormat};
use arrow_array::builder::{Float64Builder, Int64Builder, ListBuilder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{SyncSender, sync_channel};
use std::thread::JoinHandle;

/// Rows gathered before they are handed to the Parquet writer.
const BATCH_ROWS: usize = 8_192;
/// Row group limits: whichever comes first.
const ROW_GROUP_ROWS: usize = 65_536;
const ROW_GROUP_BYTES: usize = 64 << 20;

/// The columns that may partition the output: those the games can be read in the order of.
pub const PARTITION_COLUMNS: &[&str] = &crate::db::query::games::ORDER_COLUMNS;

enum Builder {
    Int(Int64Builder),
    Float(Float64Builder),
    Text(StringBuilder),
    List(ListBuilder<StringBuilder>),
}

impl Builder {
    fn new(kind: Kind) -> Builder {
        match kind {
            Kind::Int => Builder::Int(Int64Builder::with_capacity(BATCH_ROWS)),
            Kind::Float => Builder::Float(Float64Builder::with_capacity(BATCH_ROWS)),
            Kind::Text => Builder::Text(StringBuilder::new()),
            Kind::TextList => Builder::List(ListBuilder::new(StringBuilder::new())),
        }
    }

    fn data_type(kind: Kind) -> DataType {
        match kind {
            Kind::Int => DataType::Int64,
            Kind::Float => DataType::Float64,
            Kind::Text => DataType::Utf8,
            Kind::TextList => DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
        }
    }

    /// Appends a cell; a cell of another type than the column's is a bug of the catalogue,
    /// written as null rather than a panic.
    fn push(&mut self, cell: &Cell<'_>) {
        match (self, cell) {
            (Builder::Int(b), Cell::Int(n)) => b.append_value(*n),
            (Builder::Int(b), _) => b.append_null(),
            (Builder::Float(b), Cell::Float(x) | Cell::Fixed(x, _)) => b.append_value(*x),
            (Builder::Float(b), Cell::Int(n)) => b.append_value(*n as f64),
            (Builder::Float(b), _) => b.append_null(),
            (Builder::Text(b), Cell::Text(t)) => b.append_value(t),
            (Builder::Text(b), _) => b.append_null(),
            (Builder::List(b), Cell::List(items)) => {
                for item in items {
                    b.values().append_value(item);
                }
                b.append(true);
            }
            (Builder::List(b), _) => b.append(false),
        }
    }

    /// The batch's array; a text builder starts the next batch with room for as many bytes
    /// as this one held (a `finish` leaves it empty, and the moves column would otherwise
    /// regrow its megabytes by doubling in every batch).
    fn finish(&mut self) -> ArrayRef {
        match self {
            Builder::Int(b) => Arc::new(b.finish()),
            Builder::Float(b) => Arc::new(b.finish()),
            Builder::Text(b) => {
                let bytes = b.values_slice().len();
                let array = b.finish();
                *b = StringBuilder::with_capacity(BATCH_ROWS, bytes);
                Arc::new(array)
            }
            Builder::List(b) => Arc::new(b.finish()),
        }
    }
}

/// Batches waiting for the writer thread: enough to keep it busy, few enough that memory
/// stays flat.
const QUEUED_BATCHES: usize = 2;

/// One Parquet file being written, under a temporary name until it is complete. Encoding
/// and compression run on a thread of their own, beside the reading of the next rows from
/// the database (about a quarter of the work moves there: docs/PERFORMANCE.md).
struct Part {
    batches: Option<SyncSender<RecordBatch>>,
    writer: Option<JoinHandle<Result<(), ExportError>>>,
    temp: Option<TempFile>,
}

impl Part {
    fn create(path: &Path, schema: SchemaRef, temp_file: bool) -> Result<Part, ExportError> {
        let (temp, file) = if temp_file {
            let (t, f) = TempFile::create(path)?;
            (Some(t), f)
        } else {
            (None, File::create(path).map_err(|e| with_path(path, e))?)
        };
        let props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::try_new(3)?))
            .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
            .set_max_row_group_bytes(Some(ROW_GROUP_BYTES))
            .set_created_by(format!("arbiter {}", env!("CARGO_PKG_VERSION")))
            .build();
        let mut writer =
            ArrowWriter::try_new(BufWriter::with_capacity(1 << 16, file), schema, Some(props))?;
        let (batches, queue) = sync_channel::<RecordBatch>(QUEUED_BATCHES);
        let writer = std::thread::Builder::new()
            .name("parquet writer".to_owned())
            .spawn(move || {
                for batch in queue {
                    writer.write(&batch)?;
                }
                writer.close()?;
                Ok(())
            })?;
        Ok(Part {
            batches: Some(batches),
            writer: Some(writer),
            temp,
        })
    }

    fn write(&mut self, batch: RecordBatch) -> Result<(), ExportError> {
        if let Some(batches) = &self.batches
            && batches.send(batch).is_ok()
        {
            return Ok(());
        }
        // The writer stopped: its error says why.
        self.join()?;
        Err(ExportError::Io(std::io::Error::other(
            "the Parquet writer stopped",
        )))
    }

    /// Ends the writer's input and waits until it has written and closed the file.
    fn join(&mut self) -> Result<(), ExportError> {
        self.batches = None;
        match self.writer.take().map(JoinHandle::join) {
            None | Some(Ok(Ok(()))) => Ok(()),
            Some(Ok(Err(e))) => Err(e),
            Some(Err(_)) => Err(ExportError::Io(std::io::Error::other(
                "the Parquet writer thread panicked",
            ))),
        }
    }

    fn close(mut self) -> Result<(), ExportError> {
        self.join()?;
        if let Some(t) = self.temp.take() {
            t.persist()?;
        }
        Ok(())
    }
}

impl Drop for Part {
    /// An export that stops part-way still waits for the writer, so that no thread writes
    /// into a file that is being removed.
    fn drop(&mut self) {
        let _ = self.join();
    }
}

/// Where the output goes: one file, or a folder of Hive-style partitions.
pub enum Target {
    File(PathBuf),
    Partitioned { dir: PathBuf, by: Vec<String> },
}

struct Partitions {
    /// The final folder, and the temporary one filled until the end.
    dir: PathBuf,
    temp_dir: PathBuf,
    /// Indexes of the partition columns among the columns.
    keys: Vec<usize>,
    /// The folder of the part being written, and how many parts each folder has.
    current: Option<String>,
    parts: std::collections::HashMap<String, usize>,
    done: bool,
}

impl Drop for Partitions {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_dir_all(&self.temp_dir);
        }
    }
}

pub struct ParquetFormat {
    target: Target,
    schema: Option<SchemaRef>,
    /// Indexes of the columns written to the files (all but the partition columns).
    data_columns: Vec<usize>,
    kinds: Vec<Kind>,
    builders: Vec<Builder>,
    rows: usize,
    part: Option<Part>,
    partitions: Option<Partitions>,
    /// Every column, the partition columns too: the schema of the one file an empty
    /// partitioned export writes.
    full_schema: Option<SchemaRef>,
}

/// A partition folder's value: `__HIVE_DEFAULT_PARTITION__` for a missing value (Hive's
/// name), months and days on two digits, characters unsafe in a path escaped as `%XX`.
fn partition_value(cell: &Cell<'_>, column: &str) -> String {
    match cell {
        Cell::Int(n) if column == "month" || column == "day" => format!("{n:02}"),
        Cell::Int(n) => n.to_string(),
        Cell::Float(x) => x.to_string(),
        Cell::Fixed(x, d) => format!("{x:.0$}", usize::from(*d)),
        Cell::Text(t) if !t.is_empty() => {
            let mut out = String::new();
            for c in t.chars() {
                if c.is_ascii_alphanumeric() || matches!(c, ' ' | '-' | '_' | '.') {
                    out.push(c);
                } else {
                    let mut buf = [0u8; 4];
                    for b in c.encode_utf8(&mut buf).bytes() {
                        out.push_str(&format!("%{b:02X}"));
                    }
                }
            }
            out
        }
        _ => "__HIVE_DEFAULT_PARTITION__".to_owned(),
    }
}

impl ParquetFormat {
    /// Creates the temporary file (or folder) now, so an unwritable path fails before any
    /// work.
    pub fn create(target: Target) -> Result<ParquetFormat, ExportError> {
        if let Target::Partitioned { dir, .. } = &target
            && dir.exists()
            && std::fs::read_dir(dir)
                .map_err(|e| with_path(dir, e))?
                .next()
                .is_some()
        {
            return Err(ExportError::Io(std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                format!("{}: the folder exists and is not empty", dir.display()),
            )));
        }
        let mut format = ParquetFormat {
            target,
            schema: None,
            data_columns: Vec::new(),
            kinds: Vec::new(),
            builders: Vec::new(),
            rows: 0,
            part: None,
            partitions: None,
            full_schema: None,
        };
        if let Target::Partitioned { dir, .. } = &format.target {
            let temp_dir = super::output::temp_name(dir);
            std::fs::create_dir_all(&temp_dir).map_err(|e| with_path(dir, e))?;
            format.partitions = Some(Partitions {
                dir: dir.clone(),
                temp_dir,
                keys: Vec::new(),
                current: None,
                parts: Default::default(),
                done: false,
            });
        }
        Ok(format)
    }

    fn flush_batch(&mut self) -> Result<(), ExportError> {
        // Ctrl-C stops the export here; the part's temporary file goes with it.
        crate::interrupt::check().map_err(ExportError::Io)?;
        if self.rows == 0 {
            return Ok(());
        }
        let (Some(schema), Some(part)) = (&self.schema, &mut self.part) else {
            return Ok(());
        };
        let arrays: Vec<ArrayRef> = self.builders.iter_mut().map(Builder::finish).collect();
        let batch = RecordBatch::try_new(schema.clone(), arrays)?;
        part.write(batch)?;
        self.rows = 0;
        Ok(())
    }

    /// Opens the part file for the folder `key` (closing the previous one).
    fn switch_partition(&mut self, key: String) -> Result<(), ExportError> {
        self.flush_batch()?;
        if let Some(part) = self.part.take() {
            part.close()?;
        }
        let schema = self.schema.clone().expect("begin sets the schema");
        let Some(p) = &mut self.partitions else {
            return Ok(());
        };
        let folder = p.temp_dir.join(&key);
        std::fs::create_dir_all(&folder).map_err(|e| with_path(&folder, e))?;
        let n = p.parts.entry(key.clone()).or_insert(0);
        let path = folder.join(format!("part-{:05}.parquet", *n));
        *n += 1;
        p.current = Some(key);
        self.part = Some(Part::create(&path, schema, false)?);
        Ok(())
    }
}

impl TableFormat for ParquetFormat {
    fn begin(&mut self, columns: &[Column]) -> Result<(), ExportError> {
        let mut keys = Vec::new();
        if let Target::Partitioned { by, .. } = &self.target {
            for name in by {
                let k = columns.iter().position(|c| c.name == name).ok_or_else(|| {
                    ExportError::Io(std::io::Error::new(
                        std::io::ErrorKind::InvalidInput,
                        format!("partition column {name:?} is not among the exported columns"),
                    ))
                })?;
                keys.push(k);
            }
        }
        self.data_columns = (0..columns.len()).filter(|k| !keys.contains(k)).collect();
        self.kinds = self.data_columns.iter().map(|&k| columns[k].kind).collect();
        self.builders = self.kinds.iter().map(|&k| Builder::new(k)).collect();
        let fields: Vec<Field> = self
            .data_columns
            .iter()
            .map(|&k| Field::new(columns[k].name, Builder::data_type(columns[k].kind), true))
            .collect();
        let schema = Arc::new(Schema::new(fields));
        self.schema = Some(schema.clone());
        self.full_schema = Some(Arc::new(Schema::new(
            columns
                .iter()
                .map(|c| Field::new(c.name, Builder::data_type(c.kind), true))
                .collect::<Vec<_>>(),
        )));
        match (&self.target, &mut self.partitions) {
            (Target::File(path), _) => {
                self.part = Some(Part::create(path, schema, true)?);
            }
            (Target::Partitioned { by, .. }, Some(p)) => {
                p.keys = keys;
                // Folder names are `column=value`, in the order asked.
                debug_assert_eq!(by.len(), p.keys.len());
            }
            (Target::Partitioned { .. }, None) => {}
        }
        Ok(())
    }

    fn row(&mut self, cells: &[Cell<'_>]) -> Result<(), ExportError> {
        if let (Some(p), Target::Partitioned { by, .. }) = (&self.partitions, &self.target) {
            let key = p
                .keys
                .iter()
                .zip(by)
                .map(|(&k, name)| format!("{name}={}", partition_value(&cells[k], name)))
                .collect::<Vec<_>>()
                .join("/");
            if p.current.as_deref() != Some(key.as_str()) {
                self.switch_partition(key)?;
            }
        }
        for (builder, &k) in self.builders.iter_mut().zip(&self.data_columns) {
            builder.push(&cells[k]);
        }
        self.rows += 1;
        if self.rows == BATCH_ROWS {
            self.flush_batch()?;
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> Result<(), ExportError> {
        self.flush_batch()?;
        if let Some(part) = self.part.take() {
            part.close()?;
        }
        if let Some(p) = &mut self.partitions {
            // Nothing selected: no partition folder exists, so the dataset is one file at the
            // top with every column (partition columns included) and no rows, which DuckDB,
            // pyarrow and Spark read as an empty table of the right types.
            if p.parts.is_empty()
                && let Some(schema) = &self.full_schema
            {
                Part::create(
                    &p.temp_dir.join("part-00000.parquet"),
                    schema.clone(),
                    false,
                )?
                .close()?;
            }
            if p.dir.exists() {
                // Checked empty at the start.
                std::fs::remove_dir(&p.dir).map_err(|e| with_path(&p.dir, e))?;
            }
            std::fs::rename(&p.temp_dir, &p.dir).map_err(|e| with_path(&p.dir, e))?;
            p.done = true;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquet::file::reader::{FileReader, SerializedFileReader};

    fn columns() -> Vec<Column> {
        vec![
            Column {
                name: "id",
                kind: Kind::Int,
                meaning: "",
            },
            Column {
                name: "year",
                kind: Kind::Int,
                meaning: "",
            },
            Column {
                name: "white",
                kind: Kind::Text,
                meaning: "",
            },
            Column {
                name: "acc",
                kind: Kind::Float,
                meaning: "",
            },
            Column {
                name: "findings",
                kind: Kind::TextList,
                meaning: "",
            },
        ]
    }

    fn row(id: i64, year: Option<i64>) -> Vec<Cell<'static>> {
        vec![
            Cell::Int(id),
            Cell::opt_int(year),
            Cell::text("Tal, Mihail"),
            Cell::Float(88.5),
            Cell::List(vec!["a.b".into()]),
        ]
    }

    #[test]
    fn a_file_and_an_empty_file_read_back() {
        let dir = tempfile::tempdir().unwrap();
        for n in [0, 20_000] {
            let path = dir.path().join(format!("g{n}.parquet"));
            let mut f = Box::new(ParquetFormat::create(Target::File(path.clone())).unwrap());
            f.begin(&columns()).unwrap();
            for id in 0..n {
                f.row(&row(id, Some(2000))).unwrap();
            }
            assert!(!path.exists());
            f.finish().unwrap();
            let reader = SerializedFileReader::new(File::open(&path).unwrap()).unwrap();
            let meta = reader.metadata();
            assert_eq!(meta.file_metadata().num_rows(), n);
            assert_eq!(meta.file_metadata().schema_descr().num_columns(), 5);
        }
    }

    /// A format partitioning `columns()` by year into `out`, begun.
    fn by_year(out: &Path) -> Box<ParquetFormat> {
        let mut f = Box::new(
            ParquetFormat::create(Target::Partitioned {
                dir: out.to_owned(),
                by: vec!["year".into()],
            })
            .unwrap(),
        );
        f.begin(&columns()).unwrap();
        f
    }

    #[test]
    fn an_empty_partitioned_export_is_one_file_with_every_column_and_no_rows() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("games");
        let f = by_year(&out);
        f.finish().unwrap();
        let files: Vec<_> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(files, ["part-00000.parquet"]);
        let r =
            SerializedFileReader::new(File::open(out.join("part-00000.parquet")).unwrap()).unwrap();
        let m = r.metadata().file_metadata();
        assert_eq!((m.num_rows(), m.schema_descr().num_columns()), (0, 5));
    }

    #[test]
    fn partitions_go_to_hive_folders_without_their_column() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("games");
        let mut f = by_year(&out);
        for (id, year) in [(1, Some(1990)), (2, Some(1990)), (3, None), (4, Some(1990))] {
            f.row(&row(id, year)).unwrap();
        }
        f.finish().unwrap();
        let count = |p: &Path| {
            let r = SerializedFileReader::new(File::open(p).unwrap()).unwrap();
            let m = r.metadata().file_metadata();
            (m.num_rows(), m.schema_descr().num_columns())
        };
        assert_eq!(count(&out.join("year=1990/part-00000.parquet")), (2, 4));
        assert_eq!(
            count(&out.join("year=__HIVE_DEFAULT_PARTITION__/part-00000.parquet")),
            (1, 4)
        );
        assert_eq!(count(&out.join("year=1990/part-00001.parquet")), (1, 4));
        // A second export into the same folder is refused.
        assert!(
            ParquetFormat::create(Target::Partitioned {
                dir: out,
                by: vec![]
            })
            .is_err()
        );
    }
}
