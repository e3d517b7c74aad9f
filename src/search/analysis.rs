//! Critical-position analysis of one game: a cheap search of every ply draws an evaluation
//! curve, deeper searches settle the plies the curve marks as critical, and lichess's
//! winning-chance and accuracy formulas turn the evaluations into judgements and findings.
//! Pure and deterministic: one searcher per game, cleared first, node limits only.
//! The formulas, thresholds and budgets are documented in `docs/ANALYSIS.md`.

use super::{Limits, Score, SearchResult, Searcher};
use crate::chess::san::to_san;
use crate::chess::{Color, Move, Position, Role};

/// Finding codes of the analysis stage (declared in the one catalogue, `crate::findings`;
/// thresholds in `docs/ANALYSIS.md`).
pub mod code {
    pub use crate::findings::analysis::*;
}

/// Centipawns a mate counts as, and the clamp on every score, for the winning-chance formula.
pub const MATE_CP: i32 = 1000;
/// Lichess's logistic constant: wc(cp) = 2 / (1 + exp(−K·cp)) − 1.
pub const WC_K: f64 = 0.003_682_08;
/// Drops of the mover's winning chances that make an inaccuracy, a mistake, a blunder.
pub const DROP_THRESHOLDS: [f64; 3] = [0.1, 0.2, 0.3];
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
/// Bumped whenever the analysis (not the engine) changes what it reports.
pub const ANALYSIS_VERSION: u32 = 1;

/// Node budgets of the two passes and the hash size. The defaults analyse a 40-move master
/// game in a fraction of a second on one core (`docs/ANALYSIS.md` has the measurements).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AnalysisOptions {
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
    /// Settled by the deep pass; otherwise the cheap pass's estimate.
    pub deep: bool,
}

/// How much a move gave away.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Judgement {
    Inaccuracy,
    Mistake,
    Blunder,
}

impl Judgement {
    pub const ALL: [Judgement; 3] = [
        Judgement::Inaccuracy,
        Judgement::Mistake,
        Judgement::Blunder,
    ];

    /// The judgement a drop of the mover's winning chances earns, if any.
    pub fn from_drop(drop: f64) -> Option<Judgement> {
        Judgement::ALL
            .into_iter()
            .rev()
            .find(|j| drop >= DROP_THRESHOLDS[j.index()])
    }

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

/// What the analysis says about one move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoveJudgement {
    /// The move's 1-based ply: it leads from `evals[ply - 1]` to `evals[ply]`.
    pub ply: u32,
    pub judgement: Option<Judgement>,
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
}

// ---- formulas ------------------------------------------------------------------------------

/// Lichess's winning chances of a centipawn score, in −1..1; `cp` is clamped to ±`MATE_CP`.
pub fn winning_chances(cp: i32) -> f64 {
    let cp = f64::from(cp.clamp(-MATE_CP, MATE_CP));
    2.0 / (1.0 + (-WC_K * cp).exp()) - 1.0
}

/// Winning chances of a score, from the point of view the score is given in (mate = ±1000).
pub fn score_winning_chances(score: Score) -> f64 {
    winning_chances(score.to_cp_clamped(MATE_CP))
}

/// Lichess's Win%: 50 + 50·wc, in 0..100.
pub fn win_percent(cp: i32) -> f64 {
    50.0 + 50.0 * winning_chances(cp)
}

/// Lichess's published move accuracy from the mover's Win% before and after the move:
/// 103.1668·exp(−0.04354·(before − after)) − 3.1669, clamped to 0..100. A move that loses
/// nothing scores 100 exactly.
pub fn move_accuracy(win_before: f64, win_after: f64) -> f64 {
    let loss = win_before - win_after;
    if loss <= 0.0 {
        return 100.0;
    }
    (103.1668 * (-0.04354 * loss).exp() - 3.1669).clamp(0.0, 100.0)
}

