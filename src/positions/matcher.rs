//! Matching a query against one game, replaying it: the first ply (0: the start position,
//! k: after the k-th half-move) at which every form of the query holds. This is both the
//! scan for the forms the index cannot answer and the check of the index's candidates, so
//! every answer is a replay's answer.

use super::laws::{GameLaws, matching_plies};
use super::query::{Counts, FastPattern, Material, Pawns, Query, counts};
use crate::chess::san::Suffix;
use crate::chess::{CastlingSide, Color, Move, MoveKind, Position, Role, Square};
use crate::game::keys::code;

/// What a scan's tests read of a position: its placement and side to move, and whether
/// that side is in check (a sequence's `+`) or mated (`#`). The rules core's `Position`
/// gives it, and so does the scan decoder's lean board (`db::lean`), which keeps no more.
pub trait ScanBoard {
    fn turn(&self) -> Color;
    fn occupied(&self) -> u64;
    fn pieces(&self, color: Color, role: Role) -> u64;
    /// The piece code (`game::keys::code`, 0: empty) on the square of index `sq` (a1 = 0).
    fn code_at(&self, sq: usize) -> u8;
    fn is_check(&self) -> bool;
    fn is_checkmate(&self) -> bool;
}

impl ScanBoard for Position {
    #[inline]
    fn turn(&self) -> Color {
        Position::turn(self)
    }
    #[inline]
    fn occupied(&self) -> u64 {
        Position::occupied(self).0
    }
    #[inline]
    fn pieces(&self, color: Color, role: Role) -> u64 {
        Position::pieces(self, color, role).0
    }
    #[inline]
    fn code_at(&self, sq: usize) -> u8 {
        self.piece_at(Square::new(sq as u8)).map_or(0, code)
    }
    fn is_check(&self) -> bool {
        Position::is_check(self)
    }
    fn is_checkmate(&self) -> bool {
        Position::is_checkmate(self)
    }
}

/// What a move's SAN says of it, as a decoder knows it when it reads the move: a sequence
/// is matched on these (`Sequence::token_is`), so a scan needs no `Position` to play it on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlyMove {
    pub from: Square,
    /// The destination; for castling the rook's square (the rules core's form).
    pub to: Square,
    pub role: Role,
    pub captured: Option<Role>,
    pub promotion: Option<Role>,
    pub castle: Option<CastlingSide>,
}

impl PlyMove {
    /// The facts of the legal move `m` in `pos`.
    pub fn of(pos: &Position, m: Move) -> PlyMove {
        PlyMove {
            from: m.from(),
            to: m.to(),
            role: pos.piece_at(m.from()).map_or(Role::King, |p| p.role),
            captured: pos.captured_role(m),
            promotion: m.promotion_role(),
            castle: match m.kind() {
                MoveKind::Castle => m.castling_side(),
                _ => None,
            },
        }
    }
}

/// A query ready to run over games.
#[derive(Debug, Clone)]
pub struct Matcher {
    query: Query,
    /// The position's keys under the query's identity: as given, then colour-flipped.
    targets: Vec<u64>,
    /// The forms as a scan tests them on a position's bitboards (`first_match_fast`), for
    /// the query as given and (with `--mirror`) its colour flip.
    fast: [Option<Fast>; 2],
}

/// One side's position-level forms on bitboards.
#[derive(Debug, Clone)]
struct Fast {
    patterns: Vec<FastPattern>,
    pawns: Option<Pawns>,
    material: Option<Material>,
}

impl Fast {
    fn new(q: &Query, flipped: bool) -> Fast {
        Fast {
            patterns: q
                .patterns
                .iter()
                .map(|p| if flipped { p.mirrored() } else { p.clone() }.fast())
                .collect(),
            pawns: q
                .pawns
                .as_ref()
                .map(|p| if flipped { p.mirrored() } else { p.clone() }),
            material: q
                .material
                .as_ref()
                .map(|m| if flipped { m.mirrored() } else { m.clone() }),
        }
    }

    #[inline]
    fn holds<B: ScanBoard>(&self, pos: &B) -> bool {
        self.patterns.iter().all(|p| p.matches(pos))
            && self.pawns.as_ref().is_none_or(|p| p.matches_position(pos))
    }
}

