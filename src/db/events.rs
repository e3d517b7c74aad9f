//! The stored events as tournaments read them: which events a name designates (one rule for
//! every command, docs/TOURNAMENTS.md), one event's games, a person's events, and every event's
//! games in one scan. Plain rows: building and ranking a tournament is `stats::tournament`'s.
//!
//! The rule: names compare after normalising (case folded, runs of white space as one space,
//! trimmed). A name equal to a stored one designates it; otherwise a part of exactly one stored
//! name designates that name; a part of several names, or of none, is an error that lists them
//! (or the closest names) with their years and games.

use crate::identity::resolve::edit_distance;
use rusqlite::{Connection, Row, params};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;

/// One stored event (a name at a site) in one year.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub id: i64,
    pub name: String,
    pub site: String,
    pub year: Option<i64>,
    /// Its games, duplicate records that are not their group's survivor left out (in
    /// [`person_events`]: the person's games in it).
    pub games: i64,
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let year = self
            .year
            .map_or("year unknown".to_owned(), |y| y.to_string());
        write!(
            f,
            "'{}' at '{}', {year}: {} games",
            self.name, self.site, self.games
        )
    }
}

/// A stored event name with the years and the games of all its events, as the usage errors
/// list it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventName {
    pub name: String,
    /// The first and last year of its games (None: none dated).
    pub years: Option<(i64, i64)>,
    pub games: i64,
}

impl fmt::Display for EventName {
    /// `'ch-CHN 2025' (2025, 60 games)`, `'Hastings' (1895–1990, 812 games)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let years = match self.years {
            Some((a, b)) if a == b => a.to_string(),
            Some((a, b)) => format!("{a}–{b}"),
            None => "year unknown".to_owned(),
        };
        write!(f, "'{}' ({years}, {} games)", self.name, self.games)
    }
}

/// What a name designates: one event name (in one or more stored spellings that normalise
/// alike) and all its events, at every site and in every year.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    /// The stored spellings, as written in the database.
    pub names: Vec<String>,
    /// Never empty, by name, site and year.
    pub events: Vec<Event>,
}

impl Named {
    /// The ids of the stored events (each name and site once).
    pub fn event_ids(&self) -> Vec<i64> {
        let mut ids: Vec<i64> = self.events.iter().map(|e| e.id).collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }
}

/// Why a name designates no event, or not one.
#[derive(Debug)]
pub enum ResolveError {
    Sqlite(rusqlite::Error),
    /// No stored name equals or contains it: the closest names.
    NotFound {
        name: String,
        closest: Vec<EventName>,
    },
    /// A part of several names: the first of them and how many there are in all.
    SeveralNames {
        name: String,
        names: Vec<EventName>,
        total: usize,
    },
    /// The name is found, but none of its events is at that site or in that year.
    Elsewhere {
        name: String,
        events: Vec<Event>,
    },
    /// One event in one year was asked for, and several (sites or years) remain.
    Several(Vec<Event>),
}

/// How many events or names an error lists before "… and N more".
const LISTED: usize = 30;
/// How many closest names a not-found error gives.
const CLOSEST: usize = 5;

impl fmt::Display for ResolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn list<T: fmt::Display>(
            f: &mut fmt::Formatter<'_>,
            items: &[T],
            total: usize,
        ) -> fmt::Result {
            for item in items.iter().take(LISTED) {
                write!(f, "\n  {item}")?;
            }
            if total > LISTED.min(items.len()) {
                write!(f, "\n  … and {} more", total - LISTED.min(items.len()))?;
            }
            Ok(())
        }
        match self {
            ResolveError::Sqlite(e) => write!(f, "{e}"),
            ResolveError::NotFound { name, closest } => {
                write!(f, "no stored event is named '{name}' or has it in its name")?;
                if !closest.is_empty() {
                    write!(f, "; the closest:")?;
                    list(f, closest, closest.len())?;
                }
                Ok(())
            }
            ResolveError::SeveralNames { name, names, total } => {
                write!(
                    f,
                    "'{name}' is part of {total} event names; give one of them in full:"
                )?;
                list(f, names, *total)
            }
            ResolveError::Elsewhere { name, events } => {
                write!(
                    f,
                    "no event '{name}' at that site or in that year; the events of that name:"
                )?;
                list(f, events, events.len())
            }
            ResolveError::Several(events) => {
                write!(
                    f,
                    "{} events match; narrow with --site or --year:",
                    events.len()
                )?;
                list(f, events, events.len())
            }
        }
    }
}

