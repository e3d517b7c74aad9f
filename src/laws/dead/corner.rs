//! Helpmates in pawnless endings of minor pieces (2017 Art. 5.2.2 and 6.9; 2001 Art. 9.6):
//! each king with at most two knights or bishops, the winner with at least one. Such
//! endings are common at the end of real games (K+N v K+B, K+B v K+B on opposite colours,
//! K+N+N v K), and their only mates are corner mates in which the loser's own men fill
//! flight squares: the generic probes, which steer men toward the enemy king, miss them and
//! the complete searches need thousands of nodes.
//!
//! This stage works from the other end. It lists the mates of the material in the corners
//! (the loser's king on a corner square, its men next to it, the winner's king two steps
//! away, the winner's men within the corner's 4×4 block), once per material and thread, and
//! then searches, by iterative deepening on moves played plus a lower bound of the moves
//! still needed (IDA*), for a line of legal moves that brings every man to the squares of
//! one of those mates. The bound is each side's sum of its men's distances to their target
//! squares (king steps, knight moves, 0–2 bishop moves), turned into plies with the turn
//! order; reaching the placement with the loser to move is the mate, which is verified.
//! A line found is a proof that the winner can mate; failing proves nothing.

use super::helpmate::{Nodes, distance};
use crate::chess::{Bitboard, Color, Move, Piece, Position, Role, Setup, Square, attacks};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::OnceLock;

/// A side's men other than its king, in groups of interchangeable men: knights,
/// light-squared bishops, dark-squared bishops.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Force([u8; 3]);

const GROUPS: usize = 3;

/// The squares of each group of `color`'s men.
fn groups(pos: &Position, color: Color) -> [Bitboard; GROUPS] {
    let bishops = pos.pieces(color, Role::Bishop);
    [
        pos.pieces(color, Role::Knight),
        bishops & Bitboard::LIGHT_SQUARES,
        bishops & Bitboard::DARK_SQUARES,
    ]
}

fn force_of(groups: &[Bitboard; GROUPS]) -> Force {
    Force(groups.map(|g| g.count() as u8))
}

/// The role and square colour of each group.
const GROUP_ROLE: [Role; GROUPS] = [Role::Knight, Role::Bishop, Role::Bishop];
const GROUP_SQUARES: [Bitboard; GROUPS] = [
    Bitboard::FULL,
    Bitboard::LIGHT_SQUARES,
    Bitboard::DARK_SQUARES,
];

/// Does this stage apply: no pawns, rooks or queens; each side at most two men besides
/// its king, the winner at least one?
pub(super) fn applies(pos: &Position, winner: Color) -> bool {
    let heavy = pos.by_role(Role::Pawn) | pos.by_role(Role::Rook) | pos.by_role(Role::Queen);
    if heavy.nonempty() {
        return false;
    }
    let men = |c: Color| (pos.by_color(c) & !pos.by_role(Role::King)).count();
    (1..=2).contains(&men(winner)) && men(winner.other()) <= 2
}

/// A checkmate of the material: where each man stands, the loser to move.
#[derive(Debug, Clone, Copy)]
struct Pattern {
    kings: [Square; 2],
    /// Indexed by side (0: winner, 1: loser), then group.
    men: [[Bitboard; GROUPS]; 2],
}

/// Knight-move distances between squares, by a breadth-first search from each square over
/// the knight's attack sets, made on first use.
fn knight_distances() -> &'static [[u8; 64]; 64] {
    static TABLE: OnceLock<[[u8; 64]; 64]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = [[u8::MAX; 64]; 64];
        for from in Square::all() {
            let row = &mut t[from.index()];
            row[from.index()] = 0;
            let mut frontier = Bitboard::from_square(from);
            let mut seen = frontier;
            let mut d = 0;
            while frontier.nonempty() {
                d += 1;
                let mut next = Bitboard::EMPTY;
                for sq in frontier {
                    next |= attacks::knight_attacks(sq);
                }
                next &= !seen;
                for sq in next {
                    row[sq.index()] = d;
                }
                seen |= next;
                frontier = next;
            }
        }
        t
    })
}

/// Moves a man of `group` needs from `a` to `b` on an empty board (bishops of a group stay
/// on their colour, so `b` is always reachable).
#[inline]
fn man_distance(group: usize, a: Square, b: Square) -> u32 {
    if group == 0 {
        return knight_distances()[a.index()][b.index()] as u32;
    }
    if a == b {
        0
    } else if attacks::bishop_rays(a).contains(b) {
        1
    } else {
        2
    }
}

