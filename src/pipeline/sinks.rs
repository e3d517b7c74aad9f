//! Sinks shared by `check` and `import`: the findings file (JSON lines, CSV or Parquet, chosen
//! by extension) and the quarantine file that keeps every rejected game's bytes verbatim.

use super::error::SinkError;
use super::run::Sink;
use super::work::Processed;
use crate::export::findings::{FindingsTable, finding_row};
use crate::export::format::{self, Format, FormatError};
use crate::pgn::Finding;
use crate::pgn::split::GAME_SEPARATOR;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The formats of `--findings FILE`.
const FINDINGS_FORMATS: [Format; 3] = [Format::Csv, Format::Jsonl, Format::Parquet];

/// Writes every finding, one per line (`.jsonl`), row (`.csv`; `.csv.gz` and the other
/// compressions too) or Parquet row (`.parquet`), with the columns `export --findings` writes
/// (`export::findings::FINDING_COLUMNS`). The file gets its name when complete.
pub struct FindingsFile {
    table: FindingsTable,
    path: PathBuf,
}

impl FindingsFile {
    /// The findings file's format by its name (the one output convention,
    /// `export::format`): CSV, JSON lines or Parquet; a name that says none is JSON lines.
    pub fn format_of(path: &Path) -> Result<Format, FormatError> {
        format::choose(None, Some(path), &FINDINGS_FORMATS, Format::Jsonl)
    }

    /// `csv_raw`: write CSV values unchanged (no `'` before cells a spreadsheet would run).
    /// The format must have been checked with `format_of`.
    pub fn create(path: &Path, csv_raw: bool) -> Result<FindingsFile, SinkError> {
        let error = |e: crate::export::ExportError| SinkError::format(path, e);
        let format = FindingsFile::format_of(path).map_err(|e| {
            error(io::Error::new(io::ErrorKind::InvalidInput, e.to_string()).into())
        })?;
        let table = format::open_table(format, Some(path), csv_raw).map_err(error)?;
        Ok(FindingsFile {
            table: FindingsTable::begin(table).map_err(error)?,
            path: path.to_owned(),
        })
    }

    pub fn write(&mut self, file: &str, findings: &[Finding]) -> Result<(), SinkError> {
        for f in findings {
            self.table
                .write(&finding_row(file, f))
                .map_err(|e| SinkError::format(&self.path, e))?;
        }
        Ok(())
    }

    pub fn finish(self) -> Result<(), SinkError> {
        self.table
            .finish()
            .map_err(|e| SinkError::format(&self.path, e))
    }
}

/// Keeps the raw bytes of every rejected game, verbatim, each followed by a blank line and
/// the splitter's [`GAME_SEPARATOR`] line, so that `check QUARANTINE` reads back exactly the
/// games that were rejected, however each one ended.
pub struct Quarantine {
    out: BufWriter<File>,
    path: PathBuf,
    pub games: u64,
}

impl Quarantine {
    pub fn create(path: &Path) -> Result<Quarantine, SinkError> {
        Ok(Quarantine {
            out: BufWriter::new(File::create(path).map_err(|e| SinkError::io(path, e))?),
            path: path.to_owned(),
            games: 0,
        })
    }

    pub fn write(&mut self, game: &Processed) -> Result<(), SinkError> {
        write_quarantined(&mut self.out, &game.raw).map_err(|e| SinkError::io(&self.path, e))?;
        self.games += 1;
        Ok(())
    }

    pub fn finish(mut self) -> Result<(), SinkError> {
        self.out.flush().map_err(|e| SinkError::io(&self.path, e))
    }
    /// A run stopped part way (Ctrl-C): the file, written under its own name, is removed
    /// rather than left holding some of the rejected games.
    pub fn abandon(self) -> Result<(), SinkError> {
        let path = self.path.clone();
        drop(self);
        std::fs::remove_file(&path).map_err(|e| SinkError::io(&path, e))
    }
}

/// The sink of `arbiter check`: findings file, quarantine, nothing else (a rejected game's
/// errors are the run's notes, `pipeline::report`).
#[derive(Default)]
pub struct CheckSink {
    pub findings: Option<FindingsFile>,
    pub quarantine: Option<Quarantine>,
}

impl Sink for CheckSink {
    fn game(&mut self, name: &str, game: &Processed) -> Result<(), SinkError> {
        if let Some(f) = &mut self.findings {
            f.write(name, &game.findings)?;
        }
        if game.rejected
            && let Some(q) = &mut self.quarantine
        {
            q.write(game)?;
        }
        Ok(())
    }

