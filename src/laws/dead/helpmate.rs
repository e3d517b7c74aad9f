//! The bounded helpmate search: can `winner` mate if both sides cooperate? The searches
//! share one move ordering (the winner's men head for the enemy king, the enemy king for a
//! corner, the loser's men step out of the way and never take):
//! - `probe`: narrow greedy passes (one or two moves per node, deep) that find the long
//!   but obvious helpmates of ordinary positions in a few dozen nodes;
//! - `deepening`: iterative deepening over every move, which finds short mates and, when no
//!   branch was cut by the depth, proves there is none;
//! - `exhaust`: an unbounded depth-first walk over every reachable position, which proves
//!   there is no mate when it runs out of positions within its budget;
//! - `toward_corners`: the narrow passes again, the loser's king steered toward a far
//!   corner instead of the nearest (a plan for the mates only a far corner allows).
//!
//! All prune positions where a material or blocked-position lemma proves that `winner`
//! cannot win, and key their tables on `repetition_key` (Art. 9.2.2 sameness, which is
//! exactly what decides the moves available later). Nothing allocates per node: the lossy
//! table and the scored move lists (one per depth) are reused by the thread.

use super::line::{check_squares, mate_in_one};
use super::{blocked, material};
use crate::chess::moves::MAX_MOVES;
use crate::chess::zobrist::BuildKeyHasher;
use crate::chess::{Bitboard, Color, Move, MoveKind, MoveList, Position, Role, Square, attacks};
use std::cell::RefCell;
use std::collections::HashSet;

/// What a search established.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HelpmateSearch {
    /// A mating line for the winner, from the searched position.
    Mate(Vec<Move>),
    /// Every reachable position was seen: no mate exists.
    Exhausted,
    /// The node budget ran out first.
    OutOfBudget,
}

/// Nodes visited, for reports and budgets.
pub type Nodes = u64;

/// King-step (Chebyshev) distances between squares, and from each square to the nearest
/// corner: looked up for every move scored, so computed once at compile time.
const DISTANCE: [[u8; 64]; 64] = {
    let mut t = [[0u8; 64]; 64];
    let mut a = 0;
    while a < 64 {
        let mut b = 0;
        while b < 64 {
            let df = (a % 8) as i32 - (b % 8) as i32;
            let dr = (a / 8) as i32 - (b / 8) as i32;
            let (df, dr) = (df.abs(), dr.abs());
            t[a][b] = if df > dr { df } else { dr } as u8;
            b += 1;
        }
        a += 1;
    }
    t
};

const CORNER_DISTANCE: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut sq = 0;
    while sq < 64 {
        let (f, r) = (sq % 8, sq / 8);
        let f = if f < 7 - f { f } else { 7 - f };
        let r = if r < 7 - r { r } else { 7 - r };
        t[sq] = if f > r { f } else { r } as u8;
        sq += 1;
    }
    t
};

/// King-step distance between two squares.
#[inline]
pub(super) fn distance(a: Square, b: Square) -> i32 {
    DISTANCE[a.index()][b.index()] as i32
}

/// Chebyshev distance to the nearest corner.
#[inline]
pub(super) fn corner_distance(sq: Square) -> i32 {
    CORNER_DISTANCE[sq.index()] as i32
}

/// A pruning test: true when a lemma proves that `winner` can never mate from here.
fn hopeless(pos: &Position, winner: Color) -> bool {
    material::cannot_win(pos, winner).is_some() || blocked::cannot_win(pos, winner)
}

/// Is this position a mate by `winner`?
#[inline]
pub(super) fn is_mate_by(pos: &Position, winner: Color) -> bool {
    pos.turn() != winner && pos.is_checkmate()
}

/// Squares from which a piece of each role (index by `Role::index`) attacks `king`, and the
/// squares whose man, by moving away, might uncover an attack on it. A move that lands on
/// none of the first and leaves none of the second cannot give check, except castling and
/// en passant, which `may_check` lets through.
struct CheckSquares {
    direct: [Bitboard; 6],
    uncover: Bitboard,
}

impl CheckSquares {
    fn new(pos: &Position, winner: Color) -> CheckSquares {
        let direct = check_squares(pos, winner);
        CheckSquares {
            direct,
            uncover: direct[Role::Queen.index()],
        }
    }

    #[cfg(test)]
    fn may_check(&self, pos: &Position, m: Move) -> bool {
        match m.kind() {
            MoveKind::Castle | MoveKind::EnPassant => true,
            MoveKind::Promotion(role) => {
                self.direct[role.index()].contains(m.to()) || self.uncover.contains(m.from())
            }
            _ => {
                let Some(p) = pos.piece_at(m.from()) else {
                    return false;
                };
                self.direct[p.role.index()].contains(m.to()) || self.uncover.contains(m.from())
            }
        }
    }
}

/// Can the king of the side to move step to a square nobody attacks? A cheap necessary
/// condition that rejects most checks before the full mate test generates every move.
pub(super) fn has_flight(pos: &Position) -> bool {
    let us = pos.turn();
    let king = pos.king_of(us);
    let occ = pos.occupied() & !Bitboard::from_square(king);
    (attacks::king_attacks(king) & !pos.by_color(us))
        .any(|sq| !pos.is_attacked_with(sq, us.other(), occ))
}

