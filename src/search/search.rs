//! The searcher: iterative deepening over a negamax alpha-beta with principal-variation search,
//! quiescence, null-move pruning, late-move reductions and check extensions. Draws by repetition
//! (against the path and the game's history) and by the 50-move rule are scored inside the tree.

use super::eval::{PIECE_VALUE, evaluate_with};
use super::limits::{Clock, Limits};
use super::ordering::{self, OrderingTables};
use super::score::{CpMap, DRAW, INFINITY, MATE, MATE_BOUND, MAX_PLY, Score, from_tt, to_tt};
use super::tt::{Bound, TranspositionTable};
use super::weights::{ACTIVE, Calibrated, EXTEND_EVERY_CHECK, Weights};
use crate::chess::moves::MAX_MOVES;
use crate::chess::{Bitboard, Color, Move, MoveList, Position, Rank, Role};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// What a search found. With a node or depth limit it is the same on every run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// `None` only when the side to move has no legal move (mate or stalemate).
    pub best_move: Option<Move>,
    pub score: Score,
    /// The last iteration completed (a partly searched deeper one may have changed the move).
    pub depth: u32,
    /// The deepest ply reached, quiescence included.
    pub seldepth: u32,
    pub nodes: u64,
    /// Principal variation, starting with `best_move`.
    pub pv: Vec<Move>,
    /// The time cap, not a node or depth limit, ended the search: the result may differ on
    /// another run.
    pub truncated: bool,
}

/// A search engine with its own transposition table and ordering tables. One per thread; the
/// tables carry over from one search to the next until `clear`.
pub struct Searcher {
    tt: TranspositionTable,
    ordering: OrderingTables,
    clock: Clock,
    nodes: u64,
    seldepth: usize,
    /// Repetition keys: the game's history, then the current search path.
    keys: Vec<u64>,
    /// Repetition look-back stops here: a position before a null move is not a real repetition.
    rep_floor: usize,
    /// Index of the root's key in `keys`: keys at or before it are the game's history.
    root_index: usize,
    pv: Box<[[Move; MAX_PLY + 1]; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    evals: [i32; MAX_PLY + 1],
    /// The move played from each ply (`NONE` for a null move), for countermoves.
    played: [Move; MAX_PLY + 1],
    lmr: Box<[[i32; 64]; 64]>,
    root_depth: i32,
    /// Score of the root's current best move in this iteration.
    root_score: i32,
    /// Move lists and ordering scores, one per ply; lent to the recursion during a search.
    frames: Option<Box<[Frame]>>,
    /// Root moves the current search may not play (`search_excluding`); empty otherwise.
    excluded: Vec<Move>,
    /// Set by another thread to end the current search early (UCI `stop`).
    stop_flag: Option<Arc<AtomicBool>>,
    /// The evaluation's weights (`weights::ACTIVE` unless a self-play match sets others).
    weights: &'static Weights,
    /// How internal units are reported as centipawns (`weights::Calibrated`).
    cp_map: CpMap,
}

/// Per-ply scratch space, kept between nodes so it is never zeroed again.
#[derive(Clone)]
struct Frame {
    moves: MoveList,
    /// Ordering keys (`ordering::pack`) of `moves`.
    keys: [u64; MAX_MOVES],
}

impl Searcher {
    /// A searcher with a transposition table of about `tt_mb` megabytes.
    pub fn new(tt_mb: usize) -> Searcher {
        Searcher::with_weights(tt_mb, ACTIVE)
    }

    /// A searcher that evaluates with a calibrated weights set and reports centipawns on
    /// its scale (the analysis stage's, `weights::ANALYSIS`).
    pub fn calibrated(tt_mb: usize, c: Calibrated) -> Searcher {
        let mut s = Searcher::with_weights(tt_mb, c.weights);
        s.cp_map = c.cp_map;
        s
    }

