//! A cheap first helpmate line for the final position of every game judged under the 2001
//! and later Laws (2017 Art. 5.2.2, 6.9; 2001 Art. 9.6): most such positions are alive, and
//! one short cooperative line ending in mate proves it. It runs before `helpmate::greedy`,
//! which stays the fallback: a failed line claims nothing.
//!
//! Per ply it does less than `greedy`: no lemma tests (the loser never captures here, so
//! the winner never loses material), no search context; the loser's king walks toward a
//! corner from its own moves alone, and the winner's queens and rooks go straight next to
//! the loser's king. Every move played comes from the position's legal moves, and a mate
//! is only reported when the mate-in-one test found a move that checkmates.

use super::helpmate::{corner_distance, distance};
use super::line::{check_squares, mate_in_one};
use crate::chess::{Bitboard, Color, Move, MoveKind, MoveList, Position, Role};

/// Plies of the line (both sides' moves).
const PLIES: usize = 50;

/// How much a checking move of the winner (not a mate) is avoided.
const CHECK_PENALTY: i32 = 200;

/// How much taking a pawn of a head-on pair is preferred when the line stops at the
/// classes (`alive`): each such pair keeps the position out of the Unlocked class.
const UNJAM_BONUS: i32 = 500;

/// The loser's pawns standing head to head with a pawn of the winner.
fn jammed(pos: &Position, winner: Color) -> Bitboard {
    let white = pos.pieces(Color::White, Role::Pawn);
    let black = pos.pieces(Color::Black, Role::Pawn);
    match winner {
        Color::White => black & (white.shift_up(1) | white.shift_down(1)),
        Color::Black => white & (black.shift_up(1) | black.shift_down(1)),
    }
}

/// The winner's move: captures and promotions first, then the men heading for the loser's
/// king (queens and rooks all the way, minor pieces to two steps), the king when few men
/// are left to mate with. `unjam`: also take the loser's pawns of head-on pairs first.
fn winner_move(
    pos: &Position,
    winner: Color,
    list: &MoveList,
    unjam: bool,
) -> (Option<Move>, Option<Move>) {
    let target = pos.king_of(winner.other());
    let men = pos.by_color(winner) & !pos.by_role(Role::King) & !pos.by_role(Role::Pawn);
    let king_helps = pos.pieces(winner, Role::Queen).is_empty() && men.count() <= 2;
    let occ = pos.occupied();
    let jammed = if unjam {
        jammed(pos, winner)
    } else {
        Bitboard::EMPTY
    };
    // Squares from which each role would check: a check that does not mate mostly leaves
    // the loser only captures or king steps away from the corner.
    let direct = check_squares(pos, winner);
    let (mut best, mut second) = (None, None);
    let (mut best_score, mut second_score) = (i32::MIN, i32::MIN);
    for &m in list.iter() {
        let (from, to) = (m.from(), m.to());
        let Some(piece) = pos.piece_at(from) else {
            continue;
        };
        let role_after = m.promotion_role().unwrap_or(piece.role);
        let (df, dt) = (distance(from, target), distance(to, target));
        let mut s = match m.kind() {
            MoveKind::Promotion(Role::Queen) => 1000,
            MoveKind::Promotion(_) => continue,
            _ => 0,
        };
        s += match piece.role {
            Role::King if king_helps => 12 * (df - dt),
            Role::King => 2 * (df - dt) - 20,
            Role::Pawn => {
                let rank = to.rank().0 as i32;
                10 + 6 * if winner == Color::White {
                    rank
                } else {
                    7 - rank
                }
            }
            Role::Queen | Role::Rook => 20 * (df - dt),
            _ => 14 * (df.max(2) - dt.max(2)) - 4,
        };
        if occ.contains(to) || m.kind() == MoveKind::EnPassant {
            s += 30;
        }
        if jammed.contains(to) {
            s += UNJAM_BONUS;
        }
        if direct[role_after.index()].contains(to) {
            s -= CHECK_PENALTY;
        }
        if s > best_score {
            (second, second_score) = (best, best_score);
            (best, best_score) = (Some(m), s);
        } else if s > second_score {
            (second, second_score) = (Some(m), s);
        }
    }
    (best, second)
}

