//! The phases of a game, opening, middlegame and endgame, by a rule on the board alone
//! (docs/ANALYSIS.md, "Phases"), and each side's accuracy and average centipawn loss over
//! the moves of each phase. A move belongs to the phase of the position it is played from.

use super::lichess;
use crate::chess::{Bitboard, Color, Move, Position, Role};

/// The phases, in the order a game goes through them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Phase {
    Opening,
    Middlegame,
    Endgame,
}

/// The middlegame has begun once the pieces other than kings and pawns, both sides together,
/// are this many or fewer (the start has 14).
pub const MIDDLEGAME_PIECES: u32 = 10;
/// … or once a side has fewer than this many of its own pieces (pawns excluded) on its back
/// rank: it has brought them out.
pub const BACK_RANK_PIECES: u32 = 4;
/// … or at the latest at this ply (after each side's 15th move from the standard start): a
/// closed game can keep its back ranks full long after the opening is over.
pub const MIDDLEGAME_PLY: usize = 30;
/// The endgame has begun once the pieces other than kings and pawns are this many or fewer.
pub const ENDGAME_PIECES: u32 = 6;

impl Phase {
    pub const ALL: [Phase; 3] = [Phase::Opening, Phase::Middlegame, Phase::Endgame];

    pub fn name(self) -> &'static str {
        match self {
            Phase::Opening => "opening",
            Phase::Middlegame => "middlegame",
            Phase::Endgame => "endgame",
        }
    }

    /// 0, 1, 2: the index into `PhaseFigures`' arrays.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Knights, bishops, rooks and queens on the board, both sides.
fn pieces(pos: &Position) -> u32 {
    (pos.occupied() - pos.by_role(Role::Pawn) - pos.by_role(Role::King)).count()
}

/// The phase a position shows by itself, `ply` plies into the game: the endgame by material,
/// the middlegame by material, a sparse back rank or the ply, else the opening.
pub fn phase_of(pos: &Position, ply: usize) -> Phase {
    let n = pieces(pos);
    if n <= ENDGAME_PIECES {
        return Phase::Endgame;
    }
    let sparse = |c: Color| {
        let home = Bitboard::from_rank(c.back_rank());
        (pos.by_color(c) & home & !pos.by_role(Role::Pawn)).count() < BACK_RANK_PIECES
    };
    if n <= MIDDLEGAME_PIECES
        || sparse(Color::White)
        || sparse(Color::Black)
        || ply >= MIDDLEGAME_PLY
    {
        Phase::Middlegame
    } else {
        Phase::Opening
    }
}

/// The phase of each move of the game (the phase of the position it is played from). Phases
/// never go back: once a position shows a later phase, the game stays in it (a promotion
/// does not bring the middlegame back).
pub fn move_phases(start: &Position, moves: &[Move]) -> Vec<Phase> {
    let mut pos = *start;
    let mut reached = Phase::Opening;
    moves
        .iter()
        .enumerate()
        .map(|(ply, &m)| {
            reached = reached.max(phase_of(&pos, ply));
            pos.play_unchecked(m);
            reached
        })
        .collect()
}

/// Each side's (White, Black) accuracy and average centipawn loss in each phase (opening,
/// middlegame, endgame); `None` where the side made no evaluated move in that phase.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PhaseFigures {
    pub accuracy: [[Option<f64>; 3]; 2],
    pub acpl: [[Option<u32>; 3]; 2],
    /// Per side, per phase: inaccuracies, mistakes, blunders (`None`: a kind not judged, or
    /// no move of the side in the phase). `figures` leaves them `None`; `game_figures`
    /// counts the game's labels.
    pub labels: [[[Option<u32>; 3]; 3]; 2],
    /// Per side, per phase: the side's moves (the denominator of its label rates).
    pub moves: [[u32; 3]; 2],
}

