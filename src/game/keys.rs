//! A game's repetition keys (Art. 9.2.2's identity of positions, `Position::repetition_key`)
//! walked cheaply along its moves: a board of piece codes and the Zobrist hash, without
//! bitboards or check detection. The Laws count repetitions with it (`laws::verdict`) and
//! the opening names look positions up with it (`identity::openings`).

use crate::chess::attacks;
use crate::chess::zobrist;
use crate::chess::{CastlingSide, Color, Move, MoveKind, Piece, Position, Role, Square};

/// The placement of the pieces by square: 0 for an empty one, else `code(piece)`.
pub type Board = [u8; 64];

const PIECES: [Option<Piece>; 13] = {
    let mut pieces = [None; 13];
    let mut i = 0;
    while i < 12 {
        let color = if i < 6 { Color::White } else { Color::Black };
        pieces[i + 1] = Some(Piece::new(color, Role::from_index(i % 6)));
        i += 1;
    }
    pieces
};

#[inline]
pub fn code(p: Piece) -> u8 {
    1 + 6 * p.color.index() as u8 + p.role.index() as u8
}

#[inline]
pub fn piece(code: u8) -> Option<Piece> {
    PIECES.get(code as usize).copied().flatten()
}

/// A game's repetition keys, walked cheaply: each move updates a board of piece codes and
/// the Zobrist hash exactly as `Position::play_unchecked` does, so the keys are
/// `Position::repetition_key`'s, but without bitboards or check detection. The few plies
/// that need a full `Position` (a legal en passant capture, `ep_pending`) replay one: the
/// Laws' claims (`laws::claims::Replayer`) and the opening names (`identity::openings`).
#[derive(Debug, Clone, Copy)]
pub struct Keys {
    board: Board,
    castling: [[Option<Square>; 2]; 2],
    /// `castle_squares`: where a move changes castling rights, as a mask by square index.
    castle_squares: u64,
    /// Each side's king square at the start.
    kings: [Square; 2],
    piece_keys: &'static PieceKeys,
    /// As `Position`'s own: pieces, side to move and castling rights; no en passant part.
    hash: u64,
    turn: Color,
    clock: u32,
    /// The en passant square after a double step next to an enemy pawn: whether the capture
    /// is legal (and so part of the key, 9.2.2) takes a full position to tell.
    ep: Option<Square>,
}

impl Keys {
    pub fn new(start: &Position) -> Keys {
        // By the twelve sets of men rather than square by square (`piece_at` looks through
        // the sets for each square): the walk is set up once per game judged.
        let mut board = [0; 64];
        for color in Color::ALL {
            for role in Role::ALL {
                let c = code(Piece::new(color, role));
                for sq in start.pieces(color, role) {
                    board[sq.index()] = c;
                }
            }
        }
        let mut castling = [[None; 2]; 2];
        for color in Color::ALL {
            for side in CastlingSide::ALL {
                castling[color.index()][side.index()] = start.castling().rook(color, side);
            }
        }
        let kings = Color::ALL.map(|c| start.king_of(c));
        let ep_part = start
            .legal_ep_square()
            .map_or(0, |ep| zobrist::en_passant_key(ep.file()));
        Keys {
            board,
            castling,
            castle_squares: castle_squares(&castling, kings),
            kings,
            piece_keys: piece_keys(),
            hash: start.repetition_key() ^ ep_part,
            turn: start.turn(),
            clock: start.halfmove_clock(),
            ep: None,
        }
    }

    #[inline]
    pub fn halfmove_clock(&self) -> u32 {
        self.clock
    }

    #[inline]
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// The current placement of the pieces.
    #[inline]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The current position's repetition key, unless `ep_pending`: then it is this or
    /// this with the en passant file added.
    #[inline]
    pub fn plain_key(&self) -> u64 {
        self.hash
    }

    /// The last move was a double step that may have made an en passant capture legal.
    #[inline]
    pub fn ep_pending(&self) -> bool {
        self.ep.is_some()
    }

