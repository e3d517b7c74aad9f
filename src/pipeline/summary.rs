//! The run's summary: files, bytes, games, accepted, rejected, plies and findings by code,
//! kept on the sink thread and printed as a table or written as JSON.

use crate::pgn::Finding;
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::time::Duration;

#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct Summary {
    pub files: u64,
    /// Raw bytes read (compressed bytes for compressed input).
    pub bytes: u64,
    pub games: u64,
    pub accepted: u64,
    pub rejected: u64,
    pub plies: u64,
    pub findings: BTreeMap<String, u64>,
    /// Files that could not be opened or read to the end.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failed_files: Vec<String>,
    /// Files read to the end in which no game was found (an error for that file: a PNG, an
    /// empty file, text that is not PGN).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files_without_games: Vec<String>,
    /// Ctrl-C stopped the run: the counts cover the games delivered before it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
}

impl Summary {
    pub fn count_findings(&mut self, findings: &[Finding]) {
        for f in findings {
            *self.findings.entry(f.code.to_string()).or_insert(0) += 1;
        }
    }

    /// The summary table for people.
    pub fn write_table(&self, out: &mut impl Write, elapsed: Duration) -> io::Result<()> {
        let secs = elapsed.as_secs_f64().max(1e-9);
        writeln!(out, "files      {:>12}", self.files)?;
        writeln!(
            out,
            "bytes      {:>12}  ({:.1} MB/s)",
            self.bytes,
            self.bytes as f64 / secs / 1e6
        )?;
        writeln!(
            out,
            "games      {:>12}  ({:.0} games/s)",
            self.games,
            self.games as f64 / secs
        )?;
        writeln!(out, "accepted   {:>12}", self.accepted)?;
        writeln!(out, "rejected   {:>12}", self.rejected)?;
        writeln!(out, "plies      {:>12}", self.plies)?;
        writeln!(out, "time       {:>12.2} s", secs)?;
        if !self.findings.is_empty() {
            writeln!(out, "findings:")?;
            for (code, n) in &self.findings {
                writeln!(out, "  {code:<40} {n:>10}")?;
            }
        }
        for f in &self.failed_files {
            writeln!(out, "failed file: {f}")?;
        }
        for f in &self.files_without_games {
            writeln!(out, "no game in:  {f}")?;
        }
        Ok(())
    }
}
