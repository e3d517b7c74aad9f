//! `arbiter ratings --db DB --system NAME`: rates the database's persons from their games (each
//! duplicate group once, the lawful result by default), prints or writes the list (text, CSV,
//! JSON lines, Parquet) and stores the run in the database. The systems and their settings come
//! from `stats::ratings::system::SYSTEMS`: their flags are made from that list.

use super::error::{AppError, Outcome, PathContext, Result};
use super::filter::FilterArgs;
use crate::db::directory::Directory;
use crate::export::format::{self, Format};
use crate::export::output::Output;
use crate::export::table::{Cell, Column, Kind, TableFormat};
use crate::export::text::TextFormat;
use crate::stats::ratings::RatingRow;
use crate::stats::ratings::encounters;
use crate::stats::ratings::period::History;
use crate::stats::ratings::select::{self, ResultSource, Selection};
use crate::stats::ratings::system::{self, Context, RateError, SYSTEMS, Values};
use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::{Arg, ArgAction, ArgMatches, Args, FromArgMatches, ValueEnum};
use std::borrow::Cow;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultSourceArg {
    /// The result the Laws decide (a game the Laws say was drawn counts as a draw).
    Lawful,
    /// The Result tag as written.
    Recorded,
}

/// The formats of the list.
const FORMATS: [Format; 4] = [Format::Text, Format::Csv, Format::Jsonl, Format::Parquet];

fn system_names() -> PossibleValuesParser {
    PossibleValuesParser::new(
        SYSTEMS
            .iter()
            .map(|s| PossibleValue::new(s.name()).help(s.about())),
    )
}

fn positive_count(text: &str) -> std::result::Result<u32, String> {
    match text.trim().parse::<i64>() {
        Ok(n) if n > 0 => Ok(n.min(i64::from(u32::MAX)) as u32),
        Ok(_) => Err("must be > 0".into()),
        Err(_) => Err("not a whole number".into()),
    }
}

#[derive(Args, Debug)]
#[command(after_help = "Examples:
  arbiter ratings --db games.sqlite --system pool --white-advantage auto --min-games 5 -o pool.csv
  arbiter ratings --db games.sqlite --system elo --rules 2024 --period month --from 2020
  arbiter ratings --db games.sqlite --system glicko2 --per-game --tau 0.75 -o list.parquet")]
pub struct RatingsArgs {
    /// The database written by `arbiter import` (schema version 2 or later).
    #[arg(long, default_value = "arbiter.sqlite")]
    pub db: PathBuf,
    /// Rate the games of Parquet files instead of a database: the `encounters` table of
    /// spark/judge.py or `player_games` rows (one file, or a folder of them). Select the rows
    /// before (Spark SQL, DuckDB); nothing is stored.
    #[arg(long, value_name = "PATH", conflicts_with_all = ["FilterArgs", "result_source", "no_store"])]
    pub encounters: Option<PathBuf>,
    /// The rating system.
    #[arg(long, value_parser = system_names())]
    pub system: String,
    /// Output file; the extension, under a compression suffix (.gz, .zst, .bz2, .xz), picks
    /// the format (.csv, .jsonl, .parquet).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Output format [default: from the extension, else text].
    #[arg(long, value_parser = super::choice::parser(&FORMATS))]
    pub format: Option<Format>,
    /// CSV: write cells unchanged (no `'` before cells a spreadsheet would run as formulas).
    #[arg(long)]
    pub csv_raw: bool,
    /// Rate only players with at least N games in the selection (repeatedly: leaving a
    /// player out can take an opponent under N).
    #[arg(long, value_name = "N", value_parser = positive_count, allow_negative_numbers = true)]
    pub min_games: Option<u32>,
    #[arg(long, value_enum, default_value = "lawful")]
    pub result_source: ResultSourceArg,
    /// Do not store the run in the database.
    #[arg(long)]
    pub no_store: bool,
    /// The settings of the systems.
    #[command(flatten)]
    pub settings: SystemFlags,
    /// The games rated: the export's selection flags; each duplicate group once unless
    /// --all-games.
    #[command(flatten)]
    pub select: FilterArgs,
}

/// The settings of every rating system as flags, made from the systems' own lists.
#[derive(Debug, Clone, Default)]
pub struct SystemFlags {
    pub values: Values,
}

