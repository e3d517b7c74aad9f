//! `Position`: a checked, legal chess position (standard or Chess960) and how moves change it.
//! It keeps bitboards by role and colour plus a mailbox, castling rights by rook square, the
//! en passant square, both clocks and an incrementally updated Zobrist hash.

use super::attacks;
use super::bitboard::Bitboard;
use super::moves::{Move, MoveKind, MoveList};
use super::setup::Setup;
use super::types::{CastlingSide, Color, File, Piece, Rank, Role, Square};
use super::zobrist;
use std::fmt;

/// Why a setup is not a legal position. The first problem found is reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PositionError {
    MissingKing(Color),
    TooManyKings(Color),
    PawnsOnBackRank(Square),
    TooManyPieces(Color),
    /// The side that just moved is still in check.
    OppositeCheck,
    /// More than two checkers: no single move gives three checks at once.
    ImpossibleCheck,
    InvalidEnPassant(Square),
    InvalidCastlingRights(Square),
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = |c: &Color| match c {
            Color::White => "White",
            Color::Black => "Black",
        };
        match self {
            PositionError::MissingKing(c) => write!(f, "{} has no king", name(c)),
            PositionError::TooManyKings(c) => write!(f, "{} has more than one king", name(c)),
            PositionError::PawnsOnBackRank(sq) => {
                write!(
                    f,
                    "pawn on {sq}: pawns cannot stand on the first or last rank"
                )
            }
            PositionError::TooManyPieces(c) => write!(
                f,
                "{} has more pieces than 16 men and their promotions allow",
                name(c)
            ),
            PositionError::OppositeCheck => f.write_str("the side not to move is in check"),
            PositionError::ImpossibleCheck => {
                f.write_str("the side to move is in a check no legal move could have given")
            }
            PositionError::InvalidEnPassant(sq) => write!(
                f,
                "en passant square {sq} could not have been made by the last move's double pawn push"
            ),
            PositionError::InvalidCastlingRights(sq) => write!(
                f,
                "castling right with the rook on {sq} has no matching king and rook on their squares"
            ),
        }
    }
}

impl std::error::Error for PositionError {}

/// Mailbox code of a piece: `role + 1` in the low three bits, the colour in bit 3 (0 is an
/// empty square), so the role comes back with one mask.
#[inline]
const fn encode_piece(p: Piece) -> u8 {
    (p.color as u8) << 3 | (p.role as u8 + 1)
}

#[inline]
const fn decode_piece(code: u8) -> Option<Piece> {
    let role = code & 7;
    if role == 0 {
        return None;
    }
    let color = if code & 8 != 0 {
        Color::Black
    } else {
        Color::White
    };
    Some(Piece::new(color, Role::from_index(role as usize - 1)))
}

/// Castling rights: for each colour and side, the square of the rook that may still castle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Castling {
    rooks: [[Option<Square>; 2]; 2],
    /// The same rook squares as one set: a move touching none of them (and no king move of
    /// a side with rights) leaves the rights alone, tested with one mask.
    mask: Bitboard,
}

impl Castling {
    #[inline]
    pub fn rook(&self, color: Color, side: CastlingSide) -> Option<Square> {
        self.rooks[color.index()][side.index()]
    }

    pub fn has(&self, color: Color, side: CastlingSide) -> bool {
        self.rook(color, side).is_some()
    }

    pub fn is_empty(&self) -> bool {
        self.mask.is_empty()
    }

    /// All rook squares with rights.
    #[inline]
    pub fn rook_squares(&self) -> Bitboard {
        self.mask
    }

    fn set(&mut self, color: Color, side: CastlingSide, rook: Option<Square>) {
        self.rooks[color.index()][side.index()] = rook;
        let mut bb = Bitboard::EMPTY;
        for sq in self.rooks.iter().flatten().flatten() {
            bb.add(*sq);
        }
        self.mask = bb;
    }
}

#[derive(Clone, Copy)]
pub struct Position {
    by_role: [Bitboard; 6],
    by_color: [Bitboard; 2],
    /// Piece codes by square: 0 empty, else 1 + 6·colour + role (a byte each keeps the
    /// position small, and it is copied on every move).
    board: [u8; 64],
    turn: Color,
    castling: Castling,
    ep_square: Option<Square>,
    halfmove_clock: u32,
    fullmove_number: u32,
    /// Pieces, side to move and castling rights; the en passant part is added on demand.
    hash: u64,
    /// Enemy pieces giving check to the side to move, kept up to date by every move.
    checkers: Bitboard,
    /// Each side's king square (by colour index), kept up to date by every king move: the
    /// SAN reader asks for a king two or three times a move.
    kings: [Square; 2],
    chess960: bool,
}