/// Moves a group's men need to reach `targets` (at most two men: the better assignment).
#[inline]
fn group_distance(group: usize, now: Bitboard, targets: Bitboard) -> u32 {
    let mut now_it = now.into_iter();
    let mut to_it = targets.into_iter();
    match (now_it.next(), now_it.next(), to_it.next(), to_it.next()) {
        (None, _, None, _) => 0,
        (Some(a), None, Some(x), None) => man_distance(group, a, x),
        (Some(a), Some(b), Some(x), Some(y)) => {
            let straight = man_distance(group, a, x) + man_distance(group, b, y);
            let crossed = man_distance(group, a, y) + man_distance(group, b, x);
            straight.min(crossed)
        }
        // A man was taken: the pattern can no longer be reached (more moves than any line
        // searched, small enough that sums of it never overflow).
        _ => 1_000,
    }
}

/// Mates of a material, by winner colour and the two sides' forces, built once per thread.
type Cache = HashMap<(Color, Force, Force), Rc<[Pattern]>>;

thread_local! {
    static PATTERNS: RefCell<Cache> = RefCell::new(HashMap::new());
}

/// The corner mates of the material of `pos` with `winner` mating.
fn patterns(winner: Color, wf: Force, lf: Force) -> Rc<[Pattern]> {
    PATTERNS.with(|cache| {
        cache
            .borrow_mut()
            .entry((winner, wf, lf))
            .or_insert_with(|| build_patterns(winner, wf, lf).into())
            .clone()
    })
}

/// Every placement, in each corner, of the loser's king on the corner square, its men on
/// the squares next to it, the winner's king two steps away and the winner's men in the
/// corner's 4×4 block, that is a legal position with the loser to move and checkmated.
fn build_patterns(winner: Color, wf: Force, lf: Force) -> Vec<Pattern> {
    let mut out = Vec::new();
    for corner in [Square::A1, Square::H1, Square::A8, Square::H8] {
        let next_to = attacks::king_attacks(corner);
        let block = Square::all()
            .filter(|&s| {
                (s.file().0 as i32 - corner.file().0 as i32).abs() <= 3
                    && (s.rank().0 as i32 - corner.rank().0 as i32).abs() <= 3
            })
            .fold(Bitboard::EMPTY, |b, s| b | Bitboard::from_square(s));
        let kings = Square::all().filter(|&s| distance(s, corner) == 2);
        for wk in kings {
            let taken = Bitboard::from_square(corner) | Bitboard::from_square(wk);
            // The men to place: (side, group, candidate squares, how many).
            let mut wants = Vec::new();
            for (g, squares) in GROUP_SQUARES.into_iter().enumerate() {
                wants.push((0usize, g, block & squares, wf.0[g]));
                wants.push((1usize, g, next_to & squares, lf.0[g]));
            }
            let mut men = [[Bitboard::EMPTY; GROUPS]; 2];
            place(&wants, taken, &mut men, &mut |men| {
                let pattern = Pattern {
                    kings: [wk, corner],
                    men: *men,
                };
                // Most placements give no check at all: ruled out before a position is built.
                if gives_check(&pattern) && is_mate(&pattern, winner) {
                    out.push(pattern);
                }
            });
        }
    }
    out
}

/// Calls `found` with every placement of the wanted men on distinct free squares.
fn place(
    wants: &[(usize, usize, Bitboard, u8)],
    taken: Bitboard,
    men: &mut [[Bitboard; GROUPS]; 2],
    found: &mut dyn FnMut(&[[Bitboard; GROUPS]; 2]),
) {
    let Some((&(side, group, squares, count), rest)) = wants.split_first() else {
        found(men);
        return;
    };
    let free = squares & !taken;
    match count {
        0 => place(rest, taken, men, found),
        1 => {
            for s in free {
                let b = Bitboard::from_square(s);
                men[side][group] = b;
                place(rest, taken | b, men, found);
            }
            men[side][group] = Bitboard::EMPTY;
        }
        _ => {
            for a in free {
                for b in free {
                    if b.index() <= a.index() {
                        continue;
                    }
                    let two = Bitboard::from_square(a) | Bitboard::from_square(b);
                    men[side][group] = two;
                    place(rest, taken | two, men, found);
                }
            }
            men[side][group] = Bitboard::EMPTY;
        }
    }
}

/// Does a man of the winner attack the loser's king in the pattern (a knight, or a bishop
/// with nothing between)? A mate needs it; the winner's king never checks.
fn gives_check(p: &Pattern) -> bool {
    let king = p.kings[1];
    let mut occupied = Bitboard::from_square(p.kings[0]) | Bitboard::from_square(king);
    for side in &p.men {
        for &g in side {
            occupied |= g;
        }
    }
    let [knights, light, dark] = p.men[0];
    (attacks::knight_attacks(king) & knights).nonempty()
        || (attacks::bishop_attacks(king, occupied) & (light | dark)).nonempty()
}

