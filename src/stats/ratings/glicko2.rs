//! Glicko-2 (Glickman, "Example of the Glicko-2 system", 2013): rating, deviation and
//! volatility per player, updated once per rating period; an idle period only widens the
//! deviation. The per-game form (lichess) runs each game as its own fractional period.

use super::period::{Idle, PeriodRule};
use super::period::{PER_GAME, PERIOD, report};
use super::system::{Context, Kind, Param, RateError, Report, System, Values};

/// The factor between the Glicko-2 scale and the Elo-like display scale (400 / ln 10).
pub const SCALE: f64 = 173.7178;
/// Convergence tolerance of the volatility iteration (Glickman suggests 0.000001).
const EPSILON: f64 = 1e-9;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Glicko2 {
    pub rating: f64,
    pub rd: f64,
    pub volatility: f64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// τ: how much the volatility may change (Glickman: 0.3 to 1.2).
    pub tau: f64,
    pub initial: Glicko2,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            tau: 0.5,
            initial: Glicko2 {
                rating: 1500.0,
                rd: 350.0,
                volatility: 0.06,
            },
        }
    }
}

fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (std::f64::consts::PI * std::f64::consts::PI)).sqrt()
}

/// One period's update (steps 2–8 of Glickman's example); `games` are (opponent, own score).
pub fn update(player: Glicko2, games: &[(Glicko2, f64)], tau: f64) -> Glicko2 {
    let mu = (player.rating - 1500.0) / SCALE;
    let phi = player.rd / SCALE;
    let sigma = player.volatility;
    if games.is_empty() {
        return Glicko2 {
            rd: (phi * phi + sigma * sigma).sqrt() * SCALE,
            ..player
        };
    }
    let mut inv_v = 0.0;
    let mut sum = 0.0;
    for (opp, score) in games {
        let mu_j = (opp.rating - 1500.0) / SCALE;
        let g_j = g(opp.rd / SCALE);
        let e = 1.0 / (1.0 + (-g_j * (mu - mu_j)).exp());
        inv_v += g_j * g_j * e * (1.0 - e);
        sum += g_j * (score - e);
    }
    let v = 1.0 / inv_v;
    let delta = v * sum;
    let sigma = new_volatility(phi, sigma, v, delta, tau);
    let phi_star = (phi * phi + sigma * sigma).sqrt();
    let phi_new = 1.0 / (1.0 / (phi_star * phi_star) + inv_v).sqrt();
    let mu_new = mu + phi_new * phi_new * sum;
    Glicko2 {
        rating: mu_new * SCALE + 1500.0,
        rd: phi_new * SCALE,
        volatility: sigma,
    }
}

/// Step 5: the Illinois iteration for σ' (Glickman 2013).
fn new_volatility(phi: f64, sigma: f64, v: f64, delta: f64, tau: f64) -> f64 {
    let a = (sigma * sigma).ln();
    let (d2, p2) = (delta * delta, phi * phi);
    let f = |x: f64| {
        let ex = x.exp();
        ex * (d2 - p2 - v - ex) / (2.0 * (p2 + v + ex) * (p2 + v + ex)) - (x - a) / (tau * tau)
    };
    let mut big_a = a;
    let mut big_b = if d2 > p2 + v {
        (d2 - p2 - v).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * tau) < 0.0 {
            k += 1.0;
        }
        a - k * tau
    };
    let (mut fa, mut fb) = (f(big_a), f(big_b));
    while (big_b - big_a).abs() > EPSILON {
        let c = big_a + (big_a - big_b) * fa / (fb - fa);
        let fc = f(c);
        if fc * fb <= 0.0 {
            big_a = big_b;
            fa = fb;
        } else {
            fa /= 2.0;
        }
        big_b = c;
        fb = fc;
    }
    (big_a / 2.0).exp()
}

/// Glicko-2 as a period system; the deviation never grows past the initial one.
pub struct Rule(pub Settings);

impl PeriodRule for Rule {
    type State = Glicko2;

    fn initial(&self, _player: u32) -> Glicko2 {
        self.0.initial
    }

    fn idle(&self, s: Glicko2, idle: Idle) -> Glicko2 {
        let phi = s.rd / SCALE;
        let rd = (phi * phi + idle.periods * s.volatility * s.volatility).sqrt() * SCALE;
        Glicko2 {
            rd: rd.min(self.0.initial.rd),
            ..s
        }
    }

    fn update(&self, s: &Glicko2, games: &[(Glicko2, f64)]) -> Glicko2 {
        update(*s, games, self.0.tau)
    }

    fn published(&self, s: &Glicko2) -> Option<(f64, Option<f64>, Option<f64>)> {
        Some((s.rating, Some(s.rd), Some(s.volatility)))
    }
}

/// `--system glicko2`.
pub struct Glicko2System;

const TAU: Param = Param {
    key: "tau",
    flag: "tau",
    help: "τ, the volatility's freedom (Glickman: 0.3 to 1.2)",
    default: Some("0.5"),
    kind: Kind::Positive,
};