    /// When `ep_pending`: the other key the position may have, `plain_key` with the en
    /// passant file added (it is the key when the capture is legal).
    #[inline]
    pub fn key_with_ep(&self) -> Option<u64> {
        self.ep
            .map(|ep| self.hash ^ zobrist::en_passant_key(ep.file()))
    }

    /// Plays a move, legal in the current position; true when it was a pawn move or a
    /// capture (Art. 9.3: it starts a new count, and no earlier position can occur again).
    #[inline(always)]
    pub fn play(&mut self, m: Move) -> bool {
        // `Move`'s stable 16-bit form: origin, destination, then the kind (0: normal).
        let bits = m.to_u16();
        let (f, t) = (usize::from(bits & 63), usize::from(bits >> 6 & 63));
        let moving = self.board[f];
        // `play_unchecked` leaves the position as it is, too.
        if moving == 0 {
            return false;
        }
        self.ep = None;
        let zeroing = if bits >> 12 == 0 {
            // A normal move, nearly every ply: one piece from `f` to `t`, taking what was there.
            let captured = self.board[t];
            let keys = self.piece_keys;
            let mover = usize::from(moving).min(12);
            self.hash ^= keys[mover][f] ^ keys[mover][t] ^ keys[usize::from(captured).min(12)][t];
            self.board[f] = 0;
            self.board[t] = moving;
            let pawn = moving == WHITE_PAWN || moving == BLACK_PAWN;
            if pawn && f.abs_diff(t) == 16 {
                self.double_step(self.turn, Square::new(f as u8), Square::new(t as u8));
            }
            pawn || captured != 0
        } else {
            self.play_special(m, f, t, moving)
        };
        self.clock = if zeroing { 0 } else { self.clock + 1 };
        // Castling rights go with a king move, a rook leaving its square, or a capture on
        // it: `castle_squares` holds those rooks' squares and the kings' of sides with a right.
        if self.castle_squares & (1u64 << f | 1u64 << t) != 0 {
            self.update_castling(
                self.turn,
                moving,
                Square::new(f as u8),
                Square::new(t as u8),
            );
        }
        self.turn = self.turn.other();
        self.hash ^= zobrist::black_to_move_key();
        zeroing
    }

    /// Castling, en passant and promotions: the rare kinds of `play`.
    #[inline(never)]
    fn play_special(&mut self, m: Move, f: usize, t: usize, moving: u8) -> bool {
        let us = self.turn;
        let (from, to) = (m.from(), m.to());
        match m.kind() {
            MoveKind::Castle => {
                let side = m.castling_side().unwrap_or(CastlingSide::KingSide);
                let rank = us.back_rank();
                let rook = self.board[t];
                self.set(f, 0);
                self.set(t, 0);
                let king_to = Square::from_coords(side.king_to_file(), rank);
                let rook_to = Square::from_coords(side.rook_to_file(), rank);
                self.set(king_to.index() & 63, moving);
                self.set(rook_to.index() & 63, rook);
                false
            }
            MoveKind::EnPassant => {
                let taken = Square::from_coords(to.file(), from.rank());
                self.set(taken.index() & 63, 0);
                self.set(f, 0);
                self.set(t, moving);
                true
            }
            MoveKind::Normal | MoveKind::Promotion(_) => {
                let captured = self.board[t];
                let placed = m
                    .promotion_role()
                    .map_or(moving, |role| code(Piece::new(us, role)));
                self.set(f, 0);
                self.set(t, placed);
                let pawn = moving == WHITE_PAWN || moving == BLACK_PAWN;
                if pawn && f.abs_diff(t) == 16 {
                    self.double_step(us, from, to);
                }
                pawn || captured != 0
            }
        }
    }

