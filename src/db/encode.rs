//! Compact encodings stored in the database (documented in docs/SCHEMA.md): moves as 2 bytes
//! per ply, clock times as 4 bytes per ply, and the 16-byte content hash that makes imports
//! idempotent. All little-endian and stable across versions.

use crate::chess::{Move, Position};

/// Moves as the little-endian 16-bit `Move` encoding, one after another.
pub fn encode_moves(moves: &[Move]) -> Vec<u8> {
    moves
        .iter()
        .flat_map(|m| m.to_u16().to_le_bytes())
        .collect()
}

/// Why a move blob does not decode into a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    OddLength(usize),
    Illegal { ply: usize },
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::OddLength(n) => write!(f, "move blob has odd length {n}"),
            DecodeError::Illegal { ply } => write!(f, "stored move at ply {ply} is not legal"),
        }
    }
}

impl std::error::Error for DecodeError {}

/// Decodes and checks every move by replaying from `start`.
pub fn decode_moves(start: &Position, blob: &[u8]) -> Result<Vec<Move>, DecodeError> {
    decode_game(start, blob).map(|(moves, _)| moves)
}

/// Decodes and checks every move by replaying from `start`; with the final position, which
/// is where the final FEN comes from (it is not stored).
pub fn decode_game(start: &Position, blob: &[u8]) -> Result<(Vec<Move>, Position), DecodeError> {
    if !blob.len().is_multiple_of(2) {
        return Err(DecodeError::OddLength(blob.len()));
    }
    let mut pos = *start;
    let mut moves = Vec::with_capacity(blob.len() / 2);
    for (i, pair) in blob.chunks_exact(2).enumerate() {
        let m = Move::from_u16(u16::from_le_bytes([pair[0], pair[1]]));
        if !pos.is_legal(m) {
            return Err(DecodeError::Illegal { ply: i + 1 });
        }
        pos.play_unchecked(m);
        moves.push(m);
    }
    Ok((moves, pos))
}

/// No clock reading for a ply.
pub const NO_CLOCK: u32 = u32::MAX;

/// Clock readings in milliseconds per ply, or None when the game had none.
pub fn encode_clocks(clocks: &[Option<u64>]) -> Option<Vec<u8>> {
    if clocks.iter().all(Option::is_none) {
        return None;
    }
    Some(
        clocks
            .iter()
            .flat_map(|c| {
                c.map_or(NO_CLOCK, |ms| ms.min(u64::from(NO_CLOCK - 1)) as u32)
                    .to_le_bytes()
            })
            .collect(),
    )
}

pub fn decode_clocks(blob: &[u8]) -> Vec<Option<u64>> {
    blob.chunks_exact(4)
        .map(|c| {
            let v = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            (v != NO_CLOCK).then_some(u64::from(v))
        })
        .collect()
}

/// 128-bit FNV-1a: simple, stable forever (the hash is stored), good enough spread for
/// telling games apart; collisions need about 2^64 games.
#[derive(Clone, Copy)]
pub struct Fnv128(u128);

impl Default for Fnv128 {
    fn default() -> Self {
        Fnv128(0x6c62_272e_07bb_0142_62b8_2175_6295_c58d)
    }
}

impl Fnv128 {
    const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;

    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u128::from(b);
            self.0 = self.0.wrapping_mul(Self::PRIME);
        }
    }

    /// Writes a field followed by a separator no text contains.
    pub fn field(&mut self, bytes: &[u8]) {
        self.write(bytes);
        self.write(&[0xff]);
    }

    pub fn finish(self) -> [u8; 16] {
        self.0.to_le_bytes()
    }
}

/// The tags that identify a game, with the moves: two records of the same game from two
/// files hash alike even when other tags (annotator, clocks, openings) differ.
pub const IDENTITY_TAGS: [&str; 8] = [
    "Event", "Site", "Date", "Round", "White", "Black", "Result", "FEN",
];

pub fn content_hash(tag: impl Fn(&str) -> Option<String>, moves: &[Move]) -> [u8; 16] {
    let mut h = Fnv128::default();
    for name in IDENTITY_TAGS {
        let value = tag(name).unwrap_or_default();
        // Normalise: surrounding space and unknown markers do not make a game different.
        let value = value.trim();
        let value = if value == "?" { "" } else { value };
        h.field(value.as_bytes());
    }
    h.field(&encode_moves(moves));
    h.finish()
}

/// Hash of a game's start (the FEN tag as stored, empty for the standard start) and its
/// encoded moves, nothing else: records of one game with different tags hash alike
/// (`games.moves_hash`, what duplicate detection looks up).
pub fn moves_hash(start_fen: Option<&str>, moves_blob: &[u8]) -> [u8; 16] {
    let mut h = Fnv128::default();
    h.field(start_fen.unwrap_or("").trim().as_bytes());
    h.field(moves_blob);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::san::{SanMode, play_san};

    #[test]
    fn moves_round_trip_and_are_checked() {
        let start = Position::new();
        let mut pos = start;
        let moves: Vec<Move> = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "O-O"]
            .iter()
            .map(|t| play_san(&mut pos, t, SanMode::Strict).unwrap().mv)
            .collect();
        let blob = encode_moves(&moves);
        assert_eq!(blob.len(), 14);
        assert_eq!(decode_moves(&start, &blob), Ok(moves));
        assert_eq!(
            decode_moves(&start, &blob[1..]),
            Err(DecodeError::OddLength(13))
        );
        let mut bad = blob.clone();
        bad.swap(0, 2);
        bad.swap(1, 3);
        assert_eq!(
            decode_moves(&start, &bad),
            Err(DecodeError::Illegal { ply: 1 })
        );
    }

    #[test]
    fn clocks_round_trip() {
        let clocks = [Some(180_000), None, Some(179_500)];
        let blob = encode_clocks(&clocks).unwrap();
        assert_eq!(blob.len(), 12);
        assert_eq!(decode_clocks(&blob), clocks.to_vec());
        assert_eq!(encode_clocks(&[None, None]), None);
    }

    #[test]
    fn content_hash_is_stable_and_normalised() {
        let tags = |name: &str| match name {
            "White" => Some("Carlsen, Magnus".to_string()),
            "Round" => Some("?".to_string()),
            _ => None,
        };
        let h = content_hash(tags, &[]);
        // Fixed value: stored hashes must never change meaning.
        let mut expected = Fnv128::default();
        for name in IDENTITY_TAGS {
            expected.field(if name == "White" {
                b"Carlsen, Magnus"
            } else {
                b""
            });
        }
        expected.field(&[]);
        assert_eq!(h, expected.finish());
        let blank_round = |name: &str| tags(name).filter(|_| name != "Round");
        assert_eq!(content_hash(blank_round, &[]), h);
        assert_ne!(content_hash(|_| None, &[]), h);
    }
}
