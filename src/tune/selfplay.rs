//! A self-play match between two sets of evaluation weights at a fixed node budget: each
//! opening is played twice, once with each engine as White. Every search is limited by
//! nodes and each game starts from cleared tables, so the same openings, budget and weights
//! give the same games on any number of threads.
//!
//! A game ends by checkmate or stalemate, a third occurrence of a position (Art. 9.2, taken as
//! claimed), the 50-move rule (Art. 9.3, taken as claimed), insufficient material (no pawn,
//! rook or queen, and at most one minor piece or only bishops on one colour of square), the
//! ply cap (a draw), or adjudication: when both engines' searches agree, move after move for
//! `adjudicate_plies` plies, that one side is ahead by at least `adjudicate_cp` centipawns (or
//! mates), that side wins.

use super::TuneError;
use crate::chess::san::{SanMode, play_san};
use crate::chess::{Bitboard, Move, Position, Role};
use crate::rng::Rng;
use crate::search::weights::Weights;
use crate::search::{Limits, Score, Searcher};
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// A start position for a pair of games.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// "ECO name", from the file.
    pub name: String,
    pub moves: Vec<Move>,
}

impl Opening {
    pub fn position(&self) -> Position {
        let mut pos = Position::new();
        for &m in &self.moves {
            pos.play_unchecked(m);
        }
        pos
    }
}

/// The opening lines of `dir`'s `.tsv` files (columns `eco`, `name`, `pgn`, as in lichess's
/// chess-openings), files in name order, keeping those of `min_plies..=max_plies` plies and the
/// first line to reach each position.
pub fn load_openings(
    dir: &Path,
    min_plies: usize,
    max_plies: usize,
) -> Result<Vec<Opening>, TuneError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| TuneError::Io { path, source }
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io(dir))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "tsv"))
        .collect();
    files.sort();
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).map_err(io(path))?;
        for line in text.lines().skip(1) {
            let mut cols = line.split('\t');
            let (Some(eco), Some(name), Some(pgn)) = (cols.next(), cols.next(), cols.next()) else {
                continue;
            };
            let Some(moves) = parse_line(pgn) else {
                continue;
            };
            if moves.len() < min_plies || moves.len() > max_plies {
                continue;
            }
            let opening = Opening {
                name: format!("{eco} {name}"),
                moves,
            };
            if seen.insert(opening.position().zobrist()) {
                out.push(opening);
            }
        }
    }
    if out.is_empty() {
        return Err(TuneError::Empty(format!(
            "no opening lines of {min_plies} to {max_plies} plies in {}/*.tsv",
            dir.display()
        )));
    }
    Ok(out)
}

/// `1. e4 e5 2. Nf3` as moves from the start position; `None` if a move does not resolve.
fn parse_line(pgn: &str) -> Option<Vec<Move>> {
    let mut pos = Position::new();
    let mut moves = Vec::new();
    for token in pgn.split_whitespace() {
        let token = token.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        if token.is_empty() {
            continue;
        }
        moves.push(play_san(&mut pos, token, SanMode::Lenient).ok()?.mv);
    }
    Some(moves)
}

/// `n` openings drawn by `seed`, each judged balanced: a search of `nodes` with `weights` scores
/// it within ±`max_cp` centipawns.
pub fn choose_openings(
    all: &[Opening],
    n: usize,
    seed: u64,
    weights: &'static Weights,
    nodes: u64,
    max_cp: i32,
) -> Vec<Opening> {
    let mut order: Vec<usize> = (0..all.len()).collect();
    Rng::new(seed).shuffle(&mut order);
    let mut chosen = Vec::with_capacity(n);
    // Judge candidates in batches, in parallel, and keep them in the drawn order.
    for batch in order.chunks(64) {
        let balanced: Vec<bool> = batch
            .par_iter()
            .map_init(
                || Searcher::with_weights(2, weights),
                |s, &i| {
                    s.clear();
                    let r = s.search(&all[i].position(), &[], Limits::nodes(nodes));
                    matches!(r.score, Score::Cp(cp) if cp.abs() <= max_cp)
                },
            )
            .collect();
        for (&i, ok) in batch.iter().zip(balanced) {
            if ok && chosen.len() < n {
                chosen.push(all[i].clone());
            }
        }
        if chosen.len() >= n {
            break;
        }
    }
    chosen
}

