//! Critical-position analysis of one game in two tiers: arbiter's cheap search of every ply
//! draws an evaluation curve and marks the positions that may be critical; its deeper searches
//! settle them, or (with `--engine`) a UCI engine evaluates only those and their neighbours.
//! lichess's rules (`lichess`) turn the evaluations into labels, accuracy and findings.
//! Deterministic for arbiter's own tier: one searcher per game, cleared first, node limits only.
//! The formulas, thresholds and budgets are documented in `docs/ANALYSIS.md`.

use super::engine::{EngineError, EngineErrorKind, EngineLimit, EngineSpec, with_engine};
use super::lichess;
use super::weights;
use super::{Limits, Score, SearchResult, Searcher};
use crate::chess::san::to_san;
use crate::chess::{Color, Move, Position, Role};
use crate::laws::result::WhiteResult;

/// Finding codes of the analysis stage (declared in the one catalogue, `crate::findings`;
/// thresholds in `docs/ANALYSIS.md`).
pub mod code {
    pub use crate::findings::analysis::*;
}

/// Centipawns a mate counts as, and the clamp on every score, for the winning-chance formula.
pub const MATE_CP: i32 = 1000;
/// The first tier marks a move when its mover lost at least this many Win% points on
/// arbiter's settled curve (lichess's label metric): lichess's own inaccuracy threshold, so
/// the first tier marks what it would itself call an inaccuracy. Not fitted to the reference
/// labels; docs/ANALYSIS.md has what other marks would cost and gain.
pub const MARK_DROP: f64 = 5.0;
/// arbiter's deep searches settle both positions of every move whose drop on its curve is at
/// least this: one label band (5 Win% points, the cheap search's error is of that order) below
/// the lowest label its own tier emits (`OWN_TIER_LABELS`: blunders, 15), so a move the cheap
/// curve puts near a blunder is judged on deep evaluations. The engine's marks stay at
/// `MARK_DROP`.
pub const OWN_MARK_DROP: f64 = 10.0;
/// With an engine's sweep, a move its curve puts at least this many Win% points down but under
/// `MARK_DROP` (and not the sweep's best move) gets a second look: both its positions searched
/// again at `EngineSpec::refine_nodes`. Chosen on the development games (docs/ANALYSIS.md): a
/// point below the mark, the second look finds most of the inaccuracies the sweep misses at a
/// tenth of the cost of lowering the mark.
pub const REFINE_FROM: f64 = 4.0;
/// A move the second look puts at least this many points down is marked for the budget.
pub const REFINE_MARK: f64 = 5.0;
/// The labels arbiter's own tier emits (inaccuracy, mistake, blunder): those whose precision
/// against Stockfish at 1,000,000 nodes reached 0.5 on the development set (docs/ANALYSIS.md).
pub const OWN_TIER_LABELS: [bool; 3] = [false, false, true];
/// How far beyond lichess's blunder drop (15 Win% points) the own tier's drop must reach for
/// it to emit the blunder: the typical error of its drop at its deep budget. On the
/// development games, where both positions were settled deep, its drop differed from
/// Stockfish's at 1,000,000 nodes by 6.3 points on average (docs/ANALYSIS.md, "What the own
/// tier stands behind"), so a drop of 15 to 21 is as likely a mistake as a blunder.
pub const OWN_BLUNDER_MARGIN: f64 = 6.0;
/// Longest mate (in moves) whose loss is reported as a missed mate.
pub const MISSED_MATE_MAX: i32 = 3;
/// An only move: the best move's winning chances exceed the second best's by this much.
pub const ONLY_MOVE_GAP: f64 = 0.5;
/// Only positions whose best move keeps the mover's |wc| below this are probed for an only
/// move: in a decided game every move wins, or none saves.
pub const ONLY_MOVE_OPEN: f64 = 0.9;
/// The loser of a decisive game not ended by mate "was not lost" above this.
pub const RESIGNED_NOT_LOST_WC: f64 = -0.35;
/// A draw is agreed "in a won position" when one side's |wc| is at least this.
pub const DRAW_IN_WON_WC: f64 = 0.5;
/// Bumped whenever the analysis (not the engine) changes what it reports. 2: centipawns on the
/// calibrated scale (`cp_scale_percent` in the settings) and repetitions of the game's history
/// drawn only from the third occurrence. 3: lichess's labelling rules exactly (no label for
/// the best move, the mate transitions, raw centipawns for the drop), the scale fitted to
/// normalised Stockfish, and the two tiers.
/// 4: with an engine, its sweep of every position marks where its budget goes.
/// 5: the own tier evaluates with `weights::ANALYSIS` (the tuned weights, scale 1.40, a knee at
/// 5.25 pawns).
/// 6: the own tier emits a blunder only where it stands behind it (`own_stands_behind`).
pub const ANALYSIS_VERSION: u32 = 6;

/// Node budgets of the two passes and the hash size. The defaults analyse a 40-move master
/// game in a fraction of a second on one core (`docs/ANALYSIS.md` has the measurements).
/// With `engine`, a UCI engine evaluates the positions the cheap pass marks, at its own limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AnalysisOptions {
    /// A UCI engine to search with instead of arbiter's own (`--engine`); fixed for a run,
    /// hence `'static` (the command line leaks one spec) and the options stay `Copy`.
    pub engine: Option<&'static EngineSpec>,
    /// Nodes per ply in the cheap pass (and per only-move probe).
    pub cheap_nodes: u64,
    /// Nodes per critical position in the deep pass.
    pub deep_nodes: u64,
    /// Transposition table size in megabytes; part of the settings, since it changes results.
    pub tt_mb: usize,
}

impl Default for AnalysisOptions {
    fn default() -> AnalysisOptions {
        AnalysisOptions {
            engine: None,
            cheap_nodes: 2_000,
            deep_nodes: 20_000,
            tt_mb: 16,
        }
    }
}

