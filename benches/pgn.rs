//! Bench: split and parse the master games of `$ARBITER_CORPUS/games/otb-pgnmentor/`
//! (31 MB) from memory, reporting throughput in bytes; skipped when the variable is unset.
//! Games per second: divide the reported time by the game count printed at start. The
//! `replay` bench replays the pre-parsed games (lenient SAN, as `check` does by default);
//! nanoseconds per ply: divide its time by the ply count printed at start.

use std::hint::black_box;
use std::path::PathBuf;

use arbiter::chess::SanMode;
use arbiter::game::replay;
use arbiter::pgn::{self, Splitter};

mod harness;
use harness::Throughput;

fn master_games() -> Option<Vec<u8>> {
    let dir = PathBuf::from(std::env::var_os("ARBITER_CORPUS")?).join("games/otb-pgnmentor");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .collect();
    files.sort();
    let mut all = Vec::new();
    for f in files {
        all.extend(std::fs::read(f).ok()?);
        all.push(b'\n');
    }
    Some(all)
}

fn main() {
    let Some(data) = master_games() else {
        println!("ARBITER_CORPUS not set: skipping the PGN bench");
        return;
    };
    let games = Splitter::new(&data[..]).count();
    println!("otb-pgnmentor: {} bytes, {games} games", data.len());
    let group = harness::group("pgn")
        .throughput(Throughput::Bytes(data.len() as u64))
        .runs(20);
    group.bench("split", || {
        Splitter::new(black_box(&data[..]))
            .map(|g| g.map_or(0, |g| g.bytes.len()))
            .sum::<usize>()
    });
    group.bench("split+parse", || {
        let mut plies = 0;
        for raw in Splitter::new(black_box(&data[..])).flatten() {
            plies += pgn::parse_game(&raw).plies();
        }
        plies
    });

    let parsed: Vec<pgn::Game> = Splitter::new(&data[..])
        .flatten()
        .map(|raw| pgn::parse_game(&raw))
        .collect();
    let plies: usize = parsed.iter().map(|g| g.plies()).sum();
    println!("otb-pgnmentor: {plies} plies");
    harness::group("replay")
        .throughput(Throughput::Elements(plies as u64))
        .runs(20)
        .bench("lenient", || {
            parsed
                .iter()
                .map(|g| replay(black_box(g), SanMode::Lenient).plies())
                .sum::<usize>()
        });
}
