//! `arbiter stats players|player|h2h|openings`: player statistics from the database. Reads the
//! flags, finds the person a name means, runs the one pass of `stats::read` into
//! `stats::dossier`, and prints through `stats::report` / `stats::html`. The work is in
//! `src/stats/`.

use super::error::{AppError, Outcome, PathContext, Result, warn};
use super::filter::FilterArgs;
use crate::db::directory::Directory;
use crate::db::query::select::Filter;
use crate::export::format::{self, Format};
use crate::export::output::Output;
use crate::export::table::TableFormat;
use crate::stats::analysis::{self, AnalysisOut, Scope, Summary, shown};
use crate::stats::board;
use crate::stats::dossier::{Selection, Stats};
use crate::stats::read;
use crate::stats::report::{
    CsvRecord, LEADER_COLUMNS, OpeningLine, RECORD_COLUMNS, Report, SortBy, table,
};
use crate::stats::tournament::event::EventKeys;
use clap::{Args, Subcommand, ValueEnum};
use rusqlite::Connection;
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

const EXAMPLES: &str = "Examples:
  arbiter stats players --db games.sqlite --sort performance -o leaderboard.csv
  arbiter stats player 'Carlsen,M' --db games.sqlite --html carlsen.html
  arbiter stats h2h 'Kasparov, Gary' 'Karpov, Anatoly' --db games.sqlite";

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
  arbiter stats player 'Carlsen,M' --db games.sqlite
  arbiter stats player 'carlsen, m' --db games.sqlite --format json > carlsen.json
  arbiter stats player '#42' --db games.sqlite --date-to 1950 --html p42.html")]
    Player(PlayerArgs),
    /// Two persons against each other: games, score by colour and opening, first and last
    /// game, streaks.
    #[command(after_help = "Examples:
  arbiter stats h2h 'Kasparov, Gary' 'Karpov, Anatoly' --db games.sqlite
  arbiter stats h2h 'Anand,V' 'Topalov,V' --db games.sqlite --format json")]
    H2h(H2hArgs),
    /// One person's openings with each colour, with scores and their 95% intervals.
    #[command(after_help = "Examples:
  arbiter stats openings 'Fischer, Robert James' --db games.sqlite
  arbiter stats openings 'Fischer, Robert James' --colour black --by eco --db games.sqlite
  arbiter stats openings 'Tal, Mihail' --by family --format csv --db games.sqlite > tal.csv")]
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
    fn filter(&self, conn: &Connection) -> Result<(Filter, bool)> {
        let mut filter = self.select.select(conn, true)?;
        let unique = std::mem::take(&mut filter.unique);
        Ok((filter, unique))
    }
}

/// The formats of the leaderboard.
const BOARD_FORMATS: [Format; 4] = [Format::Text, Format::Csv, Format::Jsonl, Format::Parquet];
/// The formats of a dossier, a head-to-head and a repertoire: the text report, the whole
/// report as one JSON document, or its rows as a table.
const REPORT_FORMATS: [Format; 5] = [
    Format::Text,
    Format::Json,
    Format::Csv,
    Format::Jsonl,
    Format::Parquet,
];

/// Where a report goes and in which format.
#[derive(Args, Debug, Clone)]
pub struct ReportOutput {
    /// text (default), json (the whole report, one document), or its rows as csv, jsonl or
    /// parquet; default: the -o file's extension.
    #[arg(long, value_parser = super::choice::parser(&REPORT_FORMATS))]
    pub format: Option<Format>,
    /// Output file (default: standard output); .gz/.zst/.bz2/.xz compress.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// CSV: write cells unchanged (no `'` before cells a spreadsheet would run as formulas).
    #[arg(long)]
    pub csv_raw: bool,
}

impl ReportOutput {
    fn format(&self) -> Result<Format> {
        format::choose(
            self.format,
            self.output.as_deref(),
            &REPORT_FORMATS,
            Format::Text,
        )
        .map_err(|e| AppError::usage(e.to_string()))
    }
}

#[derive(Args, Debug)]
pub struct PlayersArgs {
    #[command(flatten)]
    pub common: Common,
    #[arg(long, value_parser = super::choice::every::<SortBy>(), default_value = "games")]
    pub sort: SortBy,
    /// Only persons with at least this many finished games.
    #[arg(long, default_value_t = 1)]
    pub min_games: u32,
    /// Output file; its extension picks the format (.csv, .jsonl, .parquet; .gz/.zst/.bz2/.xz
    /// compress CSV and JSON lines). Default: an aligned table on standard output.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// text, csv, jsonl or parquet; default: the -o file's extension, else text.
    #[arg(long, value_parser = super::choice::parser(&BOARD_FORMATS))]
    pub format: Option<Format>,
    /// CSV: write cells unchanged (no `'` before cells a spreadsheet would run as formulas).
    #[arg(long)]
    pub csv_raw: bool,
    /// Text output: at most this many rows.
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
}