/// Material counts (Q R B N P) of each side from a position's bitboards.
pub fn position_counts<B: ScanBoard>(pos: &B) -> [Counts; 2] {
    let roles = [
        Role::Queen,
        Role::Rook,
        Role::Bishop,
        Role::Knight,
        Role::Pawn,
    ];
    [Color::White, Color::Black].map(|c| roles.map(|r| pos.pieces(c, r).count_ones() as u8))
}

/// A board of piece codes (`game::keys::code`), a1 = 0.
pub type Board = [u8; 64];

pub fn board_of(pos: &Position) -> Board {
    let mut b = [0u8; 64];
    for sq in pos.occupied() {
        b[sq.index()] = pos.piece_at(sq).map_or(0, code);
    }
    b
}

/// The colour-flipped board: ranks reversed, White's pieces as Black's.
pub fn flip_board(b: &Board) -> Board {
    let mut f = [0u8; 64];
    for (sq, &p) in b.iter().enumerate() {
        f[sq ^ 56] = match p {
            0 => 0,
            1..=6 => p + 6,
            _ => p - 6,
        };
    }
    f
}

impl Matcher {
    pub fn new(query: &Query) -> Matcher {
        let targets = match &query.position {
            Some(pos) => {
                let mut t = vec![query.identity.key(pos)];
                if query.identity.mirror {
                    t.push(query.identity.key(&super::key::mirrored(pos)));
                }
                t
            }
            None => Vec::new(),
        };
        let fast = [
            Some(Fast::new(query, false)),
            query.identity.mirror.then(|| Fast::new(query, true)),
        ];
        Matcher {
            query: query.clone(),
            targets,
            fast,
        }
    }