/// Every square `color`'s men attack (pawns by capture), with `occ` as blockers.
fn attacked_by(pos: &Position, color: Color, occ: Bitboard) -> Bitboard {
    let mut out = Bitboard::EMPTY;
    for sq in pos.by_color(color) {
        let Some(p) = pos.piece_at(sq) else { continue };
        out |= match p.role {
            Role::Pawn => attacks::pawn_attacks(color, sq),
            Role::Knight => attacks::knight_attacks(sq),
            Role::Bishop => attacks::bishop_attacks(sq, occ),
            Role::Rook => attacks::rook_attacks(sq, occ),
            Role::Queen => attacks::queen_attacks(sq, occ),
            Role::King => attacks::king_attacks(sq),
        };
    }
    out
}

/// Legal moves with a helpmate score each, best picked lazily (most nodes look at only
/// one or two moves, so a full sort would be wasted).
struct Scored {
    moves: MoveList,
    scores: [i16; MAX_MOVES],
    next: usize,
}

impl Scored {
    /// An empty list, to be filled node after node (`fill`): made once per thread and depth
    /// (`Scratch`), as making one per node (zeroing its scores) cost some 3 % of the time
    /// the D3-Chess vector takes.
    fn empty() -> Scored {
        Scored {
            moves: MoveList::new(),
            scores: [0; MAX_MOVES],
            next: 0,
        }
    }

    /// Fills the list with the legal moves of `pos` and their scores; with a goal, the
    /// loser's king heads for that square rather than a corner (apart, so that the
    /// ordinary ordering pays nothing for it).
    fn fill(&mut self, pos: &Position, winner: Color, quick: bool, goal: Option<Square>) {
        self.moves.clear();
        self.next = 0;
        pos.generate_legal(&mut self.moves);
        let ctx = Context::new(pos, winner, quick);
        match goal {
            None => {
                for (i, &m) in self.moves.iter().enumerate() {
                    self.scores[i] = ctx.score(pos, m) as i16;
                }
            }
            Some(goal) => {
                let steer = Steer::new(pos, &ctx, goal);
                for (i, &m) in self.moves.iter().enumerate() {
                    self.scores[i] = steer.score(&ctx, pos, m) as i16;
                }
            }
        }
    }

    fn len(&self) -> usize {
        self.moves.len()
    }

    /// The best move not yet taken.
    fn pick(&mut self) -> Option<Move> {
        let n = self.moves.len();
        if self.next >= n {
            return None;
        }
        let mut best = self.next;
        for i in self.next + 1..n {
            if self.scores[i] > self.scores[best] {
                best = i;
            }
        }
        let moves = self.moves.as_mut_slice();
        moves.swap(self.next, best);
        self.scores.swap(self.next, best);
        self.next += 1;
        Some(moves[self.next - 1])
    }
}

/// What the scoring needs to know about a position, computed once per node.
struct Context {
    winner: Color,
    winner_to_move: bool,
    /// The king to be mated.
    target: Square,
    /// Where the winner's king heads: the enemy king, or, when every pawn of the winner
    /// is held up by an enemy pawn ahead of it and the king must help, the nearest such
    /// enemy pawn (to take it and free the file).
    king_target: Square,
    /// At the winner's turn: the check squares.
    checks: Option<CheckSquares>,
    /// The cheap ordering of the probes (`None`), or the careful one of the complete
    /// searches, which also keeps the winner's men off the squares the loser attacks.
    loser_attacks: Option<Bitboard>,
    /// The winner has no queen and at most two men besides king and pawns: its king
    /// must help.
    king_helps: bool,
    /// The winner's other men (not king or pawns) all stand near the enemy king: the
    /// king comes to help them.
    pieces_near: bool,
    /// Squares ahead of the winner's pawns, which the loser's king keeps off.
    pawn_paths: u64,
    /// The probes' cheap ordering.
    quick: bool,
}

impl Context {
    fn new(pos: &Position, winner: Color, quick: bool) -> Context {
        let men = pos.by_color(winner) & !pos.by_role(Role::King) & !pos.by_role(Role::Pawn);
        let queens = pos.pieces(winner, Role::Queen);
        let loser = winner.other();
        let target = pos.king_of(loser);
        let king_helps = queens.is_empty() && men.count() <= 2;
        let ours = pos.pieces(winner, Role::Pawn).0;
        let theirs = pos.pieces(loser, Role::Pawn).0;
        let (ahead, behind) = match winner {
            Color::White => (blocked::fill_up(ours << 8), blocked::fill_down(theirs >> 8)),
            Color::Black => (blocked::fill_down(ours >> 8), blocked::fill_up(theirs << 8)),
        };
        let mut king_target = target;
        if quick && king_helps && ours != 0 && ours & !behind == 0 {
            let king = pos.king_of(winner);
            if let Some(sq) = Bitboard(ahead & theirs).min_by_key(|&sq| distance(king, sq)) {
                king_target = sq;
            }
        }
        Context {
            winner,
            winner_to_move: pos.turn() == winner,
            target,
            king_target,
            checks: (pos.turn() == winner).then(|| CheckSquares::new(pos, winner)),
            loser_attacks: (!quick && pos.turn() == winner)
                .then(|| attacked_by(pos, loser, pos.occupied())),
            king_helps,
            pieces_near: men.into_iter().all(|sq| distance(sq, target) <= 3),
            pawn_paths: if quick { ahead } else { 0 },
            quick,
        }
    }

