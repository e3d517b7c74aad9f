//! Compact encodings stored in the database (documented in docs/SCHEMA.md): moves, clock
//! times as 4 bytes per ply, and the 16-byte content hash that makes imports idempotent.
//! All little-endian and stable across versions.
//!
//! Moves have two layouts, told apart by the blob itself, so rows written by older builds
//! decode without any migration:
//! - 2 bytes a ply (`encode_moves`, every build up to schema version 3; still what the
//!   hashes are computed over): the 16-bit `Move` codes one after another;
//! - packed (`pack_moves`, written from schema version 4 on): a format byte, the ply count,
//!   then per ply the moving piece's index among the mover's pieces and its destination's
//!   index among the squares that piece's movement reaches (checks and pins ignored, so no
//!   legal-move list is generated), each in a truncated binary code, plus 2 bits for a
//!   promotion's piece. Decoding checks every move is legal, as the 2-byte layout's does.
//!   A blob is packed when its second byte has its top bit set: in the 2-byte layout that
//!   byte is the high byte of a move code, whose kind (bits 12-15) is at most 7.

use crate::chess::attacks;
use crate::chess::san::{SanText, push_suffix, san_without_check};
use crate::chess::{Bitboard, CastlingSide, Color, Move, MoveKind, Position, Rank, Role, Square};

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
    Illegal {
        ply: usize,
    },
    /// A packed blob with a format byte this build does not know (a newer arbiter's).
    UnknownFormat(u8),
    /// A packed blob that ends before its moves do, or has bytes after them.
    BadLength {
        plies: usize,
        len: usize,
    },
    /// A packed blob names a piece or square that is not there (a damaged blob).
    BadIndex {
        ply: usize,
    },
    /// The stored start (FEN tag and variant) is not a position.
    Start(String),
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::OddLength(n) => write!(f, "move blob has odd length {n}"),
            DecodeError::Illegal { ply } => write!(f, "stored move at ply {ply} is not legal"),
            DecodeError::UnknownFormat(b) => write!(
                f,
                "move blob has format {b}, which this arbiter does not know (written by a newer one?)"
            ),
            DecodeError::BadLength { plies, len } => write!(
                f,
                "packed move blob of {len} bytes does not hold exactly its {plies} plies"
            ),
            DecodeError::BadIndex { ply } => {
                write!(f, "packed move at ply {ply} names no piece or square")
            }
            DecodeError::Start(why) => write!(f, "stored start position: {why}"),
        }
    }
}

impl std::error::Error for DecodeError {}

/// Decodes and checks every move by replaying from `start`.
pub fn decode_moves(start: &Position, blob: &[u8]) -> Result<Vec<Move>, DecodeError> {
    decode_game(start, blob).map(|(moves, _)| moves)
}

/// Decodes and checks every move by replaying from `start`; with the final position, which
/// is where the final FEN comes from (it is not stored). Either layout (module docs).
pub fn decode_game(start: &Position, blob: &[u8]) -> Result<(Vec<Move>, Position), DecodeError> {
    decode_game_visit(start, blob, |_, _, _| false)
}

/// `decode_game` with each move's canonical SAN, written in the same replay (an export's
/// moves column and PGN: the moves are replayed once, not once to decode and again to write).
pub fn decode_game_san(
    start: &Position,
    blob: &[u8],
) -> Result<(Vec<Move>, Vec<SanText>, Position), DecodeError> {
    let mut sans: Vec<SanText> = Vec::with_capacity(blob.len() * 2);
    let (moves, end) = decode_game_visit(start, blob, |pos, _, m| {
        // The position after the last move: its suffix; then the next move's text.
        if let Some(last) = sans.last_mut() {
            push_suffix(last, pos);
        }
        if let Some(m) = m {
            sans.push(san_without_check(pos, m));
        }
        false
    })?;
    Ok((moves, sans, end))
}

