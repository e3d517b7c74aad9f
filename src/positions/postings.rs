//! The key index's rows from schema version 10 on (`position_postings`, docs/POSITIONS.md):
//! one bucket of keys for one range of games, bit-packed from the master games' figures
//! (82 % of the fingerprints hold one game; the few long lists hold most postings).
//!
//! A row: the number of entries `n` and the largest game offset `m` (from the range's first
//! game) as varints, then a bit stream (least significant bit first):
//! - the fingerprints (the key's 32 bits after the bucket's 12), sorted, in Elias–Fano form:
//!   each one's low `fp_low_bits(n)` bits, then its high part as gaps in unary (about 27
//!   bits a fingerprint at 90 a row, where 32 were stored);
//! - per entry, in fingerprint order: its number of games in Elias gamma (one bit for a
//!   single game), then its games: a single game as its offset in `width(m)` bits, two or
//!   more as an Elias–Fano list of offsets, or a bitmap of `m + 1` bits when that is
//!   smaller (the start position, 1.e4: a bit a game). Every list's length in bits follows
//!   from its count and `m`, so a look-up skips the lists before its entry without reading
//!   them.
//!
//! A stored row that does not decode (cut short, a count past its bits) yields the entries
//! it holds up to there and never panics.

use super::index::{BUCKET_BITS, bucket_of, get_varint, put_varint};

/// Bits of the low part of each fingerprint for `n` fingerprints (of 32 bits).
fn fp_low_bits(n: usize) -> u32 {
    low_bits(n as u64, 1 << 32)
}

/// The Elias–Fano split for `n` values below `universe`: the low part's bits.
fn low_bits(n: u64, universe: u64) -> u32 {
    if n == 0 || universe <= n {
        0
    } else {
        (universe / n).ilog2()
    }
}

/// Bits of an Elias–Fano list of `n` values below `universe`.
fn ef_bits(n: u64, universe: u64) -> u64 {
    if n == 0 {
        return 0;
    }
    let l = low_bits(n, universe);
    n * u64::from(l) + n + ((universe - 1) >> l)
}

/// Bits needed for offsets up to `m`.
fn width(m: u32) -> u32 {
    32 - m.leading_zeros()
}

/// How a list of `n` games of a row whose largest offset is `m` is stored, and its bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum List {
    Single(u32),
    EliasFano(u64),
    Bitmap(u64),
}

fn list_kind(n: u64, m: u32) -> List {
    let universe = u64::from(m) + 1;
    if n == 1 {
        return List::Single(width(m));
    }
    let ef = ef_bits(n, universe);
    if universe <= ef {
        List::Bitmap(universe)
    } else {
        List::EliasFano(ef)
    }
}

impl List {
    fn bits(self) -> u64 {
        match self {
            List::Single(w) => u64::from(w),
            List::EliasFano(b) | List::Bitmap(b) => b,
        }
    }
}

/// A bit stream written least significant bit first.
struct BitWriter {
    bytes: Vec<u8>,
    acc: u64,
    used: u32,
}

impl BitWriter {
    fn new(bytes: Vec<u8>) -> BitWriter {
        BitWriter {
            bytes,
            acc: 0,
            used: 0,
        }
    }

    /// The low `w` bits of `v` (w ≤ 32). The bits are kept in a word and written out 32 at
    /// a time (a byte at a time cost the import's rows a third more instructions).
    #[inline]
    fn put(&mut self, v: u64, w: u32) {
        debug_assert!(w <= 32);
        if w == 0 {
            return;
        }
        self.acc |= (v & ((1u64 << w) - 1)) << self.used;
        self.used += w;
        if self.used >= 32 {
            self.bytes
                .extend_from_slice(&(self.acc as u32).to_le_bytes());
            self.acc >>= 32;
            self.used -= 32;
        }
    }

    /// `k` zero bits then a one.
    fn unary(&mut self, mut k: u64) {
        while k >= 32 {
            self.put(0, 32);
            k -= 32;
        }
        self.put(1 << k, k as u32 + 1);
    }

