//! Which opening a game is, by position: lichess's CC0 opening names (`data/`, built into
//! the binary) are replayed once with our own SAN reader and keyed by the position key of
//! Art. 9.2.2 (`Position::repetition_key`: placement, side to move, castling rights, en
//! passant only when capturable). A game is named by the deepest of its main-line positions
//! that is a named one, so transposed move orders land on the same name.

use crate::chess::san::{SanMode, play_san};
use crate::chess::{Move, Position};
use crate::game::keys::FirstKeys;
use std::sync::OnceLock;

/// The opening a game reached, by position: what the store keeps of a book entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opening {
    pub eco: &'static str,
    /// Full name, `Sicilian Defense: Najdorf Variation`.
    pub name: &'static str,
    /// Ply of the deepest named position (0: the start).
    pub ply: u32,
}

impl Opening {
    /// The part before `:`.
    pub fn family(&self) -> &'static str {
        self.name
            .split_once(':')
            .map_or(self.name, |(f, _)| f.trim())
    }

    /// The part after `:`, when there is one.
    pub fn variation(&self) -> Option<&'static str> {
        self.name.split_once(':').map(|(_, v)| v.trim())
    }
}

const DATA: [&str; 5] = [
    include_str!("data/a.tsv"),
    include_str!("data/b.tsv"),
    include_str!("data/c.tsv"),
    include_str!("data/d.tsv"),
    include_str!("data/e.tsv"),
];

/// A named position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Named {
    pub eco: &'static str,
    pub name: &'static str,
    /// Plies of the line that names it.
    pub plies: u32,
}

/// The book: an open-addressing table of position keys (Zobrist keys are random already,
/// so the key's low bits are the slot), small enough to stay in the cache.
pub struct Book {
    /// One bit per value of a key's top 16 bits, set for the named positions: most of a
    /// game's positions have no name, and this bit (8 KB, which stays in the first-level
    /// cache) says so without a probe into `slots`.
    filter: Vec<u64>,
    slots: Vec<(u64, u32)>,
    mask: usize,
    named: Vec<Named>,
    /// The deepest named line, in plies: no game position past it is looked up.
    max_ply: u32,
    /// Lines whose position another line had named first (the first one keeps it).
    pub shadowed: usize,
}

const EMPTY: u32 = u32::MAX;

/// `Book::filter`: 65,536 bits.
const FILTER_WORDS: usize = 1 << 10;

/// A key's bit in `Book::filter`: its top 16 bits (the slot comes from the low ones).
#[inline]
fn filter_bit(key: u64) -> usize {
    (key >> 48) as usize
}

impl Book {
    fn build() -> Book {
        let mut named = Vec::new();
        let mut keys = Vec::new();
        let mut shadowed = 0;
        for (file, text) in DATA.iter().enumerate() {
            for (i, line) in text.lines().enumerate().skip(1) {
                let mut fields = line.split('\t');
                let (Some(eco), Some(name), Some(pgn)) =
                    (fields.next(), fields.next(), fields.next())
                else {
                    panic!("opening data {}:{}: three fields expected", file, i + 1);
                };
                let mut pos = Position::new();
                let mut plies = 0;
                for token in pgn.split_whitespace() {
                    if token.ends_with('.') {
                        continue;
                    }
                    // The data is fixed and tested (`book_replays_every_line`).
                    play_san(&mut pos, token, SanMode::Strict).unwrap_or_else(|e| {
                        panic!("opening data {}:{}: {token}: {e}", file, i + 1)
                    });
                    plies += 1;
                }
                keys.push(pos.repetition_key());
                named.push(Named { eco, name, plies });
            }
        }
        let size = (keys.len() * 4).next_power_of_two();
        let mask = size - 1;
        let mut slots = vec![(0u64, EMPTY); size];
        let mut kept = Vec::with_capacity(named.len());
        for (key, n) in keys.into_iter().zip(named) {
            let mut i = key as usize & mask;
            loop {
                if slots[i].1 == EMPTY {
                    slots[i] = (key, kept.len() as u32);
                    kept.push(n);
                    break;
                }
                if slots[i].0 == key {
                    shadowed += 1;
                    break;
                }
                i = (i + 1) & mask;
            }
        }
        let max_ply = kept.iter().map(|n| n.plies).max().unwrap_or(0);
        let mut filter = vec![0u64; FILTER_WORDS];
        for &(key, idx) in &slots {
            if idx != EMPTY {
                let bit = filter_bit(key);
                filter[bit / 64] |= 1 << (bit % 64);
            }
        }
        Book {
            filter,
            slots,
            mask,
            named: kept,
            max_ply,
            shadowed,
        }
    }

