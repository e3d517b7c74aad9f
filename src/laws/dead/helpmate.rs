//! The bounded helpmate search: can `winner` mate if both sides cooperate? Two searches
//! share the move ordering (the winner's men head for the enemy king, the enemy king for a
//! corner, nobody takes the winner's men): an iterative-deepening depth-first search that
//! finds short mating lines, and an unbounded depth-first walk over every reachable
//! position that proves there is no mate when it runs out of positions within its budget.
//! Both prune any position where a material or blocked-position lemma already proves that
//! `winner` cannot win, and both key their tables on `repetition_key` (Art. 9.2.2 sameness,
//! which is exactly what decides the moves available later).

use super::{blocked, material};
use crate::chess::{Color, Move, MoveList, Position, Role, Square};
use std::collections::{HashMap, HashSet};

/// What a search established.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A mating line for the winner, from the searched position.
    Mate(Vec<Move>),
    /// Every reachable position was seen: no mate exists.
    Exhausted,
    /// The node budget ran out first.
    OutOfBudget,
}

/// Nodes visited, for reports and budgets.
pub type Nodes = u64;

fn distance(a: Square, b: Square) -> i32 {
    let df = (a.file().0 as i32 - b.file().0 as i32).abs();
    let dr = (a.rank().0 as i32 - b.rank().0 as i32).abs();
    df.max(dr)
}

fn corner_distance(sq: Square) -> i32 {
    let f = sq.file().0 as i32;
    let r = sq.rank().0 as i32;
    f.min(7 - f).max(r.min(7 - r))
}

/// A pruning test: true when a lemma proves that `winner` can never mate from here.
fn hopeless(pos: &Position, winner: Color) -> bool {
    material::cannot_win(pos, winner).is_some() || blocked::cannot_win(pos, winner)
}

/// Orders moves so that likely helpmate moves come first.
fn ordered(pos: &Position, winner: Color, list: &mut MoveList) {
    pos.generate_legal(list);
    let target = pos.king_of(winner.other());
    let mut scored: Vec<(i32, Move)> = list
        .iter()
        .map(|&m| (score(pos, winner, target, m), m))
        .collect();
    scored.sort_by_key(|&(s, _)| std::cmp::Reverse(s));
    list.clear();
    for (_, m) in scored {
        list.push(m);
    }
}

fn score(pos: &Position, winner: Color, target: Square, m: Move) -> i32 {
    let Some(piece) = pos.piece_at(m.from()) else {
        return 0;
    };
    let captured = pos.captured_role(m);
    if pos.turn() == winner {
        let mut s = 10 * (distance(m.from(), target) - distance(m.to(), target));
        s += match m.promotion_role() {
            Some(Role::Queen) => 1000,
            Some(Role::Knight) => 400,
            Some(_) => 100,
            None => 0,
        };
        if piece.role == Role::Pawn {
            s += 30;
        }
        if captured.is_some() {
            s += 20;
        }
        if piece.role == Role::King {
            s -= 5;
        }
        s
    } else {
        let mut s = 0;
        if captured.is_some() {
            s -= 300;
        }
        match piece.role {
            Role::King => s += 10 * (corner_distance(m.from()) - corner_distance(m.to())) + 5,
            Role::Pawn => {
                s += 20;
                if m.promotion_role().is_some() {
                    s += 50;
                }
            }
            _ => s += 3 * (distance(m.from(), target) - distance(m.to(), target)),
        }
        s
    }
}

/// Is this position a mate by `winner`? (Checked after every move.)
fn is_mate_by(pos: &Position, winner: Color) -> bool {
    pos.turn() != winner && pos.is_checkmate()
}

struct Deepening {
    winner: Color,
    nodes: Nodes,
    budget: Nodes,
    table: HashMap<u64, u32>,
    cut_by_depth: bool,
    out_of_budget: bool,
    line: Vec<Move>,
    /// Moves tried per node (winner, loser); `None` tries all, and only then can an
    /// unsuccessful search prove anything.
    breadth: Option<(usize, usize)>,
}

