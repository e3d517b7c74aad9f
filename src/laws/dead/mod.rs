//! Unwinnability: can a side still checkmate by any series of legal moves (2017 Art. 5.2.2,
//! 6.9; 2001 Art. 9.6, 6.9)? Per side the answer is three-valued and carries its evidence:
//! a proof that it cannot win, a mating line that replays, or "unknown" when the budget ran
//! out. The layers run cheapest first: material lemmas, the blocked-skeleton argument,
//! helpmate lines (in `deadness` a cheap one first, `fastline`), in pawnless endings of
//! minor pieces a search toward the material's corner mates (`corner`), greedy probes,
//! the wider wall test and the kings' walk, a short exhaustive walk, deepening helpmate
//! searches, an exhaustive walk over the reachable positions with the rest of the budget,
//! and, when that runs out, probes that steer the loser's king toward the far corners.
//! `shorten` cuts a found line to the shortest through its positions, for display.

pub mod alive;
pub mod blocked;
mod corner;
mod fastline;
pub mod helpmate;
mod kings;
mod line;
pub mod material;
pub mod shorten;
pub mod suite;

use crate::chess::{Color, Move, Position};
pub use helpmate::{Nodes, Ordering};
pub use material::MaterialLemma;

/// How a side was proved unable to win.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CannotWinProof {
    /// A material lemma holds.
    Material(MaterialLemma),
    /// The pawn skeleton is permanently jammed and no piece of the side can ever attack a
    /// square the enemy king can reach.
    Blocked,
    /// The pawns are jammed and the other men stuck or bishops, and no pair of king
    /// squares the game can reach allows a mate (`kings`).
    Kings,
    /// The search saw every reachable position (pruning only by the lemmas above) and found
    /// no mate; `nodes` positions were visited.
    Exhausted { nodes: Nodes },
    /// The side is checkmated: the game is over (2017 Art. 5.1.1).
    Checkmated,
    /// Stalemate: the game is over, drawn (2017 Art. 5.2.1).
    Stalemate,
}

impl std::fmt::Display for CannotWinProof {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CannotWinProof::Material(l) => write!(f, "material: {}", l.describe()),
            CannotWinProof::Blocked => f.write_str(
                "blocked: the pawns are locked and no piece can ever attack the king's squares",
            ),
            CannotWinProof::Kings => f.write_str(
                "kings' walk: the pawns are locked, the other men stuck or bishops, and no \
                 reachable pair of king squares allows a mate",
            ),
            CannotWinProof::Exhausted { nodes } => write!(
                f,
                "search: all {nodes} reachable positions visited, none is mate"
            ),
            CannotWinProof::Checkmated => {
                f.write_str("checkmated: the game is over (2017 Art. 5.1.1)")
            }
            CannotWinProof::Stalemate => {
                f.write_str("stalemate: the game is over, drawn (2017 Art. 5.2.1)")
            }
        }
    }
}

/// Whether one side can still checkmate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Winnability {
    CannotWin(CannotWinProof),
    /// A helpmate: legal moves from the analysed position ending in mate by this side.
    CanWin {
        line: Vec<Move>,
        nodes: Nodes,
    },
    /// The budget ran out; nothing is claimed.
    Unknown {
        nodes: Nodes,
    },
}

impl Winnability {
    pub fn cannot_win(&self) -> bool {
        matches!(self, Winnability::CannotWin(_))
    }

    pub fn can_win(&self) -> bool {
        matches!(self, Winnability::CanWin { .. })
    }

    fn nodes(&self) -> Nodes {
        match self {
            Winnability::CannotWin(CannotWinProof::Exhausted { nodes }) => *nodes,
            Winnability::CannotWin(_) => 0,
            Winnability::CanWin { nodes, .. } | Winnability::Unknown { nodes } => *nodes,
        }
    }
}

/// Search limits. `nodes` bounds each side's search; the probes and the first stages get
/// capped shares, the exhaustive walk the rest but for the last stage's small share. A walk keeps a frame (a position and
/// its moves, some 250 bytes) per ply of its current line, which can be as deep as it has
/// nodes: the default million nodes cost at most a few seconds and a few hundred MB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub nodes: Nodes,
    /// Deepest helpmate tried by iterative deepening, in plies.
    pub max_depth: u32,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            nodes: 1_000_000,
            max_depth: 40,
        }
    }
}

/// Both sides' answers for one position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unwinnability {
    pub white: Winnability,
    pub black: Winnability,
}

