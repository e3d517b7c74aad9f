//! The evaluation's weights as data: every number `eval` multiplies by a feature count, as
//! middlegame/endgame pairs. `CLASSIC` is the hand-set evaluation built from a few shape
//! rules; `TUNED` is written by the Texel tuner (`arbiter tune fit`, `crate::tune`) into
//! `weights_tuned.rs`. `ACTIVE` is the one the engine plays with. A set also carries the
//! search's pruning margins (`Margins`): they are in the evaluation's units, so weights on
//! another scale need their own.

use super::score::CpMap;

/// A middlegame and an endgame value, blended by the game phase at the end.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct S(pub i32, pub i32);

impl std::ops::AddAssign for S {
    #[inline]
    fn add_assign(&mut self, o: S) {
        self.0 += o.0;
        self.1 += o.1;
    }
}

impl std::ops::SubAssign for S {
    #[inline]
    fn sub_assign(&mut self, o: S) {
        self.0 -= o.0;
        self.1 -= o.1;
    }
}

/// Every tunable weight of the evaluation. Tables are indexed by role (pawn … king) and by
/// the square seen from the piece's own side (a1 = own queen's rook corner).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    /// Material by role; the king's is unused.
    pub material: [S; 6],
    pub pst: [[S; 64]; 6],
    /// Passed-pawn bonus by relative rank.
    pub passed: [S; 8],
    pub isolated: S,
    pub doubled: S,
    pub bishop_pair: S,
    pub rook_open: S,
    pub rook_semi_open: S,
    /// Per reachable square beyond the role's typical count (`eval::MOBILITY_CENTRE`).
    pub mobility: [S; 6],
    /// Own pawns one and two ranks in front of a king on its first two ranks, and shield files
    /// without an own pawn.
    pub shield_near: S,
    pub shield_far: S,
    pub shield_open: S,
    /// Multiplies the king-attack units (capped, see `eval`) in 64ths.
    pub king_attack: S,
    /// For the side to move.
    pub tempo: S,
    /// The search's margins for this evaluation (not fitted by `tune fit`, which keeps the
    /// hand-set ones; measured by self-play and test suites, docs/ANALYSIS.md).
    pub margins: Margins,
}

/// The search's pruning and reduction margins, in the evaluation's units unless said. They
/// depend on how far the evaluation moves from one ply to the next, so they belong to a set of
/// weights rather than to the search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Margins {
    /// First half-width of the aspiration window around the last iteration's score.
    pub aspiration: i32,
    /// Reverse futility: at depth ≤ `reverse_futility_depth` a node whose eval is this much per
    /// ply (of depth, less one when improving) above beta returns its eval.
    pub reverse_futility: i32,
    pub reverse_futility_depth: i32,
    /// Futility: at depth ≤ 6 a quiet move is skipped when eval + `futility_base` +
    /// `futility_depth`·depth cannot reach alpha.
    pub futility_base: i32,
    pub futility_depth: i32,
    /// Null move: one more ply of reduction per this much of eval above beta (at most 3).
    pub null_divisor: i32,
    /// A capture that loses more than this per ply of depth by exchange (SEE) is skipped at
    /// depth ≤ 5 (SEE counts in `eval::PIECE_VALUE`'s pawns of 100).
    pub see_capture: i32,
    /// Quiescence delta pruning: a capture is skipped when even the captured piece for free plus
    /// this cannot reach alpha.
    pub delta: i32,
    /// Late-move reductions: `(lmr_base + ln depth · ln moves · 100 / lmr_divisor) / 100` plies,
    /// both in hundredths.
    pub lmr_base: i32,
    pub lmr_divisor: i32,
    /// A quiet move that gives check is extended by a ply only when it loses at most this by
    /// exchange (SEE, in `eval::PIECE_VALUE`'s units); captures that check always are.
    /// `EXTEND_EVERY_CHECK` or more (the hand-set value) extends every check without an
    /// exchange count (no quiet move loses that much).
    pub check_extension_see: i32,
}

/// A `check_extension_see` that extends every check.
pub const EXTEND_EVERY_CHECK: i32 = 10_000;

impl Margins {
    /// The margins the search was built with, for the hand-set evaluation.
    pub const CLASSIC: Margins = Margins {
        aspiration: 20,
        reverse_futility: 80,
        reverse_futility_depth: 7,
        futility_base: 100,
        futility_depth: 90,
        null_divisor: 200,
        see_capture: 100,
        delta: 200,
        lmr_base: 75,
        lmr_divisor: 225,
        check_extension_see: EXTEND_EVERY_CHECK,
    };