    fn file_findings(&mut self, name: &str, findings: &[Finding]) -> Result<(), SinkError> {
        if let Some(f) = &mut self.findings {
            f.write(name, findings)?;
        }
        Ok(())
    }
}

impl CheckSink {
    /// A run stopped part way (Ctrl-C): neither output is left behind (the findings file's
    /// temporary name goes with it, `export::output`).
    pub fn abandon(self) -> Result<(), SinkError> {
        drop(self.findings);
        match self.quarantine {
            Some(q) => q.abandon(),
            None => Ok(()),
        }
    }

    pub fn finish(self) -> Result<(), SinkError> {
        if let Some(f) = self.findings {
            f.finish()?;
        }
        if let Some(q) = self.quarantine {
            q.finish()?;
        }
        Ok(())
    }
}

/// Writes one rejected game as the quarantine holds it: its bytes verbatim, a blank line,
/// the [`GAME_SEPARATOR`] line and a blank line.
pub fn write_quarantined(out: &mut impl Write, raw: &[u8]) -> io::Result<()> {
    out.write_all(raw)?;
    out.write_all(quarantine_gap(raw))?;
    writeln!(out, "{GAME_SEPARATOR}")?;
    out.write_all(b"\n")
}

/// What goes between a quarantined game's last byte and the separator line: enough line
/// ends for a blank line, so the game's own text (a `;` comment, a cut-off line) never runs
/// into the separator.
fn quarantine_gap(raw: &[u8]) -> &'static [u8] {
    if raw.ends_with(b"\n\n") || raw.ends_with(b"\r\n\r\n") {
        b""
    } else if raw.ends_with(b"\n") {
        b"\n"
    } else {
        b"\n\n"
    }
}

#[cfg(test)]
mod tests {
    //! The quarantine reads back as exactly the rejected games, on PGN-like text made of
    //! pieces that end games in every way (no marker, open comment, open variation, tags
    //! only, tagless movetext) and on arbitrary bytes.

    use super::*;
    use crate::pgn::split_bytes;
    use crate::pipeline::work::{Keep, WorkOptions, process};
    use proptest::prelude::*;

    const PIECES: &[&str] = &[
        "[Event \"e\"]\n",
        "[Site \"s\"]\n",
        "[Result \"1-0\"]\n",
        "\n",
        "\r\n",
        "\r",
        " ",
        "1. ",
        "e4 ",
        "e5 ",
        "Nf3 ",
        "Zq9 ",
        "Ke7 ",
        "{c} ",
        "{open ",
        "} ",
        "; rest\n",
        "( ",
        ") ",
        "1-0",
        "*",
        "% escape\n",
        "$1 ",
        "+- ",
        "\\} ",
        "\u{1}",
        // A tag value broken over a line end, and results glued to a move.
        "[White \"Foo\n",
        "Bar\"]\n",
        "h6*",
        "e41-0 ",
    ];

    fn rejected_games(bytes: &[u8]) -> Vec<Vec<u8>> {
        let options = WorkOptions {
            mode: crate::chess::SanMode::Lenient,
            laws: None,
            analysis: None,
        };
        let (raws, _) = split_bytes(bytes);
        raws.into_iter()
            .map(|raw| process(raw, &options, Keep::Findings))
            .filter(|p| p.rejected)
            .map(|p| p.raw)
            .collect()
    }

    fn round_trip(bytes: &[u8]) {
        let rejected = rejected_games(bytes);
        let mut quarantine = Vec::new();
        for raw in &rejected {
            write_quarantined(&mut quarantine, raw).unwrap();
        }
        let (again, _) = split_bytes(&quarantine);
        assert_eq!(
            again.len(),
            rejected.len(),
            "{:?}",
            String::from_utf8_lossy(bytes)
        );
        for (game, raw) in again.iter().zip(&rejected) {
            // Each game reads back as its bytes and the blank line written after them.
            assert!(
                game.bytes.starts_with(raw),
                "{:?}",
                String::from_utf8_lossy(raw)
            );
            assert!(game.bytes[raw.len()..].iter().all(|&b| b == b'\n'));
        }
    }

    proptest! {
        #[test]
        fn the_quarantine_of_pgn_like_text_reads_back_as_its_rejected_games(
            picks in proptest::collection::vec(0..PIECES.len(), 0..80)
        ) {
            let text: String = picks.iter().map(|&i| PIECES[i]).collect();
            round_trip(text.as_bytes());
        }

        #[test]
        fn the_quarantine_of_arbitrary_bytes_reads_back_as_its_rejected_games(
            bytes in proptest::collection::vec(any::<u8>(), 0..400)
        ) {
            round_trip(&bytes);
        }
    }
}
