//! One finding as a table row, the same columns whether it comes from `check --findings`
//! (straight from the pipeline) or from `export --findings` (from the database), so one
//! script reads both: file, game, byte, line, column, ply, code, severity, token, message.

use super::ExportError;
use super::table::{Cell, Column, Kind, TableFormat};
pub use crate::db::query::games::FindingRow;
use crate::pgn::Finding;
use std::borrow::Cow;

/// The findings table's columns, in order.
pub const FINDING_COLUMNS: [Column; 10] = [
    Column {
        name: "file",
        kind: Kind::Text,
        meaning: "the input file, as given on the command line",
    },
    Column {
        name: "game",
        kind: Kind::Int,
        meaning: "1-based number of the game in its file (0: text outside any game)",
    },
    Column {
        name: "byte",
        kind: Kind::Int,
        meaning: "byte offset in the (decompressed) file",
    },
    Column {
        name: "line",
        kind: Kind::Int,
        meaning: "1-based line",
    },
    Column {
        name: "column",
        kind: Kind::Int,
        meaning: "1-based byte column",
    },
    Column {
        name: "ply",
        kind: Kind::Int,
        meaning: "the ply the finding is about, when there is one",
    },
    Column {
        name: "code",
        kind: Kind::Text,
        meaning: "stable code (docs/findings.md)",
    },
    Column {
        name: "severity",
        kind: Kind::Text,
        meaning: "error, warning or info",
    },
    Column {
        name: "token",
        kind: Kind::Text,
        meaning: "the offending token, when there is one",
    },
    Column {
        name: "message",
        kind: Kind::Text,
        meaning: "the message for people",
    },
];

/// A finding the pipeline just made about a game of `file`, as the row the store gives back.
pub fn finding_row<'a>(file: &'a str, f: &'a Finding) -> FindingRow<'a> {
    let int = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    FindingRow {
        file,
        game: int(f.game_number),
        byte: int(f.byte),
        line: int(f.line),
        column: i64::from(f.column),
        ply: f.ply.map(i64::from),
        code: f.code,
        severity: f.severity.as_str(),
        token: f.token.as_deref(),
        message: &f.message,
    }
}

/// A finding's cells, in the order of `FINDING_COLUMNS`.
pub fn finding_cells<'a>(row: &FindingRow<'a>) -> [Cell<'a>; 10] {
    [
        Cell::text(row.file),
        Cell::Int(row.game),
        Cell::Int(row.byte),
        Cell::Int(row.line),
        Cell::Int(row.column),
        Cell::opt_int(row.ply),
        Cell::text(row.code),
        Cell::text(row.severity),
        row.token
            .map_or(Cell::Null, |t| Cell::Text(Cow::Borrowed(t))),
        Cell::text(row.message),
    ]
}

/// A table format holding findings.
pub struct FindingsTable {
    format: Box<dyn TableFormat>,
    pub rows: u64,
}

impl FindingsTable {
    pub fn begin(mut format: Box<dyn TableFormat>) -> Result<FindingsTable, ExportError> {
        format.begin(&FINDING_COLUMNS)?;
        Ok(FindingsTable { format, rows: 0 })
    }

    pub fn write(&mut self, row: &FindingRow<'_>) -> Result<(), ExportError> {
        self.rows += 1;
        self.format.row(&finding_cells(row))
    }

    pub fn finish(self) -> Result<(), ExportError> {
        self.format.finish()
    }
}