    /// Field names and values, in declaration order (what `to_rust` writes and `parse_rust`
    /// reads).
    fn fields(&self) -> [(&'static str, i32); 11] {
        [
            ("aspiration", self.aspiration),
            ("reverse_futility", self.reverse_futility),
            ("reverse_futility_depth", self.reverse_futility_depth),
            ("futility_base", self.futility_base),
            ("futility_depth", self.futility_depth),
            ("null_divisor", self.null_divisor),
            ("see_capture", self.see_capture),
            ("delta", self.delta),
            ("lmr_base", self.lmr_base),
            ("lmr_divisor", self.lmr_divisor),
            ("check_extension_see", self.check_extension_see),
        ]
    }

    /// Sets the field called `name`; false if there is none.
    fn set(&mut self, name: &str, value: i32) -> bool {
        let field = match name {
            "aspiration" => &mut self.aspiration,
            "reverse_futility" => &mut self.reverse_futility,
            "reverse_futility_depth" => &mut self.reverse_futility_depth,
            "futility_base" => &mut self.futility_base,
            "futility_depth" => &mut self.futility_depth,
            "null_divisor" => &mut self.null_divisor,
            "see_capture" => &mut self.see_capture,
            "delta" => &mut self.delta,
            "lmr_base" => &mut self.lmr_base,
            "lmr_divisor" => &mut self.lmr_divisor,
            "check_extension_see" => &mut self.check_extension_see,
            _ => return false,
        };
        *field = value;
        true
    }

    /// Usable by the search: widths and divisors positive, the rest not negative.
    fn is_valid(&self) -> bool {
        self.aspiration > 0
            && self.null_divisor > 0
            && self.lmr_divisor > 0
            && self.fields().iter().all(|&(_, v)| v >= 0)
    }
}

/// The number of (middlegame, endgame) pairs in `Weights`, in `Weights::to_flat` order.
pub const N_PARAMS: usize = 6 + 6 * 64 + 8 + 5 + 6 + 3 + 1 + 1;

/// Where each group starts in the flat vector (`Weights::to_flat`).
pub mod at {
    pub const MATERIAL: usize = 0;
    pub const PST: usize = MATERIAL + 6;
    pub const PASSED: usize = PST + 6 * 64;
    pub const ISOLATED: usize = PASSED + 8;
    pub const DOUBLED: usize = ISOLATED + 1;
    pub const BISHOP_PAIR: usize = DOUBLED + 1;
    pub const ROOK_OPEN: usize = BISHOP_PAIR + 1;
    pub const ROOK_SEMI_OPEN: usize = ROOK_OPEN + 1;
    pub const MOBILITY: usize = ROOK_SEMI_OPEN + 1;
    pub const SHIELD_NEAR: usize = MOBILITY + 6;
    pub const SHIELD_FAR: usize = SHIELD_NEAR + 1;
    pub const SHIELD_OPEN: usize = SHIELD_FAR + 1;
    pub const KING_ATTACK: usize = SHIELD_OPEN + 1;
    pub const TEMPO: usize = KING_ATTACK + 1;
    pub const END: usize = TEMPO + 1;
}

const _: () = assert!(at::END == N_PARAMS);

impl Weights {
    /// All weights in one vector, groups in `at`'s order.
    pub fn to_flat(&self) -> Vec<S> {
        let mut v = Vec::with_capacity(N_PARAMS);
        v.extend_from_slice(&self.material);
        for t in &self.pst {
            v.extend_from_slice(t);
        }
        v.extend_from_slice(&self.passed);
        v.extend_from_slice(&[
            self.isolated,
            self.doubled,
            self.bishop_pair,
            self.rook_open,
            self.rook_semi_open,
        ]);
        v.extend_from_slice(&self.mobility);
        v.extend_from_slice(&[
            self.shield_near,
            self.shield_far,
            self.shield_open,
            self.king_attack,
            self.tempo,
        ]);
        debug_assert_eq!(v.len(), N_PARAMS);
        v
    }

