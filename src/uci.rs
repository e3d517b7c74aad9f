//! arbiter's own engine over the Universal Chess Interface, so a GUI or a match runner can
//! play it: the server loop (`serve`), reading commands line by line. Searches run on their
//! own thread, so `stop`, `isready` and `quit` are answered while one runs. Scores are on
//! the calibrated pawn scale. `arbiter uci` runs it on standard input and output.

use crate::chess::uci::{parse_uci, to_uci};
use crate::chess::{Color, Move, Position, START_FEN};
use crate::search::{Limits, Score, SearchResult, Searcher};
use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The largest `Hash` option, in MB.
pub const MAX_HASH_MB: usize = 4096;

/// The session: the position the GUI set up and the searcher, lent to the search thread.
struct Session {
    pos: Position,
    /// Repetition keys of the game's positions up to `pos`.
    history: Vec<u64>,
    hash_mb: usize,
    searcher: Option<Box<Searcher>>,
    running: Option<Running>,
    out: Out,
}

/// A search on its own thread: its stop flag, whether it has a limit of its own, its thread.
struct Running {
    stop: Arc<AtomicBool>,
    infinite: bool,
    handle: JoinHandle<Box<Searcher>>,
}

/// Where the server's lines go: standard output for a GUI, a buffer in a test. The search
/// thread writes its `bestmove` through the same handle.
pub type Out = Arc<Mutex<dyn Write + Send>>;

/// Serves UCI commands from `input` until `quit` or its end, with a transposition table of
/// `hash_mb` MB (clamped to 1..=4096) at start.
pub fn serve(input: impl BufRead, out: Out, hash_mb: usize) -> io::Result<()> {
    let start = Position::from_fen(START_FEN).expect("the start position parses");
    let hash_mb = hash_mb.clamp(1, MAX_HASH_MB);
    let mut s = Session {
        pos: start,
        history: vec![start.zobrist()],
        hash_mb,
        searcher: Some(Box::new(Searcher::new(hash_mb))),
        running: None,
        out,
    };
    let say = |s: &Session, text: &str| say(&s.out, text);
    for line in input.lines() {
        let line = line?;
        let mut words = line.split_ascii_whitespace();
        let Some(command) = words.next() else {
            continue;
        };
        let rest: Vec<&str> = words.collect();
        match command {
            "uci" => say(
                &s,
                &format!(
                    "id name arbiter {}\nid author the arbiter developers\n\
                 option name Hash type spin default 16 min 1 max {MAX_HASH_MB}\nuciok",
                    env!("CARGO_PKG_VERSION")
                ),
            ),
            "isready" => say(&s, "readyok"),
            "ucinewgame" => {
                s.finish();
                if let Some(searcher) = s.searcher.as_mut() {
                    searcher.clear();
                }
            }
            "setoption" => {
                s.finish();
                set_option(&mut s, &rest);
            }
            "position" => {
                s.finish();
                if let Err(e) = set_position(&mut s, &rest) {
                    say(&s, &format!("info string {e}"));
                }
            }
            "go" => {
                s.finish();
                go(&mut s, &rest);
            }
            "stop" => s.finish_with(true),
            "quit" => {
                s.finish_with(true);
                return Ok(());
            }
            "d" => say(&s, &format!("info string {}", s.pos.fen())),
            _ => say(&s, &format!("info string unknown command {command:?}")),
        }
    }
    s.finish_with(true);
    Ok(())
}

/// One or more lines to the GUI, flushed at once (a pipe would otherwise hold them).
fn say(out: &Out, text: &str) {
    let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
    let _ = writeln!(out, "{text}");
    let _ = out.flush();
}

impl Session {
    /// Waits for a running search to end (its thread prints `bestmove`) and takes the
    /// searcher back. With `stop`, or when the search has no limit of its own (`go
    /// infinite`), it is stopped first; a search with a limit is otherwise let finish, so a
    /// script may send its next commands without waiting for `bestmove`.
    fn finish_with(&mut self, stop: bool) {
        if let Some(Running {
            stop: flag,
            infinite,
            handle,
        }) = self.running.take()
        {
            if stop || infinite {
                flag.store(true, Ordering::Relaxed);
            }
            match handle.join() {
                Ok(searcher) => self.searcher = Some(searcher),
                Err(_) => self.searcher = Some(Box::new(Searcher::new(self.hash_mb))),
            }
        }
    }

    fn finish(&mut self) {
        self.finish_with(false);
    }
}

