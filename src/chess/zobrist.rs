//! Zobrist keys: fixed 64-bit values (generated at compile time by `rng::step`, SplitMix64, from a
//! fixed seed), so hashes are identical on every run and every machine. Positions combine them
//! incrementally; see `Position::zobrist` and `Position::repetition_key`.

use super::types::{Color, File, Piece, Square};

const PIECE_KEYS: usize = 2 * 6 * 64;
const CASTLING_KEYS: usize = 2 * 8;
const EP_KEYS: usize = 8;
const TOTAL: usize = PIECE_KEYS + CASTLING_KEYS + EP_KEYS + 1;

const KEYS: [u64; TOTAL] = {
    let mut keys = [0u64; TOTAL];
    let mut state = 0x4172_6269_7465_7221; // "Arbiter!"
    let mut i = 0;
    while i < TOTAL {
        let (s, k) = crate::rng::step(state);
        state = s;
        keys[i] = k;
        i += 1;
    }
    keys
};

/// The keys as one table in memory: indexing the `const` directly left `piece_key` out of
/// line at some call sites (the replay's hashed moves call it three times a move).
static TABLE: [u64; TOTAL] = KEYS;

#[inline(always)]
pub fn piece_key(piece: Piece, sq: Square) -> u64 {
    TABLE[(piece.color.index() * 6 + piece.role.index()) * 64 + sq.index()]
}

/// Key for a castling right of `color` with the rook on `file` (works for Chess960).
#[inline]
pub fn castling_key(color: Color, file: File) -> u64 {
    KEYS[PIECE_KEYS + color.index() * 8 + file.0 as usize]
}

#[inline]
pub fn en_passant_key(file: File) -> u64 {
    KEYS[PIECE_KEYS + CASTLING_KEYS + file.0 as usize]
}

/// Present when Black is to move.
#[inline]
pub fn black_to_move_key() -> u64 {
    KEYS[TOTAL - 1]
}

/// A `Hasher` for maps keyed by Zobrist keys: they are uniform already, so hashing them again
/// (SipHash) would be wasted work on every ply.
#[derive(Default)]
pub struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// Builds `KeyHasher`s, for `HashMap`/`HashSet` keyed by Zobrist keys.
pub type BuildKeyHasher = std::hash::BuildHasherDefault<KeyHasher>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_distinct_and_fixed() {
        let mut sorted = KEYS.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), TOTAL);
        // Fixed keys: this value must never change, or stored hashes would change meaning.
        assert_eq!(KEYS[0], crate::rng::step(0x4172_6269_7465_7221).1);
    }
}