    /// The inverse of `to_flat`, with the hand-set margins; `None` unless `v` has exactly
    /// `N_PARAMS` pairs.
    pub fn from_flat(v: &[S]) -> Option<Weights> {
        if v.len() != N_PARAMS {
            return None;
        }
        let arr = |from: usize| -> [S; 6] { std::array::from_fn(|i| v[from + i]) };
        Some(Weights {
            material: arr(at::MATERIAL),
            pst: std::array::from_fn(|r| std::array::from_fn(|s| v[at::PST + 64 * r + s])),
            passed: std::array::from_fn(|i| v[at::PASSED + i]),
            isolated: v[at::ISOLATED],
            doubled: v[at::DOUBLED],
            bishop_pair: v[at::BISHOP_PAIR],
            rook_open: v[at::ROOK_OPEN],
            rook_semi_open: v[at::ROOK_SEMI_OPEN],
            mobility: arr(at::MOBILITY),
            shield_near: v[at::SHIELD_NEAR],
            shield_far: v[at::SHIELD_FAR],
            shield_open: v[at::SHIELD_OPEN],
            king_attack: v[at::KING_ATTACK],
            tempo: v[at::TEMPO],
            margins: Margins::CLASSIC,
        })
    }

    /// The weights as a Rust expression of type `Weights`, for `weights_tuned.rs`.
    pub fn to_rust(&self) -> String {
        use std::fmt::Write;
        let s = |x: S| format!("S({}, {})", x.0, x.1);
        let list = |xs: &[S], per_line: usize, indent: &str| -> String {
            let mut out = String::new();
            for chunk in xs.chunks(per_line) {
                let items: Vec<String> = chunk.iter().map(|&x| s(x)).collect();
                let _ = writeln!(out, "{indent}{},", items.join(", "));
            }
            out
        };
        let mut o = String::from("Weights {\n");
        let _ = write!(
            o,
            "    material: [\n{}    ],\n",
            list(&self.material, 6, "        ")
        );
        o.push_str("    pst: [\n");
        for (role, t) in ["pawn", "knight", "bishop", "rook", "queen", "king"]
            .iter()
            .zip(&self.pst)
        {
            let _ = write!(
                o,
                "        // {role}, a1..h1 first\n        [\n{}        ],\n",
                list(t, 8, "            ")
            );
        }
        o.push_str("    ],\n");
        let _ = write!(
            o,
            "    passed: [\n{}    ],\n",
            list(&self.passed, 8, "        ")
        );
        for (name, x) in [
            ("isolated", self.isolated),
            ("doubled", self.doubled),
            ("bishop_pair", self.bishop_pair),
            ("rook_open", self.rook_open),
            ("rook_semi_open", self.rook_semi_open),
        ] {
            let _ = writeln!(o, "    {name}: {},", s(x));
        }
        let _ = write!(
            o,
            "    mobility: [\n{}    ],\n",
            list(&self.mobility, 6, "        ")
        );
        for (name, x) in [
            ("shield_near", self.shield_near),
            ("shield_far", self.shield_far),
            ("shield_open", self.shield_open),
            ("king_attack", self.king_attack),
            ("tempo", self.tempo),
        ] {
            let _ = writeln!(o, "    {name}: {},", s(x));
        }
        o.push_str("    margins: Margins {\n");
        for (name, v) in self.margins.fields() {
            let _ = writeln!(o, "        {name}: {v},");
        }
        o.push_str("    },\n}\n");
        o
    }
}

impl Weights {
    /// Reads back what `to_rust` writes (after any `//` comment lines): every `S(mg, eg)` in
    /// order, then the `margins: Margins { name: value, … }` block. `None` unless there are
    /// exactly `N_PARAMS` pairs of integers and every margin line names a field with a usable
    /// value. A file without the block (written before margins were part of a set) gets the
    /// hand-set margins.
    pub fn parse_rust(text: &str) -> Option<Weights> {
        let mut flat = Vec::with_capacity(N_PARAMS);
        let mut margins = Margins::CLASSIC;
        let mut in_margins = false;
        for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
            let trimmed = line.trim();
            if trimmed.starts_with("margins:") {
                in_margins = true;
                continue;
            }
            if in_margins {
                if trimmed.starts_with('}') {
                    in_margins = false;
                } else {
                    let (name, value) = trimmed.trim_end_matches(',').split_once(':')?;
                    if !margins.set(name.trim(), value.trim().parse().ok()?) {
                        return None;
                    }
                }
                continue;
            }
            let mut rest = line;
            while let Some(i) = rest.find("S(") {
                let tail = &rest[i + 2..];
                let end = tail.find(')')?;
                let (a, b) = tail[..end].split_once(',')?;
                flat.push(S(a.trim().parse().ok()?, b.trim().parse().ok()?));
                rest = &tail[end..];
            }
        }
        if in_margins || !margins.is_valid() {
            return None;
        }
        let mut w = Weights::from_flat(&flat)?;
        w.margins = margins;
        Some(w)
    }
}

