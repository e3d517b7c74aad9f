//! The dossier of every person, built in one pass over `player_games` rows in date order: one
//! `Dossier` per person in a HashMap, each row touching only its own person's counters. Strings
//! that repeat (openings, ECO codes, time-control classes) are interned once for all persons.

use super::performance::PerformanceInput;
use super::row::{PlayerGame, PlayerScore};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Wins, draws, losses and unfinished games.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// `*` or no result: shown apart, never counted as losses.
    pub unfinished: u32,
}

impl Tally {
    pub fn add(&mut self, outcome: PlayerScore) {
        match outcome {
            PlayerScore::Win => self.wins += 1,
            PlayerScore::Draw => self.draws += 1,
            PlayerScore::Loss => self.losses += 1,
            PlayerScore::Unfinished => self.unfinished += 1,
        }
    }

    /// Finished games.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    pub fn score(&self) -> f64 {
        f64::from(self.wins) + f64::from(self.draws) / 2.0
    }

    /// Score as a fraction of the finished games.
    pub fn fraction(&self) -> Option<f64> {
        (self.games() > 0).then(|| self.score() / f64::from(self.games()))
    }
}

/// Interned strings shared by all dossiers.
#[derive(Debug, Default)]
pub struct Symbols {
    names: Vec<String>,
    ids: HashMap<String, u32>,
}

impl Symbols {
    pub fn intern(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(s.to_owned());
        self.ids.insert(s.to_owned(), id);
        id
    }

    pub fn name(&self, id: u32) -> &str {
        &self.names[id as usize]
    }
}

/// How a game ended, from the Laws' automatic ending, the Termination tag and the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ending {
    Checkmate,
    /// Decisive with no mate on the board and not on time: resignation (or adjudication).
    Resignation,
    Time,
    /// No move was played and the result is decisive.
    Forfeit,
    Stalemate,
    DeadPosition,
    Fivefold,
    SeventyFive,
    /// A draw where a threefold repetition could be claimed (Art. 9.2).
    ThreefoldClaimable,
    /// A draw where the fifty-move rule could be claimed (Art. 9.3).
    FiftyClaimable,
    /// Any other draw: by agreement (Art. 9.1), or a claim the record does not show.
    DrawAgreed,
    Unfinished,
}

impl Ending {
    pub const ALL: [Ending; 12] = [
        Ending::Checkmate,
        Ending::Resignation,
        Ending::Time,
        Ending::Forfeit,
        Ending::Stalemate,
        Ending::DeadPosition,
        Ending::Fivefold,
        Ending::SeventyFive,
        Ending::ThreefoldClaimable,
        Ending::FiftyClaimable,
        Ending::DrawAgreed,
        Ending::Unfinished,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Ending::Checkmate => "checkmate",
            Ending::Resignation => "resignation",
            Ending::Time => "time",
            Ending::Forfeit => "forfeit",
            Ending::Stalemate => "stalemate",
            Ending::DeadPosition => "dead position",
            Ending::Fivefold => "fivefold repetition",
            Ending::SeventyFive => "75-move rule",
            Ending::ThreefoldClaimable => "draw, threefold claimable",
            Ending::FiftyClaimable => "draw, fifty-move claimable",
            Ending::DrawAgreed => "draw, agreed",
            Ending::Unfinished => "unfinished",
        }
    }

    pub fn of(row: &PlayerGame) -> Ending {
        let outcome = row.outcome();
        if outcome == PlayerScore::Unfinished {
            return Ending::Unfinished;
        }
        match row.termination.as_deref() {
            Some("checkmate") => return Ending::Checkmate,
            Some("stalemate") => return Ending::Stalemate,
            Some("dead-position") => return Ending::DeadPosition,
            Some("fivefold") => return Ending::Fivefold,
            Some("seventy-five") => return Ending::SeventyFive,
            _ => {}
        }
        if outcome == PlayerScore::Draw {
            let within = |p: Option<u32>| p.is_some_and(|p| p <= row.ply_count);
            return if within(row.facts.threefold_ply) {
                Ending::ThreefoldClaimable
            } else if within(row.facts.fifty_ply) {
                Ending::FiftyClaimable
            } else {
                Ending::DrawAgreed
            };
        }
        if is_forfeit(row) {
            Ending::Forfeit
        } else if row.facts.on_time {
            Ending::Time
        } else {
            Ending::Resignation
        }
    }
}

