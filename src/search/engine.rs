//! A client for any UCI engine run as a separate program (`--engine PATH`): start it, set its
//! options, search a game's positions with a node or depth limit, and read back the score, best
//! move and principal variation. Every wait has a timeout; an engine that dies, hangs or
//! rejects an option becomes an `EngineError` naming the engine and the position. Each worker
//! thread keeps its own engine process (`with_engine`), restarted after a failure.

use super::{Score, SearchResult};
use crate::chess::uci::{parse_uci, to_uci};
use crate::chess::{Move, Position};
use std::cell::RefCell;
use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// How long an engine may take to answer `uci` or `isready`.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// What each search of the engine is limited by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EngineLimit {
    Nodes(u64),
    Depth(u32),
}

/// Which engine to run and how: fixed for a run, shared by every worker.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EngineSpec {
    pub path: PathBuf,
    pub limit: EngineLimit,
    /// The engine's `Threads` option (1 keeps a node-limited search reproducible).
    pub threads: u32,
    /// Further `setoption name NAME value VALUE`, in order.
    pub options: Vec<(String, String)>,
    /// Longest wait for one search's `bestmove`.
    pub search_timeout: Duration,
    /// Nodes of the sweep: a quick search of every position before the budgeted ones, whose
    /// curve marks where the budget goes (`search::analysis`); 0: no sweep, arbiter's own
    /// search marks the positions.
    pub sweep_nodes: u64,
    /// Nodes of the sweep's second look at the moves its curve puts just under the mark
    /// (`search::analysis::REFINE_FROM`); 0: none.
    pub refine_nodes: u64,
}

impl EngineSpec {
    /// The settings recorded with every analysis made by this engine (`name` as the engine
    /// reported it in `id name`).
    pub fn settings(&self, name: &str) -> serde_json::Value {
        let (kind, value) = match self.limit {
            EngineLimit::Nodes(n) => ("nodes", n),
            EngineLimit::Depth(d) => ("depth", u64::from(d)),
        };
        serde_json::json!({
            "name": name,
            "path": self.path.display().to_string(),
            kind: value,
            "threads": self.threads,
            "options": self.options.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>(),
            "sweep_nodes": self.sweep_nodes,
            "refine_nodes": self.refine_nodes,
        })
    }
}

/// What went wrong with the engine, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineError {
    /// The engine's path as given.
    pub engine: String,
    /// The position being searched (FEN), when the failure happened during a search.
    pub position: Option<String>,
    /// The game's ply of that position, when the analysis knows it.
    pub ply: Option<u32>,
    pub kind: EngineErrorKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineErrorKind {
    /// The program could not be started.
    Spawn(String),
    /// It did not answer `uci` with `uciok` (not a UCI engine?).
    NotUci,
    /// It does not know an option we set (`No such option` or no `option name` line).
    Option(String),
    /// An option it knows, given a value its `option` line does not allow (`takes` says
    /// what it allows).
    OptionValue {
        /// `NAME=VALUE` as given.
        given: String,
        takes: String,
    },
    /// No answer within the timeout; the process was killed.
    Timeout(Duration),
    /// Its output ended (it crashed or quit) or could not be written to.
    Died,
    /// It answered with a move that is not legal in the position (`answer`, its whole
    /// `bestmove` line) to `asked` (the `position` and `go` commands).
    BadMove { answer: String, asked: String },
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "engine {}: ", self.engine)?;
        match &self.kind {
            EngineErrorKind::Spawn(e) => write!(f, "cannot start it: {e}")?,
            EngineErrorKind::NotUci => {
                write!(f, "no `uciok` in answer to `uci`: not a UCI engine")?
            }
            EngineErrorKind::Option(name) => write!(f, "it has no option {name:?}")?,
            EngineErrorKind::OptionValue { given, takes } => write!(
                f,
                "--engine-option {given}: the engine's option {} takes {takes}",
                given.split('=').next().unwrap_or(given)
            )?,
            EngineErrorKind::Timeout(t) => write!(f, "no answer within {} s", t.as_secs_f64())?,
            EngineErrorKind::Died => write!(f, "it stopped answering (crashed or quit)")?,
            EngineErrorKind::BadMove { answer, asked } => write!(
                f,
                "it answered {answer:?}, not a legal move, when asked {asked:?}"
            )?,
        }
        if let Some(fen) = &self.position {
            write!(f, " at position {fen}")?;
        }
        if let Some(ply) = self.ply {
            write!(f, " (ply {ply} of the game)")?;
        }
        Ok(())
    }
}

