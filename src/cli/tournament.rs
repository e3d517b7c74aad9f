//! `arbiter tournament`: a tournament's crosstable and standings with FIDE C.07 tie-breaks,
//! from a TRF-16 file (`--trf`) or from the games of one stored event (`--db --event`). Parses
//! the flags, calls `stats::tournament`, prints; the work is in the library.

use super::error::{AppError, Outcome, Result};
use super::output::{Offers, TableOutput};
use crate::export::format::{self, Format};
use crate::export::output::Output;
use crate::stats::tournament::event::{self, Built, EventError, SUMMARY_COLUMNS, Summary};
use crate::stats::tournament::{
    Kind, Rules, Spec, Standings, Tournament, crosstable, html, standings, tiebreaks, trf,
};
use clap::{Args, ValueEnum};
use std::io::Write;
use std::path::{Path, PathBuf};

const EXAMPLES: &str = "Examples:
  arbiter tournament --trf open2025.trf
  arbiter tournament --trf open2025.trf --tiebreaks BH-C1,BH,SB,WIN --format csv -o standings.csv
  arbiter tournament --db games.sqlite --event '83rd Tata Steel Masters' --year 2021 --trf-out tata.trf";

#[derive(Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct TournamentArgs {
    /// A TRF-16 tournament report.
    #[arg(long, value_name = "FILE", conflicts_with = "db")]
    pub trf: Option<PathBuf>,
    /// The database written by `arbiter import` (with --event).
    #[arg(long, value_name = "DB")]
    pub db: Option<PathBuf>,
    /// The event's name (PGN `Event`): equal after case and spaces are normalised, else a part
    /// of exactly one stored name.
    #[arg(long, value_name = "NAME", requires = "db")]
    pub event: Option<String>,
    /// Only the event held at this site (PGN `Site`).
    #[arg(long, value_name = "SITE", requires = "db")]
    pub site: Option<String>,
    /// Only games of this year.
    #[arg(long, value_name = "YEAR", requires = "db")]
    pub year: Option<i64>,
    /// Build every event of the database (each name and site, in each year) and print one
    /// summary line per event: a check and a speed measure.
    #[arg(long = "all-events", requires = "db", conflicts_with = "event")]
    pub all_events: bool,
    /// Round robin or Swiss; detected from the pairings when not given.
    #[arg(long = "type", value_enum, value_name = "TYPE")]
    pub kind: Option<KindArg>,
    /// C.07 acronyms in order, with modifiers: BH, BH-C1, BH-C2, BH-M1, BH-M2, FB, AOB, SB,
    /// SB-C1, KS, PS, WIN, WON, BPG, BWG, GE (REP), DE, ARO, TPR, PTP, APRO, APPO; `/` works
    /// as `-`. Default: C.07's recommendation for the tournament type.
    #[arg(long, value_name = "LIST")]
    pub tiebreaks: Option<String>,
    /// Which C.07 text: 2024 or 2026 (default: by the tournament's end date, 2026 from
    /// 1 March 2026).
    #[arg(long, value_name = "YEAR")]
    pub rules: Option<String>,
    /// Rating given to unrated players in ARO, TPR, PTP, APRO and APPO (C.07 Art. 10: the
    /// tournament's regulations set it); without it those have no value when someone is
    /// unrated.
    #[arg(long, value_name = "RATING")]
    pub unrated: Option<u16>,
    /// The standings (or `--all-events`' summary) as a table; text is the crosstable.
    #[command(flatten)]
    pub out: TableOutput<TournamentFormats>,
    /// No notes on standard error (records skipped, games left out, the time taken).
    #[arg(short, long)]
    pub quiet: bool,
    /// Also write the page: standings (sortable) and crosstable, self-contained.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Also write the tournament as TRF-16.
    #[arg(long = "trf-out", value_name = "FILE")]
    pub trf_out: Option<PathBuf>,
}

/// The formats `tournament` writes, text (the crosstable) first.
const FORMATS: [Format; 4] = [Format::Text, Format::Csv, Format::Jsonl, Format::Parquet];

#[derive(Clone, Debug)]
pub struct TournamentFormats;

impl Offers for TournamentFormats {
    const FORMATS: &'static [Format] = &FORMATS;
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum KindArg {
    Rr,
    Swiss,
}

pub fn run(args: &TournamentArgs) -> Result {
    let format = args.out.format()?;
    let specs = match &args.tiebreaks {
        Some(text) => Some(Spec::parse_list(text).map_err(|e| AppError::usage(e.to_string()))?),
        None => None,
    };
    let rules = match &args.rules {
        Some(text) => Some(Rules::parse(text).ok_or_else(|| {
            AppError::usage(format!("--rules {text}: valid values are 2024 and 2026"))
        })?),
        None => None,
    };
    if args.all_events {
        return all_events(args, format, rules, specs.as_deref());
    }
    let loaded = load(args)?;
    let t = loaded.tournament();
    let kind = match args.kind {
        Some(KindArg::Rr) => Kind::RoundRobin,
        Some(KindArg::Swiss) => Kind::Swiss,
        None => t.kind(),
    };
    let notes = loaded.notes(kind);
    if !args.quiet {
        for note in &notes {
            eprintln!("{note}");
        }
    }
    let specs =
        specs.unwrap_or_else(|| tiebreaks::registry::default_list(kind == Kind::RoundRobin));
    let rules = rules.unwrap_or_else(|| Rules::for_date(t.end()));
    let s = standings::compute(t, &specs, rules, kind, args.unrated);
    // Ctrl-C from here stops the writing and removes the temporary files.
    crate::interrupt::install();
    print(args, format, t, &s)?;
    if let Some(path) = &args.html {
        write_file(path, html::page(t, &s, &notes).as_bytes())?;
    }
    if let Some(path) = &args.trf_out {
        write_file(path, trf::write(t, Some(&s.ranks())).as_bytes())?;
    }
    Ok(Outcome::Success)
}

/// Where the tournament came from: a TRF file, or a stored event with its notes.
enum Loaded {
    Trf(Tournament),
    Event(Built),
}

impl Loaded {
    fn tournament(&self) -> &Tournament {
        match self {
            Loaded::Trf(t) => t,
            Loaded::Event(b) => &b.tournament,
        }
    }