    /// The helpmate score of `m`, legal in `pos` (the position the context was made for):
    /// higher is tried first. The same value as the plain statement of the ordering
    /// (`score_reference`, kept in the tests), computed with each piece and square looked
    /// up once.
    #[inline(always)]
    fn score(&self, pos: &Position, m: Move) -> i32 {
        let (from, to) = (m.from(), m.to());
        let Some(piece) = pos.piece_at(from) else {
            return 0;
        };
        let kind = m.kind();
        let captured = match kind {
            MoveKind::Castle => false,
            MoveKind::EnPassant => true,
            _ => pos.occupied().contains(to),
        };
        let near_target = &DISTANCE[self.target.index()];
        let (df, dt) = (
            near_target[from.index()] as i32,
            near_target[to.index()] as i32,
        );
        if self.winner_to_move {
            // The role the man has after the move, for the check test.
            let (mut s, role_after) = match kind {
                MoveKind::Promotion(Role::Queen) => (1000, Role::Queen),
                MoveKind::Promotion(role) => (if role == Role::Knight { 300 } else { 100 }, role),
                _ => (0, piece.role),
            };
            s += match piece.role {
                Role::King => {
                    let k = &DISTANCE[self.king_target.index()];
                    let closer = k[from.index()] as i32 - k[to.index()] as i32;
                    if self.king_helps || (self.pieces_near && self.loser_attacks.is_none()) {
                        12 * closer
                    } else {
                        2 * closer - 20
                    }
                }
                Role::Pawn => {
                    let rank = to.rank().0 as i32;
                    let advance = if self.winner == Color::White {
                        rank
                    } else {
                        7 - rank
                    };
                    10 + 6 * advance
                }
                role => {
                    let weight = if matches!(role, Role::Queen | Role::Rook) {
                        20
                    } else {
                        14
                    };
                    if self.loser_attacks.is_some() {
                        weight * (df - dt)
                    } else {
                        weight * (df.max(2) - dt.max(2)) - 4
                    }
                }
            };
            if captured {
                s += 60;
            }
            if let Some(attacked) = self.loser_attacks
                && piece.role != Role::King
                && attacked.contains(to)
            {
                s -= match piece.role {
                    Role::Queen => 120,
                    Role::Rook => 80,
                    Role::Pawn => 20,
                    _ => 50,
                };
            }
            if let Some(checks) = &self.checks {
                let may_check = match kind {
                    MoveKind::Castle | MoveKind::EnPassant => true,
                    _ => {
                        checks.direct[role_after.index()].contains(to)
                            || checks.uncover.contains(from)
                    }
                };
                if may_check {
                    s -= 30;
                }
            }
            s
        } else {
            if captured {
                return -500;
            }
            match piece.role {
                Role::King => {
                    let s = 12 * (corner_distance(from) - corner_distance(to)) + 4;
                    if self.pawn_paths & (1 << to.index()) != 0 {
                        s - 20
                    } else {
                        s
                    }
                }
                Role::Pawn => match kind {
                    MoveKind::Promotion(role) if self.quick => match role {
                        Role::Knight => 6,
                        Role::Bishop => 4,
                        _ => -30,
                    },
                    _ if df <= 1 => -10,
                    _ => 8,
                },
                _ if df <= 1 => -15,
                _ => 4 * (df - dt),
            }
        }
    }

    /// The ordering as first written, against which `score` is tested.
    #[cfg(test)]
    fn score_reference(&self, pos: &Position, m: Move) -> i32 {
        let Some(piece) = pos.piece_at(m.from()) else {
            return 0;
        };
        let (from, to) = (m.from(), m.to());
        let captured = m.kind() != MoveKind::Castle && pos.piece_at(to).is_some()
            || m.kind() == MoveKind::EnPassant;
        let approach = distance(from, self.target) - distance(to, self.target);
        if self.winner_to_move {
            let mut s = match m.kind() {
                MoveKind::Promotion(Role::Queen) => 1000,
                MoveKind::Promotion(Role::Knight) => 300,
                MoveKind::Promotion(_) => 100,
                _ => 0,
            };
            s += match piece.role {
                Role::King => {
                    let k = self.king_target;
                    let closer = distance(from, k) - distance(to, k);
                    if self.king_helps || (self.pieces_near && self.loser_attacks.is_none()) {
                        12 * closer
                    } else {
                        2 * closer - 20
                    }
                }
                Role::Pawn => {
                    // Pawns run for promotion.
                    let rank = to.rank().0 as i32;
                    let advance = if self.winner == Color::White {
                        rank
                    } else {
                        7 - rank
                    };
                    10 + 6 * advance
                }
                role => {
                    // Pieces come within two steps of the king, then wait there.
                    let weight = if matches!(role, Role::Queen | Role::Rook) {
                        20
                    } else {
                        14
                    };
                    if self.loser_attacks.is_some() {
                        weight * approach
                    } else {
                        let near = |sq| distance(sq, self.target).max(2);
                        weight * (near(from) - near(to)) - 4
                    }
                }
            };
            if captured {
                s += 60;
            }
            // A man the loser can take mostly loses the man.
            if let Some(attacked) = self.loser_attacks
                && piece.role != Role::King
                && attacked.contains(to)
            {
                s -= match piece.role {
                    Role::Queen => 120,
                    Role::Rook => 80,
                    Role::Pawn => 20,
                    _ => 50,
                };
            }
            // A check that is not mate (mates are tried first, apart) mostly drives the
            // king away.
            if let Some(checks) = &self.checks
                && checks.may_check(pos, m)
            {
                s -= 30;
            }
            s
        } else {
            if captured {
                return -500;
            }
            match piece.role {
                Role::King => {
                    let s = 12 * (corner_distance(from) - corner_distance(to)) + 4;
                    // Out of the way of the winner's pawns.
                    if self.pawn_paths & (1 << to.index()) != 0 {
                        s - 20
                    } else {
                        s
                    }
                }
                Role::Pawn if self.quick && matches!(m.kind(), MoveKind::Promotion(_)) => {
                    // A new queen or rook would guard the king's flight squares.
                    match m.kind() {
                        MoveKind::Promotion(Role::Knight) => 6,
                        MoveKind::Promotion(Role::Bishop) => 4,
                        _ => -30,
                    }
                }
                Role::Pawn => {
                    // Shield pawns hem the king in; others make harmless waiting moves.
                    if distance(from, self.target) <= 1 {
                        -10
                    } else {
                        8
                    }
                }
                _ => {
                    // Men next to their king block its flight squares; others come to
                    // block more.
                    if distance(from, self.target) <= 1 {
                        -15
                    } else {
                        4 * approach
                    }
                }
            }
        }
    }
}

