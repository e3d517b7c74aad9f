//! Shortens a helpmate line before it is shown (`arbiter dead FEN`). The exhaustive walk
//! (`helpmate::exhaust`) proves a side can win (2017 Art. 5.2.2, 6.9) with whatever line its
//! depth-first order ran into, which in a large reachable set can wander for tens of
//! thousands of plies before the mate. The line is proof enough; this only makes it
//! readable.
//!
//! The positions of the line are the nodes of a graph: from each, every legal move that
//! lands on a position of the line (the same position in Art. 9.2.2's sense:
//! `Position::repetition_key`) is an edge, and so is a mate in one by the winner, to the
//! end. A breadth-first search from the first position gives the shortest line through
//! those positions; each node's moves are generated once, so it costs a few move
//! generations per ply of the old line. Every move of the result is legal where it is
//! played and the result ends in mate, or the original line is returned.

use std::collections::HashMap;
use std::collections::VecDeque;

use super::helpmate::is_mate_by;
use super::line::mate_in_one;
use crate::chess::zobrist::BuildKeyHasher;
use crate::chess::{Color, Move, Position};

/// The shortest line from `pos` to a mate by `winner` through positions of `line` (which
/// must be a legal line from `pos` ending in that mate), or `line` itself when it is not.
pub fn shorten(pos: &Position, winner: Color, line: &[Move]) -> Vec<Move> {
    // The positions of the line; a position met more than once is one node, and its last
    // index stands for it.
    let mut positions = Vec::with_capacity(line.len() + 1);
    let mut p = *pos;
    positions.push(p);
    for &m in line {
        match p.play(m) {
            Ok(next) => p = next,
            Err(_) => return line.to_vec(),
        }
        positions.push(p);
    }
    if !is_mate_by(&p, winner) {
        return line.to_vec();
    }
    let end = line.len();
    let mut node: HashMap<u64, usize, BuildKeyHasher> = HashMap::default();
    node.reserve(positions.len());
    for (i, q) in positions.iter().enumerate() {
        node.insert(q.repetition_key(), i);
    }
    // Breadth first: `from[v]` is the node and move that first reached node `v` (a node
    // other than `start` is seen once it has one); reaching `end`, or a mate in one found
    // on the way, stops the search.
    let mut from: Vec<Option<(usize, Move)>> = vec![None; positions.len()];
    let start = node[&pos.repetition_key()];
    let mut queue = VecDeque::from([start]);
    let mut finish: Option<(usize, Option<Move>)> = (start == end).then_some((end, None));
    while finish.is_none() {
        let Some(u) = queue.pop_front() else { break };
        let here = &positions[u];
        let list = here.legal_moves();
        if here.turn() == winner
            && let Some(m) = mate_in_one(here, winner, &list)
        {
            finish = Some((u, Some(m)));
            break;
        }
        for &m in list.iter() {
            let mut child = *here;
            child.play_unchecked(m);
            let Some(&v) = node.get(&child.repetition_key()) else {
                continue;
            };
            if v != start && from[v].is_none() {
                from[v] = Some((u, m));
                if v == end {
                    finish = Some((end, None));
                    break;
                }
                queue.push_back(v);
            }
        }
    }
    let Some((last, mate)) = finish else {
        return line.to_vec();
    };
    let mut moves: Vec<Move> = mate.into_iter().collect();
    let mut v = last;
    while v != start {
        let Some((u, m)) = from[v] else {
            return line.to_vec();
        };
        moves.push(m);
        v = u;
    }
    moves.reverse();
    if moves.len() < line.len() {
        moves
    } else {
        line.to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::laws::dead::{Budget, Winnability, analyse_side};

    fn san_moves(pos: &Position, sans: &[&str]) -> Vec<Move> {
        let mut p = *pos;
        sans.iter()
            .map(|s| {
                crate::chess::san::play_san(&mut p, s, crate::chess::san::SanMode::Strict)
                    .unwrap()
                    .mv
            })
            .collect()
    }

    fn mates(pos: &Position, winner: Color, line: &[Move]) -> bool {
        let mut p = *pos;
        for &m in line {
            p = p.play(m).unwrap();
        }
        is_mate_by(&p, winner)
    }

    /// A line that wanders before the mate is cut to the mate found on the way.
    #[test]
    fn a_wandering_line_is_cut_short() {
        // K+R v K: the rook could mate at once, but the line walks the kings about first.
        let pos = Position::from_fen("7k/8/6K1/8/8/8/8/R7 w - - 0 1").unwrap();
        let long = san_moves(
            &pos,
            &[
                "Kf6", "Kg8", "Kg6", "Kh8", "Kf6", "Kg8", "Kg6", "Kh8", "Ra8#",
            ],
        );
        assert!(mates(&pos, Color::White, &long));
        let short = shorten(&pos, Color::White, &long);
        assert_eq!(short, san_moves(&pos, &["Ra8#"]));
    }

    /// A detour through positions met again later is skipped: the line goes round a loop
    /// (the start again after four plies), and after Black's first move the rook mates at
    /// once.
    #[test]
    fn a_loop_is_skipped() {
        let pos = Position::from_fen("k7/8/1K6/8/8/8/8/7R b - - 0 1").unwrap();
        let long = san_moves(
            &pos,
            &["Kb8", "Rh2", "Ka8", "Rh1", "Kb8", "Rh7", "Ka8", "Rh8#"],
        );
        assert!(mates(&pos, Color::White, &long));
        let short = shorten(&pos, Color::White, &long);
        assert_eq!(short, san_moves(&pos, &["Kb8", "Rh8#"]));
    }

    /// Without a mate in one early on, only the loop goes: the knight blocking the
    /// rook's file goes out and back while Black's knight does the same, then clears the
    /// file for a back-rank mate.
    #[test]
    fn only_the_loop_goes_when_no_shortcut_mates() {
        let pos = Position::from_fen("7k/p5pp/8/8/4N3/8/8/n3R1K1 w - - 0 1").unwrap();
        let long = san_moves(&pos, &["Nc5", "Nb3", "Ne4", "Na1", "Nc3", "Nb3", "Re8#"]);
        assert!(mates(&pos, Color::White, &long));
        let short = shorten(&pos, Color::White, &long);
        assert_eq!(short, san_moves(&pos, &["Nc3", "Nb3", "Re8#"]));
    }

    /// A line of the exhaustive walk: in this position (from D3-Chess's test vector) only a
    /// walk of tens of thousands of nodes finds White's helpmate, and its line wanders
    /// for tens of thousands of plies; the shortest line through its positions has 25.
    #[test]
    fn a_walk_line_shrinks_to_a_readable_one() {
        let pos = Position::from_fen("k7/1b6/2b5/8/8/1pB5/pP6/K7 w - -").unwrap();
        let Winnability::CanWin { line, .. } = analyse_side(&pos, Color::White, Budget::default())
        else {
            panic!("White's helpmate not found");
        };
        assert!(line.len() > 10_000, "{}", line.len());
        let short = shorten(&pos, Color::White, &line);
        assert!(mates(&pos, Color::White, &short));
        assert_eq!(short.len(), 25);
    }

    /// A line that is not a mate from the position is returned unchanged.
    #[test]
    fn a_line_that_does_not_mate_is_left_alone() {
        let pos = Position::from_fen("7k/8/6K1/8/8/8/8/R7 w - - 0 1").unwrap();
        let line = san_moves(&pos, &["Kf6", "Kg8"]);
        assert_eq!(shorten(&pos, Color::White, &line), line);
    }
}