/// Lichess's game accuracy per side: the mean of a volatility-weighted mean and a harmonic mean
/// of the side's move accuracies. `win_white` holds White's Win% of every position, start
/// first; `white_first` says who made the first move. Each move is weighted by the population
/// standard deviation of Win% over a window around it (size moves/10 in 2..8, the first
/// windows repeating the opening one), clamped to 0.5..12; the harmonic mean reads accuracies
/// below 1 as 1.
pub fn game_accuracy(win_white: &[f64], white_first: bool) -> [Option<f64>; 2] {
    let n_moves = win_white.len().saturating_sub(1);
    if n_moves == 0 {
        return [None, None];
    }
    let window = (n_moves / 10).clamp(2, 8);
    let first = &win_white[..window.min(win_white.len())];
    let repeats = window.min(win_white.len()) - 2;
    let sliding: Vec<&[f64]> = if win_white.len() >= window {
        win_white.windows(window).collect()
    } else {
        vec![win_white]
    };
    let weights = std::iter::repeat_n(first, repeats)
        .chain(sliding)
        .map(|xs| std_dev(xs).clamp(0.5, 12.0));

    // Per side: Σ accuracy·weight, Σ weight, Σ 1/max(1, accuracy), count.
    let mut sums = [[0.0f64; 3]; 2];
    let mut counts = [0usize; 2];
    for (i, (pair, weight)) in win_white.windows(2).zip(weights).enumerate() {
        let white_moves = (i % 2 == 0) == white_first;
        let (side, before, after) = if white_moves {
            (0, pair[0], pair[1])
        } else {
            (1, 100.0 - pair[0], 100.0 - pair[1])
        };
        let accuracy = move_accuracy(before, after);
        sums[side][0] += accuracy * weight;
        sums[side][1] += weight;
        sums[side][2] += 1.0 / accuracy.max(1.0);
        counts[side] += 1;
    }
    [0, 1].map(|side| {
        let [weighted, weight, inverse] = sums[side];
        (counts[side] > 0 && weight > 0.0)
            .then(|| (weighted / weight + counts[side] as f64 / inverse) / 2.0)
    })
}

fn std_dev(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt()
}

// ---- the analysis --------------------------------------------------------------------------

/// One position's search result, from the side to move's point of view.
#[derive(Clone, Copy)]
struct Slot {
    score: Score,
    depth: u32,
    nodes: u64,
    best: Option<Move>,
    deep: bool,
}

impl Slot {
    fn from_result(r: &SearchResult, deep: bool) -> Slot {
        Slot {
            score: r.score,
            depth: r.depth,
            nodes: r.nodes,
            best: r.best_move,
            deep,
        }
    }

    /// Winning chances of the side to move.
    fn wc(&self) -> f64 {
        score_winning_chances(self.score)
    }
}

/// The game's positions and repetition keys, searched with one searcher.
struct Game<'a> {
    positions: Vec<Position>,
    keys: Vec<u64>,
    searcher: Searcher,
    options: &'a AnalysisOptions,
}

impl Game<'_> {
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

/// The mover's drop in winning chances over move `k` (0-based): from position `k`, where the
/// mover is to move, to position `k + 1`, where the opponent is.
fn drop(slots: &[Slot], k: usize) -> f64 {
    slots[k].wc() + slots[k + 1].wc()
}

/// The side to move at `k` mates in 1..=`MISSED_MATE_MAX`.
fn short_mate(slot: &Slot) -> bool {
    matches!(slot.score, Score::Mate(m) if (1..=MISSED_MATE_MAX).contains(&m))
}

/// The side to move at `k + 1` is being mated: the mover of move `k` still mates.
fn being_mated(slot: &Slot) -> bool {
    matches!(slot.score, Score::Mate(m) if m <= 0)
}