    /// A searcher that evaluates with `weights` instead of the engine's own.
    pub fn with_weights(tt_mb: usize, weights: &'static Weights) -> Searcher {
        let mut lmr = Box::new([[0; 64]; 64]);
        let base = f64::from(weights.margins.lmr_base) / 100.0;
        let divisor = f64::from(weights.margins.lmr_divisor) / 100.0;
        for (d, row) in lmr.iter_mut().enumerate().skip(1) {
            for (m, r) in row.iter_mut().enumerate().skip(1) {
                *r = (base + (d as f64).ln() * (m as f64).ln() / divisor) as i32;
            }
        }
        Searcher {
            tt: TranspositionTable::new(tt_mb),
            ordering: OrderingTables::default(),
            clock: Clock::start(&Limits::default()),
            nodes: 0,
            seldepth: 0,
            keys: Vec::with_capacity(1024),
            rep_floor: 0,
            root_index: 0,
            pv: Box::new([[Move::NONE; MAX_PLY + 1]; MAX_PLY + 1]),
            pv_len: [0; MAX_PLY + 1],
            evals: [0; MAX_PLY + 1],
            played: [Move::NONE; MAX_PLY + 1],
            lmr,
            root_depth: 0,
            root_score: 0,
            frames: Some(
                vec![
                    Frame {
                        moves: MoveList::new(),
                        keys: [0; MAX_MOVES],
                    };
                    MAX_PLY + 1
                ]
                .into_boxed_slice(),
            ),
            excluded: Vec::new(),
            stop_flag: None,
            weights,
            cp_map: CpMap::linear(super::eval::CP_SCALE_PERCENT),
        }
    }

    /// A flag another thread may set to end the running search as soon as possible (read
    /// every 1024 nodes); the result is then marked truncated.
    pub fn set_stop_flag(&mut self, flag: Option<Arc<AtomicBool>>) {
        self.stop_flag = flag;
    }

    /// Forgets everything learnt (call at a new game): the next search then depends only on its
    /// own input.
    pub fn clear(&mut self) {
        self.tt.clear();
        self.ordering.clear();
    }

    /// Searches `pos` within `limits`. `history` holds the repetition keys
    /// (`Position::zobrist`) of the game's earlier positions, oldest first; `pos` itself may be
    /// the last one or left out.
    pub fn search(&mut self, pos: &Position, history: &[u64], limits: Limits) -> SearchResult {
        self.excluded.clear();
        self.run(pos, history, limits)
    }

    /// Like `search`, but the root may not play any move of `excluded`: the best of the other
    /// moves, for telling an only move from a position with several good ones. `best_move` is
    /// `None` when no other legal move exists. The root's own table entry is left alone, so a
    /// later `search` of the same position is not misled by the restricted score.
    pub fn search_excluding(
        &mut self,
        pos: &Position,
        history: &[u64],
        limits: Limits,
        excluded: &[Move],
    ) -> SearchResult {
        self.excluded.clear();
        self.excluded.extend_from_slice(excluded);
        let result = self.run(pos, history, limits);
        self.excluded.clear();
        result
    }

    /// A searcher for `quiescence` calls only: its table is 64 buckets, cheap to clear.
    pub fn for_quiescence(weights: &'static Weights) -> Searcher {
        let mut s = Searcher::with_weights(1, weights);
        s.tt = TranspositionTable::with_buckets(64);
        s
    }

    /// The quiescence search's score of `pos` (captures and queen promotions until quiet, every
    /// evasion in check), from an empty table so the answer depends on `pos` alone. A position
    /// whose score equals its static evaluation is quiet in the tuner's sense.
    pub fn quiescence(&mut self, pos: &Position) -> i32 {
        self.tt.clear();
        self.clock = Clock::start(&Limits::default());
        self.nodes = 0;
        self.seldepth = 0;
        let mut frames = self
            .frames
            .take()
            .expect("frames are returned after each search");
        let score = self.qsearch(&mut frames, pos, -INFINITY, INFINITY, 0);
        self.frames = Some(frames);
        score
    }

