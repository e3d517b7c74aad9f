//! FIDE Elo, period by period, as the FIDE Rating Regulations (Handbook B.02) say: expected
//! scores from table 8.1.2, the 400-point rule, K factors, K·n ≤ 700 in a period, rounding, and
//! initial ratings for unrated players. Rule sets are versioned so older lists can be redone.
//!
//! What the data cannot say is left out and documented (docs/RATINGS.md): players' ages (the K = 40
//! of juniors), event boundaries for the 26-month window of an initial rating, and the rating of
//! a game against an unrated opponent for the rated player (not rated here).

use super::fide_table::{expected_score, rating_difference};
use super::period::{Idle, PeriodRule};
use super::period::{PERIOD, report};
use super::system::{Context, Kind, Param, RateError, Report, System, Values};

/// Which regulations: the rules in force from July 2014, from 1 March 2024, and from
/// 1 October 2025 (the 400-point rule no longer applies to players rated 2650 and above).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rules {
    R2014,
    R2024,
    R2025,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub rules: Rules,
    /// A K factor for everyone instead of the regulations' 40 / 20 / 10.
    pub k: Option<u32>,
}

/// A player's standing: rated or not, and what counts toward the K factor or a first rating.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct EloState {
    pub rating: Option<i32>,
    /// Rated games so far (the K = 40 of a player new to the list lasts 30 games).
    pub games: u32,
    /// Once the rating has reached 2400, K stays 10 (Art. 8.3.3).
    pub reached_2400: bool,
    /// An unrated player's games against rated opponents, waiting for a first rating.
    pub pending_games: u32,
    pub pending_opponents: i64,
    pub pending_half_points: u32,
}

/// The rule's K for a player at the start of a period, before the K·n ≤ 700 limit.
pub fn k_factor(state: &EloState, rating: i32) -> u32 {
    if state.games < 30 {
        40
    } else if rating < 2400 && !state.reached_2400 {
        20
    } else {
        10
    }
}

/// K·n ≤ 700 within a rating period: K becomes the largest whole number that keeps the product
/// within 700 (Art. 8.3.3 of the 2024 regulations; in force since July 2014).
pub fn limit_k(k: u32, games: u32) -> u32 {
    if games > 0 && k * games > 700 {
        700 / games
    } else {
        k
    }
}

/// The expected score (hundredths) of a player rated `own` against `opponent`: table 8.1.2, with
/// a difference of more than 400 points counted as 400 (Art. 8.3.1), except, from 1 October 2025,
/// for a player rated 2650 or more.
pub fn expected_hundredths(rules: Rules, own: i32, opponent: i32) -> i32 {
    let mut diff = own - opponent;
    if !(rules >= Rules::R2025 && own >= 2650) {
        diff = diff.clamp(-400, 400);
    }
    (expected_score(diff) * 100.0).round() as i32
}

/// A number of hundredths of rating points rounded to a whole number, 0.5 up.
fn round_hundredths(x: i64) -> i32 {
    (x + 50).div_euclid(100) as i32
}

/// The rating change of a rated player over one period: (K used, change).
pub fn rating_change(rules: Rules, k: u32, own: i32, games: &[(i32, f64)]) -> (u32, i32) {
    let k = limit_k(k, games.len() as u32);
    let sum: i64 = games
        .iter()
        .map(|&(opp, score)| {
            i64::from((score * 100.0).round() as i32 - expected_hundredths(rules, own, opp))
        })
        .sum();
    (k, round_hundredths(i64::from(k) * sum))
}

/// The lowest rating published: 1000 from 2014, 1400 from 1 March 2024.
pub fn floor(rules: Rules) -> i32 {
    if rules >= Rules::R2024 { 1400 } else { 1000 }
}

