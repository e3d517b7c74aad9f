//! Rating periods: the FIDE list is monthly (Art. 1.2 of the FIDE Rating Regulations 2024),
//! Glicko's periods are the user's choice. A period system sees each period's games as played
//! at once, so only which period a game falls in matters, never the order within it.

use super::system::{Context, Kind, Param, Report, Values};
use super::{Date, RatedGame};
use std::ops::Range;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeriodKind {
    Month,
    Quarter,
    Year,
}

/// A period: `year * 100 + index` (month 1–12, quarter 1–4, or 0 for the year).
pub type PeriodKey = u32;

impl PeriodKind {
    /// The period of a date; None when the date lacks the part the period needs.
    pub fn key(self, d: Date) -> Option<PeriodKey> {
        let year = u32::from(d.year);
        if year == 0 {
            return None;
        }
        let month = u32::from(d.month);
        match self {
            PeriodKind::Year => Some(year * 100),
            _ if !(1..=12).contains(&month) => None,
            PeriodKind::Month => Some(year * 100 + month),
            PeriodKind::Quarter => Some(year * 100 + (month - 1) / 3 + 1),
        }
    }

    /// `2024-03`, `2024-Q1` or `2024`.
    pub fn label(self, key: PeriodKey) -> String {
        let (year, index) = (key / 100, key % 100);
        match self {
            PeriodKind::Month => format!("{year:04}-{index:02}"),
            PeriodKind::Quarter => format!("{year:04}-Q{index}"),
            PeriodKind::Year => format!("{year:04}"),
        }
    }

    /// The first day of a period.
    pub fn start(self, key: PeriodKey) -> Date {
        let (year, index) = ((key / 100) as u16, (key % 100) as u8);
        match self {
            PeriodKind::Month => Date::new(year, index, 1),
            PeriodKind::Quarter => Date::new(year, (index - 1) * 3 + 1, 1),
            PeriodKind::Year => Date::new(year, 1, 1),
        }
    }

    /// Mean length in days (Gregorian year 365.2425 days).
    pub fn days(self) -> f64 {
        match self {
            PeriodKind::Month => 365.2425 / 12.0,
            PeriodKind::Quarter => 365.2425 / 4.0,
            PeriodKind::Year => 365.2425,
        }
    }

    /// How many periods lie between two keys (0 for the same period).
    pub fn distance(self, from: PeriodKey, to: PeriodKey) -> u32 {
        let per_year = match self {
            PeriodKind::Month => 12,
            PeriodKind::Quarter => 4,
            PeriodKind::Year => 1,
        };
        let ordinal = |k: PeriodKey| (k / 100) * per_year + (k % 100).max(1) - 1;
        ordinal(to).saturating_sub(ordinal(from))
    }
}

/// Games sorted into periods: `games[range]` are the games of period `key`, periods in order.
pub struct Periods {
    pub games: Vec<RatedGame>,
    pub periods: Vec<(PeriodKey, Range<usize>)>,
    /// Games left out because their date does not name the period.
    pub undated: usize,
}

/// Sorts the games by period (stable: input order kept inside a period).
pub fn split(games: &[RatedGame], kind: PeriodKind) -> Periods {
    let mut keyed: Vec<(PeriodKey, RatedGame)> = games
        .iter()
        .filter_map(|g| kind.key(g.date).map(|k| (k, *g)))
        .collect();
    let undated = games.len() - keyed.len();
    keyed.sort_by_key(|(k, _)| *k);
    let mut periods: Vec<(PeriodKey, Range<usize>)> = Vec::new();
    for (i, (k, _)) in keyed.iter().enumerate() {
        match periods.last_mut() {
            Some((last, range)) if last == k => range.end = i + 1,
            _ => periods.push((*k, i..i + 1)),
        }
    }
    Periods {
        games: keyed.into_iter().map(|(_, g)| g).collect(),
        periods,
        undated,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::ratings::WhiteResult;

    #[test]
    fn keys_labels_and_distances() {
        let d = Date::new(2024, 3, 17);
        assert_eq!(PeriodKind::Month.key(d), Some(202_403));
        assert_eq!(PeriodKind::Quarter.key(d), Some(202_401));
        assert_eq!(PeriodKind::Year.key(d), Some(202_400));
        assert_eq!(PeriodKind::Month.key(Date::new(2024, 0, 0)), None);
        assert_eq!(PeriodKind::Year.key(Date::new(2024, 0, 0)), Some(202_400));
        assert_eq!(PeriodKind::Quarter.label(202_401), "2024-Q1");
        assert_eq!(PeriodKind::Month.label(202_403), "2024-03");
        assert_eq!(PeriodKind::Month.distance(202_311, 202_403), 4);
        assert_eq!(PeriodKind::Quarter.distance(202_304, 202_401), 1);
        assert_eq!(PeriodKind::Quarter.start(202_402), Date::new(2024, 4, 1));
    }

    #[test]
    fn split_groups_by_period_and_counts_undated() {
        let g = |m, d| RatedGame {
            white: 0,
            black: 1,
            outcome: WhiteResult::Draw,
            date: Date::new(2024, m, d),
            event: 0,
        };
        let p = split(&[g(2, 1), g(1, 5), g(0, 0), g(2, 9)], PeriodKind::Month);
        assert_eq!(p.undated, 1);
        let keys: Vec<_> = p.periods.iter().map(|(k, r)| (*k, r.clone())).collect();
        assert_eq!(keys, vec![(202_401, 0..1), (202_402, 1..3)]);
        assert_eq!(p.games[1].date.day, 1);
    }
}

/// Time that passed for one player without games: whole periods in period mode, a fraction
/// of a period in per-game mode; `from`/`to` name the periods at its ends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Idle {
    pub periods: f64,
    pub from: PeriodKey,
    pub to: PeriodKey,
}

