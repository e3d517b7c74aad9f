//! The packed move layout (`db::encode::pack_moves`, schema version 4) over real games: every
//! game of the master games and of the Chess960 corpus packs, decodes to the same moves and
//! final position from its stored start (FEN tag and variant, as export reads it), and the
//! 2-byte layout of older rows still decodes alike.

use crate::common;

use arbiter::chess::SanMode;
use arbiter::db::encode::{
    decode_game, decode_moves, encode_moves, is_packed, moves_key, pack_moves, start_position,
};
use arbiter::game::replay;
use arbiter::pgn::parse_all;
use std::path::Path;

/// What a directory's games came to.
#[derive(Debug, Default)]
struct Sizes {
    games: usize,
    chess960: usize,
    plies: usize,
    /// Packed bytes, headers included.
    bytes: usize,
}

fn round_trip_dir(dir: &Path) -> Sizes {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "pgn"))
        .collect();
    files.sort();
    let mut sizes = Sizes::default();
    for path in files {
        let data = std::fs::read(&path).unwrap();
        for game in parse_all(&data).0 {
            let r = replay(&game, SanMode::Lenient);
            let at = format!("{} game {}", path.display(), game.game_number);
            let packed = pack_moves(&r.start, &r.moves).unwrap_or_else(|e| panic!("{at}: {e}"));
            assert_eq!(is_packed(&packed), !r.moves.is_empty(), "{at}");
            // Decoded as a stored row is: from the FEN tag and variant alone.
            let start = start_position(r.start_fen.as_deref(), r.chess960)
                .unwrap_or_else(|e| panic!("{at}: {e}"));
            let (moves, end) = decode_game(&start, &packed).unwrap_or_else(|e| panic!("{at}: {e}"));
            assert_eq!(moves, r.moves, "{at}");
            assert_eq!(end.fen(), r.final_position().fen(), "{at}");
            let old = encode_moves(&r.moves);
            assert_eq!(decode_moves(&start, &old).as_ref(), Ok(&r.moves), "{at}");
            // One game, one duplicate key, whichever layout holds it.
            assert_eq!(
                moves_key(r.start_fen.as_deref(), r.chess960, &old),
                moves_key(r.start_fen.as_deref(), r.chess960, &packed),
                "{at}"
            );
            sizes.games += 1;
            sizes.chess960 += usize::from(r.chess960);
            sizes.plies += r.moves.len();
            sizes.bytes += packed.len();
        }
    }
    eprintln!("{}: {sizes:?}", dir.display());
    sizes
}

#[test]
fn master_games_round_trip_through_the_packed_layout() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let s = round_trip_dir(&corpus.join("games/otb-pgnmentor"));
    assert_eq!((s.games, s.chess960), (45_687, 0));
    // 16 bits a ply in the 2-byte layout; under 6 packed, headers included (docs/SCHEMA.md).
    let bits = 8.0 * s.bytes as f64 / s.plies as f64;
    assert!(bits < 6.0, "{bits:.2} bits a ply over {} plies", s.plies);
}

#[test]
fn chess960_games_round_trip_through_the_packed_layout() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let s = round_trip_dir(&corpus.join("games/chess960"));
    // Every game of the three files is Chess960 (castling as king takes rook, FEN starts).
    assert_eq!((s.games, s.chess960), (32, 32));
    assert!(s.plies > 32 * 40, "{s:?}");
}