    /// Puts `code` (0: nothing) on square index `sq`, keeping the hash.
    #[inline(always)]
    fn set(&mut self, sq: usize, code: u8) {
        let sq = sq & 63;
        let old = std::mem::replace(&mut self.board[sq], code);
        let keys = &self.piece_keys[(old as usize).min(12)];
        let new = &self.piece_keys[(code as usize).min(12)];
        self.hash ^= keys[sq] ^ new[sq];
    }

    /// As `play_unchecked`: the en passant square is kept when an enemy pawn attacks it.
    fn double_step(&mut self, us: Color, from: Square, to: Square) {
        let ep = Square::new(((from.index() + to.index()) / 2) as u8);
        let enemy_pawn = code(Piece::new(us.other(), Role::Pawn));
        if attacks::pawn_attacks(us, ep)
            .into_iter()
            .any(|sq| self.board[sq.index()] == enemy_pawn)
        {
            self.ep = Some(ep);
        }
    }

    fn update_castling(&mut self, us: Color, moving: u8, from: Square, to: Square) {
        let before = self.castling;
        if moving == WHITE_KING || moving == BLACK_KING {
            self.castling[us.index()] = [None, None];
        }
        for rights in &mut self.castling {
            for right in rights.iter_mut() {
                if right.is_some_and(|r| r == from || r == to) {
                    *right = None;
                }
            }
        }
        if before != self.castling {
            for color in Color::ALL {
                let c = color.index();
                for r in before[c].iter().chain(&self.castling[c]).flatten() {
                    self.hash ^= zobrist::castling_key(color, r.file());
                }
            }
            self.castle_squares = castle_squares(&self.castling, self.kings);
        }
    }
}

/// `zobrist::piece_key` by piece code and square index; no key for code 0 (no piece).
type PieceKeys = [[u64; 64]; 13];

fn piece_keys() -> &'static PieceKeys {
    static KEYS: std::sync::OnceLock<PieceKeys> = std::sync::OnceLock::new();
    KEYS.get_or_init(|| {
        let mut keys = [[0; 64]; 13];
        for (code, row) in keys.iter_mut().enumerate() {
            if let Some(p) = piece(code as u8) {
                for sq in Square::all() {
                    row[sq.index()] = zobrist::piece_key(p, sq);
                }
            }
        }
        keys
    })
}

/// The squares a move must touch to change castling rights: the rooks' that may still
/// castle, and the king's of each side with a right (it has not moved, so it is still on
/// the square it had at the start).
fn castle_squares(castling: &[[Option<Square>; 2]; 2], kings: [Square; 2]) -> u64 {
    let mut mask = 0;
    for (rights, king) in castling.iter().zip(kings) {
        for rook in rights.iter().flatten() {
            mask |= 1u64 << rook.index();
            mask |= 1u64 << king.index();
        }
    }
    mask
}

/// Piece codes (`code`) of the pawns and kings, which `Keys::play` tests by value.
const WHITE_PAWN: u8 = 1;
const BLACK_PAWN: u8 = 7;
const WHITE_KING: u8 = 6;
const BLACK_KING: u8 = 12;

/// What the Laws read of one position along a game: its repetition key, half-move clock and
/// pending en passant square, as the replay leaves them (`game::replay_keyed`), so that the
/// verdict counts repetitions without walking the moves again.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlyKey {
    /// `Keys::plain_key`: the repetition key without any en passant part.
    key: u64,
    clock: u32,
    /// 1 + the en passant square's index after a double step beside an enemy pawn, else 0:
    /// `Keys::ep_pending`.
    ep: u8,
}

impl PlyKey {
    /// The position's key data; its hash must be up to date (a hashed move's).
    #[inline(always)]
    pub fn of(pos: &Position) -> PlyKey {
        PlyKey {
            key: pos.plain_key(),
            clock: pos.halfmove_clock(),
            ep: pos.ep_square().map_or(0, |sq| sq.index() as u8 + 1),
        }
    }