/// The evaluation of one position of the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlyEval {
    /// The position before move `ply + 1`: ply 0 is the start, ply `n` the final position.
    pub ply: u32,
    /// From White's point of view: `Mate(n)` with n > 0 when White mates in n, n < 0 when
    /// Black does. `Mate(0)` is a checkmate on the board: the side to move at this ply has
    /// been mated.
    pub score_white: Score,
    pub depth: u32,
    pub nodes: u64,
    /// `None` when the game is over on the board (mate or stalemate).
    pub best_move: Option<Move>,
    /// The search's principal variation, `best_move` first: the better line annotated PGN
    /// shows beside a labelled move.
    pub pv: Pv,
    /// Settled by a deep search (or the engine); otherwise the cheap pass's estimate.
    pub deep: bool,
    /// Evaluated by the UCI engine (the second tier).
    pub engine: bool,
}

/// Plies of a principal variation kept with each evaluation: a few moves, as lichess shows
/// beside a labelled move.
pub const PV_PLIES: usize = 8;

/// The first `PV_PLIES` moves of a search's principal variation, best move first; empty when
/// the position has no legal move. Fixed-size, so an evaluation stays `Copy`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Pv {
    moves: [Move; PV_PLIES],
    len: u8,
}

impl Pv {
    /// The line `moves` begins, cut to `PV_PLIES`.
    pub fn new(moves: &[Move]) -> Pv {
        let mut pv = Pv::default();
        for &m in moves.iter().take(PV_PLIES) {
            pv.moves[pv.len as usize] = m;
            pv.len += 1;
        }
        pv
    }

    /// A search's line: its principal variation when that starts with its best move, else the
    /// best move alone (a variation cut short by the hash, or an engine that sent none).
    pub fn of(r: &SearchResult) -> Pv {
        match r.best_move {
            None => Pv::default(),
            Some(best) if r.pv.first() == Some(&best) => Pv::new(&r.pv),
            Some(best) => Pv::new(&[best]),
        }
    }

    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len as usize]
    }
}

/// Which tier's evaluations labelled a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tier {
    /// arbiter's own search.
    Own,
    /// The UCI engine of `--engine`: it evaluated both positions of the move.
    Engine,
}

/// What the second tier cost in one game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EngineUse {
    /// Positions the engine searched at its budget (the sweep's quick searches not counted).
    pub positions: u32,
    /// Nodes it reported, the sweep's included.
    pub nodes: u64,
    /// Positions with a legal move: what evaluating every position would search.
    pub searchable: u32,
}

/// What the analysis says about one move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoveJudgement {
    /// The move's 1-based ply: it leads from `evals[ply - 1]` to `evals[ply]`.
    pub ply: u32,
    pub judgement: Option<Judgement>,
    /// Why lichess's rules gave the label: a drop or a mate transition.
    pub reason: Option<Reason>,
    /// Whose evaluations judged the move.
    pub tier: Tier,
    /// The mover had a mate in at most `MISSED_MATE_MAX` and no longer has a forced mate.
    pub missed_mate: bool,
    /// The position before the move had one move far better than every other.
    pub only_move: bool,
    /// Lichess's move accuracy, 0–100.
    pub accuracy: f64,
}

/// A fact the analysis reports, with a stable code (see `code`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnalysisFinding {
    pub code: &'static str,
    /// The move's 1-based ply; for game-level findings the last ply.
    pub ply: u32,
    pub message: String,
}

/// Everything `analyse_game` found.
#[derive(Clone, Debug, PartialEq)]
pub struct GameAnalysis {
    /// One per position, `moves.len() + 1` in all.
    pub evals: Vec<PlyEval>,
    /// One per move.
    pub moves: Vec<MoveJudgement>,
    /// Game accuracy of White and Black; `None` for a side that made no move.
    pub accuracy: [Option<f64>; 2],
    /// Per side (White, Black): inaccuracies, mistakes, blunders.
    pub counts: [[u32; 3]; 2],
    pub findings: Vec<AnalysisFinding>,
    /// JSON of the options, thresholds and engine version: enough to reproduce the analysis.
    pub settings: String,
    /// The second tier's cost (zero without an engine).
    pub engine: EngineUse,
    /// The engine's illegal reply that ended the second tier early; the evaluations it made
    /// before are used, arbiter's own elsewhere.
    pub engine_failure: Option<EngineError>,
}

// ---- formulas ------------------------------------------------------------------------------

pub use super::lichess::{Eval, Label as Judgement, Reason, move_accuracy};

/// Winning chances of a centipawn score clamped to ±`MATE_CP`, in −1..1 (lichess's Win% uses
/// the clamped score; its labels the raw one: `lichess::label`).
pub fn winning_chances(cp: i32) -> f64 {
    lichess::winning_chances(cp.clamp(-MATE_CP, MATE_CP))
}

/// Winning chances of a score, from the point of view the score is given in (mate = ±1000).
pub fn score_winning_chances(score: Score) -> f64 {
    winning_chances(score.to_cp_clamped(MATE_CP))
}

/// Lichess's Win% of a centipawn score: 50 + 50·wc, in 0..100.
pub fn win_percent(cp: i32) -> f64 {
    lichess::win_percent(Eval::Cp(cp))
}

/// Lichess's game accuracy from White's centipawns of every position, start first
/// (`lichess::game_accuracy`).
pub fn game_accuracy(white_cp: &[i32], white_first: bool) -> [Option<f64>; 2] {
    lichess::game_accuracy(white_cp, white_first)
}

impl Judgement {
    pub const ALL: [Judgement; 3] = [
        Judgement::Inaccuracy,
        Judgement::Mistake,
        Judgement::Blunder,
    ];

    /// 0, 1, 2: the index into `GameAnalysis::counts`.
    pub fn index(self) -> usize {
        self as usize
    }

    pub fn code(self) -> &'static str {
        match self {
            Judgement::Inaccuracy => code::INACCURACY,
            Judgement::Mistake => code::MISTAKE,
            Judgement::Blunder => code::BLUNDER,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Judgement::Inaccuracy => "inaccuracy",
            Judgement::Mistake => "mistake",
            Judgement::Blunder => "blunder",
        }
    }
}

