//! Static evaluation in centipawns from the side to move: tapered (middlegame/endgame) material
//! and piece-square tables, mobility, pawn structure, king safety and the bishop pair.
//! It owns the score scale; the search only adds mate and draw scores around it. The weights
//! are data (`weights`); the evaluation also reports each feature it counts to a `Trace`, which
//! is how the tuner sees a position as a linear function of the weights.

use super::weights::{ACTIVE, S, Weights, at};
use crate::chess::{Bitboard, Color, Position, Role, Square, attacks};

/// The reported pawn scale of the engine's own weights (`weights::ACTIVE`, hand-set
/// `CLASSIC`), in percent of the evaluation's units: reported centipawns are
/// `internal × 165 / 100`, so they read on normalised Stockfish's scale (+1.00 about a 50 % win),
/// which lichess's winning-chance and accuracy formulas assume. Fitted on the 12 lichess games
/// labelled by Stockfish 15.1 at 1,000,000 nodes (docs/ANALYSIS.md, "The scale map"). Only what
/// is reported changes; the search keeps its own units, so its pruning margins are untouched.
/// The analysis stage evaluates with its own calibrated set (`weights::ANALYSIS`).
pub const CP_SCALE_PERCENT: i32 = 165;

/// Simple piece values for exchange evaluation and move ordering.
pub const PIECE_VALUE: [i32; 6] = [100, 320, 330, 500, 950, 20_000];

/// Phase weights: 24 with all minor and major pieces on the board, 0 in a pawn ending.
const PHASE: [i32; 6] = [0, 1, 1, 2, 4, 0];
pub const MAX_PHASE: i32 = 24;

const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = FILE_A << 7;

/// Squares in front of a pawn on its own and both adjacent files: no enemy pawn there means
/// the pawn is passed.
const fn build_passed_masks() -> [[u64; 64]; 2] {
    let mut t = [[0u64; 64]; 2];
    let mut i = 0;
    while i < 64 {
        let file = i % 8;
        let rank = i / 8;
        let mut files = FILE_A << file;
        if file > 0 {
            files |= FILE_A << (file - 1);
        }
        if file < 7 {
            files |= FILE_A << (file + 1);
        }
        // Ranks strictly above (White) or below (Black).
        let above = if rank == 7 {
            0
        } else {
            !0u64 << (8 * (rank + 1))
        };
        let below = if rank == 0 {
            0
        } else {
            !0u64 >> (8 * (8 - rank))
        };
        t[0][i] = files & above;
        t[1][i] = files & below;
        i += 1;
    }
    t
}

static PASSED_MASK: [[u64; 64]; 2] = build_passed_masks();

#[inline]
fn pawn_attack_span(color: Color, pawns: u64) -> u64 {
    match color {
        Color::White => ((pawns & !FILE_A) << 7) | ((pawns & !FILE_H) << 9),
        Color::Black => ((pawns & !FILE_A) >> 9) | ((pawns & !FILE_H) >> 7),
    }
}

// ---- mobility and king safety ---------------------------------------------------------

/// Typical reachable squares per role: mobility counts squares beyond this, so an average
/// piece scores about 0.
const MOBILITY_CENTRE: [i32; 6] = [0, 4, 6, 6, 12, 0];

/// Weight of a piece attacking squares next to the enemy king.
const KING_ATTACK_WEIGHT: [i32; 6] = [0, 2, 2, 3, 5, 0];

/// Receives every feature the evaluation counts: `add(param, count)` means `count` times the
/// weight `param` (an index into `Weights::to_flat`), from White's point of view. Then
/// `finish` gives the blend and the draw scaling applied to their sum; the tempo comes last,
/// outside that scaling.
pub trait Trace {
    fn add(&mut self, param: usize, count: f64);
    /// `phase` of `MAX_PHASE` is the middlegame's share; the sum is divided by `divisor`.
    fn finish(&mut self, phase: i32, divisor: i32);
}

/// The engine's evaluation traces nothing; every call inlines away.
struct NoTrace;

impl Trace for NoTrace {
    #[inline(always)]
    fn add(&mut self, _: usize, _: f64) {}
    #[inline(always)]
    fn finish(&mut self, _: i32, _: i32) {}
}