    fn run(&mut self, pos: &Position, history: &[u64], limits: Limits) -> SearchResult {
        let started = Instant::now();
        self.clock = Clock::start(&limits);
        self.clock.external = self.stop_flag.clone();
        self.nodes = 0;
        self.seldepth = 0;
        self.tt.new_search();
        self.ordering.clear_killers();
        let root_key = pos.zobrist();
        self.keys.clear();
        self.keys.extend_from_slice(history);
        if self.keys.last() != Some(&root_key) {
            self.keys.push(root_key);
        }
        self.rep_floor = 0;
        self.root_index = self.keys.len() - 1;

        let mut legal = pos.legal_moves();
        let mated = legal.is_empty() && pos.is_check();
        if !self.excluded.is_empty() {
            let excluded = &self.excluded;
            legal.retain(|m| !excluded.contains(&m));
        }
        let mut result = SearchResult {
            best_move: legal.as_slice().first().copied(),
            score: if mated { Score::Mate(0) } else { Score::Cp(0) },
            depth: 0,
            seldepth: 0,
            nodes: 0,
            pv: legal.as_slice().first().copied().into_iter().collect(),
            truncated: false,
        };
        if legal.is_empty() {
            return result;
        }

        let mut frames = self
            .frames
            .take()
            .expect("frames are returned after each search");
        let mut prev_score: i32 = 0;
        for depth in 1..=limits.max_depth() as i32 {
            if depth > 1 && !self.clock.may_start_iteration(started) {
                break;
            }
            self.root_depth = depth;
            let mut delta = self.weights.margins.aspiration;
            let (mut alpha, mut beta) = if depth >= 5 && prev_score.abs() < MATE_BOUND {
                (prev_score - delta, prev_score + delta)
            } else {
                (-INFINITY, INFINITY)
            };
            let score = loop {
                self.pv_len[0] = 0;
                let s = self.negamax(&mut frames, pos, depth, alpha, beta, 0, true);
                if self.clock.stopped {
                    break s;
                }
                if s <= alpha {
                    beta = (alpha + beta) / 2;
                    alpha = (s - delta).max(-INFINITY);
                } else if s >= beta {
                    beta = (s + delta).min(INFINITY);
                } else {
                    break s;
                }
                delta += delta / 2;
            };
            if self.clock.stopped {
                // A move that finished searching in the cut-short iteration and beat alpha is
                // better informed than the last iteration's choice.
                if self.pv_len[0] > 0 {
                    result.best_move = Some(self.pv[0][0]);
                    result.pv = self.pv[0][..self.pv_len[0]].to_vec();
                    result.score = Score::from_internal_at(self.root_score, self.cp_map);
                }
                break;
            }
            prev_score = score;
            result.best_move = Some(self.pv[0][0]);
            result.pv = self.pv[0][..self.pv_len[0]].to_vec();
            result.score = Score::from_internal_at(score, self.cp_map);
            result.depth = depth as u32;
            // A mate is settled once the search has looked well past it.
            if score.abs() >= MATE_BOUND && depth >= 2 * (MATE - score.abs()) + 4 {
                break;
            }
        }
        self.frames = Some(frames);
        result.nodes = self.nodes;
        result.seldepth = self.seldepth as u32;
        result.truncated = self.clock.truncated;
        result
    }