// ---- the hand-set weights -----------------------------------------------------------------

/// 0 on the edge files/ranks up to 3 in the centre.
const fn edge_distance(i: usize) -> i32 {
    let f = (i % 8) as i32;
    let r = (i / 8) as i32;
    let fd = if f < 7 - f { f } else { 7 - f };
    let rd = if r < 7 - r { r } else { 7 - r };
    fd + rd
}

/// Piece-square tables from a few shape rules instead of typed-in numbers.
const fn classic_pst() -> [[S; 64]; 6] {
    let mut t = [[S(0, 0); 64]; 6];
    let mut i = 0;
    while i < 64 {
        let file = (i % 8) as i32;
        let rank = (i / 8) as i32;
        let c = edge_distance(i);
        let file_centre = if file < 7 - file { file } else { 7 - file };
        // Pawns: central pawns gain from advancing in the middlegame; every pawn does in the
        // endgame (passed pawns get more from the pawn-structure term).
        if rank >= 1 && rank <= 6 {
            let adv = rank - 1;
            let mg = adv * (2 + file_centre * 2)
                - if (file == 3 || file == 4) && rank == 1 {
                    10
                } else {
                    0
                };
            let eg = [0, 0, 3, 8, 15, 25, 40, 0][rank as usize];
            t[0][i] = S(mg, eg);
        }
        // Knights love the centre and hate the rim; a little extra for outpost ranks.
        let outpost = if rank >= 3 && rank <= 5 { 6 } else { 0 };
        t[1][i] = S(9 * c - 28 + outpost, 7 * c - 21);
        // Bishops: milder centralisation, plus the long diagonals.
        let long_diag = if file == rank || file + rank == 7 {
            8
        } else {
            0
        };
        t[2][i] = S(4 * c - 10 + long_diag, 4 * c - 12);
        // Rooks: the seventh rank and the central files.
        let seventh = if rank == 6 { 18 } else { 0 };
        let central = if file == 3 || file == 4 { 5 } else { 0 };
        t[3][i] = S(seventh + central - 3, if rank == 6 { 12 } else { 0 });
        // Queens: a little centralisation, stronger in the endgame.
        let early = if rank >= 4 { -3 } else { 0 };
        t[4][i] = S(2 * c - 6 + early, 5 * c - 15);
        // King: tucked in the corner behind pawns early; to the centre late.
        let mg_king = match rank {
            0 => [20, 30, 12, 0, -5, 0, 30, 20][file as usize],
            1 => [5, 5, -10, -20, -20, -10, 5, 5][file as usize],
            _ => -25 - 8 * rank,
        };
        t[5][i] = S(mg_king, 9 * c - 30);
        i += 1;
    }
    t
}

/// The hand-set evaluation (before any tuning).
pub const CLASSIC: Weights = Weights {
    material: [
        S(90, 120),
        S(320, 300),
        S(330, 320),
        S(480, 530),
        S(960, 980),
        S(0, 0),
    ],
    pst: classic_pst(),
    passed: [
        S(0, 0),
        S(2, 8),
        S(5, 12),
        S(10, 22),
        S(22, 40),
        S(40, 70),
        S(65, 115),
        S(0, 0),
    ],
    isolated: S(-10, -14),
    doubled: S(-8, -20),
    bishop_pair: S(30, 50),
    rook_open: S(25, 10),
    rook_semi_open: S(12, 8),
    mobility: [S(0, 0), S(4, 4), S(5, 5), S(2, 4), S(1, 2), S(0, 0)],
    shield_near: S(12, 0),
    shield_far: S(6, 0),
    shield_open: S(-15, 0),
    king_attack: S(64, 8),
    tempo: S(10, 10),
    margins: Margins::CLASSIC,
};

/// The weights fitted by `arbiter tune fit` (see docs/ANALYSIS.md, "Tuned evaluation").
pub const TUNED: Weights = include!("weights_tuned.rs");

/// The weights the engine plays with (`arbiter uci`, `epd`, `analyse FEN`).
pub static ACTIVE: &Weights = &CLASSIC;

/// A weights set with the map of its units onto normalised Stockfish centipawns (+1.00 is
/// about a 50 % win), the scale lichess's winning-chance formula assumes.
#[derive(Clone, Copy, Debug)]
pub struct Calibrated {
    /// As recorded with an analysis's settings.
    pub name: &'static str,
    pub weights: &'static Weights,
    /// How its units are reported as centipawns.
    pub cp_map: CpMap,
}