/// The loser's move, never a capture: its king a step nearer a corner if it can, else a
/// man far from its king moving closer to it (to block its flight squares), else a pawn.
fn loser_move(pos: &Position, list: &mut MoveList) -> Option<Move> {
    let loser = pos.turn();
    let king = pos.king_of(loser);
    let occ = pos.occupied();
    list.clear();
    pos.generate_legal_from(list, Bitboard::from_square(king), !occ);
    let here = corner_distance(king);
    let step = list
        .iter()
        .filter(|m| !m.is_castle())
        .min_by_key(|m| corner_distance(m.to()))
        .copied();
    if let Some(m) = step
        && corner_distance(m.to()) < here
    {
        return Some(m);
    }
    list.clear();
    pos.generate_legal_from(list, !Bitboard::from_square(king), !occ);
    if list.is_empty() {
        // Only the king can move without capturing, or nothing can: any legal move.
        if step.is_some() {
            return step;
        }
        pos.generate_legal(list);
        return list.iter().next().copied();
    }
    let mut best = None;
    let mut best_score = i32::MIN;
    for &m in list.iter() {
        if m.kind() == MoveKind::EnPassant {
            continue;
        }
        let (from, to) = (m.from(), m.to());
        let (df, dt) = (distance(from, king), distance(to, king));
        let s = match pos.piece_at(from).map(|p| p.role) {
            Some(Role::Pawn) => match m.kind() {
                MoveKind::Promotion(Role::Knight) => 6,
                MoveKind::Promotion(_) => -30,
                _ if df <= 1 => -10,
                _ => 8,
            },
            _ if df <= 1 => -15,
            _ => 4 * (df - dt),
        };
        if s > best_score {
            best_score = s;
            best = Some(m);
        }
    }
    best
}

/// A helpmate line for `winner` from `pos`, or `None` when this line does not find one
/// (nothing is then claimed). A repeated position ends the line.
pub fn line(pos: &Position, winner: Color) -> Option<Vec<Move>> {
    played(pos, winner, false).map(|(line, _)| line)
}

/// Is `winner` shown able to mate by the line: it mates, or it reaches a position of a class
/// proved alive (`alive`) with `winner` still the side it proves, after at least one move.
/// The line's moves are legal, so that position is reachable from `pos`.
pub fn proves_alive(pos: &Position, winner: Color) -> bool {
    played(pos, winner, true).is_some()
}