// ---- the analysis --------------------------------------------------------------------------

/// One position's search result, from the side to move's point of view, in centipawns of
/// normalised Stockfish's scale (arbiter's are mapped by `weights::ANALYSIS`'s scale).
#[derive(Clone, Copy)]
struct Slot {
    score: Score,
    depth: u32,
    nodes: u64,
    best: Option<Move>,
    pv: Pv,
    deep: bool,
}

impl Slot {
    fn from_result(r: &SearchResult, deep: bool) -> Slot {
        Slot {
            score: r.score,
            depth: r.depth,
            nodes: r.nodes,
            best: r.best_move,
            pv: Pv::of(r),
            deep,
        }
    }

    /// Winning chances of the side to move.
    fn wc(&self) -> f64 {
        score_winning_chances(self.score)
    }

    /// lichess's view of this evaluation, from the side to move.
    fn eval(&self) -> Eval {
        match self.score {
            Score::Cp(cp) => Eval::Cp(cp),
            Score::Mate(n) => Eval::Mate(n),
        }
    }
}

/// The game's positions and repetition keys, searched by arbiter's own searcher.
struct SearchedGame<'a> {
    positions: Vec<Position>,
    keys: Vec<u64>,
    searcher: Box<Searcher>,
    options: &'a AnalysisOptions,
}