/// A decisive game with no move played: recorded, counted in the results, but (as FIDE does)
/// left out of the performance.
pub fn is_forfeit(row: &PlayerGame) -> bool {
    row.ply_count == 0 && matches!(row.outcome(), PlayerScore::Win | PlayerScore::Loss)
}

/// Counts of the Laws audit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Audit {
    /// The recorded result differs from the one the Laws decide.
    pub unlawful_result: u32,
    /// The Termination tag says the game was decided on time.
    pub on_time: u32,
    /// An automatic ending (mate, stalemate, dead position, fivefold, 75 moves) came before the
    /// last recorded move.
    pub ended_earlier: u32,
}

/// A run of games in date order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Streak {
    pub length: u32,
    /// Date keys (YYYYMMDD, 0 for unknown parts) and game ids of its first and last games.
    pub from: u32,
    pub to: u32,
    pub first_game: i64,
    pub last_game: i64,
}

/// The current and longest streak of one kind.
#[derive(Debug, Clone, Copy, Default)]
struct StreakCounter {
    current: Streak,
    longest: Streak,
}

impl StreakCounter {
    fn step(&mut self, continues: bool, date: u32, game: i64) {
        if !continues {
            self.current.length = 0;
            return;
        }
        if self.current.length == 0 {
            self.current.from = date;
            self.current.first_game = game;
        }
        self.current.length += 1;
        self.current.to = date;
        self.current.last_game = game;
        if self.current.length > self.longest.length {
            self.longest = self.current;
        }
    }
}

/// Longest unbeaten, winning and losing streaks over finished dated games in date order
/// (unfinished and undated games neither extend nor break a streak).
#[derive(Debug, Clone, Copy, Default)]
pub struct Streaks {
    unbeaten: StreakCounter,
    winning: StreakCounter,
    losing: StreakCounter,
}

impl Streaks {
    fn add(&mut self, row: &PlayerGame) {
        let date = row.date_key();
        let outcome = row.outcome();
        if date == 0 || outcome == PlayerScore::Unfinished {
            return;
        }
        self.unbeaten
            .step(outcome != PlayerScore::Loss, date, row.game_id);
        self.winning
            .step(outcome == PlayerScore::Win, date, row.game_id);
        self.losing
            .step(outcome == PlayerScore::Loss, date, row.game_id);
    }

    pub fn unbeaten(&self) -> Streak {
        self.unbeaten.longest
    }
    pub fn winning(&self) -> Streak {
        self.winning.longest
    }
    pub fn losing(&self) -> Streak {
        self.losing.longest
    }
}

/// Game length buckets of 20 plies: 0–19, 20–39, …, 180–199, 200 and more.
pub const PLY_BUCKETS: usize = 11;
pub const PLY_BUCKET_WIDTH: u32 = 20;

/// The last rating tag of each month, in date order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RatingPoint {
    pub year: i32,
    pub month: u8,
    pub rating: i64,
}

/// Opening keys split by colour.
pub type ByColour = [Tally; 2];

/// Everything counted for one person over a selection.
#[derive(Debug, Clone, Default)]
pub struct Dossier {
    pub player_id: i64,
    pub total: Tally,
    pub by_colour: ByColour,
    /// By year (None: undated).
    pub by_year: BTreeMap<Option<i32>, Tally>,
    /// By time-control class (interned; None: not classified).
    pub by_tc: BTreeMap<Option<u32>, Tally>,
    /// By ECO code, opening family and full opening name (interned), each by colour.
    pub by_eco: HashMap<u32, ByColour>,
    pub by_family: HashMap<u32, ByColour>,
    pub by_opening: HashMap<u32, ByColour>,
    /// By the opponent's rating, in bands of 200 (lower bound; None: unrated).
    pub by_band: BTreeMap<Option<i64>, Tally>,
    pub audit: Audit,
    pub endings: BTreeMap<Ending, u32>,
    pub forfeits: u32,
    pub streaks: Streaks,
    pub plies: [u32; PLY_BUCKETS],
    pub ply_sum: u64,
    pub rating_history: Vec<RatingPoint>,
    pub opponents: HashMap<i64, Tally>,
    /// Games by spelling used (player_names.id).
    pub spellings: HashMap<i64, u32>,
    pub performance: PerformanceInput,
    /// Date keys of the first and last dated games.
    pub first: u32,
    pub last: u32,
    /// The events (event id, year) of the counted games: the dossier's events section lists
    /// these only.
    pub events: BTreeSet<(i64, Option<i64>)>,
}