/// A rating system that updates each player once per period from the start-of-period states
/// of the player and the opponents (FIDE Elo, Glicko, Glicko-2).
pub trait PeriodRule {
    type State: Copy;
    /// The state of a player before their first game.
    fn initial(&self, player: u32) -> Self::State;
    /// The state after time without games.
    fn idle(&self, state: Self::State, idle: Idle) -> Self::State;
    /// The state after a period with `games`: (opponent's start-of-period state, own score).
    fn update(&self, state: &Self::State, games: &[(Self::State, f64)]) -> Self::State;
    /// (rating, rd, volatility), or None while the player is unrated.
    fn published(&self, state: &Self::State) -> Option<(f64, Option<f64>, Option<f64>)>;
}

/// Whether a run keeps the history (one row per person per period played): only a run that is
/// stored needs it, and over a million games it is most of the memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum History {
    Keep,
    Drop,
}

/// The result of a period system over all games.
pub struct PeriodRun {
    pub rows: Vec<super::RatingRow>,
    pub history: Vec<super::HistoryRow>,
    /// Games left out because their date does not name the period.
    pub undated: usize,
}

/// Runs a period system over the games, period by period.
pub fn drive<R: PeriodRule>(
    rule: &R,
    players: usize,
    games: &[RatedGame],
    kind: PeriodKind,
    keep: History,
) -> PeriodRun {
    let split = split(games, kind);
    let mut state: Vec<Option<(R::State, PeriodKey)>> = vec![None; players];
    let mut pre: Vec<Option<R::State>> = vec![None; players];
    let mut played: Vec<Vec<(u32, f64)>> = vec![Vec::new(); players];
    let mut involved: Vec<u32> = Vec::new();
    let mut history = Vec::new();
    let mut scratch: Vec<(R::State, f64)> = Vec::new();
    for (key, range) in &split.periods {
        let key = *key;
        for g in &split.games[range.clone()] {
            let s = g.outcome.white_score();
            for (me, opp, score) in [(g.white, g.black, s), (g.black, g.white, 1.0 - s)] {
                if played[me as usize].is_empty() {
                    involved.push(me);
                }
                played[me as usize].push((opp, score));
            }
        }
        for &p in &involved {
            pre[p as usize] = Some(match state[p as usize] {
                Some((s, last)) => {
                    let gap = kind.distance(last, key).saturating_sub(1);
                    rule.idle(
                        s,
                        Idle {
                            periods: f64::from(gap),
                            from: last,
                            to: key,
                        },
                    )
                }
                None => rule.initial(p),
            });
        }
        for &p in &involved {
            scratch.clear();
            let list = &played[p as usize];
            scratch.extend(
                list.iter()
                    .map(|&(o, s)| (pre[o as usize].expect("opponent is involved"), s)),
            );
            let before = pre[p as usize].expect("player is involved");
            let after = rule.update(&before, &scratch);
            state[p as usize] = Some((after, key));
            if keep == History::Drop {
                continue;
            }
            if let Some((rating, rd, volatility)) = rule.published(&after) {
                history.push(super::HistoryRow {
                    player: p,
                    period: key,
                    games: list.len() as u32,
                    rating,
                    rd,
                    volatility,
                });
            }
        }
        for &p in &involved {
            played[p as usize].clear();
            pre[p as usize] = None;
        }
        involved.clear();
    }
    let last = split.periods.last().map(|(k, _)| *k);
    let rows = final_rows(rule, players, &split.games, |p| {
        let (s, at) = state[p]?;
        let end = last?;
        Some(rule.idle(
            s,
            Idle {
                periods: f64::from(kind.distance(at, end)),
                from: at,
                to: end,
            },
        ))
    });
    PeriodRun {
        rows,
        history,
        undated: split.undated,
    }
}