#[derive(Clone, Copy, Debug)]
pub struct MatchOptions {
    pub nodes: u64,
    pub max_plies: usize,
    pub adjudicate_cp: i32,
    pub adjudicate_plies: usize,
    /// Transposition table of each engine, MB.
    pub hash: usize,
}

impl Default for MatchOptions {
    fn default() -> MatchOptions {
        MatchOptions {
            nodes: 5_000,
            max_plies: 400,
            adjudicate_cp: 1000,
            adjudicate_plies: 8,
            hash: 4,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Termination {
    Checkmate,
    Stalemate,
    Repetition,
    FiftyMoves,
    InsufficientMaterial,
    PlyCap,
    Adjudicated,
}

impl Termination {
    pub const ALL: [Termination; 7] = [
        Termination::Checkmate,
        Termination::Stalemate,
        Termination::Repetition,
        Termination::FiftyMoves,
        Termination::InsufficientMaterial,
        Termination::PlyCap,
        Termination::Adjudicated,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Termination::Checkmate => "checkmate",
            Termination::Stalemate => "stalemate",
            Termination::Repetition => "threefold repetition",
            Termination::FiftyMoves => "50-move rule",
            Termination::InsufficientMaterial => "insufficient material",
            Termination::PlyCap => "ply cap",
            Termination::Adjudicated => "adjudicated",
        }
    }
}

/// One game of the match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    pub opening: usize,
    /// The first engine (the one measured) had White.
    pub first_is_white: bool,
    /// The result for White in half points: 2 a win, 1 a draw, 0 a loss.
    pub white_halves: u8,
    pub termination: Termination,
    /// Every move from the start position, the opening's included.
    pub moves: Vec<Move>,
}

impl GameRecord {
    /// The first engine's result in half points.
    pub fn first_halves(&self) -> u8 {
        if self.first_is_white {
            self.white_halves
        } else {
            2 - self.white_halves
        }
    }
}

/// Plays every opening twice, `first` with White and then with Black, against `second`.
/// `progress` is called (from any thread) after each game with the number finished.
pub fn play_match(
    first: &'static Weights,
    second: &'static Weights,
    openings: &[Opening],
    opts: &MatchOptions,
    progress: &(dyn Fn(usize) + Sync),
) -> Vec<GameRecord> {
    let done = std::sync::atomic::AtomicUsize::new(0);
    let games: Vec<(usize, bool)> = (0..openings.len())
        .flat_map(|i| [(i, true), (i, false)])
        .collect();
    games
        .par_iter()
        .map_init(
            || {
                (
                    Searcher::with_weights(opts.hash, first),
                    Searcher::with_weights(opts.hash, second),
                )
            },
            |(a, b), &(i, first_is_white)| {
                let record = play_game(a, b, &openings[i], i, first_is_white, opts);
                progress(done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1);
                record
            },
        )
        .collect()
}

/// One game between the engines `a` (the first) and `b`.
fn play_game(
    a: &mut Searcher,
    b: &mut Searcher,
    opening: &Opening,
    index: usize,
    first_is_white: bool,
    opts: &MatchOptions,
) -> GameRecord {
    a.clear();
    b.clear();
    let mut g = Played::new();
    for &m in &opening.moves {
        g.play(m);
    }
    // Consecutive plies on which both engines saw the same side winning, and that side
    // (true: White).
    let mut streak = 0usize;
    let mut leader: Option<bool> = None;
    let (white_halves, termination) = loop {
        let pos = g.pos;
        let white_to_move = pos.turn() == crate::chess::Color::White;
        if !pos.has_legal_moves() {
            break if pos.is_check() {
                (if white_to_move { 0 } else { 2 }, Termination::Checkmate)
            } else {
                (1, Termination::Stalemate)
            };
        }
        if pos.halfmove_clock() >= 100 {
            break (1, Termination::FiftyMoves);
        }
        let key = *g.reps.last().expect("the start is recorded");
        if g.reps.iter().filter(|&&k| k == key).count() >= 3 {
            break (1, Termination::Repetition);
        }
        if insufficient_material(&pos) {
            break (1, Termination::InsufficientMaterial);
        }
        if g.moves.len() >= opts.max_plies {
            break (1, Termination::PlyCap);
        }
        let engine = if white_to_move == first_is_white {
            &mut *a
        } else {
            &mut *b
        };
        let r = engine.search(&pos, &g.keys, Limits::nodes(opts.nodes));
        let m = r.best_move.expect("a legal move exists");
        // Who the mover's search says is winning, if clearly anyone.
        let cp = r.score.to_cp_clamped(100_000);
        let verdict = if cp >= opts.adjudicate_cp {
            Some(white_to_move)
        } else if cp <= -opts.adjudicate_cp {
            Some(!white_to_move)
        } else {
            None
        };
        if verdict.is_some() && verdict == leader {
            streak += 1;
        } else {
            streak = usize::from(verdict.is_some());
            leader = verdict;
        }
        if streak >= opts.adjudicate_plies
            && let Some(white_wins) = leader
        {
            break (if white_wins { 2 } else { 0 }, Termination::Adjudicated);
        }
        g.play(m);
    };
    GameRecord {
        opening: index,
        first_is_white,
        white_halves,
        termination,
        moves: g.moves,
    }
}

/// A game so far: the position, the moves, and every position's search and repetition keys.
struct Played {
    pos: Position,
    moves: Vec<Move>,
    keys: Vec<u64>,
    reps: Vec<u64>,
}

impl Played {
    fn new() -> Played {
        let pos = Position::new();
        Played {
            pos,
            moves: Vec::new(),
            keys: vec![pos.zobrist()],
            reps: vec![pos.repetition_key()],
        }
    }

