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

fn value(cell: &Cell<'_>) -> serde_json::Value {
    use serde_json::Value;
    match cell {
        Cell::Null => Value::Null,
        Cell::Int(n) => Value::from(*n),
        // NaN and infinities are not JSON: null.
        Cell::Float(x) => serde_json::Number::from_f64(*x).map_or(Value::Null, Value::Number),
        Cell::Text(t) => Value::String(t.to_string()),
        Cell::List(items) => {
            Value::Array(items.iter().map(|s| Value::String(s.to_string())).collect())
        }
    }
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
            serde_json::to_writer(&mut self.line, &value(cell))?;
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
        f.finish().unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"white_elo\":2749,\"findings\":[\"a.b\",\"c.d\"],\"eco\":null,\"acc\":91.5}\n"
        );
    }
}
