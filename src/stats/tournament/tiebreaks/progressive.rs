//! Progressive scores (C.07 Art. 7.5): the sum of the running scores after each round, every
//! round's points included whether played or not. `-C1`, `-C2` cut the first rounds' running
//! scores (Art. 14.1 applied to PS: its least significant values are the earliest).

use super::{Context, Spec, Values};

pub fn compute(spec: &Spec, ctx: &Context) -> Values {
    ctx.t
        .players
        .iter()
        .map(|p| {
            let sum: u32 = p.running().iter().skip(spec.cut_low).map(|s| s.0).sum();
            Some(f64::from(sum) / 2.0)
        })
        .collect()
}
