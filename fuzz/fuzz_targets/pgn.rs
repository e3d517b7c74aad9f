//! The PGN reader on arbitrary bytes: split, parse, replay in lenient SAN (the pipeline's
//! per-game work), write clean PGN of accepted games and read it back, and write the
//! rejected games as the quarantine does and read that back. No panic, no hang; every game
//! is a piece of the input; the quarantine reads back as exactly the rejected games.
#![no_main]

use arbiter::chess::SanMode;
use arbiter::pgn::{WriteOptions, game_to_string, parse_game, split_bytes};
use arbiter::pipeline::sinks::write_quarantined;
use arbiter::pipeline::work::{Keep, WorkOptions, process};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let options = WorkOptions {
        mode: SanMode::Lenient,
        laws: None,
        analysis: None,
    };
    let (raws, _trailing) = split_bytes(data);
    let mut quarantine = Vec::new();
    let mut rejected = 0;
    for raw in raws {
        let start = raw.byte_offset as usize;
        assert!(start + raw.bytes.len() <= data.len());
        let game = parse_game(&raw);
        if !game.is_rejected() {
            // Clean PGN written from a game the reader accepts reads back as one game.
            let text = game_to_string(&game, &WriteOptions::default());
            let (again, _) = split_bytes(text.as_bytes());
            assert_eq!(again.len(), 1, "{text}");
        }
        let p = process(raw, &options, Keep::Findings);
        if p.rejected {
            rejected += 1;
            write_quarantined(&mut quarantine, &p.raw).unwrap();
        }
    }
    let (again, _) = split_bytes(&quarantine);
    assert_eq!(again.len(), rejected, "the quarantine reads back as its games");
});
