//! `arbiter duplicates --db DB`: finds the duplicate groups again (`db::duplicates`),
//! stores them, and lists each member with its reason, as a text table, CSV, JSON lines, or
//! the members' games as PGN (the export's writer) with tags naming group, kind and reason.
//! The export's selection flags pick the groups: those with a member selected.

use super::filter::FilterArgs;
use crate::db::duplicates::{Candidate, Prefer, candidates, refresh, same_moves_other_players};
use crate::db::open;
use crate::export::games::{Order, for_each_game, games_from};
use crate::export::output::Output;
use crate::export::pgn::{PgnOptions, PgnWriter};
use crate::export::{ExportError, Filter, Writer};
use clap::{Args, ValueEnum};
use rusqlite::types::Value;
use std::collections::HashMap;
use std::io::{self, Write};
use std::path::PathBuf;

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum KindArg {
    Exact,
    Variant,
    Contained,
    All,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormatArg {
    Text,
    Csv,
    Jsonl,
    /// The members' games, each group's survivor first, with the tags DuplicateGroup,
    /// DuplicateKind, DuplicateSurvivor and DuplicateReason.
    Pgn,
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
  arbiter duplicates --db games.sqlite --kind contained --format csv > truncated.csv
  arbiter duplicates --db games.sqlite --player 'Carlsen, Magnus' --format pgn > copies.pgn")]
pub struct DuplicatesArgs {
    /// The database to read and update.
    #[arg(long, default_value = "arbiter.sqlite")]
    pub db: PathBuf,
    /// Which groups to list (exact copies are never stored: the import counts them).
    #[arg(long, value_enum, default_value = "all")]
    pub kind: KindArg,
    #[arg(long, value_enum, default_value = "text")]
    pub format: FormatArg,
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

pub fn run(args: &DuplicatesArgs) -> io::Result<i32> {
    if args.select.unique || args.select.all_games {
        eprintln!(
            "arbiter duplicates: --unique and --all-games do not apply: the command lists \
             duplicate groups"
        );
        return Ok(2);
    }
    let mut conn = match open(&args.db) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("arbiter: {e}");
            return Ok(2);
        }
    };
    let sql = |e: rusqlite::Error| io::Error::other(format!("{}: {e}", args.db.display()));
    let prefer = Prefer::parse(&format!("{:?}", args.prefer).to_lowercase()).unwrap_or_default();
    let started = std::time::Instant::now();
    let counts = refresh(&mut conn, prefer).map_err(sql)?;
    eprintln!("{counts} ({:.2} s)", started.elapsed().as_secs_f64());
    let kind = match args.kind {
        KindArg::All => "%",
        KindArg::Variant => "variant",
        KindArg::Contained => "contained",
        KindArg::Exact => "exact",
    };
    let mut out = io::stdout().lock();
    let mut csv = (args.format == FormatArg::Csv).then(|| csv::Writer::from_writer(io::stdout()));
    if let Some(w) = csv.as_mut() {
        w.write_record([
            "group", "kind", "game", "survivor", "white", "black", "date", "event", "plies",
            "reason",
        ])
        .map_err(io::Error::other)?;
    }
    // The groups with a member among the selected games; the kind is bound after the
    // filter's values.
    let filter = args.select.filter(false);
    let (clause, mut values) = filter.to_sql(crate::db::SCHEMA_VERSION);
    let selected = if clause == "1" {
        String::new()
    } else {
        format!(
            " AND d.id IN (SELECT dm.group_id FROM {} WHERE dm.group_id IS NOT NULL AND ({clause}))",
            games_from(crate::db::SCHEMA_VERSION)
        )
    };
    values.push(Value::Text(kind.to_owned()));
    let list = include_str!("sql/duplicates_list.sql")
        .replace("?1", &format!("?{}", values.len()))
        .replace("/* selected */", &selected);
    let mut stmt = conn.prepare(&list).map_err(sql)?;
    let mut rows = stmt
        .query(rusqlite::params_from_iter(values))
        .map_err(sql)?;
    let mut last_group = None;
    let mut members: HashMap<i64, Member> = HashMap::new();
    while let Some(r) = rows.next().map_err(sql)? {
        let get_s = |i| r.get::<_, Option<String>>(i).map(Option::unwrap_or_default);
        let (group, kind, game, survivor): (i64, String, i64, bool) = (
            r.get(0).map_err(sql)?,
            r.get(1).map_err(sql)?,
            r.get(2).map_err(sql)?,
            r.get(3).map_err(sql)?,
        );
        let (white, black, date, event) = (
            get_s(4).map_err(sql)?,
            get_s(5).map_err(sql)?,
            get_s(6).map_err(sql)?,
            get_s(7).map_err(sql)?,
        );
        let plies: i64 = r.get(8).map_err(sql)?;
        let reason: String = r.get(9).map_err(sql)?;
        match args.format {
            FormatArg::Text => {
                if last_group != Some(group) {
                    writeln!(out, "group {group} ({kind})")?;
                    last_group = Some(group);
                }
                let mark = if survivor { "*" } else { " " };
                writeln!(
                    out,
                    " {mark} game {game:>7}  {white} - {black}  {date}  {event}  {plies} plies: {reason}"
                )?;
            }
            FormatArg::Csv => {
                let w = csv.as_mut().expect("csv writer");
                w.write_record([
                    group.to_string(),
                    kind,
                    game.to_string(),
                    (survivor as u8).to_string(),
                    white,
                    black,
                    date,
                    event,
                    plies.to_string(),
                    reason,
                ])
                .map_err(io::Error::other)?;
            }
            FormatArg::Pgn => {
                members.insert(
                    game,
                    Member {
                        group,
                        kind,
                        survivor,
                        reason,
                    },
                );
            }
            FormatArg::Jsonl => {
                let v = serde_json::json!({
                    "group": group, "kind": kind, "game": game, "survivor": survivor,
                    "white": white, "black": black, "date": date, "event": event,
                    "plies": plies, "reason": reason,
                });
                writeln!(out, "{v}")?;
            }
        }
    }
    if let Some(w) = csv.as_mut() {
        w.flush()?;
    }
    drop(rows);
    drop(stmt);
    if args.format == FormatArg::Pgn {
        match write_pgn(&conn, &members) {
            Ok(()) => {}
            Err(e) if e.is_broken_pipe() => return Ok(0),
            Err(e) => return Err(e.into()),
        }
    }
    if let Some(min) = args.same_moves {
        let games: Vec<Candidate> = candidates(&conn).map_err(sql)?;
        let groups = same_moves_other_players(&games, min);
        eprintln!(
            "{} sets of games with the same moves ({min}+ plies) between other players (not duplicates)",
            groups.len()
        );
        for g in groups {
            let ids: Vec<String> = g.iter().map(i64::to_string).collect();
            eprintln!("  same moves, other players: games {}", ids.join(", "));
        }
    }
    Ok(0)
}

/// The listed members' games as PGN through the export's writer, group by group (survivor
/// first), each with its group, kind, survival and reason as tags.
fn write_pgn(
    conn: &rusqlite::Connection,
    members: &HashMap<i64, Member>,
) -> Result<(), ExportError> {
    let mut writer = PgnWriter::new(Output::open(None)?, PgnOptions::default());
    writer.begin()?;
    let grouped = Filter {
        sql: Some("dm.group_id IS NOT NULL".to_owned()),
        ..Filter::default()
    };
    let order = Order(vec!["dm.group_id", "dm.survivor DESC"]);
    let mut tagged = crate::export::ExportRow::default();
    for_each_game(conn, &grouped, &order, |row| {
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