    /// `first_match_fast` fed one position at a time by a decoder, so that a scan replays
    /// each game once and stops at its first match; None for a sequence with a held
    /// material, whose match is known only plies later (decode the moves and call
    /// `first_match_fast`).
    pub fn scanner(&self) -> Option<Scanner<'_>> {
        self.scanner_from(&Position::new())
    }

    /// `scanner` for a game that starts from `start` (whose move number a sequence's move
    /// numbers count from).
    pub fn scanner_from(&self, start: &Position) -> Option<Scanner<'_>> {
        let held = self.query.held.max(1) as usize;
        if self.query.sequence.is_some() && held > 1 {
            return None;
        }
        Some(Scanner {
            m: self,
            held,
            run_start: [None, None],
            pending: [Vec::new(), Vec::new()],
            open: std::collections::VecDeque::new(),
            origin: (start.fullmove_number(), start.turn() == Color::Black),
            plain: self.targets.is_empty()
                && self.query.material.is_none()
                && self.query.sequence.is_none()
                && held == 1,
        })
    }

    /// Whether a scan must give `Scanner::visit_board` each position's key (the query has
    /// an exact position): a decoder that keeps no hash cannot.
    pub fn needs_key(&self) -> bool {
        !self.targets.is_empty()
    }

    /// Whether the query is exact positions alone (no material, pattern, pawns, sequence or
    /// Laws' form, held one ply): its first match is then the first ply that `is_target`,
    /// which a decoder can stop at.
    pub fn lone_position(&self) -> bool {
        let q = &self.query;
        !self.targets.is_empty()
            && q.material.is_none()
            && q.patterns.is_empty()
            && q.pawns.is_none()
            && q.sequence.is_none()
            && q.laws.is_empty()
            && q.held <= 1
    }

    /// For a `lone_position` query: is `pos` one of its positions?
    pub fn is_target(&self, pos: &Position) -> bool {
        let key = self.query.identity.key(pos);
        self.fast.iter().enumerate().any(|(s, f)| {
            f.as_ref().is_some_and(|f| f.holds(pos)) && self.targets.get(s) == Some(&key)
        })
    }

    /// `first_match` for a query without the Laws' forms, the same answer by the same walk,
    /// with patterns, pawns and material tested on the position's bitboards instead of a
    /// board of codes kept beside it (a scan's test of every ply of every game). The tests
    /// compare it with `first_match` on every game they hold.
    pub fn first_match_fast(&self, start: &Position, moves: &[Move]) -> Option<u32> {
        let q = &self.query;
        debug_assert!(q.laws.is_empty());
        let held = q.held.max(1) as usize;
        let mut pos = *start;
        let mut runs = HeldRuns::new(held);
        for ply in 0..=moves.len() {
            if ply > 0 {
                pos.play_unchecked(moves[ply - 1]);
            }
            let key = if self.targets.is_empty() {
                0
            } else {
                q.identity.key(&pos)
            };
            let counts = q.material.as_ref().map(|_| position_counts(&pos));
            for (s, fast) in self.fast.iter().enumerate() {
                let Some(fast) = fast else { continue };
                let material = match (&fast.material, &counts) {
                    (Some(m), Some(c)) => m.matches(c),
                    _ => true,
                };
                if held == 1 && !material {
                    continue;
                }
                let here = self.targets.get(s).is_none_or(|&t| t == key)
                    && fast.holds(&pos)
                    && q.sequence.as_ref().is_none_or(|seq| {
                        moves.get(ply).is_some_and(|&m| seq.first_is(&pos, m))
                            && seq.matches_at(&pos, &moves[ply..])
                    });
                if held == 1 {
                    if here {
                        return Some(ply as u32);
                    }
                    continue;
                }
                if let Some(p) = runs.step(s, ply, material, here) {
                    return Some(p);
                }
            }
        }
        None
    }

    pub fn query(&self) -> &Query {
        &self.query
    }

    /// Whether the position-level forms (all but the sequence and the material's span) hold,
    /// for the position as it is (`flipped` false) or its colour flip.
    fn holds(&self, pos: &Position, board: &Board, key: u64, flipped: bool) -> bool {
        let q = &self.query;
        if let Some(&t) = self.targets.get(usize::from(flipped))
            && t != key
        {
            return false;
        }
        if q.patterns.is_empty() && q.pawns.is_none() {
            return true;
        }
        let (b, turn) = if flipped {
            (flip_board(board), pos.turn().other())
        } else {
            (*board, pos.turn())
        };
        q.patterns.iter().all(|p| p.matches(&b, turn))
            && q.pawns.as_ref().is_none_or(|p| p.matches(&b))
    }

    fn material_holds(&self, board: &Board, flipped: bool) -> bool {
        match &self.query.material {
            None => true,
            Some(m) => {
                let c = counts(board);
                if flipped {
                    m.mirrored().matches(&c)
                } else {
                    m.matches(&c)
                }
            }
        }
    }

    /// The first ply at which the game (legal `moves` from `start`) matches. The Laws'
    /// forms, if any, read the game under the newest Laws with no ending known: a caller
    /// with the game's verdict gives it to `first_match_under`.
    pub fn first_match(&self, start: &Position, moves: &[Move]) -> Option<u32> {
        self.first_match_under(start, moves, &GameLaws::default())
    }

    /// `first_match`, with the Laws' forms read under the game's edition and ending.
    pub fn first_match_under(
        &self,
        start: &Position,
        moves: &[Move],
        laws: &GameLaws,
    ) -> Option<u32> {
        let q = &self.query;
        // The plies where the Laws' forms hold (most games have none: no replay below).
        let lawful = if q.laws.is_empty() {
            None
        } else {
            Some(matching_plies(&q.laws, start, moves, laws)?)
        };
        let held = q.held.max(1) as usize;
        let sides: &[bool] = if q.identity.mirror {
            &[false, true]
        } else {
            &[false]
        };
        let needs_board = !q.patterns.is_empty() || q.pawns.is_some() || q.material.is_some();
        let mut pos = *start;
        let mut board = if needs_board { board_of(&pos) } else { [0; 64] };
        let mut runs = HeldRuns::new(held);
        for ply in 0..=moves.len() {
            if ply > 0 {
                let m = moves[ply - 1];
                pos.play_unchecked(m);
                if needs_board {
                    update_board(&mut board, &pos, m);
                }
            }
            let key = if self.targets.is_empty() {
                0
            } else {
                q.identity.key(&pos)
            };
            for &flipped in sides {
                let s = usize::from(flipped);
                let here = self.holds(&pos, &board, key, flipped)
                    && lawful.as_ref().is_none_or(|l| l[ply])
                    && q.sequence.as_ref().is_none_or(|seq| {
                        moves.get(ply).is_some_and(|&m| seq.first_is(&pos, m))
                            && seq.matches_at(&pos, &moves[ply..])
                    });
                if held == 1 {
                    if here && self.material_holds(&board, flipped) {
                        return Some(ply as u32);
                    }
                    continue;
                }
                if let Some(p) = runs.step(s, ply, self.material_holds(&board, flipped), here) {
                    return Some(p);
                }
            }
        }
        None
    }
}

