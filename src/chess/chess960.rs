//! Chess960 start positions from their number 0–959 (FIDE Laws 2017, Guidelines II.1; the
//! standard numbering places bishops, then the queen, then the knights, then R K R).

use super::fen::parse_setup;
use super::position::Position;
use super::types::{File, Role};

/// The back rank (files a–h) of Chess960 position `n`, or None if `n` > 959.
pub fn back_rank(n: u32) -> Option<[Role; 8]> {
    if n > 959 {
        return None;
    }
    let mut rank: [Option<Role>; 8] = [None; 8];
    let mut n = n as usize;
    rank[2 * (n % 4) + 1] = Some(Role::Bishop); // light-squared bishop on b, d, f or h
    n /= 4;
    rank[2 * (n % 4)] = Some(Role::Bishop); // dark-squared bishop on a, c, e or g
    n /= 4;
    let place_in_nth_empty = |rank: &mut [Option<Role>; 8], k: usize, role: Role| {
        if let Some(i) = (0..8).filter(|&i| rank[i].is_none()).nth(k) {
            rank[i] = Some(role);
        }
    };
    place_in_nth_empty(&mut rank, n % 6, Role::Queen);
    n /= 6;
    // The ten ways to put two knights on five empty squares, in the standard order.
    const KNIGHTS: [(usize, usize); 10] = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ];
    let (a, b) = KNIGHTS[n];
    place_in_nth_empty(&mut rank, b, Role::Knight);
    place_in_nth_empty(&mut rank, a, Role::Knight);
    for role in [Role::Rook, Role::King, Role::Rook] {
        place_in_nth_empty(&mut rank, 0, role);
    }
    let mut out = [Role::Pawn; 8];
    for (o, r) in out.iter_mut().zip(rank) {
        *o = r?;
    }
    Some(out)
}

/// The Chess960 start position number `n` (518 is the standard start position).
pub fn start_position(n: u32) -> Option<Position> {
    let rank = back_rank(n)?;
    let white: String = rank.iter().map(|r| r.upper_char()).collect();
    let black = white.to_ascii_lowercase();
    let rooks: Vec<File> = (0..8)
        .filter(|&i| rank[i] == Role::Rook)
        .map(|i| File(i as u8))
        .collect();
    let castling: String = rooks
        .iter()
        .rev()
        .map(|f| f.upper_char())
        .chain(rooks.iter().rev().map(|f| f.char()))
        .collect();
    let fen = format!("{black}/pppppppp/8/8/8/8/PPPPPPPP/{white} w {castling} - 0 1");
    let setup = parse_setup(&fen).ok()?;
    Position::from_setup(&setup, true).ok()
}

/// The number of a Chess960 start position, if `pos` is one.
pub fn number_of(pos: &Position) -> Option<u32> {
    let epd = super::fen::write_epd(pos);
    let placement = epd.split(' ').next()?;
    (0..960).find(|&n| {
        start_position(n)
            .is_some_and(|p| super::fen::write_epd(&p).split(' ').next() == Some(placement))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_numbers() {
        let text = |n| {
            back_rank(n)
                .unwrap()
                .iter()
                .map(|r| r.upper_char())
                .collect::<String>()
        };
        assert_eq!(text(518), "RNBQKBNR");
        assert_eq!(text(0), "BBQNNRKR");
        assert_eq!(text(959), "RKRNNQBB");
        assert_eq!(back_rank(960), None);
        let std = start_position(518).unwrap();
        assert_eq!(std.fen(), crate::chess::fen::START_FEN);
        assert_eq!(number_of(&std), Some(518));
        assert_eq!(std.legal_moves().len(), 20);
    }

    #[test]
    fn every_start_position_is_legal_and_distinct() {
        let mut seen = std::collections::HashSet::new();
        for n in 0..960 {
            let pos = start_position(n).unwrap();
            let rank = back_rank(n).unwrap();
            let king = rank.iter().position(|r| *r == Role::King).unwrap();
            let rooks: Vec<usize> = (0..8).filter(|&i| rank[i] == Role::Rook).collect();
            assert!(rooks[0] < king && king < rooks[1], "{n}");
            assert!(seen.insert(pos.fen()));
        }
    }
}
