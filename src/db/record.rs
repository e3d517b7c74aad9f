//! `GameRecord`: everything the database stores about one accepted game, as plain values.
//! The pipeline builds it from a processed game; the writer never sees PGN tokens.

use crate::chess::Move;

/// One finding as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FindingRecord {
    pub code: &'static str,
    pub severity: &'static str,
    pub ply: Option<u32>,
    pub line: u64,
    pub column: u32,
    pub byte: u64,
    pub token: Option<String>,
    pub detail: String,
}

/// One evaluated ply: score from White's view (centipawns or mate), depth, nodes, best move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalRecord {
    pub ply: u32,
    pub score_cp: Option<i32>,
    pub mate: Option<i32>,
    pub depth: u32,
    pub nodes: u64,
    pub best_move: Option<Move>,
    pub deep: bool,
}

/// What `--analyse` found about a game.
#[derive(Debug, Clone, Default)]
pub struct AnalysisRecord {
    pub evals: Vec<EvalRecord>,
    /// White, Black.
    pub accuracy: [Option<f64>; 2],
    /// Per side: inaccuracies, mistakes, blunders.
    pub counts: [[u32; 3]; 2],
    pub settings: String,
}

/// The opening a game reached, by position (`identity::openings`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpeningRecord {
    pub eco: &'static str,
    /// Full name, `Sicilian Defense: Najdorf Variation`.
    pub name: &'static str,
    /// Ply of the deepest named position (0: the start).
    pub ply: u32,
}

impl OpeningRecord {
    /// The part before `:`.
    pub fn family(&self) -> &'static str {
        self.name
            .split_once(':')
            .map_or(self.name, |(f, _)| f.trim())
    }

    /// The part after `:`, when there is one.
    pub fn variation(&self) -> Option<&'static str> {
        self.name.split_once(':').map(|(_, v)| v.trim())
    }
}

#[derive(Debug, Clone, Default)]
pub struct GameRecord {
    pub game_number: u64,
    pub byte_offset: u64,
    pub line: u64,
    pub content_hash: [u8; 16],
    /// All tags in file order; the writer splits them into columns and the `tags` table.
    pub tags: Vec<(String, String)>,
    pub result_marker: Option<&'static str>,
    pub lawful_result: Option<&'static str>,
    pub termination: Option<(&'static str, u32)>,
    pub threefold_ply: Option<u32>,
    pub fifty_ply: Option<u32>,
    /// Year of the edition applied (1980, 1993, 2001, 2014; databases written before the 1993 rename store 1997); stored as text.
    pub laws_edition: Option<u16>,
    pub laws_undated: bool,
    pub chess960: bool,
    pub start_fen: Option<String>,
    pub final_fen: String,
    pub moves: Vec<Move>,
    pub clocks: Vec<Option<u64>>,
    /// Main-line comments: (ply, text).
    pub comments: Vec<(u32, String)>,
    /// Full movetext, when the game had variations or NAGs.
    pub annotated: Option<String>,
    pub findings: Vec<FindingRecord>,
    pub analysis: Option<AnalysisRecord>,
    /// The opening by position (standard start only).
    pub opening: Option<OpeningRecord>,
    /// The moves as stored: the packed layout (`encode::pack_moves`), made on the worker so
    /// that the writer's thread only writes.
    pub moves_blob: Vec<u8>,
}

impl GameRecord {
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}
