//! Labels less noisy than a game's result: a UCI engine's evaluation of each sampled position
//! (Stockfish, run as a separate program through `search::engine`; its scores are data). Each
//! position is searched alone at a fixed budget, after `ucinewgame`, so its label depends only
//! on the position and the budget; the labels are kept in a cache file named by the sampling
//! seed and the budget, appended as they come, so a rerun (or a run after a kill) asks the
//! engine only for positions it has not answered yet.

use super::TuneError;
use super::data::Sample;
use crate::chess::{Color, Position};
use crate::search::engine::{EngineError, UciEngine, with_engine};
use crate::search::{EngineLimit, EngineSpec, Score};
use rayon::prelude::*;
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Engine centipawns beyond this are clamped, and a mate counts as this (lichess's bound for
/// its winning-chance formula): past it the logistic target is flat anyway.
pub const CLAMP_CP: i32 = 1000;

/// The cache of labels for a sampling seed and an engine budget, inside `dir`.
pub fn cache_file(dir: &Path, seed: u64, limit: EngineLimit) -> PathBuf {
    let budget = match limit {
        EngineLimit::Nodes(n) => format!("nodes{n}"),
        EngineLimit::Depth(d) => format!("depth{d}"),
    };
    dir.join(format!("labels-seed{seed}-{budget}.tsv"))
}

/// `cp 31`, `mate -3`: the engine's own words.
fn format_score(s: Score) -> String {
    match s {
        Score::Cp(v) => format!("cp {v}"),
        Score::Mate(n) => format!("mate {n}"),
    }
}

fn parse_score(text: &str) -> Option<Score> {
    let (kind, value) = text.split_once(' ')?;
    let value: i32 = value.trim().parse().ok()?;
    match kind {
        "cp" => Some(Score::Cp(value)),
        "mate" => Some(Score::Mate(value)),
        _ => None,
    }
}

/// The cached labels: lines `FEN<TAB>cp N` or `FEN<TAB>mate N` (the engine's score from the
/// side to move); lines starting with `#` are comments. A missing file is an empty cache.
pub fn read_cache(path: &Path) -> Result<HashMap<String, Score>, TuneError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(HashMap::new()),
        Err(source) => {
            return Err(TuneError::Io {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let mut map = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |why: &str| TuneError::Cache {
            path: path.to_path_buf(),
            line: i + 1,
            message: format!("{why}: {line:?}"),
        };
        let (fen, score) = line.split_once('\t').ok_or_else(|| bad("no tab"))?;
        let score = parse_score(score).ok_or_else(|| bad("not `cp N` or `mate N`"))?;
        Position::from_fen(fen).map_err(|e| bad(&format!("bad FEN ({e})")))?;
        map.insert(fen.to_string(), score);
    }
    Ok(map)
}

/// What labelling cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LabelStats {
    /// Distinct positions among the samples.
    pub distinct: usize,
    /// Of those, found in the cache.
    pub cached: usize,
    /// Asked of the engine in this run.
    pub asked: usize,
    /// The engine's nodes for those.
    pub nodes: u64,
}

/// One position's search: a fresh game, then the position alone at the spec's budget. A crash
/// or hang is retried once with a new engine (`with_engine` drops the failed one).
fn ask(spec: &EngineSpec, fen: &str) -> Result<(Score, u64), EngineError> {
    let pos = Position::from_fen(fen).expect("a FEN written from a position");
    let once = || {
        with_engine(spec, |e: &mut UciEngine| {
            e.new_game()?;
            let r = e.search(&pos, &[], &pos, &[])?;
            Ok((r.score, r.nodes))
        })
    };
    match once() {
        Err(e) if e.restartable() => once(),
        other => other,
    }
}

/// The engine's score (side to move) of every sample, from the cache at `cache` or asked of
/// the engine on `jobs` threads (one engine process each). New labels are appended to the
/// cache a chunk at a time, so an interrupted run keeps what it paid for. `progress` sees
/// (asked so far, to ask).
pub fn label_samples(
    samples: &[Sample],
    spec: &EngineSpec,
    cache: &Path,
    jobs: usize,
    mut progress: impl FnMut(usize, usize),
) -> Result<(Vec<Score>, LabelStats), TuneError> {
    let mut known = read_cache(cache)?;
    let fens: Vec<String> = samples.iter().map(|s| s.pos.fen()).collect();
    let mut missing = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for f in &fens {
        if seen.insert(f.as_str()) && !known.contains_key(f) {
            missing.push(f.clone());
        }
    }
    let mut stats = LabelStats {
        distinct: seen.len(),
        cached: seen.len() - missing.len(),
        ..LabelStats::default()
    };
    if !missing.is_empty() {
        let io = |source| TuneError::Io {
            path: cache.to_path_buf(),
            source,
        };
        if let Some(dir) = cache.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let fresh = !cache.exists();
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(cache)
            .map_err(io)?;
        if fresh {
            writeln!(
                file,
                "# arbiter tune labels: {} at {:?}, one thread, ucinewgame before each position; FEN<TAB>score from the side to move",
                spec.path.display(),
                spec.limit
            )
            .map_err(io)?;
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs.max(1))
            .build()
            .map_err(|e| TuneError::Empty(format!("cannot start the labelling threads: {e}")))?;
        let chunk = 32 * jobs.max(1);
        for (i, part) in missing.chunks(chunk).enumerate() {
            let answers: Vec<Result<(Score, u64), EngineError>> =
                pool.install(|| part.par_iter().map(|f| ask(spec, f)).collect());
            let mut lines = String::new();
            for (fen, answer) in part.iter().zip(answers) {
                let (score, nodes) = answer.map_err(TuneError::Engine)?;
                lines.push_str(&format!("{fen}\t{}\n", format_score(score)));
                known.insert(fen.clone(), score);
                stats.asked += 1;
                stats.nodes += nodes;
            }
            file.write_all(lines.as_bytes())
                .and_then(|()| file.flush())
                .map_err(io)?;
            progress((i * chunk + part.len()).min(missing.len()), missing.len());
        }
        // The pool's threads end with it, and their engines are told to quit.
        drop(pool);
    }
    let scores = fens.iter().map(|f| known[f]).collect();
    Ok((scores, stats))
}

/// The engine's score as White's centipawns, clamped to ±`CLAMP_CP` (a mate counts as the
/// bound).
pub fn white_cp(score: Score, turn: Color) -> f64 {
    let v = score.to_cp_clamped(CLAMP_CP) as f64;
    match turn {
        Color::White => v,
        Color::Black => -v,
    }
}

/// The samples relabelled: each target is `(1 − w)·sigmoid(k_engine·cp) + w·result`, cp the
/// engine's clamped score for White; `w` = 0 takes the engine alone.
pub fn relabel(samples: &[Sample], scores: &[Score], k_engine: f64, w: f64) -> Vec<Sample> {
    samples
        .iter()
        .zip(scores)
        .map(|(s, &score)| {
            let p = super::texel::sigmoid(k_engine, white_cp(score, s.pos.turn()));
            Sample {
                result: ((1.0 - w) * p + w * s.result as f64) as f32,
                ..s.clone()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn scores_round_trip_through_the_cache_text() {
        for s in [
            Score::Cp(31),
            Score::Cp(-1200),
            Score::Mate(3),
            Score::Mate(-2),
        ] {
            assert_eq!(parse_score(&format_score(s)), Some(s));
        }
        assert_eq!(parse_score("cp x"), None);
        assert_eq!(parse_score("lowerbound 3"), None);
        assert_eq!(
            cache_file(Path::new("c"), 7, EngineLimit::Nodes(20_000)),
            PathBuf::from("c/labels-seed7-nodes20000.tsv")
        );
        assert_eq!(
            cache_file(Path::new("c"), 1, EngineLimit::Depth(10)),
            PathBuf::from("c/labels-seed1-depth10.tsv")
        );
    }

    #[test]
    fn a_bad_cache_line_is_located() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("labels.tsv");
        std::fs::write(
            &path,
            format!(
                "# header\n{}\tcp 20\n{}\tcentipawns 20\n",
                crate::chess::START_FEN,
                crate::chess::START_FEN
            ),
        )
        .unwrap();
        let e = read_cache(&path).unwrap_err().to_string();
        assert!(e.ends_with("line 3: not `cp N` or `mate N`: \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\\tcentipawns 20\""), "{e}");
        assert!(read_cache(&dir.path().join("none.tsv")).unwrap().is_empty());
    }

    #[test]
    fn targets_are_the_engine_as_white_and_the_blend() {
        let black = Position::from_fen("4k3/8/8/8/8/8/4P3/4K3 b - - 0 1").unwrap();
        assert_eq!(white_cp(Score::Cp(150), Color::Black), -150.0);
        assert_eq!(white_cp(Score::Cp(5000), Color::White), 1000.0);
        assert_eq!(white_cp(Score::Mate(-2), Color::Black), 1000.0);
        let s = Sample {
            pos: black,
            result: 1.0,
            game: 0,
        };
        // Black to move at −400 for Black: White +400, sigmoid with k = 1 is 1/(1 + 10^−1).
        let t = relabel(std::slice::from_ref(&s), &[Score::Cp(-400)], 1.0, 0.0);
        assert!(
            (t[0].result as f64 - 1.0 / 1.1).abs() < 1e-6,
            "{}",
            t[0].result
        );
        let half = relabel(std::slice::from_ref(&s), &[Score::Cp(0)], 1.0, 0.5);
        assert!((half[0].result - 0.75).abs() < 1e-6);
        assert_eq!(half[0].pos, s.pos);
    }

    /// A shell script that answers every search with `score` and counts the searches it was
    /// asked in `count`: real UCI over a pipe.
    fn scripted_engine(dir: &Path, score: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let count = dir.join("searches");
        let path = dir.join("engine.sh");
        let script = format!(
            "#!/bin/sh\nwhile read -r line; do\n  case \"$line\" in\n    uci) echo 'id name Scripted'; echo uciok ;;\n    isready) echo readyok ;;\n    go*) echo go >> '{}'; echo 'info depth 1 score {score} nodes 42 pv'; echo 'bestmove 0000' ;;\n    quit) exit 0 ;;\n  esac\ndone\n",
            count.display()
        );
        std::fs::write(&path, script).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    #[test]
    fn labels_are_asked_once_and_then_read_from_the_cache() {
        let dir = tempfile::tempdir().unwrap();
        let fens = [
            crate::chess::START_FEN,
            "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 b - - 0 10",
        ];
        let mut samples: Vec<Sample> = fens
            .iter()
            .map(|f| Sample {
                pos: Position::from_fen(f).unwrap(),
                result: 0.5,
                game: 0,
            })
            .collect();
        // The same position twice is asked once.
        samples.push(samples[0].clone());
        // An engine whose every `bestmove` is illegal: its score is read, its move refused.
        let spec = EngineSpec {
            path: scripted_engine(dir.path(), "cp 37"),
            limit: EngineLimit::Nodes(100),
            threads: 1,
            options: Vec::new(),
            search_timeout: Duration::from_secs(10),
            sweep_nodes: 0,
            refine_nodes: 0,
        };
        let cache = dir.path().join("cache").join("labels.tsv");
        let e = label_samples(&samples, &spec, &cache, 2, |_, _| {}).unwrap_err();
        assert!(e.to_string().contains("not a legal move"), "{e}");
        // The legal answer: a move from each position.
        let script = std::fs::read_to_string(&spec.path)
            .unwrap()
            .replace(
                "echo 'bestmove 0000'",
                "case \"$pos\" in *' b '*) echo 'bestmove a8b8' ;; *) echo 'bestmove e2e4' ;; esac",
            )
            .replace(
                "    isready)",
                "    position*) pos=\"$line\" ;;\n    isready)",
            );
        std::fs::write(&spec.path, script).unwrap();
        std::fs::remove_file(dir.path().join("searches")).unwrap();
        let mut seen = Vec::new();
        let (scores, stats) =
            label_samples(&samples, &spec, &cache, 2, |d, t| seen.push((d, t))).unwrap();
        assert_eq!(scores, vec![Score::Cp(37); 3]);
        assert_eq!(
            stats,
            LabelStats {
                distinct: 2,
                cached: 0,
                asked: 2,
                nodes: 84
            }
        );
        assert_eq!(seen, vec![(2, 2)]);
        let asked = std::fs::read_to_string(dir.path().join("searches")).unwrap();
        assert_eq!(asked.lines().count(), 2);
        // A rerun reads the cache and asks nothing, even of an engine that is gone.
        let gone = EngineSpec {
            path: dir.path().join("no-such-engine"),
            ..spec.clone()
        };
        let (again, stats) = label_samples(&samples, &gone, &cache, 2, |_, _| {}).unwrap();
        assert_eq!(again, scores);
        assert_eq!((stats.cached, stats.asked), (2, 0));
        // One more position is asked of the engine, and only that one.
        samples.push(Sample {
            pos: Position::from_fen("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1").unwrap(),
            result: 1.0,
            game: 1,
        });
        let (more, stats) = label_samples(&samples, &spec, &cache, 1, |_, _| {}).unwrap();
        assert_eq!(more.len(), 4);
        assert_eq!((stats.cached, stats.asked), (2, 1));
        let asked = std::fs::read_to_string(dir.path().join("searches")).unwrap();
        assert_eq!(asked.lines().count(), 3);
        assert_eq!(read_cache(&cache).unwrap().len(), 3);
    }
}