/// Decodes the moves one at a time for a scan that looks at each position as it comes:
/// `visit(position, ply, next move)` with each position before its move is played (once
/// the move is read and checked as `decode_moves` checks it), and `visit(last position,
/// plies, None)` at the end. When `visit` returns true the decoding stops there: a scan
/// that has its answer, or knows no later ply can match, reads no further.
pub fn decode_visit(
    start: &Position,
    blob: &[u8],
    visit: impl FnMut(&Position, usize, Option<Move>) -> bool,
) -> Result<(), DecodeError> {
    decode_game_visit(start, blob, visit).map(|_| ())
}

#[inline]
fn decode_game_visit(
    start: &Position,
    blob: &[u8],
    mut visit: impl FnMut(&Position, usize, Option<Move>) -> bool,
) -> Result<(Vec<Move>, Position), DecodeError> {
    if is_packed(blob) {
        return unpack_moves(start, blob, visit);
    }
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
        if visit(&pos, i, Some(m)) {
            return Ok((moves, pos));
        }
        pos.play_unchecked(m);
        moves.push(m);
    }
    visit(&pos, moves.len(), None);
    Ok((moves, pos))
}

/// The format byte of the packed layout.
pub const PACKED_V1: u8 = 2;

/// Ply counts below this take one byte after the format byte; longer games add a LEB128
/// varint of the rest.
const SHORT_PLIES: usize = 0x7f;

/// Is this blob in the packed layout (module docs)?
pub fn is_packed(blob: &[u8]) -> bool {
    blob.len() >= 2 && blob[1] & 0x80 != 0
}

/// The squares the piece of `role` on `from` reaches by its movement alone (Arts. 3.2 to
/// 3.8), checks and pins ignored, for the side to move: what a packed destination counts
/// among, lowest square first. Castling is the king onto one of its castling rooks (the
/// rules core's form), and a pawn's captures include the en passant square.
fn reach(pos: &Position, from: Square, role: Role) -> u64 {
    let us = pos.turn();
    let ours = pos.by_color(us).0;
    let theirs = pos.by_color(us.other()).0;
    let occupied = ours | theirs;
    let occ = Bitboard(occupied);
    match role {
        Role::Knight => attacks::knight_attacks(from).0 & !ours,
        Role::Bishop => attacks::bishop_attacks(from, occ).0 & !ours,
        Role::Rook => attacks::rook_attacks(from, occ).0 & !ours,
        Role::Queen => attacks::queen_attacks(from, occ).0 & !ours,
        Role::King => {
            let mut d = attacks::king_attacks(from).0 & !ours;
            for side in CastlingSide::ALL {
                if let Some(rook) = pos.castling().rook(us, side) {
                    d |= 1 << rook.index();
                }
            }
            d
        }
        Role::Pawn => {
            let ep = pos.ep_square().map_or(0, |sq| 1u64 << sq.index());
            let mut d = attacks::pawn_attacks(us, from).0 & (theirs | ep);
            let step: i8 = if us == Color::White { 8 } else { -8 };
            if let Some(one) = from.offset(step)
                && occupied & (1 << one.index()) == 0
            {
                d |= 1 << one.index();
                if from.rank().relative(us) == Rank(1)
                    && let Some(two) = one.offset(step)
                    && occupied & (1 << two.index()) == 0
                {
                    d |= 1 << two.index();
                }
            }
            d
        }
    }
}

/// How many squares of `set` lie below `sq`.
fn rank_in(set: u64, sq: Square) -> u64 {
    u64::from((set & ((1u64 << sq.index()) - 1)).count_ones())
}

/// The square of `set` with `index` squares of `set` below it.
fn nth_square(mut set: u64, index: u64) -> Option<Square> {
    for _ in 0..index {
        set &= set.checked_sub(1)?;
    }
    (set != 0).then(|| Square::new(set.trailing_zeros() as u8))
}

fn is_promotion(pos: &Position, from: Square, to: Square) -> bool {
    pos.piece_at(from).is_some_and(|p| p.role == Role::Pawn)
        && to.rank().relative(pos.turn()) == Rank(7)
}

