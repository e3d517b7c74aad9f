//! A tournament built from the stored games of one event (PGN `Event` and `Site`, in one
//! year). Rounds come from the `Round` tag (`3`, or `3.2` for round 3 board 2; missing rounds
//! are filled in date order); players are persons as `identity` resolved them; a decisive
//! result with no moves, or a `Termination` tag that says forfeit, is a forfeit; duplicate
//! records count once (their group's survivor). Byes are not in PGN: a round without a game
//! is an absence, so each player's total is the sum of his games, as `stats player` counts it.

use super::model::{Colour, Player, Round, RoundOutcome, RoundResult, Tournament};
use super::model::{Kind, Points};
use super::standings::Standings;
use crate::identity::resolve::edit_distance;
use crate::stats::read::ReadError;
use crate::stats::scan::WhiteResult;
use crate::table::{Cell, Column, Kind as ColumnKind};
use rusqlite::{Connection, OptionalExtension, params};
use std::collections::HashMap;
use std::fmt;

/// One stored event in one year.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub event_id: i64,
    pub name: String,
    pub site: String,
    pub year: Option<i64>,
    pub games: i64,
}

impl fmt::Display for Candidate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "'{}' at '{}', {}: {} games",
            self.name,
            self.site,
            self.year
                .map_or("year unknown".to_owned(), |y| y.to_string()),
            self.games
        )
    }
}

#[derive(Debug)]
pub enum EventError {
    Read(ReadError),
    /// The database could not be opened for reading.
    Db(crate::db::DbError),
    /// Several events match: the caller lists them and asks for `--site`/`--year`.
    Ambiguous(Vec<Candidate>),
    /// None matches: the closest event names.
    NotFound {
        name: String,
        suggestions: Vec<String>,
    },
    /// Events of that name exist, but none at that site or in that year.
    Filtered {
        name: String,
        events: Vec<Candidate>,
    },
}

impl fmt::Display for EventError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EventError::Read(e) => write!(f, "{e}"),
            EventError::Db(e) => write!(f, "{e}"),
            EventError::Ambiguous(list) => {
                writeln!(
                    f,
                    "{} events match; narrow with --site, --year or the full name:",
                    list.len()
                )?;
                for c in list.iter().take(30) {
                    writeln!(f, "  {c}")?;
                }
                if list.len() > 30 {
                    writeln!(f, "  … and {} more", list.len() - 30)?;
                }
                Ok(())
            }
            EventError::Filtered { name, events } => {
                writeln!(
                    f,
                    "no event '{name}' at that site or in that year; the events of that name:"
                )?;
                for c in events.iter().take(30) {
                    writeln!(f, "  {c}")?;
                }
                Ok(())
            }
            EventError::NotFound { name, suggestions } => {
                write!(f, "no stored event is named '{name}'")?;
                if !suggestions.is_empty() {
                    write!(f, "; closest: {}", suggestions.join(", "))?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for EventError {}

impl From<rusqlite::Error> for EventError {
    fn from(e: rusqlite::Error) -> EventError {
        EventError::Read(ReadError::Sqlite(e))
    }
}

impl From<ReadError> for EventError {
    fn from(e: ReadError) -> EventError {
        EventError::Read(e)
    }
}

fn candidates(
    conn: &Connection,
    pattern: &str,
    site: Option<&str>,
    year: Option<i64>,
) -> rusqlite::Result<Vec<Candidate>> {
    let mut stmt = conn.prepare_cached(include_str!("../../db/sql/event_candidates.sql"))?;
    let site = site.map(|s| format!("%{s}%"));
    let rows = stmt.query_map(params![pattern, site, year], |r| {
        Ok(Candidate {
            event_id: r.get(0)?,
            name: r.get(1)?,
            site: r.get(2)?,
            year: r.get(3)?,
            games: r.get(4)?,
        })
    })?;
    rows.collect()
}

/// The one event (in one year) that `name` (whole, else a part of it), `site` and `year`
/// designate.
pub fn find(
    conn: &Connection,
    name: &str,
    site: Option<&str>,
    year: Option<i64>,
) -> Result<Candidate, EventError> {
    let mut found = candidates(conn, name, site, year)?;
    if found.is_empty() {
        found = candidates(conn, &format!("%{name}%"), site, year)?;
    }
    if found.is_empty() && (site.is_some() || year.is_some()) {
        let mut any = candidates(conn, name, None, None)?;
        if any.is_empty() {
            any = candidates(conn, &format!("%{name}%"), None, None)?;
        }
        if !any.is_empty() {
            return Err(EventError::Filtered {
                name: name.to_owned(),
                events: any,
            });
        }
    }
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => Err(EventError::NotFound {
            name: name.to_owned(),
            suggestions: closest_names(conn, name)?,
        }),
        _ => Err(EventError::Ambiguous(found)),
    }
}

fn closest_names(conn: &Connection, name: &str) -> rusqlite::Result<Vec<String>> {
    let wanted: Vec<char> = name.to_lowercase().chars().collect();
    let mut stmt = conn.prepare("SELECT DISTINCT name FROM events")?;
    let mut scored: Vec<(usize, String)> = stmt
        .query_map([], |r| r.get::<_, String>(0))?
        .filter_map(Result::ok)
        .map(|n| {
            let c: Vec<char> = n.to_lowercase().chars().collect();
            (edit_distance(&wanted, &c), n)
        })
        .collect();
    scored.sort();
    Ok(scored.into_iter().take(5).map(|s| s.1).collect())
}

/// A stored game as the tournament needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventGame {
    pub id: i64,
    pub date: (Option<i64>, Option<i64>, Option<i64>),
    /// The `Round` tag as (round, board or game), when it holds a number.
    pub round: Option<(u32, u32)>,
    pub white: Option<i64>,
    pub black: Option<i64>,
    pub white_elo: Option<i64>,
    pub black_elo: Option<i64>,
    pub result: Option<WhiteResult>,
    pub plies: i64,
    pub forfeit_tag: bool,
}

