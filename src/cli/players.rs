//! `arbiter players --db DB`: persons and their spellings. `--name` filters, `--suggest`
//! writes probable variants of one person as an alias file to check and edit, and
//! `--apply-aliases FILE` maps spellings to persons by that file in one transaction
//! (docs/IDENTITY.md). Nothing here merges by guesswork: suggestions are only printed.

use super::error::{AppError, Outcome, Result};
use super::output::{Offers, TableOutput};
use crate::db::persons::{self, PersonError, Reassigned};
use crate::export::format::{self, Format};
use crate::export::persons::{COLUMNS, cells};
use crate::identity::aliases::{self, Aliases};
use clap::Args;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
#[command(after_help = "Examples:
  arbiter players --db games.sqlite --name carlsen
  arbiter players --db games.sqlite -o players.csv
  arbiter players --db games.sqlite --suggest > aliases.tsv")]
pub struct PlayersArgs {
    /// The database to read.
    #[arg(long, default_value = "arbiter.sqlite")]
    pub db: PathBuf,
    /// Only persons with a spelling containing this text (case-insensitive).
    #[arg(long)]
    pub name: Option<String>,
    /// Print probable variants of one person, with the evidence, as an alias file.
    #[arg(long, conflicts_with = "apply_aliases")]
    pub suggest: bool,
    /// Map spellings to persons by this alias file (TSV canonical<TAB>variant). The file is
    /// the whole mapping: it replaces an earlier file's, and what it undoes is listed.
    #[arg(long, value_name = "FILE")]
    pub apply_aliases: Option<PathBuf>,
    /// The list's format and file (one row per spelling, with its person).
    #[command(flatten)]
    pub out: TableOutput<PlayersFormats>,
}

/// The formats the list is written in.
const FORMATS: [Format; 4] = [Format::Text, Format::Csv, Format::Jsonl, Format::Parquet];

#[derive(Clone, Debug)]
pub struct PlayersFormats;

impl Offers for PlayersFormats {
    const FORMATS: &'static [Format] = &FORMATS;
}

impl From<PersonError> for AppError {
    fn from(e: PersonError) -> AppError {
        match e {
            PersonError::Sqlite(e) => AppError::Sqlite(e),
            PersonError::Alias(e) => AppError::Usage(format!("{e}; nothing applied")),
            e @ PersonError::NoMatch { .. } => AppError::Usage(e.to_string()),
        }
    }
}

pub fn run(args: &PlayersArgs) -> Result {
    let mut out = io::stdout().lock();
    if let Some(path) = &args.apply_aliases {
        // The file first: a bad one touches no database.
        let aliases = Aliases::load(path).map_err(PersonError::Alias)?;
        let mut conn = crate::db::open_existing(&args.db)?;
        let (_, done) = persons::apply_aliases(&mut conn, aliases)?;
        applied(&mut out, path, &done)?;
        return Ok(Outcome::Success);
    }
    let conn = crate::db::open_read_only(&args.db)?;
    if args.suggest {
        suggest(&mut out, &persons::evidence(&conn)?)?;
        return Ok(Outcome::Success);
    }
    let format = args.out.format()?;
    let rows = persons::list_matching(&conn, args.name.as_deref())?;
    drop(out);
    let mut table = format::open_table(format, args.out.path(), args.out.csv_raw)?;
    table.begin(&COLUMNS)?;
    for r in &rows {
        table.row(&cells(r))?;
    }
    table.finish()?;
    Ok(Outcome::Success)
}

fn applied(out: &mut impl Write, path: &Path, done: &Reassigned) -> io::Result<()> {
    writeln!(
        out,
        "{} spellings, {} moved to another person; persons {} -> {}",
        done.spellings, done.moved, done.persons_before, done.persons_after
    )?;
    if !done.undone.is_empty() {
        writeln!(
            out,
            "this file replaces the mapping of earlier alias files: {} spellings it does not name went back to a person of their own:",
            done.undone.len()
        )?;
        for u in &done.undone {
            writeln!(
                out,
                "  {:?}: #{} {} -> #{} {}",
                u.spelling, u.from.0, u.from.1, u.to.0, u.to.1
            )?;
        }
    }
    if done.ratings_moved + done.ratings_dropped > 0 {
        writeln!(
            out,
            "stored ratings of merged persons: {} rows moved to the person they joined, {} dropped (rated apart in the same run; run `arbiter ratings` again)",
            done.ratings_moved, done.ratings_dropped
        )?;
    }
    for (line, name) in &done.unknown {
        writeln!(
            out,
            "{}:{line}: {name:?} matches no stored spelling",
            path.display()
        )?;
    }
    Ok(())
}

fn suggest(out: &mut impl Write, evidence: &aliases::Evidence) -> io::Result<()> {
    writeln!(
        out,
        "# arbiter players --suggest: probable variants of one person, NOT applied.\n\
         # Check each line (canonical<TAB>variant), delete the wrong ones, then run\n\
         # arbiter players --apply-aliases FILE (or import --aliases FILE)."
    )?;
    let suggestions = aliases::suggest(evidence);
    for group in &suggestions.groups {
        writeln!(out)?;
        for s in &group.pairs {
            writeln!(
                out,
                "# persons {} and {}: {}",
                s.canonical,
                s.variant,
                s.why.join("; ")
            )?;
        }
        for (canonical, variant) in &group.lines {
            writeln!(out, "{canonical}\t{variant}")?;
        }
    }
    if !suggestions.apart.is_empty() {
        writeln!(out, "\n# Kept apart:")?;
    }
    for s in &suggestions.apart {
        writeln!(
            out,
            "# persons {} and {}: {}",
            s.canonical,
            s.variant,
            s.why.join("; ")
        )?;
    }
    Ok(())
}
