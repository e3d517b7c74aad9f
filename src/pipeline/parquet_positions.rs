//! The positions of a shard (`positions.parquet`, beside the games in the map step of
//! `check --output DIR --format parquet`): one row per position a game reached, its ply, its
//! Art. 9.2.2 key (the position index's, `Position::repetition_key`) and its board as text,
//! so that a cluster job answers exact positions, material and patterns from these rows
//! alone. `explain` gives what a query means over these rows (the keys, the material rule,
//! the patterns as regular expressions over the board text), so that such a job parses a
//! query the one way `search` does (spark/search.py reads it from `search --explain`).

use crate::chess::{Color, Position};
use crate::db::GameRecord;
use crate::export::ExportError;
use crate::export::table::{Cell, Column, Kind, TableFormat};
use crate::positions::Query;
use crate::positions::matcher::board_of;
use crate::positions::query::{BOARD_CHARS, Material, imbalance_diffs};
use std::borrow::Cow;
use std::fmt;

/// The table's file name in a shard folder.
pub const POSITIONS: &str = "positions.parquet";

/// The columns of `positions.parquet`, in order.
pub const POSITION_COLUMNS: [Column; 4] = [
    Column {
        name: "game",
        kind: Kind::Int,
        meaning: "1-based number of the game in its shard (the games table's `game`)",
    },
    Column {
        name: "ply",
        kind: Kind::Int,
        meaning: "0: the start position, k: after the k-th half-move",
    },
    Column {
        name: "key",
        kind: Kind::Int,
        meaning: "the Art. 9.2.2 key of the position (the index's), its 64 bits as a signed integer",
    },
    Column {
        name: "board",
        kind: Kind::Text,
        meaning: "the 8th rank to the 1st, 8 squares each ('.' empty, FEN's piece letters), \
                  '/' between ranks, then a space and the side to move (w or b)",
    },
];

/// A position's board text: `rnbqkbnr/pppppppp/......../` ... ` w` (73 characters).
pub fn board_text(pos: &Position) -> String {
    let board = board_of(pos);
    let mut s = String::with_capacity(73);
    for rank in (0..8).rev() {
        for file in 0..8 {
            s.push(BOARD_CHARS[board[rank * 8 + file] as usize] as char);
        }
        if rank > 0 {
            s.push('/');
        }
    }
    s.push_str(match pos.turn() {
        Color::White => " w",
        Color::Black => " b",
    });
    s
}

/// The positions table of a shard being written.
pub struct PositionsTable {
    format: Box<dyn TableFormat>,
    pub rows: u64,
}

impl PositionsTable {
    pub fn begin(mut format: Box<dyn TableFormat>) -> Result<PositionsTable, ExportError> {
        format.begin(&POSITION_COLUMNS)?;
        Ok(PositionsTable { format, rows: 0 })
    }

    /// Every position of an accepted game, from `start` (its setup) through its moves.
    pub fn game(
        &mut self,
        game: i64,
        start: &Position,
        record: &GameRecord,
    ) -> Result<(), ExportError> {
        let mut pos = *start;
        for ply in 0..=record.moves.len() {
            if ply > 0 {
                pos.play_unchecked(record.moves[ply - 1]);
            }
            let cells = [
                Cell::Int(game),
                Cell::Int(ply as i64),
                Cell::Int(pos.repetition_key() as i64),
                Cell::Text(Cow::Owned(board_text(&pos))),
            ];
            self.format.row(&cells)?;
            self.rows += 1;
        }
        Ok(())
    }

    pub fn finish(self) -> Result<(), ExportError> {
        self.format.finish()
    }
}

/// A query form the position rows cannot answer (the database's `search` can).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Untranslatable(pub &'static str);

impl fmt::Display for Untranslatable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} cannot be answered from the position rows of a dataset (an exact position, \
             --material, --held and --pattern can; use search --db for the rest)",
            self.0
        )
    }
}

impl std::error::Error for Untranslatable {}

