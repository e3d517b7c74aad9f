//! The tuner's data: quiet positions from real games, labelled by the game's result. Which
//! positions are taken depends only on the files, their order and the seed: each game draws
//! its plies from its own generator (`Rng::for_item(seed, game number)`), so the work can be
//! spread over threads and the set is still the same.

use super::TuneError;
use crate::chess::Position;
use crate::chess::san::SanMode;
use crate::game::replay::replay;
use crate::laws::result::WhiteResult;
use crate::pgn::{Game, parse_all};
use crate::rng::Rng;
use crate::search::Searcher;
use crate::search::eval::evaluate_with;
use crate::search::weights::CLASSIC;
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// How positions are drawn from each game.
#[derive(Clone, Copy, Debug)]
pub struct SampleOptions {
    pub seed: u64,
    /// At most this many positions from one game.
    pub per_game: usize,
    /// Plies at the start of a game never taken (the opening is book, not judgement).
    pub skip_plies: usize,
}

impl Default for SampleOptions {
    fn default() -> SampleOptions {
        SampleOptions {
            seed: 1,
            per_game: 10,
            skip_plies: 8,
        }
    }
}

/// One labelled position.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub pos: Position,
    /// The game's result for White: 1, ½ or 0.
    pub result: f32,
    /// The game's number in the whole input (files in order), for splitting by game.
    pub game: u32,
}

/// What the sampling read and kept.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DataStats {
    pub files: usize,
    pub games: usize,
    /// Games with a result (1-0, 0-1, ½-½) that replayed completely.
    pub games_used: usize,
    pub positions: usize,
}

/// The PGN files of the corpus used for tuning, in a fixed order: master games over the
/// board, TWIC, lichess and TCEC engine games.
pub fn corpus_files(corpus: &Path) -> Result<Vec<PathBuf>, TuneError> {
    let mut files = Vec::new();
    for dir in ["otb-pgnmentor", "otb", "twic", "lichess", "engine-tcec"] {
        let dir = corpus.join("games").join(dir);
        std::fs::read_dir(&dir).map_err(|source| TuneError::Io {
            path: dir.clone(),
            source,
        })?;
        // The import's folder walk (PGN files in name order); a folder without any is
        // handed back as itself, and adds nothing here.
        files.extend(
            crate::pipeline::source::expand_inputs(std::slice::from_ref(&dir))
                .into_iter()
                .filter(|p| *p != dir),
        );
    }
    if files.is_empty() {
        return Err(TuneError::Empty(format!(
            "no .pgn files under {}/games",
            corpus.display()
        )));
    }
    Ok(files)
}

/// Quiet positions from the games of `files`, labelled by result.
pub fn sample_files(
    files: &[PathBuf],
    opts: &SampleOptions,
) -> Result<(Vec<Sample>, DataStats), TuneError> {
    let mut games = Vec::new();
    for path in files {
        let bytes = std::fs::read(path).map_err(|source| TuneError::Io {
            path: path.clone(),
            source,
        })?;
        games.extend(parse_all(&bytes).0);
    }
    let mut stats = DataStats {
        files: files.len(),
        games: games.len(),
        ..DataStats::default()
    };
    let per_game: Vec<Option<Vec<Sample>>> = games
        .par_iter()
        .enumerate()
        .map_init(
            || Searcher::for_quiescence(&CLASSIC),
            |qs, (i, game)| sample_game(qs, game, i as u32, opts),
        )
        .collect();
    let mut samples = Vec::new();
    for s in per_game.into_iter().flatten() {
        stats.games_used += 1;
        samples.extend(s);
    }
    stats.positions = samples.len();
    if samples.is_empty() {
        return Err(TuneError::Empty(
            "no quiet positions from games with a result".into(),
        ));
    }
    Ok((samples, stats))
}

/// The game's result for White, if it has one.
fn result_of(game: &Game) -> Option<f32> {
    WhiteResult::of(game.tag("Result")).map(|r| r.white_score() as f32)
}

/// Up to `per_game` quiet positions of one game, `None` when the game has no result or does
/// not replay.
fn sample_game(
    qs: &mut Searcher,
    game: &Game,
    index: u32,
    opts: &SampleOptions,
) -> Option<Vec<Sample>> {
    let result = result_of(game)?;
    let replayed = replay(game, SanMode::Lenient);
    if !replayed.complete || replayed.is_rejected() || replayed.chess960 {
        return None;
    }
    let mut positions = Vec::with_capacity(replayed.moves.len());
    let mut pos = replayed.start;
    for (ply, &m) in replayed.moves.iter().enumerate() {
        pos.play_unchecked(m);
        if ply + 1 > opts.skip_plies {
            positions.push(pos);
        }
    }
    let mut order: Vec<usize> = (0..positions.len()).collect();
    Rng::for_item(opts.seed, index as u64).shuffle(&mut order);
    let mut out = Vec::new();
    for i in order {
        if out.len() >= opts.per_game {
            break;
        }
        let p = &positions[i];
        if is_quiet(qs, p) {
            out.push(Sample {
                pos: *p,
                result,
                game: index,
            });
        }
    }
    Some(out)
}

/// Not in check, a legal move to play, and the quiescence search finds nothing to change the
/// static evaluation: the evaluation alone is judged on it.
pub fn is_quiet(qs: &mut Searcher, pos: &Position) -> bool {
    !pos.is_check() && pos.has_legal_moves() && qs.quiescence(pos) == evaluate_with(pos, &CLASSIC)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn testdata() -> Vec<PathBuf> {
        vec![PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/testdata/tune/games.pgn"
        ))]
    }

    #[test]
    fn the_same_seed_gives_the_same_data_set() {
        let opts = SampleOptions {
            seed: 5,
            per_game: 4,
            skip_plies: 4,
        };
        let (a, stats) = sample_files(&testdata(), &opts).unwrap();
        let (b, again) = sample_files(&testdata(), &opts).unwrap();
        assert_eq!(a, b);
        assert_eq!(stats, again);
        assert_eq!(stats.files, 1);
        assert_eq!(stats.games, 4);
        // The fourth game has no result.
        assert_eq!(stats.games_used, 3);
        assert_eq!(stats.positions, a.len());
        assert!(a.len() <= 12 && a.len() >= 6, "{}", a.len());
        let other = SampleOptions { seed: 6, ..opts };
        let (c, _) = sample_files(&testdata(), &other).unwrap();
        assert_ne!(a, c, "another seed draws other plies");
    }

    #[test]
    fn samples_are_quiet_and_labelled_by_their_game() {
        let (samples, _) = sample_files(&testdata(), &SampleOptions::default()).unwrap();
        let mut qs = Searcher::for_quiescence(&CLASSIC);
        for s in &samples {
            assert!(!s.pos.is_check());
            assert_eq!(qs.quiescence(&s.pos), evaluate_with(&s.pos, &CLASSIC));
            let expected = [1.0, 0.0, 0.5][s.game as usize];
            assert_eq!(s.result, expected);
        }
        // A position with a hanging queen is not quiet.
        let hanging =
            Position::from_fen("rnb1kbnr/pppp1ppp/8/4p1q1/4P3/3P4/PPP2PPP/RNBQKBNR w KQkq - 0 3")
                .unwrap();
        assert!(!is_quiet(&mut qs, &hanging));
        assert!(is_quiet(&mut qs, &Position::new()));
    }
}
