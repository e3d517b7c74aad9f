//! The one output convention of every command that writes a table or games (`export`,
//! `stats`, `ratings`, `duplicates`, `openings`, `players`, `check --findings`): the format
//! names (`--format`), the rule that picks a format from `-o FILE`'s extension under a
//! compression suffix, the refusals of what cannot be honoured, and the factory that opens
//! a table format on its output. A new table format is one file beside `csv.rs` plus one
//! variant here.

use super::ExportError;
use super::csv::CsvFormat;
use super::jsonl::JsonlFormat;
use super::output::{Compression, Output};
use super::parquet::{ParquetFormat, Target};
use super::table::TableFormat;
use super::text::TextFormat;
use std::fmt;
use std::path::Path;

/// Every output format a command may offer; each command says which it offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// An aligned table or report for people (standard output).
    Text,
    /// Clean PGN (games only).
    Pgn,
    /// CSV with a header row; cells a spreadsheet would run as formulas get a `'`.
    Csv,
    /// JSON lines: one JSON object per row.
    Jsonl,
    /// One JSON document (a report that is not a table).
    Json,
    /// Apache Parquet (compressed inside; needs -o FILE).
    Parquet,
}

impl crate::choice::Choice for Format {
    const ALL: &'static [Format] = &Format::ALL;

    fn name(self) -> &'static str {
        Format::name(self)
    }

    fn help(self) -> &'static str {
        match self {
            Format::Text => "An aligned table or report for people (standard output)",
            Format::Pgn => "Clean PGN (games only)",
            Format::Csv => {
                "CSV with a header row; cells a spreadsheet would run as formulas get a `'`"
            }
            Format::Jsonl => "JSON lines: one JSON object per row",
            Format::Json => "One JSON document (a report that is not a table)",
            Format::Parquet => "Apache Parquet (compressed inside; needs -o FILE)",
        }
    }
}

impl Format {
    pub const ALL: [Format; 6] = [
        Format::Text,
        Format::Pgn,
        Format::Csv,
        Format::Jsonl,
        Format::Json,
        Format::Parquet,
    ];

    /// The name `--format` takes and the docs use.
    pub fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Pgn => "pgn",
            Format::Csv => "csv",
            Format::Jsonl => "jsonl",
            Format::Json => "json",
            Format::Parquet => "parquet",
        }
    }

    /// The file extensions that mean this format (`.ndjson` is JSON lines too).
    fn extensions(self) -> &'static [&'static str] {
        match self {
            // A text table or report is for the screen; a file named .txt says no format.
            Format::Text => &[],
            Format::Pgn => &["pgn"],
            Format::Csv => &["csv"],
            Format::Jsonl => &["jsonl", "ndjson"],
            Format::Json => &["json"],
            Format::Parquet => &["parquet"],
        }
    }

    /// The format a file name says, looking under a compression suffix
    /// (`board.csv.gz` is CSV); None when the name says none.
    pub fn from_path(path: &Path) -> Option<Format> {
        let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
        let name = [".gz", ".zst", ".bz2", ".xz"]
            .iter()
            .find_map(|c| name.strip_suffix(c))
            .unwrap_or(&name);
        let ext = name.rsplit_once('.')?.1;
        Format::ALL
            .into_iter()
            .find(|f| f.extensions().contains(&ext))
    }
}