/// The figures of each phase from White's centipawns of every position (`white_cp`, start
/// first, `None` where not evaluated; ceiled as `lichess::acpl` reads them) and the phase of
/// each move. The accuracy is lichess's game accuracy over the phase's moves, each weighted
/// by its window in the whole game; it needs every position evaluated.
pub fn figures(white_cp: &[Option<i32>], white_first: bool, phases: &[Phase]) -> PhaseFigures {
    let mut out = PhaseFigures::default();
    let whole: Option<Vec<i32>> = white_cp.iter().copied().collect();
    for phase in Phase::ALL {
        let counted = |i: usize| phases.get(i) == Some(&phase);
        let acpl = lichess::acpl_of(white_cp, white_first, counted);
        let accuracy = whole.as_ref().map_or([None, None], |cp| {
            let ceiled: Vec<i32> = cp
                .iter()
                .map(|c| c.clamp(&-lichess::CP_CEILING, &lichess::CP_CEILING))
                .copied()
                .collect();
            lichess::game_accuracy_of(&ceiled, white_first, counted)
        });
        for side in 0..2 {
            out.acpl[side][phase.index()] = acpl[side];
            out.accuracy[side][phase.index()] = accuracy[side];
        }
    }
    for (k, phase) in phases.iter().enumerate() {
        out.moves[mover(k, white_first)][phase.index()] += 1;
    }
    out
}

/// 0 (White) or 1 (Black): the side that plays move `k` (0-based).
fn mover(k: usize, white_first: bool) -> usize {
    usize::from(k.is_multiple_of(2) != white_first)
}