/// The evaluation of `pos` in centipawns from the side to move's point of view, with the
/// engine's weights (`weights::ACTIVE`).
pub fn evaluate(pos: &Position) -> i32 {
    evaluate_traced(pos, ACTIVE, &mut NoTrace)
}

/// The evaluation with the given weights.
pub fn evaluate_with(pos: &Position, w: &Weights) -> i32 {
    evaluate_traced(pos, w, &mut NoTrace)
}

/// The evaluation with the given weights, reporting each feature to `trace`.
pub fn evaluate_traced<T: Trace>(pos: &Position, w: &Weights, trace: &mut T) -> i32 {
    let white = side_terms(pos, Color::White, w, trace);
    let black = side_terms(pos, Color::Black, w, trace);
    let mut s = white.score;
    s -= black.score;
    let phase = (white.phase + black.phase).min(MAX_PHASE);
    let mut v = blend(s, phase);

    // Without pawns, an edge of less than a rook rarely wins: scale it down.
    let (strong, weak) = if v > 0 {
        (&white, &black)
    } else {
        (&black, &white)
    };
    let mut divisor = 1;
    if strong.pawns == 0 && strong.non_pawn - weak.non_pawn < 400 {
        divisor = if strong.non_pawn <= 330 { 16 } else { 4 };
        v /= divisor;
    }
    trace.finish(phase, divisor);
    let (v, sign) = match pos.turn() {
        Color::White => (v, 1.0),
        Color::Black => (-v, -1.0),
    };
    trace.add(at::TEMPO, sign);
    v + blend(w.tempo, phase)
}

/// The middlegame and endgame values mixed by the phase.
#[inline]
fn blend(s: S, phase: i32) -> i32 {
    (s.0 * phase + s.1 * (MAX_PHASE - phase)) / MAX_PHASE
}

#[inline]
fn times(w: S, n: i32) -> S {
    S(w.0 * n, w.1 * n)
}

struct SideTerms {
    score: S,
    phase: i32,
    pawns: u32,
    non_pawn: i32,
}

