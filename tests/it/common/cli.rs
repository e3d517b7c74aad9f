//! Running the real binary from a test: `arbiter` as is, `ok` when it must succeed, and
//! `check` with its summary, findings and quarantine written next to each other. Included
//! with `use crate::common::cli;` by the tests that need it.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

pub const BIN: &str = env!("CARGO_BIN_EXE_arbiter");

pub fn arbiter(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("binary runs")
}

/// Runs arbiter and fails the test, with its standard error, unless it exits 0.
pub fn ok(args: &[&str]) -> Output {
    let out = arbiter(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    out
}

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `check FILE --quiet EXTRA...` with a JSON summary, a JSON-lines findings file and a
/// quarantine (`quarantine.pgn`) in `dir`; returns the output, the summary and the findings.
pub fn check(
    dir: &Path,
    file: &Path,
    extra: &[&str],
) -> (Output, serde_json::Value, Vec<serde_json::Value>) {
    let json = dir.join("summary.json");
    let findings = dir.join("findings.jsonl");
    let quarantine = dir.join("quarantine.pgn");
    let mut args = vec!["check", s(file), "--quiet"];
    args.extend(extra);
    args.extend(["--summary-json", s(&json), "--findings", s(&findings)]);
    args.extend(["--quarantine", s(&quarantine)]);
    let out = arbiter(&args);
    let summary = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let rows = std::fs::read_to_string(&findings)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (out, summary, rows)
}
