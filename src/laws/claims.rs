//! Draw claims: the first point where a threefold repetition (2017 Art. 9.2) or the
//! fifty-move rule (9.3) could be claimed, both ways the Laws allow: the position or the
//! count is already there (9.2.1.2, 9.3.2), or the player to move writes down a move that
//! would produce it (9.2.1.1, 9.3.1). Sameness of positions is 9.2.2's, via
//! `Position::repetition_key`.

use super::edition::Edition;
use crate::chess::zobrist::BuildKeyHasher;
use crate::chess::{Color, Move, MoveList, Position, Role};
use std::collections::HashMap;

/// How a claim could be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimWay {
    /// The position has just appeared for the third time / the fifty moves are complete.
    Present,
    /// The player to move writes down this move, which would complete it.
    IntendedMove(Move),
}

/// A claim available at `ply` (to the player to move after `ply` half-moves).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Claim {
    pub ply: u32,
    pub way: ClaimWay,
}

/// Occurrences of positions since the last irreversible move (a pawn move or capture:
/// no earlier position can come back after one), by `Position::repetition_key`.
///
/// Stretches between irreversible moves are short in real games (a few dozen plies), so
/// the keys are kept in a plain list scanned linearly, which costs less than hashing
/// them; a stretch longer than `LINEAR_LIMIT` moves its counts into a hash map.
#[derive(Debug)]
pub struct Occurrences {
    /// The stretch's keys in order of play, while it is short: `keys[..len]`.
    keys: [u64; LINEAR_LIMIT],
    len: usize,
    /// Counts by key once the stretch is long (then `keys` is empty).
    counts: HashMap<u64, u32, BuildKeyHasher>,
    /// Keys seen at least twice: only these can a written move make occur a third time.
    twice: Vec<u64>,
}

/// Longest stretch kept as a list.
const LINEAR_LIMIT: usize = 96;

impl Default for Occurrences {
    fn default() -> Occurrences {
        Occurrences {
            keys: [0; LINEAR_LIMIT],
            len: 0,
            counts: HashMap::default(),
            twice: Vec::new(),
        }
    }
}

impl Occurrences {
    /// The short stretch's keys.
    fn keys(&self) -> &[u64] {
        &self.keys[..self.len]
    }

    pub fn clear(&mut self) {
        self.len = 0;
        self.counts.clear();
        self.twice.clear();
    }

    /// Records one occurrence and returns how many there have been.
    pub fn record(&mut self, key: u64) -> u32 {
        let n = if self.counts.is_empty() {
            let n = self.keys().iter().filter(|&&k| k == key).count() as u32 + 1;
            if self.len < LINEAR_LIMIT {
                self.keys[self.len] = key;
                self.len += 1;
            } else {
                for &k in &self.keys {
                    *self.counts.entry(k).or_insert(0) += 1;
                }
                self.len = 0;
                self.counts.insert(key, n);
            }
            n
        } else {
            let n = self.counts.entry(key).or_insert(0);
            *n += 1;
            *n
        };
        if n == 2 {
            self.twice.push(key);
        }
        n
    }

    /// How many times `key` has been recorded since the last `clear`.
    pub fn count(&self, key: u64) -> u32 {
        if self.counts.is_empty() {
            self.keys().iter().filter(|&&k| k == key).count() as u32
        } else {
            self.counts.get(&key).copied().unwrap_or(0)
        }
    }

    /// Is a threefold claim available in `pos`, which has already been recorded
    /// (`occurrences` times, as `record` said: looking it up again is a wasted probe)?
    #[inline]
    pub fn threefold(&self, pos: &Position, occurrences: u32) -> Option<ClaimWay> {
        if occurrences >= 3 {
            return Some(ClaimWay::Present);
        }
        if self.twice.is_empty() {
            return None;
        }
        self.intended_threefold(pos)
    }

    /// 9.2.1.1: the first legal move (in generation order) that would make a position
    /// already seen twice occur a third time.
    #[inline(never)]
    fn intended_threefold(&self, pos: &Position) -> Option<ClaimWay> {
        let mut list = MoveList::new();
        pos.generate_legal(&mut list);
        list.iter().copied().find_map(|m| {
            if pos.is_zeroing(m) {
                return None;
            }
            let mut child = *pos;
            child.play_unchecked(m);
            self.twice
                .contains(&child.repetition_key())
                .then_some(ClaimWay::IntendedMove(m))
        })
    }
}

/// Half-moves without pawn move or capture needed for a fifty-move claim in `pos`.
/// 1980 Art. 12.4 extends it to 100 moves for K+2N v K+P when the pawn is safely blocked
/// by a knight and not further advanced than the listed squares.
pub fn fifty_move_limit(pos: &Position, edition: Edition) -> u32 {
    if edition == Edition::Fide1980 && knights_v_pawn_extension(pos) {
        200
    } else {
        100
    }
}

