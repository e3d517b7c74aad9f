//! FEN on arbitrary text: no panic; a position that parses writes a FEN that parses to the
//! same position.
#![no_main]

use arbiter::chess::Position;
use arbiter::chess::fen::parse_setup;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = parse_setup(text);
    if let Ok(pos) = Position::from_fen(text) {
        let again = Position::from_fen(&pos.fen()).expect("a written FEN reads back");
        assert_eq!(again.fen(), pos.fen());
        let _ = pos.legal_moves();
    }
});
