//! JSON lines: one object per row, keys in column order, values typed (numbers as numbers,
//! lists as arrays, missing values as `null`).

use super::ExportError;
use super::output::Finish;
use super::table::{Cell, Column, TableFormat};
use std::io::Write;

pub struct JsonlFormat<W: Write> {
    out: W,
    names: Vec<&'static str>,
    line: Vec<u8>,
}

impl<W: Finish> JsonlFormat<W> {
    pub fn new(out: W) -> JsonlFormat<W> {
        JsonlFormat {
            out,
            names: Vec::new(),
            line: Vec::new(),
        }
    }
}

/// Appends the cell as a JSON value, straight from the borrowed text (no `serde_json::Value`
/// in between: that copied every text cell of every row).
fn push_value(line: &mut Vec<u8>, cell: &Cell<'_>) -> Result<(), serde_json::Error> {
    match cell {
        Cell::Null => line.extend_from_slice(b"null"),
        Cell::Int(n) => serde_json::to_writer(&mut *line, n)?,
        // NaN and infinities are not JSON: null.
        Cell::Float(x) | Cell::Fixed(x, _) if x.is_finite() => {
            serde_json::to_writer(&mut *line, x)?
        }
        Cell::Float(_) | Cell::Fixed(..) => line.extend_from_slice(b"null"),
        Cell::Text(t) => serde_json::to_writer(&mut *line, t.as_ref())?,
        Cell::List(items) => {
            line.push(b'[');
            for (k, item) in items.iter().enumerate() {
                if k > 0 {
                    line.push(b',');
                }
                serde_json::to_writer(&mut *line, item.as_ref())?;
            }
            line.push(b']');
        }
    }
    Ok(())
}

impl<W: Finish + Send> TableFormat for JsonlFormat<W> {
    fn begin(&mut self, columns: &[Column]) -> Result<(), ExportError> {
        self.names = columns.iter().map(|c| c.name).collect();
        Ok(())
    }

    fn row(&mut self, cells: &[Cell<'_>]) -> Result<(), ExportError> {
        // Written by hand: keys stay in column order (serde_json's map would sort them).
        self.line.clear();
        self.line.push(b'{');
        for (k, (name, cell)) in self.names.iter().zip(cells).enumerate() {
            if k > 0 {
                self.line.push(b',');
            }
            serde_json::to_writer(&mut self.line, name)?;
            self.line.push(b':');
            push_value(&mut self.line, cell)?;
        }
        self.line.extend_from_slice(b"}\n");
        self.out.write_all(&self.line)?;
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<(), ExportError> {
        self.out.finish_output()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::table::Kind;

    #[test]
    fn values_are_typed() {
        let col = |name| Column {
            name,
            kind: Kind::Text,
            meaning: "",
        };
        let mut out = Vec::new();
        let mut f = Box::new(JsonlFormat::new(&mut out));
        f.begin(&[col("white_elo"), col("findings"), col("eco"), col("acc")])
            .unwrap();
        f.row(&[
            Cell::Int(2749),
            Cell::List(vec!["a.b".into(), "c.d".into()]),
            Cell::Null,
            Cell::Float(91.5),
        ])
        .unwrap();
        f.row(&[
            Cell::text("Tal, \"Misha\"\n"),
            Cell::List(vec![]),
            Cell::Float(f64::NAN),
            Cell::Float(0.1),
        ])
        .unwrap();
        f.finish().unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"white_elo\":2749,\"findings\":[\"a.b\",\"c.d\"],\"eco\":null,\"acc\":91.5}\n\
             {\"white_elo\":\"Tal, \\\"Misha\\\"\\n\",\"findings\":[],\"eco\":null,\"acc\":0.1}\n"
        );
    }
}