    fn play(&mut self, m: Move) {
        self.pos.play_unchecked(m);
        self.moves.push(m);
        self.keys.push(self.pos.zobrist());
        self.reps.push(self.pos.repetition_key());
    }
}

/// No pawn, rook or queen, and at most one minor piece, or only bishops all on squares of one
/// colour: no sequence of legal moves can mate.
pub fn insufficient_material(pos: &Position) -> bool {
    let heavy = pos.by_role(Role::Pawn) | pos.by_role(Role::Rook) | pos.by_role(Role::Queen);
    if heavy.nonempty() {
        return false;
    }
    let knights = pos.by_role(Role::Knight);
    let bishops = pos.by_role(Role::Bishop);
    let minors = (knights | bishops).count();
    minors <= 1
        || (knights.is_empty()
            && ((bishops & Bitboard::DARK_SQUARES).is_empty()
                || (bishops & Bitboard::LIGHT_SQUARES).is_empty()))
}

/// The match from the first engine's side.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchSummary {
    pub wins: usize,
    pub draws: usize,
    pub losses: usize,
    /// Pairs (one opening, both colours) scoring 0, ½, 1, 1½ and 2 points.
    pub pairs: [usize; 5],
    /// Points per game, 0 to 1.
    pub score: f64,
    pub elo: f64,
    /// The 95 % interval of the Elo difference, from the pairs' variance.
    pub elo_low: f64,
    pub elo_high: f64,
}

/// A hash (FNV-1a) of every move and result of the match: equal runs give the same number.
pub fn signature(games: &[GameRecord]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for g in games {
        for m in &g.moves {
            h = (h ^ u64::from(m.to_u16())).wrapping_mul(0x100_0000_01b3);
        }
        h = (h ^ g.white_halves as u64).wrapping_mul(0x100_0000_01b3);
    }
    h
}

/// The Elo difference that expects `score` points a game.
pub fn elo_of(score: f64) -> f64 {
    let s = score.clamp(1e-6, 1.0 - 1e-6);
    -400.0 * (1.0 / s - 1.0).log10()
}

