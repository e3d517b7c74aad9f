//! `arbiter import FILES... [--db PATH]`: the main job. Every game is parsed, replayed and
//! judged on the workers, then stored by one writer in batches; rerunning the same command
//! stores nothing twice and resumes an interrupted import.

use super::check::{InputArgs, outcome};
use super::error::{AppError, Outcome, Result};
use crate::db::{Writer, open};
use crate::pipeline::import::ImportSink;
use crate::pipeline::run;
use clap::Args;
use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Instant;

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
}

pub fn run_import(args: &ImportArgs) -> Result {
    let start = Instant::now();
    // Taken before the database is opened: a second import of it stops here, and never
    // mistakes the first one's committed batches for an interrupted run's.
    let _lock = crate::db::lock_for_import(&args.db)?;
    let mut conn = open(&args.db)?;
    let rules = match &args.aliases {
        None => None,
        Some(path) => {
            let applied = crate::identity::aliases::Aliases::load(path)
                .map_err(crate::db::persons::PersonError::Alias)
                .and_then(|a| crate::db::persons::apply_aliases(&mut conn, a));
            match applied {
                Ok((rules, _)) => Some(rules),
                Err(e) => return Err(AppError::Other(format!("{e}; nothing imported"))),
            }
        }
    };
    let mut options = args.input.run_options();
    // `--analyse` is the analysis stage, run on what this import stored once it is stored
    // (the same stage as `analyse --db`); the engine is checked before anything is stored.
    let analysis = options.work.analysis.take();
    let stage = match analysis {
        Some(a) => Some(super::analyse::stage_options(
            a,
            &args.input.engine,
            false,
            args.input.jobs,
        )?),
        None => None,
    };
    let last_before = crate::db::analyses::last_game_id(&conn)?;
    let settings = serde_json::json!({
        "san": if args.input.strict { "strict" } else { "lenient" },
        "laws": if args.input.no_laws { "off".to_string() } else { format!("{:?}", args.input.laws) },
        "dead_budget": args.input.dead_budget,
        "arbiter": env!("CARGO_PKG_VERSION"),
    })
    .to_string();
    let mut writer = Writer::new(conn)?;
    if let Some(rules) = rules {
        writer.set_person_rules(rules);
    }
    let mut sink = ImportSink::new(writer, settings);
    let (findings, quarantine) = args.input.open_outputs()?;
    sink.findings = findings;
    sink.quarantine = quarantine;
    sink.print_errors = !args.input.quiet;
    let mut summary = run(&options, &mut sink)?;
    let files = std::mem::take(&mut sink.files);
    let counts = sink.finish()?;
    // Games skipped by a resume were read from the file too.
    summary.games += counts.resumed;
    let elapsed = start.elapsed();
    args.input.write_summary_json(
        &summary,
        &[
            ("stored", counts.stored.into()),
            ("already_present", counts.already_present.into()),
            ("resumed", counts.resumed.into()),
        ],
    )?;
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
    if files.len() > 1 {
        // Files overlap on the workers; each one's time runs from its first game's delivery
        // to its last's.
        for f in &files {
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
    drop(out);
    if let Some(stage) = stage {
        let mut conn = open(&args.db)?;
        let from = crate::export::games::games_from(crate::db::SCHEMA_VERSION);
        let values = vec![rusqlite::types::Value::Integer(last_before)];
        let analysed = super::analyse::run_stage(
            &mut conn,
            from,
            "g.id > ?1",
            values,
            &stage,
            args.input.quiet,
        )?;
        if analysed != Outcome::Success {
            return Ok(analysed);
        }
    }
    Ok(outcome(&summary))
}
