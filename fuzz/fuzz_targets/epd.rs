//! The EPD suite reader on arbitrary text: no panic; every record's best and avoided moves
//! are legal in its position.
#![no_main]

use arbiter::search::epd::parse_suite;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for record in parse_suite(&text).into_iter().flatten() {
        let legal = record.position.legal_moves();
        assert!(record.best.iter().chain(&record.avoid).all(|m| legal.contains(*m)));
    }
});
