//! `arbiter export --db PATH [--format pgn|csv|jsonl|parquet] [-o FILE] [filters]`: streams the
//! selected games (or their findings, or one row per player and game) out of the database
//! through one `export::Writer` per format. This file only reads the flags and picks the
//! writer; the work is in `src/export/`.

use super::error::{AppError, Outcome, Result};
use super::filter::FilterArgs;
use crate::db::query::games::{Order, for_each_finding, for_each_game};
use crate::db::query::select::Filter;
use crate::export::csv::CsvFormat;
use crate::export::findings::FindingsTable;
use crate::export::format::{self, Format};
use crate::export::jsonl::JsonlFormat;
use crate::export::output::{Compression, Output};
use crate::export::parquet::{PARTITION_COLUMNS, ParquetFormat, Target};
use crate::export::pgn::{Evals, PgnOptions, PgnWriter};
use crate::export::players::PlayerGamesTable;
use crate::export::table::{GameTable, Selection, TableFormat, list_columns};
use crate::export::{ExportError, Writer};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// The formats `export` writes (the one registry: `export::format`).
const FORMATS: [Format; 4] = [Format::Pgn, Format::Csv, Format::Jsonl, Format::Parquet];

const EXAMPLES: &str = "Examples:
  arbiter export --db games.sqlite -o clean.pgn.zst --no-clocks --player 'Carlsen,M'
  arbiter export --db games.sqlite --format csv --columns id,white,black,eco,moves -o games.csv
  arbiter export --db games.sqlite --format parquet --partition year,month -o games/
      then: duckdb -c \"SELECT eco, count(*) FROM 'games/**/*.parquet' GROUP BY ALL\"";

#[derive(Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct ExportArgs {
    /// The database written by `arbiter import`.
    #[arg(long, default_value = "arbiter.sqlite")]
    pub db: PathBuf,
    /// pgn (everything stored), csv, jsonl (one typed row per game) or parquet (for DuckDB,
    /// Spark, polars, pandas; needs -o). Default: the -o file's extension (games.csv.gz is
    /// CSV), else pgn.
    #[arg(long, value_parser = super::choice::parser(&FORMATS))]
    pub format: Option<Format>,
    /// Output file (default: standard output; Parquet needs one). The extension picks the
    /// compression: .gz, .zst, .bz2 or .xz (e.g. games.pgn.zst); any other is plain. The file
    /// is written under a temporary name and renamed when complete. With --partition, a
    /// folder.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
    /// Export the findings of the selected games instead of the games (CSV, JSON lines,
    /// Parquet), with the same columns as `check --findings`.
    #[arg(long, conflicts_with = "player_games")]
    pub findings: bool,
    /// Export one row per player and game (colour, opponent, score, ratings, date, opening)
    /// instead of one per game (CSV, JSON lines, Parquet).
    #[arg(long)]
    pub player_games: bool,
    /// CSV, JSON lines, Parquet: the game columns to write, in this order (see
    /// --list-columns).
    #[arg(long, value_name = "A,B,C")]
    pub columns: Option<String>,
    /// List the game columns with their type and meaning, then exit.
    #[arg(long)]
    pub list_columns: bool,
    /// Add the `uci` column (the main line in UCI notation).
    #[arg(long)]
    pub uci: bool,
    /// CSV: write values raw. By default a text cell starting with = + - @ or a tab gets a
    /// leading ' so that spreadsheets do not run it as a formula (OWASP, CSV injection).
    #[arg(long)]
    pub csv_raw: bool,
    /// Parquet: write Hive-style folders by these columns (e.g. year,month), into the
    /// folder given by -o. Columns: year, month, day, eco, tc_class, laws_edition, variant.
    #[arg(long, value_name = "A,B")]
    pub partition: Option<String>,
    /// PGN: write the result the Laws decide where it differs from the recorded one.
    #[arg(long)]
    pub fix_results: bool,
    /// PGN: add PlyCount, ArbiterTermination (the ending and its Article) and ArbiterLaws.
    #[arg(long)]
    pub add_tags: bool,
    /// PGN: drop comments (pgn-extract -C); clocks and evaluations live in comments.
    #[arg(long)]
    pub no_comments: bool,
    /// PGN: drop variations (pgn-extract -V).
    #[arg(long)]
    pub no_variations: bool,
    /// PGN: drop NAGs (pgn-extract -N).
    #[arg(long)]
    pub no_nags: bool,
    /// PGN: drop [%clk] and [%emt] commands.
    #[arg(long)]
    pub no_clocks: bool,
    /// PGN: the Seven Tag Roster (with FEN/SetUp) and the main line only.
    #[arg(long)]
    pub moves_only: bool,
    /// PGN: whose [%eval] to write for games analysed by arbiter (`import --analyse`):
    /// ours (default; the file's are dropped), file, or both.
    #[arg(long, value_parser = super::choice::every::<Evals>(), default_value = "ours")]
    pub evals: Evals,
    /// PGN: add judgement NAGs to analysed moves: $6 inaccuracy, $2 mistake, $4 blunder.
    #[arg(long)]
    pub annotate: bool,
    /// Only the games that reached this position (FEN or EPD; docs/POSITIONS.md); PGN marks
    /// the matching ply with a comment, the table formats get a `match_ply` column.
    #[arg(long, value_name = "FEN")]
    pub position: Option<String>,
    #[command(flatten)]
    pub query: super::search::QueryArgs,
    #[command(flatten)]
    pub select: FilterArgs,
}