impl System for Glicko2System {
    fn name(&self) -> &'static str {
        "glicko2"
    }

    fn about(&self) -> &'static str {
        "Glicko-2: rating, deviation and volatility"
    }

    fn params(&self) -> &'static [Param] {
        &[TAU, PERIOD, PER_GAME]
    }

    fn run(&self, values: &Values, cx: &Context) -> Result<Report, RateError> {
        let rule = Rule(Settings {
            tau: values.number(&TAU)?.unwrap_or(0.5),
            ..Settings::default()
        });
        Ok(report(&rule, values, cx))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::ratings::period::{History, PeriodKind, drive, drive_per_game};
    use crate::stats::ratings::{Date, RatedGame, WhiteResult};

    fn paper() -> (Glicko2, Vec<(Glicko2, f64)>) {
        let p = |rating, rd| Glicko2 {
            rating,
            rd,
            volatility: 0.06,
        };
        (
            p(1500.0, 200.0),
            vec![
                (p(1400.0, 30.0), 1.0),
                (p(1550.0, 100.0), 0.0),
                (p(1700.0, 300.0), 0.0),
            ],
        )
    }

    /// G2: Glickman's worked example at full precision.
    #[test]
    fn glickman_example_full_precision() {
        let (player, games) = paper();
        let new = update(player, &games, 0.5);
        assert_eq!(format!("{:.4}", new.rating), "1464.0507");
        assert_eq!(format!("{:.4}", new.rd), "151.5165");
        assert_eq!(format!("{:.6}", new.volatility), "0.059996");
    }

    /// G2b: a period without games widens the deviation only.
    #[test]
    fn a_period_without_games_widens_the_deviation() {
        let (player, _) = paper();
        let new = update(player, &[], 0.5);
        assert_eq!(format!("{:.4}", new.rd), "200.2714");
        assert_eq!(new.rating, 1500.0);
        assert_eq!(new.volatility, 0.06);
    }

    fn game(white: u32, black: u32, outcome: WhiteResult, month: u8) -> RatedGame {
        RatedGame {
            white,
            black,
            outcome,
            date: Date::new(2024, month, 10),
            event: 0,
        }
    }

    #[test]
    fn period_results_do_not_depend_on_order_within_a_period() {
        let games = vec![
            game(0, 1, WhiteResult::WhiteWins, 1),
            game(1, 2, WhiteResult::Draw, 1),
            game(2, 0, WhiteResult::BlackWins, 1),
            game(0, 2, WhiteResult::Draw, 2),
        ];
        let mut shuffled = games.clone();
        shuffled.swap(0, 2);
        shuffled.swap(1, 3);
        let rule = Rule(Settings::default());
        let a = drive(&rule, 3, &games, PeriodKind::Month, History::Keep);
        let b = drive(&rule, 3, &shuffled, PeriodKind::Month, History::Keep);
        assert_eq!(a.rows, b.rows);
        // January: players 0, 1, 2; February: 0 and 2.
        assert_eq!(a.history.len(), 5);
        assert_eq!(
            a.history.iter().map(|h| h.period).collect::<Vec<_>>(),
            vec![202_401, 202_401, 202_401, 202_402, 202_402]
        );
        // Without storing, no history is kept and the list is the same.
        let dropped = drive(&rule, 3, &games, PeriodKind::Month, History::Drop);
        assert_eq!(dropped.rows, a.rows);
        assert!(dropped.history.is_empty());
        let per_game = drive_per_game(&rule, 3, &games, PeriodKind::Month, History::Drop);
        assert!(per_game.history.is_empty());
        assert_eq!(
            per_game.rows,
            drive_per_game(&rule, 3, &games, PeriodKind::Month, History::Keep).rows
        );
        // Player 0 won both games of January: above 1500; 1 and 2 below.
        let r = |p: u32| {
            a.rows
                .iter()
                .find(|r| r.player == p)
                .unwrap()
                .rating
                .unwrap()
        };
        assert!(
            r(0) > 1500.0 && r(1) < 1500.0 && r(2) < 1500.0,
            "{:?}",
            a.rows
        );
    }

    #[test]
    fn per_game_ages_the_deviation_by_days() {
        let games = vec![
            game(0, 1, WhiteResult::WhiteWins, 1),
            game(0, 1, WhiteResult::WhiteWins, 7),
        ];
        let rule = Rule(Settings::default());
        let run = drive_per_game(&rule, 2, &games, PeriodKind::Month, History::Keep);
        let zero = run.rows.iter().find(|r| r.player == 0).unwrap();
        assert_eq!(zero.games, 2);
        // Two wins in a row lift the winner; the second game counts less as the RDs shrank.
        let h: Vec<_> = run.history.iter().filter(|h| h.player == 0).collect();
        assert_eq!(h.len(), 2);
        assert!(h[1].rating > h[0].rating && h[0].rating > 1500.0);
        assert!(h[1].rating - h[0].rating < h[0].rating - 1500.0);
    }
}