impl Args for SystemFlags {
    fn augment_args(mut cmd: clap::Command) -> clap::Command {
        for (p, systems) in system::all_params() {
            let default = p
                .default
                .map_or(String::new(), |d| format!(" [default: {d}]"));
            let mut arg = Arg::new(p.key)
                .long(p.flag)
                .help(format!("{}: {}{default}", systems.join(", "), p.help))
                .help_heading("System settings");
            arg = match p.kind {
                system::Kind::Switch => arg.action(ArgAction::SetTrue),
                system::Kind::Anchors => arg
                    .action(ArgAction::Append)
                    .value_name("NAME=RATING")
                    .allow_hyphen_values(true),
                system::Kind::Choice(names) => arg
                    .action(ArgAction::Set)
                    .value_parser(PossibleValuesParser::new(names.iter().copied())),
                _ => arg
                    .action(ArgAction::Set)
                    .value_name("N")
                    .allow_negative_numbers(true),
            };
            cmd = cmd.arg(arg);
        }
        cmd
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

impl FromArgMatches for SystemFlags {
    fn from_arg_matches(m: &ArgMatches) -> std::result::Result<Self, clap::Error> {
        let mut flags = SystemFlags::default();
        flags.update_from_arg_matches(m)?;
        Ok(flags)
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> std::result::Result<(), clap::Error> {
        for (p, _) in system::all_params() {
            if p.kind == system::Kind::Switch {
                if m.get_flag(p.key) {
                    self.values.set(p.key, vec!["true".into()]);
                }
            } else if let Some(v) = m.get_many::<String>(p.key) {
                self.values.set(p.key, v.cloned().collect());
            }
        }
        Ok(())
    }
}

impl From<RateError> for AppError {
    fn from(e: RateError) -> AppError {
        if e.is_usage() {
            AppError::Usage(e.to_string())
        } else {
            AppError::Failed(e.to_string())
        }
    }
}

pub fn run(args: &RatingsArgs) -> Result {
    let Some(system) = system::find(&args.system) else {
        return Err(AppError::usage(format!(
            "--system {}: no such system",
            args.system
        )));
    };
    let values = &args.settings.values;
    system::check_settings(system, values).map_err(RateError::from)?;
    let format = format::choose(args.format, args.output.as_deref(), &FORMATS, Format::Text)
        .map_err(|e| AppError::usage(e.to_string()))?;
    let source = match args.result_source {
        ResultSourceArg::Lawful => ResultSource::Lawful,
        ResultSourceArg::Recorded => ResultSource::Recorded,
    };
    let (conn, mut selection) = match &args.encounters {
        Some(path) => {
            let e = encounters::read(path).map_err(|e| AppError::Other(e.to_string()))?;
            eprintln!(
                "{} files read ({} of other tables passed over): {} games, {} without a result, {} duplicates left out",
                e.files,
                e.other_files,
                e.games.len(),
                e.unfinished,
                e.duplicates
            );
            (None, Selection::from_encounters(e))
        }
        None => {
            // Only a stored run writes: a run with --no-store reads.
            let conn = if args.no_store {
                crate::db::open_read_only(&args.db)?
            } else {
                crate::db::open_existing(&args.db)?
            };
            let selection = select::select(&conn, &args.select.select(&conn, true)?, source)?;
            (Some(conn), selection)
        }
    };
    if let Some(min) = args.min_games {
        selection.min_games(min);
    }
    let anchors = anchors(system, values, &selection, conn.as_ref())?;
    // Only a stored run writes the history: without storing, nothing reads it.
    let store = conn.as_ref().filter(|_| !args.no_store);
    let cx = Context {
        selection: &selection,
        anchors,
        keep: if store.is_some() {
            History::Keep
        } else {
            History::Drop
        },
        verbose: args.select.verbose,
    };
    let started = std::time::Instant::now();
    let report = system::rate(system, values, &cx)?;
    let seconds = started.elapsed().as_secs_f64();
    write_list(
        &report.rows,
        &selection.names,
        format,
        args.output.as_deref(),
        args.csv_raw,
    )?;
    let mut err = io::stderr().lock();
    for line in &report.summary {
        writeln!(err, "{line}")?;
    }
    writeln!(
        err,
        "{}, {seconds:.3} s",
        selection
            .left_out
            .accounting(report.rated_games, &report.not_rated)
    )?;
    if let Some(conn) = store {
        let mut common = serde_json::Map::new();
        if let Some(min) = args.min_games {
            common.insert("min_games".into(), serde_json::json!(min));
        }
        let settings =
            system::settings_json(system, values, args.select.settings(), source, common);
        let run_id = system::store(conn, system, &settings, &selection, &report)?;
        writeln!(err, "stored as rating run {run_id}")?;
    }
    Ok(Outcome::Success)
}

/// The persons `--anchor NAME=RATING` holds, as indices of the selection: NAME resolved as
/// every command resolves a person (`#ID`, any spelling, the other name order, a surname);
/// from Parquet rows, which have no persons, by the exact name.
fn anchors(
    system: &dyn system::System,
    values: &Values,
    selection: &Selection,
    conn: Option<&rusqlite::Connection>,
) -> Result<Vec<(u32, f64)>> {
    let mut out = Vec::new();
    let mut directory = None;
    for p in system
        .params()
        .iter()
        .filter(|p| p.kind == system::Kind::Anchors)
    {
        for text in values.list(p) {
            let (name, rating) = system::parse_anchor(p, text).map_err(RateError::from)?;
            let index = match conn {
                Some(conn) => {
                    let dir = match &directory {
                        Some(d) => d,
                        None => directory.insert(Directory::load(conn)?),
                    };
                    let person = dir
                        .resolve(conn, name)
                        .map_err(|e| anchor_error(text, AppError::from(e)))?;
                    selection.index_of_person(person).ok_or_else(|| {
                        AppError::usage(format!(
                            "--anchor {text}: #{person} {} has no rated game in the selection",
                            dir.person_name(person)
                        ))
                    })?
                }
                None => match selection.index_by_name(name).as_slice() {
                    [i] => *i,
                    [] => {
                        return Err(AppError::usage(format!(
                            "--anchor {text}: no player named {name:?} in the rows read"
                        )));
                    }
                    found => {
                        return Err(AppError::usage(format!(
                            "--anchor {text}: {name:?} names {} players in the rows read",
                            found.len()
                        )));
                    }
                },
            };
            out.push((index, rating));
        }
    }
    Ok(out)
}

/// A resolver's refusal, said of the flag.
fn anchor_error(text: &str, e: AppError) -> AppError {
    match e {
        AppError::Usage(m) => AppError::Usage(format!("--anchor {text}: {m}")),
        e => e,
    }
}

const COLUMNS: [Column; 9] = [
    Column {
        name: "player",
        kind: Kind::Text,
        meaning: "the person's canonical name",
    },
    Column {
        name: "games",
        kind: Kind::Int,
        meaning: "games rated",
    },
    Column {
        name: "score",
        kind: Kind::Float,
        meaning: "points in those games",
    },
    Column {
        name: "rating",
        kind: Kind::Float,
        meaning: "rating (Elo scale)",
    },
    Column {
        name: "error",
        kind: Kind::Float,
        meaning: "standard error (pool) or RD (Glicko)",
    },
    Column {
        name: "rank",
        kind: Kind::Int,
        meaning: "1 = best",
    },
    Column {
        name: "rd",
        kind: Kind::Float,
        meaning: "Glicko rating deviation",
    },
    Column {
        name: "volatility",
        kind: Kind::Float,
        meaning: "Glicko-2 volatility",
    },
    Column {
        name: "bound",
        kind: Kind::Text,
        meaning: "> floor (only wins), < ceiling (only losses)",
    },
];

fn cells<'a>(r: &RatingRow, names: &'a [String]) -> [Cell<'a>; 9] {
    let float = |x: Option<f64>| x.map_or(Cell::Null, Cell::Float);
    [
        Cell::Text(Cow::Borrowed(&names[r.player as usize])),
        Cell::Int(i64::from(r.games)),
        Cell::Float(r.score),
        float(r.rating),
        float(r.error),
        r.rank.map_or(Cell::Null, |k| Cell::Int(i64::from(k))),
        float(r.rd),
        float(r.volatility),
        r.bound
            .map_or(Cell::Null, |b| Cell::Text(Cow::Owned(b.to_string()))),
    ]
}

fn write_list(
    rows: &[RatingRow],
    names: &[String],
    format: Format,
    path: Option<&Path>,
    csv_raw: bool,
) -> Result<()> {
    if format == Format::Text {
        // The same cells, the columns a reader looks at first, the ones no row fills left out.
        let any = |c: usize| rows.iter().any(|r| cells(r, names)[c] != Cell::Null);
        let picked: Vec<usize> = [5, 0, 3, 8, 4, 1, 2, 6, 7]
            .into_iter()
            .filter(|&c| ![6, 7, 8].contains(&c) || any(c))
            .collect();
        let out = match path {
            Some(p) => Output::open(Some(p)).with_path(p)?,
            None => Output::open(None)?,
        };
        let mut t = TextFormat::new(out);
        t.begin(&picked.iter().map(|&c| COLUMNS[c]).collect::<Vec<_>>())?;
        // Ratings, errors and scores to one decimal on the screen, the volatility to four.
        for r in rows {
            let all = cells(r, names);
            let row: Vec<Cell<'_>> = picked
                .iter()
                .map(|&c| match all[c] {
                    Cell::Float(x) => Cell::Fixed(x, if c == 7 { 4 } else { 1 }),
                    ref other => other.clone(),
                })
                .collect();
            t.row(&row)?;
        }
        return Ok(t.into_inner()?.finish()?);
    }
    let mut table: Box<dyn TableFormat> = format::open_table(format, path, csv_raw)?;
    table.begin(&COLUMNS)?;
    for r in rows {
        table.row(&cells(r, names))?;
    }
    table.finish()?;
    Ok(())
}