impl PartialEq for Position {
    fn eq(&self, other: &Position) -> bool {
        self.board == other.board
            && self.turn == other.turn
            && self.castling == other.castling
            && self.ep_square == other.ep_square
            && self.halfmove_clock == other.halfmove_clock
            && self.fullmove_number == other.fullmove_number
    }
}

impl Eq for Position {}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", super::fen::write_fen(self))
    }
}

impl Default for Position {
    fn default() -> Position {
        Position::new()
    }
}

/// Error from `Position::play`: the move was not legal; the position is returned untouched.
#[derive(Debug, Clone)]
pub struct IllegalMove {
    pub mv: Move,
    pub position: Box<Position>,
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "illegal move {:?} in {:?}", self.mv, self.position)
    }
}

impl std::error::Error for IllegalMove {}

impl Position {
    /// The standard start position.
    pub fn new() -> Position {
        // Parsed once: every game without a FEN tag starts here, and parsing the FEN per
        // game was 3% of `check`.
        static START: std::sync::LazyLock<Position> = std::sync::LazyLock::new(|| {
            super::fen::parse_fen(super::fen::START_FEN).expect("the start position is legal")
        });
        *START
    }

    /// Checks an unchecked setup. `chess960` only changes how castling is written in UCI.
    pub fn from_setup(setup: &Setup, chess960: bool) -> Result<Position, PositionError> {
        let mut pos = Position {
            by_role: [Bitboard::EMPTY; 6],
            by_color: [Bitboard::EMPTY; 2],
            board: [0; 64],
            turn: setup.turn,
            castling: Castling::default(),
            ep_square: None,
            halfmove_clock: setup.halfmove_clock,
            fullmove_number: setup.fullmove_number.max(1),
            hash: 0,
            checkers: Bitboard::EMPTY,
            kings: [Square::A1; 2],
            chess960,
        };
        for sq in Square::all() {
            if let Some(p) = setup.board[sq.index()] {
                pos.put(p, sq);
            }
        }
        for color in Color::ALL {
            let kings = pos.pieces(color, Role::King);
            match kings.count() {
                0 => return Err(PositionError::MissingKing(color)),
                1 => {}
                _ => return Err(PositionError::TooManyKings(color)),
            }
            pos.kings[color.index()] = kings.first().unwrap_or(Square::A1);
        }
        if let Some(sq) = (pos.by_role[Role::Pawn.index()] & Bitboard::BACKRANKS).first() {
            return Err(PositionError::PawnsOnBackRank(sq));
        }
        for color in Color::ALL {
            let n = |r: Role| pos.pieces(color, r).count() as i32;
            let promoted = (n(Role::Queen) - 1).max(0)
                + (n(Role::Rook) - 2).max(0)
                + (n(Role::Bishop) - 2).max(0)
                + (n(Role::Knight) - 2).max(0);
            if pos.by_color[color.index()].count() > 16 || n(Role::Pawn) + promoted > 8 {
                return Err(PositionError::TooManyPieces(color));
            }
        }
        let them = pos.turn.other();
        if pos
            .attackers(pos.king_of(them), pos.turn, pos.occupied())
            .nonempty()
        {
            return Err(PositionError::OppositeCheck);
        }
        pos.checkers = pos.compute_checkers();
        let checkers = pos.checkers;
        if checkers.count() > 2 {
            return Err(PositionError::ImpossibleCheck);
        }

        // Castling rights: each right needs the king on its back rank and an own rook on the
        // named square of that rank; side follows from the rook's file relative to the king.
        for sq in setup.castling_rooks {
            let color = if sq.rank() == Rank(0) {
                Color::White
            } else if sq.rank() == Rank(7) {
                Color::Black
            } else {
                return Err(PositionError::InvalidCastlingRights(sq));
            };
            let king = pos.king_of(color);
            if pos.piece_at(sq) != Some(Piece::new(color, Role::Rook))
                || king.rank() != color.back_rank()
            {
                return Err(PositionError::InvalidCastlingRights(sq));
            }
            let side = if sq.file() > king.file() {
                CastlingSide::KingSide
            } else {
                CastlingSide::QueenSide
            };
            if pos.castling.rooks[color.index()][side.index()].is_some() {
                return Err(PositionError::InvalidCastlingRights(sq));
            }
            pos.castling.set(color, side, Some(sq));
        }
        if !chess960 {
            for color in Color::ALL {
                for side in CastlingSide::ALL {
                    if let Some(rook) = pos.castling.rook(color, side) {
                        let expected_rook = match side {
                            CastlingSide::KingSide => File::H,
                            CastlingSide::QueenSide => File::A,
                        };
                        if pos.king_of(color).file() != File::E || rook.file() != expected_rook {
                            pos.chess960 = true;
                        }
                    }
                }
            }
        }

        if let Some(ep) = setup.ep_square {
            // The pawn that just made a double push stands in front of the ep square (from
            // the mover's view), and the two squares it crossed are empty.
            let (ep_rank, dir): (u8, i8) = match pos.turn {
                Color::White => (5, -8),
                Color::Black => (2, 8),
            };
            let pushed = ep.offset(dir);
            let origin = ep.offset(-dir);
            let ok = ep.rank() == Rank(ep_rank)
                && pos.piece_at(ep).is_none()
                && origin.is_some_and(|o| pos.piece_at(o).is_none())
                && pushed.is_some_and(|p| pos.piece_at(p) == Some(Piece::new(them, Role::Pawn)));
            if !ok {
                return Err(PositionError::InvalidEnPassant(ep));
            }
            pos.ep_square = Some(ep);
        }
        pos.hash = pos.compute_hash();
        Ok(pos)
    }

