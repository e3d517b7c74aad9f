//! Which positions count as "the same" for a search: Art. 9.2.2's identity by default (the
//! repetition key, `Position::repetition_key`: placement, side to move, castling rights, en
//! passant only when the capture is legal; move counters ignored), and each relaxation on
//! its own. `--mirror` adds the colour-flipped position as a second target.

use crate::chess::fen::parse_setup;
use crate::chess::{Bitboard, CastlingSide, Color, Piece, Position, Setup, Square, zobrist};

/// The relaxations of Art. 9.2.2's identity a query asks for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Identity {
    pub ignore_side: bool,
    pub ignore_castling: bool,
    pub ignore_ep: bool,
    /// Also the colour-flipped position (White's pieces as Black's, ranks reversed).
    pub mirror: bool,
}

impl Identity {
    /// Art. 9.2.2 exactly, the stored index's identity.
    pub fn is_exact(&self) -> bool {
        !(self.ignore_side || self.ignore_castling || self.ignore_ep)
    }

    /// `pos`'s key under this identity: the repetition key with the relaxed parts taken
    /// out (the colour flip is the query's business: it holds both targets' keys).
    #[inline]
    pub fn key(&self, pos: &Position) -> u64 {
        let mut k = pos.repetition_key();
        if self.is_exact() {
            return k;
        }
        if self.ignore_ep
            && let Some(ep) = pos.legal_ep_square()
        {
            k ^= zobrist::en_passant_key(ep.file());
        }
        if self.ignore_side && pos.turn() == Color::Black {
            k ^= zobrist::black_to_move_key();
        }
        if self.ignore_castling {
            for color in Color::ALL {
                for side in CastlingSide::ALL {
                    if let Some(r) = pos.castling().rook(color, side) {
                        k ^= zobrist::castling_key(color, r.file());
                    }
                }
            }
        }
        k
    }

    /// Every exact (Art. 9.2.2) key a position equal to `pos` under this identity can have,
    /// colour flip included: the index is looked up under each. Castling rights are
    /// enumerated over the rooks on their back rank beside an unmoved-looking king, en
    /// passant over the files where a pawn just stepped twice could be taken.
    pub fn exact_variants(&self, pos: &Position) -> Vec<Position> {
        let mut targets = vec![*pos];
        if self.mirror {
            targets.push(mirrored(pos));
        }
        let mut out: Vec<Position> = Vec::new();
        for t in targets {
            let base = t.to_setup();
            let turns: &[Color] = if self.ignore_side {
                &[Color::White, Color::Black]
            } else {
                &[base.turn]
            };
            for &turn in turns {
                let mut s = base.clone();
                s.turn = turn;
                let rights = if self.ignore_castling {
                    castling_subsets(&s)
                } else {
                    vec![s.castling_rooks]
                };
                for r in rights {
                    let mut s = s.clone();
                    s.castling_rooks = r;
                    let eps = if self.ignore_ep || s.turn != base.turn {
                        ep_candidates(&s)
                    } else {
                        vec![s.ep_square]
                    };
                    for ep in eps {
                        let mut s = s.clone();
                        s.ep_square = ep;
                        if let Ok(p) = Position::from_setup(&s, t.is_chess960())
                            && !out.iter().any(|o| o.repetition_key() == p.repetition_key())
                        {
                            out.push(p);
                        }
                    }
                }
            }
        }
        out
    }

    /// The keys a game's position must have, under this identity, to match `pos`.
    pub fn targets(&self, pos: &Position) -> Vec<u64> {
        let mut keys = vec![self.key(pos)];
        if self.mirror {
            let m = self.key(&mirrored(pos));
            if !keys.contains(&m) {
                keys.push(m);
            }
        }
        keys
    }
}

/// The position with colours swapped and ranks reversed (the side to move too).
pub fn mirrored(pos: &Position) -> Position {
    let s = pos.to_setup();
    let mut m = Setup::empty();
    for sq in Square::all() {
        m.board[sq.flip_vertical().index()] =
            s.board[sq.index()].map(|p| Piece::new(p.color.other(), p.role));
    }
    m.turn = s.turn.other();
    let mut rooks = Bitboard::EMPTY;
    for sq in s.castling_rooks {
        rooks.add(sq.flip_vertical());
    }
    m.castling_rooks = rooks;
    m.ep_square = s.ep_square.map(Square::flip_vertical);
    m.halfmove_clock = s.halfmove_clock;
    m.fullmove_number = s.fullmove_number;
    // The flip of a legal position is legal.
    Position::from_setup(&m, pos.is_chess960()).unwrap_or(*pos)
}

/// Every set of castling rooks the placement allows: per colour, none or one rook on each
/// side of a king on its back rank.
fn castling_subsets(s: &Setup) -> Vec<Bitboard> {
    let mut per_color: Vec<Vec<Bitboard>> = Vec::new();
    for color in Color::ALL {
        let mut options = vec![Bitboard::EMPTY];
        if let Some(k) = s.king(color)
            && k.rank() == color.back_rank()
        {
            let rook = Piece::new(color, crate::chess::Role::Rook);
            let rooks: Vec<Square> = s
                .squares_of(rook)
                .into_iter()
                .filter(|r| r.rank() == color.back_rank())
                .collect();
            let left: Vec<Square> = rooks
                .iter()
                .copied()
                .filter(|r| r.file() < k.file())
                .collect();
            let right: Vec<Square> = rooks
                .iter()
                .copied()
                .filter(|r| r.file() > k.file())
                .collect();
            for l in std::iter::once(None).chain(left.iter().copied().map(Some)) {
                for r in std::iter::once(None).chain(right.iter().copied().map(Some)) {
                    let mut b = Bitboard::EMPTY;
                    if let Some(l) = l {
                        b.add(l);
                    }
                    if let Some(r) = r {
                        b.add(r);
                    }
                    if b.nonempty() {
                        options.push(b);
                    }
                }
            }
        }
        per_color.push(options);
    }
    let mut out = Vec::new();
    for w in &per_color[0] {
        for b in &per_color[1] {
            out.push(*w | *b);
        }
    }
    out
}