/// Is the pattern a legal position, the loser to move and checkmated?
fn is_mate(p: &Pattern, winner: Color) -> bool {
    let mut setup = Setup::empty();
    setup.turn = winner.other();
    for (side, color) in [(0, winner), (1, winner.other())] {
        setup.board[p.kings[side].index()] = Some(Piece::new(color, Role::King));
        for (men, role) in p.men[side].into_iter().zip(GROUP_ROLE) {
            for s in men {
                setup.board[s.index()] = Some(Piece::new(color, role));
            }
        }
    }
    Position::from_setup(&setup, false).is_ok_and(|pos| pos.is_checkmate())
}

/// Moves `color`'s king and each group of its men need to reach their squares in the
/// pattern (`side` 0: the winner).
fn side_parts(pos: &Position, p: &Pattern, side: usize, color: Color) -> (u32, [u32; GROUPS]) {
    let king = distance(pos.king_of(color), p.kings[side]) as u32;
    let now = groups(pos, color);
    let men = std::array::from_fn(|g| group_distance(g, now[g], p.men[side][g]));
    (king, men)
}

/// Moves `color`'s men need in all to reach their squares in the pattern.
fn side_moves(pos: &Position, p: &Pattern, side: usize, color: Color) -> u32 {
    let (king, men) = side_parts(pos, p, side, color);
    king + men.iter().sum::<u32>()
}

/// Plies at least to play, the winner needing `w` moves and the loser `l`, to reach the
/// placement with the loser to move: the sides alternate, and the winner moves last.
#[inline]
fn plies_for(w: u32, l: u32, winner_to_move: bool) -> u32 {
    if winner_to_move {
        // An odd number: the winner makes one move more than the loser.
        (2 * w).saturating_sub(1).max(2 * l + 1)
    } else {
        // An even number (none when the placement is already there).
        2 * w.max(l)
    }
}

/// Plies at least from `pos` to the pattern's placement with the loser to move.
fn plies_needed(pos: &Position, p: &Pattern, winner: Color) -> u32 {
    plies_for(
        side_moves(pos, p, 0, winner),
        side_moves(pos, p, 1, winner.other()),
        pos.turn() == winner,
    )
}

/// Deepest line searched.
const MAX_PLIES: u32 = 64;
/// Rounds over the patterns, nearest first: how many are tried and the most nodes each may
/// take. A reachable pattern is mostly reached in a few dozen nodes, while the search for
/// one the men cannot reach in that order (a king in the way, the wrong side to move)
/// fills its whole bound, so many patterns get a few nodes before a few get many.
const ROUNDS: [(usize, Nodes); 2] = [(32, 250), (8, 2_500)];

struct Search<'a> {
    pattern: &'a Pattern,
    winner: Color,
    nodes: Nodes,
    limit: Nodes,
    line: Vec<Move>,
    keys: Vec<u64>,
}

enum Step {
    Found,
    /// Not found under this bound; the least bound that would go further.
    Over(u32),
    OutOfNodes,
}

impl Search<'_> {
    /// The moves of the side to move that take nothing (a capture changes the material, and
    /// the pattern can no longer be reached), each with the plies still needed after it,
    /// computed from the moved man's distance alone, least first.
    fn children(&self, pos: &Position, out: &mut [(u32, Move); MAX_CHILDREN]) -> usize {
        let mover = pos.turn();
        let side = usize::from(mover != self.winner);
        let p = self.pattern;
        let other = side_moves(pos, p, 1 - side, mover.other());
        let king = pos.king_of(mover);
        let now = groups(pos, mover);
        let (king_now, group_now) = side_parts(pos, p, side, mover);
        let total = king_now + group_now.iter().sum::<u32>();
        let occupied = pos.occupied();
        let mut n = 0;
        for &m in pos.legal_moves().iter() {
            let (from, to) = (m.from(), m.to());
            if occupied.contains(to) || n == MAX_CHILDREN {
                continue;
            }
            let moved = if from == king {
                total - king_now + distance(to, p.kings[side]) as u32
            } else {
                let Some(g) = (0..GROUPS).find(|&g| now[g].contains(from)) else {
                    continue;
                };
                let after = now[g] ^ Bitboard::from_square(from) ^ Bitboard::from_square(to);
                total - group_now[g] + group_distance(g, after, p.men[side][g])
            };
            let (w, l) = if side == 0 {
                (moved, other)
            } else {
                (other, moved)
            };
            // After the move the other side is to move.
            out[n] = (plies_for(w, l, side == 1), m);
            n += 1;
        }
        out[..n].sort_unstable_by_key(|c| c.0);
        n
    }

    fn walk(&mut self, pos: &Position, need: u32, bound: u32) -> Step {
        self.nodes += 1;
        if self.nodes > self.limit {
            return Step::OutOfNodes;
        }
        if need == 0 {
            // The pattern's placement with the loser to move: the mate (checked all the same).
            return if pos.is_checkmate() {
                Step::Found
            } else {
                Step::Over(u32::MAX)
            };
        }
        let depth = self.line.len() as u32 + 1;
        let mut children = [(0, Move::NONE); MAX_CHILDREN];
        let n = self.children(pos, &mut children);
        let mut least = u32::MAX;
        for &(child_need, m) in &children[..n] {
            if depth + child_need > bound {
                // Sorted: every later child needs as much or more.
                least = least.min(depth + child_need);
                break;
            }
            let mut child = *pos;
            child.play_unchecked(m);
            let key = child.repetition_key();
            if self.keys.contains(&key) {
                continue;
            }
            self.line.push(m);
            self.keys.push(key);
            match self.walk(&child, child_need, bound) {
                Step::Found => return Step::Found,
                Step::OutOfNodes => return Step::OutOfNodes,
                Step::Over(b) => least = least.min(b),
            }
            self.line.pop();
            self.keys.pop();
        }
        Step::Over(least)
    }
}