    /// A stored event's notes (games left out, how much of the event is stored) for the
    /// standings of kind `kind`; a TRF records its byes and absences itself.
    fn notes(&self, kind: Kind) -> Vec<String> {
        match self {
            Loaded::Trf(_) => Vec::new(),
            Loaded::Event(b) => b.notes(kind),
        }
    }
}

fn load(args: &TournamentArgs) -> Result<Loaded> {
    if let Some(path) = &args.trf {
        let text = std::fs::read(path).map_err(|e| AppError::io(path, e))?;
        // TRF files come in UTF-8 or Latin-1; the latter is read byte for byte.
        let text = match String::from_utf8(text) {
            Ok(t) => t,
            Err(e) => e.into_bytes().iter().map(|&b| char::from(b)).collect(),
        };
        let read =
            trf::read(&text).map_err(|e| AppError::Other(format!("{}: {e}", path.display())))?;
        for (code, line) in read.skipped.iter().filter(|_| !args.quiet) {
            eprintln!(
                "{}: line {line}: records '{code}' are not supported and were skipped",
                path.display()
            );
        }
        return Ok(Loaded::Trf(read.tournament));
    }
    match (&args.db, &args.event) {
        (Some(db), Some(name)) => event::open_and_load(db, name, args.site.as_deref(), args.year)
            .map(Loaded::Event)
            .map_err(event_error),
        _ => Err(AppError::usage(
            "tournament needs --trf FILE, or --db DB with --event NAME (or --all-events)",
        )),
    }
}

fn event_error(e: EventError) -> AppError {
    match e {
        EventError::Sqlite(e) => AppError::Sqlite(e),
        EventError::Db(e) => AppError::Db(e),
        e @ (EventError::Resolve(_) | EventError::NoFinishedGames { .. }) => {
            AppError::usage(e.to_string())
        }
    }
}

/// `--all-events`: one line per event (name, site, year, type, players, rounds, games,
/// points, and how much of the event is stored), then the count and the time on standard
/// error.
fn all_events(
    args: &TournamentArgs,
    format: Format,
    rules: Option<Rules>,
    specs: Option<&[Spec]>,
) -> Result {
    let db = args.db.as_deref().expect("clap requires --db");
    let start = std::time::Instant::now();
    let conn = crate::db::open_read_only(db)?;
    let mut lines: Vec<Summary> = Vec::new();
    event::for_each_event(&conn, |b| {
        let t = &b.tournament;
        let kind = match args.kind {
            Some(KindArg::Rr) => Kind::RoundRobin,
            Some(KindArg::Swiss) => Kind::Swiss,
            None => t.kind(),
        };
        let list = specs
            .map(<[Spec]>::to_vec)
            .unwrap_or_else(|| tiebreaks::registry::default_list(kind == Kind::RoundRobin));
        let r = rules.unwrap_or_else(|| Rules::for_date(t.end()));
        let s = standings::compute(t, &list, r, kind, args.unrated);
        lines.push(Summary::new(&b, &s, kind));
    })
    .map_err(event_error)?;
    crate::interrupt::install();
    match format {
        Format::Text => {
            let mut out = Output::open(args.out.path()).map_err(|e| output_error(args, e))?;
            for line in &lines {
                writeln!(out, "{line}").map_err(|e| output_error(args, e))?;
            }
            out.finish().map_err(|e| output_error(args, e))?;
        }
        table => {
            let mut w = format::open_table(table, args.out.path(), args.out.csv_raw)?;
            w.begin(&SUMMARY_COLUMNS)?;
            for line in &lines {
                w.row(&line.cells())?;
            }
            w.finish()?;
        }
    }
    if !args.quiet {
        let games: usize = lines.iter().map(|l| l.games).sum();
        eprintln!(
            "{} events, {games} games: read, built and ranked in {:.2} s",
            lines.len(),
            start.elapsed().as_secs_f64()
        );
    }
    Ok(Outcome::Success)
}

/// The crosstable (text) or the standings as a table.
fn print(args: &TournamentArgs, format: Format, t: &Tournament, s: &Standings) -> Result<()> {
    if format == Format::Text {
        let mut out = Output::open(args.out.path()).map_err(|e| output_error(args, e))?;
        out.write_all(crosstable::render(t, s).as_bytes())
            .map_err(|e| output_error(args, e))?;
        return out.finish().map_err(|e| output_error(args, e));
    }
    let mut w = format::open_table(format, args.out.path(), args.out.csv_raw)?;
    w.begin(&standings::columns(s))?;
    for row in &s.rows {
        w.row(&standings::cells(t, s, row))?;
    }
    w.finish()?;
    Ok(())
}

fn output_error(args: &TournamentArgs, e: std::io::Error) -> AppError {
    match args.out.path() {
        Some(p) => AppError::io(p, e),
        None => AppError::from(e),
    }
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut out = Output::open(Some(path)).map_err(|e| AppError::io(path, e))?;
    out.write_all(bytes).map_err(|e| AppError::io(path, e))?;
    out.finish().map_err(|e| AppError::io(path, e))
}