impl Dossier {
    pub fn new(player_id: i64) -> Dossier {
        Dossier {
            player_id,
            ..Dossier::default()
        }
    }

    /// Counts one row of this person. Rows must come in date order for the streaks and the
    /// rating history to be right.
    pub fn add(&mut self, row: &PlayerGame, symbols: &mut Symbols) {
        let outcome = row.outcome();
        let c = row.colour.index();
        self.total.add(outcome);
        self.by_colour[c].add(outcome);
        self.by_year.entry(row.year).or_default().add(outcome);
        let tc = row.tc_class.as_deref().map(|s| symbols.intern(s));
        self.by_tc.entry(tc).or_default().add(outcome);
        for (key, map) in [
            (&row.eco, &mut self.by_eco),
            (&row.opening_family, &mut self.by_family),
            (&row.opening, &mut self.by_opening),
        ] {
            if let Some(k) = key {
                map.entry(symbols.intern(k)).or_default()[c].add(outcome);
            }
        }
        let band = row.opponent_rating.map(|r| r.div_euclid(200) * 200);
        self.by_band.entry(band).or_default().add(outcome);
        if row.recorded_score != row.score {
            self.audit.unlawful_result += 1;
        }
        if row.facts.on_time {
            self.audit.on_time += 1;
        }
        if row.facts.termination_ply.is_some_and(|t| t < row.ply_count) {
            self.audit.ended_earlier += 1;
        }
        *self.endings.entry(Ending::of(row)).or_default() += 1;
        let forfeit = is_forfeit(row);
        self.forfeits += u32::from(forfeit);
        self.streaks.add(row);
        let bucket = (row.ply_count / PLY_BUCKET_WIDTH).min(PLY_BUCKETS as u32 - 1);
        self.plies[bucket as usize] += 1;
        self.ply_sum += u64::from(row.ply_count);
        if let (Some(year), Some(rating)) = (row.year, row.rating) {
            let month = row.month.unwrap_or(0);
            match self.rating_history.last_mut() {
                Some(p) if p.year == year && p.month == month => p.rating = rating,
                _ => self.rating_history.push(RatingPoint {
                    year,
                    month,
                    rating,
                }),
            }
        }
        if let Some(o) = row.opponent_id {
            self.opponents.entry(o).or_default().add(outcome);
        }
        *self.spellings.entry(row.name_id).or_default() += 1;
        if let (Some(points), Some(opp)) = (outcome.points(), row.opponent_rating)
            && !forfeit
            && let Ok(opp) = u16::try_from(opp)
        {
            let own = row.rating.and_then(|r| u16::try_from(r).ok());
            self.performance.add(points, own, opp);
        }
        if let Some(event) = row.event_id {
            self.events.insert((event, row.year.map(i64::from)));
        }
        let date = row.date_key();
        if date != 0 {
            if self.first == 0 || date < self.first {
                self.first = date;
            }
            self.last = self.last.max(date);
        }
    }

    /// Opponents by games played (most first, then by id).
    pub fn top_opponents(&self, n: usize) -> Vec<(i64, Tally)> {
        let mut v: Vec<(i64, Tally)> = self.opponents.iter().map(|(&k, &t)| (k, t)).collect();
        v.sort_by_key(|&(id, t)| (std::cmp::Reverse(t.games() + t.unfinished), id));
        v.truncate(n);
        v
    }
}