/// At most this many moves of a node are searched (the material here has fewer than 40).
const MAX_CHILDREN: usize = 64;

/// A helpmate line for `winner` from `pos` (which must satisfy [`applies`]), and the nodes
/// visited; `None` claims nothing.
pub(super) fn line(pos: &Position, winner: Color, budget: Nodes) -> (Option<Vec<Move>>, Nodes) {
    let (wf, lf) = (
        force_of(&groups(pos, winner)),
        force_of(&groups(pos, winner.other())),
    );
    let all = patterns(winner, wf, lf);
    let mut order: Vec<(u32, usize)> = all
        .iter()
        .enumerate()
        .map(|(i, p)| (plies_needed(pos, p, winner), i))
        .filter(|&(need, _)| need <= MAX_PLIES)
        .collect();
    order.sort_unstable();
    let mut used = 0;
    for (patterns, nodes) in ROUNDS {
        for &(need, i) in order.iter().take(patterns) {
            if used >= budget {
                return (None, used);
            }
            let mut search = Search {
                pattern: &all[i],
                winner,
                nodes: 0,
                limit: nodes.min(budget - used),
                line: Vec::new(),
                keys: vec![pos.repetition_key()],
            };
            let mut bound = need;
            let found = loop {
                match search.walk(pos, need, bound) {
                    Step::Found => break true,
                    Step::OutOfNodes => break false,
                    Step::Over(next) if next <= MAX_PLIES => bound = next,
                    Step::Over(_) => break false,
                }
            };
            used += search.nodes;
            if found {
                return (Some(search.line), used);
            }
        }
    }
    (None, used)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replays_to_mate(fen: &str, winner: Color) -> usize {
        let pos = Position::from_fen(fen).unwrap();
        assert!(applies(&pos, winner), "{fen}");
        let (line, _) = line(&pos, winner, 20_000);
        let moves = line.unwrap_or_else(|| panic!("{fen}: no corner mate for {winner:?}"));
        let mut p = pos;
        for &m in &moves {
            p = p.play(m).unwrap();
        }
        assert!(p.is_checkmate() && p.turn() == winner.other(), "{fen}");
        moves.len()
    }

    /// Knight-move distances: known values.
    #[test]
    fn knight_move_distances() {
        let d = |a: &str, b: &str| {
            knight_distances()[Square::parse(a).unwrap().index()][Square::parse(b).unwrap().index()]
        };
        assert_eq!(d("a1", "a1"), 0);
        assert_eq!(d("a1", "b3"), 1);
        assert_eq!(d("a1", "b2"), 4);
        assert_eq!(d("a1", "h8"), 6);
        assert_eq!(d("d4", "e5"), 2);
    }

    /// Final positions of master games the other stages found costly: K+N v K+B, K+B v K+B
    /// on opposite colours, K+N v K+N, K+N+N v K+B.
    #[test]
    fn corner_mates_of_real_endings_replay() {
        for (fen, winner) in [
            ("8/8/5K1N/5b2/5k2/8/8/8 w - - 0 80", Color::Black),
            ("8/8/7k/2bB4/5K2/8/8/8 b - - 0 60", Color::White),
            ("8/k7/4n3/8/2N5/8/8/5K2 b - - 5 71", Color::White),
            ("8/8/4k3/4b3/4N3/3N1K2/8/8 w - - 1 68", Color::White),
            ("7b/4kN2/6K1/8/8/8/8/8 w - - 0 78", Color::White),
        ] {
            replays_to_mate(fen, winner);
        }
    }
}
