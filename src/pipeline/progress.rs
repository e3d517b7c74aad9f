//! The progress bar: bytes read against the inputs' total size, games per second and ETA,
//! drawn on stderr only when it is a terminal and the user did not ask for quiet.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

pub struct Progress {
    bar: Option<ProgressBar>,
    bytes: Arc<AtomicU64>,
    games: AtomicU64,
    start: std::time::Instant,
}

impl Progress {
    /// `wanted` is the user's choice; the bar shows only if stderr is a terminal too.
    pub fn new(wanted: bool, total_bytes: u64) -> Progress {
        let bar = (wanted && std::io::stderr().is_terminal()).then(|| {
            let bar =
                ProgressBar::with_draw_target(Some(total_bytes), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(
                    "{bar:30} {bytes}/{total_bytes} ({bytes_per_sec}) {msg} ETA {eta}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar
        });
        Progress {
            bar,
            bytes: Arc::new(AtomicU64::new(0)),
            games: AtomicU64::new(0),
            start: std::time::Instant::now(),
        }
    }

    /// The shared counter of raw bytes read, updated by the reading thread.
    pub fn bytes_counter(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.bytes)
    }

    pub fn bytes(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }

    pub fn games(&self, n: u64) {
        let games = self.games.fetch_add(n, Ordering::Relaxed) + n;
        if let Some(bar) = &self.bar {
            let rate = games as f64 / self.start.elapsed().as_secs_f64().max(1e-9);
            bar.set_position(self.bytes());
            bar.set_message(format!("{games} games, {rate:.0} games/s"));
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