    #[allow(clippy::too_many_arguments)]
    fn negamax(
        &mut self,
        frames: &mut [Frame],
        pos: &Position,
        mut depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        null_ok: bool,
    ) -> i32 {
        self.pv_len[ply] = 0;
        if depth <= 0 {
            return self.qsearch(frames, pos, alpha, beta, ply);
        }
        if self.clock.stopped {
            return 0;
        }
        self.nodes += 1;
        if self.clock.check(self.nodes) {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        let pv_node = beta - alpha > 1;
        let in_check = pos.is_check();
        if ply > 0 {
            if self.is_draw(pos, in_check) {
                return DRAW;
            }
            // Mate-distance pruning: no line from here can beat a mate already found nearer.
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
            if ply >= MAX_PLY - 1 {
                return if in_check {
                    DRAW
                } else {
                    evaluate_with(pos, self.weights)
                };
            }
        }

        let key = pos.zobrist();
        let hit = self.tt.probe(key);
        let mut hash_move = Move::NONE;
        let mut tt_score = None;
        if let Some(h) = hit {
            hash_move = h.mv;
            let s = from_tt(h.score, ply);
            tt_score = Some((s, h.bound));
            if !pv_node
                && h.depth >= depth
                && match h.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                }
            {
                return s;
            }
        }

        let static_eval = if in_check {
            -INFINITY
        } else {
            hit.map_or_else(|| evaluate_with(pos, self.weights), |h| h.eval)
        };
        self.evals[ply] = static_eval;
        let improving = !in_check && ply >= 2 && static_eval > self.evals[ply - 2];
        // The table's score, when its bound allows, is a better guess than the static eval.
        let eval = match tt_score {
            Some((s, bound)) if !in_check && s.abs() < MATE_BOUND => match bound {
                Bound::Exact => s,
                Bound::Lower if s > static_eval => s,
                Bound::Upper if s < static_eval => s,
                _ => static_eval,
            },
            _ => static_eval,
        };

        let margins = self.weights.margins;
        if !pv_node && !in_check {
            // Reverse futility: far enough above beta that a shallow search will not come back.
            if depth <= margins.reverse_futility_depth
                && eval.abs() < MATE_BOUND
                && beta.abs() < MATE_BOUND
                && eval - margins.reverse_futility * (depth - improving as i32) >= beta
            {
                return eval;
            }
            // Null move: if passing still holds beta, a real move will too (not in pawn endings,
            // where zugzwang makes passing the better "move").
            if null_ok
                && depth >= 3
                && eval >= beta
                && beta > -MATE_BOUND
                && has_pieces(pos, pos.turn())
            {
                let r = 3 + depth / 4 + ((eval - beta) / margins.null_divisor).min(3);
                let mut child = *pos;
                child.play_null();
                self.played[ply] = Move::NONE;
                self.keys.push(child.zobrist());
                let floor = self.rep_floor;
                self.rep_floor = self.keys.len() - 1;
                let s = -self.negamax(
                    &mut frames[1..],
                    &child,
                    depth - 1 - r,
                    -beta,
                    -beta + 1,
                    ply + 1,
                    false,
                );
                self.rep_floor = floor;
                self.keys.pop();
                if self.clock.stopped {
                    return 0;
                }
                if s >= beta {
                    return if s >= MATE_BOUND { beta } else { s };
                }
            }
        }

        // Internal iterative reduction: without a hash move this node was never searched
        // well; a shallower search is a cheap way to get one.
        if depth >= 4 && hash_move == Move::NONE {
            depth -= 1;
        }

        let (frame, rest) = frames.split_first_mut().expect("a frame per ply");
        let Frame { moves: list, keys } = frame;
        list.clear();
        pos.generate_legal(list);
        if ply == 0 && !self.excluded.is_empty() {
            let excluded = &self.excluded;
            list.retain(|m| !excluded.contains(&m));
        }
        if list.is_empty() {
            return if in_check { -MATE + ply as i32 } else { DRAW };
        }
        let prev = if ply > 0 {
            self.played[ply - 1]
        } else {
            Move::NONE
        };
        self.ordering
            .score_moves(pos, list, keys, hash_move, prev, ply);

        let us = pos.turn();
        let mut best_score = -INFINITY;
        let mut best_move = Move::NONE;
        let mut searched = 0usize;
        let mut quiets = [Move::NONE; 64];
        let mut n_quiets = 0;
        let mut quiets_seen = 0;
        for i in 0..list.len() {
            let (m, order_score) = ordering::pick(&mut keys[..list.len()], i);
            let is_quiet = m.promotion_role().is_none() && !pos.is_capture(m);
            if is_quiet {
                quiets_seen += 1;
            }
            // Pruning is decided before the move is made: making it costs more than the test.
            if !pv_node && !in_check && best_score > -MATE_BOUND {
                if is_quiet {
                    // Late-move pruning: after enough quiet moves the rest rarely matter.
                    let lmp_limit = (3 + depth * depth) / if improving { 1 } else { 2 };
                    // Futility: a quiet move cannot lift a hopeless static eval to alpha.
                    if depth <= 6
                        && (quiets_seen > lmp_limit
                            || (eval + margins.futility_base + margins.futility_depth * depth
                                <= alpha
                                && alpha < MATE_BOUND))
                        && !ordering::quiet_gives_check(pos, m)
                    {
                        continue;
                    }
                } else if depth <= 5
                    && order_score < 0
                    && ordering::see(pos, m) < -margins.see_capture * depth
                    && !ordering::quiet_gives_check(pos, m)
                {
                    continue;
                }
            }
            let mut child = *pos;
            child.play_unchecked(m);
            let gives_check = child.is_check();

            // Checks are extended near the root, except a quiet check that gives material away
            // (past the weights' threshold): a spite check rarely changes the outcome.
            let extension = i32::from(
                gives_check
                    && ply < 2 * self.root_depth as usize
                    && (!is_quiet
                        || margins.check_extension_see >= EXTEND_EVERY_CHECK
                        || ordering::see(pos, m) >= -margins.check_extension_see),
            );
            let new_depth = depth - 1 + extension;
            self.played[ply] = m;
            self.keys.push(child.zobrist());
            let score = if searched == 0 {
                -self.negamax(rest, &child, new_depth, -beta, -alpha, ply + 1, true)
            } else {
                let mut r = 0;
                if depth >= 3 && searched >= 2 && is_quiet && !in_check && !gives_check {
                    r = self.lmr[depth.min(63) as usize][searched.min(63)];
                    r -= i32::from(pv_node);
                    r += i32::from(!improving);
                    if order_score >= 9_000_000 {
                        r -= 1;
                    } else {
                        r -= order_score / 6_000;
                    }
                    r = r.clamp(0, new_depth - 1);
                }
                let mut s = -self.negamax(
                    rest,
                    &child,
                    new_depth - r,
                    -alpha - 1,
                    -alpha,
                    ply + 1,
                    true,
                );
                if s > alpha && r > 0 {
                    s = -self.negamax(rest, &child, new_depth, -alpha - 1, -alpha, ply + 1, true);
                }
                if s > alpha && s < beta {
                    s = -self.negamax(rest, &child, new_depth, -beta, -alpha, ply + 1, true);
                }
                s
            };
            self.keys.pop();
            if self.clock.stopped {
                return 0;
            }
            searched += 1;

            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = m;
                    alpha = score;
                    self.update_pv(ply, m);
                    if ply == 0 {
                        self.root_score = score;
                    }
                    if score >= beta {
                        if is_quiet {
                            self.ordering.record_cutoff(
                                us,
                                m,
                                prev,
                                ply,
                                depth,
                                &quiets[..n_quiets],
                            );
                        }
                        break;
                    }
                }
            }
            if is_quiet && n_quiets < quiets.len() {
                quiets[n_quiets] = m;
                n_quiets += 1;
            }
        }

