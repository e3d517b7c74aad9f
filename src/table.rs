//! The table vocabulary every command that writes a table shares: typed cells, columns
//! with their type and meaning. `stats`, `db` (stored lists), `check` and `export` describe
//! their rows with it; `export` writes them (CSV, JSON lines, Parquet: `export::table`
//! re-exports these types beside its `TableFormat` and the game columns).

use std::borrow::Cow;

/// The type of a column, the same in every format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Int,
    Float,
    Text,
    /// A list of texts: a JSON array, a Parquet list, `;`-joined in CSV.
    TextList,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Int => "integer",
            Kind::Float => "float",
            Kind::Text => "text",
            Kind::TextList => "list of text",
        }
    }
}

/// One value of a row.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell<'a> {
    Null,
    Int(i64),
    Float(f64),
    /// A float shown with this many decimals where the format is text (CSV: `7.50`, as a
    /// crosstable prints a tie-break), the number itself in JSON lines and Parquet.
    Fixed(f64, u8),
    Text(Cow<'a, str>),
    List(Vec<Cow<'a, str>>),
}

impl<'a> Cell<'a> {
    pub fn text(s: &'a str) -> Cell<'a> {
        Cell::Text(Cow::Borrowed(s))
    }

    pub fn opt_text(s: Option<&'a str>) -> Cell<'a> {
        s.map_or(Cell::Null, Cell::text)
    }

    pub fn opt_int(n: Option<i64>) -> Cell<'a> {
        n.map_or(Cell::Null, Cell::Int)
    }

    /// `Fixed(v, decimals)`, or Null for no value.
    pub fn opt_fixed(v: Option<f64>, decimals: u8) -> Cell<'a> {
        v.map_or(Cell::Null, |v| Cell::Fixed(v, decimals))
    }
}

/// A column: its name, type and meaning (`--list-columns` prints these).
#[derive(Clone, Copy, Debug)]
pub struct Column {
    pub name: &'static str,
    pub kind: Kind,
    pub meaning: &'static str,
}

impl Column {
    /// A column of a constant catalogue.
    pub const fn new(name: &'static str, kind: Kind, meaning: &'static str) -> Column {
        Column {
            name,
            kind,
            meaning,
        }
    }
}
