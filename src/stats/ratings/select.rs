//! The games a rating run sees: the selected games of a database turned into [`RatedGame`]s between
//! dense person indices (in order of first appearance, the lists' tie order), each person's
//! first Elo tag, and an account of every stored game that does not reach a rating system.

use super::encounters::Encounters;
use super::{Date, RatedGame};
use crate::db::persons::persons_by_id;
use crate::db::query::select::Filter;
use crate::stats::scan::{self, GameRow, Order};
use rusqlite::Connection;
use std::collections::HashMap;

/// Which result a game is rated by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultSource {
    /// The result the Laws decide (a game the Laws say was drawn counts as a draw).
    Lawful,
    /// The Result tag as written.
    Recorded,
}

impl ResultSource {
    /// The stable name stored in a run's settings.
    pub fn name(self) -> &'static str {
        match self {
            ResultSource::Lawful => "lawful",
            ResultSource::Recorded => "recorded",
        }
    }
}

/// The games selected, as the rating systems see them, with the persons' names.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Selection {
    pub games: Vec<RatedGame>,
    /// Index → the person's canonical name (`#ID` for a person id the players table lacks).
    pub names: Vec<String>,
    /// Index → players.id; empty when the games came from Parquet files.
    pub person_ids: Vec<i64>,
    /// Each person's first Elo tag in the selection (by date).
    pub first_tag: Vec<Option<i32>>,
    /// Why the other stored games are not in `games`.
    pub left_out: LeftOut,
}

/// The stored games that never reach a rating system, by reason.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LeftOut {
    /// What `stored` counts: "stored games" (a database) or "games read" (Parquet rows).
    pub what: &'static str,
    pub stored: usize,
    /// Not matched by the selection (dates, time control class) or without a White name.
    pub not_selected: usize,
    /// Records of a game stored more than once that are not their group's survivor.
    pub duplicates: usize,
    /// No result (`*` or none): never a loss.
    pub unfinished: usize,
    /// A side whose name belongs to no person (an empty Black tag).
    pub no_opponent: usize,
    /// Games of a player with fewer games than `--min-games` (see [`Selection::min_games`]).
    pub few_games: usize,
}

impl LeftOut {
    /// Every stored game once: rated, or the reason it was not (the parts add up to `stored`).
    pub fn accounting(&self, rated: usize, not_rated: &[(&str, usize)]) -> String {
        let mut text = format!("{} {}: {rated} rated", self.stored, self.what);
        let reasons = [
            ("outside the selection", self.not_selected),
            (
                "duplicate records (--all-games rates them)",
                self.duplicates,
            ),
            ("unfinished", self.unfinished),
            ("without a Black player", self.no_opponent),
            ("with a player under --min-games", self.few_games),
        ];
        for (why, n) in reasons.iter().chain(not_rated).filter(|r| r.1 > 0) {
            text.push_str(&format!(", {n} {why}"));
        }
        text
    }
}

/// Builds a [`Selection`] from the scan's rows, one at a time.
pub struct Selector {
    /// Persons by id (sorted), with their names.
    persons: Vec<(i64, String)>,
    unique: bool,
    source: ResultSource,
    index: Vec<u32>,
    strays: HashMap<i64, u32>,
    person_ids: Vec<i64>,
    tags: Vec<(Date, Option<i32>)>,
    games: Vec<RatedGame>,
    left_out: LeftOut,
}

const NONE: u32 = u32::MAX;

impl Selector {
    /// `persons`: every person's (id, name); `stored`: how many games the database holds;
    /// `unique`: rate each duplicate group once (its survivor).
    pub fn new(
        mut persons: Vec<(i64, String)>,
        stored: usize,
        unique: bool,
        source: ResultSource,
    ) -> Selector {
        persons.sort_unstable_by_key(|p| p.0);
        Selector {
            index: vec![NONE; persons.len()],
            persons,
            unique,
            source,
            strays: HashMap::new(),
            person_ids: Vec::new(),
            tags: Vec::new(),
            games: Vec::new(),
            left_out: LeftOut {
                what: "stored games",
                stored,
                ..LeftOut::default()
            },
        }
    }

    /// One selected game (in date or id order: the first Elo tag is the earliest dated one).
    pub fn add(&mut self, row: &GameRow) {
        if self.unique && row.duplicate {
            self.left_out.duplicates += 1;
            return;
        }
        let result = match self.source {
            ResultSource::Lawful => row.effective(),
            ResultSource::Recorded => row.recorded,
        };
        let Some(outcome) = result else {
            self.left_out.unfinished += 1;
            return;
        };
        let (Some(white), Some(black)) = (row.white, row.black) else {
            self.left_out.no_opponent += 1;
            return;
        };
        let part = |v: Option<i64>| v.unwrap_or(0).clamp(0, 9999) as u32;
        let date = Date::new(
            part(row.year) as u16,
            part(row.month).min(12) as u8,
            part(row.day).min(31) as u8,
        );
        let w = self.person(white, row.white_elo, date);
        let b = self.person(black, row.black_elo, date);
        self.games.push(RatedGame {
            white: w,
            black: b,
            outcome,
            date,
            event: row.event_id.unwrap_or(0) as u32,
        });
    }