fn side_terms<T: Trace>(pos: &Position, us: Color, w: &Weights, trace: &mut T) -> SideTerms {
    let them = us.other();
    // Features are traced from White's point of view.
    let sign = match us {
        Color::White => 1.0,
        Color::Black => -1.0,
    };
    let occ = pos.occupied();
    let ours = pos.by_color(us);
    let our_pawns = pos.pieces(us, Role::Pawn).0;
    let their_pawns = pos.pieces(them, Role::Pawn).0;
    let mobility_area = !(ours.0 | pawn_attack_span(them, their_pawns));
    let their_king = pos.king_of(them);
    let king_zone = (attacks::king_attacks(their_king) | Bitboard::from_square(their_king)).0;
    let our_pawn_files = file_set(our_pawns);
    let their_pawn_files = file_set(their_pawns);

    let mut score = S(0, 0);
    let mut phase = 0;
    let mut non_pawn = 0;
    let mut attack_units = 0;
    let mut attackers = 0;

    for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
        let r = role.index();
        let bb = pos.pieces(us, role);
        let n = bb.count() as i32;
        score += times(w.material[r], n);
        trace.add(at::MATERIAL + r, sign * n as f64);
        phase += PHASE[r] * n;
        non_pawn += PIECE_VALUE[r] * n;
        let pst = &w.pst[r];
        for sq in bb {
            let rel = relative(us, sq);
            score += pst[rel];
            trace.add(at::PST + 64 * r + rel, sign);
            let att = match role {
                Role::Knight => attacks::knight_attacks(sq),
                Role::Bishop => attacks::bishop_attacks(sq, occ),
                Role::Rook => attacks::rook_attacks(sq, occ),
                _ => attacks::queen_attacks(sq, occ),
            }
            .0;
            let mob = (att & mobility_area).count_ones() as i32 - MOBILITY_CENTRE[r];
            score += times(w.mobility[r], mob);
            trace.add(at::MOBILITY + r, sign * mob as f64);
            let zone_hits = (att & king_zone).count_ones() as i32;
            if zone_hits > 0 {
                attackers += 1;
                attack_units += KING_ATTACK_WEIGHT[r] * zone_hits;
            }
            if role == Role::Rook {
                let file = 1u8 << sq.file().0;
                if our_pawn_files & file == 0 {
                    if their_pawn_files & file == 0 {
                        score += w.rook_open;
                        trace.add(at::ROOK_OPEN, sign);
                    } else {
                        score += w.rook_semi_open;
                        trace.add(at::ROOK_SEMI_OPEN, sign);
                    }
                }
            }
        }
    }
    if pos.pieces(us, Role::Bishop).more_than_one() {
        score += w.bishop_pair;
        trace.add(at::BISHOP_PAIR, sign);
    }

    // Pawns: material, placement, passed, isolated (no own pawn on an adjacent file) and
    // doubled (every pawn beyond the first on a file).
    let n_pawns = our_pawns.count_ones() as i32;
    score += times(w.material[0], n_pawns);
    trace.add(at::MATERIAL, sign * n_pawns as f64);
    for sq in Bitboard(our_pawns) {
        let rel = relative(us, sq);
        score += w.pst[0][rel];
        trace.add(at::PST + rel, sign);
        if PASSED_MASK[us.index()][sq.index()] & their_pawns == 0 {
            let rank = sq.rank().relative(us).0 as usize;
            score += w.passed[rank];
            trace.add(at::PASSED + rank, sign);
        }
    }
    let isolated_files = our_pawn_files & !((our_pawn_files << 1) | (our_pawn_files >> 1));
    let isolated = (our_pawns & files_of(isolated_files)).count_ones() as i32;
    score += times(w.isolated, isolated);
    trace.add(at::ISOLATED, sign * isolated as f64);
    let doubled = n_pawns - our_pawn_files.count_ones() as i32;
    score += times(w.doubled, doubled);
    trace.add(at::DOUBLED, sign * doubled as f64);

    // Attacks on the enemy king: one attacker is a nuisance, several are an attack.
    if attackers >= 2 {
        let units = (attack_units * attack_units / 2).min(500);
        score += S(units * w.king_attack.0 / 64, units * w.king_attack.1 / 64);
        trace.add(at::KING_ATTACK, sign * units as f64 / 64.0);
    }
    // Our own pawn shield, for a king still on its first two ranks.
    let king = pos.king_of(us);
    if king.rank().relative(us).0 <= 1 {
        let kf = king.file().0;
        let shield_file_set = (0b111u16 << kf >> 1) as u8;
        let shield = our_pawns & files_of(shield_file_set);
        let ahead = |n: u8| -> u64 {
            let r = match us {
                Color::White => king.rank().0 + n,
                Color::Black => king.rank().0.wrapping_sub(n),
            };
            if r < 8 { 0xffu64 << (8 * r) } else { 0 }
        };
        let n_near = (shield & ahead(1)).count_ones() as i32;
        let n_far = (shield & ahead(2)).count_ones() as i32;
        // Open files next to a castled king invite rooks.
        let open = (shield_file_set & !our_pawn_files).count_ones() as i32;
        score += times(w.shield_near, n_near);
        score += times(w.shield_far, n_far);
        score += times(w.shield_open, open);
        trace.add(at::SHIELD_NEAR, sign * n_near as f64);
        trace.add(at::SHIELD_FAR, sign * n_far as f64);
        trace.add(at::SHIELD_OPEN, sign * open as f64);
    }

    SideTerms {
        score,
        phase,
        pawns: n_pawns as u32,
        non_pawn,
    }
}

/// The files (bit f for file f) holding at least one of `bb`'s squares.
#[inline]
fn file_set(bb: u64) -> u8 {
    let mut b = bb;
    b |= b >> 32;
    b |= b >> 16;
    b |= b >> 8;
    b as u8
}

/// All squares of the files in `files`.
#[inline]
fn files_of(files: u8) -> u64 {
    (files as u64).wrapping_mul(FILE_A)
}