    /// The book, built on first use (about 3,800 lines replayed).
    pub fn get() -> &'static Book {
        static BOOK: OnceLock<Book> = OnceLock::new();
        BOOK.get_or_init(Book::build)
    }

    #[inline]
    pub fn lookup(&self, key: u64) -> Option<&Named> {
        let bit = filter_bit(key);
        if self.filter[bit / 64] & (1 << (bit % 64)) == 0 {
            return None;
        }
        let mut i = key as usize & self.mask;
        loop {
            let (k, idx) = self.slots[i];
            if idx == EMPTY {
                return None;
            }
            if k == key {
                return Some(&self.named[idx as usize]);
            }
            i = (i + 1) & self.mask;
        }
    }

    /// Every name of the book, in file order (a name may name several positions).
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.named.iter().map(|n| n.name)
    }

    pub fn len(&self) -> usize {
        self.named.len()
    }

    pub fn is_empty(&self) -> bool {
        self.named.is_empty()
    }

    pub fn max_ply(&self) -> u32 {
        self.max_ply
    }

    /// The deepest named position among the first plies of a game played from `start`
    /// (the moves are legal: they come from the replay). Only games from the standard
    /// start position are named; the names describe nothing else.
    pub fn classify(&self, start: &Position, moves: &[Move]) -> Option<Opening> {
        if *start != Position::new() {
            return None;
        }
        let first = FirstKeys::walk(start, moves, self.max_ply as usize);
        self.classify_keys(start, moves, &first)
    }

    /// `classify` from the keys of the game's first positions, as a walk hands them over
    /// (`laws::judge_keyed`: the Laws' walk computes them anyway); they must
    /// cover the first `max_ply` plies, or the whole game. A key left unsettled by a double
    /// step (Art. 9.2.2: the en passant right, when the capture is legal, makes another
    /// position) is settled on a full position only where one of its two keys is named.
    pub fn classify_keys(
        &self,
        start: &Position,
        moves: &[Move],
        first: &FirstKeys,
    ) -> Option<Opening> {
        if *start != Position::new() {
            return None;
        }
        let (mut full, mut full_ply) = (*start, 0);
        let mut unsettled = first.unsettled.iter().peekable();
        let mut best: Option<(&Named, u32)> = None;
        for (i, &key) in first.keys.iter().take(self.max_ply as usize).enumerate() {
            let mut named = self.lookup(key);
            if let Some(&(_, other)) = unsettled.next_if(|(at, _)| *at == i) {
                let named_other = self.lookup(other);
                if named.is_some() || named_other.is_some() {
                    for &m in &moves[full_ply..=i] {
                        full.play_unchecked(m);
                    }
                    full_ply = i + 1;
                    if full.repetition_key() == other {
                        named = named_other;
                    }
                }
            }
            if let Some(n) = named {
                best = Some((n, i as u32 + 1));
            }
        }
        best.map(|(n, ply)| Opening {
            eco: n.eco,
            name: n.name,
            ply,
        })
    }
}