/// Analyses one game. `moves` must be legal from `start` (as `game::replay` gives them);
/// `recorded_result` is the PGN result (`1-0`, `0-1`, `1/2-1/2`, `*`) and
/// `termination_is_mate` says the game ended by checkmate on the board. The same input and
/// options give a bit-identical result whatever was analysed before, on any thread.
pub fn analyse_game(
    start: &Position,
    moves: &[Move],
    recorded_result: Option<&str>,
    termination_is_mate: bool,
    options: &AnalysisOptions,
) -> GameAnalysis {
    let n = moves.len();
    let mut positions = Vec::with_capacity(n + 1);
    let mut keys = Vec::with_capacity(n + 1);
    let mut pos = *start;
    positions.push(pos);
    keys.push(pos.zobrist());
    for &m in moves {
        debug_assert!(pos.is_legal(m), "analyse_game needs legal moves");
        pos.play_unchecked(m);
        positions.push(pos);
        keys.push(pos.zobrist());
    }
    let mut searcher = Searcher::new(options.tt_mb);
    // A fresh table already; cleared anyway so the promise holds if searchers are ever reused.
    searcher.clear();
    let mut game = Game {
        positions,
        keys,
        searcher,
        options,
    };

    // 1. The cheap curve.
    let mut slots: Vec<Slot> = (0..=n)
        .map(|ply| Slot::from_result(&game.search(ply, options.cheap_nodes, &[]), false))
        .collect();

    // 2. Only-move probes: the cheap pass's best move against the best of the rest.
    let mut only_candidates = Vec::new();
    for (k, slot) in slots.iter().enumerate().take(n) {
        let Some(best) = slot.best else { continue };
        let wc = slot.wc();
        if wc.abs() >= ONLY_MOVE_OPEN || is_recapture(&game.positions, moves, k, best) {
            continue;
        }
        let second = game.search(k, options.cheap_nodes, &[best]);
        if second.best_move.is_some() && wc - score_winning_chances(second.score) >= ONLY_MOVE_GAP {
            only_candidates.push(k);
        }
    }

    // 3. Deep searches until every critical position is settled: a deep score can make a
    // neighbouring move look critical, so the selection runs again on the new curve.
    let game_level = game_level_kind(recorded_result, termination_is_mate);
    loop {
        let mut wanted = vec![false; n + 1];
        for k in 0..n {
            if drop(&slots, k) >= DROP_THRESHOLDS[0] || short_mate(&slots[k]) {
                wanted[k] = true;
                wanted[k + 1] = true;
            }
        }
        for &k in &only_candidates {
            wanted[k] = true;
        }
        if game_level.is_some() {
            wanted[n] = true;
        }
        let todo: Vec<usize> = (0..=n).filter(|&p| wanted[p] && !slots[p].deep).collect();
        if todo.is_empty() {
            break;
        }
        for p in todo {
            slots[p] = game.deep(p);
        }
    }

    // 4. Only moves confirmed at the deep budget.
    let mut only = vec![false; n];
    for &k in &only_candidates {
        let Some(best) = slots[k].best else { continue };
        let wc = slots[k].wc();
        if wc.abs() >= ONLY_MOVE_OPEN || is_recapture(&game.positions, moves, k, best) {
            continue;
        }
        let second = game.search(k, options.deep_nodes, &[best]);
        only[k] =
            second.best_move.is_some() && wc - score_winning_chances(second.score) >= ONLY_MOVE_GAP;
    }

    // 5. Judgements, accuracy and findings from the settled curve.
    let positions = &game.positions;
    let mut judged = Vec::with_capacity(n);
    let mut counts = [[0u32; 3]; 2];
    let mut findings = Vec::new();
    for k in 0..n {
        let (before, after) = (&slots[k], &slots[k + 1]);
        let pos = &positions[k];
        let side = pos.turn().index();
        let ply = k as u32 + 1;
        let judgement = Judgement::from_drop(drop(&slots, k));
        let missed_mate = short_mate(before) && !being_mated(after);
        let played = moves[k];
        let label = move_label(pos, played);
        let best_text = |slot: &Slot| {
            slot.best
                .filter(|&b| b != played)
                .map_or(String::new(), |b| format!("; best was {}", to_san(pos, b)))
        };
        if let Some(j) = judgement {
            counts[side][j.index()] += 1;
            findings.push(AnalysisFinding {
                code: j.code(),
                ply,
                message: format!(
                    "{label} is {} {}: {}'s winning chances fell from {:+.2} to {:+.2}{}{}",
                    article(j),
                    j.as_str(),
                    side_name(pos.turn()),
                    before.wc(),
                    -after.wc(),
                    best_text(before),
                    if only[k] { " (the only move)" } else { "" },
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
                    "{label} misses a mate in {m}{}",
                    best_text(before).replacen("; best was", ", starting with", 1)
                ),
            });
        }
        if only[k] && before.best == Some(played) {
            findings.push(AnalysisFinding {
                code: code::ONLY_MOVE,
                ply,
                message: format!(
                    "{label} is the only move: every other gives up at least {ONLY_MOVE_GAP} \
                     in winning chances"
                ),
            });
        }
        judged.push(MoveJudgement {
            ply,
            judgement,
            missed_mate,
            only_move: only[k],
            accuracy: move_accuracy(50.0 + 50.0 * before.wc(), 50.0 - 50.0 * after.wc()),
        });
    }

    let white_cp: Vec<i32> = slots
        .iter()
        .zip(positions)
        .map(|(s, p)| white_view_cp(s.score, p.turn()))
        .collect();
    if let Some(kind) = game_level {
        findings.extend(game_level_finding(
            kind,
            &positions[n],
            &game.keys,
            white_cp[n],
            n as u32,
        ));
    }
    let win_white: Vec<f64> = white_cp.iter().map(|&cp| win_percent(cp)).collect();
    let accuracy = game_accuracy(&win_white, start.turn() == Color::White);

    let evals = slots
        .iter()
        .zip(positions)
        .enumerate()
        .map(|(ply, (s, p))| PlyEval {
            ply: ply as u32,
            score_white: white_view(s.score, p.turn()),
            depth: s.depth,
            nodes: s.nodes,
            best_move: s.best,
            deep: s.deep,
        })
        .collect();

    GameAnalysis {
        evals,
        moves: judged,
        accuracy,
        counts,
        findings,
        settings: settings_json(options),
    }
}