/// The line's moves, and whether it ended in a class rather than a mate.
fn played(pos: &Position, winner: Color, classes: bool) -> Option<(Vec<Move>, bool)> {
    let mut p = *pos;
    let mut keys = [0u64; PLIES];
    let mut line = [Move::NONE; PLIES];
    let mut list = MoveList::new();
    // The winner's last position and second-best move, played instead when the best one
    // stalemates the loser or leads to a repeated position.
    let mut backup: Option<(Position, Move, usize)> = None;
    let mut len = 0;
    while len < PLIES {
        if classes && len > 0 && super::alive::proof(&p, winner).is_some() {
            return Some((line[..len].to_vec(), true));
        }
        let key = p.repetition_key();
        let repeated = keys[..len].contains(&key);
        let m = if repeated {
            None
        } else if p.turn() == winner {
            list.clear();
            p.generate_legal(&mut list);
            if let Some(m) = mate_in_one(&p, winner, &list) {
                line[len] = m;
                return Some((line[..=len].to_vec(), false));
            }
            let (best, second) = winner_move(&p, winner, &list, classes);
            backup = second.map(|alt| (p, alt, len));
            best
        } else {
            loser_move(&p, &mut list)
        };
        let Some(m) = m else {
            // A repetition or a stalemate: the backup once, else the line fails.
            let (before, alt, at) = backup.take()?;
            p = before;
            p.play_unchecked(alt);
            line[at] = alt;
            len = at + 1;
            continue;
        };
        keys[len] = key;
        line[len] = m;
        p.play_unchecked(m);
        len += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines that mate (with their lengths in plies), replayed move by move with the
    /// legality check.
    #[test]
    fn fast_lines_replay_to_mate() {
        let middlegame = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 1";
        for (fen, winner, plies) in [
            (middlegame, Color::White, 19),
            (middlegame, Color::Black, 14),
            // Promotes, then mates with the rook.
            ("4r3/P3n3/K1k1P3/8/8/8/3R4/8 w - - 5 79", Color::White, 3),
            // K+R v K: the king comes to help.
            ("8/5k2/8/8/3R4/8/2K5/8 w - - 0 1", Color::White, 21),
        ] {
            let pos = Position::from_fen(fen).unwrap();
            let moves = line(&pos, winner).unwrap_or_else(|| panic!("{fen}: no mate"));
            assert_eq!(moves.len(), plies, "{fen}");
            let mut p = pos;
            for m in moves {
                p = p.play(m).unwrap();
            }
            assert!(p.is_checkmate() && p.turn() == winner.other(), "{fen}");
        }
        // K+Q v K: the queen keeps off the checks and the line repeats; `greedy` mates.
        let pos = Position::from_fen("6Q1/7K/8/4k3/8/8/8/8 b - - 0 66").unwrap();
        assert_eq!(line(&pos, Color::White), None);
        // A bare king never mates.
        let pos = Position::from_fen("1k6/8/2QK4/8/8/8/8/8 b - - 11 78").unwrap();
        assert_eq!(line(&pos, Color::Black), None);
    }

    /// In check the classes stand aside (forced play); one move later the line is in one.
    #[test]
    fn the_line_stops_at_a_class_proved_alive() {
        let pos = Position::from_fen("r3k3/pp6/8/8/8/8/PP6/R3K2r w Q - 0 1").unwrap();
        assert!(pos.is_check());
        assert_eq!(super::super::alive::proof(&pos, Color::White), None);
        assert!(proves_alive(&pos, Color::White));
        let (moves, class) = played(&pos, Color::White, true).unwrap();
        assert!(class && moves.len() <= 2, "{moves:?}");
        // Without the classes the line plays on to a mate.
        assert!(line(&pos, Color::White).is_some_and(|l| l.len() > moves.len()));
    }

    /// A head-on pair with a pawn on every file keeps the position out of the classes: the
    /// line takes its pawn first and stops one ply in. (With a file free of pawns the
    /// position is in `OpenFile` at once.)
    #[test]
    fn the_line_takes_a_jammed_pawn_to_reach_a_class() {
        let open = Position::from_fen("r3k3/7p/8/4p3/4P3/5N2/P7/R3K3 w - - 0 1").unwrap();
        assert_eq!(
            super::super::alive::proof(&open, Color::White),
            Some(super::super::alive::AliveClass::OpenFile)
        );
        let fen = "r3k3/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/R3K3 w - - 0 1";
        let pos = Position::from_fen(fen).unwrap();
        assert_eq!(super::super::alive::proof(&pos, Color::White), None);
        let (moves, class) = played(&pos, Color::White, true).unwrap();
        assert!(class);
        assert_eq!(moves.len(), 1);
        assert_eq!(moves[0].to(), crate::chess::Square::parse("e5").unwrap());
    }

    /// How many master-game finals the line mates (`/tmp/master-finals.fen`, one FEN a line).
    #[test]
    #[ignore]
    fn count_master_finals() {
        let Ok(text) = std::fs::read_to_string("/tmp/master-finals.fen") else {
            return;
        };
        let (mut n, mut mated, mut plies) = (0, 0, 0);

        for l in text.lines() {
            let Ok(pos) = Position::from_fen(l.trim()) else {
                continue;
            };
            n += 1;
            for c in Color::ALL {
                if let Some(moves) = line(&pos, c) {
                    mated += 1;
                    plies += moves.len();
                    break;
                }
            }
        }
        eprintln!("{n} positions, {mated} mated, {plies} plies");
    }
}
