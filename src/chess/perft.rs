//! Perft: counting the leaf nodes of the legal move tree, the standard test of move
//! generation. Bulk counting at the last ply; `divide` splits the count by first move.
//! Also reads perft suites (EPD `;D<depth> <count>` fields or `epd`/`perft` line files).

use super::fen::{FenError, parse_fen};
use super::moves::{Move, MoveList};
use super::position::Position;

pub fn perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut list = MoveList::new();
    pos.generate_legal(&mut list);
    if depth == 1 {
        return list.len() as u64;
    }
    let mut nodes = 0;
    for &m in list.iter() {
        let mut child = *pos;
        child.play_unchecked(m);
        nodes += perft(&child, depth - 1);
    }
    nodes
}

/// Node counts per first move, in generation order.
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves()
        .iter()
        .map(|&m| {
            let mut child = *pos;
            child.play_unchecked(m);
            (m, perft(&child, depth - 1))
        })
        .collect()
}

/// One position of a suite with its expected counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuiteEntry {
    pub fen: String,
    /// 1-based line where the entry starts.
    pub line: usize,
    pub depths: Vec<(u32, u64)>,
}

/// Why a suite file could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuiteError {
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for SuiteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for SuiteError {}

/// Reads both suite formats: `FEN ;D1 20 ;D2 400` lines, and `epd FEN` followed by
/// `perft DEPTH COUNT` lines (with `id` lines and `#` comments ignored). The first bad line
/// is the error; `parse_suite_lenient` goes on past bad lines.
pub fn parse_suite(text: &str) -> Result<Vec<SuiteEntry>, SuiteError> {
    let (entries, mut errors) = parse_suite_lenient(text);
    if errors.is_empty() {
        Ok(entries)
    } else {
        Err(errors.swap_remove(0))
    }
}

/// Every good entry of a suite, and an error for each bad line (trailing whitespace and NUL
/// padding are not errors). A bad line costs only itself: a bad `perft` line drops that
/// depth, a bad `;D` field drops that depth of its entry.
pub fn parse_suite_lenient(text: &str) -> (Vec<SuiteEntry>, Vec<SuiteError>) {
    let mut entries: Vec<SuiteEntry> = Vec::new();
    let mut errors = Vec::new();
    for (line_no, line) in crate::chess::lines::suite_lines(text) {
        if line.starts_with("id ") {
            continue;
        }
        let err = |m: String| SuiteError {
            line: line_no,
            message: m,
        };
        if let Some(fen) = line.strip_prefix("epd ") {
            entries.push(SuiteEntry {
                fen: fen.trim().to_string(),
                line: line_no,
                depths: Vec::new(),
            });
        } else if let Some(rest) = line.strip_prefix("perft ") {
            let mut it = rest.split_ascii_whitespace();
            let depth = it.next().and_then(|d| d.parse().ok());
            let count = it.next().and_then(|c| c.parse().ok());
            let (Some(depth), Some(count)) = (depth, count) else {
                errors.push(err(format!("bad perft line {line:?}")));
                continue;
            };
            let Some(entry) = entries.last_mut() else {
                errors.push(err("perft line before any epd line".into()));
                continue;
            };
            entry.depths.push((depth, count));
        } else {
            let mut parts = line.split(';');
            let fen = parts.next().unwrap_or("").trim().to_string();
            let mut depths = Vec::new();
            for field in parts {
                let field = field.trim();
                let Some(rest) = field.strip_prefix('D') else {
                    continue;
                };
                let mut it = rest.split_ascii_whitespace();
                let depth = it.next().and_then(|d| d.parse().ok());
                let count = it.next().and_then(|c| c.parse().ok());
                match (depth, count) {
                    (Some(d), Some(c)) => depths.push((d, c)),
                    _ => errors.push(err(format!("bad depth field {field:?}"))),
                }
            }
            entries.push(SuiteEntry {
                fen,
                line: line_no,
                depths,
            });
        }
    }
    (entries, errors)
}

/// The outcome of running one suite.
#[derive(Debug, Default)]
pub struct SuiteReport {
    pub passed: usize,
    pub failed: usize,
    pub nodes: u64,
    /// One line per failure.
    pub failures: Vec<String>,
}

/// Runs every depth whose expected count is at most `max_nodes`.
pub fn run_suite(entries: &[SuiteEntry], max_nodes: u64) -> SuiteReport {
    let mut report = SuiteReport::default();
    for entry in entries {
        // Suites from other projects carry stale castling letters; drop those rights, as
        // those projects do, rather than reject the position.
        let pos = match super::fen::parse_setup(&entry.fen).and_then(|mut setup| {
            setup.drop_invalid_castling();
            Ok(Position::from_setup(&setup, false)?)
        }) {
            Ok(p) => p,
            Err(e) => {
                report.failed += 1;
                report
                    .failures
                    .push(format!("line {}: {}: {}", entry.line, entry.fen, e));
                continue;
            }
        };
        for &(depth, expected) in &entry.depths {
            if expected > max_nodes {
                continue;
            }
            let got = perft(&pos, depth);
            report.nodes += got;
            if got == expected {
                report.passed += 1;
            } else {
                report.failed += 1;
                report.failures.push(format!(
                    "line {}: {} depth {}: expected {}, got {}",
                    entry.line, entry.fen, depth, expected, got
                ));
            }
        }
    }
    report
}

/// Convenience for callers holding a FEN.
pub fn perft_fen(fen: &str, depth: u32) -> Result<u64, FenError> {
    Ok(perft(&parse_fen(fen)?, depth))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_positions() {
        // Chess Programming Wiki "Perft Results", positions 1–6.
        let cases: &[(&str, &[u64])] = &[
            (super::super::fen::START_FEN, &[20, 400, 8902, 197_281]),
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                &[48, 2039, 97_862],
            ),
            (
                "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
                &[14, 191, 2812, 43_238, 674_624],
            ),
            (
                "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
                &[6, 264, 9467, 422_333],
            ),
            (
                "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
                &[44, 1486, 62_379],
            ),
            (
                "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
                &[46, 2079, 89_890],
            ),
        ];
        for (fen, counts) in cases {
            for (d, &n) in counts.iter().enumerate() {
                assert_eq!(
                    perft_fen(fen, d as u32 + 1).unwrap(),
                    n,
                    "{fen} depth {}",
                    d + 1
                );
            }
        }
    }

    #[test]
    fn suite_formats() {
        let epd = parse_suite("8/8/8/8/8/8/8/K6k w - - 0 1 ;D1 3 ;D2 9\nfoo ;D1 1\n").unwrap();
        assert_eq!(epd[0].depths, vec![(1, 3), (2, 9)]);
        let lines =
            parse_suite("# c\nid x\nepd 8/8/8/8/8/8/8/K6k w - -\nperft 1 3\nperft 2 9\n").unwrap();
        assert_eq!(lines[0].depths, vec![(1, 3), (2, 9)]);
        let report = run_suite(&epd, 100);
        assert_eq!((report.passed, report.failed), (2, 1));
        assert!(parse_suite("perft 1 2").is_err());
    }
}