/// The ordering toward a goal square (`toward_corners`): the loser's king heads for `goal`
/// instead of the nearest corner, the winner's men that attack its next steps (`path`)
/// move off them, and no man steps onto them.
struct Steer {
    goal: Square,
    path: Bitboard,
    guards: Bitboard,
}

impl Steer {
    fn new(pos: &Position, ctx: &Context, goal: Square) -> Steer {
        let mut steer = Steer {
            goal,
            path: Bitboard::EMPTY,
            guards: Bitboard::EMPTY,
        };
        let here = distance(ctx.target, goal);
        let steps = attacks::king_attacks(ctx.target) & !pos.by_color(ctx.winner.other());
        // The king's own square does not shield a step on a line through it.
        let occ = pos.occupied() & !Bitboard::from_square(ctx.target);
        for sq in steps {
            if distance(sq, goal) < here {
                steer.path.add(sq);
                steer.guards |= pos.attackers(sq, ctx.winner, occ);
            }
        }
        steer
    }

    /// `ctx.score` with the goal's changes.
    fn score(&self, ctx: &Context, pos: &Position, m: Move) -> i32 {
        let s = ctx.score(pos, m);
        let (from, to) = (m.from(), m.to());
        let Some(piece) = pos.piece_at(from) else {
            return s;
        };
        if ctx.winner_to_move {
            let role = match m.kind() {
                MoveKind::Promotion(role) => role,
                _ => piece.role,
            };
            let mut s = s;
            if self.guards.contains(from) {
                s += 40;
            }
            if self.attacks_path(pos, ctx, role, from, to) {
                s -= 40;
            }
            return s;
        }
        let captured = match m.kind() {
            MoveKind::Castle => false,
            MoveKind::EnPassant => true,
            _ => pos.occupied().contains(to),
        };
        if captured {
            return s;
        }
        match piece.role {
            Role::King => {
                let g = self.goal;
                let toward = distance(from, g) - distance(to, g);
                let corner = corner_distance(from) - corner_distance(to);
                s + 12 * (toward - corner)
            }
            _ if self.path.contains(to) => -20,
            _ => s,
        }
    }

    /// Does a man of the winner's, of `role` on `to` (having left `from`), stand on or
    /// attack the path?
    fn attacks_path(
        &self,
        pos: &Position,
        ctx: &Context,
        role: Role,
        from: Square,
        to: Square,
    ) -> bool {
        let occ =
            pos.occupied() & !Bitboard::from_square(from) & !Bitboard::from_square(ctx.target);
        let hits = match role {
            Role::Pawn => attacks::pawn_attacks(ctx.winner, to),
            Role::Knight => attacks::knight_attacks(to),
            Role::Bishop => attacks::bishop_attacks(to, occ),
            Role::Rook => attacks::rook_attacks(to, occ),
            Role::Queen => attacks::queen_attacks(to, occ),
            Role::King => attacks::king_attacks(to),
        };
        (hits & self.path).nonempty() || self.path.contains(to)
    }
}

/// A lossy table of positions already searched to some depth without success, reused by
/// the thread across searches (a stamp tells current entries from stale ones).
struct Table {
    entries: Vec<Entry>,
    stamp: u32,
}

#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    stamp: u32,
    depth: u32,
}

const TABLE_BITS: u32 = 14;

impl Table {
    fn new() -> Table {
        Table {
            entries: vec![Entry::default(); 1 << TABLE_BITS],
            stamp: 0,
        }
    }