/// What `query` means over the position rows, as JSON:
/// - `keys`: the keys (as in the `key` column) a position must have to be the FEN's under the
///   query's identity (relaxations and `--mirror` included), or null;
/// - `material`: null, `{"signature": {"white": [Q,R,B,N,P] or null, "black": ...}}`,
///   `{"diffs": [[Q,R,B,N,P], ...]}` (White's counts less Black's, any of them), or
///   `{"down": {"side": "white"|"black"|null, "points": N}}` (Q 9, R 5, B 3, N 3, P 1; the
///   side behind, null either);
/// - `held`: plies the material must hold from the matching ply on, all within the game;
/// - `patterns`: regular expressions the board text must match, all of them.
///
/// A game's answer is the first ply where all hold (spark/README.md).
pub fn explain(query: &Query) -> Result<serde_json::Value, Untranslatable> {
    if query.pawns.is_some() {
        return Err(Untranslatable("--pawns"));
    }
    if query.sequence.is_some() {
        return Err(Untranslatable("--sequence"));
    }
    if !query.laws.is_empty() {
        return Err(Untranslatable("the Laws' forms"));
    }
    let only_position = query.material.is_none() && query.patterns.is_empty();
    if query.identity.mirror && !only_position {
        return Err(Untranslatable("--mirror with --material or --pattern"));
    }
    let keys = query.position.as_ref().map(|pos| {
        query
            .identity
            .exact_variants(pos)
            .iter()
            .map(|p| p.repetition_key() as i64)
            .collect::<Vec<_>>()
    });
    let material = query.material.as_ref().map(|m| match m {
        Material::Signature([white, black]) => {
            serde_json::json!({"signature": {"white": white, "black": black}})
        }
        Material::Imbalance { more, less, minors } => {
            serde_json::json!({"diffs": imbalance_diffs(more, less, *minors)})
        }
        Material::Down(side, points) => serde_json::json!({"down": {
            "side": side.map(|c| match c {
                Color::White => "white",
                Color::Black => "black",
            }),
            "points": points,
        }}),
    });
    let patterns: Vec<String> = query.patterns.iter().map(|p| p.board_regex()).collect();
    Ok(serde_json::json!({
        "keys": keys,
        "material": material,
        "held": if query.material.is_some() { query.held.max(1) } else { 1 },
        "patterns": patterns,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::positions::query::{QueryText, parse_pattern};

    #[test]
    fn the_start_position_as_board_text() {
        let text = board_text(&Position::new());
        assert_eq!(
            text,
            "rnbqkbnr/pppppppp/......../......../......../......../PPPPPPPP/RNBQKBNR w"
        );
    }

    #[test]
    fn a_pattern_as_a_regex_matches_the_boards_the_pattern_matches() {
        let re = parse_pattern("r*k*/*/*/3P4/*/*/*/* w")
            .unwrap()
            .board_regex();
        assert_eq!(
            re,
            r"^r[^/]*k[^/]*/[^/]*/[^/]*/\.\.\.P\.\.\.\./[^/]*/[^/]*/[^/]*/[^/]* w$"
        );
        let any = parse_pattern("*/*/*/*/*/*/*/[Qq.]!?A*")
            .unwrap()
            .board_regex();
        assert_eq!(
            any,
            r"^[^/]*/[^/]*/[^/]*/[^/]*/[^/]*/[^/]*/[^/]*/[.Qq][PNBRQKpnbrqk][^/][PNBRQK][^/]* [wb]$"
        );
    }

    #[test]
    fn explain_gives_keys_material_and_patterns() {
        let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
        let (q, _) = QueryText {
            fen: Some(fen),
            material: Some("R vs mPP"),
            ..QueryText::default()
        }
        .parse()
        .unwrap();
        let json = explain(&q).unwrap();
        let pos = crate::positions::query::parse_fen_query(fen).unwrap();
        assert_eq!(
            json["keys"],
            serde_json::json!([pos.repetition_key() as i64])
        );
        assert_eq!(json["held"], 4);
        // A rook against a bishop or a knight and two pawns, either colour.
        let diffs = json["material"]["diffs"].as_array().unwrap();
        assert_eq!(diffs.len(), 4);
        assert!(diffs.contains(&serde_json::json!([0, 1, -1, 0, -2])));
        assert!(diffs.contains(&serde_json::json!([0, -1, 0, 1, 2])));
        let (sequence, _) = QueryText {
            sequence: Some("e4 e5"),
            ..QueryText::default()
        }
        .parse()
        .unwrap();
        assert_eq!(explain(&sequence), Err(Untranslatable("--sequence")));
    }
}