/// A first rating from games against rated opponents (at least five are needed), or None when
/// it falls below the floor. From 1 March 2024 two hypothetical draws against opponents rated
/// 1800 are added, Ru = Ra + dp (table 8.1.1) and Ru is capped at 2200. Under the 2014 rules,
/// Ru = Ra + dp below 50 %, Ra + 20 per half point above 50 % otherwise.
pub fn initial_rating(
    rules: Rules,
    games: u32,
    opponents_sum: i64,
    half_points: u32,
) -> Option<i32> {
    if games < 5 {
        return None;
    }
    let (n, sum, halves) = if rules >= Rules::R2024 {
        (games + 2, opponents_sum + 3600, half_points + 2)
    } else {
        (games, opponents_sum, half_points)
    };
    let ra = sum as f64 / f64::from(n);
    let p = f64::from(halves) / 2.0 / f64::from(n);
    let ru = if rules < Rules::R2024 && halves >= n {
        ra + 20.0 * f64::from(halves - n)
    } else {
        ra + f64::from(rating_difference(p))
    };
    let mut ru = (ru + 0.5).floor() as i32;
    if rules >= Rules::R2024 {
        ru = ru.min(2200);
    }
    (ru >= floor(rules)).then_some(ru)
}

/// FIDE Elo as a period system; `start` holds ratings known before the first game (e.g. the
/// players' first Elo tags), whose holders are taken as established (K 20 or 10).
pub struct Rule {
    pub settings: Settings,
    pub start: Vec<Option<i32>>,
}

/// The one-time raise of 1 March 2024: a rating between 1000 and 2000 gains 0.4 · (2000 − R).
fn adjust_march_2024(rating: i32) -> i32 {
    if (1000..2000).contains(&rating) {
        rating + round_hundredths(i64::from(2000 - rating) * 40)
    } else {
        rating
    }
}

impl PeriodRule for Rule {
    type State = EloState;

    fn initial(&self, player: u32) -> EloState {
        let rating = self.start.get(player as usize).copied().flatten();
        EloState {
            rating,
            games: if rating.is_some() { 30 } else { 0 },
            reached_2400: rating.is_some_and(|r| r >= 2400),
            ..EloState::default()
        }
    }

    fn idle(&self, s: EloState, idle: Idle) -> EloState {
        const MARCH_2024: u32 = 202_403;
        let crosses = idle.from < MARCH_2024 && idle.to >= MARCH_2024;
        match s.rating {
            Some(r) if crosses && self.settings.rules >= Rules::R2024 => EloState {
                rating: Some(adjust_march_2024(r)),
                ..s
            },
            _ => s,
        }
    }

    fn update(&self, s: &EloState, games: &[(EloState, f64)]) -> EloState {
        let rules = self.settings.rules;
        let rated: Vec<(i32, f64)> = games
            .iter()
            .filter_map(|(opp, score)| opp.rating.map(|r| (r, *score)))
            .collect();
        let mut next = *s;
        match s.rating {
            Some(own) => {
                if rated.is_empty() {
                    return next;
                }
                let k = self.settings.k.unwrap_or_else(|| k_factor(s, own));
                let (_, change) = rating_change(rules, k, own, &rated);
                let new = own + change;
                next.games += rated.len() as u32;
                next.reached_2400 |= new >= 2400;
                next.rating = Some(new);
                if new < floor(rules) {
                    // Below the floor a player is listed as unrated again.
                    next = EloState::default();
                }
            }
            None => {
                for (opp, score) in &rated {
                    next.pending_games += 1;
                    next.pending_opponents += i64::from(*opp);
                    next.pending_half_points += (score * 2.0).round() as u32;
                }
                // A first event without a point does not count (Art. 7.1.2).
                if next.pending_half_points == 0 {
                    return EloState::default();
                }
                if let Some(ru) = initial_rating(
                    rules,
                    next.pending_games,
                    next.pending_opponents,
                    next.pending_half_points,
                ) {
                    next = EloState {
                        rating: Some(ru),
                        games: next.pending_games,
                        reached_2400: ru >= 2400,
                        ..EloState::default()
                    };
                }
            }
        }
        next
    }

    fn published(&self, s: &EloState) -> Option<(f64, Option<f64>, Option<f64>)> {
        s.rating.map(|r| (f64::from(r), None, None))
    }
}

/// `--system elo`.
pub struct Elo;

const RULES: Param = Param {
    key: "rules",
    flag: "rules",
    help: "which FIDE Rating Regulations: those from July 2014, 1 March 2024 or 1 October 2025",
    default: Some("2025"),
    kind: Kind::Choice(&["2014", "2024", "2025"]),
};
const K: Param = Param {
    key: "k",
    flag: "k",
    help: "one K factor for everyone instead of 40 / 20 / 10 (K·n ≤ 700 still applies)",
    default: None,
    kind: Kind::Count,
};
const START: Param = Param {
    key: "start",
    flag: "start",
    help: "starting ratings: tags (each player's first Elo tag in the selection, else unrated) or unrated (everyone)",
    default: Some("tags"),
    kind: Kind::Choice(&["tags", "unrated"]),
};

