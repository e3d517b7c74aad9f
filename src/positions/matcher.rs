//! Matching a query against one game, replaying it: the first ply (0: the start position,
//! k: after the k-th half-move) at which every form of the query holds. This is both the
//! scan for the forms the index cannot answer and the check of the index's candidates, so
//! every answer is a replay's answer.

use super::laws::{GameLaws, matching_plies};
use super::query::{Counts, FastPattern, Material, Pawns, Query, counts};
use crate::chess::{Move, Position, Square};
use crate::game::keys::code;

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

    fn holds(&self, pos: &Position) -> bool {
        self.patterns.iter().all(|p| p.matches(pos))
            && self.pawns.as_ref().is_none_or(|p| p.matches_position(pos))
    }
}

/// Material counts (Q R B N P) of each side from a position's bitboards.
pub fn position_counts(pos: &Position) -> [Counts; 2] {
    use crate::chess::{Color, Role};
    let roles = [
        Role::Queen,
        Role::Rook,
        Role::Bishop,
        Role::Knight,
        Role::Pawn,
    ];
    [Color::White, Color::Black].map(|c| roles.map(|r| pos.pieces(c, r).count() as u8))
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
            moves: Vec::new(),
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
    /// Plies where a sequence may start, with their positions, waiting for its moves.
    open: std::collections::VecDeque<(usize, Position)>,
    /// The moves so far (kept for a sequence only).
    moves: Vec<Move>,
}

impl Scanner<'_> {
    /// The position at `ply` and the move played from it (None: the game ends there).
    /// Some(first matching ply) once it is known.
    pub fn visit(&mut self, pos: &Position, ply: usize, next: Option<Move>) -> Option<u32> {
        let m = self.m;
        let q = &m.query;
        let key = if m.targets.is_empty() {
            0
        } else {
            q.identity.key(pos)
        };
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
            if let Some(seq) = &q.sequence {
                // held is 1: the sequence decides, once its moves are read.
                start_here |= here && next.is_some_and(|mv| seq.first_is(pos, mv));
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
        if start_here {
            self.open.push_back((ply, *pos));
        }
        if let Some(mv) = next {
            self.moves.push(mv);
        }
        // The starts whose moves are all read, earliest first.
        while let Some((p, at)) = self.open.front() {
            if self.moves.len() < p + seq.0.len() {
                break;
            }
            if seq.matches_at(at, &self.moves[*p..]) {
                return Some(*p as u32);
            }
            self.open.pop_front();
        }
        None
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
