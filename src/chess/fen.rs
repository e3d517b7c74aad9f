//! FEN text ↔ `Setup`/`Position`: the six fields of the PGN standard (section 16.1), with
//! castling written as `KQkq` (X-FEN: the outermost rook), as rook files `HAha` (Shredder-FEN),
//! or a mix of both. Missing clock fields default to `0 1`, as many EPD files omit them.

use super::bitboard::Bitboard;
use super::position::{Position, PositionError};
use super::setup::Setup;
use super::types::{CastlingSide, Color, File, Piece, Rank, Role, Square};
use std::fmt;

pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// What is wrong with a FEN text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FenError {
    /// Fewer than the four required fields (placement, turn, castling, en passant).
    MissingField(&'static str),
    InvalidBoard(String),
    InvalidTurn(String),
    InvalidCastling(String),
    InvalidEnPassant(String),
    InvalidHalfmoveClock(String),
    InvalidFullmoveNumber(String),
    /// The text is well formed but the position is not legal.
    Position(PositionError),
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::MissingField(name) => write!(f, "FEN has no {name} field"),
            FenError::InvalidBoard(s) => write!(f, "invalid piece placement in FEN: {s}"),
            FenError::InvalidTurn(s) => {
                write!(f, "invalid side to move in FEN: {s:?} (want w or b)")
            }
            FenError::InvalidCastling(s) => write!(f, "invalid castling field in FEN: {s:?}"),
            FenError::InvalidEnPassant(s) => write!(f, "invalid en passant field in FEN: {s:?}"),
            FenError::InvalidHalfmoveClock(s) => write!(f, "invalid halfmove clock in FEN: {s:?}"),
            FenError::InvalidFullmoveNumber(s) => {
                write!(f, "invalid fullmove number in FEN: {s:?}")
            }
            FenError::Position(e) => write!(f, "illegal position in FEN: {e}"),
        }
    }
}

impl std::error::Error for FenError {}

impl From<PositionError> for FenError {
    fn from(e: PositionError) -> FenError {
        FenError::Position(e)
    }
}

fn short(s: &str) -> String {
    s.chars().take(40).collect()
}

/// Parses the placement field (`rnbqkbnr/pppppppp/...`).
fn parse_board(text: &str) -> Result<[Option<Piece>; 64], FenError> {
    let mut board = [None; 64];
    let bad = |why: &str| FenError::InvalidBoard(format!("{why} in {:?}", short(text)));
    let ranks: Vec<&str> = text.split('/').collect();
    if ranks.len() != 8 {
        return Err(bad("not eight ranks"));
    }
    for (i, rank_text) in ranks.iter().enumerate() {
        let rank = Rank(7 - i as u8);
        let mut file = 0u8;
        for c in rank_text.chars() {
            if let Some(d) = c.to_digit(10) {
                if !(1..=8).contains(&d) {
                    return Err(bad("bad empty-square count"));
                }
                file += d as u8;
            } else if let Some(p) = Piece::from_char(c) {
                if file >= 8 {
                    return Err(bad("a rank longer than eight squares"));
                }
                board[Square::from_coords(File(file), rank).index()] = Some(p);
                file += 1;
            } else if c == '~' {
                // X-FEN/Crazyhouse promoted-piece marker: carries no meaning in chess.
                continue;
            } else {
                return Err(bad(&format!("unexpected character {c:?}")));
            }
            if file > 8 {
                return Err(bad("a rank longer than eight squares"));
            }
        }
        if file != 8 {
            return Err(bad("a rank shorter than eight squares"));
        }
    }
    Ok(board)
}

