//! The transposition table: buckets of four 16-byte entries, one cache line each, sized in MB.
//! Replacement is deterministic (same key, else the shallowest or oldest entry), so the same
//! sequence of searches always leaves the same table.

use crate::chess::Move;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The score is exact.
    Exact,
    /// The score is at least this (a beta cutoff).
    Lower,
    /// The score is at most this (no move raised alpha).
    Upper,
}

/// One stored search result.
#[derive(Clone, Copy, Default)]
#[repr(C)]
struct Entry {
    key: u64,
    mv: u16,
    score: i16,
    eval: i16,
    depth: u8,
    /// Bits 0–1 the bound (0 = empty), bits 2–7 the generation.
    flags: u8,
}

const BUCKET: usize = 4;

#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Bucket([Entry; BUCKET]);

/// What a probe found.
#[derive(Clone, Copy, Debug)]
pub struct Hit {
    pub mv: Move,
    /// Relative to the node (see `score::from_tt`).
    pub score: i32,
    pub eval: i32,
    pub depth: i32,
    pub bound: Bound,
}

pub struct TranspositionTable {
    buckets: Vec<Bucket>,
    generation: u8,
}

impl TranspositionTable {
    /// A table of about `mb` megabytes (at least one bucket).
    pub fn new(mb: usize) -> TranspositionTable {
        let n = (mb.max(1) * 1024 * 1024 / std::mem::size_of::<Bucket>()).max(1);
        TranspositionTable {
            buckets: vec![Bucket::default(); n],
            generation: 0,
        }
    }

    /// A table of exactly `n` buckets (at least one): small tables for short searches that
    /// clear it every time.
    pub fn with_buckets(n: usize) -> TranspositionTable {
        TranspositionTable {
            buckets: vec![Bucket::default(); n.max(1)],
            generation: 0,
        }
    }

    pub fn clear(&mut self) {
        self.buckets.fill(Bucket::default());
        self.generation = 0;
    }

    /// Marks the start of a new search, so entries from older ones are replaced first.
    pub fn new_search(&mut self) {
        self.generation = (self.generation + 1) & 63;
    }

    #[inline]
    fn index(&self, key: u64) -> usize {
        // Multiply-high maps the key onto any table size without a modulo.
        ((key as u128 * self.buckets.len() as u128) >> 64) as usize
    }

    #[inline]
    pub fn probe(&self, key: u64) -> Option<Hit> {
        let bucket = &self.buckets[self.index(key)];
        bucket
            .0
            .iter()
            .find(|e| e.key == key && e.flags & 3 != 0)
            .map(|e| Hit {
                mv: Move::from_u16(e.mv),
                score: e.score as i32,
                eval: e.eval as i32,
                depth: e.depth as i32,
                bound: match e.flags & 3 {
                    1 => Bound::Exact,
                    2 => Bound::Lower,
                    _ => Bound::Upper,
                },
            })
    }

    /// Stores a result; `score` must already be node-relative.
    #[inline]
    pub fn store(&mut self, key: u64, mv: Move, score: i32, eval: i32, depth: i32, bound: Bound) {
        let generation = self.generation;
        let idx = self.index(key);
        let bucket = &mut self.buckets[idx].0;
        let age = |e: &Entry| (generation.wrapping_sub(e.flags >> 2) & 63) as i32;
        let slot = match bucket.iter().position(|e| e.key == key) {
            Some(i) => i,
            // Otherwise the least valuable: empty first, then old and shallow.
            None => (0..BUCKET)
                .min_by_key(|&i| {
                    let e = &bucket[i];
                    if e.flags & 3 == 0 {
                        i32::MIN
                    } else {
                        e.depth as i32 - 8 * age(e)
                    }
                })
                .unwrap_or(0),
        };
        let e = &mut bucket[slot];
        // Keep a deeper result for the same position unless this one is exact; keep its move
        // if this search found none.
        if e.key == key && e.flags & 3 != 0 && bound != Bound::Exact && depth + 2 < e.depth as i32 {
            return;
        }
        let mv = if mv == Move::NONE && e.key == key {
            Move::from_u16(e.mv)
        } else {
            mv
        };
        *e = Entry {
            key,
            mv: mv.to_u16(),
            score: score.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
            eval: eval.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
            depth: depth.clamp(0, 255) as u8,
            flags: (generation << 2)
                | match bound {
                    Bound::Exact => 1,
                    Bound::Lower => 2,
                    Bound::Upper => 3,
                },
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Square;

    #[test]
    fn entries_are_sixteen_bytes_and_buckets_a_cache_line() {
        assert_eq!(std::mem::size_of::<Entry>(), 16);
        assert_eq!(std::mem::size_of::<Bucket>(), 64);
    }

    #[test]
    fn store_then_probe() {
        let mut tt = TranspositionTable::new(1);
        let m = Move::normal(Square::E1, Square::F1);
        tt.store(0xdead_beef, m, -42, 17, 5, Bound::Lower);
        let hit = tt.probe(0xdead_beef).unwrap();
        assert_eq!(
            (hit.mv, hit.score, hit.eval, hit.depth, hit.bound),
            (m, -42, 17, 5, Bound::Lower)
        );
        assert!(tt.probe(0xbeef).is_none());
        tt.clear();
        assert!(tt.probe(0xdead_beef).is_none());
    }

    #[test]
    fn a_shallow_bound_does_not_evict_a_deep_result() {
        let mut tt = TranspositionTable::new(1);
        let m = Move::normal(Square::E1, Square::F1);
        tt.store(7, m, 10, 0, 12, Bound::Exact);
        tt.store(7, Move::NONE, 99, 0, 1, Bound::Upper);
        let hit = tt.probe(7).unwrap();
        assert_eq!((hit.score, hit.depth, hit.mv), (10, 12, m));
    }
}