    /// The key data of a key walk's current position.
    #[inline]
    pub fn of_walk(walk: &Keys) -> PlyKey {
        PlyKey {
            key: walk.plain_key(),
            clock: walk.halfmove_clock(),
            ep: walk.ep.map_or(0, |sq| sq.index() as u8 + 1),
        }
    }

    /// The key data after each of `moves` (legal from `start`), by a key walk: for callers
    /// that have not replayed the game themselves.
    pub fn walk(start: &Position, moves: &[Move]) -> Vec<PlyKey> {
        let mut walk = Keys::new(start);
        moves
            .iter()
            .map(|&m| {
                walk.play(m);
                PlyKey::of_walk(&walk)
            })
            .collect()
    }

    /// As `Keys::plain_key`.
    #[inline]
    pub fn plain_key(&self) -> u64 {
        self.key
    }

    #[inline]
    pub fn halfmove_clock(&self) -> u32 {
        self.clock
    }

    /// The move that led here was a pawn move or a capture (Art. 9.3).
    #[inline]
    pub fn zeroing(&self) -> bool {
        self.clock == 0
    }

    /// As `Keys::ep_pending`.
    #[inline]
    pub fn ep_pending(&self) -> bool {
        self.ep != 0
    }

    /// As `Keys::key_with_ep`.
    #[inline]
    pub fn key_with_ep(&self) -> Option<u64> {
        self.ep_pending()
            .then(|| self.key ^ zobrist::en_passant_key(Square::new(self.ep - 1).file()))
    }
}

/// The repetition keys of a game's first positions, as a walk hands them over: `keys[i]`
/// after ply `i + 1`. After a double step next to an enemy pawn the key is one of two,
/// `keys[i]` or the one in `unsettled` (with `i`, in ply order), as the en passant capture
/// is legal or not (Art. 9.2.2); only a full position settles which, and a caller settles
/// it only where it matters (`identity::openings`: where either key has a name).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FirstKeys {
    pub keys: Vec<u64>,
    pub unsettled: Vec<(usize, u64)>,
}

impl FirstKeys {
    /// The keys of the positions after the first `plies` moves (legal moves from `start`).
    pub fn walk(start: &Position, moves: &[Move], plies: usize) -> FirstKeys {
        let mut walk = Keys::new(start);
        let mut first = FirstKeys::default();
        for &m in moves.iter().take(plies) {
            walk.play(m);
            first.push(&walk);
        }
        first
    }

    /// Adds the key of the walk's current position.
    #[inline]
    pub fn push(&mut self, walk: &Keys) {
        self.push_ply(&PlyKey::of_walk(walk));
    }

    /// Adds the key of the next position.
    #[inline]
    pub fn push_ply(&mut self, ply: &PlyKey) {
        if let Some(other) = ply.key_with_ep() {
            self.unsettled.push((self.keys.len(), other));
        }
        self.keys.push(ply.plain_key());
    }