impl std::error::Error for EngineError {}

impl EngineError {
    /// A crash or a hang: a fresh engine may get through the same game.
    pub fn restartable(&self) -> bool {
        matches!(
            self.kind,
            EngineErrorKind::Died | EngineErrorKind::Timeout(_)
        )
    }
}

/// A running UCI engine.
pub struct UciEngine {
    spec: EngineSpec,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// From `id name`, else the file name.
    pub name: String,
    /// The engine offers `UCI_Chess960`, and whether it is on now.
    chess960_offered: bool,
    chess960: bool,
}

/// Whether an option whose `option` line reads `kind` after `type ` (`spin default 16 min 1
/// max 33554432`, `check default false`, `combo default A var A var B`, `string …`) takes
/// `value`; Err says what it takes.
fn option_takes(kind: &str, value: &str) -> Result<(), String> {
    let words: Vec<&str> = kind.split_whitespace().collect();
    let after = |key: &str| {
        words
            .iter()
            .position(|w| *w == key)
            .and_then(|i| words.get(i + 1))
            .and_then(|w| w.parse::<i64>().ok())
    };
    match words.first().copied() {
        Some("spin") => {
            let (min, max) = (after("min"), after("max"));
            let range = match (min, max) {
                (Some(a), Some(b)) => format!("a whole number from {a} to {b}"),
                _ => "a whole number".to_owned(),
            };
            match value.trim().parse::<i64>() {
                Ok(v) if min.is_none_or(|a| v >= a) && max.is_none_or(|b| v <= b) => Ok(()),
                _ => Err(range),
            }
        }
        Some("check") => match value.trim() {
            "true" | "false" => Ok(()),
            _ => Err("true or false".to_owned()),
        },
        Some("combo") => {
            let vars: Vec<&str> = words
                .windows(2)
                .filter(|w| w[0] == "var")
                .map(|w| w[1])
                .collect();
            if vars.is_empty() || vars.iter().any(|v| v.eq_ignore_ascii_case(value.trim())) {
                Ok(())
            } else {
                Err(format!("one of {}", vars.join(", ")))
            }
        }
        _ => Ok(()),
    }
}