    /// `n` ≥ 1 in Elias gamma: the number of bits below its top one in unary, then those
    /// bits.
    fn gamma(&mut self, n: u64) {
        let k = n.ilog2();
        self.unary(u64::from(k));
        self.put(n, k);
    }

    fn finish(mut self) -> Vec<u8> {
        let tail = self.used.div_ceil(8) as usize;
        self.bytes
            .extend_from_slice(&self.acc.to_le_bytes()[..tail]);
        self.bytes
    }
}

/// Reads a bit stream at any position; bits past its end read as zeros.
struct Bits<'a> {
    b: &'a [u8],
    len: u64,
}

impl<'a> Bits<'a> {
    fn new(b: &'a [u8]) -> Bits<'a> {
        Bits {
            b,
            len: b.len() as u64 * 8,
        }
    }

    /// The 64 bits from `pos` on (fewer past the end).
    #[inline]
    fn word(&self, pos: u64) -> u64 {
        let byte = (pos / 8) as usize;
        let shift = pos % 8;
        let mut raw = [0u8; 8];
        if byte + 8 <= self.b.len() {
            raw.copy_from_slice(&self.b[byte..byte + 8]);
        } else if byte < self.b.len() {
            raw[..self.b.len() - byte].copy_from_slice(&self.b[byte..]);
        }
        let lo = u64::from_le_bytes(raw) >> shift;
        if shift == 0 {
            return lo;
        }
        let next = self.b.get(byte + 8).copied().unwrap_or(0);
        lo | u64::from(next) << (64 - shift)
    }

    /// `w` ≤ 32 bits at `pos`.
    #[inline]
    fn get(&self, pos: u64, w: u32) -> u64 {
        if w == 0 {
            return 0;
        }
        self.word(pos) & ((1u64 << w) - 1)
    }

    /// A unary number at `*pos` (zeros before a one), None past the end.
    #[inline]
    fn unary(&self, pos: &mut u64) -> Option<u64> {
        let mut k = 0;
        loop {
            if *pos >= self.len {
                return None;
            }
            let w = self.word(*pos);
            if w != 0 {
                let z = u64::from(w.trailing_zeros());
                *pos += z + 1;
                return Some(k + z);
            }
            let step = 64.min(self.len - *pos);
            k += step;
            *pos += step;
        }
    }

    fn gamma(&self, pos: &mut u64) -> Option<u64> {
        let k = self.unary(pos)?;
        if k > 40 {
            return None;
        }
        let low = self.get(*pos, k as u32);
        *pos += k;
        Some(1 << k | low)
    }
}

/// Appends an Elias–Fano list of ascending `values` below `universe`.
fn put_ef(w: &mut BitWriter, values: impl Iterator<Item = u64> + Clone, n: u64, universe: u64) {
    if n == 0 {
        return;
    }
    let l = low_bits(n, universe);
    for v in values.clone() {
        w.put(v, l);
    }
    let mut prev = 0;
    for v in values {
        let hi = v >> l;
        w.unary(hi - prev);
        prev = hi;
    }
    // The high part is padded to its fixed length.
    let written = n + prev;
    let total = n + ((universe - 1) >> l);
    let mut pad = total - written;
    while pad > 0 {
        let k = pad.min(32) as u32;
        w.put(0, k);
        pad -= u64::from(k);
    }
}

/// Calls `each` with the values of the Elias–Fano list at `pos` (`n` values below
/// `universe`), ascending. The high part is read a word at a time (a list of 400,000 games
/// at 1M: every one's bit found by `trailing_zeros`).
fn each_ef(bits: &Bits, pos: u64, n: u64, universe: u64, mut each: impl FnMut(u64)) {
    let l = u64::from(low_bits(n, universe));
    let high = pos + n * l;
    each_one(bits, high, n + ((universe - 1) >> l), n, |i, p| {
        each((p - i) << l | bits.get(pos + i * l, l as u32));
    });
}

/// Calls `each(i, position)` for the first `n` one bits among the `len` bits at `pos`.
#[inline]
fn each_one(bits: &Bits, pos: u64, len: u64, n: u64, mut each: impl FnMut(u64, u64)) {
    let (mut i, mut base) = (0u64, 0u64);
    while i < n && base < len {
        let mut w = bits.word(pos + base);
        if len - base < 64 {
            w &= (1u64 << (len - base)) - 1;
        }
        while w != 0 && i < n {
            each(i, base + u64::from(w.trailing_zeros()));
            i += 1;
            w &= w - 1;
        }
        base += 64;
    }
}

/// Encodes one row: the fingerprints `fps` (ascending, distinct), the number of games of
/// each (`counts`, each ≥ 1) and all their game offsets one list after the other (`games`,
/// each list ascending and distinct).
pub fn encode(fps: &[u32], counts: &[u32], games: &[u32]) -> Vec<u8> {
    let n = fps.len();
    let m = games.iter().copied().max().unwrap_or(0);
    let mut head = Vec::new();
    put_varint(n as u64, &mut head);
    put_varint(u64::from(m), &mut head);
    let mut w = BitWriter::new(head);
    put_ef(&mut w, fps.iter().map(|&f| u64::from(f)), n as u64, 1 << 32);
    let mut at = 0;
    for &c in counts {
        let list = &games[at..at + c as usize];
        at += c as usize;
        w.gamma(u64::from(c));
        match list_kind(u64::from(c), m) {
            List::Single(width) => w.put(u64::from(list[0]), width),
            List::EliasFano(_) => put_ef(
                &mut w,
                list.iter().map(|&g| u64::from(g)),
                u64::from(c),
                u64::from(m) + 1,
            ),
            List::Bitmap(bits) => {
                let mut next = 0u64;
                for &g in list {
                    let g = u64::from(g);
                    w.unary(g - next);
                    next = g + 1;
                }
                let mut pad = bits - next;
                while pad > 0 {
                    let k = pad.min(32) as u32;
                    w.put(0, k);
                    pad -= u64::from(k);
                }
            }
        }
    }
    w.finish()
}

/// A row's header and where its parts start.
struct Row<'a> {
    bits: Bits<'a>,
    n: u64,
    m: u32,
    /// The width of the fingerprints' low bits, which start the row's bits.
    low: u32,
    /// Where the first entry's count starts.
    entries: u64,
}