/// Whether the file name has an extension under its compression suffix (`f.xlsx`, not `f`).
fn has_extension(path: &Path) -> bool {
    let Some(name) = path.file_name() else {
        return false;
    };
    let name = name.to_string_lossy().to_ascii_lowercase();
    let name = [".gz", ".zst", ".bz2", ".xz"]
        .iter()
        .find_map(|c| name.strip_suffix(c))
        .unwrap_or(&name);
    name.rsplit_once('.')
        .is_some_and(|(stem, _)| !stem.is_empty())
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why the requested output cannot be written as asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormatError {
    /// The command does not write this format.
    NotOffered {
        format: Format,
        offered: Vec<Format>,
    },
    /// `--format` and the file's extension disagree.
    Conflict {
        format: Format,
        path: String,
        named: Format,
    },
    /// A file name that says no format, with no `--format`.
    Unnamed { path: String, offered: Vec<Format> },
    /// The format cannot go to standard output (Parquet).
    NeedsFile(Format),
    /// The format has its own compression, or none: a compression suffix cannot be honoured.
    NoCompression { format: Format, path: String },
}

fn names(formats: &[Format]) -> String {
    formats
        .iter()
        .map(|f| f.name())
        .collect::<Vec<_>>()
        .join(", ")
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormatError::NotOffered { format, offered } => write!(
                f,
                "this command does not write {format}; its formats are: {}",
                names(offered)
            ),
            FormatError::Conflict {
                format,
                path,
                named,
            } => write!(
                f,
                "--format {format} but {path} is named as {named}; give one or make them agree"
            ),
            FormatError::Unnamed { path, offered } => write!(
                f,
                "{path}: the name says no format; name it .{} (.gz/.zst/.bz2/.xz compress) or give --format ({})",
                offered
                    .iter()
                    .filter_map(|f| f.extensions().first().copied())
                    .collect::<Vec<_>>()
                    .join(", ."),
                names(offered)
            ),
            FormatError::NeedsFile(format) => {
                write!(
                    f,
                    "--format {format} needs -o FILE (it cannot go to standard output)"
                )
            }
            FormatError::NoCompression { format, path } => write!(
                f,
                "{path}: {format} cannot be compressed by a suffix ({}); drop the suffix",
                if *format == Format::Parquet {
                    "Parquet is compressed inside with zstd"
                } else {
                    "this output is written as it is"
                }
            ),
        }
    }
}

impl std::error::Error for FormatError {}

/// The format of one command's output: `--format` if given, else the `-o` file's extension,
/// else `default`; refused when the command does not offer it, when the flag and the name
/// disagree, or when the output cannot carry it (Parquet to standard output or compressed by
/// a suffix).
pub fn choose(
    flag: Option<Format>,
    output: Option<&Path>,
    offered: &[Format],
    default: Format,
) -> Result<Format, FormatError> {
    let output = super::output::named(output);
    let named = output.and_then(Format::from_path);
    let format = match (flag, named, output) {
        (Some(f), Some(n), Some(path)) if f != n && !(f == Format::Text && n == Format::Text) => {
            return Err(FormatError::Conflict {
                format: f,
                path: path.display().to_string(),
                named: n,
            });
        }
        (Some(f), _, _) => f,
        (None, Some(n), _) => n,
        (None, None, Some(path)) if default == Format::Text || has_extension(path) => {
            // Text is for the screen: a file must say what it holds; and an extension that
            // names another format (`.xlsx`, `.txt`) is not written over with this one.
            return Err(FormatError::Unnamed {
                path: path.display().to_string(),
                offered: offered.to_vec(),
            });
        }
        (None, None, _) => default,
    };
    if !offered.contains(&format) {
        return Err(FormatError::NotOffered {
            format,
            offered: offered.to_vec(),
        });
    }
    match output {
        None if format == Format::Parquet => Err(FormatError::NeedsFile(format)),
        Some(path)
            if format == Format::Parquet && Compression::from_path(path) != Compression::None =>
        {
            Err(FormatError::NoCompression {
                format,
                path: path.display().to_string(),
            })
        }
        _ => Ok(format),
    }
}

