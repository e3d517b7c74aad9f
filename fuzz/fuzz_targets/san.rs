//! SAN on arbitrary text, strict and lenient, from the start position and from a middlegame
//! with castling, promotion and en passant available. No panic; a resolved move is legal.
#![no_main]

use arbiter::chess::san::{parse_strict, resolve, to_san};
use arbiter::chess::{Position, SanMode};
use libfuzzer_sys::fuzz_target;

const FENS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/pPpp1ppp/8/3Pp3/8/8/P1PP1PpP/R3K2R w KQkq e6 0 10",
];

fuzz_target!(|data: &[u8]| {
    let Ok(token) = std::str::from_utf8(data) else {
        return;
    };
    let _ = parse_strict(token);
    for fen in FENS {
        let pos = Position::from_fen(fen).unwrap();
        for mode in [SanMode::Strict, SanMode::Lenient] {
            if let Ok(r) = resolve(&pos, token, mode) {
                assert!(pos.legal_moves().contains(r.mv), "{token}");
                let _ = to_san(&pos, r.mv);
            }
        }
    }
});
