//! Performance ratings in the three definitions users meet, from a player's games against rated
//! opponents: FIDE's table (Rating Regulations 8.1.1: score fraction p → rating difference dp),
//! the linear one (Ra + 400·(W−L)/n), and the "perfect" one (the rating at which the logistic
//! expected score equals the score, finite at 0 % and 100 % by FIDE's ±800 rule). Also the
//! expected score and a Wilson interval on the score fraction, so an edge can be judged.

use serde::Serialize;

/// FIDE Rating Regulations table 8.1.1, kept once beside the rating systems.
fn table_8_1_1() -> &'static [i32] {
    super::ratings::fide_table::dp_by_hundredths()
}

/// dp of table 8.1.1 for a score of `half_points / 2` in `games` games: p is rounded to the
/// nearest hundredth (halves up), done in integers so 0.125 is not read as 0.12499….
pub fn fide_dp(half_points: u32, games: u32) -> Option<i32> {
    if games == 0 {
        return None;
    }
    let (h, n) = (u64::from(half_points), u64::from(games));
    let hundredths = ((100 * h + n) / (2 * n)).min(100) as usize;
    Some(table_8_1_1()[hundredths])
}

/// The logistic expected score of a player rated `own` against `opponent` (the curve FIDE's
/// table 8.1.2 tabulates, without its 400-point cap).
pub fn expected(own: f64, opponent: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf((opponent - own) / 400.0))
}

/// A score fraction's 95 % Wilson score interval (z = 1.96). It treats each game as one
/// Bernoulli trial with the score fraction as success rate; draws make the true spread smaller,
/// so the interval is on the cautious side.
pub fn wilson(score: f64, games: u32) -> Option<(f64, f64)> {
    if games == 0 {
        return None;
    }
    const Z: f64 = 1.959_963_984_540_054;
    let n = f64::from(games);
    let p = score / n;
    let z2 = Z * Z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    Some(((centre - half).max(0.0), (centre + half).min(1.0)))
}

/// Games against rated opponents, accumulated one at a time.
#[derive(Debug, Clone, Default)]
pub struct PerformanceInput {
    /// Opponents' ratings of the finished games with a rated opponent.
    pub opponents: Vec<u16>,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// Expected score summed over the games where both sides were rated, and their count.
    pub expected: f64,
    pub expected_games: u32,
    /// Score in those same games.
    pub expected_actual: f64,
}

impl PerformanceInput {
    /// Adds a finished game (`score` 1, ½ or 0) against an opponent rated `opponent`; `own` is
    /// this player's rating in that game, when known.
    pub fn add(&mut self, score: f64, own: Option<u16>, opponent: u16) {
        self.opponents.push(opponent);
        if score >= 1.0 {
            self.wins += 1;
        } else if score > 0.0 {
            self.draws += 1;
        } else {
            self.losses += 1;
        }
        if let Some(own) = own {
            self.expected += expected(f64::from(own), f64::from(opponent));
            self.expected_games += 1;
            self.expected_actual += score;
        }
    }

    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    pub fn score(&self) -> f64 {
        f64::from(self.wins) + f64::from(self.draws) / 2.0
    }

    /// Everything users read about it, or None without a rated opponent.
    pub fn summary(&self) -> Option<Performance> {
        let n = self.games();
        if n == 0 {
            return None;
        }
        let sum: f64 = self.opponents.iter().map(|&r| f64::from(r)).sum();
        let average = sum / f64::from(n);
        let half_points = 2 * self.wins + self.draws;
        let fide = average.round() as i64 + i64::from(fide_dp(half_points, n)?);
        let linear =
            average + 400.0 * (f64::from(self.wins) - f64::from(self.losses)) / f64::from(n);
        let perfect = perfect(&self.opponents, self.score());
        let expected = (self.expected_games > 0).then(|| {
            let interval = wilson(self.expected_actual, self.expected_games)
                .expect("expected_games > 0 gives an interval");
            let n = f64::from(self.expected_games);
            Expected {
                games: self.expected_games,
                expected: self.expected,
                actual: self.expected_actual,
                low: interval.0 * n,
                high: interval.1 * n,
                significant: self.expected < interval.0 * n || self.expected > interval.1 * n,
            }
        });
        Some(Performance {
            games: n,
            score: self.score(),
            average_opponent: average,
            fide,
            linear,
            perfect,
            expected,
        })
    }
}

