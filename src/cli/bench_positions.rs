//! `arbiter bench positions --db DB`: the position search's speed (issue 34) on a fixed set
//! of queries covering every form (exact positions from ply 1 to 60 with rows and trees,
//! material and imbalances, held spans, patterns, pawn structures, sequences, with and
//! without selection filters). Each query runs as `arbiter search` does (the same code,
//! `search::run_on`, output discarded) on one open connection: one warm-up run, then
//! `--runs` timed runs interleaved over the set; prints median and worst wall time and the
//! median CPU time of the process per query. A database of N real games to run it on:
//! `arbiter bench import --import-db DB --import-games N` (distinct copies of the corpus's
//! real games).

use super::error::{AppError, Outcome, Result};
use super::search::{SearchArgs, run_on};
use clap::{Args, Parser};
use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args, Debug, Clone)]
pub struct PositionsBenchArgs {
    /// positions: the database to search (with its position index).
    #[arg(id = "positions_db", long = "db", value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// positions: only the queries whose name contains this.
    #[arg(id = "positions_only", long = "only", value_name = "TEXT")]
    pub only: Option<String>,
}

const E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
const D4_NF6: &str = "rnbqkb1r/pppppppp/5n2/8/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 1 2";
const QGD_8: &str = "rnbqk2r/ppp1bppp/4pn2/3p4/2PP4/2N2N2/PP2PPPP/R1BQKB1R w KQkq - 2 5";
const NAJDORF: &str = "rnbqkb1r/1p2pppp/p2p1n2/8/3NP3/2N5/PPP2PPP/R1BQKB1R w KQkq - 0 6";
const BREYER_20: &str = "r1bq1rk1/2pnbppp/p2p1n2/1p2p3/3PP3/1BP2N1P/PP3PP1/RNBQR1K1 w - - 1 11";
const CARLSEN_20: &str = "r1bqnrk1/1pp1ppbp/1p4p1/8/3P4/2N3P1/PP2PPBP/R1BQ1RK1 w - - 2 11";
const CARLSEN_24: &str = "rnb1kb1r/pq2pppp/5n2/4N3/2BP4/4P3/1P3PPP/R1BQK2R w KQkq - 1 13";
const PLY_30: &str = "r4rk1/pb2ppbp/1pn3p1/1B6/3P3B/4PN2/P2K1PPP/1R5R w - - 2 16";
const ANAND_40: &str = "2r1kr2/pp1q1pp1/1bnBb2p/3pPp2/3P4/1QP2N2/4BPPP/R4RK1 w - - 8 21";
const KASPAROV_40: &str = "1r1r2k1/pb3ppp/1p2p3/4N1q1/3P4/P2Q4/1P3PPP/3R1RK1 w - - 5 21";
const PLY_60: &str = "r2R2k1/5p1p/pp2p3/2q2p2/P7/N1b5/1P2QPPP/5RK1 b - - 0 22";

/// `(name, the arguments of arbiter search after --db)`: the fixed query set.
pub const QUERIES: &[(&str, &[&str])] = &[
    ("e4 ply1 rows", &[E4, "--limit", "100"]),
    ("e4 ply1 tree", &[E4, "--tree"]),
    ("d4-Nf6 ply2 tree", &[D4_NF6, "--tree"]),
    ("qgd ply8 tree", &[QGD_8, "--tree"]),
    ("najdorf ply10 rows", &[NAJDORF, "--limit", "100"]),
    ("najdorf ply10 tree", &[NAJDORF, "--tree"]),
    (
        "najdorf min-elo 2600 rows",
        &[NAJDORF, "--min-elo", "2600", "--limit", "100"],
    ),
    (
        "najdorf from 2010 tree",
        &[NAJDORF, "--from", "2010", "--tree"],
    ),
    ("breyer ply20 tree", &[BREYER_20, "--tree"]),
    ("carlsen ply20 tree", &[CARLSEN_20, "--tree"]),
    ("carlsen ply24 rows", &[CARLSEN_24, "--limit", "100"]),
    ("ply30 tree", &[PLY_30, "--tree"]),
    ("anand ply40 tree", &[ANAND_40, "--tree"]),
    ("kasparov ply40 rows", &[KASPAROV_40, "--limit", "100"]),
    ("ply60 rows", &[PLY_60, "--limit", "100"]),
    ("e4 mirror rows", &[E4, "--mirror", "--limit", "100"]),
    (
        "material KRPKR mirror",
        &["--material", "KRPKR", "--mirror", "--limit", "100"],
    ),
    ("material KQKQ", &["--material", "KQKQ", "--limit", "100"]),
    (
        "imbalance R vs mPP",
        // --held 1: the query as it was timed before imbalances held 4 plies by default.
        &["--material", "R vs mPP", "--held", "1", "--limit", "100"],
    ),
    (
        "material down>=3 held 20",
        &["--material", "down>=3", "--held", "20", "--limit", "100"],
    ),
    (
        "material KRPKR held 10 min-elo 2500",
        &[
            "--material",
            "KRPKR",
            "--held",
            "10",
            "--min-elo",
            "2500",
            "--limit",
            "100",
        ],
    ),
    (
        "pattern back-rank w",
        &[
            "--pattern",
            "r?????k?/?????ppp/8/8/8/8/5PPP/??????K? w",
            "--limit",
            "100",
        ],
    ),
    (
        "pattern d5 pawn",
        &["--pattern", "*/*/*/3P4/*/*/*/*", "--limit", "100"],
    ),
    (
        "pawns abdfgh/abefgh mirror",
        &["--pawns", "abdfgh/abefgh", "--mirror", "--limit", "100"],
    ),
    (
        "pawns white squares",
        &["--pawns", "a2 b2 d4 f2 g2 h2/*", "--limit", "100"],
    ),
    (
        "sequence Bxh7+ Kxh7 Ng5+",
        &["--sequence", "Bxh7+ Kxh7 Ng5+", "--limit", "100"],
    ),
    (
        "sequence Bxh7+ from 2000",
        &[
            "--sequence",
            "Bxh7+ Kxh7",
            "--from",
            "2000",
            "--limit",
            "100",
        ],
    ),
];

