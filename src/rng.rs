//! The one small seeded generator (SplitMix64): the same seed gives the same numbers on every
//! machine, with no dependency. The Zobrist keys (made at compile time by `step`), the pool
//! ratings' bootstrap, `bench synth`'s collections and the tuner's data sets and openings all
//! draw from it.

/// One step of SplitMix64 from `state`: the next state and the number drawn (a `const fn`,
/// so tables can be made at compile time).
pub const fn step(state: u64) -> (u64, u64) {
    let next = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = next;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (next, z ^ (z >> 31))
}

#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// A generator for item `index` of a stream seeded by `seed`: items can be drawn in any
    /// order or on any thread and still get the same numbers.
    pub fn for_item(seed: u64, index: u64) -> Rng {
        let mut r = Rng(seed ^ index.wrapping_mul(0xA24B_AED4_963E_E407));
        r.next_u64();
        r
    }

    pub fn next_u64(&mut self) -> u64 {
        let (state, drawn) = step(self.0);
        self.0 = state;
        drawn
    }

    /// Uniform in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() as u128 * n as u128) >> 64) as usize
    }

    /// Shuffles `items` (Fisher–Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_numbers() {
        let a: Vec<u64> = (0..4).map(|_| Rng::new(7).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        let mut r = Rng::new(7);
        let (x, y) = (r.next_u64(), r.next_u64());
        assert_ne!(x, y);
        assert_ne!(
            Rng::for_item(1, 2).next_u64(),
            Rng::for_item(1, 3).next_u64()
        );
        let mut r = Rng::new(3);
        assert!((0..1000).all(|_| r.below(10) < 10));
        // SplitMix64's published first output from seed 0 (state 0x9E3779B97F4A7C15).
        assert_eq!(Rng::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
    }
}