        // A root searched with moves excluded has no true score to share.
        if ply == 0 && !self.excluded.is_empty() {
            return best_score;
        }
        let bound = if best_score >= beta {
            Bound::Lower
        } else if best_move != Move::NONE {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt.store(
            key,
            best_move,
            to_tt(best_score, ply),
            static_eval,
            depth,
            bound,
        );
        best_score
    }

    /// Captures and queen promotions until the position is quiet; every evasion when in check.
    fn qsearch(
        &mut self,
        frames: &mut [Frame],
        pos: &Position,
        mut alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        self.pv_len[ply] = 0;
        if self.clock.stopped {
            return 0;
        }
        self.nodes += 1;
        if self.clock.check(self.nodes) {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        let in_check = pos.is_check();
        if ply >= MAX_PLY - 1 {
            return if in_check {
                DRAW
            } else {
                evaluate_with(pos, self.weights)
            };
        }
        let pv_node = beta - alpha > 1;
        let key = pos.zobrist();
        let hit = self.tt.probe(key);
        if let Some(h) = hit {
            let s = from_tt(h.score, ply);
            if !pv_node
                && match h.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                }
            {
                return s;
            }
        }
        let hash_move = hit.map_or(Move::NONE, |h| h.mv);

        let (frame, rest) = frames.split_first_mut().expect("a frame per ply");
        let Frame { moves: list, keys } = frame;
        list.clear();
        let static_eval;
        let mut best;
        if in_check {
            pos.generate_legal(list);
            if list.is_empty() {
                return -MATE + ply as i32;
            }
            static_eval = -INFINITY;
            best = -INFINITY;
        } else {
            static_eval = hit.map_or_else(|| evaluate_with(pos, self.weights), |h| h.eval);
            if static_eval >= beta {
                return static_eval;
            }
            alpha = alpha.max(static_eval);
            best = static_eval;
            let us = pos.turn();
            let promo_rank = Bitboard::from_rank(match us {
                Color::White => Rank(7),
                Color::Black => Rank(0),
            });
            let mut targets = pos.by_color(us.other()) | promo_rank;
            if let Some(ep) = pos.ep_square() {
                targets.add(ep);
            }
            pos.generate_legal_from(list, Bitboard::FULL, targets);
            list.retain(|m| match m.promotion_role() {
                Some(r) => r == Role::Queen,
                None => pos.is_capture(m),
            });
        }
        ordering::score_captures(pos, list, keys, hash_move);

        let mut best_move = Move::NONE;
        for i in 0..list.len() {
            let (m, _) = ordering::pick(&mut keys[..list.len()], i);
            if !in_check {
                // Delta pruning: even winning the piece for free would not reach alpha.
                let gain = pos.captured_role(m).map_or(0, |r| PIECE_VALUE[r.index()]);
                if m.promotion_role().is_none()
                    && static_eval + gain + self.weights.margins.delta <= alpha
                {
                    continue;
                }
                if ordering::see(pos, m) < 0 {
                    continue;
                }
            }
            let mut child = *pos;
            child.play_unchecked(m);
            let s = -self.qsearch(rest, &child, -beta, -alpha, ply + 1);
            if self.clock.stopped {
                return 0;
            }
            if s > best {
                best = s;
                if s > alpha {
                    alpha = s;
                    best_move = m;
                    if s >= beta {
                        break;
                    }
                }
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best_move != Move::NONE {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt
            .store(key, best_move, to_tt(best, ply), static_eval, 0, bound);
        best
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        let child_len = self.pv_len[ply + 1];
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply][0] = m;
        head[ply][1..=child_len].copy_from_slice(&tail[0][..child_len]);
        self.pv_len[ply] = child_len + 1;
    }

    /// Draw by the 50-move rule (unless this is mate), by repetition, or by bare kings and a
    /// lone minor piece. A repetition inside the search (the earlier occurrence after the root)
    /// is a draw: the side that chose to repeat can repeat again. Against the game's history
    /// (the root and before) only a third occurrence is: it can be claimed (Art. 9.2), and the
    /// fivefold one that ends the game (Art. 9.6.1) comes after it. A single earlier occurrence
    /// in the game is not a draw: the game goes on, and scoring it 0.00 made false blunders.
    fn is_draw(&self, pos: &Position, in_check: bool) -> bool {
        let clock = pos.halfmove_clock() as usize;
        if clock >= 100 {
            return !in_check || pos.has_legal_moves();
        }
        let n = self.keys.len();
        let key = self.keys[n - 1];
        let oldest = self.rep_floor.max((n - 1).saturating_sub(clock));
        let mut i = n - 1;
        let mut in_history = 0;
        while i >= oldest + 2 {
            i -= 2;
            if self.keys[i] == key {
                if i > self.root_index {
                    return true;
                }
                in_history += 1;
                if in_history >= 2 {
                    return true;
                }
            }
        }
        let occ = pos.occupied();
        occ.count() <= 3
            && (pos.by_role(Role::Pawn) | pos.by_role(Role::Rook) | pos.by_role(Role::Queen))
                .is_empty()
    }
}

/// True if `color` has a piece other than pawns and the king.
fn has_pieces(pos: &Position, color: Color) -> bool {
    (pos.by_color(color) - pos.by_role(Role::Pawn) - pos.by_role(Role::King)).nonempty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::san::to_san;

    fn search_fen(fen: &str, history: &[u64], limits: Limits) -> (Position, SearchResult) {
        let pos = Position::from_fen(fen).unwrap();
        let result = Searcher::new(4).search(&pos, history, limits);
        (pos, result)
    }

    fn best_san(pos: &Position, r: &SearchResult) -> String {
        to_san(pos, r.best_move.unwrap()).to_string()
    }

    #[test]
    fn finds_mate_in_one_with_its_distance() {
        let (pos, r) = search_fen(
            "6k1/5ppp/8/8/8/8/1R3PPP/6K1 w - - 0 1",
            &[],
            Limits::depth(6),
        );
        assert_eq!(best_san(&pos, &r), "Rb8#");
        assert_eq!(r.score, Score::Mate(1));
        assert_eq!(r.pv.len(), 1);
    }

    #[test]
    fn finds_mate_in_two_with_its_distance() {
        let (pos, r) = search_fen(
            "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
            &[],
            Limits::nodes(200_000),
        );
        assert_eq!(best_san(&pos, &r), "Qg6");
        assert_eq!(r.score, Score::Mate(2));
        assert_eq!(r.pv.len(), 3);
    }

    #[test]
    fn sees_being_mated() {
        // Black's only move is Kb8, and Rh8 mates.
        let (_, r) = search_fen("k7/8/1K6/8/8/8/8/7R b - - 0 1", &[], Limits::depth(6));
        assert_eq!(r.score, Score::Mate(-1));
    }

    #[test]
    fn mate_and_stalemate_at_the_root() {
        let (_, r) = search_fen("7k/5K2/6Q1/8/8/8/8/8 b - - 0 1", &[], Limits::depth(4));
        assert_eq!((r.best_move, r.score), (None, Score::Cp(0)));
        let (_, r) = search_fen("6Qk/5K2/8/8/8/8/8/8 b - - 0 1", &[], Limits::depth(4));
        assert_eq!((r.best_move, r.score), (None, Score::Mate(0)));
    }

    #[test]
    fn stalemate_inside_the_tree_is_a_draw() {
        // Black's pawn is a long way from queening: Kf3 stalemates White, anything else lets
        // the king take it. Scored as a won pawn ending, this would be far from 0.
        let (_, r) = search_fen("8/8/8/8/8/4k3/5p2/5K2 b - - 0 1", &[], Limits::depth(8));
        assert_eq!(r.score, Score::Cp(0));
    }

    #[test]
    fn a_game_position_is_a_draw_at_its_third_occurrence_not_its_second() {
        // Black is a queen up; White's Kh1 returns to a position of the game. Once before,
        // that is no draw (the game goes on, Art. 9.2 needs a third occurrence), so White is
        // lost; twice before, Kh1 makes the third occurrence, a claimable draw, and holds.
        let fen = "6k1/8/8/8/8/8/q7/6K1 w - - 10 60";
        let root = Position::from_fen(fen).unwrap();
        let mut after = root;
        let kh1 = crate::chess::uci::parse_uci(&after, "g1h1").unwrap();
        after.play_unchecked(kh1);
        let once = [after.zobrist()];
        let (_, r) = search_fen(fen, &once, Limits::depth(6));
        assert!(
            matches!(r.score, Score::Cp(cp) if cp < -500),
            "{:?}",
            r.score
        );
        let twice = [after.zobrist(), root.zobrist(), after.zobrist()];
        let (pos, r) = search_fen(fen, &twice, Limits::depth(6));
        assert_eq!(best_san(&pos, &r), "Kh1");
        assert_eq!(r.score, Score::Cp(0));
        // Without any history the position is simply lost.
        let (_, r) = search_fen(fen, &[], Limits::depth(6));
        assert!(
            matches!(r.score, Score::Cp(cp) if cp < -500),
            "{:?}",
            r.score
        );
    }

    #[test]
    fn the_fifty_move_rule_ends_a_won_position() {
        let (_, r) = search_fen("8/8/8/4k3/8/8/8/3QK3 w - - 99 80", &[], Limits::depth(5));
        assert_eq!(r.score, Score::Cp(0));
        let (_, r) = search_fen("8/8/8/4k3/8/8/8/3QK3 w - - 0 80", &[], Limits::depth(5));
        assert!(matches!(r.score, Score::Cp(cp) if cp > 500));
    }

    #[test]
    fn node_limited_searches_are_reproducible() {
        let fen = "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10";
        let pos = Position::from_fen(fen).unwrap();
        let mut a = Searcher::new(2);
        let first = a.search(&pos, &[], Limits::nodes(60_000));
        a.clear();
        let again = a.search(&pos, &[], Limits::nodes(60_000));
        let fresh = Searcher::new(2).search(&pos, &[], Limits::nodes(60_000));
        assert_eq!(first, again);
        assert_eq!(first, fresh);
        assert_eq!(first.nodes, 60_000);
        assert!(!first.truncated);
    }

    #[test]
    fn a_depth_limit_is_reached_exactly() {
        let (_, r) = search_fen(crate::chess::START_FEN, &[], Limits::depth(5));
        assert_eq!(r.depth, 5);
        assert!(r.best_move.is_some() && !r.truncated);
        assert_eq!(r.pv.first().copied(), r.best_move);
    }

    #[test]
    fn the_weights_margins_steer_the_search() {
        // Same evaluation, other margins: a different tree at a fixed depth, each reproducible.
        use crate::search::weights::CLASSIC;
        let fen = "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10";
        let pos = Position::from_fen(fen).unwrap();
        let mut wide = CLASSIC.clone();
        wide.margins.reverse_futility = 200;
        wide.margins.futility_base = 300;
        let wide: &'static Weights = Box::leak(Box::new(wide));
        let classic = Searcher::with_weights(2, &CLASSIC).search(&pos, &[], Limits::depth(7));
        let other = Searcher::with_weights(2, wide).search(&pos, &[], Limits::depth(7));
        let again = Searcher::with_weights(2, wide).search(&pos, &[], Limits::depth(7));
        assert_ne!(classic.nodes, other.nodes);
        assert_eq!(other, again);
        // Only spite checks (quiet checks that lose material) left unextended: another tree.
        let mut spite = CLASSIC.clone();
        spite.margins.check_extension_see = 0;
        let spite: &'static Weights = Box::leak(Box::new(spite));
        let other = Searcher::with_weights(2, spite).search(&pos, &[], Limits::depth(7));
        assert_ne!(classic.nodes, other.nodes);
        assert_eq!(
            Searcher::new(2).search(&pos, &[], Limits::depth(7)),
            Searcher::with_weights(2, ACTIVE).search(&pos, &[], Limits::depth(7))
        );
    }
}
