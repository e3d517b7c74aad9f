//! Measures what a position index would hold on a PGN collection (docs/POSITIONS.md):
//! keys per game, distinct keys, positions shared between games and up to which ply, and
//! what an inverted index up to a ply bound would cost.
//!     cat games/*.pgn | cargo run --profile ci --example positions_measure
use arbiter::chess::SanMode;
use arbiter::game::replay;
use arbiter::pgn::{parse_game, split_bytes};
use std::collections::HashMap;
use std::io::Read;

fn varint_len(mut v: u64) -> u64 {
    let mut n = 1;
    while v >= 128 {
        v >>= 7;
        n += 1;
    }
    n
}

fn main() {
    let mut bytes = Vec::new();
    std::io::stdin().read_to_end(&mut bytes).unwrap();
    let (raws, _) = split_bytes(&bytes);
    // key -> list of (game, first ply in that game)
    let mut postings: HashMap<u64, Vec<(u32, u16)>> = HashMap::new();
    let mut games = 0u32;
    let mut plies = 0u64;
    let mut keys_in_games = 0u64;
    for raw in raws {
        let game = parse_game(&raw);
        if game.is_rejected() {
            continue;
        }
        let r = replay(&game, SanMode::Lenient);
        if r.is_rejected() {
            continue;
        }
        let id = games;
        games += 1;
        plies += r.moves.len() as u64;
        let mut pos = r.start;
        let mut seen: HashMap<u64, u16> = HashMap::new();
        seen.entry(pos.repetition_key()).or_insert(0);
        for (i, &m) in r.moves.iter().enumerate() {
            pos.play_unchecked(m);
            seen.entry(pos.repetition_key()).or_insert(i as u16 + 1);
        }
        keys_in_games += seen.len() as u64;
        for (k, p) in seen {
            postings.entry(k).or_default().push((id, p));
        }
    }
    println!(
        "games {games}, plies {plies} ({:.1}/game), distinct keys within games {keys_in_games} ({:.1}/game), distinct keys {}",
        plies as f64 / games as f64,
        keys_in_games as f64 / games as f64,
        postings.len()
    );
    // Sharing.
    let mut shared_keys = 0u64;
    let mut shared_postings = 0u64;
    let mut deepest_shared = vec![0u16; games as usize];
    let mut shared_per_game = vec![0u32; games as usize];
    let mut by_ply_total = vec![0u64; 600];
    let mut by_ply_unique = vec![0u64; 600];
    let mut hist = [0u64; 8]; // 1, 2, 3-9, 10-99, 100-999, 1000+
    for list in postings.values() {
        let n = list.len();
        let b = match n {
            1 => 0,
            2 => 1,
            3..=9 => 2,
            10..=99 => 3,
            100..=999 => 4,
            _ => 5,
        };
        hist[b] += 1;
        for &(g, p) in list {
            let p = (p as usize).min(599);
            by_ply_total[p] += 1;
            if n == 1 {
                by_ply_unique[p] += 1;
            } else {
                deepest_shared[g as usize] = deepest_shared[g as usize].max(p as u16);
                shared_per_game[g as usize] += 1;
            }
        }
        if n >= 2 {
            shared_keys += 1;
            shared_postings += n as u64;
        }
    }
    println!(
        "keys by games holding them: 1: {}, 2: {}, 3-9: {}, 10-99: {}, 100-999: {}, 1000+: {}",
        hist[0], hist[1], hist[2], hist[3], hist[4], hist[5]
    );
    println!(
        "shared keys (>=2 games) {shared_keys}, their postings {shared_postings} ({:.1}/game)",
        shared_postings as f64 / games as f64
    );
    let mut d = deepest_shared.clone();
    d.sort();
    let q = |f: f64| d[((d.len() - 1) as f64 * f) as usize];
    println!(
        "deepest shared ply per game: median {}, p90 {}, p99 {}, max {}",
        q(0.5),
        q(0.9),
        q(0.99),
        q(1.0)
    );
    let mut s = shared_per_game.clone();
    s.sort();
    println!(
        "shared positions per game: median {}, mean {:.1}",
        s[s.len() / 2],
        s.iter().map(|&x| x as f64).sum::<f64>() / games as f64
    );
    println!("ply: positions, unique (first occurrence ply in its game)");
    for p in [
        0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 24, 30, 40, 60, 80, 100,
    ] {
        println!(
            "  {p:3}: {} {} ({:.1}% unique)",
            by_ply_total[p],
            by_ply_unique[p],
            100.0 * by_ply_unique[p] as f64 / by_ply_total[p].max(1) as f64
        );
    }
    // Index cost up to ply P: per key 8 bytes + ~4 bytes row overhead, postings delta varint.
    println!(
        "inverted index of every position first reached at ply <= P (all keys / shared keys only):"
    );
    for cap in [8u16, 12, 16, 20, 24, 30, 40, 60, 600] {
        let mut cost_all = 0u64;
        let mut cost_shared = 0u64;
        let mut keys_all = 0u64;
        for list in postings.values() {
            let mut ids: Vec<u32> = list
                .iter()
                .filter(|&&(_, p)| p <= cap)
                .map(|&(g, _)| g)
                .collect();
            if ids.is_empty() {
                continue;
            }
            ids.sort();
            let mut prev = 0u32;
            let mut c = 12u64;
            for g in &ids {
                c += varint_len((g - prev) as u64);
                prev = *g;
            }
            keys_all += 1;
            cost_all += c;
            if list.len() >= 2 {
                cost_shared += c;
            }
        }
        // arbiter's layout (docs/POSITIONS.md): 4-byte fingerprint, varint count, varint
        // game deltas, in 4,096 bucket rows of about 20 bytes of overhead each.
        let packed = cost_all - 12 * keys_all + 5 * keys_all + 4096 * 20;
        println!(
            "  P={cap:3}: keys {keys_all}, all {:.1} B/game, shared only {:.1} B/game, bucketed fingerprints {:.1} B/game",
            cost_all as f64 / games as f64,
            cost_shared as f64 / games as f64,
            packed as f64 / games as f64
        );
    }
}