/// The rating R at which Σ expected(R, opponent) equals `score`. At 0 % and 100 % no such R
/// exists; FIDE's rule (dp = ±800 in table 8.1.1) gives the average opponent ∓/± 800.
pub fn perfect(opponents: &[u16], score: f64) -> f64 {
    let n = opponents.len() as f64;
    let average = opponents.iter().map(|&r| f64::from(r)).sum::<f64>() / n;
    if score <= 0.0 {
        return average - 800.0;
    }
    if score >= n {
        return average + 800.0;
    }
    let total = |r: f64| -> f64 { opponents.iter().map(|&o| expected(r, f64::from(o))).sum() };
    // Each step asks whether total(mid) < score. A faster sum answers it first: 10^(o/400) is
    // computed once per opponent, so a step costs one power, not one per game. Its terms differ
    // from `expected`'s by a few units in the last place; when it lies within a margin far
    // wider than both sums' rounding (n·1e-11 plus 4n²ε) of the score, the exact sum decides.
    // So every comparison, and the result, is the plain bisection's to the bit (a test checks).
    let scale: Vec<f64> = opponents
        .iter()
        .map(|&o| 10f64.powf(f64::from(o) / 400.0))
        .collect();
    let margin = n * 1e-11 + 4.0 * n * n * f64::EPSILON;
    let below = |r: f64| -> bool {
        let own = 10f64.powf(-r / 400.0);
        let fast: f64 = scale.iter().map(|&q| 1.0 / (1.0 + q * own)).sum();
        if fast < score - margin {
            true
        } else if fast > score + margin {
            false
        } else {
            total(r) < score
        }
    };
    bisect(below)
}

/// The R where `below(R)` (the total expected score is under the score) turns false, by
/// bisection to 1e-9. The total rises with R; any score strictly between 0 and n is reached
/// inside these bounds.
fn bisect(below: impl Fn(f64) -> bool) -> f64 {
    let (mut lo, mut hi) = (-10_000.0, 14_000.0);
    for _ in 0..200 {
        let mid = (lo + hi) / 2.0;
        if below(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo < 1e-9 {
            break;
        }
    }
    (lo + hi) / 2.0
}

/// The performance of one selection of games.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Performance {
    /// Finished games against rated opponents (the only ones a performance can use).
    pub games: u32,
    pub score: f64,
    pub average_opponent: f64,
    /// Ra + dp(p), table 8.1.1, p rounded to hundredths.
    pub fide: i64,
    /// Ra + 400·(W−L)/n.
    pub linear: f64,
    /// Rating whose logistic expected score equals the score (±800 at 0 % / 100 %).
    pub perfect: f64,
    /// Expected against actual score where both sides were rated.
    pub expected: Option<Expected>,
}