/// Writes one legal move of `pos` (module docs). False, with nothing written, when the move
/// is not one of the mover's pieces going to a square its movement reaches (not a move of
/// `pos`, which the layout cannot hold).
fn put_move(w: &mut BitWriter, pos: &Position, m: Move) -> bool {
    let ours = pos.by_color(pos.turn()).0;
    let (from, to) = (m.from(), m.to());
    let Some(piece) = pos.piece_at(from).filter(|p| p.color == pos.turn()) else {
        return false;
    };
    let reach = reach(pos, from, piece.role);
    if reach & (1 << to.index()) == 0 {
        return false;
    }
    w.put_index(rank_in(ours, from), ours.count_ones() as usize);
    w.put_index(rank_in(reach, to), reach.count_ones() as usize);
    if let Some(r) = m.promotion_role() {
        let i = Role::PROMOTIONS.iter().position(|&p| p == r).unwrap_or(0);
        w.put(i as u64, 2);
    }
    true
}

/// Reads one move of `pos`, or None when the bits name no square (a damaged blob).
fn take_move(r: &mut BitReader, pos: &Position) -> Option<Move> {
    let ours = pos.by_color(pos.turn()).0;
    let from = nth_square(ours, r.take_index(ours.count_ones() as usize)?)?;
    let role = pos.piece_at(from)?.role;
    let reach = reach(pos, from, role);
    if reach == 0 {
        return None;
    }
    let to = nth_square(reach, r.take_index(reach.count_ones() as usize)?)?;
    Some(if role == Role::King && ours & (1 << to.index()) != 0 {
        Move::castle(from, to)
    } else if role == Role::Pawn && pos.ep_square() == Some(to) && from.file() != to.file() {
        Move::en_passant(from, to)
    } else if is_promotion(pos, from, to) {
        Move::promotion(from, to, Role::PROMOTIONS[r.take(2)? as usize])
    } else {
        Move::normal(from, to)
    })
}

/// Truncated binary code of a value below `n` (n >= 1): `k = floor(log2 n)` bits for the
/// first `2^(k+1) - n` values, `k + 1` bits for the others; `n = 1` takes no bit.
#[inline]
pub(super) fn code_shape(n: usize) -> (u32, u64) {
    let k = usize::BITS - 1 - n.leading_zeros();
    (k, (1u64 << (k + 1)) - n as u64)
}

/// Bits written least significant first.
#[derive(Default)]
struct BitWriter {
    out: Vec<u8>,
    acc: u64,
    bits: u32,
}

impl BitWriter {
    fn put(&mut self, value: u64, bits: u32) {
        self.acc |= value << self.bits;
        self.bits += bits;
        while self.bits >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.bits -= 8;
        }
    }

    /// `index` (below `n`) in its truncated binary code.
    fn put_index(&mut self, index: u64, n: usize) {
        let (k, short) = code_shape(n);
        if index < short {
            self.put(index, k);
        } else {
            // The first k bits of the (k+1)-bit code, then its last bit.
            let y = index + short;
            self.put(y >> 1, k);
            self.put(y & 1, 1);
        }
    }

    fn finish(mut self) -> Vec<u8> {
        if self.bits > 0 {
            self.out.push(self.acc as u8);
        }
        self.out
    }
}

#[derive(Default)]
struct BitReader<'a> {
    bytes: &'a [u8],
    acc: u64,
    bits: u32,
    /// A `take` found the bytes at their end.
    ran_out: bool,
}

impl BitReader<'_> {
    /// `bits` (at most 9) more bits, or None past the end.
    fn take(&mut self, bits: u32) -> Option<u64> {
        while self.bits < bits {
            let Some((&b, rest)) = self.bytes.split_first() else {
                self.ran_out = true;
                return None;
            };
            self.acc |= u64::from(b) << self.bits;
            self.bits += 8;
            self.bytes = rest;
        }
        let v = self.acc & ((1u64 << bits) - 1);
        self.acc >>= bits;
        self.bits -= bits;
        Some(v)
    }

    /// An index below `n` in its truncated binary code (`BitWriter::put_index`).
    fn take_index(&mut self, n: usize) -> Option<u64> {
        let (k, short) = code_shape(n);
        let v = self.take(k)?;
        if v < short {
            Some(v)
        } else {
            Some(((v << 1) | self.take(1)?) - short)
        }
    }
}

