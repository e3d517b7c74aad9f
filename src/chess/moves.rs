//! `Move`, a packed 16-bit move, and `MoveList`, a fixed-capacity stack buffer for legal moves.
//! Castling is stored as king-takes-rook (the rook's square as destination), which works the
//! same for standard chess and Chess960; en passant and promotions are explicit kinds.

use super::types::{CastlingSide, Role, Square};
use std::fmt;

/// What a move does beyond moving one piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MoveKind {
    Normal,
    EnPassant,
    /// The destination is the castling rook's square.
    Castle,
    Promotion(Role),
}

/// bits 0–5 from, 6–11 to, 12–15 kind (0 normal, 1 en passant, 2 castle, 4–7 promotion N/B/R/Q).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Move(u16);

const KIND_EP: u16 = 1;
const KIND_CASTLE: u16 = 2;
const KIND_PROMO: u16 = 4;

impl Move {
    /// A value that is never a legal move (a1 to a1), for empty slots in tables.
    pub const NONE: Move = Move(0);

    #[inline]
    pub const fn normal(from: Square, to: Square) -> Move {
        Move(from.index() as u16 | (to.index() as u16) << 6)
    }

    #[inline]
    pub const fn en_passant(from: Square, to: Square) -> Move {
        Move(Move::normal(from, to).0 | KIND_EP << 12)
    }

    /// Castling, written as the king moving onto its own rook's square.
    #[inline]
    pub const fn castle(king: Square, rook: Square) -> Move {
        Move(Move::normal(king, rook).0 | KIND_CASTLE << 12)
    }

    #[inline]
    pub const fn promotion(from: Square, to: Square, role: Role) -> Move {
        // Knight=1..Queen=4 map onto 4..7.
        Move(Move::normal(from, to).0 | (KIND_PROMO + role as u16 - 1) << 12)
    }

    #[inline]
    pub const fn from(self) -> Square {
        Square::new((self.0 & 63) as u8)
    }

    /// The destination; for castling, the rook's square.
    #[inline]
    pub const fn to(self) -> Square {
        Square::new(((self.0 >> 6) & 63) as u8)
    }

    #[inline]
    pub const fn kind(self) -> MoveKind {
        match self.0 >> 12 {
            0 => MoveKind::Normal,
            KIND_EP => MoveKind::EnPassant,
            KIND_CASTLE => MoveKind::Castle,
            k => MoveKind::Promotion(Role::from_index((k - KIND_PROMO + 1) as usize)),
        }
    }

    #[inline]
    pub const fn promotion_role(self) -> Option<Role> {
        match self.kind() {
            MoveKind::Promotion(r) => Some(r),
            _ => None,
        }
    }

    #[inline]
    pub const fn is_castle(self) -> bool {
        self.0 >> 12 == KIND_CASTLE
    }

    #[inline]
    pub const fn is_en_passant(self) -> bool {
        self.0 >> 12 == KIND_EP
    }

    /// For a castling move: which side.
    pub fn castling_side(self) -> Option<CastlingSide> {
        if !self.is_castle() {
            return None;
        }
        Some(if self.to().file() > self.from().file() {
            CastlingSide::KingSide
        } else {
            CastlingSide::QueenSide
        })
    }

    /// Where the king ends up: the destination, except for castling.
    pub fn king_destination(self) -> Square {
        match self.castling_side() {
            Some(side) => Square::from_coords(side.king_to_file(), self.from().rank()),
            None => self.to(),
        }
    }

    /// The raw 16-bit encoding (stable; used in the database's compact move format).
    #[inline]
    pub const fn to_u16(self) -> u16 {
        self.0
    }

    #[inline]
    pub const fn from_u16(bits: u16) -> Move {
        Move(bits)
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from(), self.to())?;
        match self.kind() {
            MoveKind::Normal => Ok(()),
            MoveKind::EnPassant => f.write_str("ep"),
            MoveKind::Castle => f.write_str("(castle)"),
            MoveKind::Promotion(r) => write!(f, "={}", r.upper_char()),
        }
    }
}

/// Upper bound on legal moves in any chess position (the record is 218).
pub const MAX_MOVES: usize = 256;

/// Moves on the stack, at most `N` of them.
#[derive(Clone)]
pub struct MoveBuf<const N: usize> {
    moves: [Move; N],
    len: usize,
}

/// Room for every legal move of any position.
pub type MoveList = MoveBuf<MAX_MOVES>;

/// Room for the legal moves of one role onto one square (SAN resolution): at most nine
/// queens, or two pawns with four promotions each.
pub type TargetMoves = MoveBuf<16>;

impl<const N: usize> Default for MoveBuf<N> {
    fn default() -> Self {
        MoveBuf::new()
    }
}

impl<const N: usize> MoveBuf<N> {
    #[inline]
    pub const fn new() -> MoveBuf<N> {
        MoveBuf {
            moves: [Move::NONE; N],
            len: 0,
        }
    }

    #[inline]
    pub fn push(&mut self, m: Move) {
        // The bound holds for every legal position; the check keeps a corrupt one from panicking.
        if self.len < N {
            self.moves[self.len] = m;
            self.len += 1;
        }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    #[inline]
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
    }

    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        &mut self.moves[..self.len]
    }

    pub fn contains(&self, m: Move) -> bool {
        self.as_slice().contains(&m)
    }

    pub fn iter(&self) -> std::slice::Iter<'_, Move> {
        self.as_slice().iter()
    }

    /// Keeps the moves for which `keep` is true, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(Move) -> bool) {
        let mut w = 0;
        for r in 0..self.len {
            if keep(self.moves[r]) {
                self.moves[w] = self.moves[r];
                w += 1;
            }
        }
        self.len = w;
    }
}

impl<'a, const N: usize> IntoIterator for &'a MoveBuf<N> {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_round_trips() {
        let e2 = Square::parse("e2").unwrap();
        let e4 = Square::parse("e4").unwrap();
        let m = Move::normal(e2, e4);
        assert_eq!((m.from(), m.to(), m.kind()), (e2, e4, MoveKind::Normal));
        for role in Role::PROMOTIONS {
            let p = Move::promotion(e2, e4, role);
            assert_eq!(p.promotion_role(), Some(role));
            assert_eq!(Move::from_u16(p.to_u16()), p);
        }
        let c = Move::castle(Square::E1, Square::H1);
        assert_eq!(c.castling_side(), Some(CastlingSide::KingSide));
        assert_eq!(c.king_destination(), Square::G1);
        assert!(Move::en_passant(e4, e2).is_en_passant());
    }

    #[test]
    fn hot_types_are_small() {
        assert_eq!(std::mem::size_of::<Move>(), 2);
        assert_eq!(std::mem::size_of::<MoveList>(), 2 * MAX_MOVES + 8);
    }
}