impl<'a> SearchedGame<'a> {
    /// The game's positions and keys from `start`, with a fresh searcher.
    fn new(start: &Position, moves: &[Move], options: &'a AnalysisOptions) -> SearchedGame<'a> {
        let mut positions = Vec::with_capacity(moves.len() + 1);
        let mut keys = Vec::with_capacity(moves.len() + 1);
        let mut pos = *start;
        positions.push(pos);
        keys.push(pos.zobrist());
        for &m in moves {
            debug_assert!(pos.is_legal(m), "analyse_game needs legal moves");
            pos.play_unchecked(m);
            positions.push(pos);
            keys.push(pos.zobrist());
        }
        let mut searcher = Box::new(Searcher::calibrated(options.tt_mb, weights::ANALYSIS));
        // A fresh table already; cleared anyway so the promise holds if searchers are ever
        // reused.
        searcher.clear();
        SearchedGame {
            positions,
            keys,
            searcher,
            options,
        }
    }

    /// Whether the best move of `slot` (at ply `k`) is the only move at this budget: the
    /// position is not yet decided, it is no recapture, and the best of the other moves
    /// gives up at least `ONLY_MOVE_GAP` in winning chances.
    fn only_move(&mut self, k: usize, moves: &[Move], slot: &Slot, nodes: u64) -> bool {
        let Some(best) = slot.best else {
            return false;
        };
        let wc = slot.wc();
        if wc.abs() >= ONLY_MOVE_OPEN || is_recapture(&self.positions, moves, k, best) {
            return false;
        }
        let second = self.search(k, nodes, &[best]);
        second.best_move.is_some() && wc - score_winning_chances(second.score) >= ONLY_MOVE_GAP
    }

    /// Step 3: deep searches until both positions of every move that may get arbiter's own
    /// label (`suspect`), every only-move candidate and (`final_position`) the last position
    /// are settled; a deep score can make a neighbouring move look critical, so the marking
    /// at `mark` runs again on the new curve.
    fn triage(
        &mut self,
        slots: &mut [Slot],
        mut suspect: Vec<bool>,
        only_candidates: &[usize],
        final_position: bool,
        mark: f64,
    ) {
        let n = slots.len() - 1;
        loop {
            let mut wanted = both_ends(&suspect);
            for &k in only_candidates {
                wanted[k] = true;
            }
            if final_position {
                wanted[n] = true;
            }
            let todo: Vec<usize> = (0..=n).filter(|&p| wanted[p] && !slots[p].deep).collect();
            if todo.is_empty() {
                break;
            }
            for p in todo {
                slots[p] = self.deep(p);
            }
            suspect = suspects(slots, n, mark);
        }
    }

    fn search(&mut self, ply: usize, nodes: u64, excluded: &[Move]) -> SearchResult {
        let (pos, history) = (&self.positions[ply], &self.keys[..=ply]);
        let limits = Limits::nodes(nodes);
        if excluded.is_empty() {
            self.searcher.search(pos, history, limits)
        } else {
            self.searcher
                .search_excluding(pos, history, limits, excluded)
        }
    }

    fn deep(&mut self, ply: usize) -> Slot {
        let r = self.search(ply, self.options.deep_nodes, &[]);
        Slot::from_result(&r, true)
    }
}

/// The side to move at `k` mates in 1..=`MISSED_MATE_MAX`.
fn short_mate(slot: &Slot) -> bool {
    matches!(slot.score, Score::Mate(m) if (1..=MISSED_MATE_MAX).contains(&m))
}

/// The side to move at `k + 1` is being mated: the mover of move `k` still mates.
fn being_mated(slot: &Slot) -> bool {
    matches!(slot.score, Score::Mate(m) if m <= 0)
}

/// The moves the first tier marks as possibly critical, from its curve: those that lichess's
/// label metric (the drop of the mover's winning chances on raw centipawns, in Win% points)
/// puts at `mark` or more, and the possible mate transitions (the mover had a forced
/// mate and no longer has one, or the move lets the opponent force one).
fn suspects(slots: &[Slot], n: usize, mark: f64) -> Vec<bool> {
    (0..n)
        .map(|k| suspect_move(&slots[k], &slots[k + 1], mark))
        .collect()
}

/// lichess's label metric on one move, from the evaluations before and after it (each from
/// its side to move): the mover lost at least `mark` Win% points, or lost a forced mate, or
/// let the opponent force one.
fn suspect_move(before: &Slot, after: &Slot, mark: f64) -> bool {
    let (before, after) = (before.eval(), after.eval().flip());
    let drop = match (before, after) {
        (Eval::Cp(b), Eval::Cp(a)) => {
            50.0 * (lichess::winning_chances(b) - lichess::winning_chances(a))
        }
        _ => lichess::win_percent(before) - lichess::win_percent(after),
    };
    // A mate kept (or given) is not lichess's "lost forced checkmate": only its loss is.
    let mate_lost =
        matches!(before, Eval::Mate(m) if m > 0) && !matches!(after, Eval::Mate(m) if m >= 0);
    let mate_allowed = matches!(before, Eval::Cp(_)) && matches!(after, Eval::Mate(m) if m < 0);
    drop >= mark || mate_lost || mate_allowed
}

/// Both positions of every suspect move: where the first tier's deep searches go.
fn both_ends(suspect: &[bool]) -> Vec<bool> {
    let mut marks = vec![false; suspect.len() + 1];
    for (k, _) in suspect.iter().enumerate().filter(|(_, s)| **s) {
        marks[k] = true;
        marks[k + 1] = true;
    }
    marks
}

/// Analyses one game with arbiter's own search only. `moves` must be legal from `start` (as
/// `game::replay` gives them); `recorded_result` is the PGN result (`1-0`, `0-1`, `1/2-1/2`,
/// `*`) and `termination_is_mate` says the game ended by checkmate on the board. The same input
/// and options give a bit-identical result whatever was analysed before, on any thread.
pub fn analyse_game(
    start: &Position,
    moves: &[Move],
    recorded_result: Option<&str>,
    termination_is_mate: bool,
    options: &AnalysisOptions,
) -> GameAnalysis {
    let own = AnalysisOptions {
        engine: None,
        ..*options
    };
    match analyse(start, moves, recorded_result, termination_is_mate, &own) {
        Ok(a) => a,
        Err(e) => unreachable!("arbiter's own search does not fail: {e}"),
    }
}

/// The second tier's evaluations of a game: per position, the engine's result when it
/// searched it.
struct EngineTier {
    /// The engine's name, as it reported it.
    name: String,
    /// At the engine's budget.
    slots: Vec<Option<Slot>>,
    /// The sweep's quick evaluations of every position (empty without a sweep).
    sweep: Vec<Slot>,
    nodes: u64,
    /// What stopped the tier early (an illegal reply): the evaluations before it are kept.
    failure: Option<EngineError>,
}

/// The positions the engine searches at its budget, from the suspect moves: where each starts
/// and the ply after it (both are needed to judge it), the ply before it when `before`, and
/// the final position when the game-level checks need it.
fn engine_wanted(suspect: &[bool], before: bool, game_level: bool) -> Vec<bool> {
    let n = suspect.len();
    let mut wanted = vec![false; n + 1];
    for k in (0..n).filter(|&k| suspect[k]) {
        let from = if before { k.saturating_sub(1) } else { k };
        wanted[from..=k + 1].fill(true);
    }
    if game_level {
        wanted[n] = true;
    }
    wanted
}

/// Runs the UCI engine after `ucinewgame`: with a sweep (`EngineSpec::sweep_nodes`), a quick
/// search of every position in order, whose curve marks the suspect moves (`suspects`, the
/// same rule as arbiter's own); without one, arbiter's marks (`own_suspect`). Then the
/// budgeted searches of `engine_wanted`, in order. A crash or a hang is retried once on a
/// fresh engine; a second one is the error. An illegal reply ends the tier there, keeping
/// what was evaluated.
fn engine_tier(
    spec: &'static EngineSpec,
    positions: &[Position],
    moves: &[Move],
    own_suspect: &[bool],
    game_level: bool,
) -> Result<EngineTier, EngineError> {
    let mut attempt = 0;
    loop {
        let mut tier = EngineTier {
            name: String::new(),
            slots: vec![None; positions.len()],
            sweep: Vec::new(),
            nodes: 0,
            failure: None,
        };
        let run = (|| {
            tier.name = with_engine(spec, |e| {
                e.set_chess960(positions[0].is_chess960())?;
                e.new_game()?;
                Ok(e.name.clone())
            })?;
            if spec.sweep_nodes > 0 {
                for ply in 0..positions.len() {
                    let limit = EngineLimit::Nodes(spec.sweep_nodes);
                    let r = search_at(spec, positions, moves, ply, limit)?;
                    tier.nodes += r.nodes;
                    tier.sweep.push(Slot::from_result(&r, false));
                }
            }
            // arbiter's marks miss moves its curve does not see, so the ply before each is
            // searched too (issue 33: "plus the ply before and after each"); the sweep judges
            // every move itself, the one before included, so its marks need only both ends.
            let n = moves.len();
            let (wanted, only_after) = if tier.sweep.is_empty() {
                (
                    engine_wanted(own_suspect, true, game_level),
                    vec![false; n + 1],
                )
            } else {
                // A move the sweep itself found best is not marked: its drop is the sweep's
                // own noise between two positions, and lichess labels no best move.
                let mut marks: Vec<bool> = suspects(&tier.sweep, n, MARK_DROP)
                    .into_iter()
                    .enumerate()
                    .map(|(k, s)| s && tier.sweep[k].best != Some(moves[k]))
                    .collect();
                if spec.refine_nodes > 0 {
                    refine(spec, positions, moves, &mut tier, &mut marks)?;
                }
                // Positions wanted only as the end of a marked move: not needed when the engine
                // found the move played best at its budget (lichess gives it no label).
                let only_after = (0..=n)
                    .map(|p| {
                        p > 0 && marks[p - 1] && !(p < n && marks[p]) && !(game_level && p == n)
                    })
                    .collect();
                (engine_wanted(&marks, false, game_level), only_after)
            };
            for (ply, _) in wanted.iter().enumerate().filter(|(_, w)| **w) {
                if only_after[ply]
                    && tier.slots[ply - 1].is_some_and(|s| s.best == Some(moves[ply - 1]))
                {
                    continue;
                }
                let r = search_at(spec, positions, moves, ply, spec.limit)?;
                tier.nodes += r.nodes;
                tier.slots[ply] = Some(Slot::from_result(&r, true));
            }
            Ok::<(), EngineError>(())
        })();
        match run {
            Ok(()) => return Ok(tier),
            Err(e) if matches!(e.kind, EngineErrorKind::BadMove { .. }) => {
                // A sweep cut short marks nothing: arbiter's own curve and labels stand.
                if tier.sweep.len() < positions.len() {
                    tier.sweep.clear();
                }
                tier.failure = Some(e);
                return Ok(tier);
            }
            Err(e) if attempt == 0 && e.restartable() => attempt += 1,
            Err(e) => return Err(e),
        }
    }
}

/// The engine's search of the game's position after `ply` moves at `limit`, an error located
/// at that ply.
fn search_at(
    spec: &EngineSpec,
    positions: &[Position],
    moves: &[Move],
    ply: usize,
    limit: EngineLimit,
) -> Result<SearchResult, EngineError> {
    with_engine(spec, |e| {
        e.search_limited(&positions[0], &moves[..ply], &positions[ply], &[], limit)
    })
    .map_err(|mut e| {
        e.ply = Some(ply as u32);
        e
    })
}

/// The sweep's second look: both positions of every move the sweep puts between `REFINE_FROM`
/// and `MARK_DROP` down, where the move played is not the sweep's best, are searched again at
/// `EngineSpec::refine_nodes`, in order; those searches replace the sweep's evaluations, and
/// the moves they put `REFINE_MARK` down (or across a mate transition) are marked.
fn refine(
    spec: &EngineSpec,
    positions: &[Position],
    moves: &[Move],
    tier: &mut EngineTier,
    marks: &mut [bool],
) -> Result<(), EngineError> {
    let candidates: Vec<usize> = (0..moves.len())
        .filter(|&k| {
            !marks[k]
                && tier.sweep[k].best != Some(moves[k])
                && suspect_move(&tier.sweep[k], &tier.sweep[k + 1], REFINE_FROM)
        })
        .collect();
    let mut refined = vec![false; positions.len()];
    for k in candidates {
        for ply in [k, k + 1] {
            if refined[ply] {
                continue;
            }
            let r = search_at(
                spec,
                positions,
                moves,
                ply,
                EngineLimit::Nodes(spec.refine_nodes),
            )?;
            tier.nodes += r.nodes;
            tier.sweep[ply] = Slot::from_result(&r, false);
            refined[ply] = true;
        }
        marks[k] = tier.sweep[k].best != Some(moves[k])
            && suspect_move(&tier.sweep[k], &tier.sweep[k + 1], REFINE_MARK);
    }
    Ok(())
}

/// Analyses one game: arbiter's own search draws the curve and marks the critical positions;
/// without `options.engine` its deeper searches settle them, with it the UCI engine evaluates
/// the marked positions and the ply before and after each, and its evaluations decide those
/// moves' labels. Labels, accuracy and findings follow lichess's rules (`lichess`). An engine
/// that crashes or hangs twice is the error, naming the engine, the position and its ply.
pub fn analyse(
    start: &Position,
    moves: &[Move],
    recorded_result: Option<&str>,
    termination_is_mate: bool,
    options: &AnalysisOptions,
) -> Result<GameAnalysis, EngineError> {
    let n = moves.len();
    let mut game = SearchedGame::new(start, moves, options);

    // 1. The cheap curve.
    let mut slots = Vec::with_capacity(n + 1);
    for ply in 0..=n {
        let r = game.search(ply, options.cheap_nodes, &[]);
        slots.push(Slot::from_result(&r, false));
    }

    // 2. Only-move probes: the cheap pass's best move against the best of the rest, where an
    // only move can be reported: the move played was the best (`analysis.only-move`), or the
    // move may get a label (its message says the only move was missed).
    // An engine without a sweep searches what arbiter marks at `MARK_DROP`: those moves are
    // settled deep first, as they were before the sweep.
    let own_mark = match options.engine {
        Some(spec) if spec.sweep_nodes == 0 => MARK_DROP,
        _ => OWN_MARK_DROP,
    };
    let may_label = suspects(&slots, n, own_mark);
    let only_candidates: Vec<usize> = (0..n)
        .filter(|&k| {
            let slot = &slots[k];
            slot.best
                .is_some_and(|best| best == moves[k] || may_label[k])
                && game.only_move(k, moves, slot, options.cheap_nodes)
        })
        .collect();

    // 3. Triage: deep searches until both positions of every move that may get arbiter's own
    // label are settled (a deep score can make a neighbouring move look critical, so the
    // marking runs again on the new curve).
    let game_level = game_level_kind(recorded_result, termination_is_mate);
    game.triage(
        &mut slots,
        may_label,
        &only_candidates,
        game_level.is_some(),
        own_mark,
    );

    // 4. Only moves confirmed at the deep budget.
    let mut only = vec![false; n];
    for &k in &only_candidates {
        only[k] = game.only_move(k, moves, &slots[k], options.deep_nodes);
    }

    // 5. The second tier: the engine on the marked positions (where a suspect move starts)
    // and the ply before and after each (and the final position when the game-level checks
    // need it).
    let positions = &game.positions;
    let (engine_slots, sweep, engine_nodes, engine_failure, engine_name) = match options.engine {
        None => (vec![None; n + 1], Vec::new(), 0, None, None),
        Some(spec) => {
            let marks = suspects(&slots, n, MARK_DROP);
            let tier = engine_tier(spec, positions, moves, &marks, game_level.is_some())?;
            let name = Some(tier.name);
            (tier.slots, tier.sweep, tier.nodes, tier.failure, name)
        }
    };
    let engine_positions = engine_slots.iter().filter(|s| s.is_some()).count() as u32;
    // The curve the labels and the accuracy read: the engine's where it searched at its
    // budget, its sweep's elsewhere (closer to it than arbiter's), arbiter's without either.
    let curve: Vec<Slot> = slots
        .iter()
        .enumerate()
        .map(|(p, own)| engine_slots[p].or(sweep.get(p).copied()).unwrap_or(*own))
        .collect();
    let standard_start = start.fen() == crate::chess::START_FEN;

    // 6. Labels, accuracy and findings.
    let judging = Judging {
        positions,
        moves,
        slots: &slots,
        engine_slots: &engine_slots,
        sweep_empty: sweep.is_empty(),
        only: &only,
        standard_start,
        engine_name: engine_name.as_deref(),
    };
    let mut judged = Vec::with_capacity(n);
    let mut counts = [[0u32; 3]; 2];
    let mut findings = Vec::new();
    for k in 0..n {
        judged.push(judging.judge(k, &mut counts, &mut findings));
    }

    let white_cp: Vec<i32> = curve
        .iter()
        .zip(positions)
        .map(|(s, p)| white_view_cp(s.score, p.turn()))
        .collect();
    if let Some(kind) = game_level {
        let (last, keys) = (&positions[n], &game.keys);
        findings.extend(game_level_finding(kind, last, keys, white_cp[n], n as u32));
    }
    let accuracy = accuracy_of(white_cp, standard_start, start.turn());

    let evals = ply_evals(&curve, positions, &engine_slots);
    let settings = settings_json(options, engine_name.as_deref());
    let searchable = positions.iter().filter(|p| p.has_legal_moves()).count() as u32;
    Ok(GameAnalysis {
        evals,
        moves: judged,
        accuracy,
        counts,
        findings,
        settings,
        engine: EngineUse {
            positions: engine_positions,
            nodes: engine_nodes,
            searchable,
        },
        engine_failure,
    })
}

/// The game's accuracy from White's view of the curve, the start position read at lichess's
/// fixed evaluation when it is the standard one.
fn accuracy_of(mut white_cp: Vec<i32>, standard_start: bool, first: Color) -> [Option<f64>; 2] {
    if standard_start {
        white_cp[0] = lichess::INITIAL_CP;
    }
    game_accuracy(&white_cp, first == Color::White)
}

/// Each position's evaluation as stored: White's view of the curve, with its depth, nodes,
/// best move, and whether it was searched deep or by the engine.
fn ply_evals(
    curve: &[Slot],
    positions: &[Position],
    engine_slots: &[Option<Slot>],
) -> Vec<PlyEval> {
    curve
        .iter()
        .zip(positions)
        .zip(engine_slots)
        .enumerate()
        .map(|(ply, ((s, p), eng))| PlyEval {
            ply: ply as u32,
            score_white: white_view(s.score, p.turn()),
            depth: s.depth,
            nodes: s.nodes,
            best_move: s.best,
            pv: s.pv,
            deep: s.deep,
            engine: eng.is_some(),
        })
        .collect()
}

/// What the labels, the accuracy and the findings of step 6 read: the game, arbiter's curve,
/// the engine's positions, whether it swept, and the only moves.
struct Judging<'g> {
    positions: &'g [Position],
    moves: &'g [Move],
    slots: &'g [Slot],
    engine_slots: &'g [Option<Slot>],
    sweep_empty: bool,
    only: &'g [bool],
    standard_start: bool,
    engine_name: Option<&'g str>,
}