impl UciEngine {
    /// Starts the engine, checks it speaks UCI, sets its options and waits until it is ready.
    pub fn start(spec: &EngineSpec) -> Result<UciEngine, EngineError> {
        let err = |kind| EngineError {
            engine: spec.path.display().to_string(),
            position: None,
            ply: None,
            kind,
        };
        let mut child = Command::new(&spec.path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| err(EngineErrorKind::Spawn(e.to_string())))?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut engine = UciEngine {
            spec: spec.clone(),
            child,
            stdin,
            lines,
            name: spec
                .path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
            chess960_offered: false,
            chess960: false,
        };
        // A program that exits at once (not an engine) closes its input before `uci` arrives.
        engine
            .send("uci", None)
            .map_err(|_| err(EngineErrorKind::NotUci))?;
        // Each option by its name in lower case, with the rest of its line (type, bounds).
        let mut known: Vec<(String, String)> = Vec::new();
        loop {
            let line = engine.read_line(HANDSHAKE_TIMEOUT, None, EngineErrorKind::NotUci)?;
            if let Some(name) = line.strip_prefix("id name ") {
                engine.name = name.trim().to_string();
            } else if let Some(rest) = line.strip_prefix("option name ") {
                let (name, kind) = rest.split_once(" type ").unwrap_or((rest, ""));
                known.push((name.trim().to_ascii_lowercase(), kind.to_string()));
            } else if line.trim() == "uciok" {
                break;
            }
        }
        engine.chess960_offered = known.iter().any(|(n, _)| n == "uci_chess960");
        let threads = spec.threads.to_string();
        let options = std::iter::once(("Threads", threads.as_str()))
            .chain(spec.options.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        for (name, value) in options {
            let lower = name.to_ascii_lowercase();
            let Some((_, kind)) = known.iter().find(|(n, _)| *n == lower) else {
                if name == "Threads" && spec.threads == 1 {
                    continue;
                }
                return Err(err(EngineErrorKind::Option(name.to_string())));
            };
            // A value the option's line does not allow is refused here: engines crash on
            // some (Stockfish on `Hash=notanumber`), which would read as a dead engine.
            if let Err(takes) = option_takes(kind, value) {
                return Err(err(EngineErrorKind::OptionValue {
                    given: format!("{name}={value}"),
                    takes,
                }));
            }
            engine.send(&format!("setoption name {name} value {value}"), None)?;
        }
        engine.ready(None, HANDSHAKE_TIMEOUT)?;
        Ok(engine)
    }

    fn error(&self, position: Option<&str>, kind: EngineErrorKind) -> EngineError {
        EngineError {
            engine: self.spec.path.display().to_string(),
            position: position.map(str::to_string),
            ply: None,
            kind,
        }
    }

    fn send(&mut self, line: &str, position: Option<&str>) -> Result<(), EngineError> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|_| self.error(position, EngineErrorKind::Died))
    }

    /// The next line of output; `missing` is the error when the output ends.
    fn read_line(
        &mut self,
        timeout: Duration,
        position: Option<&str>,
        missing: EngineErrorKind,
    ) -> Result<String, EngineError> {
        match self.lines.recv_timeout(timeout) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Timeout) => {
                let _ = self.child.kill();
                Err(self.error(position, EngineErrorKind::Timeout(timeout)))
            }
            Err(RecvTimeoutError::Disconnected) => Err(self.error(position, missing)),
        }
    }

    /// `isready` → `readyok`. With `no option` lines in between (Stockfish's answer to an
    /// unknown option), the option named there is the error.
    fn ready(&mut self, position: Option<&str>, timeout: Duration) -> Result<(), EngineError> {
        self.send("isready", position)?;
        loop {
            let line = self.read_line(timeout, position, EngineErrorKind::Died)?;
            let line = line.trim();
            if line == "readyok" {
                return Ok(());
            }
            if let Some(rest) = line.strip_prefix("No such option: ") {
                return Err(self.error(position, EngineErrorKind::Option(rest.to_string())));
            }
        }
    }

    /// Chess960 on or off for the games that follow (`UCI_Chess960`, when the engine offers
    /// it): castling is then sent and read as the king taking its rook (`chess::uci`), and an
    /// engine in standard mode finds those moves illegal. Sent only when it changes; an
    /// engine without the option is left as it is.
    pub fn set_chess960(&mut self, on: bool) -> Result<(), EngineError> {
        if self.chess960_offered && self.chess960 != on {
            self.send(&format!("setoption name UCI_Chess960 value {on}"), None)?;
            self.chess960 = on;
        }
        Ok(())
    }

    /// A new game: the engine forgets what it learnt (its hash), so each game's analysis
    /// depends only on the game.
    pub fn new_game(&mut self) -> Result<(), EngineError> {
        self.send("ucinewgame", None)?;
        // Clearing a large hash on a loaded machine can take longer than the handshake: as
        // long as a search may.
        let timeout = self.spec.search_timeout.max(HANDSHAKE_TIMEOUT);
        self.ready(None, timeout)
    }

    /// Searches the position reached from `start` by `moves`, with the engine's limit. The
    /// moves are sent too, so the engine knows the game's repetitions. With `excluded`, the
    /// root may play only the other legal moves (`searchmoves`).
    pub fn search(
        &mut self,
        start: &Position,
        moves: &[Move],
        pos: &Position,
        excluded: &[Move],
    ) -> Result<SearchResult, EngineError> {
        self.search_limited(start, moves, pos, excluded, self.spec.limit)
    }

    /// `search` with another limit than the spec's (the sweep's).
    pub fn search_limited(
        &mut self,
        start: &Position,
        moves: &[Move],
        pos: &Position,
        excluded: &[Move],
        limit: EngineLimit,
    ) -> Result<SearchResult, EngineError> {
        let fen = pos.fen();
        let mut command = format!("position fen {}", start.fen());
        if !moves.is_empty() {
            command.push_str(" moves");
            let mut p = *start;
            for &m in moves {
                command.push(' ');
                command.push_str(&to_uci(&p, m));
                p.play_unchecked(m);
            }
        }
        let legal = pos.legal_moves();
        let allowed: Vec<Move> = legal
            .as_slice()
            .iter()
            .copied()
            .filter(|m| !excluded.contains(m))
            .collect();
        let mut result = SearchResult {
            best_move: None,
            score: if legal.is_empty() && pos.is_check() {
                Score::Mate(0)
            } else {
                Score::Cp(0)
            },
            depth: 0,
            seldepth: 0,
            nodes: 0,
            pv: Vec::new(),
            truncated: false,
        };
        if allowed.is_empty() {
            return Ok(result);
        }
        self.send(&command, Some(&fen))?;
        let mut go = match limit {
            EngineLimit::Nodes(n) => format!("go nodes {n}"),
            EngineLimit::Depth(d) => format!("go depth {d}"),
        };
        if !excluded.is_empty() {
            go.push_str(" searchmoves");
            for &m in &allowed {
                go.push(' ');
                go.push_str(&to_uci(pos, m));
            }
        }
        self.send(&go, Some(&fen))?;
        let deadline = Instant::now() + self.spec.search_timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self
                .read_line(left, Some(&fen), EngineErrorKind::Died)
                .map_err(|mut e| {
                    if let EngineErrorKind::Timeout(_) = e.kind {
                        e.kind = EngineErrorKind::Timeout(self.spec.search_timeout);
                    }
                    e
                })?;
            let mut words = line.split_ascii_whitespace();
            match words.next() {
                Some("info") => read_info(words, pos, &mut result),
                Some("bestmove") => {
                    let text = words.next().unwrap_or("(none)");
                    let m = parse_uci(pos, text)
                        .ok()
                        .filter(|m| allowed.contains(m))
                        .ok_or_else(|| {
                            self.error(
                                Some(&fen),
                                EngineErrorKind::BadMove {
                                    answer: line.trim().to_string(),
                                    asked: format!("{command}; {go}"),
                                },
                            )
                        })?;
                    result.best_move = Some(m);
                    if result.pv.first() != Some(&m) {
                        result.pv = vec![m];
                    }
                    return Ok(result);
                }
                _ => {}
            }
        }
    }
}