impl ExportArgs {
    /// The format: `--format`, else the name of `-o` (a folder with `--partition`: Parquet),
    /// else PGN.
    fn format(&self) -> Result<Format> {
        if self.partition.is_some() {
            return Ok(self.format.unwrap_or(Format::Parquet));
        }
        format::choose(self.format, self.output.as_deref(), &FORMATS, Format::Pgn)
            .map_err(|e| AppError::usage(e.to_string()))
    }

    fn pgn_options(&self) -> PgnOptions {
        PgnOptions {
            fix_results: self.fix_results,
            add_tags: self.add_tags,
            comments: !self.no_comments,
            variations: !self.no_variations,
            nags: !self.no_nags,
            clocks: !self.no_clocks,
            moves_only: self.moves_only,
            evals: self.evals,
            annotate: self.annotate,
        }
    }

    /// The flag combinations that cannot work, found before anything is opened.
    fn usage_problem(&self, format: Format) -> Option<String> {
        let table = format != Format::Pgn;
        if !table && (self.findings || self.player_games) {
            return Some(
                "--findings and --player-games need --format csv, jsonl or parquet".into(),
            );
        }
        if !table && self.columns.is_some() {
            return Some("--columns needs --format csv, jsonl or parquet".into());
        }
        if self.partition.is_some() && format != Format::Parquet {
            return Some("--partition needs --format parquet".into());
        }
        if format == Format::Parquet {
            let Some(out) = &self.output else {
                return Some(
                    "--format parquet needs -o FILE.parquet (or a folder with --partition)".into(),
                );
            };
            if Compression::from_path(out) != Compression::None {
                return Some(format!(
                    "{}: Parquet is compressed inside (zstd); give a name ending in .parquet",
                    out.display()
                ));
            }
        }
        None
    }

    fn partition_columns(&self) -> std::result::Result<Vec<&'static str>, String> {
        let Some(list) = &self.partition else {
            return Ok(Vec::new());
        };
        list.split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(|name| {
                PARTITION_COLUMNS
                    .iter()
                    .find(|&&c| c == name)
                    .copied()
                    .ok_or_else(|| {
                        format!(
                            "--partition: unknown column {name:?}; the columns are: {}",
                            PARTITION_COLUMNS.join(", ")
                        )
                    })
            })
            .collect()
    }
}

/// Progress on stderr when it is a terminal: games against the total, and the output's
/// size and speed.
struct Progress {
    bar: Option<ProgressBar>,
    bytes: Arc<AtomicU64>,
    start: Instant,
}

