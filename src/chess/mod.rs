//! The rules core: positions, legal moves, FEN, SAN, UCI, Zobrist hashing, Chess960 and perft.
//! Pure and I/O-free; everything else in arbiter replays games through it.
//! Text becomes an unchecked value that becomes a checked one: FEN → `Setup` → `Position`,
//! SAN → `San` → `Move` (resolved against a position).

pub mod attacks;
pub mod bitboard;
pub mod chess960;
pub mod fen;
pub mod lines;
pub mod movegen;
pub mod moves;
pub mod perft;
pub mod position;
pub mod san;
pub mod setup;
pub mod types;
pub mod uci;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use fen::{FenError, START_FEN};
pub use moves::{Move, MoveKind, MoveList};
pub use position::{Castling, IllegalMove, Position, PositionError};
pub use san::{Repair, Resolved, San, SanError, SanMode, SanText};
pub use setup::Setup;
pub use types::{CastlingSide, Color, File, Piece, Rank, Role, Square};
