//! The stored moves' two readers on arbitrary bytes, from a start the first byte picks: no
//! panic, no hang; the scan's lean decoder reads a packed blob to its end exactly when the
//! checked decoder does, and visits the same moves.
#![no_main]

use arbiter::db::encode::{decode_visit, is_packed, start_position};
use arbiter::db::lean::lean_visit;
use arbiter::positions::matcher::PlyMove;
use libfuzzer_sys::fuzz_target;

/// The standard start, a Chess960 start, castling both ways with en passant to take, and
/// promotions with pins and checks near.
const STARTS: [(Option<&str>, bool); 4] = [
    (None, false),
    (
        Some("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1"),
        true,
    ),
    (
        Some("r3k2r/pp1ppppp/8/2pP4/8/8/PPP1PPPP/R3K2R w KQkq c6 0 5"),
        false,
    ),
    (Some("4k3/1P4P1/8/3b4/8/8/1p4p1/R3K2R w KQ - 0 40"), false),
];

fuzz_target!(|data: &[u8]| {
    let Some((&choice, blob)) = data.split_first() else {
        return;
    };
    let (fen, chess960) = STARTS[usize::from(choice) % STARTS.len()];
    let Ok(start) = start_position(fen, chess960) else {
        return;
    };
    let mut checked = Vec::new();
    let checked_ok = decode_visit(&start, blob, |pos, ply, m| {
        checked.push((ply, m.map(|m| PlyMove::of(pos, m))));
        false
    })
    .is_ok();
    let mut lean = Vec::new();
    let lean_ok = lean_visit(&start, blob, |_, ply, m| {
        lean.push((ply, m));
        false
    })
    .is_ok();
    if is_packed(blob) {
        assert_eq!(lean_ok, checked_ok);
        if lean_ok {
            assert_eq!(lean, checked);
        }
    }
});
