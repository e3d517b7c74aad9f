//! The output flags of a command that writes a table (`--format`, `-o`, `--csv-raw`), one
//! block flattened into each such command, which names the formats it offers through
//! [`Offers`]: clap then lists exactly those in `--help` and in its errors.

use super::error::{AppError, Result};
use crate::export::format::{self, Format};
use clap::Args;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

/// The formats a command offers, the first one its default.
pub trait Offers: Clone + Send + Sync + std::fmt::Debug + 'static {
    const FORMATS: &'static [Format];
}

#[derive(Args, Debug, Clone)]
pub struct TableOutput<O: Offers> {
    /// Output format (text is the default on the screen); default: the -o file's
    /// extension.
    #[arg(long, value_parser = super::choice::parser(O::FORMATS))]
    pub format: Option<Format>,
    /// Output file (default: standard output); .gz/.zst/.bz2/.xz compress.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// CSV: write cells unchanged (no `'` before cells a spreadsheet would run as formulas).
    #[arg(long)]
    pub csv_raw: bool,
    #[arg(skip)]
    offers: PhantomData<O>,
}

impl<O: Offers> TableOutput<O> {
    /// The format to write (`export::format::choose`): a refusal is a usage error.
    pub fn format(&self) -> Result<Format> {
        format::choose(self.format, self.path(), O::FORMATS, O::FORMATS[0])
            .map_err(|e| AppError::usage(e.to_string()))
    }

    pub fn path(&self) -> Option<&Path> {
        self.output.as_deref()
    }
}