    /// Forgets every entry.
    fn clear(&mut self) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.entries.fill(Entry::default());
            self.stamp = 1;
        }
    }

    /// True if `key` was already searched at least `depth` deep (records nothing).
    #[inline]
    fn holds(&self, key: u64, depth: u32) -> bool {
        let e = &self.entries[(key >> (64 - TABLE_BITS)) as usize];
        e.stamp == self.stamp && e.key == key && e.depth >= depth
    }

    /// True if `key` was already searched at least `depth` deep; records it otherwise.
    #[inline]
    fn seen(&mut self, key: u64, depth: u32) -> bool {
        let e = &mut self.entries[(key >> (64 - TABLE_BITS)) as usize];
        if e.stamp == self.stamp && e.key == key && e.depth >= depth {
            return true;
        }
        *e = Entry {
            key,
            stamp: self.stamp,
            depth,
        };
        false
    }
}

/// What a thread's searches reuse: the table, and the scored moves of the node at each
/// depth of the current line (by plies left), made as a search first goes that deep.
/// Made per search, the lists cost more than the shallow searches of most positions.
struct Scratch {
    table: Table,
    lists: Vec<Scored>,
}

impl Scratch {
    fn new() -> Scratch {
        Scratch {
            table: Table::new(),
            lists: Vec::new(),
        }
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::new());
}

fn with_scratch<R>(f: impl FnOnce(&mut Scratch) -> R) -> R {
    SCRATCH.with(|t| match t.try_borrow_mut() {
        Ok(mut t) => f(&mut t),
        // Re-entered (never in practice): a private scratch keeps it correct.
        Err(_) => f(&mut Scratch::new()),
    })
}

/// Shared state of `probe` and `deepening`.
struct Search<'t> {
    winner: Color,
    nodes: Nodes,
    budget: Nodes,
    table: &'t mut Table,
    cut_by_depth: bool,
    out_of_budget: bool,
    line: Vec<Move>,
    /// Moves tried per node (winner, loser); `None` tries all, and only then can an
    /// unsuccessful search prove anything.
    breadth: Option<(usize, usize)>,
    /// The probes' cheap move ordering.
    quick: bool,
    /// Where the loser's king heads, if not a corner.
    goal: Option<Square>,
    /// The scored moves of the node at each depth on the current line (by plies left).
    lists: &'t mut Vec<Scored>,
}

