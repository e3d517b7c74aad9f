//! `arbiter import FILES... [--db PATH]`: the main job. Every game is parsed, replayed and
//! judged on the workers, then stored by one writer in batches; rerunning the same command
//! stores nothing twice and resumes an interrupted import.

use super::check::InputArgs;
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
}

pub fn run_import(args: &ImportArgs) -> io::Result<i32> {
    let start = Instant::now();
    let conn = match open(&args.db) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("arbiter: {e}");
            return Ok(2);
        }
    };
    let options = args.input.run_options();
    let settings = serde_json::json!({
        "san": if args.input.strict { "strict" } else { "lenient" },
        "laws": if args.input.no_laws { "off".to_string() } else { format!("{:?}", args.input.laws) },
        "dead_budget": args.input.dead_budget,
        "arbiter": env!("CARGO_PKG_VERSION"),
    })
    .to_string();
    let mut sink = ImportSink::new(Writer::new(conn), settings);
    let (findings, quarantine) = args.input.open_outputs()?;
    sink.findings = findings;
    sink.quarantine = quarantine;
    sink.print_errors = !args.input.quiet;
    let mut summary = run(&options, &mut sink)?;
    let counts = sink.finish()?;
    // Games skipped by a resume were read from the file too.
    summary.games += counts.resumed;
    let elapsed = start.elapsed();
    if let Some(path) = &args.input.summary_json {
        let mut value = serde_json::to_value(&summary).map_err(io::Error::other)?;
        value["stored"] = counts.stored.into();
        value["already_present"] = counts.already_present.into();
        value["resumed"] = counts.resumed.into();
        let text = serde_json::to_string_pretty(&value).map_err(io::Error::other)?;
        std::fs::write(path, text + "\n")?;
    }
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
    writeln!(out, "database   {}", args.db.display())?;
    out.flush()?;
    Ok(if !summary.failed_files.is_empty() {
        2
    } else if summary.rejected > 0 || !summary.files_without_games.is_empty() {
        1
    } else {
        0
    })
}