/// Reads the castling field against a board: `KQkq` picks the outermost rook on that side of
/// the king, a file letter names the rook's file.
fn parse_castling(text: &str, board: &[Option<Piece>; 64]) -> Result<Bitboard, FenError> {
    let mut rooks = Bitboard::EMPTY;
    if text == "-" {
        return Ok(rooks);
    }
    let bad = || FenError::InvalidCastling(short(text));
    for c in text.chars() {
        let color = if c.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        let rank = color.back_rank();
        let rook = Piece::new(color, Role::Rook);
        let king_file = (0..8).map(File).find(|&f| {
            board[Square::from_coords(f, rank).index()] == Some(Piece::new(color, Role::King))
        });
        let sq = match c.to_ascii_lowercase() {
            'k' | 'q' => {
                let side = if c.eq_ignore_ascii_case(&'k') {
                    CastlingSide::KingSide
                } else {
                    CastlingSide::QueenSide
                };
                let king_file = king_file.ok_or_else(bad)?;
                let files: Vec<u8> = match side {
                    CastlingSide::KingSide => (king_file.0 + 1..8).rev().collect(),
                    CastlingSide::QueenSide => (0..king_file.0).collect(),
                };
                files
                    .into_iter()
                    .map(|f| Square::from_coords(File(f), rank))
                    .find(|sq| board[sq.index()] == Some(rook))
                    .ok_or_else(bad)?
            }
            'a'..='h' => Square::from_coords(File(c.to_ascii_lowercase() as u8 - b'a'), rank),
            _ => return Err(bad()),
        };
        if rooks.contains(sq) {
            return Err(bad());
        }
        rooks.add(sq);
    }
    Ok(rooks)
}

/// Parses FEN text into an unchecked setup.
pub fn parse_setup(text: &str) -> Result<Setup, FenError> {
    let mut fields = text.split_ascii_whitespace();
    let board = parse_board(
        fields
            .next()
            .ok_or(FenError::MissingField("piece placement"))?,
    )?;
    let turn_text = fields.next().unwrap_or("w");
    let turn = match turn_text {
        "w" | "W" => Color::White,
        "b" | "B" => Color::Black,
        other => return Err(FenError::InvalidTurn(short(other))),
    };
    let castling_rooks = parse_castling(fields.next().unwrap_or("-"), &board)?;
    let ep_text = fields.next().unwrap_or("-");
    let ep_square = match ep_text {
        "-" => None,
        t => Some(Square::parse(t).ok_or_else(|| FenError::InvalidEnPassant(short(t)))?),
    };
    let halfmove_clock = match fields.next() {
        None => 0,
        Some(t) => t
            .parse::<u32>()
            .map_err(|_| FenError::InvalidHalfmoveClock(short(t)))?,
    };
    let fullmove_number = match fields.next() {
        None => 1,
        Some(t) => match t.parse::<u32>() {
            Ok(n) if n >= 1 => n,
            // Some writers emit 0; treat it as 1 as the standard's minimum.
            Ok(_) => 1,
            Err(_) => return Err(FenError::InvalidFullmoveNumber(short(t))),
        },
    };
    Ok(Setup {
        board,
        turn,
        castling_rooks,
        ep_square,
        halfmove_clock,
        fullmove_number,
    })
}

/// Parses and checks a FEN. Castling fields that are not standard make a Chess960 position.
pub fn parse_fen(text: &str) -> Result<Position, FenError> {
    let setup = parse_setup(text)?;
    Ok(Position::from_setup(&setup, false)?)
}

fn write_board(board: &[Option<Piece>; 64], out: &mut String) {
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            match board[Square::from_coords(File(file), Rank(rank)).index()] {
                Some(p) => {
                    if empty > 0 {
                        out.push((b'0' + empty) as char);
                        empty = 0;
                    }
                    out.push(p.char());
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            out.push((b'0' + empty) as char);
        }
        if rank > 0 {
            out.push('/');
        }
    }
}

/// The castling field: `KQkq` letters where the rook is the outermost on its side (X-FEN),
/// the rook's file letter otherwise.
fn write_castling(pos: &Position, out: &mut String) {
    let before = out.len();
    for color in Color::ALL {
        for side in CastlingSide::ALL {
            let Some(rook) = pos.castling().rook(color, side) else {
                continue;
            };
            let king = pos.king_of(color);
            let rank = color.back_rank();
            let outer: Vec<u8> = match side {
                CastlingSide::KingSide => (rook.file().0 + 1..8).collect(),
                CastlingSide::QueenSide => (0..rook.file().0).collect(),
            };
            let outermost = outer.into_iter().all(|f| {
                pos.piece_at(Square::from_coords(File(f), rank))
                    != Some(Piece::new(color, Role::Rook))
            });
            let letter = if outermost && king.rank() == rank {
                match side {
                    CastlingSide::KingSide => 'K',
                    CastlingSide::QueenSide => 'Q',
                }
            } else {
                rook.file().upper_char()
            };
            out.push(match color {
                Color::White => letter,
                Color::Black => letter.to_ascii_lowercase(),
            });
        }
    }
    if out.len() == before {
        out.push('-');
    }
}