impl<'t> Search<'t> {
    fn new(
        winner: Color,
        budget: Nodes,
        scratch: &'t mut Scratch,
        breadth: Option<(usize, usize)>,
    ) -> Search<'t> {
        Search {
            winner,
            nodes: 0,
            budget,
            table: &mut scratch.table,
            cut_by_depth: false,
            out_of_budget: false,
            line: Vec::new(),
            breadth,
            quick: false,
            goal: None,
            lists: &mut scratch.lists,
        }
    }

    /// Depth counts plies left; the iteration keeps it odd at the winner's turn, so the
    /// last ply is always the winner's. On success `line` holds the moves, last first.
    fn search(&mut self, pos: &Position, depth: u32) -> bool {
        self.nodes += 1;
        if self.nodes > self.budget {
            self.out_of_budget = true;
            return false;
        }
        // The table first: a position already searched this deep needs no lemma, and
        // looking it up without recording it leaves the table as the lemma-first order did
        // (hopeless positions are never recorded), so every search visits the same nodes.
        let key = pos.repetition_key();
        if self.table.holds(key, depth) || hopeless(pos, self.winner) {
            return false;
        }
        if self.table.seen(key, depth) {
            return false;
        }
        let winner_to_move = pos.turn() == self.winner;
        if depth == 1 {
            let mut list = MoveList::new();
            pos.generate_legal(&mut list);
            if let Some(m) = mate_in_one(pos, self.winner, &list) {
                self.line.push(m);
                return true;
            }
            if !list.is_empty() {
                self.cut_by_depth = true;
            }
            return false;
        }
        let d = depth as usize;
        while self.lists.len() <= d {
            self.lists.push(Scored::empty());
        }
        self.lists[d].fill(pos, self.winner, self.quick, self.goal);
        if winner_to_move && let Some(m) = mate_in_one(pos, self.winner, &self.lists[d].moves) {
            self.line.push(m);
            return true;
        }
        let tried = match self.breadth {
            Some((w, l)) => {
                let n = if winner_to_move { w } else { l };
                if self.lists[d].len() > n {
                    self.cut_by_depth = true;
                }
                n
            }
            None => usize::MAX,
        };
        // The deeper searches below fill only the lists of smaller depths.
        for _ in 0..tried {
            let Some(m) = self.lists[d].pick() else { break };
            let mut child = *pos;
            child.play_unchecked(m);
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

/// The narrow passes of `probe`, in order: (winner's moves, loser's moves, plies).
pub const PROBE_PASSES: [(usize, usize, u32); 4] = [(1, 1, 61), (2, 1, 31), (2, 2, 21), (3, 2, 15)];

/// Which move ordering a probe uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ordering {
    /// The ordering of the complete searches, which keeps the winner's men off squares
    /// the loser attacks.
    Careful,
    /// Cheaper and aimed at the endgames of real games: pieces wait two steps from the
    /// king, the king comes once they are there, takes the enemy pawns that hold up all
    /// of its own, and the loser's king keeps off the winner's pawns' files.
    Quick,
}

/// Narrow passes for the helpmates of ordinary positions: `passes` indexes
/// `PROBE_PASSES`, a single greedy line first, then a little wider. Never proves that no
/// mate exists.
pub fn probe(
    pos: &Position,
    winner: Color,
    budget: Nodes,
    passes: std::ops::Range<usize>,
    ordering: Ordering,
) -> (HelpmateSearch, Nodes) {
    passes_toward(pos, winner, budget, &PROBE_PASSES[passes], ordering, None)
}

/// Narrow passes `(winner's moves, loser's moves, depth)` with the loser's king steered
/// toward `goal` (a corner when `None`).
pub fn passes_toward(
    pos: &Position,
    winner: Color,
    budget: Nodes,
    passes: &[(usize, usize, u32)],
    ordering: Ordering,
    goal: Option<Square>,
) -> (HelpmateSearch, Nodes) {
    if is_mate_by(pos, winner) {
        return (HelpmateSearch::Mate(Vec::new()), 0);
    }
    with_scratch(|scratch| {
        let mut s = Search::new(winner, budget, scratch, None);
        s.quick = ordering == Ordering::Quick;
        s.goal = goal;
        for &(w, l, depth) in passes {
            s.table.clear();
            s.breadth = Some((w, l));
            let depth = if pos.turn() == winner {
                depth
            } else {
                depth + 1
            };
            if s.search(pos, depth) {
                s.line.reverse();
                return (HelpmateSearch::Mate(s.line), s.nodes);
            }
            if s.out_of_budget {
                break;
            }
        }
        (HelpmateSearch::OutOfBudget, s.nodes)
    })
}

/// The passes of `toward_corners`, each with its ordering: a narrow one for a king walk of
/// some fifteen moves, a wider and deeper one for lines that also promote a man.
const CORNER_PASSES: [((usize, usize, u32), Ordering); 2] = [
    ((2, 1, 31), Ordering::Careful),
    ((3, 2, 81), Ordering::Quick),
];

/// The probes with the loser's king steered toward each corner but the nearest (the
/// ordinary ordering's), farthest last: where the winner's men can only cover squares
/// of one colour, the loser's king is mated only where its own men fill the flight
/// squares of the other colour, often in a corner across the board (D3-Chess 516, 640).
/// `budget` is shared evenly between the corners and passes. Never proves anything.
pub fn toward_corners(pos: &Position, winner: Color, budget: Nodes) -> (HelpmateSearch, Nodes) {
    let king = pos.king_of(winner.other());
    let mut corners = [Square::A1, Square::H1, Square::A8, Square::H8];
    corners.sort_by_key(|&c| distance(king, c));
    let nearest = distance(king, corners[0]);
    let goals = corners.iter().filter(|&&c| distance(king, c) > nearest);
    let share = budget / (3 * CORNER_PASSES.len() as Nodes);
    let mut nodes = 0;
    for &goal in goals {
        for (pass, ordering) in CORNER_PASSES {
            match passes_toward(pos, winner, share, &[pass], ordering, Some(goal)) {
                (HelpmateSearch::Mate(line), n) => return (HelpmateSearch::Mate(line), nodes + n),
                (_, n) => nodes += n,
            }
        }
    }
    (HelpmateSearch::OutOfBudget, nodes)
}

/// The first pass of `probe` with the quick ordering (one move per node, `plies` of the
/// winner's moves and the loser's between them), played out on a single position with one
/// move list: no table, no copies but for the mate tests. A repeated position ends the
/// line, as in `probe`. Never proves that no mate exists.
pub fn greedy(pos: &Position, winner: Color, plies: u32) -> (HelpmateSearch, Nodes) {
    const ROOM: usize = 64;
    if is_mate_by(pos, winner) {
        return (HelpmateSearch::Mate(Vec::new()), 0);
    }
    let mut depth = if pos.turn() == winner {
        plies
    } else {
        plies + 1
    };
    let mut p = *pos;
    let mut keys = [0u64; ROOM];
    let mut line = [Move::NONE; ROOM];
    let mut len = 0;
    let mut list = MoveList::new();
    let mut nodes: Nodes = 0;
    // The last position and its second-best move, tried instead of the best one when
    // that repeats a position or (the winner's) stalemates the loser.
    let mut backup: Option<(Position, Move)> = None;
    while len < ROOM {
        nodes += 1;
        if hopeless(&p, winner) {
            break;
        }
        let key = p.repetition_key();
        let repeated = keys[..len].contains(&key);
        list.clear();
        if !repeated {
            p.generate_legal(&mut list);
        }
        let winner_to_move = p.turn() == winner;
        if list.is_empty() {
            // A repetition, or a stalemate (a mate by the winner was taken at once).
            if len > 0
                && let Some((before, alt)) = backup.take()
            {
                p = before;
                p.play_unchecked(alt);
                line[len - 1] = alt;
                continue;
            }
            break;
        }
        keys[len] = key;
        if (winner_to_move || depth == 1)
            && let Some(m) = mate_in_one(&p, winner, &list)
        {
            line[len] = m;
            return (HelpmateSearch::Mate(line[..=len].to_vec()), nodes);
        }
        if depth <= 1 {
            break;
        }
        let ctx = Context::new(&p, winner, true);
        let (mut best, mut second) = (None, None);
        let (mut best_score, mut second_score) = (i32::MIN, i32::MIN);
        for &m in list.iter() {
            let score = ctx.score(&p, m);
            if score > best_score {
                (second, second_score) = (best, best_score);
                (best, best_score) = (Some(m), score);
            } else if score > second_score {
                (second, second_score) = (Some(m), score);
            }
        }
        let Some(m) = best else { break };
        backup = second.map(|alt| (p, alt));
        line[len] = m;
        len += 1;
        p.play_unchecked(m);
        depth -= 1;
    }
    (HelpmateSearch::OutOfBudget, nodes)
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
) -> (HelpmateSearch, Nodes) {
    if is_mate_by(pos, winner) {
        return (HelpmateSearch::Mate(Vec::new()), 0);
    }
    with_scratch(|scratch| {
        let mut s = Search::new(winner, budget, scratch, breadth);
        let first = if pos.turn() == winner { 1 } else { 2 };
        for depth in (first..=max_depth).step_by(2) {
            s.table.clear();
            s.cut_by_depth = false;
            if s.search(pos, depth) {
                s.line.reverse();
                return (HelpmateSearch::Mate(s.line), s.nodes);
            }
            if s.out_of_budget {
                return (HelpmateSearch::OutOfBudget, s.nodes);
            }
            if !s.cut_by_depth {
                return (HelpmateSearch::Exhausted, s.nodes);
            }
        }
        (HelpmateSearch::OutOfBudget, s.nodes)
    })
}

/// Walks every position reachable from `pos` (depth first, no depth limit), pruning
/// hopeless ones, until a mate by `winner` appears or nothing is left. The walk can run
/// as deep as it has nodes, so a frame keeps only its position and a slice of one shared
/// move stack (the moves in the order they are tried), not a whole move list.
pub fn exhaust(pos: &Position, winner: Color, budget: Nodes) -> (HelpmateSearch, Nodes) {
    struct Frame {
        pos: Position,
        /// This frame's moves are `moves[start..end]`; the next one to try is `next`.
        start: u32,
        next: u32,
        end: u32,
    }
    /// Pushes the frame for `pos`, with its moves best first, unless it has none.
    fn push(
        stack: &mut Vec<Frame>,
        moves: &mut Vec<Move>,
        scored: &mut Scored,
        pos: &Position,
        winner: Color,
    ) {
        scored.fill(pos, winner, false, None);
        let n = scored.len();
        if n == 0 {
            return;
        }
        // Every move is tried: one sort, best first (ties in generation order), rather
        // than a selection per move.
        let mut order = [0u8; MAX_MOVES];
        for (i, o) in order[..n].iter_mut().enumerate() {
            *o = i as u8;
        }
        order[..n].sort_by_key(|&i| std::cmp::Reverse(scored.scores[i as usize]));
        let start = moves.len() as u32;
        let list = scored.moves.as_slice();
        moves.extend(order[..n].iter().map(|&i| list[i as usize]));
        stack.push(Frame {
            pos: *pos,
            start,
            next: start,
            end: moves.len() as u32,
        });
    }
    if is_mate_by(pos, winner) {
        return (HelpmateSearch::Mate(Vec::new()), 0);
    }
    let mut seen: HashSet<u64, BuildKeyHasher> = HashSet::default();
    seen.insert(pos.repetition_key());
    let mut nodes: Nodes = 1;
    let mut stack: Vec<Frame> = Vec::new();
    let mut moves: Vec<Move> = Vec::new();
    // One list, refilled at every node: `push` copies its moves onto the move stack.
    let mut scored = Box::new(Scored::empty());
    if !hopeless(pos, winner) {
        push(&mut stack, &mut moves, &mut scored, pos, winner);
    }
    while let Some(top) = stack.last_mut() {
        if top.next == top.end {
            moves.truncate(top.start as usize);
            stack.pop();
            continue;
        }
        let m = moves[top.next as usize];
        top.next += 1;
        // Most children were seen already (transpositions): their key, where it can be
        // told without playing the move, spares playing it.
        let known = top.pos.key_after(m);
        if known.is_some_and(|key| !seen.insert(key)) {
            continue;
        }
        let mut child = top.pos;
        child.play_unchecked(m);
        debug_assert!(known.is_none_or(|key| key == child.repetition_key()));
        if known.is_none() && !seen.insert(child.repetition_key()) {
            continue;
        }
        nodes += 1;
        if nodes > budget {
            return (HelpmateSearch::OutOfBudget, nodes);
        }
        if is_mate_by(&child, winner) {
            // Each frame's last tried move is on the path.
            let line = stack.iter().map(|f| moves[f.next as usize - 1]).collect();
            return (HelpmateSearch::Mate(line), nodes);
        }
        if hopeless(&child, winner) {
            continue;
        }
        push(&mut stack, &mut moves, &mut scored, &child, winner);
    }
    (HelpmateSearch::Exhausted, nodes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Context::score` agrees with the plain statement of the ordering on every legal
    /// move of positions along greedy lines, for both winners and both orderings.
    #[test]
    fn fast_score_matches_the_reference() {
        let mut compared = 0;
        for fen in [
            "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 1",
            "4r3/P3n3/K1k1P3/8/8/8/3R4/8 w - - 5 79",
            "8/8/8/2k5/3Pp3/8/8/4K2B b - d3 0 1",
            "8/5k2/5p2/5K2/1p1r1P1p/pP1N1R1P/P6b/8 b - - 9 50",
            "8/pp1b4/7p/5p2/1P1k1P2/P7/3K3P/1B6 b - - 2 35",
            "r3k2r/pPpp1ppp/8/8/8/8/PpPP1PPP/R3K2R w KQkq - 0 1",
            "8/8/8/8/2k5/4K3/3pP3/8 b - - 0 1",
        ] {
            let start = Position::from_fen(fen).unwrap();
            for winner in Color::ALL {
                let mut pos = start;
                for _ in 0..40 {
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    for quick in [false, true] {
                        let ctx = Context::new(&pos, winner, quick);
                        for &m in moves.iter() {
                            assert_eq!(
                                ctx.score(&pos, m),
                                ctx.score_reference(&pos, m),
                                "{fen}: {m:?}"
                            );
                            compared += 1;
                        }
                    }
                    let ctx = Context::new(&pos, winner, true);
                    let best = moves.iter().copied().max_by_key(|&m| ctx.score(&pos, m));
                    pos.play_unchecked(best.unwrap());
                }
            }
        }
        assert!(compared > 10_000, "{compared}");
    }

    #[test]
    fn distance_tables_match_the_squares() {
        for a in Square::all() {
            let (f, r) = (a.file().0 as i32, a.rank().0 as i32);
            assert_eq!(corner_distance(a), f.min(7 - f).max(r.min(7 - r)));
            for b in Square::all() {
                let df = (f - b.file().0 as i32).abs();
                let dr = (r - b.rank().0 as i32).abs();
                assert_eq!(distance(a, b), df.max(dr));
            }
        }
    }

    #[test]
    fn steering_toward_a_far_corner_finds_bishop_box_helpmates() {
        // D3-Chess 516 and 640 (W-), which a million nodes of the other searches missed:
        // White's bishops all stand on dark squares, so Black's king is mated only where
        // its own men fill the light flight squares, here in the corner across the board
        // (h8 with bishops on g8 and h7; a1, after the f-pawn has promoted).
        for (fen, most) in [
            ("k6B/1b4B1/2b2B2/4B3/3B4/1pB1B3/pP1B4/K7 w - -", 48_000),
            (
                "3b1b1k/2b1bpb1/1b1b1b2/2b5/4KB2/4B1B1/3B1B1B/2B1B1B1 w - -",
                48_000,
            ),
        ] {
            let pos = Position::from_fen(fen).unwrap();
            let (HelpmateSearch::Mate(line), nodes) = toward_corners(&pos, Color::White, most)
            else {
                panic!("{fen}: no helpmate");
            };
            assert!(nodes <= most + 6);
            let mut p = pos;
            for m in line {
                p = p.play(m).unwrap();
            }
            assert!(p.is_checkmate() && p.turn() == Color::Black, "{fen}");
        }
    }

    #[test]
    fn check_filter_lets_every_checking_move_through() {
        for fen in [
            "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 1",
            "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
            "8/8/8/2k5/3Pp3/8/8/4K2B b - d3 0 1",
            "3k4/1P6/8/8/8/8/B7/4K3 w - - 0 1",
            "8/8/8/8/8/5k2/4p3/3BK1R1 b - - 0 1",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            let checks = CheckSquares::new(&pos, pos.turn());
            for &m in pos.legal_moves().iter() {
                if pos.gives_check(m) {
                    assert!(checks.may_check(&pos, m), "{fen}: {m:?}");
                }
            }
        }
    }

    #[test]
    fn probe_finds_a_middlegame_helpmate_in_few_nodes() {
        let fen = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 1";
        let pos = Position::from_fen(fen).unwrap();
        for c in Color::ALL {
            let (outcome, nodes) = probe(&pos, c, 2000, 0..PROBE_PASSES.len(), Ordering::Quick);
            let HelpmateSearch::Mate(line) = outcome else {
                panic!("{c:?}: no mate in {nodes} nodes");
            };
            let mut p = pos;
            for m in line {
                p = p.play(m).unwrap();
            }
            assert!(p.is_checkmate() && p.turn() == c.other());
        }
    }

    #[test]
    fn greedy_lines_replay_to_mate() {
        for (fen, winner) in [
            (
                "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 1",
                Color::Black,
            ),
            // Promotes with check, then mates with the new queen.
            ("4r3/P3n3/K1k1P3/8/8/8/3R4/8 w - - 5 79", Color::White),
        ] {
            let pos = Position::from_fen(fen).unwrap();
            let (outcome, nodes) = greedy(&pos, winner, PROBE_PASSES[0].2);
            let HelpmateSearch::Mate(line) = outcome else {
                panic!("{fen}: no mate in {nodes} nodes");
            };
            let mut p = pos;
            for m in line {
                p = p.play(m).unwrap();
            }
            assert!(p.is_checkmate() && p.turn() == winner.other(), "{fen}");
        }
        // A bare king never mates.
        let pos = Position::from_fen("1k6/8/2QK4/8/8/8/8/8 b - - 11 78").unwrap();
        assert_eq!(
            greedy(&pos, Color::Black, 61).0,
            HelpmateSearch::OutOfBudget
        );
    }
}