impl Progress {
    fn new(
        wanted: bool,
        total: impl FnOnce() -> std::result::Result<u64, ExportError>,
        bytes: Arc<AtomicU64>,
    ) -> std::result::Result<Progress, ExportError> {
        let bar = if wanted && io::stderr().is_terminal() {
            let bar = ProgressBar::with_draw_target(Some(total()?), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(
                    "{bar:30} {pos}/{len} games ({per_sec}) {msg} ETA {eta}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            Some(bar)
        } else {
            None
        };
        Ok(Progress {
            bar,
            bytes,
            start: Instant::now(),
        })
    }

    fn game(&self, n: u64) {
        let Some(bar) = &self.bar else { return };
        bar.inc(1);
        if n.is_multiple_of(256) {
            let mb = self.bytes.load(Ordering::Relaxed) as f64 / 1e6;
            let secs = self.start.elapsed().as_secs_f64().max(1e-3);
            bar.set_message(format!("{mb:.1} MB, {:.1} MB/s", mb / secs));
        }
    }

    fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}

pub fn run_export(args: &ExportArgs) -> Result {
    if args.list_columns {
        let mut out = io::stdout().lock();
        out.write_all(list_columns().as_bytes())?;
        out.flush()?;
        return Ok(Outcome::Success);
    }
    let format = args.format()?;
    if let Some(problem) = args.usage_problem(format) {
        return Err(AppError::usage(problem));
    }
    let selection = match &args.columns {
        Some(list) => {
            Selection::parse(list).map_err(|e| AppError::usage(format!("--columns: {e}")))?
        }
        None => Selection::default_with(args.uci),
    };
    let partition = args.partition_columns().map_err(AppError::usage)?;
    let query = args
        .query
        .query(args.position.as_deref(), args.quiet)
        .map_err(|e| AppError::usage(e.to_string()))?;
    let mut selection = selection;
    if !query.is_empty() {
        selection.add("match_ply");
    }
    // Read-only, so a database on read-only media or in a read-only folder exports too.
    let conn = crate::db::open_read_only(&args.db)?;
    // Every record unless `--unique`.
    let filter = args.select.select(&conn, false)?;
    match export(args, format, &conn, &filter, selection, partition, &query) {
        Ok(()) => Ok(Outcome::Success),
        Err(ExportError::Io(e)) if e.kind() == io::ErrorKind::InvalidInput => {
            Err(AppError::usage(e.to_string()))
        }
        Err(e) => Err(e.into()),
    }
}

fn export(
    args: &ExportArgs,
    format: Format,
    conn: &rusqlite::Connection,
    filter: &Filter,
    selection: Selection,
    partition: Vec<&'static str>,
    query: &crate::positions::Query,
) -> std::result::Result<(), ExportError> {
    let games = crate::db::query::Selection::compile(conn, filter)?;
    // A position query: its games, found first (`db::query::positions::search`), and their
    // matching plies, which the rows carry to the writers.
    let (games, matched) = if query.is_empty() {
        (games, None)
    } else {
        let found = crate::db::query::positions::search(conn, query, &games)?;
        let plies: std::collections::HashMap<i64, u32> =
            found.hits.iter().map(|h| (h.id, h.ply)).collect();
        (
            games.narrowed(found.hits.iter().map(|h| h.id).collect()),
            Some(plies),
        )
    };
    // The output is opened (a temporary file created) before any query runs.
    let mut parquet = None;
    let mut output = None;
    if format == Format::Parquet {
        let path = args.output.clone().expect("checked by usage_problem");
        let target = if partition.is_empty() {
            Target::File(path)
        } else {
            Target::Partitioned {
                dir: path,
                by: partition.iter().map(|s| (*s).to_owned()).collect(),
            }
        };
        parquet = Some(ParquetFormat::create(target)?);
    } else {
        output = Some(Output::open(args.output.as_deref())?);
    }
    let bytes = output
        .as_ref()
        .map_or_else(|| Arc::new(AtomicU64::new(0)), Output::counter);
    // The writer owns the output; its `finish` ends the stream and renames the file.
    let mut table = |output: Option<Output>| -> Box<dyn TableFormat> {
        match (format, output) {
            (Format::Csv, Some(s)) => Box::new(CsvFormat::new(s, args.csv_raw)),
            (Format::Jsonl, Some(s)) => Box::new(JsonlFormat::new(s)),
            _ => Box::new(parquet.take().expect("parquet format opened above")),
        }
    };
    if args.findings {
        let mut t = FindingsTable::begin(table(output))?;
        for_each_finding(conn, &games, |f| t.write(f))?;
        return t.finish();
    }
    let mut writer: Box<dyn Writer> = match (format, output) {
        (Format::Pgn, Some(out)) => Box::new(PgnWriter::new(out, args.pgn_options())),
        (_, output) if args.player_games => Box::new(PlayerGamesTable::new(table(output))),
        (_, output) => Box::new(GameTable::new(table(output), selection)),
    };
    writer.begin()?;
    let progress = Progress::new(!args.quiet, || Ok(games.count(conn)?), bytes)?;
    let order = if partition.is_empty() {
        Order::Id
    } else {
        Order::Columns(partition.clone())
    };
    let mut n = 0;
    for_each_game(conn, &games, &order, |row| {
        n += 1;
        progress.game(n);
        match &matched {
            Some(plies) => {
                let mut row = row.clone();
                row.match_ply = plies.get(&row.id).copied();
                writer.game(&row)
            }
            None => writer.game(row),
        }
    })?;
    progress.finish();
    writer.finish()?;
    if n == 0
        && !partition.is_empty()
        && !args.quiet
        && let Some(dir) = &args.output
    {
        eprintln!(
            "arbiter: no games matched: {} holds an empty dataset (part-00000.parquet: every column, no rows)",
            dir.display()
        );
    }
    Ok(())
}