/// What the analysis stage's own tier evaluates with: `TUNED`, fitted to Stockfish's
/// evaluations, agrees with Stockfish at 1,000,000 nodes better than `CLASSIC` on the
/// development games (mean squared winning-chance error 0.0207 against 0.0270, each at its
/// best scale). Its scale, 1.40, is the one that minimises that error there; beyond 5.25
/// pawns only 30 % of the rest counts, the knee and slope that best match Stockfish's
/// centipawns where arbiter reads 3 pawns or more (decided positions, where lichess's mate
/// rules compare centipawns with 7 and 10 pawns); docs/ANALYSIS.md, "The evaluation analysis
/// uses".
pub const ANALYSIS: Calibrated = Calibrated {
    name: "tuned",
    weights: &TUNED,
    cp_map: CpMap {
        scale_percent: 140,
        knee: 525,
        above_knee_percent: 30,
    },
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flat_vector_round_trips() {
        for w in [&CLASSIC, &TUNED] {
            let flat = w.to_flat();
            assert_eq!(flat.len(), N_PARAMS);
            let back = Weights::from_flat(&flat).unwrap();
            assert_eq!(back.to_flat(), flat);
            // The flat vector is the evaluation's; the margins come back as the hand-set ones.
            assert_eq!(back.margins, Margins::CLASSIC);
        }
        assert_eq!(Weights::from_flat(&CLASSIC.to_flat()[1..]), None);
        assert_eq!(CLASSIC.to_flat()[at::TEMPO], S(10, 10));
        assert_eq!(CLASSIC.to_flat()[at::PST + 64 + 27], CLASSIC.pst[1][27]);
    }

    #[test]
    fn the_written_source_is_the_weights() {
        // `to_rust` writes what `include!` reads back: the tuned file is its own output.
        let text = TUNED.to_rust();
        let on_disk = include_str!("weights_tuned.rs");
        assert!(
            on_disk.ends_with(&text),
            "weights_tuned.rs differs from TUNED.to_rust()"
        );
        assert!(CLASSIC.to_rust().contains("tempo: S(10, 10),"));
    }

    #[test]
    fn a_written_file_reads_back() {
        let on_disk = include_str!("weights_tuned.rs");
        assert_eq!(Weights::parse_rust(on_disk), Some(TUNED));
        assert_eq!(Weights::parse_rust(&CLASSIC.to_rust()), Some(CLASSIC));
        // One pair short, or a number that is not one: not weights.
        let text = CLASSIC.to_rust();
        let short = text.replacen("S(10, 10)", "", 1);
        assert_eq!(Weights::parse_rust(&short), None);
        assert_eq!(
            Weights::parse_rust(&text.replacen("S(10, 10)", "S(10, x)", 1)),
            None
        );
    }

    #[test]
    fn margins_are_read_with_the_weights() {
        let mut w = CLASSIC.clone();
        w.margins.reverse_futility = 61;
        w.margins.lmr_divisor = 190;
        let text = w.to_rust();
        assert!(text.contains("        reverse_futility: 61,\n"));
        assert_eq!(Weights::parse_rust(&text), Some(w));
    }

    #[test]
    fn a_file_without_margins_gets_the_hand_set_ones() {
        let mut w = TUNED.clone();
        w.margins.delta = 150;
        let text = w.to_rust();
        let start = text.find("    margins: Margins {").unwrap();
        let end = start + text[start..].find("    },\n").unwrap() + "    },\n".len();
        let old = format!("{}{}", &text[..start], &text[end..]);
        let read = Weights::parse_rust(&old).unwrap();
        assert_eq!(read.margins, Margins::CLASSIC);
        assert_eq!(read.to_flat(), TUNED.to_flat());
    }

    #[test]
    fn a_bad_margin_is_refused() {
        let text = CLASSIC.to_rust();
        for (from, to) in [
            ("delta: 200", "deltas: 200"),
            ("delta: 200", "delta: x"),
            ("null_divisor: 200", "null_divisor: 0"),
            ("see_capture: 100", "see_capture: -5"),
        ] {
            let bad = text.replacen(from, to, 1);
            assert_ne!(bad, text);
            assert_eq!(Weights::parse_rust(&bad), None, "{to}");
        }
        // A file cut inside the block.
        let cut = &text[..text.find("delta: 200,").unwrap()];
        assert_eq!(Weights::parse_rust(cut), None);
    }
}