    /// An unchecked copy of this position.
    pub fn to_setup(&self) -> Setup {
        Setup {
            board: std::array::from_fn(|i| decode_piece(self.board[i])),
            turn: self.turn,
            castling_rooks: self.castling.rook_squares(),
            ep_square: self.ep_square,
            halfmove_clock: self.halfmove_clock,
            fullmove_number: self.fullmove_number,
        }
    }

    #[inline]
    fn put(&mut self, p: Piece, sq: Square) {
        self.by_role[p.role.index()].add(sq);
        self.by_color[p.color.index()].add(sq);
        self.board[sq.index()] = encode_piece(p);
        self.hash ^= zobrist::piece_key(p, sq);
    }

    #[inline]
    fn take(&mut self, sq: Square) -> Option<Piece> {
        let p = decode_piece(self.board[sq.index()])?;
        self.by_role[p.role.index()].remove(sq);
        self.by_color[p.color.index()].remove(sq);
        self.board[sq.index()] = 0;
        self.hash ^= zobrist::piece_key(p, sq);
        Some(p)
    }

    // ---- accessors -------------------------------------------------------------------

    #[inline]
    pub fn turn(&self) -> Color {
        self.turn
    }

    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        decode_piece(self.board[sq.index()])
    }

    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    #[inline]
    pub fn by_color(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }

    #[inline]
    pub fn by_role(&self, role: Role) -> Bitboard {
        self.by_role[role.index()]
    }

    #[inline]
    pub fn pieces(&self, color: Color, role: Role) -> Bitboard {
        self.by_color[color.index()] & self.by_role[role.index()]
    }

    #[inline]
    pub fn king_of(&self, color: Color) -> Square {
        // Every checked position has exactly one king per side, kept in `kings`.
        self.kings[color.index()]
    }

    #[inline]
    pub fn castling(&self) -> &Castling {
        &self.castling
    }

    /// The en passant target square as recorded (after any double push with an enemy pawn
    /// beside it, or as given in FEN); `legal_ep_square` says whether capturing is legal.
    #[inline]
    pub fn ep_square(&self) -> Option<Square> {
        self.ep_square
    }

    #[inline]
    pub fn halfmove_clock(&self) -> u32 {
        self.halfmove_clock
    }

    #[inline]
    pub fn fullmove_number(&self) -> u32 {
        self.fullmove_number
    }

    #[inline]
    pub fn is_chess960(&self) -> bool {
        self.chess960
    }

    pub fn set_chess960(&mut self, chess960: bool) {
        self.chess960 = chess960;
    }

    /// Pieces of `by` that attack `sq`, with the given occupancy.
    #[inline]
    pub fn attackers(&self, sq: Square, by: Color, occupied: Bitboard) -> Bitboard {
        let them = self.by_color[by.index()];
        let rq = self.by_role[Role::Rook.index()] | self.by_role[Role::Queen.index()];
        let bq = self.by_role[Role::Bishop.index()] | self.by_role[Role::Queen.index()];
        them & ((attacks::rook_attacks(sq, occupied) & rq)
            | (attacks::bishop_attacks(sq, occupied) & bq)
            | (attacks::knight_attacks(sq) & self.by_role[Role::Knight.index()])
            | (attacks::king_attacks(sq) & self.by_role[Role::King.index()])
            | (attacks::pawn_attacks(by.other(), sq) & self.by_role[Role::Pawn.index()]))
    }

    pub fn is_attacked(&self, sq: Square, by: Color) -> bool {
        self.is_attacked_with(sq, by, self.occupied())
    }

    /// Whether a knight, pawn or king of `by` attacks `sq` (occupancy does not matter).
    #[inline]
    fn is_attacked_by_leaper(&self, sq: Square, by: Color) -> bool {
        let them = self.by_color[by.index()];
        (attacks::knight_attacks(sq) & self.by_role[Role::Knight.index()] & them).nonempty()
            || (attacks::pawn_attacks(by.other(), sq) & self.by_role[Role::Pawn.index()] & them)
                .nonempty()
            || (attacks::king_attacks(sq) & self.by_role[Role::King.index()] & them).nonempty()
    }

    /// Whether any piece of `by` attacks `sq` with the given occupancy; cheaper than
    /// `attackers` because it stops at the first kind of attacker found.
    #[inline]
    pub fn is_attacked_with(&self, sq: Square, by: Color, occupied: Bitboard) -> bool {
        if self.is_attacked_by_leaper(sq, by) {
            return true;
        }
        let them = self.by_color[by.index()];
        let queens = self.by_role[Role::Queen.index()];
        let rq = (self.by_role[Role::Rook.index()] | queens) & them;
        let bq = (self.by_role[Role::Bishop.index()] | queens) & them;
        (rq.nonempty() && (attacks::rook_attacks(sq, occupied) & rq).nonempty())
            || (bq.nonempty() && (attacks::bishop_attacks(sq, occupied) & bq).nonempty())
    }

    /// [`Position::is_attacked_with`] for the SAN reader's hot path: sliders are found on
    /// the small empty-board ray tables and tested with `between`, which misses the cache
    /// far less than the magic table when little else is looked up.
    #[inline]
    pub(crate) fn is_attacked_sparse(&self, sq: Square, by: Color, occupied: Bitboard) -> bool {
        if self.is_attacked_by_leaper(sq, by) {
            return true;
        }
        let them = self.by_color[by.index()];
        let queens = self.by_role[Role::Queen.index()];
        let rq = self.by_role[Role::Rook.index()] | queens;
        let bq = self.by_role[Role::Bishop.index()] | queens;
        (attacks::rook_rays(sq) & rq & them)
            .into_iter()
            .any(|s| (attacks::between_orthogonal(sq, s) & occupied).is_empty())
            || (attacks::bishop_rays(sq) & bq & them)
                .into_iter()
                .any(|s| (attacks::between_diagonal(sq, s) & occupied).is_empty())
    }

    /// Enemy pieces giving check to the side to move.
    #[inline]
    pub fn checkers(&self) -> Bitboard {
        self.checkers
    }

    fn compute_checkers(&self) -> Bitboard {
        self.attackers(self.king_of(self.turn), self.turn.other(), self.occupied())
    }

    #[inline]
    pub fn is_check(&self) -> bool {
        self.checkers().nonempty()
    }

    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate_legal(&mut list);
        list
    }

    pub fn has_legal_moves(&self) -> bool {
        // Most positions (checks included) have a king move: look for one first.
        let us = self.turn;
        let king = self.king_of(us);
        let occupied = self.occupied() - Bitboard::from_square(king);
        let dests = attacks::king_attacks(king) - self.by_color[us.index()];
        if dests
            .into_iter()
            .any(|to| !self.is_attacked_sparse(to, us.other(), occupied))
        {
            return true;
        }
        !self.legal_moves().is_empty()
    }

    /// Art. 5.1.1: the king is in check and there is no legal move.
    pub fn is_checkmate(&self) -> bool {
        self.is_check() && !self.has_legal_moves()
    }

    /// Art. 5.2.1: no legal move and the king is not in check.
    pub fn is_stalemate(&self) -> bool {
        !self.is_check() && !self.has_legal_moves()
    }

    /// Is this move legal here?
    pub fn is_legal(&self, m: Move) -> bool {
        let mut list = MoveList::new();
        self.generate_legal_from(
            &mut list,
            Bitboard::from_square(m.from()),
            Bitboard::from_square(m.to()),
        );
        list.contains(m)
    }

    /// The en passant square, only if an en passant capture is actually legal (Art. 9.2.2).
    pub fn legal_ep_square(&self) -> Option<Square> {
        let ep = self.ep_square?;
        let candidates =
            attacks::pawn_attacks(self.turn.other(), ep) & self.pieces(self.turn, Role::Pawn);
        candidates
            .into_iter()
            .any(|from| self.ep_is_legal(from, ep))
            .then_some(ep)
    }

    // ---- hashing -----------------------------------------------------------------------

    fn compute_hash(&self) -> u64 {
        let mut h = 0;
        for color in Color::ALL {
            for role in Role::ALL {
                for sq in self.pieces(color, role) {
                    h ^= zobrist::piece_key(Piece::new(color, role), sq);
                }
            }
        }
        if self.turn == Color::Black {
            h ^= zobrist::black_to_move_key();
        }
        for color in Color::ALL {
            for side in CastlingSide::ALL {
                if let Some(r) = self.castling.rook(color, side) {
                    h ^= zobrist::castling_key(color, r.file());
                }
            }
        }
        h
    }

    /// Zobrist hash of the position as Art. 9.2.2 (2017) defines sameness: placement, side to
    /// move, castling rights, and the en passant file only when an en passant capture is legal.
    /// Two positions with equal keys are the same position for repetition purposes.
    #[inline]
    pub fn repetition_key(&self) -> u64 {
        match self.ep_square {
            None => self.hash,
            Some(_) => match self.legal_ep_square() {
                Some(ep) => self.hash ^ zobrist::en_passant_key(ep.file()),
                None => self.hash,
            },
        }
    }

    /// The hash without its en passant part: `repetition_key` unless an en passant capture
    /// is legal. Up to date after hashed moves only (not the replay's unhashed main line).
    #[inline]
    pub fn plain_key(&self) -> u64 {
        self.hash
    }

    /// The `repetition_key` of the position after `m`, without playing it, for an ordinary
    /// move or promotion that changes no castling right and is no double pawn step (which
    /// may leave an en passant capture to look at); `None` for the rest, which the caller
    /// plays to learn the key. `m` must be legal here.
    #[inline]
    pub fn key_after(&self, m: Move) -> Option<u64> {
        let (from, to) = (m.from(), m.to());
        let placed = match m.kind() {
            MoveKind::Normal => None,
            MoveKind::Promotion(role) => Some(role),
            MoveKind::Castle | MoveKind::EnPassant => return None,
        };
        let moving = self.piece_at(from)?;
        if moving.role == Role::Pawn && from.index().abs_diff(to.index()) == 16 {
            return None;
        }
        let from_to = Bitboard::from_square(from) | Bitboard::from_square(to);
        if self.ends_castling(moving.color, moving.role, from_to) {
            return None;
        }
        let after = Piece::new(moving.color, placed.unwrap_or(moving.role));
        let mut key = self.hash
            ^ zobrist::piece_key(moving, from)
            ^ zobrist::piece_key(after, to)
            ^ zobrist::black_to_move_key();
        if let Some(captured) = self.piece_at(to) {
            key ^= zobrist::piece_key(captured, to);
        }
        Some(key)
    }

    /// The position's hash (the same as `repetition_key`: positions that are the same under
    /// the Laws hash alike, which is also what a transposition table wants).
    #[inline]
    pub fn zobrist(&self) -> u64 {
        self.repetition_key()
    }

    /// Recomputes the hash from scratch (tests compare it with the incremental one).
    pub fn zobrist_from_scratch(&self) -> u64 {
        let mut h = self.compute_hash();
        if let Some(ep) = self.legal_ep_square() {
            h ^= zobrist::en_passant_key(ep.file());
        }
        h
    }

    // ---- making moves --------------------------------------------------------------------

    /// Plays a move known to be legal (from `legal_moves`, or checked with `is_legal`).
    /// Playing an illegal move leaves a position that breaks the type's promises.
    #[inline]
    pub fn play_unchecked(&mut self, m: Move) {
        self.play_with_checkers(m, None);
    }

    #[inline]
    fn play_with_checkers(&mut self, m: Move, known: Option<Bitboard>) {
        let from = m.from();
        let to = m.to();
        let Some(moving) = self.piece_at(from) else {
            return;
        };
        match m.kind() {
            MoveKind::Normal => {
                let checkers = known.unwrap_or_else(|| self.checkers_after(from, to, moving.role));
                self.play_normal::<true>(from, to, moving.role, moving.role, checkers);
            }
            MoveKind::Promotion(role) => {
                let checkers = known.unwrap_or_else(|| self.checkers_after(from, to, role));
                self.play_normal::<true>(from, to, Role::Pawn, role, checkers);
            }
            MoveKind::Castle | MoveKind::EnPassant => self.play_special(m, moving),
        }
    }

    /// Castling and en passant, which move or take a second piece; the checkers are looked
    /// for afresh after the move.
    #[cold]
    #[inline(never)]
    fn play_special(&mut self, m: Move, moving: Piece) {
        let us = self.turn;
        let from = m.from();
        let to = m.to();
        self.ep_square = None;
        self.halfmove_clock += 1;
        if m.kind() == MoveKind::Castle {
            // King and rook leave `from` and `to` and land on their castled squares (which
            // may be either of those in Chess960): one exclusive-or per board.
            let side = m.castling_side().unwrap_or(CastlingSide::KingSide);
            let rank = us.back_rank();
            let king_to = Square::from_coords(side.king_to_file(), rank);
            let rook_to = Square::from_coords(side.rook_to_file(), rank);
            let king_move = Bitboard::from_square(from) ^ Bitboard::from_square(king_to);
            let rook_move = Bitboard::from_square(to) ^ Bitboard::from_square(rook_to);
            self.by_role[Role::King.index()] ^= king_move;
            self.by_role[Role::Rook.index()] ^= rook_move;
            self.by_color[us.index()] ^= king_move ^ rook_move;
            self.board[from.index()] = 0;
            self.board[to.index()] = 0;
            self.board[king_to.index()] = encode_piece(Piece::new(us, Role::King));
            self.kings[us.index()] = king_to;
            self.board[rook_to.index()] = encode_piece(Piece::new(us, Role::Rook));
            self.hash ^= zobrist::piece_key(Piece::new(us, Role::King), from)
                ^ zobrist::piece_key(Piece::new(us, Role::King), king_to)
                ^ zobrist::piece_key(Piece::new(us, Role::Rook), to)
                ^ zobrist::piece_key(Piece::new(us, Role::Rook), rook_to);
        } else {
            self.take(Square::from_coords(to.file(), from.rank()));
            self.take(from);
            self.put(moving, to);
            self.halfmove_clock = 0;
        }
        if moving.role == Role::King
            && (self.castling.mask & Bitboard::from_rank(us.back_rank())).nonempty()
        {
            self.lose_castling::<true>(from, to, true);
        }
        self.fullmove_number += us as u32;
        self.turn = us.other();
        self.hash ^= zobrist::black_to_move_key();
        self.checkers = self.compute_checkers();
    }

    /// Plays a normal move or promotion of a `moving` piece from `from` to `to`, where it
    /// stands as `placed`, given the checkers it leaves ([`Position::checkers_after`]). The
    /// one play step of every normal move: bitboards, mailbox, clocks, en passant square
    /// and castling rights by masks. `HASH` keeps the Zobrist hash up to date; the replay
    /// plays without it and recomputes the hash once at the end ([`Position::refresh_hash`]).
    #[inline(always)]
    pub(crate) fn play_normal<const HASH: bool>(
        &mut self,
        from: Square,
        to: Square,
        moving: Role,
        placed: Role,
        checkers: Bitboard,
    ) {
        let us = self.turn;
        let them = us.other();
        let from_bb = Bitboard::from_square(from);
        let to_bb = Bitboard::from_square(to);
        let captured = self.board[to.index()];
        self.halfmove_clock += 1;
        if captured != 0 {
            let role = Role::from_index((captured & 7) as usize - 1);
            self.by_role[role.index()] ^= to_bb;
            self.by_color[them.index()] ^= to_bb;
            if HASH {
                self.hash ^= zobrist::piece_key(Piece::new(them, role), to);
            }
            self.halfmove_clock = 0;
        }
        self.by_role[moving.index()] ^= from_bb;
        self.by_role[placed.index()] ^= to_bb;
        self.by_color[us.index()] ^= from_bb | to_bb;
        self.board[from.index()] = 0;
        self.board[to.index()] = encode_piece(Piece::new(us, placed));
        if moving == Role::King {
            self.kings[us.index()] = to;
        }
        if HASH {
            self.hash ^= zobrist::piece_key(Piece::new(us, moving), from)
                ^ zobrist::piece_key(Piece::new(us, placed), to)
                ^ zobrist::black_to_move_key();
        }
        self.ep_square = None;
        if moving == Role::Pawn {
            self.halfmove_clock = 0;
            if from.index().abs_diff(to.index()) == 16 {
                let ep = Square::new(((from.index() + to.index()) / 2) as u8);
                if (attacks::pawn_attacks(us, ep) & self.pieces(them, Role::Pawn)).nonempty() {
                    self.ep_square = Some(ep);
                }
            }
        }
        if self.ends_castling(us, moving, from_bb | to_bb) {
            self.lose_castling::<HASH>(from, to, moving == Role::King);
        }
        self.fullmove_number += us as u32;
        self.turn = them;
        self.checkers = checkers;
    }

    /// Whether a man of `role` and `color` leaving or reaching the squares `from_to` ends a
    /// castling right: castling rights go with a king move, a rook leaving its square, or a
    /// capture on it.
    #[inline]
    fn ends_castling(&self, color: Color, role: Role, from_to: Bitboard) -> bool {
        let king_rank = if role == Role::King {
            Bitboard::from_rank(color.back_rank())
        } else {
            Bitboard::EMPTY
        };
        (self.castling.mask & (from_to | king_rank)).nonempty()
    }

    /// Drops the castling rights a move from `from` to `to` ends (all of the mover's when
    /// the king moves), with their hash keys when `HASH`.
    #[cold]
    #[inline(never)]
    fn lose_castling<const HASH: bool>(&mut self, from: Square, to: Square, king_moved: bool) {
        let us = self.turn;
        for color in Color::ALL {
            for side in CastlingSide::ALL {
                let slot = &mut self.castling.rooks[color.index()][side.index()];
                if let Some(r) = *slot
                    && (r == from || r == to || (king_moved && color == us))
                {
                    *slot = None;
                    self.castling.mask.remove(r);
                    if HASH {
                        self.hash ^= zobrist::castling_key(color, r.file());
                    }
                }
            }
        }
    }

    /// Recomputes the hash from the pieces, side to move and castling rights, after moves
    /// played without it (`play_normal::<false>`).
    #[inline]
    pub(crate) fn refresh_hash(&mut self) {
        self.hash = self.compute_hash();
    }

    /// The pieces that will give check after the side to move plays a piece from `from` to
    /// `to` where it stands as `placed` (a normal move or a promotion; not castling or en
    /// passant), computed before the move: the piece itself from its new square, and our
    /// sliders whose line to the enemy king the move opens. No other of our pieces can
    /// check then, since the side to move never gives check before moving.
    #[inline(always)]
    pub(crate) fn checkers_after(&self, from: Square, to: Square, placed: Role) -> Bitboard {
        let us = self.turn;
        let king = self.king_of(us.other());
        let occupied = (self.occupied() - Bitboard::from_square(from)) | Bitboard::from_square(to);
        // Slider checks are found with the small ray tables rather than the magic or `line`
        // tables: this runs on every move, and the big tables' cache misses dominated.
        let direct = match placed {
            Role::Pawn => attacks::pawn_attacks(us, to).contains(king),
            Role::Knight => attacks::knight_attacks(to).contains(king),
            Role::King => false,
            _ => {
                let orthogonal = placed != Role::Bishop && attacks::rook_rays(to).contains(king);
                let diagonal = placed != Role::Rook && attacks::bishop_rays(to).contains(king);
                (orthogonal && (attacks::between_orthogonal(to, king) & occupied).is_empty())
                    || (diagonal && (attacks::between_diagonal(to, king) & occupied).is_empty())
            }
        };
        let mut checkers = if direct {
            Bitboard::from_square(to)
        } else {
            Bitboard::EMPTY
        };
        // Discovered checks: our sliders on the line through the enemy king and `from` (the
        // others were blocked before the move and still are); both sets are nearly always
        // empty.
        let ours = self.by_color[us.index()] - Bitboard::from_square(from);
        let queens = self.by_role[Role::Queen.index()];
        let (rook_line, bishop_line) = attacks::lines_through(king, from);
        for s in rook_line & (self.by_role[Role::Rook.index()] | queens) & ours {
            if (attacks::between_orthogonal(king, s) & occupied).is_empty() {
                checkers.add(s);
            }
        }
        for s in bishop_line & (self.by_role[Role::Bishop.index()] | queens) & ours {
            if (attacks::between_diagonal(king, s) & occupied).is_empty() {
                checkers.add(s);
            }
        }
        checkers
    }

    /// Plays a move after checking it; on failure the untouched position comes back in the error.
    pub fn play(mut self, m: Move) -> Result<Position, IllegalMove> {
        if self.is_legal(m) {
            self.play_unchecked(m);
            Ok(self)
        } else {
            Err(IllegalMove {
                mv: m,
                position: Box::new(self),
            })
        }
    }

    /// Passes the turn (a null move, for search). Not legal chess; never used on game records.
    pub fn play_null(&mut self) {
        self.ep_square = None;
        self.halfmove_clock += 1;
        if self.turn == Color::Black {
            self.fullmove_number += 1;
        }
        self.turn = self.turn.other();
        self.hash ^= zobrist::black_to_move_key();
        self.checkers = self.compute_checkers();
    }

    /// The role of the piece a move captures, if any.
    pub fn captured_role(&self, m: Move) -> Option<Role> {
        match m.kind() {
            MoveKind::EnPassant => Some(Role::Pawn),
            MoveKind::Castle => None,
            _ => self.piece_at(m.to()).map(|p| p.role),
        }
    }

    /// True for captures and promotions, the moves that reset nothing but change material.
    pub fn is_capture(&self, m: Move) -> bool {
        self.captured_role(m).is_some()
    }

    /// True if the move resets the fifty-move count (pawn move or capture, Art. 9.3).
    pub fn is_zeroing(&self, m: Move) -> bool {
        self.is_capture(m)
            || self
                .piece_at(m.from())
                .is_some_and(|p| p.role == Role::Pawn)
    }

    /// Does the move give check?
    pub fn gives_check(&self, m: Move) -> bool {
        let mut after = *self;
        after.play_unchecked(m);
        after.is_check()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::fen::parse_fen;

    /// The SAN reader's shortcuts agree with the general ones: attacked squares with the
    /// ray tables, and the legal moves of one role onto one square.
    fn check_lookups(pos: &Position) {
        let occupied = pos.occupied();
        let all = pos.legal_moves();
        for sq in Square::all() {
            for by in Color::ALL {
                assert_eq!(
                    pos.is_attacked_sparse(sq, by, occupied),
                    pos.is_attacked_with(sq, by, occupied),
                    "{pos:?} {sq} {by:?}"
                );
            }
            for role in Role::ALL {
                let mut to = crate::chess::moves::TargetMoves::new();
                pos.legal_moves_to(role, sq, &mut to);
                let mut got: Vec<Move> = to.iter().copied().collect();
                let mut want: Vec<Move> = all
                    .iter()
                    .copied()
                    .filter(|m| {
                        !m.is_castle()
                            && m.to() == sq
                            && pos.piece_at(m.from()).map(|p| p.role) == Some(role)
                    })
                    .collect();
                got.sort_by_key(|m| m.to_u16());
                want.sort_by_key(|m| m.to_u16());
                assert_eq!(got, want, "{pos:?} {role:?} {sq}");
            }
        }
    }

    /// `key_after` tells the key of the position after a move, where it tells one, as
    /// playing the move does: every legal move of the positions along pseudo-random lines
    /// from starts with castling rights, en passant, promotions and captures.
    #[test]
    fn key_after_is_the_played_key() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let (mut told, mut left) = (0, 0);
        for fen in [
            "r3k2r/pPpp1ppp/8/8/8/8/PpPP1PPP/R3K2R w KQkq - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 1",
            "4k3/2P5/8/8/8/8/6p1/R3K2R w KQ - 0 1",
        ] {
            let mut pos = Position::from_fen(fen).unwrap();
            for _ in 0..120 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                for &m in moves.iter() {
                    let mut after = pos;
                    after.play_unchecked(m);
                    match pos.key_after(m) {
                        Some(key) => {
                            assert_eq!(key, after.repetition_key(), "{} {m:?}", pos.fen());
                            told += 1;
                        }
                        None => left += 1,
                    }
                }
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                pos.play_unchecked(moves.as_slice()[(state % moves.len() as u64) as usize]);
            }
        }
        // Most moves are told; castling, en passant, double steps and moves that end a
        // castling right are left to be played.
        assert!(told > 5_000 && left > 100, "{told} told, {left} left");
    }

    /// Every move two plies deep from positions full of pins, discovered checks,
    /// promotions, castling and en passant: the incremental checkers equal a fresh count.
    #[test]
    fn incremental_checkers_match_a_fresh_count() {
        fn walk(pos: &Position, depth: u32, seen: &mut u64) {
            for &m in pos.legal_moves().iter() {
                let mut child = *pos;
                child.play_unchecked(m);
                assert_eq!(child.checkers(), child.compute_checkers(), "{pos:?} {m:?}");
                check_lookups(&child);
                *seen += child.is_check() as u64;
                if depth > 1 {
                    walk(&child, depth - 1, seen);
                }
            }
        }
        let mut checks = 0;
        for fen in [
            crate::chess::fen::START_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
            "4k3/8/8/2KPp2r/8/8/8/8 w - e6 0 2",
            "3k4/3q4/8/8/B3Q3/8/3R4/3K4 w - - 0 1",
        ] {
            walk(&parse_fen(fen).unwrap(), 2, &mut checks);
        }
        assert!(checks > 100, "{checks}");
    }
}
