//! Text crosstables: a round robin as a grid (rows and columns in rank order, one cell per
//! pairing and cycle), a Swiss as a table of rounds (opponent's start number, colour, result).
//! Result letters are TRF-16's: `1 = 0` played, `+ -` forfeits, `U` the PAB, `F H Z` byes.

use super::format_value;
use super::model::{Colour, Kind, Player, RoundOutcome, Tournament};
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

/// The columns of title, federation and FIDE id, each shown when some player has it (from a
/// TRF's player lines or the games' tags).
struct Identity {
    title: bool,
    federation: bool,
    fide_id: bool,
}

impl Identity {
    fn of(t: &Tournament) -> Identity {
        let any = |f: fn(&Player) -> &str| t.players.iter().any(|p| !f(p).is_empty());
        Identity {
            title: any(|p| &p.title),
            federation: any(|p| &p.federation),
            fide_id: any(|p| &p.fide_id),
        }
    }

    /// The start of a row: rank, start number, title, name, federation, rating, FIDE id.
    fn lead(&self, cells: [&str; 7], names: usize) -> String {
        let [rank, sno, title, name, federation, rating, fide_id] = cells;
        let mut out = format!("{rank:>3} {sno:>4} ");
        if self.title {
            out.push_str(&format!("{title:<3} "));
        }
        out.push_str(&name_cell(name, names));
        if self.federation {
            out.push_str(&format!(" {federation:<3}"));
        }
        out.push_str(&format!(" {rating:>4}"));
        if self.fide_id {
            out.push_str(&format!(" {fide_id:>9}"));
        }
        out
    }

    fn header(&self, names: usize) -> String {
        self.lead(["Rk", "SNo", "Ti", "Name", "Fed", "Rtg", "FIDE id"], names)
    }

    fn row(&self, rank: u32, p: &Player, names: usize) -> String {
        let rating = p.rating.map(|r| r.to_string()).unwrap_or_default();
        self.lead(
            [
                &rank.to_string(),
                &p.sno.to_string(),
                &p.title,
                &p.name,
                &p.federation,
                &rating,
                &p.fide_id,
            ],
            names,
        )
    }
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
    // Each column holds one result per cycle, and its header the column's number: past 9
    // players the numbers need the room (`  9 10 11`, not `910 11`).
    let cell = cycles.max(n.to_string().len()) + 1;
    let ids = Identity::of(t);
    let mut out = header(t, s);
    out.push_str(&ids.header(w));
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
        out.push_str(&ids.row(row.rank, p, w));
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
    let ids = Identity::of(t);
    let mut out = header(t, s);
    out.push_str(&ids.header(w));
    out.push_str(&format!(" {:>5}", "Pts"));
    for r in 1..=t.rounds {
        out.push_str(&format!("{:>cell$}", format!("R{r}")));
    }
    out.push_str(&tiebreak_header(s));
    out.push('\n');
    for row in &s.rows {
        let p = &t.players[row.player];
        out.push_str(&ids.row(row.rank, p, w));
        out.push_str(&format!(" {:>5}", row.points.to_string()));
        for r in &p.rounds {
            out.push_str(&format!("{:>cell$}", swiss_cell(t, r)));
        }
        out.push_str(&tiebreak_cells(s, &row.values));
        out.push('\n');
    }
    out
}
