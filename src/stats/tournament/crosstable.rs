//! Text crosstables: a round robin as a grid (rows and columns in rank order, one cell per
//! pairing and cycle), a Swiss as a table of rounds (opponent's start number, colour, result).
//! Result letters are TRF-16's: `1 = 0` played, `+ -` forfeits, `U` the PAB, `F H Z` byes.

use super::format_value;
use super::model::{Colour, Kind, RoundOutcome, Tournament};
use super::standings::Standings;

fn header(t: &Tournament, s: &Standings) -> String {
    let mut out = String::new();
    if !t.name.is_empty() {
        out.push_str(&t.name);
        out.push('\n');
    }
    out.push_str(&format!(
        "{}, {} players, {} rounds; tie-breaks: {} (C.07, {} rules)\n\n",
        s.kind.name(),
        t.players.len(),
        t.rounds,
        if s.specs.is_empty() {
            "none".to_owned()
        } else {
            s.specs
                .iter()
                .map(|x| x.text.clone())
                .collect::<Vec<_>>()
                .join(", ")
        },
        s.rules.year()
    ));
    out
}

fn width_of_names(t: &Tournament) -> usize {
    t.players
        .iter()
        .map(|p| p.name.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, 32)
}

fn name_cell(name: &str, width: usize) -> String {
    let cut: String = name.chars().take(width).collect();
    format!("{cut:<width$}")
}

fn tiebreak_header(s: &Standings) -> String {
    s.specs
        .iter()
        .map(|x| format!(" {:>7}", x.text))
        .collect::<String>()
}

fn tiebreak_cells(s: &Standings, values: &[Option<f64>]) -> String {
    s.specs
        .iter()
        .zip(values)
        .map(|(x, v)| format!(" {:>7}", format_value(*v, x.acronym.decimals())))
        .collect::<String>()
}

/// The crosstable for the standings' kind.
pub fn render(t: &Tournament, s: &Standings) -> String {
    match s.kind {
        Kind::RoundRobin => grid(t, s),
        Kind::Swiss => swiss(t, s),
    }
}

/// Round-robin grid.
pub fn grid(t: &Tournament, s: &Standings) -> String {
    let n = t.players.len();
    let cycles = if t.rounds > n { 2 } else { 1 }.max(1);
    let w = width_of_names(t);
    // Position of each player in rank order: the grid's columns.
    let mut position = vec![0usize; n];
    for (k, row) in s.rows.iter().enumerate() {
        position[row.player] = k;
    }
    let cell = cycles.max(1) + 1;
    let mut out = header(t, s);
    out.push_str(&format!(
        "{:>3} {:>4} {} {:>4}",
        "Rk",
        "SNo",
        name_cell("Name", w),
        "Rtg"
    ));
    for k in 1..=n {
        out.push_str(&format!("{k:>cell$}"));
    }
    out.push_str(&format!(" {:>5}", "Pts"));
    out.push_str(&tiebreak_header(s));
    out.push('\n');
    for (k, row) in s.rows.iter().enumerate() {
        let p = &t.players[row.player];
        let mut cells = vec![String::new(); n];
        for r in &p.rounds {
            if let Some(o) = r.opponent {
                cells[position[o]].push(r.outcome.trf());
            }
        }
        cells[k] = "*".repeat(cycles);
        out.push_str(&format!(
            "{:>3} {:>4} {} {:>4}",
            row.rank,
            p.sno,
            name_cell(&p.name, w),
            p.rating.map(|r| r.to_string()).unwrap_or_default()
        ));
        for c in &cells {
            let c = if c.is_empty() {
                ".".to_owned()
            } else {
                c.clone()
            };
            out.push_str(&format!("{c:>cell$}"));
        }
        out.push_str(&format!(" {:>5}", row.points.to_string()));
        out.push_str(&tiebreak_cells(s, &row.values));
        out.push('\n');
    }
    out
}

/// One Swiss round cell: `12w1`, `7b=`, `3w+`, `U`, `H`, blank when absent.
fn swiss_cell(t: &Tournament, r: &super::model::Round) -> String {
    match (r.opponent, r.outcome) {
        (_, RoundOutcome::Absent) => "-".to_owned(),
        (Some(o), outcome) => {
            let colour = match r.colour {
                Colour::None => '-',
                c => c.trf(),
            };
            format!("{}{}{}", t.players[o].sno, colour, outcome.trf())
        }
        (None, outcome) => outcome.trf().to_string(),
    }
}

/// Swiss table of rounds.
pub fn swiss(t: &Tournament, s: &Standings) -> String {
    let w = width_of_names(t);
    let cell = t
        .players
        .iter()
        .flat_map(|p| p.rounds.iter().map(|r| swiss_cell(t, r).len()))
        .max()
        .unwrap_or(3)
        .max(3)
        + 1;
    let mut out = header(t, s);
    out.push_str(&format!(
        "{:>3} {:>4} {} {:>4} {:>5}",
        "Rk",
        "SNo",
        name_cell("Name", w),
        "Rtg",
        "Pts"
    ));
    for r in 1..=t.rounds {
        out.push_str(&format!("{:>cell$}", format!("R{r}")));
    }
    out.push_str(&tiebreak_header(s));
    out.push('\n');
    for row in &s.rows {
        let p = &t.players[row.player];
        out.push_str(&format!(
            "{:>3} {:>4} {} {:>4} {:>5}",
            row.rank,
            p.sno,
            name_cell(&p.name, w),
            p.rating.map(|r| r.to_string()).unwrap_or_default(),
            row.points.to_string()
        ));
        for r in &p.rounds {
            out.push_str(&format!("{:>cell$}", swiss_cell(t, r)));
        }
        out.push_str(&tiebreak_cells(s, &row.values));
        out.push('\n');
    }
    out
}