impl Judging<'_> {
    /// The judgement of move `k` (ply k + 1): its label counted in `counts`, its findings
    /// (label, missed mate, only move) added to `findings`.
    fn judge(
        &self,
        k: usize,
        counts: &mut [[u32; 3]; 2],
        findings: &mut Vec<AnalysisFinding>,
    ) -> MoveJudgement {
        let played = self.moves[k];
        // The engine judged the move when it searched both its positions at its budget, or
        // the one before and found the move played best there (the position after is then
        // left out when nothing else needs it: lichess gives a best move no label).
        let engine_best = self.engine_slots[k].is_some_and(|s| s.best == Some(played));
        let tier = if self.engine_slots[k].is_some()
            && (self.engine_slots[k + 1].is_some() || engine_best)
        {
            Tier::Engine
        } else {
            Tier::Own
        };
        let (before, after) = match tier {
            Tier::Engine => (
                self.engine_slots[k].unwrap(),
                self.engine_slots[k + 1].unwrap_or(self.slots[k + 1]),
            ),
            Tier::Own => (self.slots[k], self.slots[k + 1]),
        };
        let pos = &self.positions[k];
        let side = pos.turn().index();
        let ply = k as u32 + 1;
        // lichess judges the first move of a game from its fixed start evaluation.
        let before_eval = if k == 0 && self.standard_start {
            Eval::Cp(lichess::INITIAL_CP)
        } else {
            before.eval()
        };
        let after_eval = after.eval().flip();
        // The own tier judges on both positions settled deep (the first move from lichess's
        // fixed start evaluation needs only its end).
        let settled = after.deep && (before.deep || (k == 0 && self.standard_start));
        // With a sweep, a move the engine did not search at its budget was not marked: the
        // engine's own quick look found no label there, so arbiter's is not given either.
        let label = lichess::label(before_eval, after_eval, before.best == Some(played)).filter(
            |&(j, reason)| {
                tier == Tier::Engine
                    || (self.sweep_empty
                        && OWN_TIER_LABELS[j.index()]
                        && settled
                        && own_stands_behind(before_eval, after_eval, j, reason))
            },
        );
        let judgement = label.map(|(j, _)| j);
        let missed_mate =
            !(tier == Tier::Engine && engine_best) && short_mate(&before) && !being_mated(&after);
        let text = move_label(pos, played);
        let best_text = |slot: &Slot| {
            slot.best
                .filter(|&b| b != played)
                .map_or(String::new(), |b| format!("; best was {}", to_san(pos, b)))
        };
        if let Some((j, reason)) = label {
            counts[side][j.index()] += 1;
            let why = match reason {
                Reason::Drop => format!(
                    "{}'s Win% fell from {:.1} to {:.1}",
                    side_name(pos.turn()),
                    lichess::win_percent(before_eval),
                    lichess::win_percent(after_eval),
                ),
                Reason::MateCreated => "checkmate is now unavoidable".to_string(),
                Reason::MateLost => "a forced checkmate was lost".to_string(),
            };
            findings.push(AnalysisFinding {
                code: j.code(),
                ply,
                message: format!(
                    "{text} is {} {}: {why}{}{} [{}]",
                    article(j),
                    j.as_str(),
                    best_text(&before),
                    if self.only[k] { " (the only move)" } else { "" },
                    match tier {
                        Tier::Engine => self.engine_name.unwrap_or("engine"),
                        Tier::Own => "arbiter",
                    }
                ),
            });
        }
        if missed_mate {
            let Score::Mate(m) = before.score else {
                unreachable!("short_mate matched a mate")
            };
            findings.push(AnalysisFinding {
                code: code::MISSED_MATE,
                ply,
                message: format!(
                    "{text} misses a mate in {m}{}",
                    best_text(&before).replacen("; best was", ", starting with", 1)
                ),
            });
        }
        if self.only[k] && self.slots[k].best == Some(played) {
            findings.push(AnalysisFinding {
                code: code::ONLY_MOVE,
                ply,
                message: format!(
                    "{text} is the only move: every other gives up at least {ONLY_MOVE_GAP} \
                 in winning chances"
                ),
            });
        }
        MoveJudgement {
            ply,
            judgement,
            reason: label.map(|(_, r)| r),
            tier,
            missed_mate,
            only_move: self.only[k],
            accuracy: move_accuracy(
                lichess::win_percent(before_eval),
                lichess::win_percent(after_eval),
            ),
        }
    }
}