/// The JSON recorded with every analysis, keys sorted.
pub fn settings_json(options: &AnalysisOptions) -> String {
    serde_json::json!({
        "engine": concat!("arbiter ", env!("CARGO_PKG_VERSION")),
        "analysis_version": ANALYSIS_VERSION,
        "cheap_nodes": options.cheap_nodes,
        "deep_nodes": options.deep_nodes,
        "tt_mb": options.tt_mb,
        "mate_cp": MATE_CP,
        "drop_thresholds": DROP_THRESHOLDS,
        "missed_mate_max": MISSED_MATE_MAX,
        "only_move_gap": ONLY_MOVE_GAP,
    })
    .to_string()
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
    match result? {
        "1-0" if !termination_is_mate => Some(GameLevel::Decisive {
            loser: Color::Black,
        }),
        "0-1" if !termination_is_mate => Some(GameLevel::Decisive {
            loser: Color::White,
        }),
        "1/2-1/2" => Some(GameLevel::Draw),
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

    #[test]
    fn judgements_follow_the_thresholds() {
        assert_eq!(Judgement::from_drop(0.09), None);
        assert_eq!(Judgement::from_drop(0.1), Some(Judgement::Inaccuracy));
        assert_eq!(Judgement::from_drop(0.25), Some(Judgement::Mistake));
        assert_eq!(Judgement::from_drop(1.9), Some(Judgement::Blunder));
    }

    #[test]
    fn white_view_flips_black_scores() {
        assert_eq!(white_view(Score::Cp(30), Color::Black), Score::Cp(-30));
        assert_eq!(white_view(Score::Mate(2), Color::Black), Score::Mate(-2));
        assert_eq!(white_view_cp(Score::Mate(0), Color::Black), MATE_CP);
        assert_eq!(white_view_cp(Score::Mate(0), Color::White), -MATE_CP);
    }
}