/// Totals and the Elo estimate of a match played by `play_match` (games in pairs).
pub fn summarise(games: &[GameRecord]) -> MatchSummary {
    let mut wins = 0;
    let mut draws = 0;
    let mut losses = 0;
    for g in games {
        match g.first_halves() {
            2 => wins += 1,
            1 => draws += 1,
            _ => losses += 1,
        }
    }
    let mut pairs = [0usize; 5];
    let pair_scores: Vec<f64> = games
        .chunks_exact(2)
        .map(|p| {
            let halves = (p[0].first_halves() + p[1].first_halves()) as usize;
            pairs[halves] += 1;
            halves as f64 / 4.0
        })
        .collect();
    let n = games.len().max(1) as f64;
    let score = (wins as f64 + draws as f64 / 2.0) / n;
    let m = pair_scores.len().max(1) as f64;
    let mean = pair_scores.iter().sum::<f64>() / m;
    let var = pair_scores.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / m;
    let half_width = 1.96 * (var / m).sqrt();
    MatchSummary {
        wins,
        draws,
        losses,
        pairs,
        score,
        elo: elo_of(score),
        elo_low: elo_of(mean - half_width),
        elo_high: elo_of(mean + half_width),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::weights::CLASSIC;

    #[test]
    fn opening_lines_are_read_as_moves() {
        let moves = parse_line("1. e4 e5 2. Nf3 Nc6 3. Bb5").unwrap();
        assert_eq!(moves.len(), 5);
        assert_eq!(parse_line("1. e4 e5 2. Ke3"), None);
    }

    #[test]
    fn insufficient_material_is_recognised() {
        let dead = |fen: &str| insufficient_material(&Position::from_fen(fen).unwrap());
        assert!(dead("8/8/4k3/8/8/3K4/8/8 w - - 0 1"));
        assert!(dead("8/8/4k3/8/8/3KN3/8/8 w - - 0 1"));
        // Bishops on c1 and f4: both dark squares.
        assert!(dead("8/8/4k3/8/5b2/3K4/8/2B5 w - - 0 1"));
        assert!(!dead("8/8/4k3/8/4b3/3K4/8/2B5 w - - 0 1"));
        assert!(!dead("8/8/4k3/8/8/3KNN2/8/8 w - - 0 1"));
        assert!(!dead("8/8/4k3/8/8/3K4/7P/8 w - - 0 1"));
    }

    #[test]
    fn elo_and_its_interval_follow_the_score() {
        assert!(elo_of(0.5).abs() < 1e-9);
        assert!((elo_of(0.75) - 190.848).abs() < 1e-3);
        let game = |first_is_white, white_halves| GameRecord {
            opening: 0,
            first_is_white,
            white_halves,
            termination: Termination::Checkmate,
            moves: Vec::new(),
        };
        // Two pairs: a win and a draw, then a draw and a loss: even.
        let games = [game(true, 2), game(false, 1), game(true, 1), game(false, 2)];
        let s = summarise(&games);
        assert_eq!((s.wins, s.draws, s.losses), (1, 2, 1));
        assert_eq!(s.pairs, [0, 1, 0, 1, 0]);
        assert!(s.elo.abs() < 1e-9);
        assert!(s.elo_low < -50.0 && s.elo_high > 50.0);
        assert!((s.elo_low + s.elo_high).abs() < 1e-6);
    }

    #[test]
    fn a_match_is_the_same_every_time() {
        let openings = vec![Opening {
            name: "C20 King's Pawn Game".into(),
            moves: parse_line("1. e4 e5 2. Nf3 Nc6").unwrap(),
        }];
        let opts = MatchOptions {
            nodes: 300,
            max_plies: 60,
            ..MatchOptions::default()
        };
        let one = play_match(&CLASSIC, &CLASSIC, &openings, &opts, &|_| {});
        let two = play_match(&CLASSIC, &CLASSIC, &openings, &opts, &|_| {});
        assert_eq!(one, two);
        assert_eq!(signature(&one), signature(&two));
        assert_eq!(one.len(), 2);
        assert!(one[0].first_is_white && !one[1].first_is_white);
        // The same engine on both sides plays the same game twice.
        assert_eq!(one[0].moves, one[1].moves);
        assert_eq!(one[0].white_halves, one[1].white_halves);
        assert_eq!(&one[0].moves[..4], &openings[0].moves[..]);
    }
}