/// Counts of what did not go into the crosstable.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Left {
    /// Games without a result (`*`).
    pub unfinished: usize,
    /// Games with a side that has no name, or a player against himself.
    pub unnamed: usize,
    /// Games of a stage numbered apart (`1`, `2`, `3` of a tie-break play-off beside the
    /// main event's `13.1`, `13.2`…), which would put a player twice in one round.
    pub other_stage: usize,
}

/// Reads one event's games and builds its tournament.
pub fn load(conn: &Connection, event: &Candidate) -> Result<(Tournament, Left), EventError> {
    let mut stmt = conn.prepare_cached(include_str!("../../db/sql/event_games.sql"))?;
    let games: Vec<EventGame> = stmt
        .query_map(params![event.event_id, event.year], |r| {
            let result: Option<String> = r.get(9)?;
            Ok(EventGame {
                id: r.get(0)?,
                date: (r.get(1)?, r.get(2)?, r.get(3)?),
                round: r
                    .get::<_, Option<String>>(4)?
                    .as_deref()
                    .and_then(parse_round),
                white: r.get(5)?,
                black: r.get(6)?,
                white_elo: r.get(7)?,
                black_elo: r.get(8)?,
                result: result.and_then(|t| WhiteResult::parse(t.as_bytes())),
                plies: r.get(10)?,
                forfeit_tag: r.get(11)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    let mut names = conn.prepare_cached("SELECT name FROM players WHERE id = ?1")?;
    let mut name_of = |id: i64| -> String {
        names
            .query_row([id], |r| r.get::<_, String>(0))
            .optional()
            .ok()
            .flatten()
            .unwrap_or_else(|| format!("#{id}"))
    };
    Ok(build(event, &games, &mut name_of))
}

/// Opens the database read-only (checking it has persons) and finds and loads one event.
pub fn open_and_load(
    path: &std::path::Path,
    name: &str,
    site: Option<&str>,
    year: Option<i64>,
) -> Result<(Tournament, Left), EventError> {
    let conn = crate::db::open_read_only(path).map_err(EventError::Db)?;
    let event = find(&conn, name, site, year)?;
    load(&conn, &event)
}

/// `3` → (3, 0), `3.2` → (3, 2); anything else (`?`, `-`, text) → None.
pub fn parse_round(text: &str) -> Option<(u32, u32)> {
    let t = text.trim();
    let (major, minor) = match t.split_once('.') {
        Some((a, b)) => (a, b),
        None => (t, "0"),
    };
    let major: u32 = major.trim().parse().ok()?;
    let minor: u32 = minor.trim().parse().unwrap_or(0);
    (major > 0).then_some((major, minor))
}

/// Round numbers (1-based) for the games, such that no player has two games in one round:
/// the `Round` tag's whole number if that works; else, when most games are tagged
/// round.board and those fit by their round, the games with a plain number are a stage
/// apart (a play-off) and get `None`; else each distinct `major.minor` its own round (a
/// match of several games per round); else, in tag and date order, each game in the
/// earliest round after both players' previous games. Games without a round number go, in
/// date order, to the earliest round in which both players are free.
fn assign_rounds(games: &[(i64, i64, &EventGame)]) -> Vec<Option<usize>> {
    let parsed: Vec<Option<(u32, u32)>> = games.iter().map(|g| g.2.round).collect();
    let fits = |rounds: &[Option<usize>]| -> bool {
        let mut seen = std::collections::HashSet::new();
        games.iter().zip(rounds).all(|(g, r)| match r {
            Some(r) => seen.insert((g.0, *r)) && seen.insert((g.1, *r)),
            None => true,
        })
    };
    let by_major: Vec<Option<usize>> = parsed.iter().map(|p| p.map(|p| p.0 as usize)).collect();
    let boards = parsed.iter().flatten().filter(|p| p.1 > 0).count();
    let plain = parsed.iter().flatten().filter(|p| p.1 == 0).count();
    let by_board_round: Vec<Option<usize>> = parsed
        .iter()
        .map(|p| p.filter(|p| p.1 > 0).map(|p| p.0 as usize))
        .collect();
    let mut apart = vec![false; games.len()];
    let mut rounds = if fits(&by_major) {
        by_major
    } else if plain > 0 && boards > plain && fits(&by_board_round) {
        for (a, p) in apart.iter_mut().zip(&parsed) {
            *a = p.is_some_and(|p| p.1 == 0);
        }
        by_board_round
    } else {
        let mut keys: Vec<(u32, u32)> = parsed.iter().flatten().copied().collect();
        keys.sort_unstable();
        keys.dedup();
        let dense: Vec<Option<usize>> = parsed
            .iter()
            .map(|p| p.map(|p| keys.binary_search(&p).unwrap() + 1))
            .collect();
        if fits(&dense) {
            dense
        } else {
            let mut order: Vec<usize> = (0..games.len()).filter(|&i| parsed[i].is_some()).collect();
            order.sort_by_key(|&i| (parsed[i], games[i].2.date, games[i].2.id));
            let mut next: HashMap<i64, usize> = HashMap::new();
            let mut out = vec![None; games.len()];
            for i in order {
                let (w, b, _) = games[i];
                let r = next
                    .get(&w)
                    .copied()
                    .unwrap_or(1)
                    .max(next.get(&b).copied().unwrap_or(1));
                next.insert(w, r + 1);
                next.insert(b, r + 1);
                out[i] = Some(r);
            }
            out
        }
    };
    // Games without a round number: earliest round where both are free.
    let mut busy: std::collections::HashSet<(i64, usize)> = std::collections::HashSet::new();
    for (g, r) in games.iter().zip(&rounds) {
        if let Some(r) = r {
            busy.insert((g.0, *r));
            busy.insert((g.1, *r));
        }
    }
    let mut unnumbered: Vec<usize> = (0..games.len())
        .filter(|&i| rounds[i].is_none() && !apart[i])
        .collect();
    unnumbered.sort_by_key(|&i| (games[i].2.date, games[i].2.id));
    for i in unnumbered {
        let (w, b, _) = games[i];
        let mut r = 1;
        while busy.contains(&(w, r)) || busy.contains(&(b, r)) {
            r += 1;
        }
        busy.insert((w, r));
        busy.insert((b, r));
        rounds[i] = Some(r);
    }
    rounds
        .into_iter()
        .zip(apart)
        .map(|(r, apart)| (!apart).then(|| r.unwrap_or(1)))
        .collect()
}

fn date_text(d: (Option<i64>, Option<i64>, Option<i64>)) -> String {
    match d {
        (Some(y), Some(m), Some(day)) => format!("{y:04}/{m:02}/{day:02}"),
        _ => String::new(),
    }
}

/// Builds the tournament from an event's games; `name_of` gives a person's display name.
pub fn build(
    event: &Candidate,
    games: &[EventGame],
    name_of: &mut dyn FnMut(i64) -> String,
) -> (Tournament, Left) {
    let mut left = Left::default();
    // Persons in order of first appearance, then numbered by rating.
    let mut index: HashMap<i64, usize> = HashMap::new();
    let mut persons: Vec<(i64, Option<i64>)> = Vec::new();
    // The games that count, between persons; then their rounds (a play-off stage is left out).
    let mut counted: Vec<(i64, i64, &EventGame)> = Vec::new();
    for g in games {
        let (Some(w), Some(b)) = (g.white, g.black) else {
            left.unnamed += 1;
            continue;
        };
        if w == b {
            left.unnamed += 1;
            continue;
        }
        if g.result.is_none() {
            left.unfinished += 1;
            continue;
        }
        counted.push((w, b, g));
    }
    let assigned = assign_rounds(&counted);
    left.other_stage = assigned.iter().filter(|r| r.is_none()).count();
    let mut kept: Vec<(usize, usize, &EventGame)> = Vec::new();
    let mut rounds: Vec<usize> = Vec::new();
    for ((w, b, g), r) in counted.into_iter().zip(assigned) {
        let Some(r) = r else { continue };
        let mut slot = |id: i64, elo: Option<i64>| -> usize {
            let k = *index.entry(id).or_insert_with(|| {
                persons.push((id, None));
                persons.len() - 1
            });
            if persons[k].1.is_none() {
                persons[k].1 = elo.filter(|&e| e > 0);
            }
            k
        };
        let wi = slot(w, g.white_elo);
        let bi = slot(b, g.black_elo);
        kept.push((wi, bi, g));
        rounds.push(r);
    }
    let n_rounds = rounds.iter().copied().max().unwrap_or(0);
    // Start numbers: rating (unrated last), then name.
    let names: Vec<String> = persons.iter().map(|p| name_of(p.0)).collect();
    let mut order: Vec<usize> = (0..persons.len()).collect();
    order.sort_by(|&a, &b| {
        persons[b]
            .1
            .unwrap_or(-1)
            .cmp(&persons[a].1.unwrap_or(-1))
            .then_with(|| names[a].cmp(&names[b]))
            .then(persons[a].0.cmp(&persons[b].0))
    });
    let mut position = vec![0usize; persons.len()];
    for (pos, &k) in order.iter().enumerate() {
        position[k] = pos;
    }
    let mut players: Vec<Player> = order
        .iter()
        .enumerate()
        .map(|(pos, &k)| {
            let mut p = Player::new(pos as u32 + 1, &names[k]);
            p.rating = persons[k]
                .1
                .and_then(|r| u16::try_from(r).ok())
                .filter(|&r| r > 0);
            p.rounds = vec![Round::ABSENT; n_rounds];
            p.person = Some(persons[k].0);
            p
        })
        .collect();
    let mut first = (Some(i64::MAX), Some(12), Some(31));
    let mut last = (None, None, None);
    for ((wi, bi, g), r) in kept.iter().zip(&rounds) {
        let (w, b) = (position[*wi], position[*bi]);
        let result = g.result.expect("kept games have a result");
        let white_result = match result {
            WhiteResult::WhiteWins => RoundResult::Win,
            WhiteResult::Draw => RoundResult::Draw,
            WhiteResult::BlackWins => RoundResult::Loss,
        };
        let forfeit = white_result != RoundResult::Draw && (g.plies == 0 || g.forfeit_tag);
        let (wo, bo) = if forfeit {
            if white_result == RoundResult::Win {
                (RoundOutcome::ForfeitWin, RoundOutcome::ForfeitLoss)
            } else {
                (RoundOutcome::ForfeitLoss, RoundOutcome::ForfeitWin)
            }
        } else {
            (
                RoundOutcome::Played(white_result),
                RoundOutcome::Played(white_result.reversed()),
            )
        };
        players[w].rounds[r - 1] = Round {
            opponent: Some(b),
            colour: Colour::White,
            outcome: wo,
        };
        players[b].rounds[r - 1] = Round {
            opponent: Some(w),
            colour: Colour::Black,
            outcome: bo,
        };
        if g.date.0.is_some() && g.date.1.is_some() && g.date.2.is_some() {
            if g.date < first {
                first = g.date;
            }
            if g.date > last {
                last = g.date;
            }
        }
    }
    let t = Tournament {
        name: event.name.clone(),
        city: event.site.clone(),
        start_date: if first.0 == Some(i64::MAX) {
            String::new()
        } else {
            date_text(first)
        },
        end_date: date_text(last),
        rounds: n_rounds,
        players,
        ..Tournament::default()
    };
    (t, left)
}

/// Every event (in each of its years) of the database, built and collected (for tests and
/// small databases; `for_each_event` holds one tournament at a time).
pub fn load_all(conn: &Connection) -> Result<Vec<(Candidate, Tournament, Left)>, EventError> {
    let mut out = Vec::new();
    for_each_event(conn, |c, t, left| out.push((c, t, left)))?;
    Ok(out)
}

/// One event's line of `tournament --all-events`: what was built and ranked.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub name: String,
    pub site: String,
    pub year: Option<i64>,
    pub kind: Kind,
    pub players: usize,
    pub rounds: usize,
    /// Games played over the board or by forfeit between two paired players.
    pub games: usize,
    /// Every player's points added up.
    pub points: Points,
}

impl Summary {
    /// The summary of the event `c`, built as `t` and ranked as `s` under `kind`.
    pub fn new(c: &Candidate, t: &Tournament, s: &Standings, kind: Kind) -> Summary {
        let games = t
            .players
            .iter()
            .map(|p| p.rounds.iter().filter(|x| x.opponent.is_some()).count())
            .sum::<usize>()
            / 2;
        Summary {
            name: c.name.clone(),
            site: c.site.clone(),
            year: c.year,
            kind,
            players: t.players.len(),
            rounds: t.rounds,
            games,
            points: Points(s.rows.iter().map(|row| row.points.0).sum()),
        }
    }

    /// One row in [`SUMMARY_COLUMNS`]' order.
    pub fn cells(&self) -> [Cell<'_>; 8] {
        [
            Cell::text(&self.name),
            Cell::text(&self.site),
            Cell::opt_int(self.year),
            Cell::text(self.kind.name()),
            Cell::Int(self.players as i64),
            Cell::Int(self.rounds as i64),
            Cell::Int(self.games as i64),
            Cell::Fixed(self.points.as_f64(), 1),
        ]
    }
}

impl fmt::Display for Summary {
    /// The text line: `name | site | year | type | N players | N rounds | N games | N points`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let year = self.year.map(|y| y.to_string()).unwrap_or_default();
        write!(
            f,
            "{} | {} | {} | {} | {} players | {} rounds | {} games | {} points",
            self.name,
            self.site,
            year,
            self.kind.name(),
            self.players,
            self.rounds,
            self.games,
            self.points
        )
    }
}

/// The columns of `tournament --all-events` as a table.
pub const SUMMARY_COLUMNS: [Column; 8] = [
    Column::new("event", ColumnKind::Text, "the event's name"),
    Column::new("site", ColumnKind::Text, "the event's site"),
    Column::new("year", ColumnKind::Int, "the year of its games"),
    Column::new("type", ColumnKind::Text, "round robin or Swiss"),
    Column::new("players", ColumnKind::Int, "players"),
    Column::new("rounds", ColumnKind::Int, "rounds"),
    Column::new("games", ColumnKind::Int, "games between two paired players"),
    Column::new(
        "points",
        ColumnKind::Float,
        "every player's points added up",
    ),
];

/// Builds every event (in each of its years) of the database and hands each to `f`, in event
/// id and year order: the fast path for `--all-events` (one scan of `games`, the maps read
/// once, each event's games dropped once it is built).
pub fn for_each_event(
    conn: &Connection,
    mut f: impl FnMut(Candidate, Tournament, Left),
) -> Result<(), EventError> {
    let mut person_of: HashMap<i64, i64> = HashMap::new();
    {
        let mut stmt = conn.prepare("SELECT id, person_id FROM player_names")?;
        for row in stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))? {
            let (a, b) = row?;
            person_of.insert(a, b);
        }
    }
    let mut names: HashMap<i64, String> = HashMap::new();
    {
        let mut stmt = conn.prepare("SELECT id, name FROM players")?;
        for row in stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))? {
            let (a, b) = row?;
            names.insert(a, b);
        }
    }
    let mut events: HashMap<i64, (String, String)> = HashMap::new();
    {
        let mut stmt = conn.prepare("SELECT id, name, site FROM events")?;
        for row in stmt.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
            ))
        })? {
            let (a, b, c) = row?;
            events.insert(a, (b, c));
        }
    }
    let duplicates: std::collections::HashSet<i64> = conn
        .prepare("SELECT game_id FROM duplicate_members WHERE survivor = 0")?
        .query_map([], |r| r.get::<_, i64>(0))?
        .collect::<rusqlite::Result<_>>()?;
    let forfeits: std::collections::HashSet<i64> = conn
        .prepare(include_str!("../../db/sql/forfeit_terminations.sql"))?
        .query_map([], |r| r.get::<_, i64>(0))?
        .collect::<rusqlite::Result<_>>()?;
    let mut by_event: HashMap<(i64, Option<i64>), Vec<EventGame>> = HashMap::new();
    {
        let mut stmt = conn.prepare(include_str!("../../db/sql/all_event_games.sql"))?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let id: i64 = r.get(0)?;
            if duplicates.contains(&id) {
                continue;
            }
            let event: i64 = r.get(1)?;
            let year: Option<i64> = r.get(2)?;
            let result: Option<String> = r.get(10)?;
            let white: Option<i64> = r.get(6)?;
            let black: Option<i64> = r.get(7)?;
            by_event.entry((event, year)).or_default().push(EventGame {
                id,
                date: (year, r.get(3)?, r.get(4)?),
                round: r
                    .get::<_, Option<String>>(5)?
                    .as_deref()
                    .and_then(parse_round),
                white: white.and_then(|w| person_of.get(&w).copied()),
                black: black.and_then(|b| person_of.get(&b).copied()),
                white_elo: r.get(8)?,
                black_elo: r.get(9)?,
                result: result.and_then(|t| WhiteResult::parse(t.as_bytes())),
                plies: r.get(11)?,
                forfeit_tag: forfeits.contains(&id),
            });
        }
    }
    let mut keys: Vec<(i64, Option<i64>)> = by_event.keys().copied().collect();
    keys.sort_unstable();
    for key in keys {
        let games = by_event.remove(&key).unwrap_or_default();
        let (name, site) = events.get(&key.0).cloned().unwrap_or_default();
        let candidate = Candidate {
            event_id: key.0,
            name,
            site,
            year: key.1,
            games: games.len() as i64,
        };
        let mut name_of = |id: i64| names.get(&id).cloned().unwrap_or_else(|| format!("#{id}"));
        let (t, left) = build(&candidate, &games, &mut name_of);
        f(candidate, t, left);
    }
    Ok(())
}

