//! `arbiter players --db DB`: persons and their spellings. `--name` filters, `--suggest`
//! writes probable variants of one person as an alias file to check and edit, and
//! `--apply-aliases FILE` maps spellings to persons by that file in one transaction
//! (docs/IDENTITY.md). Nothing here merges by guesswork: suggestions are only printed.

use crate::db::open;
use crate::db::persons::apply_aliases;
use crate::identity::aliases::Aliases;
use crate::identity::names::normalise;
use clap::Args;
use rusqlite::{Connection, params};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{self, Write};
use std::path::PathBuf;

#[derive(Args, Debug)]
#[command(after_help = "Examples:
  arbiter players --db games.sqlite --name carlsen
  arbiter players --db games.sqlite --suggest > aliases.tsv
  arbiter players --db games.sqlite --apply-aliases aliases.tsv")]
pub struct PlayersArgs {
    /// The database to read.
    #[arg(long, default_value = "arbiter.sqlite")]
    pub db: PathBuf,
    /// Only persons with a spelling containing this text (case-insensitive).
    #[arg(long)]
    pub name: Option<String>,
    /// Print probable variants of one person, with the evidence, as an alias file.
    #[arg(long, conflicts_with = "apply_aliases")]
    pub suggest: bool,
    /// Map spellings to persons by this alias file (TSV canonical<TAB>variant).
    #[arg(long, value_name = "FILE")]
    pub apply_aliases: Option<PathBuf>,
}

pub fn run(args: &PlayersArgs) -> io::Result<i32> {
    let mut conn = match open(&args.db) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("arbiter: {e}");
            return Ok(2);
        }
    };
    let sql = |e: rusqlite::Error| super::error::db_io_error(&args.db, e);
    let mut out = io::stdout().lock();
    if let Some(path) = &args.apply_aliases {
        let aliases = match Aliases::load(path) {
            Ok(a) => a,
            Err(e) => {
                eprintln!("arbiter: {e}");
                return Ok(2);
            }
        };
        return match apply_aliases(&mut conn, aliases) {
            Ok((_, done)) => {
                writeln!(
                    out,
                    "{} spellings, {} moved to another person; persons {} -> {}",
                    done.spellings, done.moved, done.persons_before, done.persons_after
                )?;
                Ok(0)
            }
            Err(e) => {
                eprintln!("arbiter: {e}; nothing applied");
                Ok(2)
            }
        };
    }
    if args.suggest {
        suggest(&conn, &mut out).map_err(sql)?;
        return Ok(0);
    }
    list(&conn, args.name.as_deref(), &mut out).map_err(sql)?;
    Ok(0)
}

fn list(conn: &Connection, name: Option<&str>, out: &mut impl Write) -> rusqlite::Result<()> {
    let pattern = format!("%{}%", name.unwrap_or(""));
    let mut stmt = conn.prepare(include_str!("sql/players_list.sql"))?;
    let mut rows = stmt.query(params![pattern])?;
    let mut last = None;
    let w = |e: io::Error| rusqlite::Error::ToSqlConversionFailure(Box::new(e));
    while let Some(r) = rows.next()? {
        let (person, pname, key, total): (i64, String, String, i64) =
            (r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?);
        let (spelling, fide, games): (String, Option<i64>, i64) = (r.get(4)?, r.get(5)?, r.get(6)?);
        if last != Some(person) {
            writeln!(out, "{person:>7}  {pname}  [{key}]  {total} games").map_err(w)?;
            last = Some(person);
        }
        let fide = fide.map_or(String::new(), |f| format!("  FIDE {f}"));
        writeln!(out, "         {games:>6}  {spelling:?}{fide}").map_err(w)?;
    }
    Ok(())
}

/// What the suggestions weigh about one person.
#[derive(Debug, Default)]
struct Evidence {
    name: String,
    fide: Option<i64>,
    games: i64,
    years: Option<(i64, i64)>,
    elo: Option<f64>,
    events: HashSet<i64>,
}

/// Two given names can be one person's: equal, or one a prefix of the other (`M`, `Mi`,
/// `Michael`); `Rodney` and `Ronaldo` cannot.
fn given_names_fit(a: &str, b: &str) -> bool {
    let first = |n: &str| {
        let n = normalise(n);
        match n.split_once(", ") {
            Some((_, f)) => f.split(' ').next().unwrap_or("").to_owned(),
            None => n.split(' ').next().unwrap_or("").to_owned(),
        }
    };
    let (a, b) = (first(a), first(b));
    a.starts_with(&b) || b.starts_with(&a)
}