/// The square as seen from `color`'s side of the board.
#[inline]
fn relative(color: Color, sq: Square) -> usize {
    match color {
        Color::White => sq.index(),
        Color::Black => sq.flip_vertical().index(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same position with colours swapped and the board flipped top to bottom.
    fn mirror_fen(fen: &str) -> String {
        let parts: Vec<&str> = fen.split_whitespace().collect();
        let board: Vec<String> = parts[0]
            .split('/')
            .rev()
            .map(|rank| {
                rank.chars()
                    .map(|c| {
                        if c.is_ascii_uppercase() {
                            c.to_ascii_lowercase()
                        } else {
                            c.to_ascii_uppercase()
                        }
                    })
                    .collect()
            })
            .collect();
        let turn = if parts[1] == "w" { "b" } else { "w" };
        let castling: String = if parts[2] == "-" {
            "-".into()
        } else {
            let mut c: Vec<char> = parts[2]
                .chars()
                .map(|c| {
                    if c.is_ascii_uppercase() {
                        c.to_ascii_lowercase()
                    } else {
                        c.to_ascii_uppercase()
                    }
                })
                .collect();
            c.sort_by_key(|c| (c.is_ascii_lowercase(), *c));
            c.into_iter().collect()
        };
        let ep = if parts[3] == "-" {
            "-".to_string()
        } else {
            let b = parts[3].as_bytes();
            format!("{}{}", b[0] as char, (b'1' + b'8' - b[1]) as char)
        };
        format!("{} {turn} {castling} {ep} 0 1", board.join("/"))
    }

    const FENS: [&str; 6] = [
        crate::chess::START_FEN,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
        "8/7p/5k2/5p2/p1p2P2/Pr1pPK2/1P1R3P/8 b - - 0 1",
    ];

    #[test]
    fn mirrored_positions_score_the_same() {
        for fen in FENS {
            let pos = Position::from_fen(fen).unwrap();
            let mirrored = Position::from_fen(&mirror_fen(fen)).unwrap();
            assert_eq!(evaluate(&pos), evaluate(&mirrored), "{fen}");
        }
    }

    #[test]
    fn start_position_is_about_level() {
        // Symmetric at full phase: only the middlegame tempo is left.
        use crate::search::weights::{CLASSIC, TUNED};
        assert_eq!(evaluate_with(&Position::new(), &CLASSIC), 10);
        assert_eq!(evaluate_with(&Position::new(), &TUNED), TUNED.tempo.0);
        assert_eq!(evaluate(&Position::new()), ACTIVE.tempo.0);
    }

    #[test]
    fn an_extra_queen_is_winning() {
        let pos = Position::from_fen("4k3/pppppppp/8/8/8/8/PPPPPPPP/3QK3 w - - 0 1").unwrap();
        assert!(evaluate(&pos) > 800);
        let pos = Position::from_fen("4k3/pppppppp/8/8/8/8/PPPPPPPP/3QK3 b - - 0 1").unwrap();
        assert!(evaluate(&pos) < -800);
    }

    #[test]
    fn a_lone_minor_piece_is_no_win() {
        let pos = Position::from_fen("4k3/8/8/8/8/8/8/3NK3 w - - 0 1").unwrap();
        assert!(evaluate(&pos).abs() < 50);
    }

    #[test]
    fn file_sets() {
        assert_eq!(
            file_set(Bitboard::from_file(crate::chess::File::C).0),
            0b100
        );
        assert_eq!(
            files_of(0b100),
            Bitboard::from_file(crate::chess::File::C).0
        );
        // Doubled and isolated: two pawns on the a-file, none on the b-file.
        let doubled = Position::from_fen("4k3/8/8/8/P7/P7/2P5/4K3 w - - 0 1").unwrap();
        let healthy = Position::from_fen("4k3/8/8/8/1P6/P7/2P5/4K3 w - - 0 1").unwrap();
        assert!(evaluate(&doubled) < evaluate(&healthy));
    }

    #[test]
    fn passed_masks_look_ahead() {
        let e4 = Square::parse("e4").unwrap().index();
        let m = PASSED_MASK[0][e4];
        assert!(Bitboard(m).contains(Square::parse("d5").unwrap()));
        assert!(Bitboard(m).contains(Square::parse("f8").unwrap()));
        assert!(!Bitboard(m).contains(Square::parse("e4").unwrap()));
        assert!(!Bitboard(m).contains(Square::parse("c5").unwrap()));
        let b = PASSED_MASK[1][e4];
        assert!(Bitboard(b).contains(Square::parse("d3").unwrap()));
        assert!(!Bitboard(b).contains(Square::parse("e5").unwrap()));
    }
}
