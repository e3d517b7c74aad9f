//! Sinks shared by `check` and `import`: the findings file (JSON lines or CSV, chosen by
//! extension) and the quarantine file that keeps every rejected game's bytes verbatim.

use super::run::Sink;
use super::work::Processed;
use crate::export::csv::CsvFormat;
use crate::export::findings::{FindingRow, FindingsTable};
use crate::export::jsonl::JsonlFormat;
use crate::export::output::{Compression, Output};
use crate::export::table::TableFormat;
use crate::pgn::Finding;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// Writes every finding, one per line (`.jsonl`) or row (`.csv`; `.csv.gz` and the other
/// compressions too), with the columns `export --findings` writes
/// (`export::findings::FINDING_COLUMNS`). The file gets its name when complete.
pub struct FindingsFile {
    table: FindingsTable,
}

impl FindingsFile {
    /// `csv_raw`: write CSV values unchanged (no `'` before cells a spreadsheet would run).
    pub fn create(path: &Path, csv_raw: bool) -> io::Result<FindingsFile> {
        let out = Output::open(Some(path))?;
        let stem = match Compression::from_path(path) {
            Compression::None => path.to_owned(),
            _ => path.with_extension(""),
        };
        let csv = stem
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
        let format: Box<dyn TableFormat> = if csv {
            Box::new(CsvFormat::new(out, csv_raw))
        } else {
            Box::new(JsonlFormat::new(out))
        };
        Ok(FindingsFile {
            table: FindingsTable::begin(format)?,
        })
    }

    pub fn write(&mut self, file: &str, findings: &[Finding]) -> io::Result<()> {
        for f in findings {
            self.table.write(&FindingRow::from_finding(file, f))?;
        }
        Ok(())
    }

    pub fn finish(self) -> io::Result<()> {
        Ok(self.table.finish()?)
    }
}

/// Keeps the raw bytes of every rejected game, verbatim, one after another.
pub struct Quarantine {
    out: BufWriter<File>,
    pub games: u64,
}

impl Quarantine {
    pub fn create(path: &Path) -> io::Result<Quarantine> {
        Ok(Quarantine {
            out: BufWriter::new(File::create(path)?),
            games: 0,
        })
    }

    pub fn write(&mut self, game: &Processed) -> io::Result<()> {
        self.out.write_all(&game.raw)?;
        // Games are separated by a blank line, so the file reads back as PGN.
        if !game.raw.ends_with(b"\n\n") {
            self.out.write_all(if game.raw.ends_with(b"\n") {
                b"\n"
            } else {
                b"\n\n"
            })?;
        }
        self.games += 1;
        Ok(())
    }

    pub fn finish(mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The sink of `arbiter check`: findings file, quarantine, nothing else.
#[derive(Default)]
pub struct CheckSink {
    pub findings: Option<FindingsFile>,
    pub quarantine: Option<Quarantine>,
    /// Print each error finding to stderr (off with --quiet).
    pub print_errors: bool,
}

impl Sink for CheckSink {
    fn game(&mut self, name: &str, game: &Processed) -> io::Result<()> {
        if let Some(f) = &mut self.findings {
            f.write(name, &game.findings)?;
        }
        if game.rejected {
            if self.print_errors {
                for f in game
                    .findings
                    .iter()
                    .filter(|f| f.severity == crate::pgn::Severity::Error)
                {
                    eprintln!("{name}: {f}");
                }
            }
            if let Some(q) = &mut self.quarantine {
                q.write(game)?;
            }
        }
        Ok(())
    }

    fn file_findings(&mut self, name: &str, findings: &[Finding]) -> io::Result<()> {
        if let Some(f) = &mut self.findings {
            f.write(name, findings)?;
        }
        Ok(())
    }
}

impl CheckSink {
    pub fn finish(self) -> io::Result<()> {
        if let Some(f) = self.findings {
            f.finish()?;
        }
        if let Some(q) = self.quarantine {
            q.finish()?;
        }
        Ok(())
    }
}