/// Surname and first initial, from `Last, First` or `First Last`; None when a name has
/// no separable parts (`MagnusCarlsen`).
fn surname_initial(name: &str) -> Option<(String, char)> {
    let n = normalise(name);
    let (last, first) = match n.split_once(", ") {
        Some((l, f)) => (l.to_owned(), f.to_owned()),
        None => {
            let (f, l) = n.rsplit_once(' ')?;
            (l.to_owned(), f.to_owned())
        }
    };
    let initial = first.chars().find(|c| c.is_alphabetic())?;
    (!last.is_empty()).then_some((last, initial))
}

fn suggest(conn: &Connection, out: &mut impl Write) -> rusqlite::Result<()> {
    let mut persons: HashMap<i64, Evidence> = HashMap::new();
    let mut stmt = conn.prepare(include_str!("sql/players_evidence.sql"))?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let e = persons.entry(r.get(0)?).or_default();
        e.name = r.get(1)?;
        e.fide = r.get(2)?;
        e.games = r.get(3)?;
        e.years = match (r.get::<_, Option<i64>>(4)?, r.get::<_, Option<i64>>(5)?) {
            (Some(a), Some(b)) => Some((a, b)),
            _ => None,
        };
        e.elo = r.get(6)?;
    }
    let mut stmt = conn.prepare(
        "SELECT DISTINCT player_id, event_id FROM player_games WHERE event_id IS NOT NULL",
    )?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        if let Some(e) = persons.get_mut(&r.get(0)?) {
            e.events.insert(r.get(1)?);
        }
    }
    let mut spellings: BTreeMap<(String, char), Vec<i64>> = BTreeMap::new();
    let mut stmt = conn.prepare("SELECT DISTINCT person_id, name FROM player_names")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let name: String = r.get(1)?;
        if let Some(k) = surname_initial(&name) {
            let v = spellings.entry(k).or_default();
            let p: i64 = r.get(0)?;
            if !v.contains(&p) {
                v.push(p);
            }
        }
    }
    let w = |e: io::Error| rusqlite::Error::ToSqlConversionFailure(Box::new(e));
    writeln!(
        out,
        "# arbiter players --suggest: probable variants of one person, NOT applied.\n\
         # Check each line (canonical<TAB>variant), delete the wrong ones, then run\n\
         # arbiter players --apply-aliases FILE (or import --aliases FILE)."
    )
    .map_err(w)?;
    for ((surname, initial), ids) in spellings.iter().filter(|(_, v)| v.len() > 1) {
        let mut ids: Vec<&i64> = ids.iter().filter(|i| persons.contains_key(i)).collect();
        ids.sort_by_key(|i| (-persons[i].games, **i));
        let Some((&&canon_id, rest)) = ids.split_first() else {
            continue;
        };
        let canon = &persons[&canon_id];
        for &&id in rest {
            let v = &persons[&id];
            if canon.fide.is_some() && v.fide.is_some() || !given_names_fit(&canon.name, &v.name) {
                continue; // two FIDE ids are two persons; Rodney is not Ronaldo
            }
            let mut why = vec![format!("surname {surname:?}, initial {initial:?}")];
            let overlap = match (canon.years, v.years) {
                (Some((a0, a1)), Some((b0, b1))) => {
                    why.push(format!("years {a0}-{a1} and {b0}-{b1}"));
                    a0 <= b1 + 1 && b0 <= a1 + 1
                }
                _ => false,
            };
            let shared = canon.events.intersection(&v.events).count();
            if shared > 0 {
                why.push(format!("{shared} shared events"));
            }
            if let (Some(a), Some(b)) = (canon.elo, v.elo) {
                why.push(format!("average Elo {a:.0} and {b:.0}"));
            }
            let close_elo = match (canon.elo, v.elo) {
                (Some(a), Some(b)) => (a - b).abs() <= 150.0,
                _ => true,
            };
            if !(overlap || shared > 0) || !close_elo {
                continue;
            }
            writeln!(
                out,
                "# persons {canon_id} ({} games) and {id} ({} games): {}",
                canon.games,
                v.games,
                why.join("; ")
            )
            .map_err(w)?;
            writeln!(out, "{}\t{}", canon.name, v.name).map_err(w)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn surname_and_initial() {
        assert_eq!(surname_initial("Carlsen,M"), Some(("carlsen".into(), 'm')));
        assert_eq!(
            surname_initial("Carlsen, Magnus"),
            Some(("carlsen".into(), 'm'))
        );
        assert_eq!(
            surname_initial("Magnus Carlsen"),
            Some(("carlsen".into(), 'm'))
        );
        assert_eq!(surname_initial("MagnusCarlsen"), None);
        assert!(given_names_fit("Adams,Mi", "Adams, Michael"));
        assert!(given_names_fit("Carlsen,M", "Magnus Carlsen"));
        assert!(!given_names_fit("Abud,Rodney Lester", "Abud,Ronaldo"));
    }
}