/// The packed layout (module docs) of moves played from `start`; every move must be legal
/// there (`Illegal` names the first that is not). No moves: an empty blob, as in the
/// 2-byte layout.
pub fn pack_moves(start: &Position, moves: &[Move]) -> Result<Vec<u8>, DecodeError> {
    pack(start, moves, |pos, m| pos.is_legal(m))
}

/// `pack_moves` for moves a replay has just played from `start` (`game::replay` plays only
/// legal moves): each is checked only to be one of the mover's pieces going to a square its
/// movement reaches, which is what the layout needs to write it, not for checks and pins
/// (the full test generated the moves a second time and cost the import's workers about
/// a tenth of their time).
pub fn pack_replayed(start: &Position, moves: &[Move]) -> Result<Vec<u8>, DecodeError> {
    pack(start, moves, |pos, m| {
        debug_assert!(pos.is_legal(m), "replayed move {m:?} is illegal");
        true
    })
}

fn pack(
    start: &Position,
    moves: &[Move],
    writable: impl Fn(&Position, Move) -> bool,
) -> Result<Vec<u8>, DecodeError> {
    if moves.is_empty() {
        return Ok(Vec::new());
    }
    let mut w = BitWriter::default();
    w.out.reserve(4 + moves.len());
    w.out.push(PACKED_V1);
    let n = moves.len();
    w.out.push(0x80 | n.min(SHORT_PLIES) as u8);
    if n >= SHORT_PLIES {
        let mut rest = n - SHORT_PLIES;
        loop {
            let more = rest >= 0x80;
            w.out
                .push((rest & 0x7f) as u8 | if more { 0x80 } else { 0 });
            rest >>= 7;
            if !more {
                break;
            }
        }
    }
    let mut pos = *start;
    for (i, &m) in moves.iter().enumerate() {
        if !writable(&pos, m) || !put_move(&mut w, &pos, m) {
            return Err(DecodeError::Illegal { ply: i + 1 });
        }
        pos.play_unchecked(m);
    }
    Ok(w.finish())
}

/// A packed blob's head: its ply count and where its moves' bits begin; the errors
/// `unpack_moves` gives for a format it does not know or a length no game of those plies
/// has.
pub(super) fn packed_header(blob: &[u8]) -> Result<(usize, usize), DecodeError> {
    if blob[0] != PACKED_V1 {
        return Err(DecodeError::UnknownFormat(blob[0]));
    }
    let mut plies = usize::from(blob[1] & 0x7f);
    let mut at = 2;
    if plies == SHORT_PLIES {
        let mut shift = 0;
        loop {
            let bad = DecodeError::BadLength {
                plies,
                len: blob.len(),
            };
            let &b = blob.get(at).ok_or(bad.clone())?;
            if shift > 28 {
                return Err(bad);
            }
            at += 1;
            plies += usize::from(b & 0x7f) << shift;
            shift += 7;
            if b & 0x80 == 0 {
                break;
            }
        }
    }
    // At most 8 bits a ply (218 legal moves): a length beyond that is not a game.
    if blob.len() - at > plies {
        return Err(DecodeError::BadLength {
            plies,
            len: blob.len(),
        });
    }
    Ok((plies, at))
}

