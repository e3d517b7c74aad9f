//! A tournament built from the stored games of one event (PGN `Event` and `Site`, in one
//! year). Rounds come from the `Round` tag (`3`, or `3.2` for round 3 board 2; missing rounds
//! are filled in date order); players are persons as `identity` resolved them, with the title,
//! federation and FIDE id their games' tags carry; a decisive result with no moves, or a
//! `Termination` tag that says forfeit, is a forfeit; duplicate records count once (their
//! group's survivor). Byes are not in PGN: a round without a game is an absence, so each
//! player's total is the sum of his games, as `stats player` counts it; `coverage` says how
//! much of the event is stored. The rows come from `db::events`, which also resolves names.

use super::coverage::Coverage;
use super::model::{Colour, Player, Round, RoundOutcome, RoundResult, Tournament};
use super::model::{Kind, Points};
use super::standings::Standings;
use crate::db::events::{self as store, Event, EventGame, ResolveError, Side};
use crate::stats::scan::WhiteResult;
use crate::table::{Cell, Column, Kind as ColumnKind};
use rusqlite::Connection;
use std::collections::{BTreeSet, HashMap};
use std::fmt;

#[derive(Debug)]
pub enum EventError {
    /// The database could not be opened for reading.
    Db(crate::db::DbError),
    Sqlite(rusqlite::Error),
    /// The name designates no event, or several.
    Resolve(ResolveError),
    /// The event has games, but not one finished between two named players.
    NoFinishedGames {
        event: Event,
        left: Left,
    },
}

impl fmt::Display for EventError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EventError::Db(e) => write!(f, "{e}"),
            EventError::Sqlite(e) => write!(f, "{e}"),
            EventError::Resolve(e) => write!(f, "{e}"),
            EventError::NoFinishedGames { event, left } => write!(
                f,
                "{event}, and not one of them finished between two named players ({left}): \
                 no tournament to build"
            ),
        }
    }
}

impl std::error::Error for EventError {}

impl From<rusqlite::Error> for EventError {
    fn from(e: rusqlite::Error) -> EventError {
        EventError::Sqlite(e)
    }
}

impl From<ResolveError> for EventError {
    fn from(e: ResolveError) -> EventError {
        match e {
            ResolveError::Sqlite(e) => EventError::Sqlite(e),
            e => EventError::Resolve(e),
        }
    }
}

/// Events as (stored event id, year): the keys a selection of games names its events by.
pub type EventKeys = BTreeSet<(i64, Option<i64>)>;

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

impl Left {
    /// The notes for the reader, one line each; none when nothing was left out.
    pub fn notes(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.unfinished + self.unnamed > 0 {
            out.push(format!(
                "left out: {} games without a result, {} without two named players",
                self.unfinished, self.unnamed
            ));
        }
        if self.other_stage > 0 {
            out.push(format!(
                "left out: {} games numbered apart from the event's round.board tags (a play-off)",
                self.other_stage
            ));
        }
        out
    }
}

impl fmt::Display for Left {
    /// `3 without a result, 1 without two named players`: the non-zero counts.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = [
            (self.unfinished, "without a result"),
            (self.unnamed, "without two named players"),
            (self.other_stage, "numbered apart (a play-off)"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
        f.write_str(&parts.join(", "))
    }
}

/// One event built as a tournament, with what was left out.
#[derive(Debug, Clone)]
pub struct Built {
    pub event: Event,
    pub tournament: Tournament,
    pub left: Left,
}

impl Built {
    /// What the reader is told beside the standings of kind `kind`: the games left out, and
    /// how much of the event is stored.
    pub fn notes(&self, kind: Kind) -> Vec<String> {
        let mut out = self.left.notes();
        out.extend(Coverage::of(&self.tournament, kind).notes());
        out
    }
}

/// Reads one event's games and builds its tournament; an event without one finished game
/// between two named players is an error.
pub fn load(conn: &Connection, event: &Event) -> Result<Built, EventError> {
    let games = store::games(conn, event)?;
    let (tournament, left) = build(event, &games);
    if tournament.players.is_empty() {
        return Err(EventError::NoFinishedGames {
            event: event.clone(),
            left,
        });
    }
    Ok(Built {
        event: event.clone(),
        tournament,
        left,
    })
}

/// Opens the database read-only, resolves the event (`db::events::resolve_one`'s rule) and
/// loads it.
pub fn open_and_load(
    path: &std::path::Path,
    name: &str,
    site: Option<&str>,
    year: Option<i64>,
) -> Result<Built, EventError> {
    let conn = crate::db::open_read_only(path).map_err(EventError::Db)?;
    let event = store::resolve_one(&conn, name, site, year)?;
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

/// A game that counts (a result, two distinct named players), as `build` parsed its row.
struct Counted<'a> {
    id: i64,
    date: (Option<i64>, Option<i64>, Option<i64>),
    round: Option<(u32, u32)>,
    result: WhiteResult,
    plies: i64,
    forfeit_tag: bool,
    white: &'a Side,
    black: &'a Side,
}