/// A game's figures by phase from its analysis, as the export's per-phase columns and the
/// players' summaries read them: `figures` on White's curve (`lichess::stored_curve`), and
/// the labels by phase. A kind the analysis judges (`judged[side][kind]` is `Some`) counts
/// from 0 in each phase the side moved in, plus each of `labels` (the move's 1-based ply and
/// its label); a kind it never judges stays `None`.
pub fn game_figures(
    start: &Position,
    moves: &[Move],
    white_cp: &[Option<i32>],
    judged: Option<[[Option<u32>; 3]; 2]>,
    labels: impl IntoIterator<Item = (u32, lichess::Label)>,
) -> PhaseFigures {
    let phases = move_phases(start, moves);
    let white_first = start.turn() == Color::White;
    let mut f = figures(white_cp, white_first, &phases);
    let Some(judged) = judged else {
        return f;
    };
    for (k, phase) in phases.iter().enumerate() {
        let side = mover(k, white_first);
        for (kind, n) in f.labels[side][phase.index()].iter_mut().enumerate() {
            *n = judged[side][kind].map(|_| 0);
        }
    }
    for (ply, label) in labels {
        let Some(k) = (ply as usize).checked_sub(1) else {
            continue;
        };
        if let Some(&phase) = phases.get(k)
            && let Some(n) = &mut f.labels[mover(k, white_first)][phase.index()][label.index()]
        {
            *n += 1;
        }
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::uci::parse_uci;

    fn fen(text: &str) -> Position {
        Position::from_fen(text).unwrap()
    }

    #[test]
    fn real_positions_are_in_the_phase_the_rule_says() {
        // The start: 14 pieces, full back ranks.
        assert_eq!(phase_of(&Position::new(), 0), Phase::Opening);
        // Italian Game after 4. O-O Nf6: back ranks of 6 and 5, 14 pieces.
        let italian = fen("r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 w kq - 6 5");
        assert_eq!(phase_of(&italian, 8), Phase::Opening);
        // The same at ply 30: the middlegame at the latest.
        assert_eq!(phase_of(&italian, MIDDLEGAME_PLY), Phase::Middlegame);
        // White castled long with the bishops and queen out: three pieces on its first rank
        // (Kc1, Rd1, Rh1).
        let sparse = fen("r1bqk2r/ppp2ppp/2np1n2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/2KR3R b kq - 3 7");
        assert_eq!(phase_of(&sparse, 13), Phase::Middlegame);
        // Queens and a pair of knights off: eight pieces, full enough back ranks.
        let traded = fen("r1b2rk1/pp3ppp/2n5/3p4/3P4/2N5/PP3PPP/R1B2RK1 w - - 0 13");
        assert_eq!(pieces(&traded), 8);
        assert_eq!(phase_of(&traded, 24), Phase::Middlegame);
        // One knight off: eleven pieces, back ranks of five.
        let eleven = fen("r1bq1rk1/pp3ppp/2n5/3p4/3P4/2N2N2/PP3PPP/R1BQ1RK1 w - - 0 13");
        assert_eq!(pieces(&eleven), 11);
        assert_eq!(phase_of(&eleven, 24), Phase::Opening);
        // A rook and a bishop each: four pieces, the endgame.
        let endgame = fen("2r3k1/5ppp/4b3/8/8/4B3/5PPP/2R3K1 w - - 0 30");
        assert_eq!(phase_of(&endgame, 58), Phase::Endgame);
        // A rook endgame from a FEN start, ply 0.
        let rooks = fen("8/5pk1/6p1/8/3R4/6P1/5PKP/3r4 w - - 0 40");
        assert_eq!(phase_of(&rooks, 0), Phase::Endgame);
    }

    fn played(start: &Position, uci: &str) -> Vec<Move> {
        let mut pos = *start;
        uci.split_whitespace()
            .map(|t| {
                let m = parse_uci(&pos, t).unwrap();
                pos.play_unchecked(m);
                m
            })
            .collect()
    }

    #[test]
    fn a_game_goes_through_the_phases_in_order_and_never_back() {
        // 1. e4 e5 2. Qh5 Nc6 3. Bc4 g6 4. Qf3 Nf6 5. Qb3 Qe7 6. Nc3 Nd4 7. Ne2 d6 8. d3 Bg7
        // 9. Bg5 O-O: after 7. Ne2 White's first rank holds Ra1 Bc1 Ke1 Rh1 (four); 9. Bg5
        // leaves three, so Black's 9... O-O (move 17) is the middlegame's first.
        let start = Position::new();
        let moves = played(
            &start,
            "e2e4 e7e5 d1h5 b8c6 f1c4 g7g6 h5f3 g8f6 f3b3 d8e7 b1c3 c6d4 g1e2 d7d6 d2d3 f8g7 \
             c1g5 e8g8",
        );
        let phases = move_phases(&start, &moves);
        assert_eq!(phases[..17], [Phase::Opening; 17]);
        assert_eq!(phases[17], Phase::Middlegame);
        // A game from the endgame stays there, its promotion to a queen and all.
        let pawn = fen("8/4P1k1/8/8/8/8/5K2/8 w - - 0 60");
        assert_eq!(
            move_phases(&pawn, &played(&pawn, "e7e8q g7f6")),
            [Phase::Endgame, Phase::Endgame]
        );
    }

    #[test]
    fn each_phase_gets_the_figures_of_its_own_moves() {
        // White's two opening moves lose 0 and 100 cp, Black's none; in the middlegame
        // White loses 50, Black 30.
        let cp = [0, 0, 0, -100, -100, -150, -120];
        let curve: Vec<Option<i32>> = cp.iter().map(|&c| Some(c)).collect();
        let mut phases = [Phase::Opening; 6];
        phases[4..].fill(Phase::Middlegame);
        let f = figures(&curve, true, &phases);
        assert_eq!(f.acpl[0], [Some(50), Some(50), None]);
        assert_eq!(f.acpl[1], [Some(0), Some(30), None]);
        // Accuracy: lichess's formula over each phase's moves; White's whole-game figure lies
        // between its two phases', and a phase without a move has none.
        let whole = lichess::game_accuracy(&cp, true)[0].unwrap();
        let [o, m] = [f.accuracy[0][0].unwrap(), f.accuracy[0][1].unwrap()];
        assert!(o.min(m) <= whole && whole <= o.max(m), "{o} {m} {whole}");
        assert_eq!(f.accuracy[1][2], None);
        // Black lost nothing in the opening: 100.
        assert!((f.accuracy[1][0].unwrap() - 100.0).abs() < 1e-9, "{f:?}");
    }
}