/// Expected score against actual, with the 95 % Wilson interval of the actual score.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Expected {
    pub games: u32,
    pub expected: f64,
    pub actual: f64,
    /// The Wilson interval, in points.
    pub low: f64,
    pub high: f64,
    /// The expected score lies outside the interval: the difference is unlikely to be chance.
    pub significant: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(opponents: &[u16], wins: u32, draws: u32, losses: u32) -> PerformanceInput {
        let mut p = PerformanceInput::default();
        let mut results = Vec::new();
        results.extend(std::iter::repeat_n(1.0, wins as usize));
        results.extend(std::iter::repeat_n(0.5, draws as usize));
        results.extend(std::iter::repeat_n(0.0, losses as usize));
        for (&o, s) in opponents.iter().zip(results) {
            p.add(s, None, o);
        }
        p
    }

    /// The bisection as first written (one `expected` per game per step), which `perfect`
    /// must reproduce to the bit.
    fn perfect_plain(opponents: &[u16], score: f64) -> f64 {
        let total = |r: f64| -> f64 { opponents.iter().map(|&o| expected(r, f64::from(o))).sum() };
        bisect(|r| total(r) < score)
    }

    #[test]
    fn perfect_is_the_plain_bisection_to_the_bit() {
        let mut rng = crate::rng::Rng::new(21);
        let mut checked = 0;
        for case in 0..400 {
            let n = 1 + rng.below(if case % 10 == 0 { 3000 } else { 60 });
            let opponents: Vec<u16> = (0..n).map(|_| 1000 + rng.below(1800) as u16).collect();
            // Every reachable score strictly between 0 and n, in half points (a sample of them).
            let half = 1 + rng.below(2 * n - 1);
            let score = half as f64 / 2.0;
            assert_eq!(
                perfect(&opponents, score).to_bits(),
                perfect_plain(&opponents, score).to_bits(),
                "{n} opponents, score {score}"
            );
            checked += 1;
        }
        assert_eq!(checked, 400);
        // Equal opponents: the root is exact, so the last steps all go to the exact sum.
        let same = [2450u16; 9];
        assert_eq!(
            perfect(&same, 6.5).to_bits(),
            perfect_plain(&same, 6.5).to_bits()
        );
    }

    #[test]
    fn table_8_1_1_is_complete_and_rising() {
        let t = table_8_1_1();
        assert_eq!((t[0], t[50], t[60], t[72], t[100]), (-800, 0, 72, 166, 800));
        assert!(t.windows(2).all(|w| w[0] < w[1]));
        // Symmetric about 0.50, as published.
        assert!((0..=100).all(|i| t[i] == -t[100 - i]));
    }

    #[test]
    fn p1_six_and_a_half_of_nine_against_2450() {
        let p = input(&[2450; 9], 5, 3, 1).summary().unwrap();
        assert_eq!(p.average_opponent, 2450.0);
        assert_eq!(p.fide, 2616);
        assert_eq!(format!("{:.2}", p.linear), "2627.78");
        assert_eq!(format!("{:.2}", p.perfect), "2615.99");
        assert_eq!(p.expected, None);
    }

    #[test]
    fn p2_three_of_five_against_mixed_opponents() {
        let p = input(&[2000, 2050, 2150, 1900, 2100], 3, 0, 2)
            .summary()
            .unwrap();
        assert_eq!(p.average_opponent, 2040.0);
        assert_eq!(p.fide, 2112);
        assert_eq!(format!("{:.2}", p.linear), "2120.00");
    }

    #[test]
    fn zero_and_full_scores_follow_the_800_rule() {
        let zero = input(&[2000, 2200], 0, 0, 2).summary().unwrap();
        assert_eq!(
            (zero.fide, zero.perfect, zero.linear),
            (1300, 1300.0, 1700.0)
        );
        let full = input(&[2000, 2200], 2, 0, 0).summary().unwrap();
        assert_eq!(
            (full.fide, full.perfect, full.linear),
            (2900, 2900.0, 2500.0)
        );
    }

    #[test]
    fn p_rounds_halves_up_in_integers() {
        // 1/8 = 0.125 → 0.13 → −322 (table 8.1.1); 7/8 = 0.875 → 0.88 → 336.
        assert_eq!(fide_dp(2, 8), Some(-322));
        assert_eq!(fide_dp(14, 8), Some(336));
        assert_eq!(fide_dp(0, 0), None);
    }

    #[test]
    fn wilson_interval_of_known_cases() {
        // 6½/9: p = 0.7222, interval 0.4019 .. 0.9096 (Wilson 1927, z = 1.96).
        let (lo, hi) = wilson(6.5, 9).unwrap();
        assert_eq!(format!("{lo:.4} {hi:.4}"), "0.4019 0.9096");
        let (lo, hi) = wilson(0.0, 10).unwrap();
        assert_eq!(format!("{lo:.4} {hi:.4}"), "0.0000 0.2775");
    }

    #[test]
    fn expected_score_and_its_significance() {
        let mut p = PerformanceInput::default();
        // Rated 2400 against 2400 ten times, ten wins: expected 5, actual 10.
        for _ in 0..10 {
            p.add(1.0, Some(2400), 2400);
        }
        let e = p.summary().unwrap().expected.unwrap();
        assert_eq!((e.games, e.expected, e.actual), (10, 5.0, 10.0));
        assert_eq!(format!("{:.3} {:.3}", e.low, e.high), "7.225 10.000");
        assert!(e.significant);
        assert_eq!(format!("{:.4}", expected(2100.0, 2000.0)), "0.6401");
    }
}
