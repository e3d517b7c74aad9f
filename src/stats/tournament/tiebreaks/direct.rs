//! Direct encounter (C.07 Art. 6). Among participants still tied (same points and same values
//! of the tie-breaks before DE), the points scored in the games between them decide (6.1). If
//! not all of them have met (a Swiss), a participant is ranked above the rest only when his
//! score among them exceeds the most any of the others could have made had the missing games
//! been wins (6.2). The tied group is split as far as it goes, and each part again, until
//! nothing changes.
//!
//! The value printed is the rank inside the tied group (1 the best); 0 when DE leaves the group
//! as it was. Lower is better. In a round robin every paired round counts, forfeits included
//! (Art. 16); in a Swiss only games played over the board.

use super::{Context, Values};

pub fn compute(ctx: &Context, ranks: &[u32]) -> Values {
    let t = ctx.t;
    let n = t.players.len();
    let mut val: Vec<i64> = ranks.iter().map(|&r| i64::from(r)).collect();
    let mut more = vec![true; n];
    let order_key = |v: &[i64], i: usize| (ranks[i], v[i], t.players[i].sno);
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| order_key(&val, i));
    for _pass in 1..30 {
        let mut changes = 0;
        let mut start = 0;
        while start < n {
            let current = val[order[start]];
            let mut stop = start + 1;
            while stop < n && val[order[stop]] == current {
                stop += 1;
            }
            if more[order[start]] {
                if stop - start == 1 {
                    more[order[start]] = false;
                } else {
                    let group: Vec<usize> = order[start..stop].to_vec();
                    let c = split(ctx, &group, &mut val);
                    for &i in &group {
                        more[i] = c > 0;
                    }
                    changes += c;
                }
            }
            start = stop;
        }
        if changes == 0 {
            break;
        }
        order.sort_by_key(|&i| order_key(&val, i));
    }
    // Relative ranks inside each group of the incoming standing.
    let mut start = 0;
    while start < n {
        let rank = ranks[order[start]];
        let mut stop = start + 1;
        while stop < n && ranks[order[stop]] == rank {
            stop += 1;
        }
        let mut offset = val[order[start]];
        if val[order[start]] != val[order[stop - 1]] {
            offset -= 1;
        }
        for &i in &order[start..stop] {
            val[i] -= offset;
        }
        start = stop;
    }
    val.into_iter().map(|v| Some(v as f64)).collect()
}

/// One pass over a tied group; returns how many participants got a rank of their own.
fn split(ctx: &Context, group: &[usize], val: &mut [i64]) -> usize {
    let t = ctx.t;
    let rr = ctx.round_robin();
    let current = val[group[0]];
    let size = group.len();
    // Score (in points) among the group, games counted, and the most that was possible.
    let mut score = vec![0f64; size];
    let mut demax = vec![0f64; size];
    let mut met_all = true;
    for (k, &i) in group.iter().enumerate() {
        let mut met: Vec<(usize, f64, u32)> = Vec::new();
        let mut count = 0usize;
        let mut sum = 0f64;
        for r in &t.players[i].rounds {
            let Some(o) = r.opponent else { continue };
            let played = rr || r.outcome.is_game();
            if !played || val[o] != current {
                continue;
            }
            let pts = r.points().as_f64();
            if let Some(entry) = met.iter_mut().find(|m| m.0 == o) {
                // Met twice: the average of the games against him counts (Art. 6.1.2).
                let previous = entry.1;
                sum -= previous;
                let avg = (previous * f64::from(entry.2) + pts) / f64::from(entry.2 + 1);
                entry.1 = avg;
                entry.2 = 1;
                sum += avg;
                count = 1;
            } else {
                met.push((o, pts, 1));
                count += 1;
                sum += pts;
            }
        }
        score[k] = sum;
        if !rr && count < size - 1 {
            met_all = false;
            demax[k] = sum + (size - 1 - count) as f64;
        } else {
            demax[k] = sum;
        }
    }
    let mut idx: Vec<usize> = (0..size).collect();
    let sno = |k: usize| t.players[group[k]].sno;
    let mut changes = 0;
    if met_all {
        idx.sort_by(|&a, &b| score[b].total_cmp(&score[a]).then(sno(a).cmp(&sno(b))));
        let mut rank = val[group[idx[0]]];
        let mut crank = rank;
        let mut v = score[idx[0]];
        for &k in &idx[1..] {
            rank += 1;
            if score[k] != v {
                crank = rank;
                v = score[k];
                changes += 1;
            }
            val[group[k]] = crank;
        }
    } else {
        idx.sort_by(|&a, &b| {
            score[b]
                .total_cmp(&score[a])
                .then(demax[b].total_cmp(&demax[a]))
                .then(sno(a).cmp(&sno(b)))
        });
        let mut rank = val[group[idx[0]]];
        let mut crank = rank;
        let mut v = score[idx[0]];
        let mut unique = true;
        for (pos, &k) in idx.iter().enumerate().skip(1) {
            rank += 1;
            let best_rest = idx[pos..]
                .iter()
                .map(|&j| demax[j])
                .fold(f64::MIN, f64::max);
            if unique && v > best_rest {
                crank = rank;
                changes += 1;
            } else {
                unique = false;
            }
            v = score[k];
            val[group[k]] = crank;
        }
    }
    changes
}