impl System for Elo {
    fn name(&self) -> &'static str {
        "elo"
    }

    fn about(&self) -> &'static str {
        "FIDE Elo, period by period"
    }

    fn params(&self) -> &'static [Param] {
        &[RULES, K, START, PERIOD]
    }

    fn run(&self, values: &Values, cx: &Context) -> Result<Report, RateError> {
        let rule = Rule {
            settings: Settings {
                rules: match values.text(&RULES) {
                    Some("2014") => Rules::R2014,
                    Some("2024") => Rules::R2024,
                    _ => Rules::R2025,
                },
                k: values
                    .integer(&K)?
                    .map(|k| k.min(u64::from(u32::MAX)) as u32),
            },
            start: match values.text(&START) {
                Some("unrated") => Vec::new(),
                _ => cx.selection.first_tag.clone(),
            },
        };
        Ok(report(&rule, values, cx))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::ratings::period::{History, PeriodKind, drive};
    use crate::stats::ratings::{Date, RatedGame, WhiteResult};

    /// R1: rated 2000, K 20: beats 2100, draws 1950, loses to 2450, beats 1500, draws 2000.
    #[test]
    fn r1_period_change() {
        let games = [
            (2100, 1.0),
            (1950, 0.5),
            (2450, 0.0),
            (1500, 1.0),
            (2000, 0.5),
        ];
        let sum: i32 = games
            .iter()
            .map(|&(o, s)| (s * 100.0) as i32 - expected_hundredths(Rules::R2024, 2000, o))
            .sum();
        assert_eq!(sum, 57);
        assert_eq!(rating_change(Rules::R2024, 20, 2000, &games), (20, 11));
        assert_eq!(rating_change(Rules::R2014, 20, 2000, &games), (20, 11));
        let rule = Rule {
            settings: Settings {
                rules: Rules::R2024,
                k: None,
            },
            start: vec![],
        };
        let established = EloState {
            rating: Some(2000),
            games: 100,
            ..EloState::default()
        };
        let opp = |r| EloState {
            rating: Some(r),
            games: 100,
            ..EloState::default()
        };
        let list: Vec<_> = games.iter().map(|&(o, s)| (opp(o), s)).collect();
        assert_eq!(rule.update(&established, &list).rating, Some(2011));
    }

    /// R2: the 400-point rule, and its end for players rated 2650+ from 1 October 2025.
    #[test]
    fn r2_four_hundred_point_rule() {
        assert_eq!(expected_hundredths(Rules::R2024, 2700, 1800), 92);
        // 10 × (1 − 0.92) = +0.8.
        let sum = 100 - expected_hundredths(Rules::R2024, 2700, 1800);
        assert_eq!(10 * sum, 80);
        assert_eq!(expected_hundredths(Rules::R2014, 2700, 1800), 92);
        assert_eq!(expected_hundredths(Rules::R2025, 2700, 1800), 100);
        assert_eq!(100 - expected_hundredths(Rules::R2025, 2700, 1800), 0);
        // Below 2650 the rule still applies in 2025, for the lower rated too.
        assert_eq!(expected_hundredths(Rules::R2025, 2600, 1800), 92);
        assert_eq!(expected_hundredths(Rules::R2025, 1800, 2700), 8);
        assert_eq!(
            rating_change(Rules::R2025, 10, 2700, &[(1800, 1.0)]),
            (10, 0)
        );
        assert_eq!(
            rating_change(Rules::R2024, 10, 2700, &[(1800, 1.0)]),
            (10, 1)
        );
    }

    /// R3: K·n ≤ 700 within a period.
    #[test]
    fn r3_k_times_n_at_most_700() {
        assert_eq!(limit_k(20, 40), 17);
        assert_eq!(limit_k(40, 18), 38);
        assert_eq!(limit_k(40, 17), 40);
        assert_eq!(limit_k(10, 70), 10);
    }

    #[test]
    fn k_factors_40_20_10() {
        let s = |games, reached_2400| EloState {
            games,
            reached_2400,
            ..EloState::default()
        };
        assert_eq!(k_factor(&s(29, false), 2500), 40);
        assert_eq!(k_factor(&s(30, false), 2399), 20);
        assert_eq!(k_factor(&s(30, false), 2400), 10);
        assert_eq!(k_factor(&s(30, true), 2350), 10);
    }

    /// R4: initial ratings from 1 March 2024 (two hypothetical draws against 1800, cap 2200).
    #[test]
    fn r4_initial_ratings() {
        // 5 games, 3 points against 1800s: with the two draws 4/7 against 1800 -> 1850.
        assert_eq!(initial_rating(Rules::R2024, 5, 5 * 1800, 6), Some(1850));
        // 5/5 against 2000..2400: Ra 2085.7 + dp(6/7 = 0.86) 309 = 2395, capped at 2200.
        let sum = 2000 + 2100 + 2200 + 2300 + 2400;
        let uncapped = 14_600.0 / 7.0 + f64::from(rating_difference(6.0 / 7.0));
        assert_eq!((uncapped + 0.5).floor(), 2395.0);
        assert_eq!(initial_rating(Rules::R2024, 5, sum, 10), Some(2200));
        // Floor: 0.5/5 against 1400s -> Ra 1485.7, p 1.5/7 (0.21) dp −230: 1256 < 1400.
        assert_eq!(initial_rating(Rules::R2024, 5, 5 * 1400, 1), None);
        // Four games are not enough.
        assert_eq!(initial_rating(Rules::R2024, 4, 4 * 1800, 8), None);
        // 2014: 5/5 against 2000..2400 = 2200 + 20 per half point above 50 % (5) = 2300.
        assert_eq!(initial_rating(Rules::R2014, 5, sum, 10), Some(2300));
        // 2014 below 50 %: 2/5 against 1800 -> 1800 + dp(0.40) −72 = 1728.
        assert_eq!(initial_rating(Rules::R2014, 5, 5 * 1800, 4), Some(1728));
    }

    #[test]
    fn march_2024_raise() {
        assert_eq!(adjust_march_2024(1500), 1700);
        assert_eq!(adjust_march_2024(1999), 1999);
        assert_eq!(adjust_march_2024(1998), 1999);
        assert_eq!(adjust_march_2024(2000), 2000);
        assert_eq!(adjust_march_2024(900), 900);
    }

    /// Over periods: an unrated newcomer gets a first rating after five games against rated
    /// players, and the rated players' changes are rounded per period.
    #[test]
    fn a_newcomer_is_rated_after_five_games() {
        let day = |m| Date::new(2024, m, 5);
        let mut games = Vec::new();
        // Player 5 (unrated) meets players 0..=4 (1800 each) in April and May: 3/5.
        for (i, outcome) in [
            WhiteResult::WhiteWins,
            WhiteResult::WhiteWins,
            WhiteResult::Draw,
            WhiteResult::Draw,
            WhiteResult::BlackWins,
        ]
        .into_iter()
        .enumerate()
        {
            games.push(RatedGame {
                white: 5,
                black: i as u32,
                outcome,
                date: day(if i < 3 { 4 } else { 5 }),
                event: 0,
            });
        }
        let rule = Rule {
            settings: Settings {
                rules: Rules::R2024,
                k: None,
            },
            start: vec![Some(1800); 5],
        };
        let run = drive(&rule, 6, &games, PeriodKind::Month, History::Keep);
        let newcomer = run.rows.iter().find(|r| r.player == 5).unwrap();
        assert_eq!(newcomer.rating, Some(1850.0));
        assert_eq!(newcomer.games, 5);
        // After April the newcomer is still unrated: no history row until May.
        let periods: Vec<_> = run
            .history
            .iter()
            .filter(|h| h.player == 5)
            .map(|h| PeriodKind::Month.label(h.period))
            .collect();
        assert_eq!(periods, vec!["2024-05"]);
        // Rated players' games against an unrated opponent are not rated: they stay 1800.
        assert!(
            run.rows
                .iter()
                .filter(|r| r.player < 5)
                .all(|r| r.rating == Some(1800.0))
        );
    }
}