impl<'a> Row<'a> {
    fn parse(blob: &'a [u8]) -> Option<Row<'a>> {
        let mut at = 0;
        let n = get_varint(blob, &mut at)?;
        let m = u32::try_from(get_varint(blob, &mut at)?).ok()?;
        let bits = Bits::new(&blob[at..]);
        // Each entry takes a bit at least in each part: a count past that is not a row.
        if n > bits.len {
            return None;
        }
        let low = fp_low_bits(n as usize);
        let entries = ef_bits(n, 1 << 32);
        if entries > bits.len {
            return None;
        }
        Some(Row {
            bits,
            n,
            m,
            low,
            entries,
        })
    }

    /// Calls `each(index, fingerprint)` in order until it returns false.
    fn each_fp(&self, mut each: impl FnMut(u64, u32) -> bool) {
        let mut high = self.n * u64::from(self.low);
        let mut hi = 0u64;
        for i in 0..self.n {
            let Some(gap) = self.bits.unary(&mut high) else {
                return;
            };
            hi += gap;
            let fp = hi << self.low | self.bits.get(i * u64::from(self.low), self.low);
            if !each(i, fp as u32) {
                return;
            }
        }
    }

    /// The index of fingerprint `fp`, if the row holds it.
    fn find(&self, fp: u32) -> Option<u64> {
        let want_hi = u64::from(fp) >> self.low;
        let want_lo = u64::from(fp) & ((1u64 << self.low) - 1);
        // Skip whole words of the high part while their zeros (one per high value passed)
        // stay below the one asked: a row of thousands of fingerprints is skipped by words.
        let mut pos = self.n * u64::from(self.low);
        let end = pos + self.n + ((u64::from(u32::MAX)) >> self.low);
        let (mut ones, mut zeros) = (0u64, 0u64);
        while pos + 64 <= end {
            let w = self.bits.word(pos);
            let z = u64::from(w.count_zeros());
            if zeros + z >= want_hi {
                break;
            }
            zeros += z;
            ones += u64::from(w.count_ones());
            pos += 64;
        }
        // Then bit by bit: entry `ones` has high part `zeros` at its one.
        while pos < end && ones < self.n {
            zeros += self.bits.unary(&mut pos)?;
            if zeros > want_hi {
                return None;
            }
            if zeros == want_hi {
                let lo = self.bits.get(ones * u64::from(self.low), self.low);
                if lo == want_lo {
                    return Some(ones);
                }
                if lo > want_lo {
                    return None;
                }
            }
            ones += 1;
        }
        None
    }

    /// Calls `each(index, list, where its games start, count)` for the entries up to
    /// `last` (inclusive), in order, until a count or list runs past the row's end.
    fn each_entry(&self, last: u64, mut each: impl FnMut(u64, List, u64, u64)) {
        let mut pos = self.entries;
        for i in 0..self.n.min(last.saturating_add(1)) {
            let Some(c) = self.bits.gamma(&mut pos) else {
                return;
            };
            let kind = list_kind(c, self.m);
            if pos + kind.bits() > self.bits.len {
                return;
            }
            each(i, kind, pos, c);
            pos += kind.bits();
        }
    }

    /// The `c` game offsets of a list stored as `kind` at `pos`, appended to `out`.
    fn list_games(&self, kind: List, pos: u64, c: u64, out: &mut Vec<u32>) {
        match kind {
            List::Single(w) => out.push(self.bits.get(pos, w) as u32),
            List::EliasFano(_) => {
                each_ef(&self.bits, pos, c, u64::from(self.m) + 1, |g| {
                    out.push(g as u32)
                });
            }
            List::Bitmap(bits) => each_one(&self.bits, pos, bits, c, |_, g| out.push(g as u32)),
        }
    }
}

/// The games under fingerprint `fp` in a row of the range from `first_game`, appended to
/// `out` (ascending).
pub fn row_games(first_game: u32, blob: &[u8], fp: u32, out: &mut Vec<u32>) {
    let Some(row) = Row::parse(blob) else {
        return;
    };
    let Some(i) = row.find(fp) else {
        return;
    };
    let at = out.len();
    row.each_entry(i, |k, kind, pos, c| {
        if k == i {
            row.list_games(kind, pos, c, out);
        }
    });
    for g in &mut out[at..] {
        *g = first_game.wrapping_add(*g);
    }
}

/// Every `(fingerprint, game)` of a row of the range from `first_game`, appended to `out`
/// in fingerprint order, then game order.
pub fn decode(first_game: u32, blob: &[u8], out: &mut Vec<(u32, u32)>) {
    let Some(row) = Row::parse(blob) else {
        return;
    };
    let mut fps = Vec::with_capacity(row.n as usize);
    row.each_fp(|_, f| {
        fps.push(f);
        true
    });
    let mut games = Vec::new();
    row.each_entry(u64::MAX, |i, kind, pos, c| {
        let Some(&f) = fps.get(i as usize) else {
            return;
        };
        games.clear();
        row.list_games(kind, pos, c, &mut games);
        out.extend(games.iter().map(|&g| (f, first_game.wrapping_add(g))));
    });
}

/// One row from `(fingerprint, game)` pairs of the range from `first_game` (any order,
/// repeats allowed).
pub fn encode_pairs(first_game: u32, pairs: &mut [(u32, u32)]) -> Vec<u8> {
    pairs.sort_unstable();
    let mut fps = Vec::new();
    let mut counts: Vec<u32> = Vec::new();
    let mut games = Vec::with_capacity(pairs.len());
    let mut last: Option<(u32, u32)> = None;
    for &(f, g) in pairs.iter() {
        if last == Some((f, g)) {
            continue;
        }
        if let (Some((lf, _)), Some(c)) = (last, counts.last_mut())
            && lf == f
        {
            *c += 1;
        } else {
            fps.push(f);
            counts.push(1);
        }
        games.push(g - first_game);
        last = Some((f, g));
    }
    encode(&fps, &counts, &games)
}

/// Groups games' keys (ascending game ids from `first_game`, each game's keys) into rows:
/// bucket → encoded row.
pub fn build_rows(first_game: u32, games: &[(u32, &[u64])]) -> Vec<(u32, Vec<u8>)> {
    // Each (bucket, fingerprint, game offset) packed in a u64 and sorted as plain integers
    // (the offset in 20 bits: an import's rows cover 65,536 games); a wider range sorts
    // (key, offset) pairs.
    let span = games.last().map_or(0, |&(g, _)| g - first_game);
    let fp_shift = 64 - BUCKET_BITS - 32;
    let mut rows = Vec::new();
    let (mut fps, mut counts, mut offs) = (Vec::new(), Vec::new(), Vec::new());
    if span < 1 << 20 {
        let mut packed: Vec<u64> = Vec::with_capacity(games.iter().map(|(_, k)| k.len()).sum());
        for &(g, keys) in games {
            let off = u64::from(g - first_game);
            packed.extend(keys.iter().map(|&k| (k >> fp_shift) << 20 | off));
        }
        packed.sort_unstable();
        let mut current = None;
        for p in packed {
            let bucket = (p >> 52) as u32;
            if current.is_some_and(|b| b != bucket) {
                close(&mut current, &mut fps, &mut counts, &mut offs, &mut rows);
            }
            current = Some(bucket);
            push(
                &mut fps,
                &mut counts,
                &mut offs,
                (p >> 20) as u32,
                (p & 0xF_FFFF) as u32,
            );
        }
        close(&mut current, &mut fps, &mut counts, &mut offs, &mut rows);
    } else {
        let mut pairs: Vec<(u64, u32)> = Vec::new();
        for &(g, keys) in games {
            for &k in keys {
                let (b, f) = bucket_of(k);
                pairs.push((u64::from(b) << 32 | u64::from(f), g - first_game));
            }
        }
        pairs.sort_unstable();
        let mut current = None;
        for (key, off) in pairs {
            let bucket = (key >> 32) as u32;
            if current.is_some_and(|b| b != bucket) {
                close(&mut current, &mut fps, &mut counts, &mut offs, &mut rows);
            }
            current = Some(bucket);
            push(&mut fps, &mut counts, &mut offs, key as u32, off);
        }
        close(&mut current, &mut fps, &mut counts, &mut offs, &mut rows);
    }
    rows
}

/// Adds a (fingerprint, offset) pair, in sorted order, to the row being built.
fn push(fps: &mut Vec<u32>, counts: &mut Vec<u32>, offs: &mut Vec<u32>, fp: u32, off: u32) {
    if fps.last() == Some(&fp) {
        if offs.last() != Some(&off) {
            if let Some(c) = counts.last_mut() {
                *c += 1;
            }
            offs.push(off);
        }
    } else {
        fps.push(fp);
        counts.push(1);
        offs.push(off);
    }
}

/// Encodes the row being built for bucket `current`, if any, and empties it.
fn close(
    current: &mut Option<u32>,
    fps: &mut Vec<u32>,
    counts: &mut Vec<u32>,
    offs: &mut Vec<u32>,
    rows: &mut Vec<(u32, Vec<u8>)>,
) {
    if let Some(b) = current.take() {
        rows.push((b, encode(fps, counts, offs)));
    }
    fps.clear();
    counts.clear();
    offs.clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Encodes `entries` (fingerprint, games) and checks that every fingerprint finds its
    /// games, absent ones find none, and the whole row decodes to the same pairs.
    fn round_trip(first: u32, entries: &[(u32, Vec<u32>)]) -> Vec<u8> {
        let fps: Vec<u32> = entries.iter().map(|e| e.0).collect();
        let counts: Vec<u32> = entries.iter().map(|e| e.1.len() as u32).collect();
        let games: Vec<u32> = entries
            .iter()
            .flat_map(|e| e.1.iter().map(|g| g - first))
            .collect();
        let blob = encode(&fps, &counts, &games);
        // Every fingerprint of a small row, a sample of a large one's (each look-up walks
        // the entries before its own).
        let step = (entries.len() / 500).max(1);
        for (f, gs) in entries.iter().step_by(step).chain(entries.last()) {
            let mut out = Vec::new();
            row_games(first, &blob, *f, &mut out);
            assert_eq!(&out, gs, "fingerprint {f:#x}");
        }
        let mut all = Vec::new();
        decode(first, &blob, &mut all);
        let want: Vec<(u32, u32)> = entries
            .iter()
            .flat_map(|(f, gs)| gs.iter().map(move |&g| (*f, g)))
            .collect();
        assert_eq!(all, want);
        let mut again = all.clone();
        assert_eq!(encode_pairs(first, &mut again), blob);
        blob
    }

    fn absent(first: u32, blob: &[u8], fp: u32) -> bool {
        let mut out = Vec::new();
        row_games(first, blob, fp, &mut out);
        out.is_empty()
    }

    /// A pseudo-random sequence (the one generator's step) for hand-made rows.
    fn mix(i: u64) -> u64 {
        crate::rng::step(i).1
    }

    #[test]
    fn an_empty_row_holds_nothing() {
        let blob = round_trip(5, &[]);
        assert_eq!(blob, [0, 0]);
        assert!(absent(5, &blob, 0) && absent(5, &blob, u32::MAX));
    }

    #[test]
    fn singletons_take_the_width_of_the_largest_offset() {
        // 90 single games in a range of 42,461 (the master games' row): 16 bits a game.
        let first = 1000;
        let mut entries: Vec<(u32, Vec<u32>)> = (0..90u64)
            .map(|i| (mix(i) as u32, vec![first + (mix(i + 1000) % 42_461) as u32]))
            .collect();
        entries.push((u32::MAX, vec![first + 42_460]));
        entries.push((0, vec![first]));
        entries.sort();
        entries.dedup_by_key(|e| e.0);
        let blob = round_trip(first, &entries);
        // Fingerprints (Elias–Fano, ~27.5 bits), a count bit and 16 bits each.
        let per = (blob.len() * 8) as f64 / entries.len() as f64;
        assert!((43.0..46.0).contains(&per), "{per} bits an entry");
        assert!(absent(first, &blob, 1) && absent(first, &blob, u32::MAX - 1));
        for i in 0..2000u64 {
            let f = mix(i + 77) as u32;
            if entries.binary_search_by_key(&f, |e| e.0).is_err() {
                assert!(absent(first, &blob, f));
            }
        }
    }

    #[test]
    fn dense_lists_are_bitmaps_and_sparse_ones_elias_fano() {
        let first = 0;
        let all: Vec<u32> = (0..5000).collect();
        let odd: Vec<u32> = (0..5000).filter(|g| g % 2 == 1).collect();
        let few: Vec<u32> = vec![3, 700, 701, 4999];
        let entries = vec![(7, all), (8, few), (1 << 31, odd), (u32::MAX, vec![17])];
        let blob = round_trip(first, &entries);
        // The start position's list: a bit a game, not a byte.
        assert!(
            blob.len() < 5000 / 8 + 2500 / 4 + 64,
            "{} bytes",
            blob.len()
        );
        assert_eq!(list_kind(5000, 4999), List::Bitmap(5000));
        assert!(matches!(list_kind(4, 4999), List::EliasFano(_)));
        assert_eq!(list_kind(1, 4999), List::Single(13));
    }

    #[test]
    fn ranges_wider_than_2_to_16_and_2_to_20_ids() {
        for span in [
            (1u32 << 16) + 3,
            (1 << 20) + 5,
            (1 << 24) + 1,
            u32::MAX - 10,
        ] {
            let first = 10;
            let last = first + span;
            let entries: Vec<(u32, Vec<u32>)> = (0..300u64)
                .map(|i| {
                    let n = 1 + (mix(i) % 5) as usize;
                    let mut gs: Vec<u32> = (0..n)
                        .map(|k| first + (mix(i * 8 + k as u64) % u64::from(span)) as u32)
                        .collect();
                    if i == 0 {
                        gs.push(last);
                    }
                    gs.sort_unstable();
                    gs.dedup();
                    ((mix(i + 5000) as u32) & !0xF | (i as u32 % 16), gs)
                })
                .collect::<std::collections::BTreeMap<_, _>>()
                .into_iter()
                .collect();
            round_trip(first, &entries);
        }
    }

    #[test]
    fn many_fingerprints_in_one_row_are_found_by_words() {
        // A bucket at 10M games: tens of thousands of fingerprints.
        let mut entries: Vec<(u32, Vec<u32>)> = (0..40_000u64)
            .map(|i| (mix(i) as u32, vec![(mix(i + 1) % 9_000_000) as u32]))
            .collect();
        entries.sort();
        entries.dedup_by_key(|e| e.0);
        entries[100].1 = vec![1, 2, 3, 8_999_999];
        round_trip(0, &entries);
    }

    #[test]
    fn a_cut_or_corrupt_row_yields_what_it_holds_and_never_panics() {
        let entries: Vec<(u32, Vec<u32>)> =
            (0..50u32).map(|i| (i * 1000, vec![i, i + 60])).collect();
        let blob = round_trip(0, &entries);
        for cut in 0..blob.len() {
            let mut out = Vec::new();
            decode(0, &blob[..cut], &mut out);
            assert!(out.len() <= 100);
            let mut g = Vec::new();
            row_games(0, &blob[..cut], 49_000, &mut g);
        }
        let mut bad = blob.clone();
        bad[0] = 0xFF;
        bad[1] = 0x7F;
        let mut out = Vec::new();
        decode(0, &bad, &mut out);
        assert!(out.is_empty());
        for i in 2..bad.len() {
            let mut flipped = blob.clone();
            flipped[i] ^= 0xA5;
            let mut out = Vec::new();
            decode(0, &flipped, &mut out);
            row_games(0, &flipped, 7000, &mut Vec::new());
        }
    }

    /// The import's rows (packed sort, or pairs for a range past 2^20 ids) hold the pairs
    /// of the old layout's rows, bucket by bucket, and find each key's games.
    #[test]
    fn built_rows_hold_what_the_old_rows_held() {
        use crate::positions::index::{build_buckets, decode_bucket};
        let a: Vec<u64> = (0..400u64).map(mix).collect();
        let b: Vec<u64> = a.iter().step_by(3).copied().chain([7, 1 << 63]).collect();
        for last in [5000u32, 100 + (1 << 20) + 7] {
            let games = [(100, &a[..]), (101, &b[..]), (last, &a[..10])];
            let old = build_buckets(100, &games);
            let new = build_rows(100, &games);
            assert_eq!(
                old.iter().map(|r| r.0).collect::<Vec<_>>(),
                new.iter().map(|r| r.0).collect::<Vec<_>>()
            );
            for ((_, o), (_, n)) in old.iter().zip(&new) {
                let (mut po, mut pn) = (Vec::new(), Vec::new());
                decode_bucket(100, o, &mut po);
                decode(100, n, &mut pn);
                po.sort_unstable();
                assert_eq!(po, pn);
            }
            for &k in &a[..10] {
                let (bucket, fp) = bucket_of(k);
                let row = &new.iter().find(|r| r.0 == bucket).unwrap().1;
                let mut out = Vec::new();
                row_games(100, row, fp, &mut out);
                let want: Vec<u32> = if b.contains(&k) {
                    vec![100, 101, last]
                } else {
                    vec![100, last]
                };
                assert_eq!(out, want);
            }
        }
    }
}
