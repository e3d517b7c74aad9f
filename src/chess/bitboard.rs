//! `Bitboard`: a set of squares as one `u64`, bit i for square i.
//! Set operations are the vocabulary of move generation and attack tests.

use super::types::{File, Rank, Square};
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Sub};

#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub u64);

impl Bitboard {
    pub const EMPTY: Bitboard = Bitboard(0);
    pub const FULL: Bitboard = Bitboard(!0);
    pub const LIGHT_SQUARES: Bitboard = Bitboard(0x55aa_55aa_55aa_55aa);
    pub const DARK_SQUARES: Bitboard = Bitboard(0xaa55_aa55_aa55_aa55);
    /// The first and eighth ranks, where pawns may never stand.
    pub const BACKRANKS: Bitboard = Bitboard(0xff00_0000_0000_00ff);

    #[inline]
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1 << sq.index())
    }

    #[inline]
    pub const fn from_rank(rank: Rank) -> Bitboard {
        Bitboard(0xff << (8 * rank.0))
    }

    #[inline]
    pub const fn from_file(file: File) -> Bitboard {
        Bitboard(0x0101_0101_0101_0101 << file.0)
    }

    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    #[inline]
    pub const fn nonempty(self) -> bool {
        self.0 != 0
    }

    /// Every square when `sq` is in the set, none otherwise, computed without a branch
    /// (for tests whose outcome the CPU cannot foresee).
    #[inline]
    pub const fn all_if_contains(self, sq: Square) -> Bitboard {
        Bitboard(0u64.wrapping_sub((self.0 >> sq.index()) & 1))
    }

    #[inline]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 & (1 << sq.index()) != 0
    }

    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// True when more than one square is set.
    #[inline]
    pub const fn more_than_one(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    /// The lowest square, if any.
    #[inline]
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::new(self.0.trailing_zeros() as u8))
        }
    }

    /// The only square, if exactly one is set.
    #[inline]
    pub const fn single(self) -> Option<Square> {
        if self.more_than_one() {
            None
        } else {
            self.first()
        }
    }

    #[inline]
    pub fn add(&mut self, sq: Square) {
        self.0 |= 1 << sq.index();
    }

    #[inline]
    pub fn remove(&mut self, sq: Square) {
        self.0 &= !(1 << sq.index());
    }

    #[inline]
    pub fn toggle(&mut self, sq: Square) {
        self.0 ^= 1 << sq.index();
    }

    /// Shift towards rank 8 by `n` ranks (bits leaving the board are lost).
    #[inline]
    pub const fn shift_up(self, n: u32) -> Bitboard {
        Bitboard(self.0 << (8 * n))
    }

    #[inline]
    pub const fn shift_down(self, n: u32) -> Bitboard {
        Bitboard(self.0 >> (8 * n))
    }
}

impl Iterator for Bitboard {
    type Item = Square;

    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            let sq = Square::new(self.0.trailing_zeros() as u8);
            self.0 &= self.0 - 1;
            Some(sq)
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Bitboard {}

impl std::fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "Bitboard({:#018x})", self.0)?;
        for rank in (0..8).rev() {
            for file in 0..8 {
                let sq = Square::from_coords(File(file), Rank(rank));
                f.write_str(if self.contains(sq) { "X" } else { "." })?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

macro_rules! bit_op {
    ($tr:ident, $f:ident, $atr:ident, $af:ident, $op:tt) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $atr for Bitboard {
            #[inline]
            fn $af(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}

bit_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bit_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bit_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Sub for Bitboard {
    type Output = Bitboard;
    /// Set difference.
    #[inline]
    fn sub(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 & !rhs.0)
    }
}

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

impl From<Square> for Bitboard {
    #[inline]
    fn from(sq: Square) -> Bitboard {
        Bitboard::from_square(sq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_if_contains_is_every_square_or_none() {
        let b = Bitboard::from_square(Square::new(0)) | Bitboard::from_square(Square::new(63));
        assert_eq!(b.all_if_contains(Square::new(0)), Bitboard(u64::MAX));
        assert_eq!(b.all_if_contains(Square::new(63)), Bitboard(u64::MAX));
        assert_eq!(b.all_if_contains(Square::new(1)), Bitboard(0));
        assert_eq!(b.all_if_contains(Square::new(62)), Bitboard(0));
    }

    #[test]
    fn iterates_in_square_order() {
        let bb = Bitboard::from_square(Square::H8) | Bitboard::from_square(Square::A1);
        assert_eq!(bb.collect::<Vec<_>>(), vec![Square::A1, Square::H8]);
        assert!(bb.more_than_one());
        assert_eq!(bb.single(), None);
        assert_eq!(Bitboard::from_square(Square::E1).single(), Some(Square::E1));
    }

    #[test]
    fn colour_complexes_partition_the_board() {
        assert_eq!(
            Bitboard::LIGHT_SQUARES | Bitboard::DARK_SQUARES,
            Bitboard::FULL
        );
        assert!(Bitboard::DARK_SQUARES.contains(Square::A1));
        assert!(Bitboard::LIGHT_SQUARES.contains(Square::H1));
        assert_eq!(Bitboard::from_file(File::H).count(), 8);
        assert!(Bitboard::from_rank(Rank(7)).contains(Square::A8));
    }
}