/// Runs a period system with each game its own period (as lichess runs Glicko-2): before a
/// game each player's state ages by the days since their previous game over the period length.
pub fn drive_per_game<R: PeriodRule>(
    rule: &R,
    players: usize,
    games: &[RatedGame],
    kind: PeriodKind,
    keep: History,
) -> PeriodRun {
    let mut dated: Vec<(i64, RatedGame)> = games
        .iter()
        .filter(|g| g.date.year != 0)
        .map(|g| (g.date.days(), *g))
        .collect();
    let undated = games.len() - dated.len();
    dated.sort_by_key(|(d, _)| *d);
    let mut state: Vec<Option<(R::State, i64)>> = vec![None; players];
    let mut last_row: Vec<Option<usize>> = vec![None; players];
    let mut history: Vec<super::HistoryRow> = Vec::new();
    let key_of = |d: Date| kind.key(d).unwrap_or(u32::from(d.year) * 100 + 1);
    let aged =
        |p: u32, day: i64, to: PeriodKey, st: &[Option<(R::State, i64)>]| match st[p as usize] {
            Some((s, at)) => rule.idle(
                s,
                Idle {
                    periods: (day - at) as f64 / kind.days(),
                    from: to,
                    to,
                },
            ),
            None => rule.initial(p),
        };
    for (day, g) in &dated {
        let key = key_of(g.date);
        let w = aged(g.white, *day, key, &state);
        let b = aged(g.black, *day, key, &state);
        let s = g.outcome.white_score();
        let new_w = rule.update(&w, &[(b, s)]);
        let new_b = rule.update(&b, &[(w, 1.0 - s)]);
        for (p, new) in [(g.white, new_w), (g.black, new_b)] {
            state[p as usize] = Some((new, *day));
            if keep == History::Drop {
                continue;
            }
            let Some((rating, rd, volatility)) = rule.published(&new) else {
                continue;
            };
            match last_row[p as usize] {
                Some(i) if history[i].period == key => {
                    let row = &mut history[i];
                    row.games += 1;
                    (row.rating, row.rd, row.volatility) = (rating, rd, volatility);
                }
                _ => {
                    last_row[p as usize] = Some(history.len());
                    history.push(super::HistoryRow {
                        player: p,
                        period: key,
                        games: 1,
                        rating,
                        rd,
                        volatility,
                    });
                }
            }
        }
    }
    let games: Vec<RatedGame> = dated.iter().map(|(_, g)| *g).collect();
    let end = dated.last().map(|(d, g)| (*d, key_of(g.date)));
    let rows = final_rows(rule, players, &games, |p| {
        let (day, key) = end?;
        state[p]?;
        Some(aged(p as u32, day, key, &state))
    });
    PeriodRun {
        rows,
        history,
        undated,
    }
}

fn final_rows<R: PeriodRule>(
    rule: &R,
    players: usize,
    games: &[RatedGame],
    final_state: impl Fn(usize) -> Option<R::State>,
) -> Vec<super::RatingRow> {
    let (n, score) = super::tally(players, games);
    let mut rows: Vec<super::RatingRow> = (0..players)
        .filter(|&p| n[p] > 0)
        .map(|p| {
            let published = final_state(p).and_then(|s| rule.published(&s));
            super::RatingRow {
                player: p as u32,
                games: n[p],
                score: score[p],
                rating: published.map(|x| x.0),
                error: published.and_then(|x| x.1),
                rd: published.and_then(|x| x.1),
                volatility: published.and_then(|x| x.2),
                ..super::RatingRow::default()
            }
        })
        .collect();
    super::rank(&mut rows);
    rows
}

/// `--period`: the setting every period system takes.
pub const PERIOD: Param = Param {
    key: "period",
    flag: "period",
    help: "the rating period: month, quarter or year",
    default: Some("month"),
    kind: Kind::Choice(&["month", "quarter", "year"]),
};

/// `--per-game`: each game its own fractional period (Glicko systems).
pub const PER_GAME: Param = Param {
    key: "per_game",
    flag: "per-game",
    help: "each game its own fractional period (as lichess), aged by days",
    default: None,
    kind: Kind::Switch,
};

impl PeriodKind {
    /// The period a run's `--period` names.
    pub fn of(values: &Values) -> PeriodKind {
        match values.text(&PERIOD) {
            Some("quarter") => PeriodKind::Quarter,
            Some("year") => PeriodKind::Year,
            _ => PeriodKind::Month,
        }
    }
}

/// Runs a period system over a run's selection (per game when `--per-game` is given and the
/// system takes it) and reports it.
pub fn report<R: PeriodRule>(rule: &R, values: &Values, cx: &Context) -> Report {
    let sel = cx.selection;
    let kind = PeriodKind::of(values);
    let players = sel.names.len();
    let run = if values.switch(&PER_GAME) {
        drive_per_game(rule, players, &sel.games, kind, cx.keep)
    } else {
        drive(rule, players, &sel.games, kind, cx.keep)
    };
    Report {
        rows: run.rows,
        history: run.history,
        period: Some(kind),
        rated_games: sel.games.len() - run.undated,
        summary: Vec::new(),
        not_rated: vec![(
            "without the date parts that name the period (try --period year)",
            run.undated,
        )],
    }
}