impl std::error::Error for ResolveError {}

impl From<rusqlite::Error> for ResolveError {
    fn from(e: rusqlite::Error) -> ResolveError {
        ResolveError::Sqlite(e)
    }
}

/// A name as the resolver compares it: case folded, runs of white space as one space, trimmed.
pub fn normalise(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// A stored event's id and name, with the name normalised.
struct Stored {
    id: i64,
    name: String,
    key: String,
}

fn stored(conn: &Connection) -> rusqlite::Result<Vec<Stored>> {
    conn.prepare_cached(include_str!("sql/event_names.sql"))?
        .query_map([], |r| {
            let name: String = r.get(1)?;
            Ok(Stored {
                id: r.get(0)?,
                key: normalise(&name),
                name,
            })
        })?
        .collect()
}

/// The events (one per year) of the stored event `id`.
fn years(conn: &Connection, id: i64) -> rusqlite::Result<Vec<Event>> {
    conn.prepare_cached(include_str!("sql/event_years.sql"))?
        .query_map([id], row_to_event)?
        .collect()
}

fn row_to_event(r: &Row<'_>) -> rusqlite::Result<Event> {
    Ok(Event {
        id: r.get(0)?,
        name: r.get(1)?,
        site: r.get(2)?,
        year: r.get(3)?,
        games: r.get(4)?,
    })
}

/// The stored names grouped by their normalised form, groups in the order given.
fn by_key<'a>(names: impl IntoIterator<Item = &'a Stored>) -> Vec<Vec<&'a Stored>> {
    let mut groups: Vec<Vec<&Stored>> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for s in names {
        let k = *index.entry(s.key.as_str()).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[k].push(s);
    }
    groups
}

/// One name's summary over all the stored events spelled so.
fn summary(conn: &Connection, group: &[&Stored]) -> rusqlite::Result<EventName> {
    let mut out = EventName {
        name: group[0].name.clone(),
        years: None,
        games: 0,
    };
    for s in group {
        for e in years(conn, s.id)? {
            out.games += e.games;
            if let Some(y) = e.year {
                out.years = Some(out.years.map_or((y, y), |(a, b)| (a.min(y), b.max(y))));
            }
        }
    }
    Ok(out)
}

/// The `n` stored names closest to `name` (edit distance between the normalised names), each
/// with its years and games.
pub fn closest(conn: &Connection, name: &str, n: usize) -> rusqlite::Result<Vec<EventName>> {
    closest_of(conn, &stored(conn)?, &normalise(name), n)
}

fn closest_of(
    conn: &Connection,
    all: &[Stored],
    key: &str,
    n: usize,
) -> rusqlite::Result<Vec<EventName>> {
    let want: Vec<char> = key.chars().collect();
    let mut scored: Vec<(usize, &str, &Stored)> = all
        .iter()
        .map(|s| {
            let c: Vec<char> = s.key.chars().collect();
            (edit_distance(&want, &c), s.key.as_str(), s)
        })
        .collect();
    scored.sort_by(|a, b| (a.0, a.1, a.2.id).cmp(&(b.0, b.1, b.2.id)));
    let groups = by_key(scored.iter().map(|s| s.2));
    groups.iter().take(n).map(|g| summary(conn, g)).collect()
}

/// The event name `name` designates, with all its events (every site and year), by the rule
/// of this module. This is what `--event` selects.
pub fn resolve(conn: &Connection, name: &str) -> Result<Named, ResolveError> {
    let all = stored(conn)?;
    let key = normalise(name);
    let exact: Vec<&Stored> = all.iter().filter(|s| s.key == key).collect();
    let chosen = if exact.is_empty() && !key.is_empty() {
        let parts: Vec<&Stored> = all.iter().filter(|s| s.key.contains(&key)).collect();
        let mut groups = by_key(parts);
        if groups.len() > 1 {
            groups.sort_by(|a, b| a[0].key.cmp(&b[0].key));
            let total = groups.len();
            let names = groups
                .iter()
                .take(LISTED)
                .map(|g| summary(conn, g))
                .collect::<rusqlite::Result<_>>()?;
            return Err(ResolveError::SeveralNames {
                name: name.to_owned(),
                names,
                total,
            });
        }
        groups.pop().unwrap_or_default()
    } else {
        exact
    };
    let mut events = Vec::new();
    for s in &chosen {
        events.extend(years(conn, s.id)?);
    }
    if events.is_empty() {
        return Err(ResolveError::NotFound {
            name: name.to_owned(),
            closest: closest_of(conn, &all, &key, CLOSEST)?,
        });
    }
    events.sort_by(|a, b| (&a.name, &a.site, a.year).cmp(&(&b.name, &b.site, b.year)));
    let mut names: Vec<String> = chosen.iter().map(|s| s.name.clone()).collect();
    names.dedup();
    Ok(Named { names, events })
}