#[derive(Args, Debug)]
pub struct PlayerArgs {
    /// The person: a canonical name or any spelling (ignoring case), or `#ID`.
    pub name: String,
    #[command(flatten)]
    pub common: Common,
    #[command(flatten)]
    pub out: ReportOutput,
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
    #[command(flatten)]
    pub out: ReportOutput,
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
    #[command(flatten)]
    pub out: ReportOutput,
}

pub fn run(args: &StatsArgs) -> Result {
    match &args.command {
        StatsCommand::Players(a) => players(a),
        StatsCommand::Player(a) => player(a),
        StatsCommand::H2h(a) => h2h(a),
        StatsCommand::Openings(a) => openings(a),
    }
}

/// The one pass: every row of the selection into the dossiers, and the analysis summaries
/// over the same selection (of `person`'s games against `opponent`, when given).
fn collect(
    conn: &Connection,
    common: &Common,
    person: Option<i64>,
    opponent: Option<i64>,
) -> Result<(Stats, HashMap<i64, Summary>)> {
    let (filter, unique) = common.filter(conn)?;
    let mut stats = Stats::new(Selection {
        all_games: !unique,
        persons: person.map(|p| vec![p]),
        opponent,
    });
    read::for_each_row(conn, &filter, person, |row| stats.add(row))?;
    let scope = Scope {
        all_games: !unique,
        person,
        opponent,
    };
    let summaries = analysis::summarise(conn, &filter, &scope)?;
    Ok((stats, summaries))
}

fn open(common: &Common) -> Result<(Connection, Directory)> {
    let conn = crate::db::open_read_only(&common.db)?;
    let dir = Directory::load(&conn)?;
    Ok((conn, dir))
}

fn players(args: &PlayersArgs) -> Result {
    let format = format::choose(
        args.format,
        args.output.as_deref(),
        &BOARD_FORMATS,
        Format::Text,
    )
    .map_err(|e| AppError::usage(e.to_string()))?;
    let (conn, dir) = open(&args.common)?;
    // The output is opened before the pass, so an unwritable path fails at once.
    let mut sink: Option<Box<dyn TableFormat>> = match format {
        Format::Text => None,
        f => Some(format::open_table(f, args.output.as_deref(), args.csv_raw)?),
    };
    // The board needs a few numbers per game: the lean scan, not the dossiers' rows.
    let (filter, unique) = args.common.filter(&conn)?;
    let board = board::collect(&conn, &dir, &filter, !unique)?;
    let scope = Scope {
        all_games: !unique,
        ..Scope::default()
    };
    let summaries = analysis::summarise(&conn, &filter, &scope)?;
    let rows: Vec<_> = board
        .rows(&dir, args.sort, &summaries)
        .into_iter()
        .filter(|r| r.games >= args.min_games)
        .collect();
    if rows.is_empty() {
        warn("no person has games in the selection");
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
                        r.analysed_games.to_string(),
                        shown(r.accuracy, 1),
                        shown(r.acpl, 1),
                        shown(r.blunder_rate, 2),
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
                    "analysed",
                    "accuracy",
                    "ACPL",
                    "blunders/100",
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
            let mut o = Output::open(args.output.as_deref())?;
            o.write_all(out.as_bytes())?;
            o.finish()?;
        }
    }
    Ok(Outcome::Success)
}

/// The one writer of the report commands: `text` for text, `json()` for JSON, `rows()` for
/// the table formats, to standard output or `-o`.
fn write_document(
    out: &ReportOutput,
    format: Format,
    text: String,
    json: impl FnOnce() -> serde_json::Result<String>,
    rows: impl FnOnce() -> Vec<CsvRecord>,
) -> Result<()> {
    match format {
        Format::Text | Format::Json => {
            let mut body = if format == Format::Text {
                text
            } else {
                json()?
            };
            if !body.ends_with('\n') {
                body.push('\n');
            }
            let mut o = Output::open(out.output.as_deref())?;
            o.write_all(body.as_bytes())?;
            o.finish()?;
        }
        table => {
            let mut t = format::open_table(table, out.output.as_deref(), out.csv_raw)?;
            t.begin(&RECORD_COLUMNS)?;
            for r in rows() {
                t.row(&r.cells())?;
            }
            t.finish()?;
        }
    }
    Ok(())
}

/// The report as one JSON document with one more top-level key.
fn json_with(
    report: &Report,
    key: &str,
    extra: &impl serde::Serialize,
) -> serde_json::Result<String> {
    let mut value = serde_json::to_value(report)?;
    if let Some(map) = value.as_object_mut() {
        map.insert(key.into(), serde_json::to_value(extra)?);
    }
    serde_json::to_string_pretty(&value)
}

fn write_file(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).with_path(path)
}