/// The opening of a game: `Book::get().classify`.
pub fn classify(start: &Position, moves: &[Move]) -> Option<Opening> {
    Book::get().classify(start, moves)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(line: &str) -> Vec<Move> {
        let mut pos = Position::new();
        line.split_whitespace()
            .filter(|t| !t.ends_with('.'))
            .map(|t| play_san(&mut pos, t, SanMode::Strict).unwrap().mv)
            .collect()
    }

    fn name(line: &str) -> Option<(String, String, u32)> {
        classify(&Position::new(), &moves(line)).map(|o| (o.eco.into(), o.name.into(), o.ply))
    }

    #[test]
    fn book_replays_every_line() {
        let book = Book::get();
        let lines: usize = DATA.iter().map(|t| t.lines().count() - 1).sum();
        assert_eq!(lines, 3807);
        assert_eq!(book.len() + book.shadowed, lines);
        assert!(
            book.max_ply() >= 30 && book.max_ply() <= 40,
            "{}",
            book.max_ply()
        );
    }

    #[test]
    fn deepest_named_position_wins() {
        let najdorf = name("1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 6. h3 h5").unwrap();
        assert_eq!(najdorf.0, "B90");
        assert!(
            najdorf.1.starts_with("Sicilian Defense: Najdorf Variation"),
            "{najdorf:?}"
        );
        // Named at ply 11 or 12 (6. h3 is the Adams Attack); never after book is left.
        assert!(najdorf.2 == 11 || najdorf.2 == 12, "{najdorf:?}");
    }

    /// The deepest named position by full positions, move by move: what `classify` must
    /// equal with its cheap key walk.
    fn by_full_positions(moves: &[Move]) -> Option<(&'static str, u32)> {
        let book = Book::get();
        let mut pos = Position::new();
        let mut best = None;
        for (i, &m) in moves.iter().take(book.max_ply() as usize).enumerate() {
            pos.play_unchecked(m);
            if let Some(n) = book.lookup(pos.repetition_key()) {
                best = Some((n.name, i as u32 + 1));
            }
        }
        best
    }

    #[test]
    fn the_key_walk_names_every_book_line_as_full_positions_do() {
        let mut lines = 0;
        for text in DATA {
            for line in text.lines().skip(1) {
                let pgn = line.split('\t').nth(2).unwrap();
                // The line itself, and the line with a knight move out and back appended.
                for extra in ["", " Na3 Nh6 Nb1 Ng8", " Nh3 Na6 Ng1 Nb8"] {
                    let Some(moves) = try_moves(&format!("{pgn}{extra}")) else {
                        continue;
                    };
                    let walked = classify(&Position::new(), &moves).map(|o| (o.name, o.ply));
                    assert_eq!(walked, by_full_positions(&moves), "{pgn}{extra}");
                    lines += 1;
                }
            }
        }
        assert!(lines >= 3807, "{lines}");
    }

    fn try_moves(line: &str) -> Option<Vec<Move>> {
        let mut pos = Position::new();
        line.split_whitespace()
            .filter(|t| !t.ends_with('.'))
            .map(|t| play_san(&mut pos, t, SanMode::Strict).ok().map(|p| p.mv))
            .collect()
    }

    #[test]
    fn an_en_passant_right_makes_another_position() {
        // After 2...e5 the pawn on d5 may take en passant: the right is part of the position
        // (Art. 9.2.2), the Old Benoni's.
        let benoni = name("1. d4 c5 2. d5 e5").unwrap();
        assert_eq!(
            (benoni.0.as_str(), benoni.1.as_str(), benoni.2),
            ("A44", "Benoni Defense: Old Benoni", 4)
        );
        // The same placement, White to move, reached by 2...e6 and 3...e5 without that
        // right: another position, so not named at ply 8 but by 2. d5 at ply 3.
        let later = name("1. d4 c5 2. d5 e6 3. Nf3 e5 4. Ng1").unwrap();
        assert_eq!(
            (later.0.as_str(), later.1.as_str(), later.2),
            ("A43", "Benoni Defense: Old Benoni", 3)
        );
    }

    #[test]
    fn transposed_move_orders_get_the_same_name() {
        let a = name("1. d4 Nf6 2. c4 e6 3. Nc3 Bb4").unwrap();
        let b = name("1. c4 e6 2. Nc3 Nf6 3. d4 Bb4").unwrap();
        assert_eq!(a, b);
        assert_eq!(a.1, "Nimzo-Indian Defense");
        let c = name("1. Nf3 d5 2. d4 Nf6 3. c4 e6 4. Nc3 Be7").unwrap();
        let d = name("1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Nf3 Be7").unwrap();
        assert_eq!((c.0.clone(), c.1.clone()), (d.0, d.1));
    }

    #[test]
    fn games_leaving_book_at_once() {
        // 1. a3 is named (Anderssen's Opening); 1. a3 a6 2. Ra2 leaves book after ply 1.
        let a3 = name("1. a3 a6 2. Ra2 Ra7").unwrap();
        assert_eq!(
            (a3.0.as_str(), a3.1.as_str(), a3.2),
            ("A00", "Anderssen's Opening", 1)
        );
        assert_eq!(name(""), None);
        // A game from a set-up position is not named.
        let fen = crate::chess::fen::parse_setup("8/8/8/4k3/8/8/8/4K3 w - - 0 1").unwrap();
        let start = Position::from_setup(&fen, false).unwrap();
        assert_eq!(classify(&start, &[]), None);
    }
}
