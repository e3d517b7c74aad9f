//! The position index (docs/POSITIONS.md): what a game adds to it, made on the import's
//! workers, and the byte layouts stored by `db::positions`.
//!
//! - The keys (Art. 9.2.2, `Position::repetition_key`) of every position a game reaches up
//!   to ply `INDEX_PLIES`, in buckets by the key's top `BUCKET_BITS` bits (rows of one bucket are merged by
//!   `db::positions::compact`); each bucket row
//!   holds entries sorted by the key's next 32 bits (its fingerprint), each with its games
//!   as delta varints. A fingerprint can collide: every candidate is replayed.
//! - Per game, a 26-byte tail record for the positions after `INDEX_PLIES`: the order in
//!   which the 16 home pawns left their squares, and material and castling rights at the
//!   index's last ply and at the end. Pawns never come back home, material never grows
//!   but by promotion and rights are never regained, so a position lies between the two;
//!   games that pass are replayed.

use super::query::{Counts, counts};
use crate::chess::{CastlingSide, Color, Move, MoveKind, Piece, Position, Role, Square};
use crate::game::keys::{PlyKey, code};
use crate::laws::result::WhiteResult;
use crate::positions::matcher::board_of;

/// Positions up to this ply are in the key index; later ones are found through the tails.
/// Chosen from the master games' figures (docs/POSITIONS.md).
pub const INDEX_PLIES: usize = 24;
/// Bucket rows: the key's top bits.
pub const BUCKET_BITS: u32 = 12;
pub const TAIL_BYTES: usize = 26;

/// What one game adds to the index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameEntry {
    /// Distinct keys of the positions up to `INDEX_PLIES`, sorted.
    pub keys: Vec<u64>,
    /// The tail record without the game id, when the game goes beyond `INDEX_PLIES`.
    pub tail: Option<Tail>,
    /// The game's result and ratings for the trees (`facts`), set by the writer.
    pub facts: u32,
    /// The game's material spans (`spans::encode`).
    pub spans: Vec<u8>,
    /// The home-pawn prefix postings of the positions after `INDEX_PLIES` (`pawn_postings`).
    pub pawns: Vec<PawnPosting>,
    /// The material classes the game passes through, with their ply classes
    /// (`material::postings`).
    pub material: Vec<(u32, u8)>,
    /// The game's summary (`summary::Builder`), what a scan rules it out by.
    pub summary: Vec<u8>,
}

/// A game's positions after `INDEX_PLIES` with one set of home pawns gone: the set (bits as
/// in `home_left`) and the men on the board, packed by `men_byte`, over those plies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PawnPosting {
    pub left: u16,
    pub men: u8,
}

/// The men on the board (kings included) from the first to the last ply of an interval, in
/// a byte: the first count less 2 in the top 5 bits (men only go, but promotion keeps
/// them), the drop to the last, capped at 7 (7: any number lower), in the low 3.
pub fn men_byte(first: u8, last: u8) -> u8 {
    let hi = first.clamp(2, 32);
    (hi - 2) << 3 | hi.saturating_sub(last).min(7)
}