/// Opens a table format on `output` (standard output when None; compressed by the name's
/// suffix): aligned text, CSV, JSON lines or Parquet. `csv_raw`: CSV cells unchanged, without
/// the formula guard. PGN and JSON are not tables: the caller writes those itself.
pub fn open_table(
    format: Format,
    output: Option<&Path>,
    csv_raw: bool,
) -> Result<Box<dyn TableFormat>, ExportError> {
    let output = super::output::named(output);
    match format {
        Format::Text => Ok(Box::new(TextFormat::new(Output::open(output)?))),
        Format::Csv => Ok(Box::new(CsvFormat::new(Output::open(output)?, csv_raw))),
        Format::Jsonl => Ok(Box::new(JsonlFormat::new(Output::open(output)?))),
        Format::Parquet => match output {
            Some(path) => Ok(Box::new(ParquetFormat::create(Target::File(
                path.to_owned(),
            ))?)),
            None => Err(ExportError::Io(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                FormatError::NeedsFile(format).to_string(),
            ))),
        },
        Format::Pgn | Format::Json => Err(ExportError::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{format} is not a table format"),
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    const TABLES: [Format; 4] = [Format::Text, Format::Csv, Format::Jsonl, Format::Parquet];

    fn pick(flag: Option<Format>, out: Option<&str>) -> Result<Format, FormatError> {
        let path = out.map(PathBuf::from);
        choose(flag, path.as_deref(), &TABLES, Format::Text)
    }

    #[test]
    fn the_extension_under_a_compression_suffix_names_the_format() {
        assert_eq!(Format::from_path(Path::new("r.csv.gz")), Some(Format::Csv));
        assert_eq!(
            Format::from_path(Path::new("x/r.JSONL.zst")),
            Some(Format::Jsonl)
        );
        assert_eq!(
            Format::from_path(Path::new("r.ndjson")),
            Some(Format::Jsonl)
        );
        assert_eq!(
            Format::from_path(Path::new("r.parquet")),
            Some(Format::Parquet)
        );
        assert_eq!(
            Format::from_path(Path::new("games.pgn.xz")),
            Some(Format::Pgn)
        );
        assert_eq!(Format::from_path(Path::new("r.gz")), None);
        assert_eq!(Format::from_path(Path::new("results")), None);
        // ratings -o list.csv.gz once wrote the text table, gzipped.
        assert_eq!(pick(None, Some("list.csv.gz")), Ok(Format::Csv));
        assert_eq!(pick(None, None), Ok(Format::Text));
    }

    #[test]
    fn what_cannot_be_honoured_is_refused() {
        // check --findings f.parquet once wrote JSON lines into f.parquet.
        let offered = [Format::Csv, Format::Jsonl];
        let e = choose(None, Some(Path::new("f.parquet")), &offered, Format::Jsonl).unwrap_err();
        assert_eq!(
            e.to_string(),
            "this command does not write parquet; its formats are: csv, jsonl"
        );
        // stats players -o x.parquet.gz once wrote plain Parquet.
        assert!(matches!(
            pick(None, Some("x.parquet.gz")),
            Err(FormatError::NoCompression { .. })
        ));
        assert!(matches!(
            pick(Some(Format::Parquet), None),
            Err(FormatError::NeedsFile(_))
        ));
        assert!(matches!(
            pick(Some(Format::Csv), Some("x.jsonl")),
            Err(FormatError::Conflict { .. })
        ));
        let e = pick(None, Some("board.out")).unwrap_err();
        assert!(
            e.to_string().contains("name it .csv, .jsonl, .parquet"),
            "{e}"
        );
        assert!(matches!(
            pick(Some(Format::Pgn), None),
            Err(FormatError::NotOffered { .. })
        ));
        // The flag decides when the name says nothing.
        assert_eq!(pick(Some(Format::Csv), Some("board.out")), Ok(Format::Csv));
        // A name without an extension takes the command's default; one with an extension
        // that names another format is refused.
        let findings = [Format::Csv, Format::Jsonl, Format::Parquet];
        let named = |p: &str| choose(None, Some(Path::new(p)), &findings, Format::Jsonl);
        assert_eq!(named("findings"), Ok(Format::Jsonl));
        assert_eq!(named("/dev/stdout"), Ok(Format::Jsonl));
        assert!(matches!(named("f.xlsx"), Err(FormatError::Unnamed { .. })));
    }
}
