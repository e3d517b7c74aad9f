//! `arbiter bench import`: the import's rate as the database grows (issue 24's flat cost).
//! Builds a database of N games (default 1,000,000) from distinct copies of real games (copy
//! k of each game has ` #k` appended to its Event tag, so no copy is a duplicate of another),
//! one step at a time, and prints each step's games/s with the number of games already
//! stored. Each step's games are written to a temporary file beside the database, imported
//! by the real import (workers, writer, commits), and removed: the collection itself never
//! exists on disk. With `--import-check` each step is also run through `check` with the same
//! options, interleaved, for the import / check ratio.

use super::check::InputArgs;
use super::check::{Rejected, print_note};
use super::error::{AppError, Outcome, Result};
use crate::db::{StoreWriter, open};
use crate::pgn::Splitter;
use crate::pipeline::error::SinkError;
use crate::pipeline::import::ImportSink;
use crate::pipeline::run::{Sink, run};
use crate::pipeline::source;
use crate::pipeline::work::Processed;
use clap::{Args, Parser};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// `bench import`'s games when `--games` is not given.
pub const IMPORT_GAMES: u64 = 1_000_000;

#[derive(Args, Debug, Clone)]
pub struct ImportBenchArgs {
    /// Games to import in all (distinct copies of the source games): `--games` (or its old
    /// name `--import-games`), shared with synth, set by `bench`.
    #[arg(skip = IMPORT_GAMES)]
    pub games: u64,
    /// import: games per step; each step's rate is printed.
    #[arg(
        id = "import_step",
        long = "import-step",
        value_name = "N",
        default_value_t = 100_000
    )]
    pub step: u64,
    /// import: the database to build or add to (default: a temporary one, removed after).
    #[arg(id = "import_db", long = "import-db", value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// import: PGN files whose games are copied (default: $ARBITER_CORPUS/games/otb-pgnmentor).
    #[arg(id = "import_source", long = "import-source", value_name = "PGN")]
    pub sources: Vec<PathBuf>,
    /// import: worker threads (0: all cores), as `import --jobs`.
    #[arg(
        id = "import_jobs",
        long = "jobs",
        alias = "import-jobs",
        value_name = "N",
        default_value_t = 0
    )]
    pub jobs: usize,
    /// import: also run `check` on each step's games, for the import / check ratio.
    #[arg(id = "import_check", long = "import-check")]
    pub check: bool,
}

/// `sources`, or else the master games of the corpus (`$ARBITER_CORPUS/games/otb-pgnmentor/*.pgn`,
/// in name order): the default input of `bench import` and `bench laws`. `hint` says which flag
/// gives a file instead.
pub fn sources_or_master_games(sources: &[PathBuf], hint: &str) -> Result<Vec<PathBuf>> {
    if !sources.is_empty() {
        return Ok(sources.to_vec());
    }
    let corpus = std::env::var_os("ARBITER_CORPUS")
        .ok_or_else(|| AppError::Usage(format!("{hint} (or set ARBITER_CORPUS)")))?;
    let dir = Path::new(&corpus).join("games/otb-pgnmentor");
    let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| AppError::Other(format!("{}: {e}", dir.display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "pgn"))
        .collect();
    found.sort();
    Ok(found)
}

/// The source games, raw, in file order.
fn load_sources(args: &ImportBenchArgs) -> Result<Vec<Vec<u8>>> {
    let paths =
        sources_or_master_games(&args.sources, "bench import: give --import-source FILE.pgn")?;
    let mut games = Vec::new();
    for path in &paths {
        let src = source::open(path).map_err(|e| AppError::Other(e.to_string()))?;
        for raw in Splitter::new(src) {
            let raw = raw.map_err(|e| AppError::Other(format!("{}: {e}", path.display())))?;
            games.push(raw.bytes);
        }
    }
    if games.is_empty() {
        return Err(AppError::Other(
            "bench import: the sources hold no game".into(),
        ));
    }
    Ok(games)
}