/// The one event in one year that `name` (by [`resolve`]'s rule), a part of its site (case
/// folded) and its year designate: what `tournament --event` builds.
pub fn resolve_one(
    conn: &Connection,
    name: &str,
    site: Option<&str>,
    year: Option<i64>,
) -> Result<Event, ResolveError> {
    let named = resolve(conn, name)?;
    let site = site.map(normalise);
    let mut chosen: Vec<Event> = named
        .events
        .iter()
        .filter(|e| site.as_ref().is_none_or(|s| normalise(&e.site).contains(s)))
        .filter(|e| year.is_none_or(|y| e.year == Some(y)))
        .cloned()
        .collect();
    match chosen.len() {
        1 => Ok(chosen.remove(0)),
        0 => Err(ResolveError::Elsewhere {
            name: name.to_owned(),
            events: named.events,
        }),
        _ => Err(ResolveError::Several(chosen)),
    }
}

/// One side of a stored game: the person behind the spelling, and what the game's tags say of
/// the player.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Side {
    pub person: i64,
    /// The person's name (`#id` if the person row is missing).
    pub name: String,
    pub elo: Option<i64>,
    /// `WhiteTitle` / `BlackTitle`.
    pub title: Option<String>,
    /// `WhiteFed`, else `WhiteTeam` (the import keeps whichever is there).
    pub federation: Option<String>,
    /// `WhiteFideId` / `BlackFideId` when numeric.
    pub fide_id: Option<i64>,
}

/// A stored game of an event, as a tournament needs it; text as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventGame {
    pub id: i64,
    pub event_id: i64,
    pub year: Option<i64>,
    pub month: Option<i64>,
    pub day: Option<i64>,
    /// The `Round` tag.
    pub round: Option<String>,
    /// None: the side has no stored spelling.
    pub white: Option<Side>,
    pub black: Option<Side>,
    /// The effective result: the Laws' where they decide, else the recorded one.
    pub result: Option<String>,
    pub plies: i64,
    /// A `Termination` tag that says forfeit.
    pub forfeit_tag: bool,
}

fn side(r: &Row<'_>, at: usize) -> rusqlite::Result<Option<Side>> {
    let Some(person) = r.get::<_, Option<i64>>(at)? else {
        return Ok(None);
    };
    let text = |i: usize| -> rusqlite::Result<Option<String>> {
        Ok(r.get::<_, Option<String>>(at + i)?
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty()))
    };
    Ok(Some(Side {
        person,
        name: text(1)?.unwrap_or_else(|| format!("#{person}")),
        elo: r.get(at + 2)?,
        title: text(3)?,
        federation: text(4)?,
        fide_id: r.get(at + 5)?,
    }))
}

/// The columns of `event_games.sql` and `all_event_games.sql`.
fn row_to_game(r: &Row<'_>) -> rusqlite::Result<EventGame> {
    Ok(EventGame {
        id: r.get(0)?,
        event_id: r.get(1)?,
        year: r.get(2)?,
        month: r.get(3)?,
        day: r.get(4)?,
        round: r.get(5)?,
        white: side(r, 6)?,
        black: side(r, 12)?,
        result: r.get(18)?,
        plies: r.get(19)?,
        forfeit_tag: r.get(20)?,
    })
}

/// One event's games (in one year), by id.
pub fn games(conn: &Connection, event: &Event) -> rusqlite::Result<Vec<EventGame>> {
    conn.prepare_cached(include_str!("sql/event_games.sql"))?
        .query_map(params![event.id, event.year], row_to_game)?
        .collect()
}

