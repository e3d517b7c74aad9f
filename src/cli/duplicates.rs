//! `arbiter duplicates --db DB`: finds the duplicate groups again (`db::duplicates`),
//! stores them, and lists each member with its reason, as a text table, CSV, JSON lines, or
//! the members' games as PGN (the export's writer) with tags naming group, kind and reason.
//! The export's selection flags pick the groups: those with a member selected.

use super::error::{AppError, Outcome, Result, warn};
use super::filter::FilterArgs;
use super::output::{Offers, TableOutput};
use super::show::printable;
use crate::db::duplicate_list::{COLUMNS, GroupKind, for_each_member};
use crate::db::duplicates::{Candidate, Prefer, candidates, refresh, same_moves_other_players};
use crate::db::query::Selection;
use crate::db::query::games::{Order, for_each_game};
use crate::db::query::select::Filter;
use crate::export::format::{self, Format};
use crate::export::output::Output;
use crate::export::pgn::{PgnOptions, PgnWriter};
use crate::export::{ExportError, Writer};
use clap::{Args, ValueEnum};
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum KindArg {
    Exact,
    Variant,
    Contained,
    All,
}

/// The formats `duplicates` writes; PGN: the members' games, each group's survivor first,
/// with the tags DuplicateGroup, DuplicateKind, DuplicateSurvivor and DuplicateReason.
const FORMATS: [Format; 5] = [
    Format::Text,
    Format::Csv,
    Format::Jsonl,
    Format::Parquet,
    Format::Pgn,
];

#[derive(Clone, Debug)]
pub struct DuplicatesFormats;

