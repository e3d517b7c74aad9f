//! PGN syntax, never legality: split a byte stream into games (fast byte scan), parse each
//! game's bytes into tags and a tree of move tokens with located findings, and write clean
//! PGN back. Move tokens stay text here; the rules core resolves them.

pub mod commands;
pub mod decode;
pub mod finding;
pub mod model;
pub mod parser;
pub mod split;
pub mod token;
pub mod writer;

pub use finding::{Finding, Severity, code};
pub use model::{
    Annotations, Command, Comment, EvalScore, Game, Marker, MoveNode, Pos, SanToken, TagIter, Tags,
    TimeSpan,
};
pub use parser::{SEVEN_TAG_ROSTER, parse_game, parse_game_bytes};
pub use split::{RawGame, SplitError, Splitter, split_bytes};
pub use writer::{WriteOptions, export_marker, export_tags, game_to_string, write_game};

/// Split and parse a whole text held in memory: the games, then the findings about text
/// that belongs to no game. For files, use [`Splitter`] over a
/// [`crate::pipeline::source::Source`] so memory stays bounded.
pub fn parse_all(bytes: &[u8]) -> (Vec<Game>, Vec<Finding>) {
    let (raws, trailing) = split_bytes(bytes);
    (raws.iter().map(parse_game).collect(), trailing)
}
