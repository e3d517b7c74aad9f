//! `arbiter ratings --db DB --system pool|elo|glicko2|glicko`: rates the database's persons
//! from their games (each duplicate group once, the lawful result by default), prints or writes
//! the list (text, CSV, JSON lines, Parquet) and stores the run in the database.

use super::filter::FilterArgs;
use crate::export::csv::CsvFormat;
use crate::export::jsonl::JsonlFormat;
use crate::export::output::Output;
use crate::export::parquet::{ParquetFormat, Target};
use crate::export::table::{Cell, Column, Kind, TableFormat};
use crate::stats::ratings::encounters;
use crate::stats::ratings::period::{History, PeriodKind, PeriodRun, drive, drive_per_game};
use crate::stats::ratings::pool::{self, Anchoring, Errors, PoolError, WhiteAdvantage};
use crate::stats::ratings::{Date, Game, HistoryRow, Outcome, RatingRow, elo, glicko, glicko2};
use crate::stats::scan::{self, Order, WhiteResult};
use clap::{Args, ValueEnum};
use rusqlite::{Connection, params};
use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{self, Write};
use std::path::PathBuf;

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum System {
    /// Whole-pool maximum likelihood (as Ordo).
    Pool,
    /// FIDE Elo, period by period.
    Elo,
    Glicko2,
    Glicko,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum RulesArg {
    #[value(name = "2014")]
    R2014,
    #[value(name = "2024")]
    R2024,
    #[value(name = "2025")]
    R2025,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeriodArg {
    Month,
    Quarter,
    Year,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultSource {
    /// The result the Laws decide (a game the Laws say was drawn counts as a draw).
    Lawful,
    /// The Result tag as written.
    Recorded,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorsArg {
    /// From the inverse Hessian of the likelihood.
    Analytic,
    /// Refits on games resampled with replacement (--samples, --seed).
    Bootstrap,
    None,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartArg {
    /// Players start from their first Elo tag in the selection (else unrated).
    Tags,
    /// Everyone starts unrated.
    Unrated,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormatArg {
    Text,
    Csv,
    Jsonl,
    Parquet,
}

#[derive(Args, Debug)]
#[command(after_help = "Examples:
  arbiter ratings --db games.sqlite --system pool --white-advantage auto -o pool.csv
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
    #[arg(long, value_enum)]
    pub system: System,
    /// Output file; the extension picks the format (.txt, .csv, .jsonl, .parquet).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Output format (default: from the extension, else text).
    #[arg(long, value_enum)]
    pub format: Option<FormatArg>,
    /// The games rated: the export's selection flags; each duplicate group once unless
    /// --all-games.
    #[command(flatten)]
    pub select: FilterArgs,
    #[arg(long, value_enum, default_value = "lawful")]
    pub result_source: ResultSource,
    /// Do not store the run in the database.
    #[arg(long)]
    pub no_store: bool,
    /// pool: the pool's average rating (ignored with --anchor).
    #[arg(long, default_value_t = 2000.0)]
    pub average: f64,
    /// pool: hold a person (canonical name) at a rating, NAME=R (repeatable).
    #[arg(long)]
    pub anchor: Vec<String>,
    /// pool: White's advantage in Elo points, or `auto` to fit it.
    #[arg(long, default_value = "0")]
    pub white_advantage: String,
    /// pool: how to compute the error column.
    #[arg(long, value_enum, default_value = "analytic")]
    pub errors: ErrorsArg,
    #[arg(long, default_value_t = 100)]
    pub samples: u32,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// pool: rate the largest connected group when the players form several.
    #[arg(long)]
    pub largest_group: bool,
    /// elo: which FIDE Rating Regulations.
    #[arg(long, value_enum, default_value = "2025")]
    pub rules: RulesArg,
    /// elo: one K factor for everyone instead of 40 / 20 / 10 (K·n ≤ 700 still applies).
    #[arg(long)]
    pub k: Option<u32>,
    /// elo: starting ratings.
    #[arg(long, value_enum, default_value = "tags")]
    pub start: StartArg,
    /// elo, glicko, glicko2: the rating period.
    #[arg(long, value_enum, default_value = "month")]
    pub period: PeriodArg,
    /// glicko2: τ, the volatility's freedom.
    #[arg(long, default_value_t = 0.5)]
    pub tau: f64,
    /// glicko: c, the deviation's growth per period (default √((350² − 50²)/30) ≈ 63.2).
    #[arg(long)]
    pub c: Option<f64>,
    /// glicko2, glicko: each game its own fractional period (as lichess), aged by days.
    #[arg(long)]
    pub per_game: bool,
}

/// The games selected, as the rating systems see them, with the persons' names.
struct Selection {
    games: Vec<Game>,
    names: Vec<String>,
    person_ids: Vec<i64>,
    /// Each person's first Elo tag in the selection (by date).
    first_tag: Vec<Option<i32>>,
    /// Why the other stored games are not in `games` (see [`accounting`]).
    left_out: LeftOut,
}

/// The stored games that never reach a rating system, by reason.
#[derive(Default)]
struct LeftOut {
    /// What `stored` counts: "stored games" (a database) or "games read" (Parquet rows).
    what: &'static str,
    stored: usize,
    /// Not matched by the selection (dates, time control class) or without a White name.
    not_selected: usize,
    /// Records of a game stored more than once that are not their group's survivor.
    duplicates: usize,
    /// No result (`*` or none): never a loss.
    unfinished: usize,
    /// A side whose name belongs to no person (an empty Black tag).
    no_opponent: usize,
}

fn db_err(e: rusqlite::Error) -> io::Error {
    io::Error::other(format!("database: {e}"))
}

fn select(conn: &Connection, args: &RatingsArgs) -> io::Result<Selection> {
    // The white side of each selected game: one row per game, as the `player_games` view's
    // white rows (a game without a White name has none). Duplicates are read and counted,
    // not filtered in SQL, so the summary can account for every stored game.
    let mut filter = args.select.filter(true);
    let unique = std::mem::replace(&mut filter.unique, false);
    // Persons by id, dense: index in the order of first appearance (the list's tie order).
    let mut persons: Vec<(i64, String)> = Vec::new();
    {
        let mut stmt = conn
            .prepare("SELECT id, name FROM players")
            .map_err(db_err)?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(db_err)?;
        for r in rows {
            persons.push(r.map_err(db_err)?);
        }
    }
    persons.sort_unstable_by_key(|p| p.0);
    const NONE: u32 = u32::MAX;
    let mut index: Vec<u32> = vec![NONE; persons.len()];
    let mut strays: HashMap<i64, u32> = HashMap::new();
    let mut person_ids: Vec<i64> = Vec::new();
    let mut tags: Vec<(Date, Option<i32>)> = Vec::new();
    let mut games = Vec::new();
    let mut left_out = LeftOut {
        stored: conn
            .query_row("SELECT COUNT(*) FROM games", [], |r| r.get::<_, i64>(0))
            .map_err(db_err)? as usize,
        what: "stored games",
        ..LeftOut::default()
    };
    let rows_read = scan::for_each_game(conn, &filter, true, Order::Id, |row| {
        if unique && row.duplicate {
            left_out.duplicates += 1;
            return;
        }
        let result = match args.result_source {
            ResultSource::Lawful => row.effective(),
            ResultSource::Recorded => row.recorded,
        };
        let Some(outcome) = result.map(|r| match r {
            WhiteResult::WhiteWins => Outcome::WhiteWins,
            WhiteResult::Draw => Outcome::Draw,
            WhiteResult::BlackWins => Outcome::BlackWins,
        }) else {
            left_out.unfinished += 1;
            return;
        };
        let (Some(white), Some(black)) = (row.white, row.black) else {
            left_out.no_opponent += 1;
            return;
        };
        let part = |v: Option<i64>| v.unwrap_or(0).clamp(0, 9999) as u32;
        let date = Date::new(
            part(row.year) as u16,
            part(row.month).min(12) as u8,
            part(row.day).min(31) as u8,
        );
        let event = row.event_id.unwrap_or(0) as u32;
        let mut id = |person: i64, tag: Option<i64>| -> u32 {
            // A person id the players table lacks still gets an index (named #ID).
            let slot = match persons.binary_search_by_key(&person, |p| p.0) {
                Ok(k) => &mut index[k],
                Err(_) => strays.entry(person).or_insert(NONE),
            };
            if *slot == NONE {
                person_ids.push(person);
                tags.push((Date::new(u16::MAX, 0, 0), None));
                *slot = person_ids.len() as u32 - 1;
            }
            let i = *slot;
            let t = &mut tags[i as usize];
            if let Some(tag) = tag.filter(|&t| t > 0)
                && date < t.0
            {
                *t = (date, Some(tag as i32));
            }
            i
        };
        let w = id(white, row.white_elo);
        let b = id(black, row.black_elo);
        games.push(Game {
            white: w,
            black: b,
            outcome,
            date,
            event,
        });
    })
    .map_err(db_err)? as usize;
    let names = person_ids
        .iter()
        .map(|id| match persons.binary_search_by_key(id, |p| p.0) {
            Ok(k) => persons[k].1.clone(),
            Err(_) => format!("#{id}"),
        })
        .collect();
    Ok(Selection {
        games,
        names,
        person_ids,
        first_tag: tags.into_iter().map(|(_, t)| t).collect(),
        left_out: LeftOut {
            not_selected: left_out.stored.saturating_sub(rows_read),
            ..left_out
        },
    })
}

/// What a run produced, ready to print and store.
struct Outcomes {
    rows: Vec<RatingRow>,
    history: Vec<HistoryRow>,
    rated_games: usize,
    summary: Vec<String>,
    /// Selected games the system left out, by reason.
    not_rated: Vec<(&'static str, usize)>,
}

/// Every stored game once: rated, or the reason it was not (the parts add up to `stored`).
fn accounting(left: &LeftOut, rated: usize, not_rated: &[(&str, usize)]) -> String {
    let mut text = format!("{} {}: {rated} rated", left.stored, left.what);
    let reasons = [
        ("outside the selection", left.not_selected),
        (
            "duplicate records (--all-games rates them)",
            left.duplicates,
        ),
        ("unfinished", left.unfinished),
        ("without a Black player", left.no_opponent),
    ];
    for (why, n) in reasons.iter().chain(not_rated).filter(|r| r.1 > 0) {
        text.push_str(&format!(", {n} {why}"));
    }
    text
}

fn usage(message: String) -> io::Result<i32> {
    eprintln!("arbiter: {message}");
    Ok(2)
}

pub fn run(args: &RatingsArgs) -> io::Result<i32> {
    let white_advantage = match args.white_advantage.as_str() {
        "auto" => WhiteAdvantage::Auto,
        v => match v.parse::<f64>() {
            Ok(x) if x.is_finite() => WhiteAdvantage::Fixed(x),
            _ => {
                return usage(format!(
                    "--white-advantage {v}: expected a number of Elo points or `auto`"
                ));
            }
        },
    };
    if args.per_game && args.system == System::Elo {
        return usage("--per-game applies to glicko and glicko2, not elo".into());
    }
    let format = match (args.format, &args.output) {
        (Some(f), _) => f,
        (None, Some(p)) => match p.extension().and_then(|e| e.to_str()) {
            Some("csv") => FormatArg::Csv,
            Some("jsonl") | Some("json") => FormatArg::Jsonl,
            Some("parquet") => FormatArg::Parquet,
            _ => FormatArg::Text,
        },
        (None, None) => FormatArg::Text,
    };
    if format == FormatArg::Parquet && args.output.is_none() {
        return usage("Parquet needs a file: -o FILE.parquet".into());
    }
    let (conn, selection) = match &args.encounters {
        Some(path) => match encounters::read(path) {
            Ok(e) => {
                let left_out = LeftOut {
                    what: "games read",
                    stored: e.games.len() + e.unfinished + e.duplicates,
                    duplicates: e.duplicates,
                    unfinished: e.unfinished,
                    ..LeftOut::default()
                };
                let selection = Selection {
                    games: e.games,
                    names: e.names,
                    person_ids: Vec::new(),
                    first_tag: e.first_tag,
                    left_out,
                };
                eprintln!(
                    "{} files read ({} of other tables passed over): {} games, {} without a result, {} duplicates left out",
                    e.files,
                    e.other_files,
                    selection.games.len(),
                    e.unfinished,
                    e.duplicates
                );
                (None, selection)
            }
            Err(e) => {
                eprintln!("arbiter: {e}");
                return Ok(1);
            }
        },
        None => match open_and_select(args)? {
            Ok(both) => both,
            Err(code) => return Ok(code),
        },
    };
    rate(args, conn.as_ref(), selection, white_advantage, format)
}

/// The database's games for the selection, or the exit code of a refusal already reported.
fn open_and_select(args: &RatingsArgs) -> io::Result<Result<(Option<Connection>, Selection), i32>> {
    if !args.db.exists() {
        return usage(format!("{}: no such database", args.db.display())).map(Err);
    }
    let conn = Connection::open(&args.db).map_err(db_err)?;
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(db_err)?;
    if version < 2 {
        eprintln!(
            "arbiter: {}: schema version {version} has no persons yet; open it once with \
             `arbiter import` of this version to migrate it",
            args.db.display()
        );
        return Ok(Err(2));
    }
    let selection = select(&conn, args)?;
    Ok(Ok((Some(conn), selection)))
}

/// Rates the selection with the system asked for, prints or writes the list, and stores the
/// run when it came from a database.
fn rate(
    args: &RatingsArgs,
    conn: Option<&Connection>,
    selection: Selection,
    white_advantage: WhiteAdvantage,
    format: FormatArg,
) -> io::Result<i32> {
    let skipped = selection.left_out.unfinished;
    if selection.games.is_empty() {
        eprintln!(
            "arbiter: no rated games in the selection ({})",
            accounting(&selection.left_out, 0, &[])
        );
        return Ok(1);
    }
    let players = selection.names.len();
    let kind = match args.period {
        PeriodArg::Month => PeriodKind::Month,
        PeriodArg::Quarter => PeriodKind::Quarter,
        PeriodArg::Year => PeriodKind::Year,
    };
    // Only a stored run writes the history: without storing, nothing reads it.
    let keep = if conn.is_some() && !args.no_store {
        History::Keep
    } else {
        History::Drop
    };
    let started = std::time::Instant::now();
    let out = match args.system {
        System::Pool => {
            let anchoring = if args.anchor.is_empty() {
                Anchoring::Average(args.average)
            } else {
                let mut anchors = Vec::new();
                for a in &args.anchor {
                    let Some((name, r)) = a.rsplit_once('=') else {
                        return usage(format!("--anchor {a}: expected NAME=RATING"));
                    };
                    let Ok(r) = r.trim().parse::<f64>() else {
                        return usage(format!("--anchor {a}: {r} is not a rating"));
                    };
                    let Some(p) = selection.names.iter().position(|n| n == name.trim()) else {
                        return usage(format!(
                            "--anchor {a}: no person named {name} in the selection"
                        ));
                    };
                    anchors.push((p as u32, r));
                }
                Anchoring::Players(anchors)
            };
            let settings = pool::Settings {
                white_advantage,
                anchoring,
                errors: match args.errors {
                    ErrorsArg::Analytic => Errors::Analytic,
                    ErrorsArg::None => Errors::None,
                    ErrorsArg::Bootstrap => Errors::Bootstrap {
                        samples: args.samples,
                        seed: args.seed,
                    },
                },
                largest_group: args.largest_group,
            };
            match pool::rate(players, &selection.games, &settings) {
                Ok(run) => {
                    let mut summary = vec![format!(
                        "{} games rated, {} players, {} Newton steps ({} passes over the pairs), white advantage {:.1}, draw rate {:.1} %, errors: {}",
                        run.games_rated,
                        run.rows.iter().filter(|r| r.rating.is_some()).count(),
                        run.iterations,
                        run.passes,
                        run.white_advantage,
                        run.draw_rate * 100.0,
                        run.error_method
                    )];
                    if run.bounded > 0 {
                        summary.push(format!(
                            "{} players with only wins (>) or only losses (<): rated as if one game were drawn",
                            run.bounded
                        ));
                    }
                    if run.groups.len() > 1 {
                        summary.push(groups_text(
                            &run.groups,
                            &selection.names,
                            "rated the largest; left unrated",
                        ));
                    }
                    if run.failed_samples > 0 {
                        summary.push(format!(
                            "{} bootstrap samples could not be fitted",
                            run.failed_samples
                        ));
                    }
                    Outcomes {
                        rows: run.rows,
                        history: Vec::new(),
                        rated_games: run.games_rated,
                        summary,
                        not_rated: vec![(
                            "in groups left unrated",
                            selection.games.len() - run.games_rated,
                        )],
                    }
                }
                Err(PoolError::SeparateGroups(groups)) => {
                    eprintln!(
                        "arbiter: {}\n  (--largest-group rates the largest)",
                        groups_text(&groups, &selection.names, "no ratings between them")
                    );
                    return Ok(1);
                }
                Err(PoolError::IllConnected(sets)) => {
                    eprintln!(
                        "arbiter: after setting aside perfect scores, {} sets of players only won or only lost against the rest (their ratings would be infinite):",
                        sets.len()
                    );
                    for s in sets.iter().take(10) {
                        eprintln!(
                            "  {} players, e.g. {}",
                            s.len(),
                            selection.names[s[0] as usize]
                        );
                    }
                    return Ok(1);
                }
                Err(e) => {
                    eprintln!("arbiter: {e}");
                    return Ok(1);
                }
            }
        }
        System::Elo => {
            let rule = elo::Rule {
                settings: elo::Settings {
                    rules: match args.rules {
                        RulesArg::R2014 => elo::Rules::R2014,
                        RulesArg::R2024 => elo::Rules::R2024,
                        RulesArg::R2025 => elo::Rules::R2025,
                    },
                    k: args.k,
                },
                start: match args.start {
                    StartArg::Tags => selection.first_tag.clone(),
                    StartArg::Unrated => Vec::new(),
                },
            };
            period_outcomes(
                drive(&rule, players, &selection.games, kind, keep),
                selection.games.len(),
            )
        }
        System::Glicko2 => {
            let rule = glicko2::Rule(glicko2::Settings {
                tau: args.tau,
                ..glicko2::Settings::default()
            });
            let run = if args.per_game {
                drive_per_game(&rule, players, &selection.games, kind, keep)
            } else {
                drive(&rule, players, &selection.games, kind, keep)
            };
            period_outcomes(run, selection.games.len())
        }
        System::Glicko => {
            let defaults = glicko::Settings::default();
            let rule = glicko::Rule(glicko::Settings {
                c: args.c.unwrap_or(defaults.c),
                ..defaults
            });
            let run = if args.per_game {
                drive_per_game(&rule, players, &selection.games, kind, keep)
            } else {
                drive(&rule, players, &selection.games, kind, keep)
            };
            period_outcomes(run, selection.games.len())
        }
    };
    let seconds = started.elapsed().as_secs_f64();
    if out.rows.iter().all(|r| r.rating.is_none()) {
        eprintln!(
            "arbiter: nobody got a rating from the {} games selected",
            out.rated_games
        );
        return Ok(1);
    }
    write_list(&out.rows, &selection.names, format, args.output.as_ref())?;
    let mut err = io::stderr().lock();
    for line in &out.summary {
        writeln!(err, "{line}")?;
    }
    writeln!(
        err,
        "{}, {seconds:.3} s",
        accounting(&selection.left_out, out.rated_games, &out.not_rated)
    )?;
    if let Some(conn) = conn.filter(|_| !args.no_store) {
        let run_id = store(conn, args, kind, &selection, &out, skipped).map_err(db_err)?;
        writeln!(err, "stored as rating run {run_id}")?;
    }
    Ok(0)
}

fn period_outcomes(run: PeriodRun, selected: usize) -> Outcomes {
    Outcomes {
        rows: run.rows,
        history: run.history,
        rated_games: selected - run.undated,
        summary: Vec::new(),
        not_rated: vec![(
            "without the date parts that name the period (try --period year)",
            run.undated,
        )],
    }
}

fn groups_text(groups: &[Vec<u32>], names: &[String], what: &str) -> String {
    let mut text = format!(
        "the players form {} separate groups ({what}):",
        groups.len()
    );
    for g in groups.iter().take(10) {
        text.push_str(&format!(
            "\n  {} players, e.g. {}",
            g.len(),
            names[g[0] as usize]
        ));
    }
    if groups.len() > 10 {
        text.push_str(&format!("\n  … and {} more groups", groups.len() - 10));
    }
    text
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
    format: FormatArg,
    path: Option<&PathBuf>,
) -> io::Result<()> {
    let table: Box<dyn TableFormat> = match format {
        FormatArg::Text => {
            let mut out = Output::open(path.map(|p| p.as_path()))?;
            writeln!(
                out,
                "{:>5}  {:<32} {:>8} {:>7} {:>6} {:>7}",
                "rank", "player", "rating", "error", "games", "score"
            )?;
            for r in rows {
                let rating = r.rating.map_or("-".into(), |x| {
                    format!("{}{x:.1}", r.bound.map(String::from).unwrap_or_default())
                });
                writeln!(
                    out,
                    "{:>5}  {:<32} {:>8} {:>7} {:>6} {:>7}",
                    r.rank.map_or("-".into(), |k| k.to_string()),
                    names[r.player as usize],
                    rating,
                    r.error.map_or("-".into(), |e| format!("{e:.1}")),
                    r.games,
                    r.score
                )?;
            }
            return out.finish();
        }
        FormatArg::Csv => Box::new(CsvFormat::new(
            Output::open(path.map(|p| p.as_path()))?,
            false,
        )),
        FormatArg::Jsonl => Box::new(JsonlFormat::new(Output::open(path.map(|p| p.as_path()))?)),
        FormatArg::Parquet => {
            let path = path.expect("checked before");
            Box::new(ParquetFormat::create(Target::File(path.clone())).map_err(io::Error::other)?)
        }
    };
    let mut table = table;
    let run = || -> Result<(), crate::export::ExportError> {
        table.begin(&COLUMNS)?;
        for r in rows {
            table.row(&cells(r, names))?;
        }
        table.finish()
    };
    run().map_err(|e| match e {
        crate::export::ExportError::Io(e) => e,
        e => io::Error::other(e.to_string()),
    })
}

/// The exact settings of a run, so it can be redone.
fn settings_json(args: &RatingsArgs) -> serde_json::Value {
    let mut s = serde_json::json!({
        "system": format!("{:?}", args.system).to_lowercase(),
        "selection": args.select.settings(),
        "result_source": format!("{:?}", args.result_source).to_lowercase(),
    });
    let extra = match args.system {
        System::Pool => serde_json::json!({
            "average": args.average, "anchor": args.anchor,
            "white_advantage": args.white_advantage,
            "errors": format!("{:?}", args.errors).to_lowercase(),
            "samples": args.samples, "seed": args.seed, "largest_group": args.largest_group,
        }),
        System::Elo => serde_json::json!({
            "rules": format!("{:?}", args.rules).trim_start_matches('R').to_string(),
            "k": args.k, "start": format!("{:?}", args.start).to_lowercase(),
            "period": format!("{:?}", args.period).to_lowercase(),
        }),
        System::Glicko2 | System::Glicko => serde_json::json!({
            "tau": args.tau, "c": args.c, "per_game": args.per_game,
            "period": format!("{:?}", args.period).to_lowercase(),
        }),
    };
    if let (Some(a), Some(b)) = (s.as_object_mut(), extra.as_object()) {
        a.extend(b.clone());
    }
    s
}

fn now_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil from days (Hinnant).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

fn store(
    conn: &Connection,
    args: &RatingsArgs,
    kind: PeriodKind,
    sel: &Selection,
    out: &Outcomes,
    skipped: usize,
) -> rusqlite::Result<i64> {
    let tx = conn.unchecked_transaction()?;
    tx.execute(
        "INSERT INTO rating_runs (system, settings, created_at, games, skipped) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![
            format!("{:?}", args.system).to_lowercase(),
            settings_json(args).to_string(),
            now_utc(),
            out.rated_games as i64,
            skipped as i64
        ],
    )?;
    let run_id = tx.last_insert_rowid();
    {
        let mut insert = tx.prepare(
            "INSERT INTO ratings (run_id, player_id, games, score, rating, error, rd, volatility, rank) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )?;
        for r in &out.rows {
            insert.execute(params![
                run_id,
                sel.person_ids[r.player as usize],
                r.games,
                r.score,
                r.rating,
                r.error,
                r.rd,
                r.volatility,
                r.rank
            ])?;
        }
        let mut history = tx.prepare(
            "INSERT INTO rating_history (run_id, player_id, period, games, rating, rd, volatility) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        for h in &out.history {
            history.execute(params![
                run_id,
                sel.person_ids[h.player as usize],
                kind.label(h.period),
                h.games,
                h.rating,
                h.rd,
                h.volatility
            ])?;
        }
    }
    tx.commit()?;
    Ok(run_id)
}