#[derive(Parser, Debug)]
struct One {
    #[command(flatten)]
    search: SearchArgs,
}

/// Seconds of CPU this process's threads have used, from Linux's per-thread scheduler
/// figures (nanoseconds; 0 where /proc is not there).
fn cpu_seconds() -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0.0;
    };
    let mut ns = 0u64;
    for t in tasks.flatten() {
        if let Ok(s) = std::fs::read_to_string(t.path().join("schedstat")) {
            ns += s
                .split_whitespace()
                .next()
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(0);
        }
    }
    ns as f64 / 1e9
}

pub fn run(args: &PositionsBenchArgs, runs: usize) -> Result {
    let db = args
        .db
        .as_ref()
        .ok_or_else(|| AppError::usage("bench positions: give --db DB (a database to search)"))?;
    let conn = crate::db::open_read_only(db)?;
    crate::db::map_pages(&conn);
    let picked: Vec<(&str, SearchArgs)> = QUERIES
        .iter()
        .filter(|(name, _)| args.only.as_deref().is_none_or(|o| name.contains(o)))
        .map(|(name, q)| {
            let mut argv = vec!["search"];
            argv.extend_from_slice(q);
            let one = One::try_parse_from(argv)
                .map_err(|e| AppError::Other(format!("bench query {name}: {e}")))?;
            Ok((*name, one.search))
        })
        .collect::<Result<_>>()?;
    if picked.is_empty() {
        let names: Vec<&str> = QUERIES.iter().map(|(n, _)| *n).collect();
        return Err(AppError::usage(format!(
            "bench positions: no query's name contains that; the queries: {}",
            names.join(", ")
        )));
    }
    let runs = runs.max(1);
    let mut wall: Vec<Vec<f64>> = vec![Vec::new(); picked.len()];
    let mut cpu: Vec<Vec<f64>> = vec![Vec::new(); picked.len()];
    let mut sizes = vec![0usize; picked.len()];
    // Run 0 warms the cache and is not counted.
    for run in 0..=runs {
        for (i, (_, search)) in picked.iter().enumerate() {
            let mut out = Vec::new();
            let (t0, c0) = (Instant::now(), cpu_seconds());
            run_on(&conn, search, &mut out)?;
            let (t, c) = (t0.elapsed().as_secs_f64(), cpu_seconds() - c0);
            if run > 0 {
                wall[i].push(t * 1e3);
                cpu[i].push(c * 1e3);
            }
            if run == 0 {
                // The answer's first line: the count.
                let first = String::from_utf8_lossy(&out);
                let count = first.lines().next().unwrap_or("").to_owned();
                sizes[i] = count
                    .split_whitespace()
                    .next()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(0);
            }
        }
    }
    let games = crate::db::persons::stored_games(&conn)?;
    let mut out = io::stdout().lock();
    writeln!(
        out,
        "{games} games, {runs} runs of each query (interleaved, after one warm-up run); milliseconds"
    )?;
    writeln!(
        out,
        "{:<38} {:>8} {:>9} {:>9} {:>9}",
        "query", "games", "median", "worst", "cpu med"
    )?;
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    for (i, (name, _)) in picked.iter().enumerate() {
        let worst = wall[i].iter().copied().fold(0.0, f64::max);
        writeln!(
            out,
            "{name:<38} {:>8} {:>9.1} {worst:>9.1} {:>9.1}",
            sizes[i],
            median(&mut wall[i]),
            median(&mut cpu[i])
        )?;
    }
    Ok(Outcome::Success)
}
