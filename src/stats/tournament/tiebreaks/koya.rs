//! Koya system (C.07 Art. 9.2): the points scored against the opponents who finished with at
//! least 50 % of the maximum score. In a round robin with an odd number of players (one
//! round off for everybody) the maximum counts one game fewer per cycle, and one fewer for each
//! participant who was never paired. Points of forfeited games count, as in a round robin
//! they are part of the fixed pairings (Art. 16).

use super::{Context, Values};

pub fn compute(ctx: &Context) -> Values {
    let t = ctx.t;
    let n = t.players.len();
    let rounds = ctx.rounds();
    let mut max_games = rounds as i64;
    if ctx.round_robin() {
        if n > 0 && rounds.is_multiple_of(n) {
            max_games -= (rounds / n) as i64;
        }
        for p in &t.players {
            let never_met = p
                .rounds
                .iter()
                .all(|r| r.opponent.is_none() && !r.outcome.played_or_pab());
            if never_met {
                max_games -= 1;
            }
        }
    }
    // 50 % of the maximum, in half points: a win is 2 half points, so the limit is max_games.
    let limit = max_games;
    t.players
        .iter()
        .map(|p| {
            let sum: u32 = p
                .rounds
                .iter()
                .filter_map(|r| {
                    let o = r.opponent?;
                    (i64::from(t.players[o].points().0) >= limit).then_some(r.points().0)
                })
                .sum();
            Some(f64::from(sum) / 2.0)
        })
        .collect()
}