/// Whether arbiter's own tier stands behind the label `j` lichess's rules give a move on its
/// settled curve (`before` and `after` from the mover's side): a mate transition (its search
/// found the mate), or a drop at least `OWN_BLUNDER_MARGIN` beyond the label's threshold.
fn own_stands_behind(before: Eval, after: Eval, j: Judgement, reason: Reason) -> bool {
    match (reason, before, after) {
        (Reason::MateCreated | Reason::MateLost, _, _) => true,
        (Reason::Drop, Eval::Cp(b), Eval::Cp(a)) => {
            let threshold = lichess::WC_DROPS
                .iter()
                .find(|(_, l)| *l == j)
                .map_or(f64::INFINITY, |(d, _)| *d);
            let drop = lichess::winning_chances(b) - lichess::winning_chances(a);
            // Win% points are 50 × winning chances.
            50.0 * drop >= 50.0 * threshold + OWN_BLUNDER_MARGIN
        }
        (Reason::Drop, _, _) => false,
    }
}

/// The JSON recorded with every analysis, keys sorted: enough to reproduce it. With an engine,
/// its name as it reported it (`engine_name`), path, limit, threads and options too. The
/// `analyse` stage skips a game whose stored settings are these.
pub fn settings_json(options: &AnalysisOptions, engine_name: Option<&str>) -> String {
    let mut v = serde_json::json!({
        "engine": concat!("arbiter ", env!("CARGO_PKG_VERSION")),
        "analysis_version": ANALYSIS_VERSION,
        "cheap_nodes": options.cheap_nodes,
        "deep_nodes": options.deep_nodes,
        "tt_mb": options.tt_mb,
        "cp_scale_percent": weights::ANALYSIS.cp_map.scale_percent,
        "cp_knee": weights::ANALYSIS.cp_map.knee,
        "cp_above_knee_percent": weights::ANALYSIS.cp_map.above_knee_percent,
        "weights": weights::ANALYSIS.name,
        "repetition": "third occurrence in the game, second inside the search",
        "labels": "lichess (Advice, WinPercent, AccuracyPercent)",
        "mark_drop": MARK_DROP,
        "own_mark_drop": OWN_MARK_DROP,
        "only_move_probes": "best move played or may be labelled",
        "own_tier_labels": OWN_TIER_LABELS,
        "own_blunder_margin": OWN_BLUNDER_MARGIN,
        "missed_mate_max": MISSED_MATE_MAX,
        "only_move_gap": ONLY_MOVE_GAP,
    });
    if let (Some(spec), Some(name)) = (options.engine, engine_name) {
        v["uci_engine"] = spec.settings(name);
        // The second look's band, with its nodes (`refine`): an engine's analysis only.
        if spec.sweep_nodes > 0 && spec.refine_nodes > 0 {
            v["uci_engine"]["refine_from"] = serde_json::json!(REFINE_FROM);
            v["uci_engine"]["refine_mark"] = serde_json::json!(REFINE_MARK);
        }
    }
    v.to_string()
}