/// One of a person's events, for `stats player`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PlayerEvent {
    pub event: String,
    pub site: String,
    pub year: Option<i64>,
    pub players: usize,
    pub rounds: usize,
    /// The person's games in the event (forfeits included).
    pub games: usize,
    pub score: f64,
    /// Tournament performance rating (C.07 Art. 10.2) over the games against rated opponents.
    pub tpr: Option<i32>,
    /// Rank with the default tie-breaks, given only when the stored games cover at least three
    /// quarters of the pairings the event could have had (a file of one player's games gives
    /// only his part of the event).
    pub place: Option<u32>,
}

/// The events of a person, each built as a tournament: score, TPR and place.
pub fn player_events(conn: &Connection, person: i64) -> Result<Vec<PlayerEvent>, EventError> {
    let mut stmt =
        conn.prepare_cached(include_str!("../../db/sql/person_tournament_events.sql"))?;
    let found: Vec<Candidate> = stmt
        .query_map([person], |r| {
            Ok(Candidate {
                event_id: r.get(0)?,
                name: r.get(1)?,
                site: r.get(2)?,
                year: r.get(3)?,
                games: r.get(4)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    let mut out = Vec::with_capacity(found.len());
    for c in &found {
        let (t, _) = load(conn, c)?;
        let Some(i) = t.players.iter().position(|p| p.person == Some(person)) else {
            continue;
        };
        let p = &t.players[i];
        let games = p.rounds.iter().filter(|r| r.opponent.is_some()).count();
        let rated: Vec<(i32, u32)> = p
            .rounds
            .iter()
            .filter_map(|r| {
                let o = r.game_opponent()?;
                Some((i32::from(t.players[o].rating?), r.points().0))
            })
            .collect();
        let ratings: Vec<i32> = rated.iter().map(|x| x.0).collect();
        let tpr = super::tiebreaks::rating::tpr(&ratings, rated.iter().map(|x| x.1).sum());
        let pairings: usize = t
            .players
            .iter()
            .map(|q| q.rounds.iter().filter(|r| r.opponent.is_some()).count())
            .sum::<usize>()
            / 2;
        let possible = t.players.len() / 2 * t.rounds;
        let place =
            (t.players.len() >= 2 && possible > 0 && pairings * 4 >= possible * 3).then(|| {
                let kind = t.kind();
                let specs =
                    super::tiebreaks::registry::default_list(kind == super::Kind::RoundRobin);
                let rules = super::Rules::for_date(t.end());
                let s = super::standings::compute(&t, &specs, rules, kind, None);
                s.ranks()[i]
            });
        out.push(PlayerEvent {
            event: c.name.clone(),
            site: c.site.clone(),
            year: c.year,
            players: t.players.len(),
            rounds: t.rounds,
            games,
            score: p.points().as_f64(),
            tpr,
            place,
        });
    }
    Ok(out)
}

/// The events as a text table for the dossier.
pub fn events_text(events: &[PlayerEvent]) -> String {
    let mut out = String::from("
events (score, TPR over rated opponents, place with the default tie-breaks when the event is complete enough):
");
    for e in events {
        out.push_str(&format!(
            "  {:<4}  {:<40} {:<24} {:>5.1} / {:<3} TPR {:>5}  place {}\n",
            e.year.map(|y| y.to_string()).unwrap_or_else(|| "?".into()),
            e.event.chars().take(40).collect::<String>(),
            e.site.chars().take(24).collect::<String>(),
            e.score,
            e.games,
            e.tpr.map(|x| x.to_string()).unwrap_or_else(|| "-".into()),
            e.place
                .map(|x| format!("{x} of {}", e.players))
                .unwrap_or_else(|| "-".into())
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(id: i64, round: &str, w: i64, b: i64, result: WhiteResult, plies: i64) -> EventGame {
        EventGame {
            id,
            date: (Some(2024), Some(1), Some(id)),
            round: parse_round(round),
            white: Some(w),
            black: Some(b),
            white_elo: Some(2000 + w),
            black_elo: Some(2000 + b),
            result: Some(result),
            plies,
            forfeit_tag: false,
        }
    }

    #[test]
    fn rounds_from_tags_boards_and_matches() {
        let e = Candidate {
            event_id: 1,
            name: "E".into(),
            site: "S".into(),
            year: Some(2024),
            games: 0,
        };
        use WhiteResult::*;
        // Round 1 board 1 and 2, round 2 board 1 and 2.
        let games = vec![
            game(1, "1.1", 1, 2, WhiteWins, 40),
            game(2, "1.2", 3, 4, Draw, 40),
            game(3, "2.1", 2, 3, BlackWins, 40),
            game(4, "2.2", 4, 1, WhiteWins, 0),
        ];
        let (t, left) = build(&e, &games, &mut |id| format!("P{id}"));
        assert_eq!(left, Left::default());
        assert_eq!(t.rounds, 2);
        // Start numbers by rating: P4 (2004) first.
        assert_eq!(t.players[0].name, "P4");
        // Game 4 has no moves and a decisive result: a forfeit.
        assert_eq!(t.players[0].rounds[1].outcome, RoundOutcome::ForfeitWin);
        assert_eq!(t.players[3].rounds[1].outcome, RoundOutcome::ForfeitLoss);
        // A two-game match per round ("1.1", "1.2" between the same players).
        let games = vec![
            game(1, "1.1", 1, 2, WhiteWins, 40),
            game(2, "1.2", 2, 1, Draw, 40),
        ];
        let (t, _) = build(&e, &games, &mut |id| format!("P{id}"));
        assert_eq!(t.rounds, 2);
        // No round tags: the earliest round in which both are free.
        let games = vec![
            game(1, "", 1, 2, WhiteWins, 40),
            game(2, "", 3, 4, Draw, 40),
            game(3, "?", 1, 3, Draw, 40),
        ];
        let (t, _) = build(&e, &games, &mut |id| format!("P{id}"));
        assert_eq!(t.rounds, 2);
    }
}