/// Every event of the database (each name and site, in each of its years) with its games,
/// handed to `f` one at a time in event id and year order: one scan of `games`, each event's
/// games dropped once `f` has them.
pub fn for_each_event(
    conn: &Connection,
    mut f: impl FnMut(Event, Vec<EventGame>),
) -> rusqlite::Result<()> {
    let names: BTreeMap<i64, (String, String)> = conn
        .prepare_cached(include_str!("sql/event_list.sql"))?
        .query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?))))?
        .collect::<rusqlite::Result<_>>()?;
    let forfeits: HashSet<i64> = conn
        .prepare_cached(include_str!("sql/forfeit_terminations.sql"))?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let mut stmt = conn.prepare_cached(include_str!("sql/all_event_games.sql"))?;
    let mut rows = stmt.query([])?;
    let mut current: Vec<EventGame> = Vec::new();
    let mut flush = |games: Vec<EventGame>| {
        let Some(first) = games.first() else { return };
        let (name, site) = names.get(&first.event_id).cloned().unwrap_or_default();
        let event = Event {
            id: first.event_id,
            name,
            site,
            year: first.year,
            games: games.len() as i64,
        };
        f(event, games);
    };
    while let Some(r) = rows.next()? {
        let mut game = row_to_game(r)?;
        game.forfeit_tag = forfeits.contains(&game.id);
        if current
            .first()
            .is_some_and(|g| (g.event_id, g.year) != (game.event_id, game.year))
        {
            flush(std::mem::take(&mut current));
        }
        current.push(game);
    }
    flush(current);
    Ok(())
}

/// The events (each name and site, in each year) in which the person has games, in date
/// order; `games` counts the person's games.
pub fn person_events(conn: &Connection, person: i64) -> rusqlite::Result<Vec<Event>> {
    conn.prepare_cached(include_str!("sql/person_tournament_events.sql"))?
        .query_map([person], row_to_event)?
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database with events and games, through the real schema.
    fn db(events: &[(&str, &str, &[Option<i64>])]) -> (tempfile::TempDir, Connection) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("e.sqlite");
        let conn = crate::db::open(&path).unwrap();
        conn.execute_batch(
            "INSERT INTO imports (id, path, head_hash, compression, started_at, settings) \
             VALUES (1, 'x', x'00', 'none', '2026-01-01', '{}')",
        )
        .unwrap();
        let mut game = 0;
        for (i, (name, site, years)) in events.iter().enumerate() {
            conn.execute(
                "INSERT INTO events (id, name, site) VALUES (?1, ?2, ?3)",
                params![i as i64 + 1, name, site],
            )
            .unwrap();
            for year in *years {
                game += 1;
                conn.execute(
                    "INSERT INTO games (id, import_id, game_number, byte_offset, line, event_id, year, \
                     ply_count, moves, variant) VALUES (?1, 1, ?1, 0, 1, ?2, ?3, 0, x'', 'standard')",
                    params![game, i as i64 + 1, year],
                )
                .unwrap();
            }
        }
        (dir, conn)
    }

    #[test]
    fn names_match_after_normalising_then_as_a_unique_part() {
        let (_dir, conn) = db(&[
            (
                "75th Tata Steel GpA",
                "Wijk aan Zee",
                &[Some(2013), Some(2013)],
            ),
            ("75th Tata Steel GpB", "Wijk aan Zee", &[Some(2013)]),
            ("Hastings  Premier", "Hastings", &[Some(1990), Some(1991)]),
        ]);
        // Case and spaces do not matter.
        let n = resolve(&conn, "hastings premier").unwrap();
        assert_eq!(n.names, ["Hastings  Premier"]);
        assert_eq!(n.events.len(), 2);
        // A part of one name is that name.
        let n = resolve(&conn, "GPB").unwrap();
        assert_eq!(n.names, ["75th Tata Steel GpB"]);
        // A part of two names lists both with their years and games.
        let e = resolve(&conn, "tata steel").unwrap_err();
        let text = e.to_string();
        assert!(
            text.starts_with("'tata steel' is part of 2 event names")
                && text.contains("'75th Tata Steel GpA' (2013, 2 games)")
                && text.contains("'75th Tata Steel GpB' (2013, 1 games)"),
            "{text}"
        );
        // None: the closest, with years and games.
        let text = resolve(&conn, "Hastings Premer").unwrap_err().to_string();
        assert!(
            text.contains("the closest:\n  'Hastings  Premier' (1990–1991, 2 games)"),
            "{text}"
        );
        // One event in one year: the year narrows, a wrong one lists the name's events.
        let e = resolve_one(&conn, "hastings premier", None, Some(1991)).unwrap();
        assert_eq!((e.year, e.games), (Some(1991), 1));
        assert!(matches!(
            resolve_one(&conn, "hastings premier", None, None),
            Err(ResolveError::Several(v)) if v.len() == 2
        ));
        assert!(matches!(
            resolve_one(&conn, "hastings premier", Some("wijk"), None),
            Err(ResolveError::Elsewhere { events, .. }) if events.len() == 2
        ));
    }
}