fn white_view(score: Score, turn: Color) -> Score {
    match (turn, score) {
        (Color::White, s) => s,
        (Color::Black, Score::Cp(cp)) => Score::Cp(-cp),
        (Color::Black, Score::Mate(m)) => Score::Mate(-m),
    }
}

fn white_view_cp(score: Score, turn: Color) -> i32 {
    let cp = score.to_cp_clamped(MATE_CP);
    if turn == Color::White { cp } else { -cp }
}

/// Taking back on the square where the previous move captured: forced in the trivial sense,
/// and not worth reporting as an only move.
fn is_recapture(positions: &[Position], moves: &[Move], k: usize, best: Move) -> bool {
    k > 0
        && positions[k].is_capture(best)
        && positions[k - 1].is_capture(moves[k - 1])
        && best.to() == moves[k - 1].to()
}

#[derive(Clone, Copy)]
enum GameLevel {
    Decisive { loser: Color },
    Draw,
}

fn game_level_kind(result: Option<&str>, termination_is_mate: bool) -> Option<GameLevel> {
    match WhiteResult::of(result)? {
        WhiteResult::WhiteWins if !termination_is_mate => Some(GameLevel::Decisive {
            loser: Color::Black,
        }),
        WhiteResult::BlackWins if !termination_is_mate => Some(GameLevel::Decisive {
            loser: Color::White,
        }),
        WhiteResult::Draw => Some(GameLevel::Draw),
        _ => None,
    }
}

