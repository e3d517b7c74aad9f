//! FIDE Handbook C.07 tie-breaks (Tie-Break Regulations, 2024 text in force from 1 August
//! 2024, amended from 1 March 2026). One file per family: `buchholz` (BH, FB, AOB and SB, which
//! share Art. 16's adjusted scores), `koya` (KS), `progressive` (PS), `counts` (WIN, WON, BPG,
//! BWG, GE/REP), `direct` (DE), `rating` (ARO, TPR, PTP, APRO, APPO). `registry` reads the
//! acronyms with their modifiers.
//!
//! Where the regulations leave room, the behaviour is that of FIDE's reference implementation
//! (TieBreakServer by Otto Milvang, run on our fixtures to check every value; see
//! docs/TOURNAMENTS.md). Every value is computed in exact units (half points, quarter points
//! for SB) and handed out as `f64`, which holds those exactly.

pub mod buchholz;
pub mod counts;
pub mod direct;
pub mod koya;
pub mod progressive;
pub mod rating;
pub mod registry;

pub use registry::{Acronym, ParseError, Spec};

use super::model::{Kind, Points, Tournament};

/// Which text of C.07 applies. They differ in Art. 16.4: from 2026 the dummy opponent of an
/// unplayed round is worth at most 50 % (or the real opponent's adjusted score).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rules {
    R2024,
    R2026,
}

impl Rules {
    /// The rules in force on a date: 2026 from 1 March 2026 (no date: the newest).
    pub fn for_date(date: Option<(u32, u32, u32)>) -> Rules {
        match date {
            Some(d) if d < (2026, 3, 1) => Rules::R2024,
            _ => Rules::R2026,
        }
    }

    pub fn parse(text: &str) -> Option<Rules> {
        match text {
            "2024" => Some(Rules::R2024),
            "2026" => Some(Rules::R2026),
            _ => None,
        }
    }

    pub fn year(self) -> u32 {
        match self {
            Rules::R2024 => 2024,
            Rules::R2026 => 2026,
        }
    }
}

/// What every tie-break needs to know besides the results.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    pub t: &'a Tournament,
    pub rules: Rules,
    pub kind: Kind,
    /// The rating given to unrated players in rating-based tie-breaks (C.07 Art. 10: set by
    /// the tournament's regulations). Without one, and with an unrated player in the
    /// tournament, those tie-breaks have no value.
    pub unrated: Option<u16>,
}

impl Context<'_> {
    pub fn rounds(&self) -> usize {
        self.t.rounds
    }

    pub fn round_robin(&self) -> bool {
        self.kind == Kind::RoundRobin
    }

    pub fn points(&self, player: usize) -> Points {
        self.t.players[player].points()
    }
}

/// One tie-break's value per player (by index); `None` where it has no value (an average over
/// no games, a rating-based tie-break without ratings).
pub type Values = Vec<Option<f64>>;

/// Computes one tie-break. `ranks` is the standing so far (points and the tie-breaks before
/// this one, shared ranks for ties): only DE reads it.
pub fn compute(spec: &Spec, ctx: &Context, ranks: &[u32]) -> Values {
    use Acronym::*;
    match spec.acronym {
        Bh | Fb | Sb => buchholz::compute(spec, ctx),
        Aob => buchholz::average_of_buchholz(spec, ctx),
        Ks => koya::compute(ctx),
        Ps => progressive::compute(spec, ctx),
        Win | Won | Bpg | Bwg | Ge | Rep => counts::compute(spec.acronym, ctx),
        De => direct::compute(ctx, ranks),
        Aro | Tpr | Ptp => rating::compute(spec, ctx),
        Apro | Appo => rating::average(spec, ctx),
    }
}

/// Rounds half up to `decimals` places, in the decimal sense (0.125 → 0.13).
pub fn round_half_up(value: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    ((value * scale) + 0.5 + 1e-9).floor() / scale
}
