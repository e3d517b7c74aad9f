//! The standings and crosstable as one self-contained HTML page: inline CSS and a few lines of
//! inline script that sort the standings by any column when its header is clicked. Nothing is
//! fetched, so the page works offline and without a server.

use super::format_value;
use super::model::{Kind, Player, Tournament};
use super::standings::Standings;
use crate::stats::html::escape;

const CSS: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;\
max-width:1200px;color:#1d2330;background:#fafafa;padding:0 1em}h1{margin-bottom:.2em}\
.sub{color:#5a6375}table{border-collapse:collapse;background:#fff;margin:.8em 0}\
th,td{border:1px solid #d8dce6;padding:.25em .5em}td.n{text-align:right;font-variant-numeric:tabular-nums}\
th{background:#eef1f6}#standings th{cursor:pointer}#standings th:hover{background:#dde3ee}\
td.self{background:#d8dce6}.note{background:#fff6d6;border:1px solid #e6d28a;padding:.4em .7em}";

/// Sorting by a clicked header: numbers numerically (empty cells last), text alphabetically;
/// a second click reverses.
const SCRIPT: &str = "document.querySelectorAll('#standings th').forEach(function(th,col){\
th.addEventListener('click',function(){var tb=th.closest('table').tBodies[0];\
var rows=Array.prototype.slice.call(tb.rows);var asc=th.dataset.dir!=='asc';\
th.parentNode.querySelectorAll('th').forEach(function(h){delete h.dataset.dir});th.dataset.dir=asc?'asc':'desc';\
rows.sort(function(a,b){var x=a.cells[col].textContent,y=b.cells[col].textContent;\
if(x===''&&y!=='')return 1;if(y===''&&x!=='')return -1;var nx=parseFloat(x),ny=parseFloat(y);\
var c=(!isNaN(nx)&&!isNaN(ny))?nx-ny:x.localeCompare(y);return asc?c:-c;});\
rows.forEach(function(r){tb.appendChild(r)});});});";

/// The page; `notes` (what was left out, how much of the event is stored) go under the title.
pub fn page(t: &Tournament, s: &Standings, notes: &[String]) -> String {
    let title = if t.name.is_empty() {
        "Tournament".to_owned()
    } else {
        t.name.clone()
    };
    let mut out = String::new();
    out.push_str("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">");
    out.push_str(&format!(
        "<title>{}</title><style>{CSS}</style></head><body>",
        escape(&title)
    ));
    out.push_str(&format!("<h1>{}</h1>", escape(&title)));
    out.push_str(&format!(
        "<p class=\"sub\">{}, {} players, {} rounds; tie-breaks by FIDE C.07 ({} rules). Click a column header to sort.</p>",
        s.kind.name(),
        t.players.len(),
        t.rounds,
        s.rules.year()
    ));
    for note in notes {
        out.push_str(&format!("<p class=\"note\">{}</p>", escape(note.trim())));
    }
    standings_table(t, s, &mut out);
    crosstable(t, s, &mut out);
    out.push_str(&format!("<script>{SCRIPT}</script></body></html>\n"));
    out
}

/// A player's field, read for a column.
type Field = fn(&Player) -> &str;

/// The columns the standings show when some player has them.
const IDENTITY: [(&str, Field); 3] = [
    ("Title", |p| p.title.as_str()),
    ("Fed", |p| p.federation.as_str()),
    ("FIDE ID", |p| p.fide_id.as_str()),
];

/// The standings: rank, start number, name, (title, federation, FIDE id when some player has
/// them,) rating, points and each tie-break, sortable.
fn standings_table(t: &Tournament, s: &Standings, out: &mut String) {
    let extra: Vec<(&str, Field)> = IDENTITY
        .into_iter()
        .filter(|(_, f)| t.players.iter().any(|p| !f(p).is_empty()))
        .collect();
    out.push_str("<h2>Standings</h2><table id=\"standings\"><thead><tr><th>Rank</th><th>SNo</th><th>Name</th>");
    for (head, _) in &extra {
        out.push_str(&format!("<th>{head}</th>"));
    }
    out.push_str("<th>Rating</th><th>Pts</th>");
    for spec in &s.specs {
        out.push_str(&format!("<th>{}</th>", escape(&spec.text)));
    }
    out.push_str("</tr></thead><tbody>");
    for row in &s.rows {
        let p = &t.players[row.player];
        out.push_str(&format!(
            "<tr><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td>",
            row.rank,
            p.sno,
            escape(&p.name)
        ));
        for (_, f) in &extra {
            out.push_str(&format!("<td>{}</td>", escape(f(p))));
        }
        out.push_str(&format!(
            "<td class=\"n\">{}</td><td class=\"n\">{}</td>",
            p.rating.map(|r| r.to_string()).unwrap_or_default(),
            row.points
        ));
        for (spec, v) in s.specs.iter().zip(&row.values) {
            out.push_str(&format!(
                "<td class=\"n\">{}</td>",
                format_value(*v, spec.acronym.decimals())
            ));
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>");
}

/// The crosstable: a grid in rank order for a round robin, the rounds for a Swiss (opponents
/// by start number, which the SNo column gives, as chess-results does).
fn crosstable(t: &Tournament, s: &Standings, out: &mut String) {
    out.push_str(
        "<h2>Crosstable</h2><table id=\"crosstable\"><thead><tr><th>Rank</th><th>SNo</th><th>Name</th>",
    );
    let n = t.players.len();
    match s.kind {
        Kind::RoundRobin => {
            for k in 1..=n {
                out.push_str(&format!("<th>{k}</th>"));
            }
        }
        Kind::Swiss => {
            for r in 1..=t.rounds {
                out.push_str(&format!("<th>R{r}</th>"));
            }
        }
    }
    out.push_str("<th>Pts</th></tr></thead><tbody>");
    let mut position = vec![0usize; n];
    for (k, row) in s.rows.iter().enumerate() {
        position[row.player] = k;
    }
    for (k, row) in s.rows.iter().enumerate() {
        let p = &t.players[row.player];
        out.push_str(&format!(
            "<tr><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td>",
            row.rank,
            p.sno,
            escape(&p.name)
        ));
        match s.kind {
            Kind::RoundRobin => {
                let mut cells = vec![String::new(); n];
                for r in &p.rounds {
                    if let Some(o) = r.opponent {
                        cells[position[o]].push(r.outcome.trf());
                    }
                }
                for (j, c) in cells.iter().enumerate() {
                    if j == k {
                        out.push_str("<td class=\"self\"></td>");
                    } else {
                        out.push_str(&format!("<td class=\"n\">{}</td>", escape(c)));
                    }
                }
            }
            Kind::Swiss => {
                for r in &p.rounds {
                    let text = match r.opponent {
                        Some(o) => {
                            format!("{}{}{}", t.players[o].sno, r.colour.trf(), r.outcome.trf())
                        }
                        None => r.outcome.trf().to_string(),
                    };
                    out.push_str(&format!("<td class=\"n\">{}</td>", escape(text.trim())));
                }
            }
        }
        out.push_str(&format!("<td class=\"n\">{}</td></tr>", row.points));
    }
    out.push_str("</tbody></table>");
}
