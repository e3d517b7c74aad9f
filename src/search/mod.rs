//! arbiter's own engine: evaluation, alpha-beta search, transposition table and move ordering.
//! Built on the rules core only; deterministic under node and depth limits, so batch analysis
//! gives the same result on every run and with any number of worker threads.

pub mod analysis;
pub mod discover;
pub mod engine;
pub mod epd;
pub mod eval;
pub mod lichess;
pub mod limits;
pub mod ordering;
pub mod phase;
pub mod score;
#[allow(clippy::module_inception)]
pub mod search;
pub mod strength;
pub mod tt;
pub mod weights;

pub use analysis::{
    AnalysisFinding, AnalysisOptions, GameAnalysis, Judgement, MoveJudgement, PlyEval, analyse,
    analyse_game,
};
pub use engine::{EngineError, EngineLimit, EngineSpec};
pub use eval::evaluate;
pub use limits::Limits;
pub use score::{CpMap, Score};
pub use search::{SearchResult, Searcher};