fn game_level_finding(
    kind: GameLevel,
    last: &Position,
    keys: &[u64],
    white_cp: i32,
    ply: u32,
) -> Option<AnalysisFinding> {
    if !last.has_legal_moves() {
        return None;
    }
    let wc_white = winning_chances(white_cp);
    match kind {
        GameLevel::Decisive { loser } => {
            let wc = if loser == Color::White {
                wc_white
            } else {
                -wc_white
            };
            (wc > RESIGNED_NOT_LOST_WC).then(|| AnalysisFinding {
                code: code::RESIGNED_NOT_LOST,
                ply,
                message: format!(
                    "{} lost without being mated, but its winning chances in the final \
                     position were {wc:+.2} (lost means {RESIGNED_NOT_LOST_WC} or below)",
                    side_name(loser)
                ),
            })
        }
        GameLevel::Draw => {
            if ended_in_draw_on_board(last, keys) || wc_white.abs() < DRAW_IN_WON_WC {
                return None;
            }
            let winner = if wc_white > 0.0 {
                Color::White
            } else {
                Color::Black
            };
            Some(AnalysisFinding {
                code: code::DRAW_IN_WON_POSITION,
                ply,
                message: format!(
                    "drawn with {} winning: its winning chances in the final position were {:+.2}",
                    side_name(winner),
                    wc_white.abs()
                ),
            })
        }
    }
}

/// A draw the board itself gives (threefold repetition, 50 moves, bare kings and a minor):
/// nothing was agreed. Stalemate is excluded before this, having no legal move.
fn ended_in_draw_on_board(last: &Position, keys: &[u64]) -> bool {
    let key = keys[keys.len() - 1];
    let reps = keys
        .iter()
        .rev()
        .take(last.halfmove_clock() as usize + 1)
        .filter(|&&k| k == key)
        .count();
    let bare = last.occupied().count() <= 3
        && (last.by_role(Role::Pawn) | last.by_role(Role::Rook) | last.by_role(Role::Queen))
            .is_empty();
    reps >= 3 || last.halfmove_clock() >= 100 || bare
}

fn side_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

fn article(j: Judgement) -> &'static str {
    match j {
        Judgement::Inaccuracy => "an",
        _ => "a",
    }
}

/// `12. Nf3` or `12... Nf6`.
fn move_label(pos: &Position, m: Move) -> String {
    let dots = if pos.turn() == Color::White {
        "."
    } else {
        "..."
    };
    format!("{}{dots} {}", pos.fullmove_number(), to_san(pos, m))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot(score: Score) -> Slot {
        Slot {
            score,
            depth: 1,
            nodes: 1,
            best: None,
            pv: Pv::default(),
            deep: false,
        }
    }

    /// Scores from each position's side to move: [before move 1, after it, after move 2].
    fn marks(scores: [Score; 3], mark: f64) -> Vec<bool> {
        suspects(&scores.map(slot), 2, mark)
    }

    #[test]
    fn a_kept_mate_is_not_marked_a_lost_one_and_an_allowed_one_are() {
        // White mates in 3, plays on and still mates in 2 (Black to move is mated in 2):
        // lichess gives no label, so nothing is marked; Black's reply keeps it too.
        assert_eq!(
            marks([Score::Mate(3), Score::Mate(-2), Score::Mate(2)], MARK_DROP),
            [false, false]
        );
        // The mating move itself (Black is mated on the board): kept.
        let mated = suspects(&[slot(Score::Mate(1)), slot(Score::Mate(0))], 1, MARK_DROP);
        assert_eq!(mated, [false]);
        // White had a mate and now only +5: lost forced checkmate.
        assert_eq!(
            marks([Score::Mate(3), Score::Cp(-500), Score::Cp(500)], MARK_DROP),
            [true, false]
        );
        // A level position where the move lets the opponent mate.
        assert_eq!(
            marks([Score::Cp(0), Score::Mate(4), Score::Mate(-3)], MARK_DROP),
            [true, false]
        );
    }

    #[test]
    fn the_mark_is_lichess_drop_in_win_percent() {
        // White +100 -> -50: wc(100) - wc(-50) = 0.182 + 0.092 = 0.274, 13.7 points.
        // Black +50 -> -30: wc(50) - wc(-30) = 0.092 + 0.055 = 0.147, 7.4 points.
        let m = [Score::Cp(100), Score::Cp(50), Score::Cp(30)];
        assert_eq!(marks(m, MARK_DROP), [true, true]);
        assert_eq!(marks(m, OWN_MARK_DROP), [true, false]);
        assert_eq!(marks(m, 14.0), [false, false]);
    }

    #[test]
    fn the_own_tier_emits_a_blunder_only_well_clear_of_the_threshold_or_across_a_mate() {
        let rule = |before: Eval, after: Eval| {
            let (j, reason) = lichess::label(before, after, false).unwrap();
            assert_eq!(j, Judgement::Blunder, "{before:?} {after:?}");
            own_stands_behind(before, after, j, reason)
        };
        // +1.00 to -1.50: wc 0.182 to -0.269, 22.6 Win% points, 7.6 beyond 15: kept.
        assert!(rule(Eval::Cp(100), Eval::Cp(-150)));
        // +1.00 to -0.90: 17.3 points, a blunder by lichess's rule but within the own
        // search's error of a mistake: dropped.
        assert!(!rule(Eval::Cp(100), Eval::Cp(-90)));
        // The margin's edge, 21 points: +0.50 to -1.90 is 21.4, +0.50 to -1.80 is 20.6.
        assert!(rule(Eval::Cp(50), Eval::Cp(-190)));
        assert!(!rule(Eval::Cp(50), Eval::Cp(-180)));
        // A mate its search found, allowed from a level position or lost: kept.
        assert!(rule(Eval::Cp(0), Eval::Mate(-3)));
        assert!(rule(Eval::Mate(2), Eval::Cp(300)));
    }

    #[test]
    fn white_view_flips_black_scores() {
        assert_eq!(white_view(Score::Cp(30), Color::Black), Score::Cp(-30));
        assert_eq!(white_view(Score::Mate(2), Color::Black), Score::Mate(-2));
        assert_eq!(white_view_cp(Score::Mate(0), Color::Black), MATE_CP);
        assert_eq!(white_view_cp(Score::Mate(0), Color::White), -MATE_CP);
    }
}
