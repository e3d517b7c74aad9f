//! Rating-based tie-breaks (C.07 Art. 10): ARO, the average rating of the opponents met over
//! the board (10.1); TPR, ARO plus the rating difference of FIDE table 8.1.1 for the score
//! fraction (10.2); PTP, the lowest rating whose expected score (table 8.1.2) against those
//! opponents reaches the score (10.4); APRO and APPO, the averages of the opponents' TPR and PTP
//! (10.3, 10.5). Only games played over the board count (Art. 15.2: unplayed games are left
//! out). Averages are rounded half up to whole rating points.
//!
//! Unrated participants have the rating the tournament's regulations give them (`unrated` in
//! the context); when none is given and someone is unrated, these tie-breaks have no value,
//! as in FIDE's reference implementation.

use super::{Acronym, Context, Spec, Values};
use crate::stats::ratings::fide_table;

/// Expected score in hundredths (table 8.1.2) of a player rated `own` against `opponent`.
fn expected_hundredths(own: i32, opponent: i32) -> i32 {
    (fide_table::expected_score(own - opponent) * 100.0).round() as i32
}

/// Integer mean rounded half up.
fn mean(values: &[i32]) -> i32 {
    let n = values.len() as i64;
    let sum: i64 = values.iter().map(|&v| i64::from(v)).sum();
    // floor((2·sum + n) / 2n) is round-half-up for positive and negative sums.
    (2 * sum + n).div_euclid(2 * n) as i32
}

/// One player's opponents' ratings (after cuts) and the half points scored against them.
fn opponents(ctx: &Context, player: usize, spec: &Spec) -> Option<(Vec<i32>, u32)> {
    let t = ctx.t;
    let rating = |i: usize| t.players[i].rating.or(ctx.unrated).map(i32::from);
    let mut games: Vec<(i32, u32)> = Vec::new();
    for r in &t.players[player].rounds {
        if let Some(o) = r.game_opponent() {
            games.push((rating(o)?, r.points().0));
        }
    }
    let rounds = ctx.rounds();
    let low = spec.cut_low.min(rounds);
    let high = if low + spec.cut_high > rounds {
        rounds - low
    } else {
        spec.cut_high
    };
    // Art. 14: the least significant opponent is the lowest rated; a cut removes his game.
    games.sort_by_key(|g| g.0);
    for _ in 0..low {
        if !games.is_empty() {
            games.remove(0);
        }
    }
    for _ in 0..high {
        games.pop();
    }
    let score = games.iter().map(|g| g.1).sum();
    Some((games.into_iter().map(|g| g.0).collect(), score))
}

fn all_rated(ctx: &Context) -> bool {
    ctx.unrated.is_some() || ctx.t.players.iter().all(|p| p.rating.is_some())
}

fn aro(ratings: &[i32]) -> Option<i32> {
    (!ratings.is_empty()).then(|| mean(ratings))
}

/// TPR: ARO + dp(p), p the score fraction rounded half up to hundredths.
pub fn tpr(ratings: &[i32], half_points: u32) -> Option<i32> {
    let aro = aro(ratings)?;
    let n = ratings.len() as u32;
    let hundredths = ((100 * half_points + n) / (2 * n)).min(100) as usize;
    Some(aro + fide_table::dp_by_hundredths()[hundredths])
}

/// PTP: the lowest whole rating R whose summed expected score against `ratings` is at least
/// the score; a zero score gives the lowest rating less 800.
pub fn ptp(ratings: &[i32], half_points: u32) -> Option<i32> {
    let lo = *ratings.iter().min()?;
    let hi = *ratings.iter().max()?;
    if half_points == 0 {
        return Some(lo - 800);
    }
    let target = 50 * half_points as i32; // hundredths
    let reaches = |r: i32| -> bool {
        ratings
            .iter()
            .map(|&o| expected_hundredths(r, o))
            .sum::<i32>()
            >= target
    };
    if half_points as usize > 2 * ratings.len() {
        return Some(hi + 800);
    }
    // reaches() is monotone in R; below lo-800 it is false for any positive score, at hi+800
    // it is true.
    let (mut low, mut high) = (lo - 801, hi + 800);
    while high - low > 1 {
        let mid = low + (high - low) / 2;
        if reaches(mid) {
            high = mid;
        } else {
            low = mid;
        }
    }
    Some(high)
}

pub fn compute(spec: &Spec, ctx: &Context) -> Values {
    if !all_rated(ctx) {
        return vec![None; ctx.t.players.len()];
    }
    (0..ctx.t.players.len())
        .map(|i| {
            let (ratings, score) = opponents(ctx, i, spec)?;
            let v = match spec.acronym {
                Acronym::Aro => aro(&ratings),
                Acronym::Tpr => tpr(&ratings, score),
                Acronym::Ptp => ptp(&ratings, score),
                _ => None,
            };
            v.map(f64::from)
        })
        .collect()
}

/// APRO (Art. 10.3) and APPO (10.5): the opponents' TPR or PTP, averaged over the games
/// played over the board, rounded half up.
pub fn average(spec: &Spec, ctx: &Context) -> Values {
    let inner = Spec {
        acronym: if spec.acronym == Acronym::Apro {
            Acronym::Tpr
        } else {
            Acronym::Ptp
        },
        ..spec.clone()
    };
    let per_player = compute(&inner, ctx);
    ctx.t
        .players
        .iter()
        .map(|p| {
            let values: Vec<i32> = p
                .rounds
                .iter()
                .filter_map(|r| r.game_opponent())
                .filter_map(|o| per_player[o].map(|v| v as i32))
                .collect();
            aro(&values).map(f64::from)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tpr_and_ptp_of_a_small_case() {
        // 2 of 3 against 2000, 2100, 2200: ARO 2100, p = 0.67 → dp 125.
        assert_eq!(tpr(&[2000, 2100, 2200], 4), Some(2225));
        // Half the points against two equal opponents.
        // Expected scores within 3 points of each other are both 0.50 (table 8.1.2), so 1997 suffices.
        assert_eq!(ptp(&[2000, 2000], 2), Some(1997));
        assert_eq!(ptp(&[2000, 2100], 0), Some(1200));
        assert_eq!(mean(&[2000, 2001]), 2001);
    }
}