/// Reads one `info` line's depth, seldepth, nodes, score and pv into `result`; lines without
/// a score (currmove, hashfull…) and bound scores (`lowerbound`/`upperbound`) are skipped.
fn read_info<'a>(
    mut words: impl Iterator<Item = &'a str>,
    pos: &Position,
    result: &mut SearchResult,
) {
    let mut score = None;
    let mut depth = None;
    let mut seldepth = None;
    let mut nodes = None;
    let mut pv = Vec::new();
    let mut bound = false;
    while let Some(w) = words.next() {
        match w {
            "depth" => depth = words.next().and_then(|v| v.parse().ok()),
            "seldepth" => seldepth = words.next().and_then(|v| v.parse().ok()),
            "nodes" => nodes = words.next().and_then(|v| v.parse().ok()),
            "score" => {
                score = match (words.next(), words.next().and_then(|v| v.parse().ok())) {
                    (Some("cp"), Some(v)) => Some(Score::Cp(v)),
                    (Some("mate"), Some(v)) => Some(Score::Mate(v)),
                    _ => None,
                }
            }
            "lowerbound" | "upperbound" => bound = true,
            // Only the first line of a multi-PV search counts.
            "multipv" if words.next() != Some("1") => return,
            "pv" => {
                let mut p = *pos;
                for text in words.by_ref() {
                    let Ok(m) = parse_uci(&p, text) else { break };
                    p.play_unchecked(m);
                    pv.push(m);
                }
            }
            _ => {}
        }
    }
    if let (Some(s), false) = (score, bound) {
        result.score = s;
        result.depth = depth.unwrap_or(result.depth);
        result.seldepth = seldepth.unwrap_or(result.seldepth);
        if !pv.is_empty() {
            result.pv = pv;
        }
    }
    if let Some(n) = nodes {
        result.nodes = n;
    }
}