fn set_option(s: &mut Session, words: &[&str]) {
    // setoption name NAME [value VALUE]; names may hold spaces.
    let text = words.join(" ");
    let Some(rest) = text.strip_prefix("name ") else {
        return say(&s.out, "info string setoption needs `name`");
    };
    let (name, value) = match rest.split_once(" value ") {
        Some((n, v)) => (n.trim(), v.trim()),
        None => (rest.trim(), ""),
    };
    if name.eq_ignore_ascii_case("Hash") {
        match value.parse::<usize>() {
            Ok(mb) if (1..=MAX_HASH_MB).contains(&mb) => {
                s.hash_mb = mb;
                s.searcher = Some(Box::new(Searcher::new(mb)));
            }
            _ => say(
                &s.out,
                &format!("info string Hash must be 1..{MAX_HASH_MB}, not {value:?}"),
            ),
        }
    } else {
        say(&s.out, &format!("info string no option {name:?}"));
    }
}

/// `position (startpos | fen FEN) [moves M...]`. On an error the position is left as it was.
fn set_position(s: &mut Session, words: &[&str]) -> Result<(), String> {
    let moves_at = words.iter().position(|&w| w == "moves");
    let (setup, moves) = match moves_at {
        Some(i) => (&words[..i], &words[i + 1..]),
        None => (words, &[][..]),
    };
    let mut pos = match setup.first() {
        Some(&"startpos") => Position::from_fen(START_FEN).expect("the start position parses"),
        Some(&"fen") => Position::from_fen(&setup[1..].join(" "))
            .map_err(|e| format!("bad FEN {:?}: {e}", setup[1..].join(" ")))?,
        _ => return Err("position needs `startpos` or `fen FEN`".to_string()),
    };
    let mut history = vec![pos.zobrist()];
    for (i, text) in moves.iter().enumerate() {
        let m = parse_uci(&pos, text)
            .ok()
            .filter(|&m| pos.is_legal(m))
            .ok_or_else(|| format!("move {} ({text}) is not legal in {}", i + 1, pos.fen()))?;
        pos.play_unchecked(m);
        history.push(pos.zobrist());
    }
    s.pos = pos;
    s.history = history;
    Ok(())
}

/// The limits of a `go` command. With a clock, about 1/30 of the time left plus most of the
/// increment, never more than half the time left.
fn go_limits(words: &[&str], turn: Color) -> Limits {
    let mut limits = Limits::default();
    let (mut time, mut inc, mut moves_to_go) = (None, 0u64, None);
    let mut i = 0;
    while i < words.len() {
        let value = words.get(i + 1).and_then(|v| v.parse::<i64>().ok());
        let value = value.map(|v| v.max(0) as u64);
        let mut takes_value = true;
        match (words[i], turn) {
            ("nodes", _) => limits.nodes = value,
            ("depth", _) => limits.depth = value.map(|d| d as u32),
            ("movetime", _) => limits.movetime = value.map(Duration::from_millis),
            ("wtime", Color::White) | ("btime", Color::Black) => time = value,
            ("winc", Color::White) | ("binc", Color::Black) => inc = value.unwrap_or(0),
            ("movestogo", _) => moves_to_go = value,
            ("wtime" | "btime" | "winc" | "binc", _) => {}
            _ => takes_value = false, // infinite, ponder, searchmoves' moves…
        }
        i += if takes_value { 2 } else { 1 };
    }
    if let Some(t) = time
        && limits.movetime.is_none()
    {
        let share = t / moves_to_go.unwrap_or(30).clamp(1, 30) + inc * 3 / 4;
        let ms = share.min(t / 2).max(1);
        limits.movetime = Some(Duration::from_millis(ms));
    }
    limits
}

/// The moves after `searchmoves` that are legal here (up to the first word that is not
/// one), as the legal moves the search must leave out; empty when there is no restriction.
fn excluded_by_searchmoves(pos: &Position, words: &[&str]) -> Vec<Move> {
    let Some(at) = words.iter().position(|w| *w == "searchmoves") else {
        return Vec::new();
    };
    let allowed: Vec<Move> = words[at + 1..]
        .iter()
        .map_while(|w| parse_uci(pos, w).ok())
        .collect();
    if allowed.is_empty() {
        return Vec::new();
    }
    let legal = pos.legal_moves();
    legal
        .as_slice()
        .iter()
        .copied()
        .filter(|m| !allowed.contains(m))
        .collect()
}

