//! `arbiter stats players|player|h2h|openings`: player statistics from the database. Reads the
//! flags, finds the person a name means, runs the one pass of `stats::read` into
//! `stats::dossier`, and prints through `stats::report` / `stats::html`. The work is in
//! `src/stats/`.

use super::filter::FilterArgs;
use crate::export::ExportError;
use crate::export::csv::CsvFormat;
use crate::export::filter::Filter;
use crate::export::jsonl::JsonlFormat;
use crate::export::output::Output;
use crate::export::parquet::{ParquetFormat, Target};
use crate::export::table::TableFormat;
use crate::stats::board;
use crate::stats::dossier::{Selection, Stats};
use crate::stats::read::{self, Directory, ReadError};
use crate::stats::report::{CsvRecord, LEADER_COLUMNS, OpeningLine, Report, SortBy, table};
use clap::{Args, Subcommand, ValueEnum};
use rusqlite::Connection;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

const EXAMPLES: &str = "Examples:
  arbiter stats players --db games.sqlite --sort performance -o leaderboard.csv
  arbiter stats player 'Carlsen, Magnus' --db games.sqlite --html carlsen.html
  arbiter stats h2h 'Kasparov, Garry' 'Karpov, Anatoly' --db games.sqlite";

#[derive(Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct StatsArgs {
    #[command(subcommand)]
    pub command: StatsCommand,
}

#[derive(Subcommand, Debug)]
pub enum StatsCommand {
    /// One row per person for the whole selection (the leaderboard), in one pass.
    #[command(after_help = "Examples:
  arbiter stats players --db games.sqlite
  arbiter stats players --db games.sqlite --sort score --min-games 20 -o board.jsonl
  arbiter stats players --db games.sqlite --date-from 2000 -o board.parquet")]
    Players(PlayersArgs),
    /// One person's dossier: results by colour, year, time control, opening, opponent
    /// rating; performance; Laws audit; streaks; game lengths; rating history; opponents.
    #[command(after_help = "Examples:
  arbiter stats player 'Carlsen, Magnus' --db games.sqlite
  arbiter stats player 'carlsen, m' --db games.sqlite --format json > carlsen.json
  arbiter stats player '#42' --db games.sqlite --date-from 2010 --html p42.html")]
    Player(PlayerArgs),
    /// Two persons against each other: games, score by colour and opening, first and last
    /// game, streaks.
    #[command(after_help = "Examples:
  arbiter stats h2h 'Kasparov, Garry' 'Karpov, Anatoly' --db games.sqlite
  arbiter stats h2h Anand Topalov --db games.sqlite --format json")]
    H2h(H2hArgs),
    /// One person's openings with each colour, with scores and their 95% intervals.
    #[command(after_help = "Examples:
  arbiter stats openings 'Fischer, Robert James' --db games.sqlite
  arbiter stats openings 'Fischer, Robert James' --colour black --by eco --db games.sqlite
  arbiter stats openings Tal --by family --format csv --db games.sqlite > tal.csv")]
    Openings(OpeningsArgs),
}

/// The database and the selection: the export's filters; each duplicate group counts once
/// unless `--all-games`.
#[derive(Args, Debug, Clone)]
pub struct Common {
    /// The database written by `arbiter import`.
    #[arg(long, default_value = "arbiter.sqlite")]
    pub db: PathBuf,
    #[command(flatten)]
    pub select: FilterArgs,
}