/// Copy `copy` of a game: ` #copy` appended to its Event tag (an Event tag is added to a
/// game without one).
pub fn copy_of(game: &[u8], copy: u64, out: &mut Vec<u8>) {
    const EVENT: &[u8] = b"[Event \"";
    let at =
        (0..game.len()).find(|&i| (i == 0 || game[i - 1] == b'\n') && game[i..].starts_with(EVENT));
    let close = at.and_then(|i| {
        let line_end = game[i..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(game.len(), |p| i + p);
        game[i..line_end]
            .iter()
            .rposition(|&b| b == b'"')
            .map(|p| i + p)
    });
    match (at, close) {
        (Some(i), Some(c)) if c >= i + EVENT.len() => {
            out.extend_from_slice(&game[..c]);
            write!(out, " #{copy}").expect("writing to a Vec");
            out.extend_from_slice(&game[c..]);
        }
        _ => {
            writeln!(out, "[Event \"synthetic #{copy}\"]").expect("writing to a Vec");
            out.extend_from_slice(game);
        }
    }
    if !out.ends_with(b"\n\n") {
        out.extend_from_slice(b"\n\n");
    }
}

/// A sink that keeps nothing: `check`'s work without its report.
struct Discard;

impl Sink for Discard {
    fn game(&mut self, _name: &str, _game: &Processed) -> std::result::Result<(), SinkError> {
        Ok(())
    }
}

/// Peak resident memory of this process so far, in MB (VmHWM).
fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// The import's and check's options, parsed as the real commands parse them.
#[derive(Parser)]
struct Wrap {
    #[command(flatten)]
    input: InputArgs,
}

pub fn run_bench(args: &ImportBenchArgs) -> Result {
    if args.games == 0 || args.step == 0 {
        return Err(AppError::Usage(
            "bench import: --games and --import-step must be at least 1".into(),
        ));
    }
    let games = load_sources(args)?;
    // Without --import-db: a database in a folder of its own, removed at the end.
    let tmp = args
        .db
        .is_none()
        .then(|| std::env::temp_dir().join(format!("arbiter-bench-import-{}", std::process::id())));
    if let Some(dir) = &tmp {
        std::fs::create_dir_all(dir).map_err(|e| AppError::io(dir, e))?;
    }
    let db = match (&args.db, &tmp) {
        (Some(db), _) => db.clone(),
        (None, Some(dir)) => dir.join("bench.sqlite"),
        (None, None) => unreachable!("a folder is made when no database is given"),
    };
    let outcome = build(args, &games, &db);
    if let Some(dir) = &tmp {
        let _ = std::fs::remove_dir_all(dir);
    }
    outcome
}

/// Writes the step's `n` games to `chunk`: copies of the source games from the
/// `next`-th on, each copy numbered after what the database holds.
fn write_step(
    chunk: &Path,
    games: &[Vec<u8>],
    first_copy: u64,
    next: u64,
    n: u64,
    buf: &mut Vec<u8>,
) -> Result<()> {
    let mut w = BufWriter::new(
        std::fs::File::create(chunk)
            .map_err(|e| AppError::Other(format!("{}: {e}", chunk.display())))?,
    );
    for k in next..next + n {
        let (copy, i) = (k / games.len() as u64, k % games.len() as u64);
        buf.clear();
        copy_of(&games[i as usize], first_copy + copy, buf);
        w.write_all(buf)?;
    }
    w.flush()?;
    Ok(())
}

/// Imports one step's file into `db` as `arbiter import` does: games read and stored.
fn import_step(db: &Path, options: &crate::pipeline::RunOptions) -> Result<(u64, u64)> {
    let _lock = crate::db::lock_for_import(db)?;
    let writer = StoreWriter::new(open(db)?)?;
    let mut sink = ImportSink::new(writer, r#"{"bench":"import"}"#.to_owned());
    let summary = run(options, &mut sink, &mut print_note(Rejected::Quiet))?;
    let counts = sink.finish()?;
    Ok((summary.games, counts.stored))
}

/// Imports the steps into `db` and prints their rates.
fn build(args: &ImportBenchArgs, games: &[Vec<u8>], db: &Path) -> Result {
    let chunk = {
        let mut name = db.as_os_str().to_owned();
        name.push(".bench-step.pgn");
        PathBuf::from(name)
    };
    let stored_before: u64 = {
        let conn = open(db)?;
        crate::db::persons::stored_games(&conn)?
    };
    let wrap = Wrap::try_parse_from([
        "import".as_ref(),
        "-q".as_ref(),
        "--jobs".as_ref(),
        args.jobs.to_string().as_ref(),
        chunk.as_os_str(),
    ])
    .map_err(|e| AppError::Other(e.to_string()))?;
    let options = wrap.input.run_options();
    let mut out = io::stdout().lock();
    writeln!(
        out,
        "bench import: {} games in steps of {}, copies of {} source games, into {}",
        args.games,
        args.step,
        games.len(),
        db.display()
    )?;
    writeln!(
        out,
        "{:>12} {:>9} {:>9} {:>8} {:>10}{}",
        "in database",
        "read",
        "stored",
        "seconds",
        "games/s",
        if args.check {
            "   check s  check g/s  import/check"
        } else {
            ""
        }
    )?;
    let (mut next, mut done) = (0u64, 0u64);
    let mut in_db = stored_before;
    let mut rates = Vec::new();
    let mut buf = Vec::new();
    // Copies are numbered after what the database holds, so a second run adds new games.
    let first_copy = stored_before / games.len() as u64 + 1;
    while done < args.games {
        let n = args.step.min(args.games - done);
        write_step(&chunk, games, first_copy, next, n, &mut buf)?;
        next += n;
        let check_secs = if args.check {
            let start = Instant::now();
            run(&options, &mut Discard, &mut print_note(Rejected::Quiet))?;
            Some(start.elapsed().as_secs_f64())
        } else {
            None
        };
        let start = Instant::now();
        let (read, stored) = import_step(db, &options)?;
        let secs = start.elapsed().as_secs_f64();
        // Each step is a new file: it must not resume an earlier step's import.
        std::fs::remove_file(&chunk).map_err(|e| AppError::Other(e.to_string()))?;
        let rate = read as f64 / secs;
        rates.push(rate);
        write!(
            out,
            "{in_db:>12} {read:>9} {stored:>9} {secs:>8.2} {rate:>10.0}"
        )?;
        if let Some(c) = check_secs {
            write!(
                out,
                " {c:>9.2} {:>10.0} {:>13.2}",
                read as f64 / c,
                c / secs
            )?;
        }
        writeln!(out)?;
        out.flush()?;
        in_db += stored;
        done += n;
    }
    let first = rates[0];
    let last = rates[rates.len() - 1];
    writeln!(
        out,
        "last step / first step: {:.2} ({last:.0} / {first:.0} games/s); {in_db} games stored; peak RSS {}",
        last / first,
        peak_rss_mb().map_or("unknown".into(), |m| format!("{m:.0} MB"))
    )?;
    Ok(Outcome::Success)
}