fn go(s: &mut Session, words: &[&str]) {
    let limits = go_limits(words, s.pos.turn());
    let excluded = excluded_by_searchmoves(&s.pos, words);
    let infinite = limits == Limits::default();
    let mut searcher = s
        .searcher
        .take()
        .unwrap_or_else(|| Box::new(Searcher::new(s.hash_mb)));
    let flag = Arc::new(AtomicBool::new(false));
    searcher.set_stop_flag(Some(flag.clone()));
    let (pos, history) = (s.pos, s.history.clone());
    let out = s.out.clone();
    let handle = std::thread::spawn(move || {
        let started = Instant::now();
        // Without a limit (`go infinite`) the search runs until `stop` or its deepest depth.
        let result = if excluded.is_empty() {
            searcher.search(&pos, &history, limits)
        } else {
            searcher.search_excluding(&pos, &history, limits, &excluded)
        };
        report(&out, &pos, &result, started.elapsed());
        searcher
    });
    s.running = Some(Running {
        stop: flag,
        infinite,
        handle,
    });
}

fn report(out: &Out, pos: &Position, r: &SearchResult, elapsed: Duration) {
    let ms = elapsed.as_millis().max(1);
    let score = match r.score {
        Score::Cp(cp) => format!("cp {cp}"),
        Score::Mate(n) => format!("mate {n}"),
    };
    let mut p = *pos;
    let mut pv = Vec::with_capacity(r.pv.len());
    for &m in &r.pv {
        if !p.is_legal(m) {
            break;
        }
        pv.push(to_uci(&p, m));
        p.play_unchecked(m);
    }
    let best = r
        .best_move
        .map_or_else(|| "0000".to_string(), |m| to_uci(pos, m));
    say(
        out,
        &format!(
            "info depth {} seldepth {} nodes {} time {ms} nps {} score {score} pv {}\nbestmove {best}",
            r.depth.max(1),
            r.seldepth,
            r.nodes,
            r.nodes as u128 * 1000 / ms,
            pv.join(" "),
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The server's output, kept to be read back.
    #[derive(Clone, Default)]
    struct Kept(Arc<Mutex<Vec<u8>>>);

    impl Write for Kept {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn session(commands: &str) -> String {
        let kept = Kept::default();
        let out: Out = Arc::new(Mutex::new(kept.clone()));
        serve(commands.as_bytes(), out, 1).unwrap();
        String::from_utf8(kept.0.lock().unwrap().clone()).unwrap()
    }

    #[test]
    fn a_session_answers_each_command() {
        // `position` waits for the search before it (depth 2 ends on its own).
        let text = session(
            "uci\nisready\nposition startpos moves e2e4\ngo depth 2\nposition startpos\nd\nbogus\nquit\n",
        );
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("id name arbiter "), "{text}");
        assert!(
            lines.contains(&"uciok") && lines.contains(&"readyok"),
            "{text}"
        );
        let best = lines
            .iter()
            .find_map(|l| l.strip_prefix("bestmove "))
            .expect("a best move");
        // Black's reply to 1. e4, in UCI notation.
        let after_e4 =
            Position::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
                .unwrap();
        let m = parse_uci(&after_e4, best).expect("a move in UCI notation");
        assert!(after_e4.is_legal(m), "{best}");
        assert!(
            lines.contains(&"info string rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
            "{text}"
        );
        assert!(
            lines.contains(&"info string unknown command \"bogus\""),
            "{text}"
        );
        // A bad move leaves the position as it was and says why.
        let text = session("position startpos moves e2e5\nd\n");
        assert!(
            text.starts_with("info string move 1 (e2e5) is not legal"),
            "{text}"
        );
    }

    #[test]
    fn go_reads_limits_and_the_side_to_moves_clock() {
        let l = go_limits(&["nodes", "5000"], Color::White);
        assert_eq!(l, Limits::nodes(5000));
        let l = go_limits(&["depth", "7", "movetime", "300"], Color::Black);
        assert_eq!(
            (l.depth, l.movetime),
            (Some(7), Some(Duration::from_millis(300)))
        );
        // 60 s and 1 s increment for Black: 60000/30 + 750 ms.
        let l = go_limits(
            &[
                "wtime", "1000", "btime", "60000", "winc", "0", "binc", "1000",
            ],
            Color::Black,
        );
        assert_eq!(l.movetime, Some(Duration::from_millis(2750)));
        // Never more than half of what is left.
        let l = go_limits(&["wtime", "100", "winc", "1000"], Color::White);
        assert_eq!(l.movetime, Some(Duration::from_millis(50)));
        assert_eq!(go_limits(&["infinite"], Color::White), Limits::default());
    }
}