/// Reads a packed blob (`pack_moves`): the moves and the final position.
fn unpack_moves(
    start: &Position,
    blob: &[u8],
    mut visit: impl FnMut(&Position, usize, Option<Move>) -> bool,
) -> Result<(Vec<Move>, Position), DecodeError> {
    let (plies, at) = packed_header(blob)?;
    let bad_length = DecodeError::BadLength {
        plies,
        len: blob.len(),
    };
    let mut r = BitReader {
        bytes: &blob[at..],
        ..BitReader::default()
    };
    let mut pos = *start;
    // A damaged header may claim billions of plies: reserve no more than the bits could
    // hold (every ply takes one at least: the mover has a king and its squares), the rest
    // is refused as a bad length when the bits run out.
    let mut moves = Vec::with_capacity(plies.min(8 * (blob.len() - at) + 1));
    for ply in 1..=plies {
        let Some(m) = take_move(&mut r, &pos) else {
            return Err(if r.ran_out {
                bad_length
            } else {
                DecodeError::BadIndex { ply }
            });
        };
        if !read_move_is_legal(&pos, m) {
            return Err(DecodeError::Illegal { ply });
        }
        if visit(&pos, ply - 1, Some(m)) {
            return Ok((moves, pos));
        }
        pos.play_unchecked(m);
        moves.push(m);
    }
    // Exactly the bytes the moves need, padded with zero bits.
    if !r.bytes.is_empty() || r.acc != 0 {
        return Err(bad_length);
    }
    visit(&pos, plies, None);
    Ok((moves, pos))
}

/// `Position::is_legal` for a move `take_move` read: one of the mover's pieces going where
/// its movement reaches, so a pseudo-legal move. Out of check, a move of a piece that is
/// not the king and stands on no line through its king (so it is pinned by nothing),
/// neither castling nor en passant, is legal: most moves of a game are settled without
/// generating the piece's legal moves (a fifth of a scan's decoding).
#[inline]
fn read_move_is_legal(pos: &Position, m: Move) -> bool {
    let king = pos.king_of(pos.turn());
    let plain = matches!(m.kind(), MoveKind::Normal | MoveKind::Promotion(_));
    if plain
        && pos.checkers().is_empty()
        && m.from() != king
        && !attacks::queen_rays(king).contains(m.from())
    {
        return true;
    }
    pos.is_legal(m)
}

/// A stored game's start: its FEN tag as stored (None: the standard start) in its variant.
pub fn start_position(start_fen: Option<&str>, chess960: bool) -> Result<Position, DecodeError> {
    let Some(fen) = start_fen else {
        return Ok(Position::new());
    };
    let setup =
        crate::chess::fen::parse_setup(fen).map_err(|e| DecodeError::Start(e.to_string()))?;
    Position::from_setup(&setup, chess960).map_err(|e| DecodeError::Start(e.to_string()))
}