fn knights_v_pawn_extension(pos: &Position) -> bool {
    for strong in Color::ALL {
        let weak = strong.other();
        let only = |c: Color, role: Role, n: u32| {
            pos.pieces(c, role).count() == n && (pos.by_color(c).count() == n + 1)
        };
        if !(only(strong, Role::Knight, 2) && only(weak, Role::Pawn, 1)) {
            continue;
        }
        let Some(pawn) = pos.pieces(weak, Role::Pawn).first() else {
            continue;
        };
        let ahead = match weak {
            Color::White => pawn.offset(8),
            Color::Black => pawn.offset(-8),
        };
        let blocked = ahead.is_some_and(|sq| pos.pieces(strong, Role::Knight).contains(sq));
        // Art. 12.4(b): the furthest squares allowed, by file, from White's side.
        const WHITE_LIMIT: [u8; 8] = [5, 3, 4, 5, 5, 4, 3, 5];
        const BLACK_LIMIT: [u8; 8] = [4, 6, 5, 4, 4, 5, 6, 4];
        let file = pawn.file().0 as usize;
        let rank = pawn.rank().0 + 1;
        let not_too_far = match weak {
            Color::White => rank <= WHITE_LIMIT[file],
            Color::Black => rank >= BLACK_LIMIT[file],
        };
        if blocked && not_too_far {
            return true;
        }
    }
    false
}

/// Is a fifty-move claim available in `pos`? The written-move form exists from 2001
/// (2001 Art. 9.3(a)); the older texts only let a player show the moves already made.
pub fn fifty(pos: &Position, edition: Edition) -> Option<ClaimWay> {
    let clock = pos.halfmove_clock();
    // Every limit is at least 100 half-moves: most plies are done here.
    if clock + 1 < 100 {
        return None;
    }
    let limit = fifty_move_limit(pos, edition);
    if clock >= limit {
        return Some(ClaimWay::Present);
    }
    if edition >= Edition::Fide2001 && clock + 1 == limit {
        let mut list = MoveList::new();
        pos.generate_legal(&mut list);
        return list
            .iter()
            .copied()
            .find(|&m| !pos.is_zeroing(m))
            .map(ClaimWay::IntendedMove);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Square;

    fn sq(s: &str) -> Square {
        Square::parse(s).unwrap()
    }

    #[test]
    fn occurrences_count_alike_in_short_and_long_stretches() {
        let mut seen = Occurrences::default();
        // A long stretch: keys cycle through 7 values, so the list overflows into the map.
        let mut expected = [0u32; 7];
        for i in 0..(3 * LINEAR_LIMIT) {
            let key = (i % 7) as u64 * 0x9e37_79b9_7f4a_7c15 + 1;
            expected[i % 7] += 1;
            assert_eq!(seen.record(key), expected[i % 7], "record #{i}");
            assert_eq!(seen.count(key), expected[i % 7]);
        }
        assert_eq!(seen.count(12345), 0);
        assert_eq!(seen.twice.len(), 7);
        seen.clear();
        assert_eq!(seen.count(1), 0);
        assert!(seen.twice.is_empty());
        // A short one after the clear.
        assert_eq!(seen.record(5), 1);
        assert_eq!(seen.record(6), 1);
        assert_eq!(seen.record(5), 2);
        assert_eq!(seen.twice, vec![5]);
        assert_eq!(seen.record(5), 3);
        assert_eq!(seen.count(5), 3);
        assert_eq!(seen.count(6), 1);
    }

    #[test]
    fn knights_against_pawn_extension_follows_art_12_4() {
        // Black pawn on d4 blocked by a white knight on d3: allowed (not beyond d4).
        let p = Position::from_fen("8/8/8/8/3p4/3N4/k7/2K1N3 w - - 0 1").unwrap();
        assert_eq!(p.piece_at(sq("d3")).map(|p| p.role), Some(Role::Knight));
        assert_eq!(fifty_move_limit(&p, Edition::Fide1980), 200);
        assert_eq!(fifty_move_limit(&p, Edition::Fide1997), 100);
        // Pawn on d3 is further advanced than d4: no extension.
        let p = Position::from_fen("8/8/8/8/8/3p4/k2N4/2K1N3 w - - 0 1").unwrap();
        assert_eq!(fifty_move_limit(&p, Edition::Fide1980), 100);
        // Not blocked by a knight.
        let p = Position::from_fen("8/8/8/8/3p4/8/k2N4/2K1N3 w - - 0 1").unwrap();
        assert_eq!(fifty_move_limit(&p, Edition::Fide1980), 100);
    }
}
