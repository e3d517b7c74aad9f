//! The pure per-game work done on rayon workers: parse one raw game, replay it through the
//! rules core, and gather every finding, located, in one list. No I/O happens here.

use crate::chess::SanMode;
use crate::game::{Replayed, replay};
use crate::pgn::{Finding, Game, RawGame, Severity, parse_game};

/// Settings for the per-game work, fixed for a run.
#[derive(Debug, Clone, Copy)]
pub struct WorkOptions {
    pub mode: SanMode,
}

/// Everything known about one game after the workers are done with it.
#[derive(Debug)]
pub struct Processed {
    /// The game's bytes exactly as read (for the quarantine file).
    pub raw: Vec<u8>,
    pub game: Game,
    pub replay: Replayed,
    /// Splitter, reader and replay findings, in that order.
    pub findings: Vec<Finding>,
    pub rejected: bool,
}

impl Processed {
    pub fn game_number(&self) -> u64 {
        self.game.game_number
    }
}

/// Parses and replays one game.
pub fn process(raw: RawGame, options: &WorkOptions) -> Processed {
    let mut game = parse_game(&raw);
    let replay = if game.is_rejected() {
        // The reader already rejected it; replaying up to the problem still locates later
        // errors, but moves past a syntax error would be misleading.
        replay_prefix(&game, options.mode)
    } else {
        replay(&game, options.mode)
    };
    let mut findings = raw.findings;
    findings.append(&mut game.findings);
    findings.extend(replay.findings.iter().cloned());
    let rejected = findings.iter().any(|f| f.severity == Severity::Error);
    Processed {
        raw: raw.bytes,
        game,
        replay,
        findings,
        rejected,
    }
}

/// A rejected game's replay, kept for its position data but without adding its findings
/// twice: the reader's error is the reason given.
fn replay_prefix(game: &Game, mode: SanMode) -> Replayed {
    let mut r = replay(game, mode);
    r.findings.clear();
    r
}
