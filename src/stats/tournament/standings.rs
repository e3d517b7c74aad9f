//! Final standings (C.07 Art. 4.2): points first, then each tie-break in the order given,
//! moving to the next only while a tie persists. Participants still equal on everything share
//! their rank and are listed by start number.

use super::model::{Kind, Points, Tournament};
use super::tiebreaks::{self, Context, Rules, Spec};

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

/// The column names of a table row: `sno,name,rank,pts`, then each tie-break as it was asked
/// for.
pub fn columns(s: &Standings) -> Vec<String> {
    let mut out: Vec<String> = ["sno", "name", "rank", "pts"].map(String::from).to_vec();
    out.extend(s.specs.iter().map(|x| x.text.clone()));
    out
}

/// The standings as CSV, header first.
pub fn write_csv(
    t: &Tournament,
    s: &Standings,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record(columns(s))?;
    for row in &s.rows {
        let p = &t.players[row.player];
        let mut record = vec![
            p.sno.to_string(),
            p.name.clone(),
            row.rank.to_string(),
            row.points.to_string(),
        ];
        for (spec, v) in s.specs.iter().zip(&row.values) {
            record.push(super::format_value(*v, spec.acronym.decimals()));
        }
        w.write_record(&record)?;
    }
    w.flush()
}

/// The standings as JSON lines, keys in column order; a tie-break without a value is `null`.
pub fn write_jsonl(
    t: &Tournament,
    s: &Standings,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let names = columns(s);
    for row in &s.rows {
        let p = &t.players[row.player];
        let mut fields = vec![
            serde_json::json!(p.sno),
            serde_json::json!(p.name),
            serde_json::json!(row.rank),
            serde_json::json!(row.points.as_f64()),
        ];
        for v in &row.values {
            fields.push(match v {
                Some(x) => serde_json::json!(x),
                None => serde_json::Value::Null,
            });
        }
        let body: Vec<String> = names
            .iter()
            .zip(&fields)
            .map(|(k, v)| format!("{}:{}", serde_json::Value::String(k.clone()), v))
            .collect();
        writeln!(out, "{{{}}}", body.join(","))?;
    }
    Ok(())
}
