//! Ratings of persons from their games, on the Elo scale (400·log10 logistic): `pool` (whole-pool
//! maximum likelihood, as Ordo), `elo` (FIDE, period by period), `glicko2` and `glicko`. Every
//! system is a pure function over a list of [`RatedGame`]s between dense player indices.

pub mod elo;
pub mod encounters;
pub mod fide_table;
pub mod glicko;
pub mod glicko2;
pub mod groups;
pub mod period;
pub mod pool;
pub mod select;
pub mod system;

use std::fmt;

/// A game's result from White's side: the stats reader's (`stats::scan`), one type for the
/// tournament builder and the rating systems; unfinished games never reach the latter.
pub use crate::stats::scan::WhiteResult;

/// A calendar date as PGN gives it: a part that is not known is 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Date {
    pub year: u16,
    pub month: u8,
    pub day: u8,
}

impl Date {
    pub fn new(year: u16, month: u8, day: u8) -> Date {
        Date { year, month, day }
    }

    /// Days since 1970-01-01 (proleptic Gregorian), an unknown month or day taken as the 1st.
    pub fn days(self) -> i64 {
        let y = i64::from(self.year);
        let m = i64::from(self.month.clamp(1, 12));
        let d = i64::from(self.day.max(1));
        // Howard Hinnant's days_from_civil.
        let y = if m <= 2 { y - 1 } else { y };
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let mp = (m + 9) % 12;
        let doy = (153 * mp + 2) / 5 + d - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe - 719_468
    }

    /// The date `days` after 1970-01-01 (proleptic Gregorian): the inverse of [`Date::days`].
    /// Years outside 0..=65535 saturate.
    pub fn from_days(days: i64) -> Date {
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = doy - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        let year = yoe + era * 400 + i64::from(month <= 2);
        Date::new(
            year.clamp(0, i64::from(u16::MAX)) as u16,
            month as u8,
            day as u8,
        )
    }
}

/// `seconds` since the Unix epoch as an ISO 8601 UTC timestamp, `2026-11-27T09:20:06Z`: when a
/// rating run was made (`rating_runs.created_at`).
pub fn utc_timestamp(seconds: i64) -> String {
    let (days, rem) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    let d = Date::from_days(days);
    format!(
        "{d}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// Now, as [`utc_timestamp`] writes it.
pub fn now_utc() -> String {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    utc_timestamp(seconds)
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

/// One rated game between players `white` and `black` (indices into the caller's list of
/// persons). `event` groups games of one competition (0 when unknown).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RatedGame {
    pub white: u32,
    pub black: u32,
    pub outcome: WhiteResult,
    pub date: Date,
    pub event: u32,
}

/// Expected score on the Elo scale for a rating difference `diff` (own minus opponent's).
pub fn logistic(diff: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-diff / 400.0))
}

/// One person's line of a rating list.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct RatingRow {
    pub player: u32,
    pub games: u32,
    pub score: f64,
    /// None: the system gives this person no rating (unrated under FIDE rules, another group).
    pub rating: Option<f64>,
    /// Standard error (pool) or rating deviation (Glicko).
    pub error: Option<f64>,
    pub rd: Option<f64>,
    pub volatility: Option<f64>,
    /// How the rating was obtained when not by the system's ordinary rule: `>` a floor for a
    /// perfect winner, `<` a ceiling for a perfect loser (as Ordo marks them).
    pub bound: Option<char>,
    pub rank: Option<u32>,
}

/// One person's state at the end of a rating period in which they played.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryRow {
    pub player: u32,
    /// The period's key (`period::PeriodKind::label` names it: `2024-03`, `2024-Q1`, `2024`).
    pub period: period::PeriodKey,
    pub games: u32,
    pub rating: f64,
    pub rd: Option<f64>,
    pub volatility: Option<f64>,
}

/// Games and points of every player: the `games` and `score` columns of each system's list.
pub fn tally(players: usize, games: &[RatedGame]) -> (Vec<u32>, Vec<f64>) {
    let mut n = vec![0u32; players];
    let mut s = vec![0f64; players];
    for g in games {
        let w = g.outcome.white_score();
        n[g.white as usize] += 1;
        n[g.black as usize] += 1;
        s[g.white as usize] += w;
        s[g.black as usize] += 1.0 - w;
    }
    (n, s)
}

/// Ranks rows by rating, best first (1, 2, 2, 4 for ties); unrated rows get no rank and go last.
pub fn rank(rows: &mut [RatingRow]) {
    rows.sort_by(|a, b| match (a.rating, b.rating) {
        (Some(x), Some(y)) => y.total_cmp(&x).then(a.player.cmp(&b.player)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.player.cmp(&b.player),
    });
    let mut last: Option<(f64, u32)> = None;
    for (i, row) in rows.iter_mut().enumerate() {
        row.rank = row.rating.map(|r| match last {
            Some((prev, k)) if prev == r => k,
            _ => {
                last = Some((r, i as u32 + 1));
                i as u32 + 1
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_since_epoch() {
        assert_eq!(Date::new(1970, 1, 1).days(), 0);
        assert_eq!(Date::new(2000, 3, 1).days(), 11_017);
        assert_eq!(Date::new(2024, 2, 0).days(), Date::new(2024, 2, 1).days());
    }

    #[test]
    fn from_days_inverts_days() {
        assert_eq!(Date::from_days(0), Date::new(1970, 1, 1));
        assert_eq!(Date::from_days(11_017), Date::new(2000, 3, 1));
        assert_eq!(Date::from_days(-1), Date::new(1969, 12, 31));
        for days in (-700_000..800_000).step_by(997) {
            assert_eq!(Date::from_days(days).days(), days, "{days}");
        }
        // 2024 is a leap year, 2100 is not.
        assert_eq!(
            Date::from_days(Date::new(2024, 2, 28).days() + 1),
            Date::new(2024, 2, 29)
        );
        assert_eq!(
            Date::from_days(Date::new(2100, 2, 28).days() + 1),
            Date::new(2100, 3, 1)
        );
    }

    #[test]
    fn timestamps_are_iso_utc() {
        assert_eq!(utc_timestamp(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc_timestamp(1_795_857_606), "2026-11-28T09:20:06Z");
        assert_eq!(utc_timestamp(-1), "1969-12-31T23:59:59Z");
    }

    #[test]
    fn ranks_share_ties_and_unrated_go_last() {
        let row = |player, rating| RatingRow {
            player,
            rating,
            ..RatingRow::default()
        };
        let mut rows = vec![
            row(0, Some(1900.0)),
            row(1, None),
            row(2, Some(2100.0)),
            row(3, Some(1900.0)),
        ];
        rank(&mut rows);
        let got: Vec<_> = rows.iter().map(|r| (r.player, r.rank)).collect();
        assert_eq!(
            got,
            vec![(2, Some(1)), (0, Some(2)), (3, Some(2)), (1, None)]
        );
    }
}
