//! The search's score scale around the evaluation's centipawns: mate scores count plies from
//! the root, so a shorter mate scores higher. `Score` is the public, unambiguous form.

use std::fmt;

/// Deepest ply the search ever reaches (extensions included).
pub const MAX_PLY: usize = 128;
/// Mate at the root; mate in `p` plies scores `MATE - p`.
pub const MATE: i32 = 32_000;
/// Scores at or beyond this are mates.
pub const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
/// Above every real score.
pub const INFINITY: i32 = MATE + 1;
pub const DRAW: i32 = 0;

/// How internal units are reported as centipawns: `internal × scale_percent / 100`, and
/// beyond `knee` centipawns (either sign) only `above_knee_percent` of the rest counts, as
/// normalised Stockfish reads a decided position lower than a linear map of arbiter's would
/// (docs/ANALYSIS.md, "The evaluation analysis uses").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpMap {
    pub scale_percent: i32,
    pub knee: i32,
    pub above_knee_percent: i32,
}

impl CpMap {
    /// No knee.
    pub const fn linear(scale_percent: i32) -> CpMap {
        CpMap {
            scale_percent,
            knee: i32::MAX,
            above_knee_percent: 100,
        }
    }

    /// Reported centipawns for internal units `v` (not a mate score).
    pub fn apply(self, v: i32) -> i32 {
        let linear = v * self.scale_percent / 100;
        if linear.abs() <= self.knee {
            return linear;
        }
        let beyond = (linear.abs() - self.knee) * self.above_knee_percent / 100;
        linear.signum() * (self.knee + beyond)
    }
}

/// A search result's score from the side to move's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Score {
    /// Centipawns.
    Cp(i32),
    /// Mate in this many moves: positive when the side to move mates, negative when it is
    /// mated (`Mate(0)`: checkmated now).
    Mate(i32),
}

impl Score {
    /// From the internal scale; centipawns are reported on the calibrated pawn scale of the
    /// engine's own weights (`eval::CP_SCALE_PERCENT`).
    pub fn from_internal(v: i32) -> Score {
        Score::from_internal_at(v, CpMap::linear(super::eval::CP_SCALE_PERCENT))
    }

    /// From the internal scale, centipawns reported through `map` (a weights set's own,
    /// `weights::Calibrated`).
    pub fn from_internal_at(v: i32, map: CpMap) -> Score {
        if v >= MATE_BOUND {
            Score::Mate((MATE - v + 1) / 2)
        } else if v <= -MATE_BOUND {
            Score::Mate(-((MATE + v) / 2))
        } else {
            Score::Cp(map.apply(v))
        }
    }

    /// Centipawns with mates clamped to ±`mate_cp` (as winning-chance formulas want).
    pub fn to_cp_clamped(self, mate_cp: i32) -> i32 {
        match self {
            Score::Cp(cp) => cp.clamp(-mate_cp, mate_cp),
            Score::Mate(n) if n > 0 => mate_cp,
            Score::Mate(_) => -mate_cp,
        }
    }
}

/// Lichess's comment form: `0.25`, `-1.50`, `#3`, `#-2`.
impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Score::Cp(cp) => {
                let sign = if cp < 0 { "-" } else { "" };
                write!(f, "{sign}{}.{:02}", cp.abs() / 100, cp.abs() % 100)
            }
            Score::Mate(n) => write!(f, "#{n}"),
        }
    }
}

/// Mate scores in the table are stored relative to the node, not the root.
#[inline]
pub fn to_tt(v: i32, ply: usize) -> i32 {
    if v >= MATE_BOUND {
        v + ply as i32
    } else if v <= -MATE_BOUND {
        v - ply as i32
    } else {
        v
    }
}

#[inline]
pub fn from_tt(v: i32, ply: usize) -> i32 {
    if v >= MATE_BOUND {
        v - ply as i32
    } else if v <= -MATE_BOUND {
        v + ply as i32
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_distances_convert_to_moves() {
        assert_eq!(Score::from_internal(MATE - 1), Score::Mate(1));
        assert_eq!(Score::from_internal(MATE - 3), Score::Mate(2));
        assert_eq!(Score::from_internal(-MATE + 2), Score::Mate(-1));
        assert_eq!(Score::from_internal(-MATE), Score::Mate(0));
        assert_eq!(Score::from_internal(-37), Score::Cp(-37 * 165 / 100));
        assert_eq!(Score::from_internal(900), Score::Cp(1485));
        let knee = CpMap {
            scale_percent: 140,
            knee: 525,
            above_knee_percent: 30,
        };
        assert_eq!(Score::from_internal_at(300, knee), Score::Cp(420));
        assert_eq!(Score::from_internal_at(375, knee), Score::Cp(525));
        // 1000 × 1.40 = 1400: 525 + 30 % of 875.
        assert_eq!(Score::from_internal_at(-1000, knee), Score::Cp(-787));
        assert_eq!(Score::from_internal_at(MATE - 3, knee), Score::Mate(2));
        assert_eq!(Score::from_internal(100), Score::Cp(165));
    }

    #[test]
    fn display_follows_lichess() {
        assert_eq!(Score::Cp(25).to_string(), "0.25");
        assert_eq!(Score::Cp(-150).to_string(), "-1.50");
        assert_eq!(Score::Cp(-5).to_string(), "-0.05");
        assert_eq!(Score::Mate(3).to_string(), "#3");
        assert_eq!(Score::Mate(-2).to_string(), "#-2");
    }

    #[test]
    fn table_scores_round_trip() {
        for v in [MATE - 5, -MATE + 8, 123] {
            assert_eq!(from_tt(to_tt(v, 7), 7), v);
        }
    }
}
