//! `arbiter import FILES... [--db PATH]`: the main job. Every game is parsed, replayed and
//! judged on the workers, then stored by one writer in batches; rerunning the same command
//! stores nothing twice and resumes an interrupted import.

use super::check::{InputArgs, Rejected, outcome, print_note};
use super::error::{AppError, Outcome, Result};
use crate::db::{StoreWriter, open};
use crate::pipeline::import::{FileRate, ImportCounts, ImportSink};
use crate::pipeline::run;
use crate::pipeline::summary::Summary;
use clap::Args;
use std::io::{self, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct ImportArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// The SQLite database to create or add to.
    #[arg(long, default_value = "arbiter.sqlite")]
    pub db: PathBuf,
    /// Map spellings to persons by this alias file (TSV canonical<TAB>variant), stored
    /// spellings included (docs/IDENTITY.md).
    #[arg(long, value_name = "FILE")]
    pub aliases: Option<PathBuf>,
    /// Leave the position index out (`arbiter search` then scans these games until
    /// `arbiter index` indexes them).
    #[arg(long)]
    pub no_position_index: bool,
    /// How the games go in: `bulk` builds the games' secondary indexes (and rewrites the
    /// position index in key order) after them, `rows` keeps every index up to date game by
    /// game; `auto` loads in bulk into a new database or one the input at least doubles
    /// (by its size, about 600 bytes a game; a file this database has imported to its end
    /// counts none, so importing it again keeps the indexes).
    #[arg(long, value_enum, default_value_t = Load::Auto)]
    pub load: Load,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Load {
    Auto,
    Bulk,
    Rows,
}

pub fn run_import(args: &ImportArgs) -> Result {
    let start = Instant::now();
    let mut options = args.input.run_options();
    // What can be checked without the database is checked first, so that a mistyped input,
    // a bad alias file or an engine that cannot start leaves no new database (nor lock file)
    // behind.
    no_input_readable(&options.inputs)?;
    args.input.check_engine_flags()?;
    // `--analyse` is the analysis stage, run on what this import stored once it is stored
    // (the same stage as `analyse --db`); the engine is checked before anything is stored.
    let stage = match options.work.analysis.take() {
        Some(a) => Some(super::analyse::stage_options(
            a,
            &args.input.engine,
            false,
            args.input.jobs,
        )?),
        None => None,
    };
    let aliases = match &args.aliases {
        None => None,
        Some(path) => match crate::identity::aliases::Aliases::load(path) {
            Ok(a) => Some(a),
            Err(e) => return Err(AppError::Other(format!("{e}; nothing imported"))),
        },
    };
    // Taken before the database is opened: a second import of it stops here, and never
    // mistakes the first one's committed batches for an interrupted run's.
    let _lock = crate::db::lock_for_import(&args.db)?;
    let mut conn = open(&args.db)?;
    let rules = match aliases {
        None => None,
        Some(aliases) => match crate::db::persons::apply_aliases(&mut conn, aliases) {
            Ok((rules, _)) => Some(rules),
            Err(e) => return Err(AppError::Other(format!("{e}; nothing imported"))),
        },
    };
    let last_before = crate::db::analyses::last_game_id(&conn)?;
    let mut writer = StoreWriter::new(conn)?;
    if let Some(rules) = rules {
        writer.set_person_rules(rules);
    }
    let mut sink = ImportSink::new(writer, settings(args));
    let (findings, quarantine) = args.input.open_outputs()?;
    sink.findings = findings;
    sink.quarantine = quarantine;
    sink.db.clone_from(&args.db);
    sink.index_positions = !args.no_position_index;
    let bulk = match args.load {
        Load::Bulk => true,
        Load::Rows => false,
        Load::Auto => crate::db::bulk::wanted(
            sink.stored_at_start(),
            sink.bytes_to_import(&options.inputs)?,
        ),
    };
    sink.set_bulk(bulk)?;
    let mut notes = print_note(Rejected::unless_quiet(args.input.quiet, Rejected::First));
    let mut summary = run(&options, &mut sink, &mut notes)?;
    let files = std::mem::take(&mut sink.files);
    let counts = sink.finish()?;
    // Games an earlier, killed import stored before their index rows were written.
    if !args.no_position_index {
        let conn = open(&args.db)?;
        let step = crate::db::positions::BUILD_STEP;
        if crate::db::positions::unindexed_games(&conn)? > 0 {
            crate::db::positions::build(&conn, step, |_, _| {})?;
        }
    }
    // Games skipped by a resume were read from the file too.
    summary.games += counts.resumed;
    args.input.write_summary_json(
        &summary,
        &[
            ("stored", counts.stored.into()),
            ("already_present", counts.already_present.into()),
            ("resumed", counts.resumed.into()),
            ("bulk", bulk.into()),
        ],
    )?;
    report(args, &summary, &counts, bulk, &files, start.elapsed())?;
    if summary.interrupted {
        // Every delivered batch is committed, and the files not read to their end keep
        // their resume points.
        return Err(AppError::Interrupted(format!(
            "interrupted: {} games stored; run the same command to resume",
            counts.stored
        )));
    }
    if let Some(stage) = stage {
        let mut conn = open(&args.db)?;
        // The games this import added.
        let added = crate::db::query::Filter {
            after_id: Some(last_before),
            ..crate::db::query::Filter::default()
        };
        let added = crate::db::query::Selection::compile(&conn, &added)?;
        let analysed =
            super::analyse::run_stage(&mut conn, &args.db, &added, &stage, args.input.quiet)?;
        if analysed != Outcome::Success {
            return Ok(analysed);
        }
    }
    Ok(outcome(&summary))
}

/// The settings stored with the import (how its games were read and judged).
fn settings(args: &ImportArgs) -> String {
    serde_json::json!({
        "san": if args.input.strict { "strict" } else { "lenient" },
        "laws": if args.input.no_laws { "off".to_string() } else { format!("{:?}", args.input.laws) },
        "dead_budget": args.input.dead_budget,
        "arbiter": env!("CARGO_PKG_VERSION"),
    })
    .to_string()
}

/// The table on standard output: the run's summary, what was stored and how (`--load`),
/// each file's rate when there were several, and the database.
fn report(
    args: &ImportArgs,
    summary: &Summary,
    counts: &ImportCounts,
    bulk: bool,
    files: &[FileRate],
    elapsed: Duration,
) -> Result<()> {
    let mut out = io::stdout().lock();
    summary.write_table(&mut out, elapsed)?;
    writeln!(out, "stored     {:>12}", counts.stored)?;
    writeln!(
        out,
        "present    {:>12}  (already in the database)",
        counts.already_present
    )?;
    if counts.resumed > 0 {
        writeln!(
            out,
            "resumed    {:>12}  (committed by an interrupted earlier run)",
            counts.resumed
        )?;
    }
    writeln!(
        out,
        "load       {:>12}  ({})",
        if bulk { "bulk" } else { "rows" },
        if bulk {
            "indexes built after the games"
        } else {
            "indexes kept up to date game by game"
        }
    )?;
    if files.len() > 1 {
        // Files overlap on the workers; each one's time runs from its first game's delivery
        // to its last's.
        for f in files {
            writeln!(
                out,
                "file       {:>12}  games in {:.2} s ({:.0} games/s), {} stored: {}",
                f.games,
                f.seconds,
                f.games as f64 / f.seconds.max(1e-9),
                f.stored,
                f.name
            )?;
        }
    }
    writeln!(out, "database   {}", args.db.display())?;
    out.flush()?;
    Ok(())
}

/// An error when not one of the inputs can be opened (a mistyped name): the import would
/// store nothing. With some readable, the others are reported by the run, as always.
fn no_input_readable(inputs: &[PathBuf]) -> Result<()> {
    let mut problems = Vec::new();
    for path in inputs {
        if path.as_os_str() == "-" {
            return Ok(());
        }
        match std::fs::File::open(path).and_then(|f| f.metadata()) {
            Ok(m) if !m.is_dir() => return Ok(()),
            Ok(_) => problems.push(format!("{}: a folder holding no PGN file", path.display())),
            Err(e) => problems.push(format!("cannot open {}: {e}", path.display())),
        }
    }
    Err(AppError::Other(format!(
        "{}; nothing imported, no database opened",
        problems.join("; ")
    )))
}