    /// The dense index of a person, noting its Elo tag when it is the earliest seen.
    fn person(&mut self, person: i64, tag: Option<i64>, date: Date) -> u32 {
        // A person id the players table lacks still gets an index (named #ID).
        let slot = match self.persons.binary_search_by_key(&person, |p| p.0) {
            Ok(k) => &mut self.index[k],
            Err(_) => self.strays.entry(person).or_insert(NONE),
        };
        if *slot == NONE {
            self.person_ids.push(person);
            self.tags.push((Date::new(u16::MAX, 0, 0), None));
            *slot = self.person_ids.len() as u32 - 1;
        }
        let i = *slot;
        let t = &mut self.tags[i as usize];
        if let Some(tag) = tag.filter(|&t| t > 0)
            && date < t.0
        {
            *t = (date, Some(tag as i32));
        }
        i
    }

    /// The selection; `rows_read`: how many rows the filter matched (the rest of the stored
    /// games were outside it).
    pub fn finish(self, rows_read: usize) -> Selection {
        let names = self
            .person_ids
            .iter()
            .map(|id| match self.persons.binary_search_by_key(id, |p| p.0) {
                Ok(k) => self.persons[k].1.clone(),
                Err(_) => format!("#{id}"),
            })
            .collect();
        let not_selected = self.left_out.stored.saturating_sub(rows_read);
        Selection {
            games: self.games,
            names,
            person_ids: self.person_ids,
            first_tag: self.tags.into_iter().map(|(_, t)| t).collect(),
            left_out: LeftOut {
                not_selected,
                ..self.left_out
            },
        }
    }
}

/// The games of a database the filter selects (`filter.unique`: each duplicate group once).
/// Duplicates are read and counted, not filtered in SQL, so the account covers every stored
/// game; only games with a White name are read (the `player_games` view's White rows).
pub fn select(
    conn: &Connection,
    filter: &Filter,
    source: ResultSource,
) -> rusqlite::Result<Selection> {
    let mut filter = filter.clone();
    let unique = std::mem::replace(&mut filter.unique, false);
    let stored = crate::db::persons::stored_games(conn)? as usize;
    let mut selector = Selector::new(persons_by_id(conn)?, stored, unique, source);
    let rows_read = scan::for_each_game(conn, &filter, true, Order::Id, |row| selector.add(row))?;
    Ok(selector.finish(rows_read as usize))
}

impl Selection {
    /// The games of Parquet files (`ratings --encounters`): nothing is stored, and every row
    /// read is either rated or counted.
    pub fn from_encounters(e: Encounters) -> Selection {
        let left_out = LeftOut {
            what: "games read",
            stored: e.games.len() + e.unfinished + e.duplicates,
            duplicates: e.duplicates,
            unfinished: e.unfinished,
            ..LeftOut::default()
        };
        Selection {
            games: e.games,
            names: e.names,
            person_ids: Vec::new(),
            first_tag: e.first_tag,
            left_out,
        }
    }

    /// The index of a person (players.id) among the selection's, if it played in it.
    pub fn index_of_person(&self, person_id: i64) -> Option<u32> {
        self.person_ids
            .iter()
            .position(|&p| p == person_id)
            .map(|i| i as u32)
    }

    /// The indices of the persons of this exact name (Parquet rows have no person ids).
    pub fn index_by_name(&self, name: &str) -> Vec<u32> {
        self.names
            .iter()
            .enumerate()
            .filter(|(_, n)| n.as_str() == name)
            .map(|(i, _)| i as u32)
            .collect()
    }

