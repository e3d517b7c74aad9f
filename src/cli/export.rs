//! `arbiter export --db PATH --format pgn|csv|jsonl [-o FILE] [filters]`: streams the selected
//! games (or, with --findings, their findings) out of the database.

use super::error::{AppError, Outcome, PathContext, Result};
use crate::export::filter::Filter;
use crate::export::games::{count, for_each_finding, for_each_game};
use crate::export::pgn::{PgnOptions, write_pgn};
use crate::export::table::columns;
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget};
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::PathBuf;

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Pgn,
    Csv,
    Jsonl,
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The database written by `arbiter import`.
    #[arg(long, default_value = "arbiter.sqlite")]
    pub db: PathBuf,
    #[arg(long, value_enum, default_value = "pgn")]
    pub format: Format,
    /// Output file (default: standard output).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Export the findings of the selected games instead of the games (CSV or JSON lines).
    #[arg(long)]
    pub findings: bool,
    /// PGN: write the result the Laws decide where it differs from the recorded one.
    #[arg(long)]
    pub fix_results: bool,
    /// PGN: add PlyCount, ArbiterTermination (the ending and its Article) and ArbiterLaws.
    #[arg(long)]
    pub add_tags: bool,
    /// A player on either side (name as written).
    #[arg(long)]
    pub player: Option<String>,
    #[arg(long)]
    pub white: Option<String>,
    #[arg(long)]
    pub black: Option<String>,
    #[arg(long)]
    pub event: Option<String>,
    /// Games on or after this date (YYYY, YYYY.MM or YYYY.MM.DD).
    #[arg(long)]
    pub date_from: Option<String>,
    /// Games on or before this date.
    #[arg(long)]
    pub date_to: Option<String>,
    /// Recorded result: 1-0, 0-1, 1/2-1/2 or *.
    #[arg(long)]
    pub result: Option<String>,
    /// Both players rated at least this.
    #[arg(long)]
    pub min_elo: Option<i64>,
    #[arg(long)]
    pub min_plies: Option<i64>,
    #[arg(long)]
    pub max_plies: Option<i64>,
    /// Only games with a finding of this code (repeatable).
    #[arg(long)]
    pub has_finding: Vec<String>,
    /// Only games without a finding of this code (repeatable).
    #[arg(long)]
    pub lacks_finding: Vec<String>,
    /// Only games with a finding of this severity (error, warning, info).
    #[arg(long)]
    pub severity: Option<String>,
    /// Only games judged under this edition of the Laws (1980, 1997, 2001, 2014).
    #[arg(long)]
    pub laws: Option<String>,
    /// A raw SQL condition on `g` (games), `w`/`b` (players), `e` (events).
    #[arg(long = "where")]
    pub where_sql: Option<String>,
}

impl ExportArgs {
    fn filter(&self) -> Filter {
        Filter {
            player: self.player.clone(),
            white: self.white.clone(),
            black: self.black.clone(),
            event: self.event.clone(),
            date_from: self.date_from.clone(),
            date_to: self.date_to.clone(),
            result: self.result.clone(),
            min_elo: self.min_elo,
            min_plies: self.min_plies,
            max_plies: self.max_plies,
            has_finding: self.has_finding.clone(),
            lacks_finding: self.lacks_finding.clone(),
            severity: self.severity.clone(),
            edition: self.laws.clone(),
            sql: self.where_sql.clone(),
        }
    }
}

/// The output stream: plain bytes (PGN, JSON lines) or CSV records.
enum Output<W: Write> {
    Plain(W),
    Csv(Box<csv::Writer<W>>),
}

impl<W: Write> Output<W> {
    fn new(out: W, format: Format) -> Output<W> {
        match format {
            Format::Csv => Output::Csv(Box::new(csv::Writer::from_writer(out))),
            _ => Output::Plain(out),
        }
    }

    fn bytes(&mut self, bytes: &[u8]) -> io::Result<()> {
        match self {
            Output::Plain(w) => w.write_all(bytes),
            Output::Csv(_) => Err(io::Error::other("raw bytes on a CSV stream")),
        }
    }

    fn record(&mut self, row: impl serde::Serialize) -> io::Result<()> {
        match self {
            Output::Csv(w) => w.serialize(row).map_err(io::Error::other),
            Output::Plain(_) => Err(io::Error::other("a CSV record on a plain stream")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Plain(w) => w.flush(),
            Output::Csv(w) => w.flush(),
        }
    }
}

pub fn run_export(args: &ExportArgs) -> Result {
    let conn = crate::db::open_read_only(&args.db)?;
    if args.findings && args.format == Format::Pgn {
        return Err(AppError::usage("--findings needs --format csv or jsonl"));
    }
    let filter = args.filter();
    let out: Box<dyn Write> = match &args.output {
        Some(p) => Box::new(std::fs::File::create(p).with_path(p)?),
        None => Box::new(io::stdout().lock()),
    };
    let mut out = BufWriter::new(out);
    if args.findings {
        export_findings(&conn, &filter, args.format, &mut out)?;
        out.flush()?;
        return Ok(Outcome::Success);
    }
    let bar = if io::stderr().is_terminal() {
        let total = count(&conn, &filter)?;
        Some(ProgressBar::with_draw_target(
            Some(total),
            ProgressDrawTarget::stderr(),
        ))
    } else {
        None
    };
    let options = PgnOptions {
        fix_results: args.fix_results,
        add_tags: args.add_tags,
    };
    let mut csv_out = Output::new(&mut out, args.format);
    let mut text = String::new();
    let mut jsonl = Vec::new();
    for_each_game(&conn, &filter, |row| {
        match args.format {
            Format::Pgn => {
                text.clear();
                write_pgn(row, options, &mut text);
                csv_out.bytes(text.as_bytes())?;
            }
            Format::Jsonl => {
                jsonl.clear();
                serde_json::to_writer(&mut jsonl, &columns(row))?;
                jsonl.push(b'\n');
                csv_out.bytes(&jsonl)?;
            }
            Format::Csv => csv_out.record(columns(row))?,
        }
        if let Some(b) = &bar {
            b.inc(1);
        }
        Ok(())
    })?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    csv_out.flush()?;
    drop(csv_out);
    out.flush()?;
    Ok(Outcome::Success)
}

fn export_findings(
    conn: &rusqlite::Connection,
    filter: &Filter,
    format: Format,
    out: &mut impl Write,
) -> io::Result<()> {
    let mut csv_out = Output::new(out, format);
    let mut line = Vec::new();
    for_each_finding(conn, filter, |f| {
        if format == Format::Csv {
            csv_out.record(f)
        } else {
            line.clear();
            serde_json::to_writer(&mut line, f)?;
            line.push(b'\n');
            csv_out.bytes(&line)
        }
    })?;
    csv_out.flush()
}