/// Writes the full six-field FEN.
pub fn write_fen(pos: &Position) -> String {
    let mut out = String::with_capacity(90);
    write_board(&pos.to_setup().board, &mut out);
    out.push(' ');
    out.push(pos.turn().char());
    out.push(' ');
    write_castling(pos, &mut out);
    out.push(' ');
    match pos.ep_square() {
        Some(sq) => out.push_str(&sq.to_string()),
        None => out.push('-'),
    }
    out.push_str(&format!(
        " {} {}",
        pos.halfmove_clock(),
        pos.fullmove_number()
    ));
    out
}

/// Writes only placement, turn, castling and en passant (the EPD position part).
pub fn write_epd(pos: &Position) -> String {
    let fen = write_fen(pos);
    fen.split(' ').take(4).collect::<Vec<_>>().join(" ")
}

impl Position {
    pub fn from_fen(text: &str) -> Result<Position, FenError> {
        parse_fen(text)
    }

    pub fn fen(&self) -> String {
        write_fen(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for fen in [
            START_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9",
            "2r1kr2/8/8/8/8/8/8/1R2K1R1 w KQkq - 0 1",
            "1r2k1rr/8/8/8/8/8/8/1R2K1RR w GQgq - 0 1",
            "8/8/8/8/8/8/8/K6k b - - 99 200",
        ] {
            let pos = parse_fen(fen).unwrap();
            assert_eq!(write_fen(&pos), fen);
        }
    }

    #[test]
    fn shredder_and_xfen_agree() {
        let a = parse_fen("r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1").unwrap();
        let b = parse_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
        assert_eq!(a, b);
        assert_eq!(a.zobrist(), b.zobrist());
        assert!(!a.is_chess960());
    }

    #[test]
    fn typed_errors_say_what_is_wrong() {
        use PositionError::*;
        let err = |fen: &str| parse_fen(fen).unwrap_err();
        assert_eq!(
            err("8/8/8/8/8/8/8/7k w - - 0 1"),
            FenError::Position(MissingKing(Color::White))
        );
        assert_eq!(
            err("K7/8/8/8/8/8/8/K6k w - - 0 1"),
            FenError::Position(TooManyKings(Color::White))
        );
        assert_eq!(
            err("P6k/8/8/8/8/8/8/K7 w - - 0 1"),
            FenError::Position(PawnsOnBackRank(Square::A8))
        );
        assert_eq!(
            err("k6R/8/8/8/8/8/8/K7 w - - 0 1"),
            FenError::Position(OppositeCheck)
        );
        assert_eq!(
            err("4k3/8/8/8/8/8/8/4K3 w - e6 0 1"),
            FenError::Position(InvalidEnPassant(Square::parse("e6").unwrap()))
        );
        assert_eq!(
            err("4k3/8/8/8/8/8/8/4K3 w K - 0 1"),
            FenError::InvalidCastling("K".into())
        );
        assert_eq!(
            err("4k3/8/8/8/8/8/8/4K3 w H - 0 1"),
            FenError::Position(InvalidCastlingRights(Square::H1))
        );
        assert_eq!(
            err("QQQQQQQQ/QQQQQQQQ/8/8/8/8/8/K6k w - - 0 1"),
            FenError::Position(TooManyPieces(Color::White))
        );
        assert!(matches!(
            err("8/8/8/8/8/8/8/K6k x - - 0 1"),
            FenError::InvalidTurn(_)
        ));
        assert!(matches!(
            err("9/8/8/8/8/8/8/K6k w - - 0 1"),
            FenError::InvalidBoard(_)
        ));
        // EPD-style text without clocks takes the defaults.
        assert_eq!(
            parse_fen("8/8/8/8/8/8/8/K6k").unwrap().fen(),
            "8/8/8/8/8/8/8/K6k w - - 0 1"
        );
        assert!(matches!(
            err("8/8/8/8/8/8/K6k w - - 0 1"),
            FenError::InvalidBoard(_)
        ));
        assert!(matches!(err(""), FenError::MissingField(_)));
    }
}