impl Drop for UciEngine {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

thread_local! {
    /// This worker thread's engine, started on first use and dropped after a failure.
    static ENGINE: RefCell<Option<UciEngine>> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's engine for `spec` (started, or restarted after a failure or for
/// another spec, as needed). After an error the engine is dropped (killed), so the next call
/// starts a fresh one.
pub fn with_engine<R>(
    spec: &EngineSpec,
    f: impl FnOnce(&mut UciEngine) -> Result<R, EngineError>,
) -> Result<R, EngineError> {
    ENGINE.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.as_ref().is_some_and(|e| &e.spec != spec) {
            *slot = None;
        }
        if slot.is_none() {
            *slot = Some(UciEngine::start(spec)?);
        }
        let result = f(slot.as_mut().expect("started above"));
        if result.is_err() {
            *slot = None;
        }
        result
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn option_values_are_checked_against_the_engines_option_lines() {
        use super::option_takes;
        let spin = "spin default 16 min 1 max 33554432";
        assert_eq!(option_takes(spin, "64"), Ok(()));
        assert_eq!(
            option_takes(spin, "notanumber"),
            Err("a whole number from 1 to 33554432".to_owned())
        );
        assert!(option_takes(spin, "0").is_err());
        assert_eq!(option_takes("check default true", "false"), Ok(()));
        assert_eq!(
            option_takes("check default true", "yes"),
            Err("true or false".to_owned())
        );
        let combo = "combo default Both var Off var White var Black var Both";
        assert_eq!(option_takes(combo, "white"), Ok(()));
        assert_eq!(
            option_takes(combo, "Red"),
            Err("one of Off, White, Black, Both".to_owned())
        );
        assert_eq!(option_takes("string default <empty>", "x.nnue"), Ok(()));
    }

    use super::*;

    #[test]
    fn info_lines_give_score_depth_and_pv() {
        let pos = Position::from_fen(crate::chess::START_FEN).unwrap();
        let mut r = SearchResult {
            best_move: None,
            score: Score::Cp(0),
            depth: 0,
            seldepth: 0,
            nodes: 0,
            pv: Vec::new(),
            truncated: false,
        };
        let line = "depth 12 seldepth 17 multipv 1 score cp 31 nodes 51234 nps 1 pv e2e4 e7e5 zz";
        read_info(line.split_ascii_whitespace(), &pos, &mut r);
        assert_eq!((r.depth, r.seldepth, r.nodes), (12, 17, 51234));
        assert_eq!(r.score, Score::Cp(31));
        assert_eq!(r.pv.len(), 2);
        // A bound score is not taken; the node count is.
        read_info(
            "depth 13 score mate -3 upperbound nodes 60000".split_ascii_whitespace(),
            &pos,
            &mut r,
        );
        assert_eq!((r.score, r.depth, r.nodes), (Score::Cp(31), 12, 60000));
        read_info(
            "depth 14 score mate -3 nodes 70000".split_ascii_whitespace(),
            &pos,
            &mut r,
        );
        assert_eq!(r.score, Score::Mate(-3));
    }

    #[test]
    fn a_missing_program_is_a_clear_error() {
        let spec = EngineSpec {
            path: PathBuf::from("/nonexistent/engine"),
            limit: EngineLimit::Nodes(1000),
            threads: 1,
            options: Vec::new(),
            search_timeout: Duration::from_secs(5),
            sweep_nodes: 0,
            refine_nodes: 0,
        };
        let e = UciEngine::start(&spec).err().expect("no such program");
        let text = e.to_string();
        assert!(
            text.starts_with("engine /nonexistent/engine: cannot start it"),
            "{text}"
        );
    }
}
