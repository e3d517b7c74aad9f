//! Buchholz (C.07 Art. 8.1), Fore Buchholz (8.2), Average of Opponents' Buchholz (8.3) and
//! Sonneborn-Berger (9.1), with their cuts (Art. 14). They share Art. 16's handling of
//! unplayed rounds, which is the hard part:
//!
//! - As somebody's opponent, a participant counts with an *adjusted* score (Art. 16.3): the
//!   points of every round up to the last one in which he did not have a voluntary unplayed
//!   round (VUR, Art. 16.2: half- or zero-point bye, forfeit loss, absence), and a draw for each
//!   VUR after it (Art. 16.3.2); in a round robin those count zero.
//! - For his own unplayed rounds (byes, forfeits either way) a Swiss participant gets a dummy
//!   opponent whose score is his own final score (Art. 16.4, 2024). From 1 March 2026 that
//!   value is capped: at the real opponent's adjusted score after a forfeit (16.4.1), at 50 %
//!   of the maximum otherwise (16.4.2).
//! - In a round robin (pairings fixed in advance) a forfeited game counts as played for
//!   tie-break purposes (Art. 16), and a round without an opponent counts nothing.
//! - Cuts (Art. 14.1-14.4) remove the least significant values, the rounds against the
//!   lowest-scored opponents; a VUR is cut first (Art. 16). In SB, where a round's value is the
//!   opponent's score times the points of the round, the VUR gives way when the round against
//!   the lowest-scored opponent adds more than it does: that round is cut instead (as the
//!   reference implementation does).
//! - Fore Buchholz (8.2) treats everybody's last round as a draw when it had an opponent.

use super::{Context, Spec, Values, round_half_up};
use crate::stats::tournament::model::Points;

/// Draw points in half points.
const DRAW: i64 = 1;

/// The adjusted score (Art. 16.3) each participant lends his opponents, in half points, and
/// his own score as the dummy opponent sees it (Fore Buchholz moves both to a last-round draw).
struct Adjusted {
    lent: Vec<i64>,
    own: Vec<i64>,
}

fn adjusted(ctx: &Context, fore: bool) -> Adjusted {
    let t = ctx.t;
    let rounds = ctx.rounds();
    let mut lent = Vec::with_capacity(t.players.len());
    let mut own = Vec::with_capacity(t.players.len());
    for p in &t.players {
        // The last round (1-based) that was not a VUR, and the last one with an opponent
        // or a PAB.
        let mut last_not_vur = 0;
        let mut last_met = 0;
        for (r, round) in p.rounds.iter().enumerate() {
            if !round.outcome.is_vur() {
                last_not_vur = r + 1;
            }
            if round.opponent.is_some() || round.outcome.played_or_pab() {
                last_met = r + 1;
            }
        }
        let fore_applies = fore && last_met == rounds && rounds > 0;
        if fore_applies {
            last_not_vur = rounds;
        }
        let mut sum = 0i64;
        for (r, round) in p.rounds.iter().enumerate() {
            let counted = r < last_not_vur || round.opponent.is_some();
            sum += if counted {
                i64::from(round.points().0)
            } else if ctx.round_robin() {
                0
            } else {
                DRAW
            };
        }
        let mut own_score = i64::from(p.points().0);
        if fore_applies
            && let Some(last) = p.rounds.last()
            && last.opponent.is_some()
        {
            let adjust = DRAW - i64::from(last.points().0);
            sum += adjust;
            own_score += adjust;
        }
        lent.push(sum);
        own.push(own_score);
    }
    Adjusted { lent, own }
}

/// One round's contribution: the opponent's (or dummy's) score in half points, what it adds
/// to the tie-break (half points for BH, quarter points for SB), and whether it is a VUR.
#[derive(Debug, Clone, Copy)]
struct Entry {
    score: i64,
    value: i64,
    vur: bool,
}