impl Deepening {
    /// Depth counts plies left; the iteration keeps it odd at the winner's turn, so the
    /// last ply is always the winner's.
    fn search(&mut self, pos: &Position, depth: u32) -> bool {
        self.nodes += 1;
        if self.nodes > self.budget {
            self.out_of_budget = true;
            return false;
        }
        if hopeless(pos, self.winner) {
            return false;
        }
        let key = pos.repetition_key();
        match self.table.get(&key) {
            Some(&d) if d >= depth => return false,
            _ => {
                self.table.insert(key, depth);
            }
        }
        let winner_to_move = pos.turn() == self.winner;
        let mut list = MoveList::new();
        if depth == 1 {
            pos.generate_legal(&mut list);
            for &m in list.iter() {
                let mut child = *pos;
                child.play_unchecked(m);
                if is_mate_by(&child, self.winner) {
                    self.line.push(m);
                    return true;
                }
            }
            if !list.is_empty() {
                self.cut_by_depth = true;
            }
            return false;
        }
        ordered(pos, self.winner, &mut list);
        let tried = match self.breadth {
            Some((w, l)) => {
                let n = if winner_to_move { w } else { l };
                if list.len() > n {
                    self.cut_by_depth = true;
                }
                n.min(list.len())
            }
            None => list.len(),
        };
        for &m in &list.as_slice()[..tried] {
            let mut child = *pos;
            child.play_unchecked(m);
            if winner_to_move && is_mate_by(&child, self.winner) {
                self.line.push(m);
                return true;
            }
            if self.search(&child, depth - 1) {
                self.line.push(m);
                return true;
            }
            if self.out_of_budget {
                return false;
            }
        }
        false
    }
}

/// Iterative deepening up to `max_depth` plies. With `breadth`, only the first moves in
/// the ordering are tried at each node (winner's, loser's): a guided search that finds
/// long helpmates fast but never proves their absence.
pub fn deepening(
    pos: &Position,
    winner: Color,
    max_depth: u32,
    budget: Nodes,
    breadth: Option<(usize, usize)>,
) -> (Outcome, Nodes) {
    if is_mate_by(pos, winner) {
        return (Outcome::Mate(Vec::new()), 0);
    }
    let mut s = Deepening {
        winner,
        nodes: 0,
        budget,
        table: HashMap::new(),
        cut_by_depth: false,
        out_of_budget: false,
        line: Vec::new(),
        breadth,
    };
    let first = if pos.turn() == winner { 1 } else { 2 };
    for depth in (first..=max_depth).step_by(2) {
        s.table.clear();
        s.cut_by_depth = false;
        if s.search(pos, depth) {
            s.line.reverse();
            return (Outcome::Mate(s.line), s.nodes);
        }
        if s.out_of_budget {
            return (Outcome::OutOfBudget, s.nodes);
        }
        if !s.cut_by_depth {
            return (Outcome::Exhausted, s.nodes);
        }
    }
    (Outcome::OutOfBudget, s.nodes)
}

/// Walks every position reachable from `pos` (depth first, no depth limit), pruning
/// hopeless ones, until a mate by `winner` appears or nothing is left.
pub fn exhaust(pos: &Position, winner: Color, budget: Nodes) -> (Outcome, Nodes) {
    struct Frame {
        pos: Position,
        moves: MoveList,
        next: usize,
    }
    if is_mate_by(pos, winner) {
        return (Outcome::Mate(Vec::new()), 0);
    }
    let mut seen: HashSet<u64> = HashSet::new();
    seen.insert(pos.repetition_key());
    let mut nodes: Nodes = 1;
    let mut stack = Vec::new();
    let mut moves = MoveList::new();
    if !hopeless(pos, winner) {
        ordered(pos, winner, &mut moves);
        stack.push(Frame {
            pos: *pos,
            moves,
            next: 0,
        });
    }
    while let Some(top) = stack.last_mut() {
        let Some(&m) = top.moves.as_slice().get(top.next) else {
            stack.pop();
            continue;
        };
        top.next += 1;
        let mut child = top.pos;
        child.play_unchecked(m);
        if !seen.insert(child.repetition_key()) {
            continue;
        }
        nodes += 1;
        if nodes > budget {
            return (Outcome::OutOfBudget, nodes);
        }
        if is_mate_by(&child, winner) {
            // Each frame's last tried move is on the path; the top frame's is `m`.
            let line = stack
                .iter()
                .map(|f| f.moves.as_slice()[f.next - 1])
                .collect();
            return (Outcome::Mate(line), nodes);
        }
        if hopeless(&child, winner) {
            continue;
        }
        let mut moves = MoveList::new();
        ordered(&child, winner, &mut moves);
        if !moves.is_empty() {
            stack.push(Frame {
                pos: child,
                moves,
                next: 0,
            });
        }
    }
    (Outcome::Exhausted, nodes)
}
