//! CSV (RFC 4180): a header of column names, then one record per row; lists `;`-joined.
//! Text cells that a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`,
//! a tab or a carriage return) are prefixed with `'` by default, as OWASP's guidance on CSV
//! injection advises; a plain number (`-5`) and a lone `-` are left alone, as no spreadsheet
//! reads them as a formula. `raw` writes every value unchanged.

use super::ExportError;
use super::output::Finish;
use super::table::{Cell, Column, TableFormat};
use std::borrow::Cow;
use std::fmt::Write as _;

/// The cell as written to CSV: prefixed with `'` when a spreadsheet would run it.
pub fn guard(text: &str) -> Cow<'_, str> {
    let risky = matches!(
        text.as_bytes().first(),
        Some(b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r')
    );
    if !risky || text == "-" || is_number(text) {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(format!("'{text}"))
    }
}

/// `-12`, `+3.5`: a sign, digits, at most one point.
fn is_number(text: &str) -> bool {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    let mut points = 0;
    !digits.is_empty()
        && digits.bytes().all(|b| {
            points += usize::from(b == b'.');
            b.is_ascii_digit() || b == b'.'
        })
        && points <= 1
        && digits != "."
}

pub struct CsvFormat<W: std::io::Write> {
    out: csv::Writer<W>,
    raw: bool,
    record: Vec<String>,
}

impl<W: Finish> CsvFormat<W> {
    pub fn new(out: W, raw: bool) -> CsvFormat<W> {
        CsvFormat {
            out: csv::WriterBuilder::new().flexible(false).from_writer(out),
            raw,
            record: Vec::new(),
        }
    }

    fn text<'t>(&self, t: &'t str) -> Cow<'t, str> {
        if self.raw { Cow::Borrowed(t) } else { guard(t) }
    }
}

fn csv_err(e: csv::Error) -> ExportError {
    // The I/O error itself, so that a closed pipe is still recognised.
    match e.into_kind() {
        csv::ErrorKind::Io(e) => ExportError::Io(e),
        kind => ExportError::Io(std::io::Error::other(format!("{kind:?}"))),
    }
}

impl<W: Finish + Send> TableFormat for CsvFormat<W> {
    fn begin(&mut self, columns: &[Column]) -> Result<(), ExportError> {
        self.out
            .write_record(columns.iter().map(|c| c.name))
            .map_err(csv_err)
    }

    fn row(&mut self, cells: &[Cell<'_>]) -> Result<(), ExportError> {
        let mut record = std::mem::take(&mut self.record);
        record.resize(cells.len(), String::new());
        for (slot, cell) in record.iter_mut().zip(cells) {
            slot.clear();
            match cell {
                Cell::Null => {}
                Cell::Int(n) => {
                    let _ = write!(slot, "{n}");
                }
                Cell::Float(x) => {
                    let _ = write!(slot, "{x}");
                }
                Cell::Fixed(x, d) => {
                    let _ = write!(slot, "{x:.0$}", usize::from(*d));
                }
                Cell::Text(t) => slot.push_str(&self.text(t)),
                Cell::List(items) => {
                    for (k, item) in items.iter().enumerate() {
                        if k > 0 {
                            slot.push(';');
                        }
                        slot.push_str(&self.text(item));
                    }
                }
            }
        }
        let result = self.out.write_record(&record).map_err(csv_err);
        self.record = record;
        result
    }

    fn finish(self: Box<Self>) -> Result<(), ExportError> {
        let out = self.out.into_inner().map_err(|e| e.into_error())?;
        out.finish_output()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::table::Kind;

    #[test]
    fn formula_cells_are_prefixed_unless_raw() {
        for (input, want) in [
            ("=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"),
            ("+SUM(1+1)", "'+SUM(1+1)"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("-2+3", "'-2+3"),
            ("\tx", "'\tx"),
            ("\rx", "'\rx"),
            ("-", "-"),
            ("-12", "-12"),
            ("+3.5", "+3.5"),
            ("Carlsen, Magnus", "Carlsen, Magnus"),
            ("1-0", "1-0"),
        ] {
            assert_eq!(guard(input), want, "{input:?}");
        }
        let columns = [
            Column {
                name: "white",
                kind: Kind::Text,
                meaning: "",
            },
            Column {
                name: "findings",
                kind: Kind::TextList,
                meaning: "",
            },
        ];
        let row = [
            Cell::text("=HYPERLINK(\"x\")"),
            Cell::List(vec!["a.b".into(), "@c".into()]),
        ];
        for (raw, want) in [
            (
                false,
                "white,findings\n\"'=HYPERLINK(\"\"x\"\")\",a.b;'@c\n",
            ),
            (true, "white,findings\n\"=HYPERLINK(\"\"x\"\")\",a.b;@c\n"),
        ] {
            let mut out = Vec::new();
            let mut f = Box::new(CsvFormat::new(&mut out, raw));
            f.begin(&columns).unwrap();
            f.row(&row).unwrap();
            f.finish().unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), want);
        }
    }
}