impl Offers for DuplicatesFormats {
    const FORMATS: &'static [Format] = &FORMATS;
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PreferArg {
    Longest,
    Annotated,
    Clocks,
    Tags,
    First,
}

#[derive(Args, Debug)]
#[command(after_help = "Examples:
  arbiter duplicates --db games.sqlite
  arbiter duplicates --db games.sqlite --kind contained -o truncated.csv
  arbiter duplicates --db games.sqlite --player 'Carlsen,M' --format pgn > copies.pgn")]
pub struct DuplicatesArgs {
    /// The database to read and update.
    #[arg(long, default_value = "arbiter.sqlite")]
    pub db: PathBuf,
    /// Which groups to list (exact copies are never stored: the import counts them).
    #[arg(long, value_enum, default_value = "all")]
    pub kind: KindArg,
    #[command(flatten)]
    pub out: TableOutput<DuplicatesFormats>,
    /// No summary on standard error.
    #[arg(short, long)]
    pub quiet: bool,
    /// The survivor policy's first criterion (then longest, result, annotations, clocks, tags).
    #[arg(long, value_enum, default_value = "longest")]
    pub prefer: PreferArg,
    /// Also list games with the same moves between other players (not duplicates), of at
    /// least this many plies.
    #[arg(long, value_name = "PLIES")]
    pub same_moves: Option<i64>,
    /// Only the groups with a member among these games (--unique and --all-games do not
    /// apply).
    #[command(flatten)]
    pub select: FilterArgs,
}

/// A listed member: its group, kind, whether it survives, and why it is in the group.
struct Member {
    group: i64,
    kind: String,
    survivor: bool,
    reason: String,
}

pub fn run(args: &DuplicatesArgs) -> Result {
    if args.select.unique || args.select.all_games {
        return Err(AppError::usage(
            "--unique and --all-games do not apply: the command lists duplicate groups",
        ));
    }
    let format = args.out.format()?;
    let mut conn = crate::db::open_existing(&args.db)?;
    let filter = args.select.select(&conn, false)?;
    let selection = Selection::compile(&conn, &filter)?;
    let prefer = match args.prefer {
        PreferArg::Longest => Prefer::Longest,
        PreferArg::Annotated => Prefer::Annotated,
        PreferArg::Clocks => Prefer::Clocks,
        PreferArg::Tags => Prefer::Tags,
        PreferArg::First => Prefer::First,
    };
    let kind = match args.kind {
        KindArg::All => GroupKind::All,
        KindArg::Variant => GroupKind::Variant,
        KindArg::Contained => GroupKind::Contained,
        KindArg::Exact => GroupKind::Exact,
    };
    let started = std::time::Instant::now();
    let counts = refresh(&mut conn, prefer)?;
    if !args.quiet {
        warn(format_args!(
            "{counts} ({:.2} s)",
            started.elapsed().as_secs_f64()
        ));
    }
    match format {
        Format::Pgn => {
            let mut members: HashMap<i64, Member> = HashMap::new();
            for_each_member(&conn, &selection, kind, |m| -> Result<()> {
                members.insert(
                    m.game,
                    Member {
                        group: m.group,
                        kind: m.kind,
                        survivor: m.survivor,
                        reason: m.reason,
                    },
                );
                Ok(())
            })?;
            write_pgn(&conn, &members, args.out.path())?;
        }
        Format::Text => {
            let mut out = Output::open(args.out.path())?;
            let mut last_group = None;
            for_each_member(&conn, &selection, kind, |m| -> Result<()> {
                if last_group != Some(m.group) {
                    writeln!(out, "group {} ({})", m.group, m.kind)?;
                    last_group = Some(m.group);
                }
                let mark = if m.survivor { "*" } else { " " };
                writeln!(
                    out,
                    " {mark} game {:>7}  {} - {}  {}  {}  {} plies: {}",
                    m.game,
                    printable(&m.white),
                    printable(&m.black),
                    m.date,
                    printable(&m.event),
                    m.plies,
                    m.reason
                )?;
                Ok(())
            })?;
            out.finish()?;
        }
        table => {
            let mut t = format::open_table(table, args.out.path(), args.out.csv_raw)?;
            t.begin(&COLUMNS)?;
            for_each_member(&conn, &selection, kind, |m| -> Result<()> {
                t.row(&m.cells())?;
                Ok(())
            })?;
            t.finish()?;
        }
    }
    if let Some(min) = args.same_moves {
        let games: Vec<Candidate> = candidates(&conn)?;
        let groups = same_moves_other_players(&games, min);
        warn(format_args!(
            "{} sets of games with the same moves ({min}+ plies) between other players (not duplicates)",
            groups.len()
        ));
        for g in groups {
            let ids: Vec<String> = g.iter().map(i64::to_string).collect();
            eprintln!("  same moves, other players: games {}", ids.join(", "));
        }
    }
    Ok(Outcome::Success)
}

/// The listed members' games as PGN through the export's writer, group by group (survivor
/// first), each with its group, kind, survival and reason as tags.
fn write_pgn(
    conn: &rusqlite::Connection,
    members: &HashMap<i64, Member>,
    output: Option<&std::path::Path>,
) -> std::result::Result<(), ExportError> {
    let mut writer = PgnWriter::new(Output::open(output)?, PgnOptions::default());
    writer.begin()?;
    let grouped = Filter {
        in_duplicate_group: true,
        ..Filter::default()
    };
    let grouped = Selection::compile(conn, &grouped)?;
    let mut tagged = crate::export::ExportRow::default();
    for_each_game(conn, &grouped, &Order::DuplicateGroups, |row| {
        let Some(m) = members.get(&row.id) else {
            return Ok(());
        };
        tagged.clone_from(row);
        tagged.tags.extend([
            ("DuplicateGroup".to_owned(), m.group.to_string()),
            ("DuplicateKind".to_owned(), m.kind.clone()),
            (
                "DuplicateSurvivor".to_owned(),
                if m.survivor { "yes" } else { "no" }.to_owned(),
            ),
            ("DuplicateReason".to_owned(), m.reason.clone()),
        ]);
        writer.game(&tagged)
    })?;
    Box::new(writer).finish()
}