    pub fn clear(&mut self) {
        self.keys.clear();
        self.unsettled.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plays SAN moves from a FEN with both the full position and the key walk, comparing
    /// keys, clocks, boards and zeroing moves on every ply.
    fn walk_alike(fen: &str, sans: &str) {
        let mut pos = Position::from_fen(fen).unwrap();
        let mut keys = Keys::new(&pos);
        for tok in sans.split_whitespace() {
            let m = crate::chess::san::resolve(&pos, tok, crate::chess::SanMode::Strict)
                .unwrap_or_else(|e| panic!("{tok}: {e}"))
                .mv;
            let zeroing = pos.is_zeroing(m);
            pos.play_unchecked(m);
            assert_eq!(keys.play(m), zeroing, "{tok}");
            assert_eq!(keys.halfmove_clock(), pos.halfmove_clock(), "{tok}");
            for sq in Square::all() {
                assert_eq!(
                    piece(keys.board()[sq.index()]),
                    pos.piece_at(sq),
                    "{tok} {sq:?}"
                );
            }
            let exact = pos.repetition_key();
            if keys.ep_pending() {
                let ep = pos.ep_square().unwrap();
                assert!(
                    exact == keys.plain_key()
                        || exact == keys.plain_key() ^ zobrist::en_passant_key(ep.file()),
                    "{tok}"
                );
            } else {
                assert_eq!(keys.plain_key(), exact, "{tok}");
            }
        }
    }

    #[test]
    fn first_keys_leave_the_en_passant_right_for_a_full_position_to_settle() {
        let play = |fen: &str, sans: &str| {
            let mut pos = Position::from_fen(fen).unwrap();
            let mut moves = Vec::new();
            let mut exact = Vec::new();
            for tok in sans.split_whitespace() {
                let m = crate::chess::san::resolve(&pos, tok, crate::chess::SanMode::Strict)
                    .unwrap()
                    .mv;
                pos.play_unchecked(m);
                moves.push(m);
                exact.push(pos.repetition_key());
            }
            (
                FirstKeys::walk(&Position::from_fen(fen).unwrap(), &moves, 8),
                exact,
            )
        };
        // 2...e5 beside the pawn on d5: dxe6 e.p. is legal, so the other key is the exact one.
        let (first, exact) = play(crate::chess::START_FEN, "d4 c5 d5 e5 Nf3");
        assert_eq!(first.keys.len(), 5);
        assert_eq!(first.unsettled, [(3, exact[3])]);
        assert_ne!(first.keys[3], exact[3]);
        assert_eq!(first.keys[4], exact[4]);
        // The pawn on e4 is pinned along the rank: the capture is illegal, the plain key exact.
        let (first, exact) = play("8/8/8/8/k3p2R/8/3P4/4K3 w - - 0 1", "d4");
        assert_eq!(first.keys, exact);
        assert_eq!(first.unsettled.len(), 1);
        assert_ne!(first.unsettled[0].1, exact[0]);
        // Only the first `plies` positions are kept.
        let (first, _) = play(crate::chess::START_FEN, "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O");
        assert_eq!(first.keys.len(), 8);
    }

    #[test]
    fn piece_codes_tested_by_value() {
        assert_eq!(code(Piece::new(Color::White, Role::Pawn)), WHITE_PAWN);
        assert_eq!(code(Piece::new(Color::Black, Role::Pawn)), BLACK_PAWN);
        assert_eq!(code(Piece::new(Color::White, Role::King)), WHITE_KING);
        assert_eq!(code(Piece::new(Color::Black, Role::King)), BLACK_KING);
    }

    #[test]
    fn key_walk_matches_full_positions() {
        // Castling both ways, en passant (legal and pinned), promotion, rook captures on
        // corner squares taking castling rights away.
        walk_alike(
            crate::chess::START_FEN,
            "e4 d5 exd5 c5 dxc6 Nxc6 Nf3 e5 Bb5 Bd6 O-O Qe7 Re1 Bd7 d4 O-O-O d5 Kb8 dxc6 Bxc6",
        );
        walk_alike(
            "4k3/8/8/8/1p6/8/P1P5/4K3 w - - 0 1",
            "a4 bxa3 c4 a2 c5 a1=Q+ Kd2 Qa5+ Kc2 Qxc5+",
        );
        // The black pawn on e4 is pinned along the rank: the en passant capture is illegal.
        walk_alike("8/8/8/8/k3p2R/8/3P4/4K3 w - - 0 1", "d4 Kb5 Ke2");
        walk_alike(
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            "Rxa8+ Kf7 Raxh8 Kg6 Kd2 Kf7 Ke1 Kg6",
        );
        // Rights lost by a rook move and by a king that moves and comes back.
        walk_alike(
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            "Rb1 Kd8 Ke2 Rb8 Ke1 Kc8 Rh7 Rg8",
        );
        // Chess960: king on f1, rooks on e1 and g1 (castling swaps king and rook squares).
        walk_alike(
            "bnqbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BNQBRKRN w GEge - 0 1",
            "O-O O-O",
        );
    }
}
