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

#[cfg(test)]
mod properties {
    //! Properties of splitting and parsing over arbitrary and PGN-like inputs: no panic,
    //! games are verbatim pieces of the input in order, every finding points inside its
    //! game, and the read size never changes the result.

    use super::split::tests::Trickle;
    use super::*;
    use proptest::prelude::*;

    const PIECES: &[&str] = &[
        "[Event \"e\"]\n",
        "[Site \"s\"]\n",
        "[Date \"d\"]\n",
        "[Result \"1-0\"]\n",
        "[White \"a \\\"b\\\"\"]\n",
        "[Bad",
        "\n",
        "\r\n",
        "\r",
        " ",
        "1.",
        "12...",
        "e4 ",
        "Nf3",
        "exd8=Q+ ",
        "O-O ",
        "-- ",
        "Zq9 ",
        "{c}",
        "{open ",
        "}",
        "(",
        ")",
        ";line\n",
        "%esc\n",
        "$14 ",
        "!? ",
        "*",
        "1-0",
        "1/2-1/2 ",
        "garbage words\n",
        "\u{e9}",
        "\u{feff}",
    ];

    fn pgn_like() -> impl Strategy<Value = Vec<u8>> {
        prop::collection::vec(prop::sample::select(PIECES), 0..80)
            .prop_map(|parts| parts.concat().into_bytes())
    }

    fn check(input: &[u8]) {
        let (raws, trailing) = split_bytes(input);
        let mut end = 0u64;
        for raw in &raws {
            let from = raw.byte_offset as usize;
            assert!(raw.byte_offset >= end, "games overlap or go back");
            assert_eq!(&input[from..from + raw.bytes.len()], &raw.bytes[..]);
            end = raw.byte_offset + raw.bytes.len() as u64;
            let game = parse_game(raw);
            assert_eq!(game.game_number, raw.game_number);
            for f in &game.findings {
                // Line-end notes are about the file: they go to the game in progress when
                // the first such line is met, even if that line starts the next game.
                if f.code != code::CR && f.code != code::CRLF {
                    assert!(f.byte <= end, "finding after its game: {f:?}");
                }
                assert_eq!(f.game_number, raw.game_number);
            }
        }
        for f in &trailing {
            assert_eq!(f.game_number, 0);
        }
        for step in [1, 5] {
            let games: Vec<RawGame> = Splitter::new(Trickle(input, step))
                .map(|g| g.expect("reading from memory cannot fail"))
                .collect();
            assert_eq!(games, raws, "read size {step}");
        }
    }

    proptest! {
        #[test]
        fn any_bytes_split_and_parse_without_panic(input in prop::collection::vec(any::<u8>(), 0..600)) {
            check(&input);
        }

        #[test]
        fn pgn_like_text_splits_into_verbatim_games(input in pgn_like()) {
            check(&input);
        }
    }

    /// Long runs of comments, NAGs and variations, open or closed, read in one pass: no
    /// recursion (no stack overflow) and every piece is kept.
    #[test]
    fn long_runs_and_deep_nesting_are_read_in_one_pass() {
        let n = 100_000;
        let mut text = String::from("1. e4 ");
        for _ in 0..n {
            text.push_str("{c} $1 ");
        }
        text.push_str("e5 *");
        let g = parse_game_bytes(text.as_bytes(), 1, 0, 1);
        assert_eq!(g.moves.len(), 2);
        assert_eq!(g.moves[0].comments_after().len(), n);
        assert_eq!(g.moves[0].nags().len(), n);

        // Unclosed variations, 100k deep: the reader stops at its depth cap (issue 19) and
        // closes the open ones at the end with a finding (capped).
        let mut text = String::from("1. e4 ");
        for _ in 0..n {
            text.push_str("( {x} e4 ");
        }
        let g = parse_game_bytes(text.as_bytes(), 1, 0, 1);
        assert!(g.has_finding(code::UNCLOSED_VARIATION));
        assert!(g.has_finding(code::GAME_TOO_COMPLEX));
        let mut depth = 0;
        let mut line = &g.moves;
        while let Some(v) = line[0].variations().first() {
            depth += 1;
            line = v;
        }
        assert_eq!(depth, parser::MAX_VARIATION_DEPTH);
        drop(g);

        // The splitter on the same text: one game, all of it.
        let (raws, _) = split_bytes(text.as_bytes());
        assert_eq!(raws.len(), 1);
        assert_eq!(raws[0].bytes.len(), text.len());
    }
}