/// A game's positions matched as a decoder gives them (`Matcher::scanner`).
#[derive(Debug)]
pub struct Scanner<'a> {
    m: &'a Matcher,
    held: usize,
    run_start: [Option<usize>; 2],
    pending: [Vec<usize>; 2],
    /// Plies where a sequence started whose moves so far are its first ones (oldest first):
    /// the start at `p` has had its moves up to `ply - 1` matched.
    open: std::collections::VecDeque<usize>,
    /// The game's first position: its move number and whether Black is to move there.
    origin: (u32, bool),
    /// No position, material, sequence or held plies: only patterns and pawns, tested on
    /// each position alone.
    plain: bool,
}

impl Scanner<'_> {
    /// `visit_board` for a `Position`: its key when the query has one, and the move's facts.
    pub fn visit(&mut self, pos: &Position, ply: usize, next: Option<Move>) -> Option<u32> {
        let key = if self.m.targets.is_empty() {
            0
        } else {
            self.m.query.identity.key(pos)
        };
        self.visit_board(pos, key, ply, next.map(|mv| PlyMove::of(pos, mv)))
    }

    /// The position at `ply` (with its key under the query's identity when
    /// `Matcher::needs_key`, else any value) and the move played from it (None: the game
    /// ends there). Some(first matching ply) once it is known: for a sequence, at the
    /// position after its last move (where that move's `+` or `#` is read).
    #[inline]
    pub fn visit_board<B: ScanBoard>(
        &mut self,
        pos: &B,
        key: u64,
        ply: usize,
        next: Option<PlyMove>,
    ) -> Option<u32> {
        let m = self.m;
        let q = &m.query;
        if self.plain {
            // Patterns and structures alone: a test of each side's forms at this ply.
            let here = m.fast.iter().flatten().any(|f| f.holds(pos));
            return here.then_some(ply as u32);
        }
        if let Some(seq) = &q.sequence
            && ply > 0
            && !self.open.is_empty()
            && let Some(p) = self.close_moves(seq, pos, ply)
        {
            return Some(p as u32);
        }
        let counts = q.material.as_ref().map(|_| position_counts(pos));
        let mut start_here = false;
        for (s, fast) in m.fast.iter().enumerate() {
            let Some(fast) = fast else { continue };
            let material = match (&fast.material, &counts) {
                (Some(mt), Some(c)) => mt.matches(c),
                _ => true,
            };
            if self.held == 1 && !material {
                continue;
            }
            let here = m.targets.get(s).is_none_or(|&t| t == key) && fast.holds(pos);
            if q.sequence.is_some() {
                // held is 1: the sequence decides, once its moves are read.
                start_here |= here;
                continue;
            }
            if self.held == 1 {
                if here {
                    return Some(ply as u32);
                }
                continue;
            }
            if material {
                let begun = *self.run_start[s].get_or_insert(ply);
                if here {
                    self.pending[s].push(ply);
                }
                if let Some(&p) = self.pending[s].first()
                    && p >= begun
                    && ply + 1 - p >= self.held
                {
                    return Some(p as u32);
                }
            } else {
                self.run_start[s] = None;
                self.pending[s].clear();
            }
        }
        let seq = q.sequence.as_ref()?;
        match next {
            Some(mv) => {
                if !self.open.is_empty() {
                    self.open.retain(|&p| seq.token_is(ply - p, &mv));
                }
                if start_here && seq.token_is(0, &mv) && seq.may_start(pos.turn(), self.number(ply))
                {
                    self.open.push_back(ply);
                }
            }
            None => self.open.clear(),
        }
        None
    }

    /// The move number of the position at `ply`.
    fn number(&self, ply: usize) -> u32 {
        let (first, black) = self.origin;
        first + ((ply + usize::from(black)) / 2) as u32
    }

    /// At the position after the move of ply `ply - 1`: drops the open starts whose move
    /// there was written with a `+` or `#` the position does not have (each read once, and
    /// only when asked), and gives the start whose last move that was.
    fn close_moves<B: ScanBoard>(
        &mut self,
        seq: &super::query::Sequence,
        pos: &B,
        ply: usize,
    ) -> Option<usize> {
        let n = seq.moves.len();
        let (mut check, mut mate) = (None, None);
        let mut done = None;
        self.open.retain(|&p| {
            let i = ply - 1 - p;
            let ok = match seq.suffix(i) {
                None => true,
                Some(Suffix::Check) => *check.get_or_insert_with(|| pos.is_check()),
                Some(Suffix::Mate) => *mate.get_or_insert_with(|| pos.is_checkmate()),
            };
            if ok && i + 1 == n {
                done = done.or(Some(p));
            }
            ok
        });
        done
    }
}