/// Per-player entries of BH (or SB when `sb`), before cuts.
fn entries(ctx: &Context, fore: bool, sb: bool) -> Vec<Vec<Entry>> {
    let t = ctx.t;
    let rounds = ctx.rounds();
    let adj = adjusted(ctx, fore);
    let rr = ctx.round_robin();
    let half_of_max = DRAW * rounds as i64;
    t.players
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut out = Vec::with_capacity(rounds);
            for (r, round) in p.rounds.iter().enumerate() {
                // Art. 16: with pairings fixed in advance, a forfeit counts as played;
                // Fore Buchholz plays the last round out as a draw.
                let played = rr || (fore && r + 1 == rounds) || round.outcome.played_or_pab();
                let mut vur = round.outcome.is_vur();
                let score = match round.opponent {
                    Some(o) if played => {
                        vur = false;
                        adj.lent[o]
                    }
                    _ if !rr => {
                        let own = adj.own[i];
                        match (ctx.rules, round.opponent) {
                            (super::Rules::R2024, _) => own,
                            // Art. 16.4.1 (2026): capped by the real opponent's score.
                            (super::Rules::R2026, Some(o)) => own.min(adj.lent[o]),
                            // Art. 16.4.2 (2026): capped at 50 % of the maximum.
                            (super::Rules::R2026, None) => own.min(half_of_max),
                        }
                    }
                    _ => 0,
                };
                let value = if sb {
                    score * i64::from(round.points().0)
                } else {
                    score
                };
                if round.opponent.is_some() || !rr {
                    out.push(Entry { score, value, vur });
                }
            }
            out
        })
        .collect()
}

/// Removes `low` least and `high` most significant entries (Art. 14), significance being the
/// opponent's score. The least significant VUR goes first (Art. 16), unless the least
/// significant entry overall adds more to the total than that VUR does (possible in SB only),
/// in which case that entry goes.
fn cut(mut list: Vec<Entry>, low: usize, high: usize, rounds: usize) -> Vec<Entry> {
    let low = low.min(rounds);
    let high = if low + high > rounds {
        rounds - low
    } else {
        high
    };
    for _ in 0..low {
        if list.is_empty() {
            break;
        }
        let mut all = list.clone();
        all.sort_by_key(|e| (e.score, e.value));
        let mut vurs_first = list.clone();
        vurs_first.sort_by_key(|e| (!e.vur, e.score, e.value));
        list = if all[0].value > vurs_first[0].value {
            all.split_off(1)
        } else {
            vurs_first.split_off(1)
        };
    }
    for _ in 0..high {
        if list.is_empty() {
            break;
        }
        list.sort_by_key(|e| (std::cmp::Reverse(e.score), std::cmp::Reverse(e.value)));
        list.remove(0);
    }
    list
}

/// The values in exact units (half points; quarter points for SB), for AOB to reuse.
fn raw(spec: &Spec, ctx: &Context) -> Vec<i64> {
    use super::Acronym;
    let fore = spec.acronym == Acronym::Fb;
    let sb = spec.acronym == Acronym::Sb;
    entries(ctx, fore, sb)
        .into_iter()
        .map(|list| {
            cut(list, spec.cut_low, spec.cut_high, ctx.rounds())
                .iter()
                .map(|e| e.value)
                .sum()
        })
        .collect()
}

/// BH, FB or SB with the spec's cuts.
pub fn compute(spec: &Spec, ctx: &Context) -> Values {
    let unit = if spec.acronym == super::Acronym::Sb {
        4.0
    } else {
        2.0
    };
    raw(spec, ctx)
        .into_iter()
        .map(|v| Some(v as f64 / unit))
        .collect()
}

/// AOB (Art. 8.3): the mean of the opponents' Buchholz over the games played over the board,
/// rounded to hundredths (half up).
pub fn average_of_buchholz(spec: &Spec, ctx: &Context) -> Values {
    let bh_spec = Spec {
        acronym: super::Acronym::Bh,
        ..spec.clone()
    };
    let bh = raw(&bh_spec, ctx);
    ctx.t
        .players
        .iter()
        .map(|p| {
            let opponents: Vec<usize> = p.rounds.iter().filter_map(|r| r.game_opponent()).collect();
            if opponents.is_empty() {
                return None;
            }
            let sum: i64 = opponents.iter().map(|&o| bh[o]).sum();
            let mean = sum as f64 / 2.0 / opponents.len() as f64;
            Some(round_half_up(mean, 2))
        })
        .collect()
}

/// A participant's score as his opponents' Buchholz sees it (Art. 16.3), for tests and the
/// documentation's worked examples.
pub fn lent_scores(ctx: &Context) -> Vec<Points> {
    adjusted(ctx, false)
        .lent
        .into_iter()
        .map(|v| Points(v as u32))
        .collect()
}
