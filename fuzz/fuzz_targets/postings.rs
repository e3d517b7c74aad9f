//! The key index's bit-packed rows (`positions::postings`): any bytes read as a row give
//! up or yield entries without a panic or a hang; rows built from arbitrary pairs read
//! back as exactly those pairs, sorted and without repeats, and each fingerprint's games
//! are found by a look-up.
#![no_main]

use arbiter::positions::postings::{decode, encode_pairs, row_games};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((head, rest)) = data.split_first_chunk::<4>() else {
        return;
    };
    let first_game = u32::from_le_bytes(*head) >> 8;
    // Any bytes as a row.
    let mut out = Vec::new();
    decode(first_game, rest, &mut out);
    let mut games = Vec::new();
    for &(fp, _) in out.iter().take(8) {
        row_games(first_game, rest, fp, &mut games);
    }
    // A row built from pairs: a fingerprint (few distinct ones, so lists form) and an
    // offset in the range, from each 3 bytes.
    let mut pairs: Vec<(u32, u32)> = rest
        .chunks_exact(3)
        .map(|c| {
            let fp = u32::from(c[0] & 0x1f).wrapping_mul(0x9e37_79b9);
            (fp, first_game + u32::from(u16::from_le_bytes([c[1], c[2]])))
        })
        .collect();
    let row = encode_pairs(first_game, &mut pairs);
    let mut expected = pairs.clone();
    expected.sort_unstable();
    expected.dedup();
    let mut read = Vec::new();
    decode(first_game, &row, &mut read);
    assert_eq!(read, expected);
    let mut fps: Vec<u32> = expected.iter().map(|&(f, _)| f).collect();
    fps.dedup();
    for fp in fps {
        let mut found = Vec::new();
        row_games(first_game, &row, fp, &mut found);
        let want: Vec<u32> = expected.iter().filter(|p| p.0 == fp).map(|p| p.1).collect();
        assert_eq!(found, want);
    }
});
