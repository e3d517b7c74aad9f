//! How long a search may run: nodes and depth are exact and reproducible; a move time is only a
//! safety cap, and a search it cuts short is marked truncated (its result depends on the clock).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Search limits; any combination, the first reached ends the search. With none set the
/// search runs to `MAX_DEPTH`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub nodes: Option<u64>,
    pub depth: Option<u32>,
    pub movetime: Option<Duration>,
}

/// Deepest iteration iterative deepening starts.
pub const MAX_DEPTH: u32 = 100;

impl Limits {
    pub fn nodes(n: u64) -> Limits {
        Limits {
            nodes: Some(n),
            ..Limits::default()
        }
    }

    pub fn depth(d: u32) -> Limits {
        Limits {
            depth: Some(d),
            ..Limits::default()
        }
    }

    pub fn movetime(ms: u64) -> Limits {
        Limits {
            movetime: Some(Duration::from_millis(ms)),
            ..Limits::default()
        }
    }

    pub fn max_depth(&self) -> u32 {
        self.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH)
    }
}

/// The running check against the limits, called once per node.
pub(crate) struct Clock {
    node_limit: u64,
    deadline: Option<Instant>,
    /// Set once the search must unwind; every score after it is discarded.
    pub stopped: bool,
    /// The deadline or a stop request, not a node or depth limit, ended the search.
    pub truncated: bool,
    /// Set by another thread to stop the search (UCI `stop`); read with the clock.
    pub external: Option<Arc<AtomicBool>>,
}

impl Clock {
    pub fn start(limits: &Limits) -> Clock {
        Clock {
            node_limit: limits.nodes.unwrap_or(u64::MAX),
            deadline: limits.movetime.map(|t| Instant::now() + t),
            stopped: false,
            truncated: false,
            external: None,
        }
    }

    /// The deadline has passed or a stop was requested.
    fn out_of_time(&self) -> bool {
        self.external
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Relaxed))
            || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// True when the search must stop. The clock is read only every 1024 nodes.
    #[inline]
    pub fn check(&mut self, nodes: u64) -> bool {
        if self.stopped {
            return true;
        }
        if nodes >= self.node_limit {
            self.stopped = true;
        } else if nodes & 1023 == 0 && self.out_of_time() {
            self.stopped = true;
            self.truncated = true;
        }
        self.stopped
    }

    /// Whether to begin another iteration. With only a time cap, one unlikely to finish in the
    /// time left is not started; that decision reads the clock, so it marks the result truncated.
    pub fn may_start_iteration(&mut self, started: Instant) -> bool {
        if self.stopped {
            return false;
        }
        if self.out_of_time() {
            self.stopped = true;
            self.truncated = true;
            return false;
        }
        if let Some(deadline) = self.deadline
            && self.node_limit == u64::MAX
        {
            let now = Instant::now();
            if now >= deadline || (now - started) * 2 > deadline - now {
                self.stopped = true;
                self.truncated = true;
                return false;
            }
        }
        true
    }
}