/// Whether a position with `men` men may lie in an interval of `men_byte`.
pub fn men_may_hold(byte: u8, men: u8) -> bool {
    let hi = (byte >> 3) + 2;
    let drop = byte & 7;
    men <= hi && (drop == 7 || men + drop >= hi)
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tail {
    /// Home squares (0-7 White's a2-h2, 8-15 Black's a7-h7) in the order their pawns left,
    /// 4 bits each, the first in the low bits.
    pub order: u64,
    /// How many had left at `INDEX_PLIES`, and at the end.
    pub left_at_index: u8,
    pub left_at_end: u8,
    pub material_at_index: [Counts; 2],
    pub material_at_end: [Counts; 2],
    pub castling_at_index: u8,
    pub castling_at_end: u8,
    /// A promotion after `INDEX_PLIES` (pieces may then grow in number).
    pub promoted: bool,
    /// The game did not start from the standard position: no pruning by pawns or material.
    pub custom_start: bool,
}

/// Home squares of the 16 pawns, in `Tail::order`'s numbering.
fn home_square(i: usize) -> usize {
    if i < 8 { 8 + i } else { 48 + i - 8 }
}

/// The home square's number in `Tail::order`, if `sq` is one.
fn home_index(sq: usize) -> Option<usize> {
    match sq {
        8..=15 => Some(sq - 8),
        48..=55 => Some(sq - 40),
        _ => None,
    }
}

/// Which home pawns are gone from a board (bit i: `home_square(i)`).
pub fn home_left(board: &[u8; 64]) -> u16 {
    let mut left = 0u16;
    for i in 0..16 {
        let pawn = if i < 8 { 1 } else { 7 };
        if board[home_square(i)] != pawn {
            left |= 1 << i;
        }
    }
    left
}

pub fn castling_bits(pos: &Position) -> u8 {
    let mut bits = 0;
    for (c, color) in Color::ALL.into_iter().enumerate() {
        for (s, side) in CastlingSide::ALL.into_iter().enumerate() {
            if pos.castling().rook(color, side).is_some() {
                bits |= 1 << (2 * c + s);
            }
        }
    }
    bits
}

/// A game's entry: legal `moves` from `start`. The moves up to `INDEX_PLIES` are played on
/// a `Position` (their repetition keys need it: en passant counts only when legal); the
/// rest on a board of piece codes (`Board`), which is all the spans, the home pawns and
/// the tail need, at a fraction of a `Position`'s cost (its bitboards, hash and checkers:
/// the index's replay was most of what it added to an import).
pub fn game_entry(start: &Position, moves: &[Move]) -> GameEntry {
    game_entry_keyed(start, moves, &[])
}

/// `game_entry` with the key data of the position after each move as the import's replay
/// kept it (`game::replay::replay_keyed`; empty when it kept none): where no move up to
/// `INDEX_PLIES` leaves an en passant capture to settle, the keys are taken from there and
/// the whole game is played on the board of piece codes.
pub fn game_entry_keyed(start: &Position, moves: &[Move], replayed: &[PlyKey]) -> GameEntry {
    let mut spans = Vec::new();
    // The spans are written in this replay (a replay of their own cost the import 5 %).
    let mut record = super::spans::Record::start(start, moves.len(), &mut spans);
    let mut keys = Vec::with_capacity(INDEX_PLIES + 1);
    keys.push(start.repetition_key());
    let custom_start = *start != Position::new();
    let mut tail = Tail {
        custom_start,
        ..Tail::default()
    };
    let mut board = board_of(start);
    let mut summary = super::summary::Builder::start(&board, custom_start);
    let mut home = HomePawns::new(&board);
    let mut men = board.iter().filter(|&&p| p != 0).count() as u8;
    let head = moves.len().min(INDEX_PLIES);
    let mut castling = Castling::of(start);
    if replayed.len() >= head && replayed[..head].iter().all(|k| !k.ep_pending()) {
        for (i, &m) in moves[..head].iter().enumerate() {
            let moving = board[m.from().index()];
            let taken = play_on_board(&mut board, m);
            summary.moved(m, moving, taken);
            record.push(i + 1, taken, m.promotion_role());
            if taken.is_some() {
                men = men.saturating_sub(1);
            }
            castling.moved(m);
            home.moved(m, |sq| board[sq.index()]);
            keys.push(replayed[i].plain_key());
        }
    } else {
        let mut pos = *start;
        for (i, &m) in moves[..head].iter().enumerate() {
            let taken = pos.captured_role(m);
            summary.moved(m, pos.piece_at(m.from()).map_or(0, code), taken);
            record.push(i + 1, taken, m.promotion_role());
            if taken.is_some() {
                men = men.saturating_sub(1);
            }
            pos.play_unchecked(m);
            keys.push(pos.repetition_key());
            // A home pawn leaves by moving or by being taken: only the move's squares change.
            home.moved(m, |sq| pos.piece_at(sq).map_or(0, code));
        }
        board = board_of(&pos);
        castling = Castling::of(&pos);
    }
    keys.sort_unstable();
    keys.dedup();
    if moves.len() <= INDEX_PLIES {
        let material = super::material::postings(&spans).unwrap_or_default();
        let mut out = Vec::new();
        summary.finish(&mut out);
        return GameEntry {
            keys,
            tail: None,
            facts: 0,
            spans,
            pawns: Vec::new(),
            material,
            summary: out,
        };
    }
    tail.material_at_index = counts(&board);
    tail.castling_at_index = castling.bits();
    tail.left_at_index = home.gone;
    // Per set of home pawns gone after the index's last ply: (set, first men, last men).
    let mut intervals: Vec<(u16, u8, u8)> = Vec::new();
    for (i, &m) in moves.iter().enumerate().skip(INDEX_PLIES) {
        let ply = i + 1;
        let moving = board[m.from().index()];
        let taken = play_on_board(&mut board, m);
        summary.moved(m, moving, taken);
        record.push(ply, taken, m.promotion_role());
        if taken.is_some() {
            men = men.saturating_sub(1);
        }
        if m.promotion_role().is_some() {
            tail.promoted = true;
        }
        castling.moved(m);
        home.moved(m, |sq| board[sq.index()]);
        match intervals.last_mut() {
            Some((set, _, last)) if *set == home.left => *last = men,
            _ => intervals.push((home.left, men, men)),
        }
    }
    let material = super::material::postings(&spans).unwrap_or_default();
    let pawns = intervals
        .into_iter()
        .map(|(left, first, last)| PawnPosting {
            left,
            men: men_byte(first, last),
        })
        .collect();
    tail.order = home.order;
    tail.left_at_end = home.gone;
    tail.material_at_end = counts(&board);
    tail.castling_at_end = castling.bits();
    let mut out = Vec::new();
    summary.finish(&mut out);
    GameEntry {
        keys,
        tail: Some(tail),
        facts: 0,
        spans,
        pawns,
        material,
        summary: out,
    }
}

/// Which home pawns have left their squares, and in what order (`Tail::order`).
struct HomePawns {
    left: u16,
    order: u64,
    gone: u8,
}

impl HomePawns {
    fn new(board: &[u8; 64]) -> HomePawns {
        let left = home_left(board);
        HomePawns {
            left,
            order: 0,
            gone: left.count_ones() as u8,
        }
    }

    /// After move `m`: `piece(sq)` is the code of the piece on a square after it.
    #[inline]
    fn moved(&mut self, m: Move, piece: impl Fn(Square) -> u8) {
        for sq in [m.from(), m.to()] {
            if let Some(i) = home_index(sq.index())
                && self.left & (1 << i) == 0
            {
                let pawn = if i < 8 { 1 } else { 7 };
                if piece(sq) != pawn {
                    self.left |= 1 << i;
                    if self.gone < 16 {
                        self.order |= (i as u64) << (4 * u64::from(self.gone));
                    }
                    self.gone += 1;
                }
            }
        }
    }
}

/// Castling rights followed move by move as `castling_bits` numbers them: a right goes
/// when its king or its rook moves or the rook is taken.
struct Castling {
    rooks: [[Option<Square>; 2]; 2],
    kings: [Square; 2],
}

impl Castling {
    fn of(pos: &Position) -> Castling {
        Castling {
            rooks: Color::ALL
                .map(|color| CastlingSide::ALL.map(|side| pos.castling().rook(color, side))),
            kings: Color::ALL.map(|c| pos.king_of(c)),
        }
    }

    #[inline]
    fn moved(&mut self, m: Move) {
        for c in 0..2 {
            if m.from() == self.kings[c] {
                self.rooks[c] = [None; 2];
            }
            for r in &mut self.rooks[c] {
                if r.is_some_and(|r| r == m.from() || r == m.to()) {
                    *r = None;
                }
            }
        }
    }

    fn bits(&self) -> u8 {
        let mut bits = 0;
        for c in 0..2 {
            for s in 0..2 {
                if self.rooks[c][s].is_some() {
                    bits |= 1 << (2 * c + s);
                }
            }
        }
        bits
    }
}

/// Plays a legal move on a board of piece codes; returns the role it took.
#[inline]
fn play_on_board(board: &mut [u8; 64], m: Move) -> Option<Role> {
    let (from, to) = (m.from(), m.to());
    let moving = board[from.index()];
    board[from.index()] = 0;
    let role = |c: u8| crate::game::keys::piece(c).map(|p| p.role);
    match m.kind() {
        MoveKind::Normal => {
            let taken = role(board[to.index()]);
            board[to.index()] = moving;
            taken
        }
        MoveKind::Promotion(r) => {
            let taken = role(board[to.index()]);
            let color = if moving >= 7 {
                Color::Black
            } else {
                Color::White
            };
            board[to.index()] = code(Piece::new(color, r));
            taken
        }
        MoveKind::EnPassant => {
            board[Square::from_coords(to.file(), from.rank()).index()] = 0;
            board[to.index()] = moving;
            Some(Role::Pawn)
        }
        MoveKind::Castle => {
            // The move goes to the castling rook's square (Chess960 too).
            let rook = board[to.index()];
            board[to.index()] = 0;
            let side = m.castling_side().unwrap_or(CastlingSide::KingSide);
            let rank = from.rank();
            board[Square::from_coords(side.king_to_file(), rank).index()] = moving;
            board[Square::from_coords(side.rook_to_file(), rank).index()] = rook;
            None
        }
    }
}

/// Bytes a game in `position_facts`.
pub const FACTS_BYTES: usize = 4;
const ELO_BITS: u32 = 13;
const ELO_MAX: i64 = (1 << ELO_BITS) - 1;

/// What a move tree needs of a game, in 32 bits: the result (2 bits: none, 1-0, ½-½, 0-1)
/// and each rating (13 bits, 0: none; ratings are clamped to 1..8191).
pub fn facts(result: Option<&str>, white_elo: Option<i64>, black_elo: Option<i64>) -> u32 {
    let r = match WhiteResult::of(result) {
        Some(WhiteResult::WhiteWins) => 1,
        Some(WhiteResult::Draw) => 2,
        Some(WhiteResult::BlackWins) => 3,
        None => 0,
    };
    let elo = |e: Option<i64>| e.filter(|&e| e > 0).map_or(0, |e| e.min(ELO_MAX) as u32);
    r | elo(white_elo) << 2 | elo(black_elo) << (2 + ELO_BITS)
}

/// White's score in `facts`: 0, 1, 2 for 1-0, ½-½, 0-1 (`tree::Trees`' numbering).
pub fn facts_result(f: u32) -> Option<usize> {
    match f & 3 {
        0 => None,
        r => Some(r as usize - 1),
    }
}

/// White's (0) or Black's (1) rating in `facts`.
pub fn facts_elo(f: u32, side: usize) -> Option<i64> {
    let e = (f >> (2 + ELO_BITS * side as u32)) & ELO_MAX as u32;
    (e > 0).then_some(i64::from(e))
}

fn pack_counts(c: &[Counts; 2], out: &mut Vec<u8>) {
    let n: Vec<u8> = c.iter().flatten().map(|&x| x.min(15)).collect();
    for pair in n.chunks(2) {
        out.push(pair[0] | pair[1] << 4);
    }
}

fn unpack_counts(b: &[u8]) -> [Counts; 2] {
    let mut n = [0u8; 10];
    for (i, &x) in b.iter().enumerate().take(5) {
        n[2 * i] = x & 15;
        n[2 * i + 1] = x >> 4;
    }
    [
        [n[0], n[1], n[2], n[3], n[4]],
        [n[5], n[6], n[7], n[8], n[9]],
    ]
}

impl Tail {
    /// The stored record: game id, then the fields (`TAIL_BYTES` in all).
    pub fn encode(&self, game: u32, out: &mut Vec<u8>) {
        out.extend_from_slice(&game.to_le_bytes());
        out.extend_from_slice(&self.order.to_le_bytes());
        out.push(self.left_at_index);
        out.push(self.left_at_end);
        pack_counts(&self.material_at_index, out);
        pack_counts(&self.material_at_end, out);
        out.push(self.castling_at_index | self.castling_at_end << 4);
        out.push(u8::from(self.promoted) | u8::from(self.custom_start) << 1);
    }

    pub fn decode(b: &[u8]) -> (u32, Tail) {
        let game = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let mut o = [0u8; 8];
        o.copy_from_slice(&b[4..12]);
        let tail = Tail {
            order: u64::from_le_bytes(o),
            left_at_index: b[12],
            left_at_end: b[13],
            material_at_index: unpack_counts(&b[14..19]),
            material_at_end: unpack_counts(&b[19..24]),
            castling_at_index: b[24] & 15,
            castling_at_end: b[24] >> 4,
            promoted: b[25] & 1 != 0,
            custom_start: b[25] & 2 != 0,
        };
        (game, tail)
    }

    /// `may_hold`'s first test on a stored record, before decoding it: whether a position
    /// with `k` home pawns gone may come after `INDEX_PLIES` in its game.
    pub fn may_have_left(record: &[u8], k: u8) -> bool {
        record[25] & 2 != 0 || (record[12]..=record[13]).contains(&k)
    }

    /// Whether a position with these home pawns gone, material and castling rights may come
    /// after `INDEX_PLIES` in this game (`castling`: None when the query ignores rights).
    pub fn may_hold(&self, left: u16, material: &[Counts; 2], castling: Option<u8>) -> bool {
        if self.custom_start {
            return true;
        }
        let k = left.count_ones() as u8;
        if k < self.left_at_index || k > self.left_at_end {
            return false;
        }
        let mut first = 0u16;
        for j in 0..k.min(16) {
            first |= 1 << ((self.order >> (4 * j as u64)) & 15);
        }
        if first != left {
            return false;
        }
        for (side, want) in material.iter().enumerate() {
            for (role, &q) in want.iter().enumerate() {
                let (lo, hi) = (
                    self.material_at_end[side][role],
                    self.material_at_index[side][role],
                );
                let pawn = role == 4;
                if q > hi && (pawn || !self.promoted) {
                    return false;
                }
                if q < lo && (pawn || !self.promoted) {
                    return false;
                }
            }
        }
        if let Some(c) = castling
            && (c & !self.castling_at_index != 0 || self.castling_at_end & !c != 0)
        {
            return false;
        }
        true
    }
}

/// The bucket of a key, and its fingerprint inside the bucket.
pub fn bucket_of(key: u64) -> (u32, u32) {
    (
        (key >> (64 - BUCKET_BITS)) as u32,
        (key >> (64 - BUCKET_BITS - 32)) as u32,
    )
}

pub fn put_varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

#[inline]
pub fn get_varint(b: &[u8], at: &mut usize) -> Option<u64> {
    // Most varints of the index are one byte.
    if let Some(&byte) = b.get(*at)
        && byte < 0x80
    {
        *at += 1;
        return Some(u64::from(byte));
    }
    let mut v = 0u64;
    let mut shift = 0;
    loop {
        let byte = *b.get(*at)?;
        *at += 1;
        v |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(v);
        }
        shift += 7;
        if shift > 63 {
            return None;
        }
    }
}