/// Brings a board of piece codes up to date after `m` (the position is the one after it).
fn update_board(board: &mut Board, pos: &Position, m: Move) {
    board[m.from().index()] = 0;
    if m.is_castle() || m.is_en_passant() {
        // Rare: read the ranks the move touched back from the position.
        for sq in Square::all().filter(|s| s.rank() == m.from().rank() || s.rank() == m.to().rank())
        {
            board[sq.index()] = pos.piece_at(sq).map_or(0, code);
        }
    } else {
        board[m.to().index()] = pos.piece_at(m.to()).map_or(0, code);
    }
}

/// `--held N`: the plies where a query's other forms held, waiting for its material to hold
/// N plies in a row from there, per side of a mirrored query.
struct HeldRuns {
    held: usize,
    /// Per side: the ply where the current run of matching material began.
    run_start: [Option<usize>; 2],
    /// Per side: plies where the other forms held, waiting for their material span.
    pending: [Vec<usize>; 2],
}

impl HeldRuns {
    fn new(held: usize) -> HeldRuns {
        HeldRuns {
            held,
            run_start: [None, None],
            pending: [Vec::new(), Vec::new()],
        }
    }

    /// One ply of side `s`: `material` says the material holds there, `here` the other forms.
    /// Gives the earliest pending ply whose span is complete.
    fn step(&mut self, s: usize, ply: usize, material: bool, here: bool) -> Option<u32> {
        if !material {
            self.run_start[s] = None;
            self.pending[s].clear();
            return None;
        }
        let begun = *self.run_start[s].get_or_insert(ply);
        if here {
            self.pending[s].push(ply);
        }
        match self.pending[s].first() {
            Some(&p) if p >= begun && ply + 1 - p >= self.held => Some(p as u32),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::SanMode;
    use crate::positions::query::{parse_material, parse_sequence};

    fn game(sans: &str) -> (Position, Vec<Move>) {
        let start = Position::new();
        let mut pos = start;
        let mut moves = Vec::new();
        for t in sans.split_whitespace() {
            let m = crate::chess::san::play_san(&mut pos, t, SanMode::Strict)
                .unwrap()
                .mv;
            moves.push(m);
        }
        (start, moves)
    }

    #[test]
    fn transpositions_match_at_their_own_ply() {
        let target =
            Position::from_fen("rnbqkb1r/pppp1ppp/5n2/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
                .unwrap();
        let q = Query {
            position: Some(target),
            ..Query::default()
        };
        let m = Matcher::new(&q);
        let (s, a) = game("e4 e5 Nf3 Nf6");
        let (_, b) = game("Nf3 Nf6 e4 e5");
        assert_eq!(m.first_match(&s, &a), Some(4));
        assert_eq!(m.first_match(&s, &b), Some(4));
        let (_, c) = game("e4 e5 Nf3 Nc6");
        assert_eq!(m.first_match(&s, &c), None);
    }

    #[test]
    fn material_held_and_sequences() {
        let (s, g) = game("e4 d5 exd5 Qxd5 Nc3 Qa5 d4 c6 Nf3 Nf6");
        // Even material from the start; a pawn up for White after 3.exd5 (ply 3), held one ply.
        let q = Query {
            material: Some(parse_material("down>=1").unwrap()),
            held: 1,
            ..Query::default()
        };
        assert_eq!(Matcher::new(&q).first_match(&s, &g), Some(3));
        let q = Query {
            material: Some(parse_material("down>=1").unwrap()),
            held: 2,
            ..Query::default()
        };
        assert_eq!(Matcher::new(&q).first_match(&s, &g), None);
        let q = Query {
            sequence: Some(parse_sequence("Qxd5 Nc3 Qa5").unwrap()),
            ..Query::default()
        };
        assert_eq!(Matcher::new(&q).first_match(&s, &g), Some(3));
    }
}