    /// Leaves out the games of players with fewer than `min` games, repeatedly (leaving a
    /// game out can take another player under `min`), as Ordo's and BayesElo's users prune a
    /// pool of passers-by; returns the number of games left out (also counted in `left_out`).
    pub fn min_games(&mut self, min: u32) -> usize {
        let before = self.games.len();
        loop {
            let (n, _) = super::tally(self.names.len(), &self.games);
            let kept = self.games.len();
            self.games
                .retain(|g| n[g.white as usize] >= min && n[g.black as usize] >= min);
            if self.games.len() == kept {
                break;
            }
        }
        let dropped = before - self.games.len();
        self.left_out.few_games += dropped;
        dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::scan::WhiteResult;

    fn row(id: i64, white: Option<i64>, black: Option<i64>, result: &str) -> GameRow {
        GameRow {
            id,
            white,
            black,
            recorded: WhiteResult::parse(result.as_bytes()),
            lawful_unset: true,
            lawful: None,
            year: Some(2020),
            month: Some(id.min(12)),
            day: None,
            white_elo: None,
            black_elo: None,
            event_id: Some(7),
            ply_count: 40,
            duplicate: false,
        }
    }

    fn persons() -> Vec<(i64, String)> {
        vec![
            (30, "Carol".into()),
            (10, "Alice".into()),
            (20, "Bob".into()),
        ]
    }

    #[test]
    fn persons_are_indexed_in_order_of_first_appearance() {
        let mut s = Selector::new(persons(), 3, true, ResultSource::Lawful);
        s.add(&row(1, Some(20), Some(30), "1-0"));
        s.add(&row(2, Some(10), Some(20), "0-1"));
        let sel = s.finish(2);
        assert_eq!(sel.names, ["Bob", "Carol", "Alice"]);
        assert_eq!(sel.person_ids, [20, 30, 10]);
        assert_eq!(sel.games.len(), 2);
        assert_eq!(
            (sel.games[1].white, sel.games[1].black, sel.games[1].outcome),
            (2, 0, WhiteResult::BlackWins)
        );
        assert_eq!(sel.games[0].date, Date::new(2020, 1, 0));
        assert_eq!(sel.games[0].event, 7);
        assert_eq!(sel.index_of_person(10), Some(2));
        assert_eq!(sel.index_of_person(99), None);
        // One stored game was outside the filter.
        assert_eq!(sel.left_out.not_selected, 1);
    }

    #[test]
    fn every_stored_game_is_accounted_for() {
        let mut s = Selector::new(persons(), 9, true, ResultSource::Lawful);
        s.add(&row(1, Some(10), Some(20), "1-0"));
        s.add(&row(2, Some(10), Some(20), "*"));
        s.add(&row(3, Some(10), None, "1-0"));
        let mut dup = row(4, Some(10), Some(20), "1-0");
        dup.duplicate = true;
        s.add(&dup);
        // A person id the players table lacks is named by its id.
        s.add(&row(5, Some(10), Some(99), "1/2-1/2"));
        let sel = s.finish(5);
        assert_eq!(sel.names, ["Alice", "Bob", "#99"]);
        let l = &sel.left_out;
        assert_eq!(
            (l.not_selected, l.unfinished, l.no_opponent, l.duplicates),
            (4, 1, 1, 1)
        );
        assert_eq!(
            l.accounting(2, &[("in groups left unrated", 0)]),
            "9 stored games: 2 rated, 4 outside the selection, 1 duplicate records (--all-games rates them), 1 unfinished, 1 without a Black player"
        );
        // --all-games rates the duplicate record too.
        let mut s = Selector::new(persons(), 1, false, ResultSource::Lawful);
        s.add(&dup);
        assert_eq!(s.finish(1).games.len(), 1);
    }

    #[test]
    fn lawful_or_recorded_result() {
        let mut r = row(1, Some(10), Some(20), "1-0");
        r.lawful_unset = false;
        r.lawful = Some(WhiteResult::Draw);
        let outcome = |source| {
            let mut s = Selector::new(persons(), 1, true, source);
            s.add(&r);
            s.finish(1).games[0].outcome
        };
        assert_eq!(outcome(ResultSource::Lawful), WhiteResult::Draw);
        assert_eq!(outcome(ResultSource::Recorded), WhiteResult::WhiteWins);
    }

    #[test]
    fn the_first_tag_is_the_earliest_dated_one() {
        let mut s = Selector::new(persons(), 3, true, ResultSource::Lawful);
        let mut late = row(5, Some(10), Some(20), "1-0");
        late.white_elo = Some(2500);
        let mut early = row(2, Some(20), Some(10), "1-0");
        early.black_elo = Some(2400);
        early.white_elo = Some(0); // no rating
        s.add(&late);
        s.add(&early);
        assert_eq!(s.finish(2).first_tag, [Some(2400), None]);
    }

    #[test]
    fn min_games_prunes_until_stable() {
        // Alice-Bob twice, Bob-Carol once: with 2 games each, Carol goes, and then Bob
        // still has his 2 games with Alice.
        let mut s = Selector::new(persons(), 3, true, ResultSource::Lawful);
        s.add(&row(1, Some(10), Some(20), "1-0"));
        s.add(&row(2, Some(20), Some(10), "1-0"));
        s.add(&row(3, Some(20), Some(30), "1-0"));
        let mut sel = s.finish(3);
        assert_eq!(sel.min_games(2), 1);
        assert_eq!(sel.games.len(), 2);
        assert_eq!(sel.left_out.few_games, 1);
        // With 3, Alice has 2: everything goes.
        assert_eq!(sel.min_games(3), 2);
        assert!(sel.games.is_empty());
    }
}
