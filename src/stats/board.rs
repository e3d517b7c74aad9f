//! The leaderboard of `stats players` in one pass over `scan`'s compact games: per person only
//! what the board prints (results overall and by colour, the performance input, first and last
//! dates), in a Vec indexed by person id, instead of a whole dossier per person. The counting
//! rules are the dossier's (`dossier::Dossier::add`), so both give the same row for a person.

use super::analysis::Summary;
use super::dossier::{ByColour, Tally};
use super::performance::PerformanceInput;
use super::report::{LeaderRow, SortBy, sort_leaderboard};
use super::row::{Colour, PlayerScore};
use super::scan::{self, GameRow, Order};
use crate::db::directory::Directory;
use crate::db::query::select::Filter;
use rusqlite::Connection;
use std::collections::HashMap;

/// One person's counters.
#[derive(Debug, Clone, Default)]
pub struct Entry {
    pub total: Tally,
    pub by_colour: ByColour,
    pub performance: PerformanceInput,
    /// Date keys (YYYYMMDD, 0 for unknown parts) of the first and last dated games.
    pub first: u32,
    pub last: u32,
}

/// Every person's counters over a selection, and what was read.
#[derive(Debug, Default)]
pub struct Board {
    /// Indexed by person id (players.id); None for persons without a row in the selection.
    pub entries: Vec<Option<Entry>>,
    /// Persons whose id does not fit the dense Vec (negative or far beyond the others).
    pub sparse: HashMap<i64, Entry>,
    /// Count every record, duplicates included.
    pub all_games: bool,
    /// Rows of `player_games` read (a side of a game with a named person), and those left
    /// out as duplicate records.
    pub rows: u64,
    pub duplicates_skipped: u64,
}

/// A date key from the parts SQLite stores (0 when the year is unknown), as
/// `PlayerGame::date_key` computes it.
pub fn date_key(year: Option<i64>, month: Option<i64>, day: Option<i64>) -> u32 {
    match year {
        Some(y) if y > 0 => {
            y as u32 * 10_000 + month.unwrap_or(0) as u32 * 100 + day.unwrap_or(0) as u32
        }
        _ => 0,
    }
}

impl Board {
    /// A board for persons whose ids are at most `max_id` (others are kept aside).
    pub fn new(max_id: i64, all_games: bool) -> Board {
        Board {
            entries: vec![None; usize::try_from(max_id.max(-1) + 1).unwrap_or(0)],
            all_games,
            ..Board::default()
        }
    }

    fn entry(&mut self, person: i64) -> &mut Entry {
        match usize::try_from(person)
            .ok()
            .filter(|&i| i < self.entries.len())
        {
            Some(i) => self.entries[i].get_or_insert_with(Entry::default),
            None => self.sparse.entry(person).or_default(),
        }
    }

    /// Counts both sides of one game (White first), as `Stats::add` counts its two rows.
    pub fn add(&mut self, game: &GameRow) {
        let white = game.effective().map(|r| r.white_score());
        let date = date_key(game.year, game.month, game.day);
        let sides = [
            (
                Colour::White,
                game.white,
                game.white_elo,
                game.black_elo,
                white,
            ),
            (
                Colour::Black,
                game.black,
                game.black_elo,
                game.white_elo,
                white.map(|s| 1.0 - s),
            ),
        ];
        for (colour, me, mine, theirs, score) in sides {
            let Some(me) = me else { continue };
            self.rows += 1;
            if game.duplicate && !self.all_games {
                self.duplicates_skipped += 1;
                continue;
            }
            let outcome = PlayerScore::from_score(score);
            let e = self.entry(me);
            e.total.add(outcome);
            e.by_colour[colour.index()].add(outcome);
            // A forfeit (a decisive game with no move) stays out of the performance.
            let forfeit =
                game.ply_count == 0 && matches!(outcome, PlayerScore::Win | PlayerScore::Loss);
            if let (Some(points), Some(opp)) = (outcome.points(), theirs)
                && !forfeit
                && let Ok(opp) = u16::try_from(opp)
            {
                let own = mine.and_then(|r| u16::try_from(r).ok());
                e.performance.add(points, own, opp);
            }
            if date != 0 {
                if e.first == 0 || date < e.first {
                    e.first = date;
                }
                e.last = e.last.max(date);
            }
        }
    }

    /// The leaderboard rows, sorted; `analysis`: the persons' summaries over the same
    /// selection (`analysis::summarise`).
    pub fn rows(
        &self,
        dir: &Directory,
        sort: SortBy,
        analysis: &HashMap<i64, Summary>,
    ) -> Vec<LeaderRow> {
        let dense = self
            .entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| Some((i as i64, e.as_ref()?)));
        let sparse = self.sparse.iter().map(|(p, e)| (*p, e));
        let mut rows: Vec<LeaderRow> = dense
            .chain(sparse)
            .map(|(p, e)| {
                LeaderRow::from_parts(
                    p,
                    &e.total,
                    &e.by_colour,
                    &e.performance,
                    (e.first, e.last),
                    analysis.get(&p),
                    dir,
                )
            })
            .collect();
        sort_leaderboard(&mut rows, sort);
        rows
    }
}

/// The one pass of `stats players`: the selected games in date order (so each person's sums
/// add up in the order the dossiers add them) into a board.
pub fn collect(
    conn: &Connection,
    dir: &Directory,
    filter: &Filter,
    all_games: bool,
) -> rusqlite::Result<Board> {
    let max_id = dir.persons.keys().copied().max().unwrap_or(0);
    // Ids far beyond the number of persons go to the sparse list instead of a huge Vec.
    let dense_limit = 4 * dir.persons.len() as i64 + 1024;
    let mut board = Board::new(max_id.min(dense_limit), all_games);
    scan::for_each_game(conn, filter, false, Order::Date, |g| board.add(g))?;
    Ok(board)
}