/// The person `name` means; the persons it also matched and passed over are said on stderr.
fn resolve(conn: &Connection, dir: &Directory, name: &str) -> Result<i64> {
    let resolved = dir.resolve_noted(conn, name)?;
    if let Some(note) = resolved.note() {
        eprintln!("note: {note}");
    }
    Ok(resolved.person)
}

/// The report of the person `name` means, or None (said on stderr) without games.
fn person_report(common: &Common, name: &str, opponents: usize) -> Result<Report> {
    person_report_and_events(common, name, opponents).map(|r| r.0)
}

/// The report, and the events (event id, year) of the games it counts.
fn person_report_and_events(
    common: &Common,
    name: &str,
    opponents: usize,
) -> Result<(Report, EventKeys)> {
    let (conn, dir) = open(common)?;
    let id = resolve(&conn, &dir, name)?;
    let (stats, summaries) = collect(&conn, common, Some(id), None)?;
    match stats.dossiers.get(&id) {
        Some(d) => Ok((
            Report::new(d, &stats, &dir, opponents, summaries.get(&id)),
            d.events.clone(),
        )),
        None => Err(AppError::Failed(format!(
            "{} has no games in the selection",
            dir.person_name(id)
        ))),
    }
}

fn player(args: &PlayerArgs) -> Result {
    let format = args.out.format()?;
    let (report, selected) = person_report_and_events(&args.common, &args.name, args.opponents)?;
    let conn = crate::db::open_read_only(&args.common.db)?;
    // The events of the selected games only, each built whole (its standings are the event's).
    let events =
        crate::stats::tournament::event::player_events(&conn, report.player_id, Some(&selected))
            .map_err(|e| AppError::Other(e.to_string()))?;
    if let Some(path) = &args.html {
        write_file(path, &crate::stats::html::page(&report, &events))?;
    }
    let mut text = report.text();
    if !events.is_empty() {
        text.push_str(&crate::stats::tournament::event::events_text(&events));
    }
    write_document(
        &args.out,
        format,
        text,
        // The report with the person's events as tournaments (score, TPR, place).
        || json_with(&report, "events", &events),
        || report.csv_records(),
    )?;
    Ok(Outcome::Success)
}

fn h2h(args: &H2hArgs) -> Result {
    let format = args.out.format()?;
    let (conn, dir) = open(&args.common)?;
    let a = resolve(&conn, &dir, &args.a)?;
    let b = resolve(&conn, &dir, &args.b)?;
    if a == b {
        return Err(AppError::usage(format!(
            "{:?} and {:?} are the same person (#{a}): a head-to-head needs two",
            args.a, args.b
        )));
    }
    let (stats, summaries) = collect(&conn, &args.common, Some(a), Some(b))?;
    let Some(d) = stats.dossiers.get(&a) else {
        return Err(AppError::Failed(format!(
            "{} and {} have no games against each other in the selection",
            dir.person_name(a),
            dir.person_name(b)
        )));
    };
    let report = Report::new(d, &stats, &dir, 1, summaries.get(&a));
    // B's side of the same games: the same summary, the other way round.
    let (filter, unique) = args.common.filter(&conn)?;
    let theirs = Scope {
        all_games: !unique,
        person: Some(b),
        opponent: Some(a),
    };
    let opponent = analysis::summarise(&conn, &filter, &theirs)?
        .get(&b)
        .map(|s| AnalysisOut::new(s, |id| dir.person_name(id)));
    let shown = |id| crate::identity::names::visible(dir.person_name(id)).into_owned();
    let mut text = format!(
        "head-to-head: {} against {} (scores from {}'s side)\n",
        shown(a),
        shown(b),
        shown(a),
    );
    if let (Some(mine), Some(theirs)) = (&report.analysis, &opponent) {
        text.push_str(&analysis::h2h_text(
            [&shown(a), &shown(b)],
            [&mine.overall, &theirs.overall],
        ));
    }
    text.push('\n');
    text.push_str(&report.text());
    write_document(
        &args.out,
        format,
        text,
        || json_with(&report, "opponent_analysis", &opponent),
        || report.csv_records(),
    )?;
    Ok(Outcome::Success)
}

fn openings(args: &OpeningsArgs) -> Result {
    let format = args.out.format()?;
    let report = person_report(&args.common, &args.name, 0)?;
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
        warn(format_args!(
            "no game of {} in the selection has a named opening",
            report.player
        ));
    }
    let section = match args.by {
        OpeningLevel::Named => "opening",
        OpeningLevel::Family => "opening_family",
        OpeningLevel::Eco => "eco",
    };
    let text = {
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
        let mut out = format!(
            "{}: openings\n",
            crate::identity::names::visible(&report.player)
        );
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
        out
    };
    write_document(
        &args.out,
        format,
        text,
        || serde_json::to_string_pretty(&lines),
        || {
            lines
                .iter()
                .map(|o| CsvRecord::new(&report.player, section, o.colour, &o.line))
                .collect()
        },
    )?;
    Ok(Outcome::Success)
}
