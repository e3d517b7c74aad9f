//! Rules-core properties that need no corpus: parsers never panic on any input, positions
//! from FEN satisfy their invariants, Art. 9.2.2 sameness of positions, and the Chess960
//! castling rule of Guidelines II.

use arbiter::chess::san::{SanMode, resolve};
use arbiter::chess::uci::parse_uci;
use arbiter::chess::{Position, perft::perft};
use proptest::prelude::*;

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn fen_parser_never_panics(text in "\\PC{0,120}") {
        let _ = Position::from_fen(&text);
    }

    #[test]
    fn fen_like_text_never_panics(text in "[pnbrqkPNBRQK1-9/~ wbKQkqA-Ha-h0-9-]{0,90}") {
        if let Ok(pos) = Position::from_fen(&text) {
            // Whatever is accepted writes back and reads back as the same position.
            prop_assert_eq!(Position::from_fen(&pos.fen()).unwrap(), pos);
        }
    }

    #[test]
    fn san_reader_never_panics(text in "\\PC{0,24}", strict in any::<bool>()) {
        let pos = Position::from_fen(KIWIPETE).unwrap();
        let mode = if strict { SanMode::Strict } else { SanMode::Lenient };
        let _ = resolve(&pos, &text, mode);
        let _ = parse_uci(&pos, &text);
    }

    #[test]
    fn san_like_text_never_panics(text in "[NBRQKPOo0a-h1-8x:=+#!?()/. -]{0,16}") {
        let pos = Position::from_fen(KIWIPETE).unwrap();
        if let Ok(r) = resolve(&pos, &text, SanMode::Lenient) {
            prop_assert!(pos.is_legal(r.mv));
        }
    }
}

#[test]
fn long_inputs_are_rejected_quickly() {
    // Linear work: a megabyte of junk is one pass, not a blow-up.
    let junk = "8/".repeat(500_000);
    assert!(Position::from_fen(&junk).is_err());
    let pos = Position::new();
    assert!(resolve(&pos, &"N".repeat(1_000_000), SanMode::Lenient).is_err());
}

#[test]
fn en_passant_counts_only_when_legal() {
    // Art. 9.2.2: after 1. e4 no black pawn can capture en passant, so the position equals
    // the same placement written without an en passant square.
    let a =
        Position::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1").unwrap();
    let b =
        Position::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").unwrap();
    assert_eq!(a.repetition_key(), b.repetition_key());
    // Here d4xe3 is possible: a different position.
    let c = Position::from_fen("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1").unwrap();
    let d = Position::from_fen("4k3/8/8/8/3pP3/8/8/4K3 b - - 0 1").unwrap();
    assert_ne!(c.repetition_key(), d.repetition_key());
    // Pinned capturer: en passant would expose the king, so it does not count.
    let e = Position::from_fen("8/8/8/8/k2pP2R/8/8/4K3 b - e3 0 1").unwrap();
    let f = Position::from_fen("8/8/8/8/k2pP2R/8/8/4K3 b - - 0 1").unwrap();
    assert_eq!(e.legal_ep_square(), None);
    assert_eq!(e.repetition_key(), f.repetition_key());
    // Castling rights count.
    let g = Position::from_fen("4k3/8/8/8/8/8/8/4K2R w K - 0 1").unwrap();
    let h = Position::from_fen("4k3/8/8/8/8/8/8/4K2R w - - 0 1").unwrap();
    assert_ne!(g.repetition_key(), h.repetition_key());
}

#[test]
fn chess960_castling_follows_guidelines_ii() {
    // King b1, rook a1: queen-side castling puts the king on c1 and the rook on d1.
    let pos = Position::from_fen("1k6/8/8/8/8/8/8/RK6 w A - 0 1").unwrap();
    let m = parse_uci(&pos, "b1a1").unwrap();
    let mut after = pos;
    after.play_unchecked(m);
    assert_eq!(after.fen(), "1k6/8/8/8/8/8/8/2KR4 b - - 1 1");
    // The castling rook must not screen the king's squares: with it lifted, the black rook
    // on a1 attacks c1, so castling is not legal.
    let pinned = Position::from_fen("7k/8/8/8/8/8/8/rRK5 w B - 0 1").unwrap();
    assert!(parse_uci(&pinned, "c1b1").is_err());
    // King and rook may swap squares (king f1 → g1, rook g1 → f1).
    let swap = Position::from_fen("k7/8/8/8/8/8/8/5KR1 w G - 0 1").unwrap();
    let m = parse_uci(&swap, "f1g1").unwrap();
    assert!(m.is_castle());
    let mut after = swap;
    after.play_unchecked(m);
    assert_eq!(after.fen(), "k7/8/8/8/8/8/8/5RK1 b - - 1 1");
    // Chess960 position 0 (BBQNNRKR): 16 pawn moves and 4 knight moves a side, no contact
    // after one move each.
    let p0 = arbiter::chess::chess960::start_position(0).unwrap();
    assert_eq!(
        p0.fen(),
        "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1"
    );
    assert_eq!(perft(&p0, 1), 20);
    assert_eq!(perft(&p0, 2), 400);
}
