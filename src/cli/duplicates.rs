//! `arbiter duplicates --db DB`: finds the duplicate groups again (`db::duplicates`),
//! stores them, and lists each member with its reason, as a text table, CSV or JSON lines.

use crate::db::duplicates::{Candidate, Prefer, candidates, refresh, same_moves_other_players};
use crate::db::open;
use clap::{Args, ValueEnum};
use rusqlite::params;
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
  arbiter duplicates --db games.sqlite --prefer annotated --format jsonl")]
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
}

pub fn run(args: &DuplicatesArgs) -> io::Result<i32> {
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
    let mut stmt = conn
        .prepare(include_str!("sql/duplicates_list.sql"))
        .map_err(sql)?;
    let mut rows = stmt.query(params![kind]).map_err(sql)?;
    let mut last_group = None;
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