/// Which rows to count.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Count every record, duplicates included.
    pub all_games: bool,
    /// Only these persons (None: everyone).
    pub persons: Option<Vec<i64>>,
    /// Only games against this person (head-to-head).
    pub opponent: Option<i64>,
}

/// All dossiers of one pass.
#[derive(Debug, Default)]
pub struct Stats {
    pub dossiers: HashMap<i64, Dossier>,
    pub symbols: Symbols,
    pub selection: Selection,
    /// Rows read, and rows left out as duplicates.
    pub rows: u64,
    pub duplicates_skipped: u64,
}

impl Stats {
    pub fn new(selection: Selection) -> Stats {
        Stats {
            selection,
            ..Stats::default()
        }
    }

    pub fn add(&mut self, row: &PlayerGame) {
        if let Some(p) = &self.selection.persons
            && !p.contains(&row.player_id)
        {
            return;
        }
        if let Some(o) = self.selection.opponent
            && row.opponent_id != Some(o)
        {
            return;
        }
        self.rows += 1;
        if row.duplicate && !self.selection.all_games {
            self.duplicates_skipped += 1;
            return;
        }
        self.dossiers
            .entry(row.player_id)
            .or_insert_with(|| Dossier::new(row.player_id))
            .add(row, &mut self.symbols);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::laws::result::WhiteResult;
    use crate::stats::row::Colour;

    /// A game between two persons as the view gives it: one row per side.
    fn game(
        id: i64,
        white: i64,
        black: i64,
        result: &str,
        date: Date,
        elo: (Option<i64>, Option<i64>),
        plies: u32,
    ) -> [PlayerGame; 2] {
        let white_score = WhiteResult::of(Some(result)).map(WhiteResult::white_score);
        let side = |colour: Colour| {
            let (me, them, mine, theirs, score) = match colour {
                Colour::White => (white, black, elo.0, elo.1, white_score),
                Colour::Black => (black, white, elo.1, elo.0, white_score.map(|s| 1.0 - s)),
            };
            let mut r = PlayerGame::new(id, me, colour);
            r.opponent_id = Some(them);
            r.opponent_name_id = Some(them);
            r.rating = mine;
            r.opponent_rating = theirs;
            r.result = Some(result.to_owned());
            r.score = score;
            r.recorded_score = score;
            (r.year, r.month, r.day) = date;
            r.ply_count = plies;
            r
        };
        [side(Colour::White), side(Colour::Black)]
    }

    fn run(rows: &[PlayerGame]) -> Stats {
        let mut s = Stats::new(Selection::default());
        for r in rows {
            s.add(r);
        }
        s
    }

    /// A game's (year, month, day) as the view gives them.
    type Date = (Option<i32>, Option<u8>, Option<u8>);
    const D: fn(i32, u8, u8) -> Date = |y, m, d| (Some(y), Some(m), Some(d));
    const NO_DATE: Date = (None, None, None);

    #[test]
    fn self_game_counts_once_per_colour() {
        // Person 1 plays himself and wins with White, then beats person 2.
        let mut rows = Vec::new();
        rows.extend(game(
            1,
            1,
            1,
            "1-0",
            D(2020, 1, 1),
            (Some(2000), Some(2000)),
            40,
        ));
        rows.extend(game(
            2,
            1,
            2,
            "1-0",
            D(2020, 1, 2),
            (Some(2000), Some(1800)),
            50,
        ));
        let s = run(&rows);
        let p = &s.dossiers[&1];
        assert_eq!(
            p.total,
            Tally {
                wins: 2,
                draws: 0,
                losses: 1,
                unfinished: 0
            }
        );
        assert_eq!(p.by_colour[0].wins, 2);
        assert_eq!(p.by_colour[1].losses, 1);
        assert_eq!(p.opponents[&1].games(), 2);
        assert_eq!(p.opponents[&2].games(), 1);
        assert_eq!(s.dossiers[&2].total.losses, 1);
        // Against himself: 1/2, rated 2000 both times, plus the win over 1800.
        let perf = p.performance.summary().unwrap();
        assert_eq!(perf.games, 3);
        assert_eq!(format!("{:.2}", perf.average_opponent), "1933.33");
        assert_eq!(perf.fide, 1933 + 125); // p = 0.67 → dp 125
    }

    #[test]
    fn unfinished_games_are_apart_and_forfeits_leave_the_performance() {
        let mut rows = Vec::new();
        rows.extend(game(
            1,
            1,
            2,
            "*",
            D(2021, 5, 1),
            (Some(2100), Some(2000)),
            30,
        ));
        rows.extend(game(
            2,
            1,
            2,
            "1-0",
            D(2021, 5, 2),
            (Some(2100), Some(2000)),
            0,
        ));
        rows.extend(game(
            3,
            2,
            1,
            "1/2-1/2",
            D(2021, 5, 3),
            (Some(2000), Some(2100)),
            61,
        ));
        let s = run(&rows);
        let p = &s.dossiers[&1];
        assert_eq!(
            p.total,
            Tally {
                wins: 1,
                draws: 1,
                losses: 0,
                unfinished: 1
            }
        );
        assert_eq!(p.total.score(), 1.5);
        assert_eq!(p.forfeits, 1);
        assert_eq!(p.endings[&Ending::Forfeit], 1);
        assert_eq!(p.endings[&Ending::Unfinished], 1);
        assert_eq!(p.endings[&Ending::DrawAgreed], 1);
        let perf = p.performance.summary().unwrap();
        assert_eq!((perf.games, perf.score, perf.fide), (1, 0.5, 2000));
        assert_eq!(s.dossiers[&2].total.unfinished, 1);
        assert_eq!(s.dossiers[&2].total.losses, 1);
    }

    #[test]
    fn unknown_dates_and_missing_ratings() {
        let mut rows = Vec::new();
        rows.extend(game(1, 1, 2, "1-0", NO_DATE, (None, None), 40));
        rows.extend(game(
            2,
            1,
            2,
            "1-0",
            (Some(1999), None, None),
            (Some(2300), None),
            40,
        ));
        rows.extend(game(3, 1, 2, "0-1", D(1999, 3, 4), (None, Some(2200)), 40));
        rows.extend(game(
            4,
            1,
            2,
            "1-0",
            D(2000, 1, 1),
            (Some(2310), Some(2200)),
            40,
        ));
        let s = run(&rows);
        let p = &s.dossiers[&1];
        assert_eq!(p.total.games(), 4);
        assert_eq!(p.by_year[&None].wins, 1);
        assert_eq!(p.by_year[&Some(1999)].games(), 2);
        assert_eq!(p.by_band[&None].games(), 2);
        assert_eq!(p.by_band[&Some(2200)].games(), 2);
        // Performance: the two games against the 2200 opponent (1/2).
        let perf = p.performance.summary().unwrap();
        assert_eq!((perf.games, perf.fide), (2, 2200));
        // Expected only where both were rated: game 4, 2310 v 2200.
        let e = perf.expected.unwrap();
        assert_eq!((e.games, e.actual), (1, 1.0));
        assert_eq!(format!("{:.4}", e.expected), "0.6532");
        // Undated game 1 is left out of streaks: W(1999.??.??) L W.
        assert_eq!(p.streaks.winning().length, 1);
        assert_eq!(p.streaks.unbeaten().from, 19_990_000);
        assert_eq!(p.streaks.losing().length, 1);
        assert_eq!((p.first, p.last), (19_990_000, 20_000_101));
        assert_eq!(
            p.rating_history,
            vec![
                RatingPoint {
                    year: 1999,
                    month: 0,
                    rating: 2300
                },
                RatingPoint {
                    year: 2000,
                    month: 1,
                    rating: 2310
                }
            ]
        );
    }

    #[test]
    fn colours_add_up_and_streaks_follow_date_order() {
        let results = [
            "1-0", "1-0", "1/2-1/2", "1-0", "0-1", "0-1", "1/2-1/2", "1-0", "*",
        ];
        let mut rows = Vec::new();
        for (i, r) in results.iter().enumerate() {
            let (w, b) = if i % 2 == 0 { (1, 2) } else { (2, 1) };
            // Person 1's view: results are White's, so flip for odd games.
            let r = match (i % 2, *r) {
                (1, "1-0") => "0-1",
                (1, "0-1") => "1-0",
                (_, r) => r,
            };
            rows.extend(game(
                i as i64 + 1,
                w,
                b,
                r,
                D(2022, 1, i as u8 + 1),
                (None, None),
                20 * i as u32,
            ));
        }
        let s = run(&rows);
        for d in s.dossiers.values() {
            let sum = |f: fn(&Tally) -> u32| f(&d.by_colour[0]) + f(&d.by_colour[1]);
            assert_eq!(sum(|t| t.wins), d.total.wins);
            assert_eq!(sum(|t| t.draws), d.total.draws);
            assert_eq!(sum(|t| t.losses), d.total.losses);
            assert_eq!(sum(|t| t.unfinished), d.total.unfinished);
            assert_eq!(d.plies.iter().sum::<u32>(), 9);
        }
        let p = &s.dossiers[&1];
        // Person 1: W W D W L L D W *.
        assert_eq!(
            p.total,
            Tally {
                wins: 4,
                draws: 2,
                losses: 2,
                unfinished: 1
            }
        );
        assert_eq!(p.streaks.unbeaten().length, 4);
        assert_eq!(
            (
                p.streaks.unbeaten().first_game,
                p.streaks.unbeaten().last_game
            ),
            (1, 4)
        );
        assert_eq!(p.streaks.winning().length, 2);
        assert_eq!(p.streaks.losing().length, 2);
        assert_eq!(
            (p.streaks.losing().from, p.streaks.losing().to),
            (20_220_105, 20_220_106)
        );
        assert_eq!(p.plies[0], 1);
        assert_eq!(p.plies[8], 1);
        assert_eq!(p.ply_sum, 720);
        assert_eq!(p.top_opponents(1)[0].0, 2);
    }

    #[test]
    fn duplicates_count_once_unless_all_games() {
        let mut rows = Vec::new();
        rows.extend(game(1, 1, 2, "1-0", D(2020, 1, 1), (None, None), 40));
        let mut dup = game(2, 1, 2, "1-0", D(2020, 1, 1), (None, None), 40);
        dup.iter_mut().for_each(|r| r.duplicate = true);
        rows.extend(dup);
        assert_eq!(run(&rows).dossiers[&1].total.wins, 1);
        assert_eq!(run(&rows).duplicates_skipped, 2);
        let mut all = Stats::new(Selection {
            all_games: true,
            ..Selection::default()
        });
        rows.iter().for_each(|r| all.add(r));
        assert_eq!(all.dossiers[&1].total.wins, 2);
    }

    #[test]
    fn laws_audit_and_endings() {
        let [mut w, mut b] = game(1, 1, 2, "1-0", D(2020, 1, 1), (None, None), 41);
        // Recorded 1-0, but the Laws saw stalemate at ply 39: a draw, and moves after the end.
        for r in [&mut w, &mut b] {
            r.score = Some(0.5);
            r.termination = Some("stalemate".into());
            r.facts.termination_ply = Some(39);
        }
        let [mut tw, mut tb] = game(2, 1, 2, "0-1", D(2020, 1, 2), (None, None), 60);
        tw.facts.on_time = true;
        tb.facts.on_time = true;
        let mate = game(3, 2, 1, "1-0", D(2020, 1, 3), (None, None), 33).map(|mut r| {
            r.termination = Some("checkmate".into());
            r.facts.termination_ply = Some(33);
            r
        });
        let mut rows = vec![w, b, tw, tb];
        rows.extend(mate);
        let s = run(&rows);
        let p = &s.dossiers[&1];
        assert_eq!(
            p.audit,
            Audit {
                unlawful_result: 1,
                on_time: 1,
                ended_earlier: 1
            }
        );
        assert_eq!(
            p.total,
            Tally {
                wins: 0,
                draws: 1,
                losses: 2,
                unfinished: 0
            }
        );
        assert_eq!(p.endings[&Ending::Stalemate], 1);
        assert_eq!(p.endings[&Ending::Time], 1);
        assert_eq!(p.endings[&Ending::Checkmate], 1);
    }
}