/// One bucket row's entries: `(fingerprint, games ascending)` sorted by fingerprint, the
/// games stored as deltas from `first_game`.
pub fn encode_bucket(first_game: u32, entries: &[(u32, Vec<u32>)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (fp, games) in entries {
        out.extend_from_slice(&fp.to_le_bytes());
        put_varint(games.len() as u64, &mut out);
        let mut prev = first_game;
        for &g in games {
            put_varint(u64::from(g - prev), &mut out);
            prev = g;
        }
    }
    out
}

/// The games under fingerprint `fp` in a bucket row.
pub fn bucket_games(first_game: u32, blob: &[u8], fp: u32, out: &mut Vec<u32>) {
    let mut at = 0;
    while at + 4 <= blob.len() {
        let f = u32::from_le_bytes([blob[at], blob[at + 1], blob[at + 2], blob[at + 3]]);
        at += 4;
        let Some(n) = get_varint(blob, &mut at) else {
            return;
        };
        let mut g = first_game;
        for _ in 0..n {
            let Some(d) = get_varint(blob, &mut at) else {
                return;
            };
            g += d as u32;
            if f == fp {
                out.push(g);
            }
        }
        if f >= fp {
            return;
        }
    }
}

/// Every `(fingerprint, game)` of a bucket row.
pub fn decode_bucket(first_game: u32, blob: &[u8], out: &mut Vec<(u32, u32)>) {
    let mut at = 0;
    while at + 4 <= blob.len() {
        let f = u32::from_le_bytes([blob[at], blob[at + 1], blob[at + 2], blob[at + 3]]);
        at += 4;
        let Some(n) = get_varint(blob, &mut at) else {
            return;
        };
        let mut g = first_game;
        for _ in 0..n {
            let Some(d) = get_varint(blob, &mut at) else {
                return;
            };
            g += d as u32;
            out.push((f, g));
        }
    }
}

/// One bucket row from `(fingerprint, game)` pairs (any order, repeats allowed).
pub fn encode_pairs(first_game: u32, pairs: &mut [(u32, u32)]) -> Vec<u8> {
    pairs.sort_unstable();
    let mut entries: Vec<(u32, Vec<u32>)> = Vec::new();
    for &(f, g) in pairs.iter() {
        match entries.last_mut() {
            Some((lf, games)) if *lf == f => {
                if games.last() != Some(&g) {
                    games.push(g);
                }
            }
            _ => entries.push((f, vec![g])),
        }
    }
    encode_bucket(first_game, &entries)
}

/// Groups games' keys into bucket rows: bucket → encoded entries.
pub fn build_buckets(first_game: u32, games: &[(u32, &[u64])]) -> Vec<(u32, Vec<u8>)> {
    // Each (bucket, fingerprint, game) packed in a u64 (the game as its offset in the range,
    // 20 bits): sorting plain integers, and encoding the rows straight from them without a
    // list per fingerprint, cost the import a third of what the tuples did.
    let span = games.last().map_or(0, |&(g, _)| g - first_game);
    if span >= 1 << 20 {
        return build_buckets_wide(first_game, games);
    }
    let mut packed: Vec<u64> = Vec::with_capacity(games.iter().map(|(_, k)| k.len()).sum());
    for &(g, keys) in games {
        let off = u64::from(g - first_game);
        packed.extend(
            keys.iter()
                .map(|&k| (k >> (64 - BUCKET_BITS - 32)) << 20 | off),
        );
    }
    packed.sort_unstable();
    packed.dedup();
    let mut rows = Vec::new();
    let mut i = 0;
    while i < packed.len() {
        let bucket = (packed[i] >> 52) as u32;
        let mut out = Vec::new();
        while i < packed.len() && (packed[i] >> 52) as u32 == bucket {
            let fp = (packed[i] >> 20) as u32;
            let j = i + packed[i..].partition_point(|&p| p >> 20 == packed[i] >> 20);
            out.extend_from_slice(&fp.to_le_bytes());
            put_varint((j - i) as u64, &mut out);
            let mut prev = 0u64;
            for &p in &packed[i..j] {
                let off = p & ((1 << 20) - 1);
                put_varint(off - prev, &mut out);
                prev = off;
            }
            i = j;
        }
        rows.push((bucket, out));
    }
    rows
}

/// `build_buckets` for a range of more than 2^20 ids.
fn build_buckets_wide(first_game: u32, games: &[(u32, &[u64])]) -> Vec<(u32, Vec<u8>)> {
    let mut pairs: Vec<(u64, u32)> = Vec::new();
    for &(g, keys) in games {
        for &k in keys {
            let (b, f) = bucket_of(k);
            pairs.push(((u64::from(b) << 32) | u64::from(f), g));
        }
    }
    pairs.sort_unstable();
    let mut rows = Vec::new();
    let mut i = 0;
    while i < pairs.len() {
        let bucket = (pairs[i].0 >> 32) as u32;
        let mut entries: Vec<(u32, Vec<u32>)> = Vec::new();
        while i < pairs.len() && (pairs[i].0 >> 32) as u32 == bucket {
            let fp = pairs[i].0 as u32;
            let mut games = Vec::new();
            while i < pairs.len() && pairs[i].0 == (u64::from(bucket) << 32 | u64::from(fp)) {
                if games.last() != Some(&pairs[i].1) {
                    games.push(pairs[i].1);
                }
                i += 1;
            }
            entries.push((fp, games));
        }
        rows.push((bucket, encode_bucket(first_game, &entries)));
    }
    rows
}

/// A row of the home-pawn index (`position_pawns`) holds the entries of consecutive sets
/// of one range of games, up to this many bytes (a larger entry has a row of its own): a
/// row then fills one 4 KB page, where rows by fixed buckets left 15 % of the pages empty.
pub const PAWN_ROW_BYTES: usize = 4000;

/// The row id of the home-pawn row of a range of games (from `first_game`) whose first set
/// is `left`; the row saying which ids a range covers has id `-1 - first_game`.
pub fn pawn_row(first_game: u32, left: u16) -> i64 {
    i64::from(first_game) << 16 | i64::from(left)
}

/// The home-pawn index's rows for games from `first_game` on (ascending ids, each with its
/// postings): `(first set, entries)`. An entry: the set (u16, little-endian), the length
/// of the rest of the entry (varint, to skip it), the number of games, and per game its id
/// as a delta from the previous one (from `first_game`) and its `men_byte`. A set never
/// comes back in a game, so a game is under it once.
pub fn build_pawn_rows(first_game: u32, games: &[(u32, &[PawnPosting])]) -> Vec<(u16, Vec<u8>)> {
    let mut all: Vec<(u16, u32, u8)> = Vec::new();
    for &(g, postings) in games {
        all.extend(postings.iter().map(|p| (p.left, g, p.men)));
    }
    all.sort_unstable();
    let mut rows: Vec<(u16, Vec<u8>)> = Vec::new();
    let mut body = Vec::new();
    let mut entry = Vec::new();
    let mut i = 0;
    while i < all.len() {
        let left = all[i].0;
        let mut j = i;
        while j < all.len() && all[j].0 == left {
            j += 1;
        }
        body.clear();
        put_varint((j - i) as u64, &mut body);
        let mut prev = first_game;
        for &(_, g, men) in &all[i..j] {
            put_varint(u64::from(g - prev), &mut body);
            body.push(men);
            prev = g;
        }
        entry.clear();
        entry.extend_from_slice(&left.to_le_bytes());
        put_varint(body.len() as u64, &mut entry);
        entry.extend_from_slice(&body);
        match rows.last_mut() {
            Some((_, row)) if row.len() + entry.len() <= PAWN_ROW_BYTES => {
                row.extend_from_slice(&entry)
            }
            _ => rows.push((left, entry.clone())),
        }
        i = j;
    }
    rows
}

/// The games of a home-pawn row (from `first_game`) under the set `left` whose men may be
/// `men` (`men_may_hold`), appended to `out`.
pub fn pawn_games(first_game: u32, blob: &[u8], left: u16, men: u8, out: &mut Vec<u32>) {
    let mut at = 0;
    while at + 2 <= blob.len() {
        let set = u16::from_le_bytes([blob[at], blob[at + 1]]);
        at += 2;
        let Some(len) = get_varint(blob, &mut at) else {
            return;
        };
        let end = at.saturating_add(len as usize).min(blob.len());
        if set == left {
            let body = &blob[at..end];
            let mut k = 0;
            let Some(n) = get_varint(body, &mut k) else {
                return;
            };
            let mut g = first_game;
            for _ in 0..n {
                let Some(d) = get_varint(body, &mut k) else {
                    return;
                };
                let Some(&byte) = body.get(k) else {
                    return;
                };
                k += 1;
                g += d as u32;
                if men_may_hold(byte, men) {
                    out.push(g);
                }
            }
            return;
        }
        if set > left {
            return;
        }
        at = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The moves of a line of SAN from the start position.
    fn moves_of(line: &str) -> Vec<Move> {
        crate::chess::san::line(Position::new(), line)
    }

    #[test]
    fn tail_records_round_trip_and_bound_the_positions_after_the_index() {
        let moves = moves_of(
            "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 d4 Nbd7 c4 c6 cxb5 axb5 Nc3 Bb7 Bg5 b4 Nb1 h6 Bh4 c5 dxe5 Nxe4",
        );
        let e = game_entry(&Position::new(), &moves);
        assert!(e.keys.len() <= INDEX_PLIES + 1 && e.keys.len() > 20);
        let tail = e.tail.unwrap();
        let mut b = Vec::new();
        tail.encode(7, &mut b);
        assert_eq!(b.len(), TAIL_BYTES);
        assert_eq!(Tail::decode(&b), (7, tail));
        // Every position after the index's last ply passes its game's own record.
        let mut p = Position::new();
        for (i, &m) in moves.iter().enumerate() {
            p.play_unchecked(m);
            if i + 1 > INDEX_PLIES {
                let board = board_of(&p);
                assert!(
                    tail.may_hold(home_left(&board), &counts(&board), Some(castling_bits(&p))),
                    "ply {}",
                    i + 1
                );
            }
        }
        // The start position does not.
        let start = board_of(&Position::new());
        assert!(!tail.may_hold(home_left(&start), &counts(&start), Some(15)));
    }

    #[test]
    fn the_home_pawn_index_finds_every_position_after_the_key_index() {
        // men_byte: the interval's men from first to last, a drop of 7 or more meaning any.
        assert!(men_may_hold(men_byte(32, 32), 32));
        assert!(!men_may_hold(men_byte(32, 32), 31));
        assert!(men_may_hold(men_byte(20, 17), 18) && !men_may_hold(men_byte(20, 17), 16));
        assert!(!men_may_hold(men_byte(20, 17), 21));
        assert!(men_may_hold(men_byte(20, 10), 2) && !men_may_hold(men_byte(20, 10), 21));
        let moves = moves_of(
            "d4 d5 c4 e6 Nc3 c5 cxd5 exd5 Nf3 Nc6 g3 Nf6 Bg2 Be7 O-O O-O dxc5 Bxc5 Bg5 d4 Bxf6 Qxf6 Nd5 Qd8 Nd2 Re8 Nb3 Bb6 Nxb6 axb6 Bxc6 bxc6 Qxd4 Qxd4 Nxd4 c5 Nb5 Rxe2 Nc7 Ra7 Nd5 Rxb2 Nxb6 Be6",
        );
        let e = game_entry(&Position::new(), &moves);
        let other = game_entry(&Position::new(), &moves[..30]);
        let rows = build_pawn_rows(7, &[(7, &e.pawns[..]), (9, &other.pawns[..])]);
        let find = |left: u16, men: u8| {
            let mut out = Vec::new();
            // The row whose first set is the last at or before `left`.
            if let Some((_, blob)) = rows.iter().rev().find(|(first, _)| *first <= left) {
                pawn_games(7, blob, left, men, &mut out);
            }
            out
        };
        let mut p = Position::new();
        for (i, &m) in moves.iter().enumerate() {
            p.play_unchecked(m);
            let board = board_of(&p);
            let men = board.iter().filter(|&&x| x != 0).count() as u8;
            let found = find(home_left(&board), men);
            if i + 1 > INDEX_PLIES {
                assert!(found.contains(&7), "ply {}", i + 1);
                assert!(found.contains(&9) || i + 1 > 30, "ply {}", i + 1);
            }
        }
        // The start position's set and men are under no game.
        assert!(find(0, 32).is_empty());
        assert!(
            game_entry(&Position::new(), &moves[..INDEX_PLIES])
                .pawns
                .is_empty()
        );
    }

    /// The board walk after `INDEX_PLIES` gives what a `Position` replay of the whole game
    /// gives: castling (and the rights it ends), en passant, a promotion, captures.
    #[test]
    fn the_board_walk_after_the_index_agrees_with_a_position_replay() {
        let shuffle = "Nf3 Nf6 Ng1 Ng8 ".repeat(6);
        let late = format!(
            "{shuffle}e4 d5 e5 f5 exf6 e5 Nf3 Nc6 Bc4 Bc5 O-O gxf6 Re1 Qe7 d4 exd4 Bf4 Be6 Nbd2 O-O-O Bxd5 Bxd5"
        );
        let start = Position::new();
        let promo = Position::from_fen("4k3/P1p5/8/8/8/8/1p6/4K2R w K - 0 1").unwrap();
        let kings = "Kf2 Kd8 Kf1 Ke8 ".repeat(6);
        let early = "e4 d5 e5 f5 exf6 e5 Nf3 Nc6 Bc4 Bc5 O-O gxf6 Re1 Qe7 d4 exd4 Bf4 Be6 Nbd2 O-O-O Bxd5 Bxd5 Ng5 Kb8 Ngf3 Ka8 Ng5 Kb8 Ngf3 Ka8".to_string();
        let cases = [
            (start, late),
            (start, early),
            (promo, format!("{kings}a8=Q+ Kd7 Qb7 Kd6 Rh6+ Ke5 Qxb2+")),
            (promo, format!("{kings}Kg1 b1=N Rh2 Nc3 Rc2 Nd5 Rxc7")),
        ];
        for (start, text) in cases {
            let moves = crate::chess::san::line(start, &text);
            assert!(moves.len() > INDEX_PLIES + 4, "{text}");
            let e = game_entry(&start, &moves);
            // The import's keys give the same entry (taken from them when no en passant
            // capture is left to settle up to the index's last ply, else replayed).
            let walked = PlyKey::walk(&start, &moves);
            assert_eq!(game_entry_keyed(&start, &moves, &walked), e, "{text}");
            let mut spans = Vec::new();
            super::super::spans::encode(&start, &moves, &mut spans);
            assert_eq!(e.spans, spans, "{text}");
            assert_eq!(
                e.summary,
                super::super::summary::of(&start, &moves),
                "{text}"
            );
            assert_eq!(
                e.material,
                super::super::material::postings(&spans).unwrap(),
                "{text}"
            );
            // The tail and the home-pawn postings from a replay of every ply.
            let mut pos = start;
            let mut intervals: Vec<(u16, u8, u8)> = Vec::new();
            for (i, &m) in moves.iter().enumerate() {
                pos.play_unchecked(m);
                if i + 1 > INDEX_PLIES {
                    let b = board_of(&pos);
                    let men = b.iter().filter(|&&p| p != 0).count() as u8;
                    match intervals.last_mut() {
                        Some((set, _, last)) if *set == home_left(&b) => *last = men,
                        _ => intervals.push((home_left(&b), men, men)),
                    }
                }
            }
            let pawns: Vec<PawnPosting> = intervals
                .into_iter()
                .map(|(left, a, b)| PawnPosting {
                    left,
                    men: men_byte(a, b),
                })
                .collect();
            assert_eq!(e.pawns, pawns, "{text}");
            let tail = e.tail.unwrap();
            let end = board_of(&pos);
            assert_eq!(tail.material_at_end, counts(&end), "{text}");
            assert_eq!(tail.castling_at_end, castling_bits(&pos), "{text}");
            assert_eq!(
                tail.left_at_end,
                home_left(&end).count_ones() as u8,
                "{text}"
            );
            assert!(tail.may_hold(home_left(&end), &counts(&end), Some(castling_bits(&pos))));
        }
    }

    #[test]
    fn facts_keep_result_and_ratings() {
        let f = facts(Some("0-1"), Some(2812), None);
        assert_eq!(facts_result(f), Some(2));
        assert_eq!((facts_elo(f, 0), facts_elo(f, 1)), (Some(2812), None));
        let f = facts(Some("*"), Some(0), Some(9000));
        assert_eq!(facts_result(f), None);
        assert_eq!((facts_elo(f, 0), facts_elo(f, 1)), (None, Some(8191)));
        assert_eq!(facts_result(facts(Some("1/2-1/2"), None, None)), Some(1));
    }

    #[test]
    fn packed_and_wide_bucket_rows_are_the_same() {
        let a: Vec<u64> = (0..40u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        let b: Vec<u64> = a.iter().step_by(3).copied().chain([7, 1 << 63]).collect();
        let games = [(100, &a[..]), (101, &b[..]), (5000, &a[..10])];
        assert_eq!(build_buckets(100, &games), build_buckets_wide(100, &games));
    }

    #[test]
    fn buckets_find_their_games() {
        let keys_a = [1u64 << 63 | 5, 77, 1 << 40];
        let keys_b = [77u64, 3 << 62];
        let rows = build_buckets(10, &[(10, &keys_a[..]), (12, &keys_b[..])]);
        let find = |k: u64| {
            let (b, f) = bucket_of(k);
            let mut out = Vec::new();
            for (bucket, blob) in &rows {
                if *bucket == b {
                    bucket_games(10, blob, f, &mut out);
                }
            }
            out
        };
        assert_eq!(find(77), [10, 12]);
        assert_eq!(find(3 << 62), [12]);
        assert_eq!(find(1 << 40), [10]);
        assert!(find(12345 << 40).is_empty());
        // Merging rows keeps every game.
        let (b77, _) = bucket_of(77);
        let mut pairs = Vec::new();
        for (bucket, blob) in &rows {
            if *bucket == b77 {
                decode_bucket(10, blob, &mut pairs);
            }
        }
        let merged = encode_pairs(10, &mut pairs.clone());
        let mut again = Vec::new();
        decode_bucket(10, &merged, &mut again);
        pairs.sort_unstable();
        assert_eq!(again, pairs);
    }
}
