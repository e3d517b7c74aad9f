//! Final standings (C.07 Art. 4.2): points first, then each tie-break in the order given,
//! moving to the next only while a tie persists. Participants still equal on everything share
//! their rank and are listed by start number.

use super::model::{Kind, Points, Tournament};
use super::tiebreaks::{self, Context, Rules, Spec};
use crate::table::{Cell, Column, Kind as ColumnKind};

/// One line of the standings.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Index into `Tournament::players`.
    pub player: usize,
    pub rank: u32,
    pub points: Points,
    /// One value per requested tie-break, in the order asked.
    pub values: Vec<Option<f64>>,
}

#[derive(Debug, Clone)]
pub struct Standings {
    pub rules: Rules,
    pub kind: Kind,
    pub specs: Vec<Spec>,
    /// In rank order.
    pub rows: Vec<Row>,
}

impl Standings {
    /// Rank of each player by index.
    pub fn ranks(&self) -> Vec<u32> {
        let mut out = vec![0; self.rows.len()];
        for row in &self.rows {
            out[row.player] = row.rank;
        }
        out
    }
}

/// Compares two optional values for the tie-break `spec`: better first, no value last.
fn better(a: Option<f64>, b: Option<f64>, descending: bool) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Greater,
        (Some(_), None) => Ordering::Less,
        (Some(x), Some(y)) => {
            if descending {
                y.total_cmp(&x)
            } else {
                x.total_cmp(&y)
            }
        }
    }
}

/// Shared ranks of `order` (player indexes, best first) under `equal`.
fn assign_ranks(order: &[usize], ranks: &mut [u32], equal: impl Fn(usize, usize) -> bool) {
    for (pos, &i) in order.iter().enumerate() {
        ranks[i] = if pos > 0 && equal(order[pos - 1], i) {
            ranks[order[pos - 1]]
        } else {
            pos as u32 + 1
        };
    }
}

/// Computes the tie-breaks one after the other, each seeing the standing the earlier ones
/// made (DE needs it), and returns the final standings.
pub fn compute(
    t: &Tournament,
    specs: &[Spec],
    rules: Rules,
    kind: Kind,
    unrated: Option<u16>,
) -> Standings {
    let ctx = Context {
        t,
        rules,
        kind,
        unrated,
    };
    let n = t.players.len();
    let points: Vec<Points> = t.players.iter().map(|p| p.points()).collect();
    let mut columns: Vec<Vec<Option<f64>>> = Vec::with_capacity(specs.len());
    let mut order: Vec<usize> = (0..n).collect();
    let sort = |order: &mut Vec<usize>, columns: &[Vec<Option<f64>>]| {
        order.sort_by(|&a, &b| {
            let mut c = points[b].cmp(&points[a]);
            for (k, col) in columns.iter().enumerate() {
                c = c.then_with(|| better(col[a], col[b], specs[k].acronym.descending()));
            }
            c.then(t.players[a].sno.cmp(&t.players[b].sno))
        });
    };
    let mut ranks = vec![0u32; n];
    sort(&mut order, &columns);
    assign_ranks(&order, &mut ranks, |a, b| points[a] == points[b]);
    for spec in specs {
        let values = tiebreaks::compute(spec, &ctx, &ranks);
        columns.push(values);
        sort(&mut order, &columns);
        let cols = &columns;
        assign_ranks(&order, &mut ranks, |a, b| {
            points[a] == points[b] && cols.iter().all(|c| c[a] == c[b])
        });
    }
    let rows = order
        .iter()
        .map(|&i| Row {
            player: i,
            rank: ranks[i],
            points: points[i],
            values: columns.iter().map(|c| c[i]).collect(),
        })
        .collect();
    Standings {
        rules,
        kind,
        specs: specs.to_vec(),
        rows,
    }
}

/// The columns of the standings table: `sno,name,rank,pts`, then each tie-break named as it
/// was asked for (`BH/C1` stays `BH/C1`).
pub fn columns(s: &Standings) -> Vec<Column> {
    let mut out = vec![
        Column::new("sno", ColumnKind::Int, "the starting number"),
        Column::new("name", ColumnKind::Text, "the player's name"),
        Column::new(
            "rank",
            ColumnKind::Int,
            "the final rank (shared when equal on everything)",
        ),
        Column::new("pts", ColumnKind::Float, "points"),
    ];
    out.extend(s.specs.iter().map(|spec| {
        let meaning = "a tie-break (C.07), in the order given";
        Column::new(column_name(&spec.text), ColumnKind::Float, meaning)
    }));
    out
}

/// A tie-break's name as asked for, as the `&'static str` a [`Column`] holds (the column
/// catalogues are constants): each distinct text is kept once for the whole process, a few
/// short strings at most.
fn column_name(text: &str) -> &'static str {
    use std::collections::BTreeSet;
    use std::sync::{Mutex, PoisonError};
    static NAMES: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let mut names = NAMES.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(name) = names.get(text) {
        return name;
    }
    let name: &'static str = Box::leak(text.into());
    names.insert(name);
    name
}

/// One row of the standings table, in [`columns`]' order: points with one decimal and each
/// tie-break with its own decimals in CSV (`3.5`, `7.50`), numbers in JSON lines and Parquet;
/// a tie-break without a value is null.
pub fn cells<'a>(t: &'a Tournament, s: &Standings, row: &Row) -> Vec<Cell<'a>> {
    let p = &t.players[row.player];
    let mut out = vec![
        Cell::Int(i64::from(p.sno)),
        Cell::text(&p.name),
        Cell::Int(i64::from(row.rank)),
        Cell::Fixed(row.points.as_f64(), 1),
    ];
    for (spec, v) in s.specs.iter().zip(&row.values) {
        out.push(Cell::opt_fixed(*v, spec.acronym.decimals() as u8));
    }
    out
}