/// Round numbers (1-based) for the games, such that no player has two games in one round:
/// the `Round` tag's whole number if that works; else, when most games are tagged
/// round.board and those fit by their round, the games with a plain number are a stage
/// apart (a play-off) and get `None`; else each distinct `major.minor` its own round (a
/// match of several games per round); else, in tag and date order, each game in the
/// earliest round after both players' previous games. Games without a round number go, in
/// date order, to the earliest round in which both players are free.
fn assign_rounds(games: &[(i64, i64, Counted<'_>)]) -> Vec<Option<usize>> {
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

/// One person as the event's games show him: the first rating, title, federation and FIDE id
/// his games' tags give, in game id order.
struct Seen {
    person: i64,
    name: String,
    rating: Option<i64>,
    title: Option<String>,
    federation: Option<String>,
    fide_id: Option<i64>,
}

impl Seen {
    fn new(s: &Side) -> Seen {
        Seen {
            person: s.person,
            name: s.name.clone(),
            rating: None,
            title: None,
            federation: None,
            fide_id: None,
        }
    }

    fn add(&mut self, s: &Side) {
        if self.rating.is_none() {
            self.rating = s.elo.filter(|&e| e > 0);
        }
        if self.title.is_none() {
            self.title = s.title.as_deref().and_then(title);
        }
        if self.federation.is_none() {
            self.federation = s.federation.as_deref().and_then(federation);
        }
        if self.fide_id.is_none() {
            self.fide_id = s.fide_id.filter(|&id| id > 0);
        }
    }
}

/// A title as TRF-16 holds it (columns 11-13: `GM`, `WIM`): up to three letters.
fn title(text: &str) -> Option<String> {
    let t = text.trim();
    (!t.is_empty() && t.len() <= 3 && t.bytes().all(|b| b.is_ascii_alphabetic()))
        .then(|| t.to_ascii_uppercase())
}

/// A federation as TRF-16 holds it: three capital letters (`NED`). The import keeps
/// `WhiteTeam` where a game has no `WhiteFed`, and a team's name is no federation.
fn federation(text: &str) -> Option<String> {
    let t = text.trim();
    (t.len() == 3 && t.bytes().all(|b| b.is_ascii_uppercase())).then(|| t.to_owned())
}

/// Builds the tournament from an event's games.
pub fn build(event: &Event, games: &[EventGame]) -> (Tournament, Left) {
    let mut left = Left::default();
    // The games that count, between persons; then their rounds (a play-off stage is left out).
    let mut counted: Vec<(i64, i64, Counted<'_>)> = Vec::new();
    for g in games {
        let (Some(w), Some(b)) = (&g.white, &g.black) else {
            left.unnamed += 1;
            continue;
        };
        if w.person == b.person {
            left.unnamed += 1;
            continue;
        }
        let Some(result) = g
            .result
            .as_deref()
            .and_then(|t| WhiteResult::parse(t.as_bytes()))
        else {
            left.unfinished += 1;
            continue;
        };
        counted.push((
            w.person,
            b.person,
            Counted {
                id: g.id,
                date: (g.year, g.month, g.day),
                round: g.round.as_deref().and_then(parse_round),
                result,
                plies: g.plies,
                forfeit_tag: g.forfeit_tag,
                white: w,
                black: b,
            },
        ));
    }
    let assigned = assign_rounds(&counted);
    left.other_stage = assigned.iter().filter(|r| r.is_none()).count();
    // Persons in order of first appearance, then numbered by rating.
    let mut index: HashMap<i64, usize> = HashMap::new();
    let mut persons: Vec<Seen> = Vec::new();
    let mut kept: Vec<(usize, usize, &Counted<'_>, usize)> = Vec::new();
    for ((_, _, g), r) in counted.iter().zip(assigned) {
        let Some(r) = r else { continue };
        let mut slot = |s: &Side| -> usize {
            let k = *index.entry(s.person).or_insert_with(|| {
                persons.push(Seen::new(s));
                persons.len() - 1
            });
            persons[k].add(s);
            k
        };
        let wi = slot(g.white);
        let bi = slot(g.black);
        kept.push((wi, bi, g, r));
    }
    let n_rounds = kept.iter().map(|k| k.3).max().unwrap_or(0);
    // Start numbers: rating (unrated last), then name.
    let mut order: Vec<usize> = (0..persons.len()).collect();
    order.sort_by(|&a, &b| {
        let (pa, pb) = (&persons[a], &persons[b]);
        pb.rating
            .unwrap_or(-1)
            .cmp(&pa.rating.unwrap_or(-1))
            .then_with(|| pa.name.cmp(&pb.name))
            .then(pa.person.cmp(&pb.person))
    });
    let mut position = vec![0usize; persons.len()];
    for (pos, &k) in order.iter().enumerate() {
        position[k] = pos;
    }
    let mut players: Vec<Player> = order
        .iter()
        .enumerate()
        .map(|(pos, &k)| {
            let seen = &persons[k];
            let mut p = Player::new(pos as u32 + 1, &seen.name);
            p.rating = seen
                .rating
                .and_then(|r| u16::try_from(r).ok())
                .filter(|&r| r > 0);
            p.title = seen.title.clone().unwrap_or_default();
            p.federation = seen.federation.clone().unwrap_or_default();
            p.fide_id = seen.fide_id.map(|id| id.to_string()).unwrap_or_default();
            p.rounds = vec![Round::ABSENT; n_rounds];
            p.person = Some(seen.person);
            p
        })
        .collect();
    let mut first = (Some(i64::MAX), Some(12), Some(31));
    let mut last = (None, None, None);
    for &(wi, bi, g, r) in &kept {
        let (w, b) = (position[wi], position[bi]);
        let white_result = match g.result {
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
pub fn load_all(conn: &Connection) -> Result<Vec<Built>, EventError> {
    let mut out = Vec::new();
    for_each_event(conn, |b| out.push(b))?;
    Ok(out)
}

/// Builds every event (in each of its years) of the database and hands each to `f`, in event
/// id and year order: the fast path for `--all-events` (one scan of `games`, each event's
/// games dropped once it is built). Events without a finished game come too, with no players.
pub fn for_each_event(conn: &Connection, mut f: impl FnMut(Built)) -> Result<(), EventError> {
    store::for_each_event(conn, |event, games| {
        let (tournament, left) = build(&event, &games);
        f(Built {
            event,
            tournament,
            left,
        });
    })?;
    Ok(())
}

/// One event's line of `tournament --all-events`: what was built and ranked, and how much of
/// the event is stored.
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
    /// The games a complete event of its kind, players and rounds has.
    pub expected: usize,
    /// Rounds with missing games.
    pub rounds_short: usize,
    /// Players lacking games.
    pub players_short: usize,
    /// The one player all its games are of (one player's part of an event), if so.
    pub only_player: Option<String>,
}

impl Summary {
    /// The summary of the event `b`, ranked as `s` under `kind`.
    pub fn new(b: &Built, s: &Standings, kind: Kind) -> Summary {
        let t = &b.tournament;
        let c = Coverage::of(t, kind);
        Summary {
            name: b.event.name.clone(),
            site: b.event.site.clone(),
            year: b.event.year,
            kind,
            players: t.players.len(),
            rounds: t.rounds,
            games: c.games,
            points: Points(s.rows.iter().map(|row| row.points.0).sum()),
            expected: c.expected,
            rounds_short: c.rounds_short.len(),
            players_short: c.players_short.len(),
            only_player: c.star,
        }
    }

    /// One row in [`SUMMARY_COLUMNS`]' order.
    pub fn cells(&self) -> [Cell<'_>; 12] {
        [
            Cell::text(&self.name),
            Cell::text(&self.site),
            Cell::opt_int(self.year),
            Cell::text(self.kind.name()),
            Cell::Int(self.players as i64),
            Cell::Int(self.rounds as i64),
            Cell::Int(self.games as i64),
            Cell::Fixed(self.points.as_f64(), 1),
            Cell::Int(self.expected as i64),
            Cell::Int(self.rounds_short as i64),
            Cell::Int(self.players_short as i64),
            Cell::opt_text(self.only_player.as_deref()),
        ]
    }
}

impl fmt::Display for Summary {
    /// The text line: `name | site | year | type | N players | N rounds | N games | N points |
    /// complete` (or `63 of 91 games stored`, or `one player's games: NAME`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let year = self.year.map(|y| y.to_string()).unwrap_or_default();
        let whole = match &self.only_player {
            Some(name) => format!("one player's games: {name}"),
            None if self.games >= self.expected => "complete".to_owned(),
            None => format!("{} of {} games stored", self.games, self.expected),
        };
        write!(
            f,
            "{} | {} | {} | {} | {} players | {} rounds | {} games | {} points | {whole}",
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
pub const SUMMARY_COLUMNS: [Column; 12] = [
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
    Column::new(
        "expected",
        ColumnKind::Int,
        "the games a complete event of its type, players and rounds has",
    ),
    Column::new("rounds_short", ColumnKind::Int, "rounds with missing games"),
    Column::new("players_short", ColumnKind::Int, "players lacking games"),
    Column::new(
        "only_player",
        ColumnKind::Text,
        "the one player every stored game has (one player's part of an event), else empty",
    ),
];

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
    /// quarters of the pairings the event could have had and are not one player's games alone
    /// (a file of one player's games gives only his part of the event).
    pub place: Option<u32>,
}

/// The events of a person, each built as a tournament: score, TPR and place. With `only`, the
/// events (event id, year) of a selection of his games, as the dossier counts them.
pub fn player_events(
    conn: &Connection,
    person: i64,
    only: Option<&EventKeys>,
) -> Result<Vec<PlayerEvent>, EventError> {
    let found = store::person_events(conn, person)?;
    let mut out = Vec::with_capacity(found.len());
    for c in found
        .iter()
        .filter(|e| only.is_none_or(|set| set.contains(&(e.id, e.year))))
    {
        let t = match load(conn, c) {
            Ok(b) => b.tournament,
            Err(EventError::NoFinishedGames { .. }) => continue,
            Err(e) => return Err(e),
        };
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
        let kind = t.kind();
        let place = Coverage::of(&t, kind).gives_places().then(|| {
            let specs = super::tiebreaks::registry::default_list(kind == Kind::RoundRobin);
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

    fn side(person: i64) -> Side {
        Side {
            person,
            name: format!("P{person}"),
            elo: Some(2000 + person),
            title: None,
            federation: None,
            fide_id: None,
        }
    }

    fn game(id: i64, round: &str, w: i64, b: i64, result: &str, plies: i64) -> EventGame {
        EventGame {
            id,
            event_id: 1,
            year: Some(2024),
            month: Some(1),
            day: Some(id),
            round: Some(round.to_owned()),
            white: Some(side(w)),
            black: Some(side(b)),
            result: Some(result.to_owned()),
            plies,
            forfeit_tag: false,
        }
    }

    fn event() -> Event {
        Event {
            id: 1,
            name: "E".into(),
            site: "S".into(),
            year: Some(2024),
            games: 0,
        }
    }

    #[test]
    fn rounds_from_tags_boards_and_matches() {
        let e = event();
        // Round 1 board 1 and 2, round 2 board 1 and 2.
        let games = vec![
            game(1, "1.1", 1, 2, "1-0", 40),
            game(2, "1.2", 3, 4, "1/2-1/2", 40),
            game(3, "2.1", 2, 3, "0-1", 40),
            game(4, "2.2", 4, 1, "1-0", 0),
        ];
        let (t, left) = build(&e, &games);
        assert_eq!(left, Left::default());
        assert_eq!(t.rounds, 2);
        // Start numbers by rating: P4 (2004) first.
        assert_eq!(t.players[0].name, "P4");
        // Game 4 has no moves and a decisive result: a forfeit.
        assert_eq!(t.players[0].rounds[1].outcome, RoundOutcome::ForfeitWin);
        assert_eq!(t.players[3].rounds[1].outcome, RoundOutcome::ForfeitLoss);
        // A two-game match per round ("1.1", "1.2" between the same players).
        let games = vec![
            game(1, "1.1", 1, 2, "1-0", 40),
            game(2, "1.2", 2, 1, "1/2-1/2", 40),
        ];
        let (t, _) = build(&e, &games);
        assert_eq!(t.rounds, 2);
        // No round tags: the earliest round in which both are free.
        let games = vec![
            game(1, "", 1, 2, "1-0", 40),
            game(2, "", 3, 4, "1/2-1/2", 40),
            game(3, "?", 1, 3, "1/2-1/2", 40),
        ];
        let (t, _) = build(&e, &games);
        assert_eq!(t.rounds, 2);
    }

    #[test]
    fn titles_federations_and_fide_ids_come_from_the_tags() {
        let mut g = game(1, "1", 1, 2, "1-0", 40);
        let w = g.white.as_mut().unwrap();
        w.title = Some("gm".into());
        w.federation = Some("NED".into());
        w.fide_id = Some(1_503_014);
        // A team kept where there is no federation tag is no federation.
        g.black.as_mut().unwrap().federation = Some("Chess Club Utrecht".into());
        let (t, _) = build(&event(), &[g]);
        let p2 = t.players.iter().find(|p| p.name == "P1").unwrap();
        assert_eq!(
            (
                p2.title.as_str(),
                p2.federation.as_str(),
                p2.fide_id.as_str()
            ),
            ("GM", "NED", "1503014")
        );
        let p1 = t.players.iter().find(|p| p.name == "P2").unwrap();
        assert_eq!(p1.federation, "");
    }

    #[test]
    fn an_event_without_a_finished_game_builds_nobody() {
        let games = vec![game(1, "1", 1, 2, "*", 10), game(2, "1", 3, 4, "*", 0)];
        let (t, left) = build(&event(), &games);
        assert!(t.players.is_empty());
        assert_eq!(left.to_string(), "2 without a result");
    }
}