/// What duplicate detection groups games by: the start FEN as stored and the moves in the
/// packed layout, hashed as `moves_hash` does. A packed blob is hashed as it is, with no
/// replay; a 2-byte blob (written before schema version 4) is replayed and packed first, so
/// one game has one key whichever build stored it.
pub fn moves_key(
    start_fen: Option<&str>,
    chess960: bool,
    blob: &[u8],
) -> Result<[u8; 16], DecodeError> {
    if is_packed(blob) || blob.is_empty() {
        return Ok(moves_hash(start_fen, blob));
    }
    let start = start_position(start_fen, chess960)?;
    let moves = decode_moves(&start, blob)?;
    Ok(moves_hash(start_fen, &pack_moves(&start, &moves)?))
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

pub fn content_hash<S: AsRef<str>>(tag: impl Fn(&str) -> Option<S>, moves: &[Move]) -> [u8; 16] {
    let mut h = Fnv128::default();
    for name in IDENTITY_TAGS {
        let value = tag(name);
        // Normalise: surrounding space and unknown markers do not make a game different.
        let value = value.as_ref().map_or("", |v| v.as_ref().trim());
        let value = if value == "?" { "" } else { value };
        h.field(value.as_bytes());
    }
    h.field(&encode_moves(moves));
    h.finish()
}

/// Hash of a game's start (the FEN tag as stored, empty for the standard start) and its
/// encoded moves, nothing else: records of one game with different tags hash alike.
/// Stored in `games.moves_hash` over the 2-byte layout by schema versions 2 and 3; from
/// version 4 on nothing stores it and duplicate detection computes it on read over the
/// packed layout (`moves_key`).
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
    fn the_san_written_while_decoding_is_to_sans_in_both_layouts() {
        // Checks, mates (one by a promotion), castling, captures.
        let lines = [
            "e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7#",
            "e4 d5 exd5 Nf6 Nc3 Nxd5 Nxd5 Qxd5 Bc4 Qxg2 Qf3 Qxf3 Nxf3 e5 O-O Bh3 Bxf7+ Kxf7",
            "d4 e5 dxe5 d6 exd6 Be7 dxe7 Nf6 exd8=Q#",
        ];
        let mut seen = String::new();
        for line in lines {
            let start = Position::new();
            let mut pos = start;
            let moves: Vec<Move> = line
                .split(' ')
                .map(|t| play_san(&mut pos, t, SanMode::Strict).unwrap().mv)
                .collect();
            let mut replay = start;
            let expected: Vec<String> = moves
                .iter()
                .map(|&m| {
                    let text = crate::chess::san::to_san(&replay, m).to_string();
                    replay.play_unchecked(m);
                    text
                })
                .collect();
            seen.push_str(&expected.join(" "));
            for blob in [encode_moves(&moves), pack_moves(&start, &moves).unwrap()] {
                let (got, sans, end) = decode_game_san(&start, &blob).unwrap();
                assert_eq!(got, moves);
                assert_eq!(end, pos);
                let sans: Vec<String> = sans.iter().map(|s| s.to_string()).collect();
                assert_eq!(sans, expected);
            }
        }
        for mark in ["+", "#", "=Q", "O-O", "x"] {
            assert!(seen.contains(mark), "{mark} in {seen}");
        }
    }

    /// A game of `n` plies from the start: knights out and back, repeated.
    fn shuffle(n: usize) -> Vec<Move> {
        let mut pos = Position::new();
        ["Nf3", "Nf6", "Ng1", "Ng8"]
            .iter()
            .cycle()
            .take(n)
            .map(|t| play_san(&mut pos, t, SanMode::Strict).unwrap().mv)
            .collect()
    }

    #[test]
    fn packed_moves_round_trip_and_are_told_from_the_old_layout() {
        let start = Position::new();
        let moves: Vec<Move> = {
            let mut pos = start;
            [
                "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "O-O", "Nf6", "Re1", "Be7",
            ]
            .iter()
            .map(|t| play_san(&mut pos, t, SanMode::Strict).unwrap().mv)
            .collect()
        };
        let packed = pack_moves(&start, &moves).unwrap();
        assert_eq!(&packed[..2], &[PACKED_V1, 0x80 | 10]);
        // 16 pieces (4 bits), then up to 8 squares: ten plies fit in 9 bytes.
        assert!(packed.len() <= 2 + 9, "{packed:?}");
        assert!(is_packed(&packed));
        let old = encode_moves(&moves);
        assert!(!is_packed(&old));
        let (back, end) = decode_game(&start, &packed).unwrap();
        assert_eq!(back, moves);
        assert_eq!(end.fen(), decode_game(&start, &old).unwrap().1.fen());
        assert_eq!(pack_moves(&start, &[]), Ok(Vec::new()));
        assert_eq!(decode_moves(&start, &[]), Ok(Vec::new()));
        // A move that is not legal where it is played is refused, not packed.
        let mut bad = moves.clone();
        bad.swap(0, 1);
        assert_eq!(
            pack_moves(&start, &bad),
            Err(DecodeError::Illegal { ply: 1 })
        );
    }

    #[test]
    fn packed_ply_counts_past_one_byte_and_damaged_blobs() {
        let start = Position::new();
        for n in [1, 126, 127, 128, 300, 20_000] {
            let moves = shuffle(n);
            let packed = pack_moves(&start, &moves).unwrap();
            assert_eq!(
                decode_moves(&start, &packed).as_ref(),
                Ok(&moves),
                "{n} plies"
            );
            // Cut short, or one byte too many: refused with the lengths.
            let cut = &packed[..packed.len() - 1];
            assert!(matches!(
                decode_moves(&start, cut),
                Err(DecodeError::BadLength { plies, .. }) if plies == n
            ));
            let mut long = packed.clone();
            long.push(0);
            assert!(matches!(
                decode_moves(&start, &long),
                Err(DecodeError::BadLength { .. })
            ));
        }
        let mut newer = pack_moves(&start, &shuffle(4)).unwrap();
        newer[0] = 3;
        assert_eq!(
            decode_moves(&start, &newer),
            Err(DecodeError::UnknownFormat(3))
        );
    }

    #[test]
    fn a_header_claiming_billions_of_plies_is_refused_without_reserving_them() {
        // The `moves` fuzz target's finding: this header says 2^33 plies or so, and the
        // reader reserved room for all of them (56 GB) before reading the first.
        let input =
            include_bytes!("../../fuzz/regressions/moves-a-header-claiming-billions-of-plies.bin");
        let blob = &input[1..];
        let (plies, _) = packed_header(blob).unwrap();
        assert!(plies > 1 << 32, "{plies}");
        assert!(matches!(
            decode_moves(&Position::new(), blob),
            Err(DecodeError::BadLength { .. }
                | DecodeError::BadIndex { .. }
                | DecodeError::Illegal { .. })
        ));
    }

    #[test]
    fn the_quick_legality_test_agrees_with_the_full_one() {
        // Every move the packed layout can name (each piece to each square its movement
        // reaches), in positions with checks, pins, en passant, castling and promotions.
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "4k3/8/8/2KPp2r/8/8/8/8 w - e6 0 2",
            "4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1",
            "4k3/8/8/1b6/8/3N4/4K3/8 w - - 0 1",
            "3qk3/8/8/8/8/8/3R4/3K4 b - - 0 1",
        ];
        let mut checked = [0usize; 2];
        for fen in fens {
            let pos = Position::from_fen(fen).unwrap();
            let ours = pos.by_color(pos.turn()).0;
            for from in Bitboard(ours) {
                let role = pos.piece_at(from).unwrap().role;
                for to in Bitboard(reach(&pos, from, role)) {
                    let m = if role == Role::King && ours & (1 << to.index()) != 0 {
                        Move::castle(from, to)
                    } else if role == Role::Pawn
                        && pos.ep_square() == Some(to)
                        && from.file() != to.file()
                    {
                        Move::en_passant(from, to)
                    } else if is_promotion(&pos, from, to) {
                        Move::promotion(from, to, Role::Queen)
                    } else {
                        Move::normal(from, to)
                    };
                    let legal = pos.is_legal(m);
                    assert_eq!(read_move_is_legal(&pos, m), legal, "{fen} {m:?}");
                    checked[usize::from(legal)] += 1;
                }
            }
        }
        assert!(checked[0] > 10 && checked[1] > 100, "{checked:?}");
    }

    #[test]
    fn truncated_binary_codes_cover_every_index_once() {
        for n in 1..=218usize {
            let mut w = BitWriter::default();
            for i in 0..n as u64 {
                w.put_index(i, n);
            }
            let bytes = w.finish();
            // Every code is floor(log2 n) or one more bits long, the sum as Kraft's
            // equality wants for a complete prefix code.
            let (k, short) = code_shape(n);
            let bits = short * u64::from(k) + (n as u64 - short) * u64::from(k + 1);
            assert_eq!(bytes.len() as u64, bits.div_ceil(8), "n = {n}");
            let mut r = BitReader {
                bytes: &bytes,
                ..BitReader::default()
            };
            for i in 0..n as u64 {
                assert_eq!(r.take_index(n), Some(i), "n = {n}");
            }
        }
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
        assert_ne!(content_hash(|_| None::<String>, &[]), h);
    }
}
