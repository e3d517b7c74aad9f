//! `Setup`: an unchecked position, as read from FEN or built by hand. Nothing here promises
//! legality; `Position::from_setup` checks it and says what is wrong.

use super::bitboard::Bitboard;
use super::types::{Color, Piece, Role, Square};

/// A position as written, before any check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setup {
    pub board: [Option<Piece>; 64],
    pub turn: Color,
    /// Squares of the rooks that still have castling rights (by rook, so Chess960 works).
    pub castling_rooks: Bitboard,
    pub ep_square: Option<Square>,
    pub halfmove_clock: u32,
    pub fullmove_number: u32,
}

impl Setup {
    pub fn empty() -> Setup {
        Setup {
            board: [None; 64],
            turn: Color::White,
            castling_rooks: Bitboard::EMPTY,
            ep_square: None,
            halfmove_clock: 0,
            fullmove_number: 1,
        }
    }

    /// The squares holding `piece`.
    pub fn squares_of(&self, piece: Piece) -> Bitboard {
        let mut bb = Bitboard::EMPTY;
        for sq in Square::all() {
            if self.board[sq.index()] == Some(piece) {
                bb.add(sq);
            }
        }
        bb
    }

    /// Removes castling rights that no king and rook could use (rook missing, king off its
    /// back rank, or a second rook claimed for one side), as many real FENs need. Returns
    /// the rook squares whose rights were dropped.
    pub fn drop_invalid_castling(&mut self) -> Bitboard {
        let mut dropped = Bitboard::EMPTY;
        let mut claimed = [[false; 2]; 2];
        for sq in self.castling_rooks {
            let color = if sq.rank() == Color::White.back_rank() {
                Color::White
            } else {
                Color::Black
            };
            let king = self.king(color).filter(|k| k.rank() == color.back_rank());
            let rook_ok = sq.rank() == color.back_rank()
                && self.board[sq.index()] == Some(Piece::new(color, Role::Rook));
            let side = king.map(|k| usize::from(sq.file() < k.file()));
            match (king, side) {
                (Some(_), Some(side)) if rook_ok && !claimed[color.index()][side] => {
                    claimed[color.index()][side] = true;
                }
                _ => dropped.add(sq),
            }
        }
        self.castling_rooks = self.castling_rooks - dropped;
        dropped
    }

    pub fn king(&self, color: Color) -> Option<Square> {
        self.squares_of(Piece::new(color, Role::King)).single()
    }
}