/// None, and every square behind a pawn of the side not to move on its fourth rank with
/// the squares it passed empty: where en passant could be legal.
fn ep_candidates(s: &Setup) -> Vec<Option<Square>> {
    let mut out = vec![None];
    let them = s.turn.other();
    let pawn = Piece::new(them, crate::chess::Role::Pawn);
    for sq in s.squares_of(pawn) {
        let (fourth, behind, start) = match them {
            Color::White => (3, -8i8, -16i8),
            Color::Black => (4, 8, 16),
        };
        if sq.rank().0 != fourth {
            continue;
        }
        let (Some(ep), Some(from)) = (sq.offset(behind), sq.offset(start)) else {
            continue;
        };
        if s.board[ep.index()].is_none() && s.board[from.index()].is_none() {
            out.push(Some(ep));
        }
    }
    out
}

/// A FEN or EPD (its first four fields) as a checked position, with the reason when no game
/// could reach it.
pub fn parse_position(text: &str) -> Result<Position, String> {
    let fields: Vec<&str> = text.split_ascii_whitespace().collect();
    let epd = fields.len() > 4 && fields[4].parse::<u32>().is_err();
    let fen = if epd {
        fields[..4].join(" ")
    } else {
        fields.join(" ")
    };
    let setup = parse_setup(&fen).map_err(|e| e.to_string())?;
    let chess960 = false;
    let pos = match Position::from_setup(&setup, chess960) {
        Ok(p) => p,
        Err(_) => {
            Position::from_setup(&setup, true).map_err(|e| format!("impossible position: {e}"))?
        }
    };
    check_reachable(&setup)?;
    Ok(pos)
}

/// Placements `Position::from_setup` accepts but no game reaches: more than eight pawns a
/// side, or more promoted pieces than missing pawns allow.
pub fn check_reachable(s: &Setup) -> Result<(), String> {
    use crate::chess::Role;
    for color in Color::ALL {
        let count = |role| s.squares_of(Piece::new(color, role)).count() as i32;
        let pawns = count(Role::Pawn);
        if pawns > 8 {
            return Err(format!(
                "impossible position: {} has {pawns} pawns (at most 8)",
                side_name(color)
            ));
        }
        let extra = (count(Role::Queen) - 1).max(0)
            + (count(Role::Rook) - 2).max(0)
            + (count(Role::Bishop) - 2).max(0)
            + (count(Role::Knight) - 2).max(0);
        if extra > 8 - pawns {
            return Err(format!(
                "impossible position: {} has {extra} pieces beyond the starting set but only {} pawns could have promoted",
                side_name(color),
                8 - pawns
            ));
        }
    }
    Ok(())
}

pub fn side_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relaxations_take_their_part_out_of_the_key() {
        let w = Position::from_fen("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1").unwrap();
        let b = Position::from_fen("4k3/8/8/8/8/8/8/R3K2R b KQ - 0 1").unwrap();
        let none = Position::from_fen("4k3/8/8/8/8/8/8/R3K2R w - - 0 1").unwrap();
        let exact = Identity::default();
        assert_ne!(exact.key(&w), exact.key(&b));
        let side = Identity {
            ignore_side: true,
            ..Identity::default()
        };
        assert_eq!(side.key(&w), side.key(&b));
        assert_ne!(side.key(&w), side.key(&none));
        let castling = Identity {
            ignore_castling: true,
            ..Identity::default()
        };
        assert_eq!(castling.key(&w), castling.key(&none));
        // Four castling sets for White (none, a1, h1, both) and one for Black.
        assert_eq!(castling.exact_variants(&w).len(), 4);
    }

    #[test]
    fn the_mirror_swaps_colours_and_ranks() {
        let p = Position::from_fen("4k3/8/8/8/4P3/8/8/4K2R b K e3 0 1").unwrap();
        let m = mirrored(&p);
        // The en passant square is kept as given (it is in no key: no capture is possible).
        assert_eq!(m.fen(), "4k2r/8/8/4p3/8/8/8/4K3 w k e6 0 1");
        assert_eq!(mirrored(&m).repetition_key(), p.repetition_key());
    }

    #[test]
    fn impossible_positions_name_the_reason() {
        let e = parse_position("4k3/8/8/8/8/8/8/P3K3 w - - 0 1").unwrap_err();
        assert!(e.contains("first or last rank"), "{e}");
        let e = parse_position("4k3/pppppppp/p7/8/8/8/8/4K3 w - - 0 1").unwrap_err();
        assert!(e.contains("impossible position: Black"), "{e}");
        let e = parse_position("4k3/8/8/8/8/8/PPPPPPPP/QQ2K3 w - - 0 1").unwrap_err();
        assert!(e.contains("impossible position: White"), "{e}");
        // EPD: four fields and operations.
        assert!(parse_position("4k3/8/8/8/8/8/8/4K3 w - - bm Kd2;").is_ok());
    }
}