impl Common {
    /// The filter, and whether duplicates are skipped (counted by `Stats`, so the filter
    /// itself keeps them).
    fn filter(&self) -> (Filter, bool) {
        let mut filter = self.select.filter(true);
        let unique = std::mem::take(&mut filter.unique);
        (filter, unique)
    }
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoardFormat {
    Text,
    Csv,
    Jsonl,
    Parquet,
}

#[derive(Args, Debug)]
pub struct PlayersArgs {
    #[command(flatten)]
    pub common: Common,
    #[arg(long, value_enum, default_value = "games")]
    pub sort: SortBy,
    /// Only persons with at least this many finished games.
    #[arg(long, default_value_t = 1)]
    pub min_games: u32,
    /// Output file; its extension picks the format (.csv, .jsonl, .parquet; .gz/.zst/.bz2/.xz
    /// compress CSV and JSON lines). Default: an aligned table on standard output.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// The format, when the file name does not say it (text only to standard output).
    #[arg(long, value_enum)]
    pub format: Option<BoardFormat>,
    /// Text output: at most this many rows.
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DossierFormat {
    Text,
    Json,
    Csv,
}

#[derive(Args, Debug)]
pub struct PlayerArgs {
    /// The person: a canonical name or any spelling (ignoring case), or `#ID`.
    pub name: String,
    #[command(flatten)]
    pub common: Common,
    #[arg(long, value_enum, default_value = "text")]
    pub format: DossierFormat,
    /// Also write a self-contained HTML page (inline CSS and SVG) to this file.
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// How many most frequent opponents to list.
    #[arg(long, default_value_t = 10)]
    pub opponents: usize,
}

#[derive(Args, Debug)]
pub struct H2hArgs {
    /// The first person (name, spelling or `#ID`); the scores are from this side.
    pub a: String,
    /// The second person.
    pub b: String,
    #[command(flatten)]
    pub common: Common,
    #[arg(long, value_enum, default_value = "text")]
    pub format: DossierFormat,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColourArg {
    White,
    Black,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpeningLevel {
    /// The full name, e.g. 'Sicilian Defense: Najdorf Variation'.
    Named,
    /// The part before ':', e.g. 'Sicilian Defense'.
    Family,
    /// The ECO code.
    Eco,
}

#[derive(Args, Debug)]
pub struct OpeningsArgs {
    /// The person: a canonical name or any spelling (ignoring case), or `#ID`.
    pub name: String,
    #[command(flatten)]
    pub common: Common,
    /// Only the games with this colour.
    #[arg(long, value_enum)]
    pub colour: Option<ColourArg>,
    #[arg(long, value_enum, default_value = "named")]
    pub by: OpeningLevel,
    #[arg(long, value_enum, default_value = "text")]
    pub format: DossierFormat,
}

/// Why a stats command stopped: a usage error (exit 2, message already printed) or a failure.
enum Stop {
    Usage,
    Read(ReadError),
    Export(ExportError),
    Io(io::Error),
}

impl From<ReadError> for Stop {
    fn from(e: ReadError) -> Stop {
        Stop::Read(e)
    }
}
impl From<io::Error> for Stop {
    fn from(e: io::Error) -> Stop {
        Stop::Io(e)
    }
}
impl From<ExportError> for Stop {
    fn from(e: ExportError) -> Stop {
        Stop::Export(e)
    }
}
impl From<serde_json::Error> for Stop {
    fn from(e: serde_json::Error) -> Stop {
        Stop::Io(e.into())
    }
}
impl From<csv::Error> for Stop {
    fn from(e: csv::Error) -> Stop {
        Stop::Io(io::Error::other(e))
    }
}

pub fn run(args: &StatsArgs) -> io::Result<i32> {
    let result = match &args.command {
        StatsCommand::Players(a) => players(a),
        StatsCommand::Player(a) => player(a),
        StatsCommand::H2h(a) => h2h(a),
        StatsCommand::Openings(a) => openings(a),
    };
    match result {
        Ok(code) => Ok(code),
        Err(Stop::Usage) => Ok(2),
        Err(Stop::Read(e)) => {
            eprintln!("arbiter stats: {e}");
            Ok(2)
        }
        Err(Stop::Export(e)) if e.is_broken_pipe() => Ok(0),
        Err(Stop::Export(e)) => Err(e.into()),
        Err(Stop::Io(e)) => Err(e),
    }
}

fn usage(message: &str) -> Stop {
    eprintln!("arbiter stats: {message}");
    Stop::Usage
}

/// The one pass: every row of the selection into the dossiers.
fn collect(
    conn: &Connection,
    common: &Common,
    person: Option<i64>,
    opponent: Option<i64>,
) -> Result<Stats, Stop> {
    let (filter, unique) = common.filter();
    let mut stats = Stats::new(Selection {
        all_games: !unique,
        persons: person.map(|p| vec![p]),
        opponent,
    });
    read::for_each_row(conn, &filter, person, |row| stats.add(row))?;
    Ok(stats)
}

/// The person a name means, or a usage error listing the closest spellings or the persons
/// it could mean.
fn resolve(conn: &Connection, dir: &Directory, name: &str) -> Result<i64, Stop> {
    let ids = read::find_persons(dir, name);
    match ids.len() {
        1 => Ok(ids[0]),
        0 => {
            let close = read::closest_spellings(dir, name, 8);
            Err(usage(&format!(
                "no person is called {name:?}; the closest spellings:\n  {}",
                if close.is_empty() {
                    "(the database has no players)".to_owned()
                } else {
                    close.join("\n  ")
                }
            )))
        }
        _ => {
            let mut msg = format!("{name:?} names {} persons; give one as #ID:\n", ids.len());
            for id in ids {
                let e = read::evidence(conn, dir, id)?;
                let years = match (e.first_year, e.last_year) {
                    (Some(a), Some(b)) => format!("{a}-{b}"),
                    _ => "undated".to_owned(),
                };
                msg.push_str(&format!(
                    "  #{id}  {}  games {}  years {years}  FIDE {}  spellings: {}\n",
                    e.person.name,
                    e.games,
                    e.person.fide_id.map_or("-".to_owned(), |f| f.to_string()),
                    e.spellings.join("; ")
                ));
            }
            Err(usage(msg.trim_end()))
        }
    }
}

fn open(common: &Common) -> Result<(Connection, Directory), Stop> {
    let conn = read::open(&common.db)?;
    let dir = Directory::load(&conn)?;
    Ok((conn, dir))
}

fn stdout_text(text: &str) -> Result<(), Stop> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

fn board_format(args: &PlayersArgs) -> Result<BoardFormat, Stop> {
    if let Some(f) = args.format {
        if f == BoardFormat::Parquet && args.output.is_none() {
            return Err(usage("--format parquet needs -o FILE.parquet"));
        }
        return Ok(f);
    }
    let Some(path) = &args.output else {
        return Ok(BoardFormat::Text);
    };
    let name = path.to_string_lossy().to_ascii_lowercase();
    let name = [".gz", ".zst", ".bz2", ".xz"]
        .iter()
        .find_map(|c| name.strip_suffix(c))
        .unwrap_or(&name);
    if name.ends_with(".csv") {
        Ok(BoardFormat::Csv)
    } else if name.ends_with(".jsonl") || name.ends_with(".ndjson") {
        Ok(BoardFormat::Jsonl)
    } else if name.ends_with(".parquet") {
        Ok(BoardFormat::Parquet)
    } else {
        Err(usage(&format!(
            "{}: say --format csv, jsonl or parquet (or name the file .csv, .jsonl, .parquet)",
            path.display()
        )))
    }
}

fn players(args: &PlayersArgs) -> Result<i32, Stop> {
    let format = board_format(args)?;
    if format == BoardFormat::Text && args.output.is_some() {
        return Err(usage(
            "text goes to standard output; -o wants .csv, .jsonl or .parquet",
        ));
    }
    let (conn, dir) = open(&args.common)?;
    // The output is opened before the pass, so an unwritable path fails at once.
    let mut sink: Option<Box<dyn TableFormat>> = match (format, &args.output) {
        (BoardFormat::Text, _) => None,
        (BoardFormat::Parquet, Some(p)) => {
            Some(Box::new(ParquetFormat::create(Target::File(p.clone()))?))
        }
        (BoardFormat::Csv, p) => Some(Box::new(CsvFormat::new(Output::open(p.as_deref())?, false))),
        (_, p) => Some(Box::new(JsonlFormat::new(Output::open(p.as_deref())?))),
    };
    // The board needs a few numbers per game: the lean scan, not the dossiers' rows.
    let (filter, unique) = args.common.filter();
    let board = board::collect(&conn, &dir, &filter, !unique).map_err(ReadError::from)?;
    let rows: Vec<_> = board
        .rows(&dir, args.sort)
        .into_iter()
        .filter(|r| r.games >= args.min_games)
        .collect();
    if rows.is_empty() {
        eprintln!("arbiter stats: no person has games in the selection");
    }
    match sink.take() {
        Some(mut t) => {
            t.begin(&LEADER_COLUMNS)?;
            for r in &rows {
                t.row(&r.cells())?;
            }
            t.finish()?;
        }
        None => {
            let mut out = String::new();
            let cells: Vec<Vec<String>> = rows
                .iter()
                .take(args.limit)
                .enumerate()
                .map(|(i, r)| {
                    let f = |v: Option<f64>| v.map_or("-".to_owned(), |v| format!("{v:.0}"));
                    vec![
                        format!("{}. {}", i + 1, r.player),
                        r.games.to_string(),
                        format!("+{} ={} -{}", r.wins, r.draws, r.losses),
                        format!("{}", r.score),
                        r.score_pct.map_or("-".to_owned(), |p| format!("{p:.1}%")),
                        f(r.average_opponent),
                        r.performance_fide.map_or("-".to_owned(), |p| p.to_string()),
                        f(r.performance_perfect),
                        r.unfinished.to_string(),
                    ]
                })
                .collect();
            table(
                &[
                    "player",
                    "games",
                    "w/d/l",
                    "score",
                    "%",
                    "avg opp",
                    "perf FIDE",
                    "perfect",
                    "unfinished",
                ],
                &cells,
                &mut out,
            );
            out.push_str(&format!(
                "{} persons, {} rows of player_games read, {} duplicate rows left out\n",
                rows.len(),
                board.rows,
                board.duplicates_skipped
            ));
            stdout_text(&out)?;
        }
    }
    Ok(0)
}

fn write_report(report: &Report, format: DossierFormat, text: String) -> Result<(), Stop> {
    match format {
        DossierFormat::Text => stdout_text(&text),
        DossierFormat::Json => {
            let mut s = serde_json::to_string_pretty(report)?;
            s.push('\n');
            stdout_text(&s)
        }
        DossierFormat::Csv => {
            let mut w = csv::Writer::from_writer(io::stdout().lock());
            for r in report.csv_records() {
                w.serialize(r)?;
            }
            w.flush()?;
            Ok(())
        }
    }
}

fn write_file(path: &Path, text: &str) -> Result<(), Stop> {
    std::fs::write(path, text)
        .map_err(|e| Stop::Io(io::Error::new(e.kind(), format!("{}: {e}", path.display()))))
}

/// The report of the person `name` means, or None (said on stderr) without games.
fn person_report(common: &Common, name: &str, opponents: usize) -> Result<Option<Report>, Stop> {
    let (conn, dir) = open(common)?;
    let id = resolve(&conn, &dir, name)?;
    let stats = collect(&conn, common, Some(id), None)?;
    match stats.dossiers.get(&id) {
        Some(d) => Ok(Some(Report::new(d, &stats, &dir, opponents))),
        None => {
            eprintln!(
                "arbiter stats: {} has no games in the selection",
                dir.person_name(id)
            );
            Ok(None)
        }
    }
}

fn player(args: &PlayerArgs) -> Result<i32, Stop> {
    let Some(report) = person_report(&args.common, &args.name, args.opponents)? else {
        return Ok(1);
    };
    if let Some(path) = &args.html {
        write_file(path, &crate::stats::html::page(&report))?;
    }
    // The person's events as tournaments: score, TPR and place (stats::tournament::event).
    let conn = read::open(&args.common.db)?;
    let events = crate::stats::tournament::event::player_events(&conn, report.player_id)
        .map_err(|e| Stop::Io(io::Error::other(e.to_string())))?;
    match args.format {
        DossierFormat::Json => {
            let mut value = serde_json::to_value(&report)?;
            if let Some(map) = value.as_object_mut() {
                map.insert("events".into(), serde_json::to_value(&events)?);
            }
            let mut s = serde_json::to_string_pretty(&value)?;
            s.push('\n');
            stdout_text(&s)?;
        }
        _ => {
            let mut text = report.text();
            if !events.is_empty() && matches!(args.format, DossierFormat::Text) {
                text.push_str(&crate::stats::tournament::event::events_text(&events));
            }
            write_report(&report, args.format, text)?;
        }
    }
    Ok(0)
}

fn h2h(args: &H2hArgs) -> Result<i32, Stop> {
    let (conn, dir) = open(&args.common)?;
    let a = resolve(&conn, &dir, &args.a)?;
    let b = resolve(&conn, &dir, &args.b)?;
    let stats = collect(&conn, &args.common, Some(a), Some(b))?;
    let Some(d) = stats.dossiers.get(&a) else {
        eprintln!(
            "arbiter stats: {} and {} have no games against each other in the selection",
            dir.person_name(a),
            dir.person_name(b)
        );
        return Ok(1);
    };
    let report = Report::new(d, &stats, &dir, 1);
    let text = format!(
        "head-to-head: {} against {} (scores from {}'s side)\n\n{}",
        dir.person_name(a),
        dir.person_name(b),
        dir.person_name(a),
        report.text()
    );
    write_report(&report, args.format, text)?;
    Ok(0)
}

fn openings(args: &OpeningsArgs) -> Result<i32, Stop> {
    let Some(report) = person_report(&args.common, &args.name, 0)? else {
        return Ok(1);
    };
    let lines: Vec<&OpeningLine> = match args.by {
        OpeningLevel::Named => &report.openings.named,
        OpeningLevel::Family => &report.openings.family,
        OpeningLevel::Eco => &report.openings.eco,
    }
    .iter()
    .filter(|o| match args.colour {
        Some(ColourArg::White) => o.colour == "white",
        Some(ColourArg::Black) => o.colour == "black",
        None => true,
    })
    .collect();
    if lines.is_empty() {
        eprintln!(
            "arbiter stats: no game of {} in the selection has a named opening",
            report.player
        );
    }
    match args.format {
        DossierFormat::Json => {
            let mut s = serde_json::to_string_pretty(&lines)?;
            s.push('\n');
            stdout_text(&s)?;
        }
        DossierFormat::Csv => {
            let mut w = csv::Writer::from_writer(io::stdout().lock());
            let section = match args.by {
                OpeningLevel::Named => "opening",
                OpeningLevel::Family => "opening_family",
                OpeningLevel::Eco => "eco",
            };
            for o in &lines {
                w.serialize(CsvRecord::new(&report.player, section, o.colour, &o.line))?;
            }
            w.flush()?;
        }
        DossierFormat::Text => {
            let rows: Vec<Vec<String>> = lines
                .iter()
                .map(|o| {
                    let l = &o.line;
                    let pct = |v: Option<f64>| v.map_or("-".to_owned(), |v| format!("{v:.1}%"));
                    vec![
                        l.key.clone(),
                        o.colour.to_owned(),
                        l.games.to_string(),
                        format!("+{} ={} -{}", l.wins, l.draws, l.losses),
                        l.score.to_string(),
                        pct(l.score_pct),
                        match (l.score_low_pct, l.score_high_pct) {
                            (Some(a), Some(b)) => format!("{a:.0}-{b:.0}%"),
                            _ => "-".to_owned(),
                        },
                        l.unfinished.to_string(),
                    ]
                })
                .collect();
            let mut out = format!("{}: openings\n", report.player);
            table(
                &[
                    "opening",
                    "colour",
                    "games",
                    "w/d/l",
                    "score",
                    "%",
                    "95% interval",
                    "unfinished",
                ],
                &rows,
                &mut out,
            );
            stdout_text(&out)?;
        }
    }
    Ok(0)
}
