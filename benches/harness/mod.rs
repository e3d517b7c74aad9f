//! The benches' own timer: each bench runs once to warm up, then a fixed number of times, and
//! prints the median, the fastest and the slowest run, and the throughput of the median. It
//! replaces a bench framework whose dependency tree cost every test build about a tenth of its
//! CPU time, while `arbiter bench` holds the figures the issues quote.
//!
//! `cargo bench --bench NAME [-- FILTER]`: only the benches whose `group/name` contains FILTER.

// Each bench is its own crate and uses only part of this module.
#![allow(dead_code)]

use std::hint::black_box;
use std::time::{Duration, Instant};

/// What one run processes, so that the median becomes a rate.
#[derive(Clone, Copy)]
pub enum Throughput {
    Bytes(u64),
    Elements(u64),
}

/// Benches that share a name prefix, a run count and a throughput.
pub struct Group {
    name: String,
    runs: usize,
    throughput: Option<Throughput>,
    filter: Option<String>,
}

/// A group of benches; its runs default to 10.
pub fn group(name: &str) -> Group {
    // cargo passes `--bench` (and the user's words after `--`): the first word that is not a
    // flag filters the benches.
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    Group {
        name: name.to_string(),
        runs: 10,
        throughput: None,
        filter,
    }
}

impl Group {
    pub fn runs(mut self, runs: usize) -> Self {
        self.runs = runs.max(1);
        self
    }

    pub fn throughput(mut self, throughput: Throughput) -> Self {
        self.throughput = Some(throughput);
        self
    }

    /// Times `f` as a whole, once per run.
    pub fn bench<R>(&self, id: &str, mut f: impl FnMut() -> R) {
        self.bench_timed(id, || {
            let start = Instant::now();
            black_box(f());
            start.elapsed()
        });
    }

    /// `f` times what it measures itself and returns it (set-up left out).
    pub fn bench_timed(&self, id: &str, mut f: impl FnMut() -> Duration) {
        let label = format!("{}/{id}", self.name);
        if self
            .filter
            .as_ref()
            .is_some_and(|w| !label.contains(w.as_str()))
        {
            return;
        }
        f();
        let mut times: Vec<Duration> = (0..self.runs).map(|_| f()).collect();
        times.sort();
        let median = times[times.len() / 2];
        let rate = match self.throughput {
            Some(Throughput::Bytes(n)) => {
                format!(", {:.1} MB/s", n as f64 / median.as_secs_f64() / 1e6)
            }
            Some(Throughput::Elements(n)) => format!(", {}", per_second(n, median)),
            None => String::new(),
        };
        println!(
            "{label}: median {} (fastest {}, slowest {}) over {} runs{rate}",
            show(median),
            show(times[0]),
            show(times[times.len() - 1]),
            times.len()
        );
    }
}

/// Elements a second, in the unit that keeps three to four digits.
fn per_second(n: u64, d: Duration) -> String {
    let r = n as f64 / d.as_secs_f64();
    if r >= 1e6 {
        format!("{:.3} M/s", r / 1e6)
    } else if r >= 1e3 {
        format!("{:.3} k/s", r / 1e3)
    } else {
        format!("{r:.2} /s")
    }
}

fn show(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 {
        format!("{s:.3} s")
    } else if s >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else {
        format!("{:.3} us", s * 1e6)
    }
}
