//! Aligned text, the table format for the screen: a caption line (a count, a title), the
//! column names, then one line a row, each column as wide as its widest cell among the first
//! rows (numbers to the right, text to the left), and an optional closing line. The widths
//! come from the first `SAMPLE` rows, so a long answer streams after them in bounded memory;
//! a later, wider cell widens only its own line.

use super::ExportError;
use super::output::Finish;
use super::table::{Cell, Column, Kind, TableFormat};
use crate::identity::names::visible;
use std::fmt::Write as _;

/// Rows read before the widths are fixed.
const SAMPLE: usize = 200;
/// Two spaces between columns.
const GAP: &str = "  ";

pub struct TextFormat<W: Finish> {
    out: W,
    caption: Option<String>,
    footer: Option<String>,
    columns: Vec<Column>,
    /// The first rows as text, until the widths are fixed.
    pending: Vec<Vec<String>>,
    widths: Option<Vec<usize>>,
    line: String,
}

impl<W: Finish> TextFormat<W> {
    pub fn new(out: W) -> TextFormat<W> {
        TextFormat {
            out,
            caption: None,
            footer: None,
            columns: Vec::new(),
            pending: Vec::new(),
            widths: None,
            line: String::new(),
        }
    }

    /// A line before the table (such as "12 games").
    pub fn caption(mut self, line: impl Into<String>) -> Self {
        self.caption = Some(line.into());
        self
    }

    /// A line after the table (such as how many rows were left out).
    pub fn footer(mut self, line: Option<String>) -> Self {
        self.footer = line;
        self
    }

    /// Writes what is held back (the first rows, the footer) and hands the writer back
    /// unfinished.
    pub fn into_inner(mut self) -> Result<W, ExportError> {
        if self.widths.is_none() {
            self.fix_widths()?;
        }
        if let Some(f) = self.footer.take() {
            self.out.write_all(f.as_bytes())?;
            self.out.write_all(b"\n")?;
        }
        Ok(self.out)
    }

    fn fix_widths(&mut self) -> Result<(), ExportError> {
        let mut widths: Vec<usize> = self.columns.iter().map(|c| width(c.name)).collect();
        for row in &self.pending {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(width(cell));
            }
        }
        let names: Vec<String> = self.columns.iter().map(|c| c.name.to_owned()).collect();
        self.widths = Some(widths);
        self.write_line(&names)?;
        for row in std::mem::take(&mut self.pending) {
            self.write_line(&row)?;
        }
        Ok(())
    }

    fn write_line(&mut self, cells: &[String]) -> Result<(), ExportError> {
        let widths = self.widths.as_deref().unwrap_or(&[]);
        self.line.clear();
        for (i, cell) in cells.iter().enumerate() {
            let w = widths.get(i).copied().unwrap_or(0);
            let pad = w.saturating_sub(width(cell));
            let last = i + 1 == cells.len();
            if i > 0 {
                self.line.push_str(GAP);
            }
            let right = matches!(
                self.columns.get(i).map(|c| c.kind),
                Some(Kind::Int | Kind::Float)
            );
            if right {
                self.line.extend(std::iter::repeat_n(' ', pad));
                self.line.push_str(cell);
            } else {
                self.line.push_str(cell);
                if !last {
                    self.line.extend(std::iter::repeat_n(' ', pad));
                }
            }
        }
        let trimmed = self.line.trim_end().len();
        self.line.truncate(trimmed);
        self.line.push('\n');
        self.out.write_all(self.line.as_bytes())?;
        Ok(())
    }
}

/// Characters, which is what a terminal's columns count for the names and tags arbiter
/// prints (accents included).
fn width(s: &str) -> usize {
    s.chars().count()
}

/// A cell as text: lists joined by ", ", fixed floats with their decimals, other floats as
/// short as they read back; characters a screen would not show (a zero-width space, a tab)
/// escaped as `players` and `stats` show a name (`identity::names::visible`).
pub fn cell_text(cell: &Cell<'_>) -> String {
    let mut s = String::new();
    match cell {
        Cell::Null => {}
        Cell::Int(n) => {
            let _ = write!(s, "{n}");
        }
        Cell::Float(x) => {
            let _ = write!(s, "{x}");
        }
        Cell::Fixed(x, d) => {
            let _ = write!(s, "{x:.0$}", usize::from(*d));
        }
        Cell::Text(t) => s.push_str(&visible(t)),
        Cell::List(items) => s.push_str(&visible(&items.join(", "))),
    }
    s
}

impl<W: Finish + Send> TableFormat for TextFormat<W> {
    fn begin(&mut self, columns: &[Column]) -> Result<(), ExportError> {
        self.columns = columns.to_vec();
        if let Some(c) = self.caption.take() {
            self.out.write_all(c.as_bytes())?;
            self.out.write_all(b"\n")?;
        }
        Ok(())
    }

    fn row(&mut self, cells: &[Cell<'_>]) -> Result<(), ExportError> {
        crate::interrupt::check()?;
        let row: Vec<String> = cells.iter().map(cell_text).collect();
        if self.widths.is_some() {
            return self.write_line(&row);
        }
        self.pending.push(row);
        if self.pending.len() >= SAMPLE {
            self.fix_widths()?;
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<(), ExportError> {
        self.into_inner()?.finish_output()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(rows: &[[Cell<'_>; 3]], footer: Option<String>) -> String {
        let mut t = TextFormat::new(Vec::new())
            .caption("2 games")
            .footer(footer);
        t.begin(&[
            Column::new("id", Kind::Int, ""),
            Column::new("white", Kind::Text, ""),
            Column::new("elo", Kind::Int, ""),
        ])
        .unwrap();
        for r in rows {
            t.row(r).unwrap();
        }
        String::from_utf8(t.into_inner().unwrap()).unwrap()
    }

    #[test]
    fn columns_align_numbers_right_and_text_left() {
        let text = render(
            &[
                [Cell::Int(7), Cell::text("Tal, Mikhail"), Cell::Int(2700)],
                [Cell::Int(12345), Cell::text("Réti"), Cell::Null],
            ],
            Some("… and 3 more".to_owned()),
        );
        assert_eq!(
            text,
            "2 games\n   id  white          elo\n    7  Tal, Mikhail  2700\n12345  Réti\n… and 3 more\n"
        );
    }

    #[test]
    fn what_a_screen_would_not_show_is_escaped() {
        let text = render(
            &[[Cell::Int(1), Cell::text("Zero\u{200b}width, A"), Cell::Null]],
            None,
        );
        assert!(text.contains("Zero\\u{200b}width, A"), "{text}");
    }

    #[test]
    fn past_the_sample_rows_stream_with_the_widths_fixed() {
        let mut rows: Vec<[Cell<'_>; 3]> = (0..SAMPLE as i64)
            .map(|i| [Cell::Int(i), Cell::text("ab"), Cell::Int(1)])
            .collect();
        rows.push([Cell::Int(1), Cell::text("a much longer name"), Cell::Int(1)]);
        let text = render(&rows, None);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), SAMPLE + 3);
        assert_eq!(lines[1], " id  white  elo");
        assert_eq!(lines[SAMPLE + 2], "  1  a much longer name    1");
    }
}