/// Is the position dead (neither side can mate, 2017 Art. 5.2.2)?
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deadness {
    Dead,
    Alive,
    Unknown,
}

impl Unwinnability {
    pub fn side(&self, color: Color) -> &Winnability {
        match color {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }

    pub fn deadness(&self) -> Deadness {
        if self.white.cannot_win() && self.black.cannot_win() {
            Deadness::Dead
        } else if self.white.can_win() || self.black.can_win() {
            Deadness::Alive
        } else {
            Deadness::Unknown
        }
    }

    pub fn nodes(&self) -> Nodes {
        self.white.nodes() + self.black.nodes()
    }
}

/// The static layers only (no search): a proof, if one is cheap.
pub fn static_proof(pos: &Position, winner: Color) -> Option<CannotWinProof> {
    if let Some(lemma) = material::cannot_win(pos, winner) {
        return Some(CannotWinProof::Material(lemma));
    }
    if blocked::cannot_win(pos, winner) {
        return Some(CannotWinProof::Blocked);
    }
    None
}

/// The probes' share of the budget: ordinary positions have an obvious helpmate.
fn probe_budget(budget: Budget) -> Nodes {
    (budget.nodes / 10).clamp(1, PROBE_NODES)
}

/// At most this many nodes go to the probes and to each deepening stage: past that, the
/// exhaustive walk, which also proves, does better with the nodes.
const PROBE_NODES: Nodes = 20_000;
const DEEPENING_NODES: Nodes = 25_000;

/// The corner-mate stage's share (`corner`): most lines are found in a few hundred nodes.
fn corner_mate_budget(budget: Budget) -> Nodes {
    (budget.nodes / 5).clamp(1, CORNER_MATE_NODES)
}

const CORNER_MATE_NODES: Nodes = 10_000;

/// The cheap stages: a static proof, or a helpmate from the greedy probes. `Err` leaves
/// the side to `full_search`, with the nodes spent so far.
fn quick(pos: &Position, winner: Color, budget: Budget) -> Result<Winnability, Nodes> {
    if let Some(proof) = static_proof(pos, winner) {
        return Ok(Winnability::CannotWin(proof));
    }
    let mut used = 0;
    if corner::applies(pos, winner) {
        match corner::line(pos, winner, corner_mate_budget(budget)) {
            (Some(line), nodes) => return Ok(Winnability::CanWin { line, nodes }),
            (None, nodes) => used = nodes,
        }
    }
    let passes = 0..helpmate::PROBE_PASSES.len();
    match helpmate::probe(pos, winner, probe_budget(budget), passes, Ordering::Careful) {
        (helpmate::HelpmateSearch::Mate(line), nodes) => Ok(Winnability::CanWin {
            line,
            nodes: used + nodes,
        }),
        (_, nodes) => Err(used + nodes),
    }
}

/// The complete stages, in order: a short exhaustive walk (small reachable sets are
/// settled in a few hundred nodes, and a depth-first walk often runs into a long mate), a
/// guided search (few moves per node, deep), a full one for short mates, the probes
/// steered toward the far corners with a small share, and the exhaustive walk with the
/// rest of the budget. The far-corner probes come before the long walk: the helpmates
/// they find (a king led to a far corner past a wall of bishops) took the walk nearly the
/// whole budget to miss, and where they find nothing they cost at most their share
/// (D3-Chess's vector: 14.8 s → 10.5 s, the same verdicts).
const FULL_STAGES: usize = 5;

/// The far-corner probes' share; the walk after them gets all that is left.
fn corner_budget(budget: Budget) -> Nodes {
    (budget.nodes / 20).clamp(1, CORNER_NODES)
}

const CORNER_NODES: Nodes = 48_000;

/// The first walk's share of the budget.
fn first_walk_budget(budget: Budget) -> Nodes {
    (budget.nodes / 10).clamp(1, FIRST_WALK_NODES)
}

const FIRST_WALK_NODES: Nodes = 50_000;

/// Runs stage `stage` of the complete search for `winner`, `used` nodes having been spent
/// already (they are added in). `None` leaves the side to the next stage.
fn full_stage(
    pos: &Position,
    winner: Color,
    budget: Budget,
    stage: usize,
    used: &mut Nodes,
) -> Option<Winnability> {
    use helpmate::HelpmateSearch;
    // The wider skeleton test costs too much for every node, or for every game's final
    // position: once per side, before the searches, and the kings' walk after it.
    if stage == 0 && blocked::cannot_win_wide(pos, winner) {
        return Some(Winnability::CannotWin(CannotWinProof::Blocked));
    }
    if stage == 0 && kings::cannot_win(pos, winner) {
        return Some(Winnability::CannotWin(CannotWinProof::Kings));
    }
    let (outcome, n) = match stage {
        0 => helpmate::exhaust(pos, winner, first_walk_budget(budget)),
        1 | 2 => {
            let share = (budget.nodes / 8).clamp(1, DEEPENING_NODES);
            let breadth = (stage == 1).then_some((4, 2));
            helpmate::deepening(pos, winner, budget.max_depth, share, breadth)
        }
        3 => helpmate::toward_corners(pos, winner, corner_budget(budget)),
        _ => {
            let rest = budget.nodes.saturating_sub(*used);
            helpmate::exhaust(pos, winner, rest)
        }
    };
    *used += n;
    let nodes = *used;
    match outcome {
        HelpmateSearch::Mate(line) => Some(Winnability::CanWin { line, nodes }),
        HelpmateSearch::Exhausted => {
            Some(Winnability::CannotWin(CannotWinProof::Exhausted { nodes }))
        }
        HelpmateSearch::OutOfBudget if stage + 1 == FULL_STAGES => {
            Some(Winnability::Unknown { nodes })
        }
        HelpmateSearch::OutOfBudget => None,
    }
}

/// The complete stages, after `quick` failed having spent `used` nodes.
fn full_search(pos: &Position, winner: Color, budget: Budget, mut used: Nodes) -> Winnability {
    for stage in 0..FULL_STAGES {
        if let Some(w) = full_stage(pos, winner, budget, stage, &mut used) {
            return w;
        }
    }
    Winnability::Unknown { nodes: used }
}

/// A position with no legal move settles both sides before any lemma: the side that has
/// checkmated can win (it has, with no move to play), the mated side and both sides in
/// stalemate cannot. The material lemmas assume play goes on and would call a mate by two
/// bishops on one colour "cannot win".
fn game_over(pos: &Position, winner: Color) -> Option<Winnability> {
    if pos.has_legal_moves() {
        return None;
    }
    Some(if !pos.is_check() {
        Winnability::CannotWin(CannotWinProof::Stalemate)
    } else if pos.turn() == winner {
        Winnability::CannotWin(CannotWinProof::Checkmated)
    } else {
        Winnability::CanWin {
            line: Vec::new(),
            nodes: 0,
        }
    })
}

/// Decides whether `winner` can still checkmate.
pub fn analyse_side(pos: &Position, winner: Color, budget: Budget) -> Winnability {
    if let Some(w) = game_over(pos, winner) {
        return w;
    }
    match quick(pos, winner, budget) {
        Ok(w) => w,
        Err(used) => full_search(pos, winner, budget, used),
    }
}

/// Decides both sides.
pub fn analyse(pos: &Position, budget: Budget) -> Unwinnability {
    Unwinnability {
        white: analyse_side(pos, Color::White, budget),
        black: analyse_side(pos, Color::Black, budget),
    }
}

/// Pawn units of `color`'s men, kings apart, as mating force: minor pieces count for
/// nothing when the side has no pawn, rook or queen, since they mate only with the other
/// side's help (its men filling the flight squares), which takes long helpmates to find,
/// while a single pawn of the other side promotes and mates in a few nodes (K+B v K+P).
fn material_value(pos: &Position, color: Color) -> u32 {
    use crate::chess::Role;
    let minors_alone = (pos.by_color(color)
        & (pos.by_role(Role::Pawn) | pos.by_role(Role::Rook) | pos.by_role(Role::Queen)))
    .is_empty();
    let minor = if minors_alone { 0 } else { 3 };
    [
        (Role::Pawn, 1),
        (Role::Knight, minor),
        (Role::Bishop, minor),
        (Role::Rook, 5),
        (Role::Queen, 9),
    ]
    .iter()
    .map(|&(role, value)| pos.pieces(color, role).count() * value)
    .sum()
}

/// Decides deadness only, stopping as soon as one side is shown able to win: first the
/// classes proved alive (`alive`, a few bitboard operations), which settle most game
/// finals, then `deadness_searched`.
pub fn deadness(pos: &Position, budget: Budget) -> Deadness {
    match settled(pos) {
        Some(d) => d,
        None => deadness_unsettled(pos, budget),
    }
}

/// `deadness` where it needs no search: the game is over, or a class proved alive applies
/// (at the position or one legal move on). `None` leaves it to `deadness_unsettled`.
pub fn settled(pos: &Position) -> Option<Deadness> {
    if let Some(d) = over(pos) {
        return Some(d);
    }
    let alive = Color::ALL
        .into_iter()
        .any(|c| alive::proof(pos, c).is_some())
        || alive::one_move_away(pos).is_some();
    alive.then_some(Deadness::Alive)
}

/// `deadness` of a position `settled` left open: the searches, the cheap line stopping at
/// the classes.
pub fn deadness_unsettled(pos: &Position, budget: Budget) -> Deadness {
    searched(pos, budget, true)
}

/// The game is over: the side that has mated is alive, a stalemate dead.
fn over(pos: &Position) -> Option<Deadness> {
    game_over(pos, pos.turn().other()).map(|w| {
        if w.can_win() {
            Deadness::Alive
        } else {
            Deadness::Dead
        }
    })
}

/// `deadness` without the classes proved alive: the lemmas and searches alone (the full
/// test the classes are checked against).
pub fn deadness_searched(pos: &Position, budget: Budget) -> Deadness {
    match over(pos) {
        Some(d) => d,
        None => searched(pos, budget, false),
    }
}

/// Both sides get each cheap stage before either gets a more expensive one: in an endgame
/// such as K+N v K+P the pawn's side mates at once while the knight's side needs a long
/// search. The game is not over. `classes`: the cheap line also stops where it reaches a
/// class proved alive (`alive`).
fn searched(pos: &Position, budget: Budget, classes: bool) -> Deadness {
    // The side with more mating force is the likelier winner: it goes first at each stage.
    let order = if material_value(pos, Color::Black) > material_value(pos, Color::White) {
        [Color::Black, Color::White]
    } else {
        [Color::White, Color::Black]
    };
    let mut pending = [None; 2];
    for (i, c) in order.into_iter().enumerate() {
        if material::cannot_win(pos, c).is_none() {
            pending[i] = Some((c, 0));
        }
    }
    // The cheap line for each side first: it mates in most positions, which then need no
    // blocked-position proof (a few thousand instructions a side). A side the proof rules
    // out has no mating line to find, so the order changes no verdict.
    for (c, _) in pending.iter().flatten() {
        let alive = if classes {
            fastline::proves_alive(pos, *c)
        } else {
            fastline::line(pos, *c).is_some()
        };
        if alive {
            return Deadness::Alive;
        }
    }
    for slot in pending.iter_mut() {
        if slot.is_some_and(|(c, _)| blocked::cannot_win(pos, c)) {
            *slot = None;
        }
    }
    // Then the single greedy line, and the wider passes.
    for (c, used) in pending.iter_mut().flatten() {
        match helpmate::greedy(pos, *c, helpmate::PROBE_PASSES[0].2) {
            (helpmate::HelpmateSearch::Mate(_), _) => return Deadness::Alive,
            (_, nodes) => *used += nodes,
        }
    }
    // Pawnless endings of minor pieces: corner mates, searched from the mates backward.
    for (c, used) in pending.iter_mut().flatten() {
        if corner::applies(pos, *c) {
            match corner::line(pos, *c, corner_mate_budget(budget)) {
                (Some(_), _) => return Deadness::Alive,
                (None, nodes) => *used += nodes,
            }
        }
    }
    let all = helpmate::PROBE_PASSES.len();
    for (c, used) in pending.iter_mut().flatten() {
        let left = probe_budget(budget).saturating_sub(*used);
        match helpmate::probe(pos, *c, left, 1..all, Ordering::Quick) {
            (helpmate::HelpmateSearch::Mate(_), _) => return Deadness::Alive,
            (_, nodes) => *used += nodes,
        }
    }
    let mut unknown = false;
    for stage in 0..FULL_STAGES {
        for slot in pending.iter_mut() {
            let Some((c, used)) = slot else { continue };
            match full_stage(pos, *c, budget, stage, used) {
                Some(Winnability::CanWin { .. }) => return Deadness::Alive,
                Some(Winnability::Unknown { .. }) => {
                    unknown = true;
                    *slot = None;
                }
                Some(Winnability::CannotWin(_)) => *slot = None,
                None => {}
            }
        }
    }
    if unknown {
        Deadness::Unknown
    } else {
        Deadness::Dead
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dead(fen: &str) -> Deadness {
        deadness(&Position::from_fen(fen).unwrap(), Budget::default())
    }

    #[test]
    fn the_exhaustive_walk_settles_long_helpmates_and_proofs() {
        // D3-Chess: Black mates only after White promotes and gives a piece up to a
        // pawn (WB); with its h-pawn on h7 it never can (W-), as it runs out of moves.
        let pos = Position::from_fen("1k6/1P1p1p1p/BP6/1P5p/8/8/3P1PKP/8 w - -").unwrap();
        let Winnability::CanWin { line, .. } = analyse_side(&pos, Color::Black, Budget::default())
        else {
            panic!("no helpmate for Black");
        };
        let mut p = pos;
        for m in line {
            p = p.play(m).unwrap();
        }
        assert!(p.is_checkmate() && p.turn() == Color::White);
        let pos = Position::from_fen("1k6/1P1p1p1p/BP6/1P6/8/8/3P1PKP/8 w - -").unwrap();
        assert!(matches!(
            analyse_side(&pos, Color::Black, Budget::default()),
            Winnability::CannotWin(CannotWinProof::Exhausted { .. })
        ));
        // A wall the kings cannot cross (the wider skeleton test, before any search).
        let pos =
            Position::from_fen("1k6/p1p1p1p1/P1P1P1P1/p1p1p1p1/8/8/P1P1P1P1/4K3 w - -").unwrap();
        assert_eq!(deadness(&pos, Budget::default()), Deadness::Dead);
    }

    #[test]
    fn deadness_of_game_endings() {
        // K+Q v K and a pawn ending where the king must first take the blocking pawn.
        assert_eq!(dead("6Q1/7K/8/4k3/8/8/8/8 b - - 0 66"), Deadness::Alive);
        assert_eq!(dead("8/8/8/1k6/p4B2/P7/6K1/8 b - - 2 59"), Deadness::Alive);
        // K+N v K+B: only a helpmate with the bishop hemming its own king in.
        assert_eq!(dead("8/8/5K1N/5b2/5k2/8/8/8 w - - 0 80"), Deadness::Alive);
        // Bare kings, and a locked pawn wall with bishops on one colour each.
        assert_eq!(dead("8/8/4k3/8/8/3K4/8/8 w - - 0 1"), Deadness::Dead);
        assert_eq!(
            dead("2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/8/2B1K3 w - - 0 1"),
            Deadness::Dead
        );
        // Kings that can never pass each other behind a wall (the kings' walk).
        assert_eq!(
            dead("3k1b2/2p1pBp1/KpP1P1P1/1P3B2/4B1B1/5B2/8/8 w - - 3 57"),
            Deadness::Dead
        );
        // A middlegame: alive at once.
        assert_eq!(
            dead("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 1"),
            Deadness::Alive
        );
    }

    /// Issue 19, defect 13: the bishops-on-one-colour lemma ran before the mate test, so the
    /// side that had just mated "could not win".
    #[test]
    fn already_checkmate_is_not_called_unwinnable_for_the_mating_side() {
        for (fen, winner) in [
            ("8/8/8/8/8/2b1k1b1/8/3RKR2 w - - 0 1", Color::Black),
            ("8/8/8/8/8/1k6/b1b5/RKR5 w - - 0 1", Color::Black),
            ("5B2/7r/5K1k/7r/8/4B3/8/8 b - - 0 1", Color::White),
        ] {
            let pos = Position::from_fen(fen).unwrap();
            let u = analyse(&pos, Budget::default());
            assert!(u.side(winner).can_win(), "{fen}: {:?}", u.side(winner));
            assert_eq!(
                u.side(winner.other()),
                &Winnability::CannotWin(CannotWinProof::Checkmated),
                "{fen}"
            );
            assert_eq!(u.deadness(), Deadness::Alive, "{fen}");
            assert_eq!(deadness(&pos, Budget::default()), Deadness::Alive, "{fen}");
        }
    }

    #[test]
    fn stalemate_is_over_for_both_sides() {
        let pos = Position::from_fen("7k/5K2/6Q1/8/8/8/8/8 b - - 0 1").unwrap();
        let u = analyse(&pos, Budget::default());
        let over = Winnability::CannotWin(CannotWinProof::Stalemate);
        assert_eq!((&u.white, &u.black), (&over, &over));
        assert_eq!(deadness(&pos, Budget::default()), Deadness::Dead);
    }
}
