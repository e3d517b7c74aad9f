//! A dossier as one self-contained HTML page: inline CSS and SVG, no script and nothing fetched,
//! so it opens the same offline. A rating-history line chart and, beside it, an accuracy-by-year
//! one (the same drawing), score-by-year bars with their 95 % intervals, the results tables, the
//! opening table and the analysis section.

use super::analysis::AnalysisOut;
use super::report::{Line, OpeningLine, Report};
use super::tournament::event::PlayerEvent;
use std::fmt::Write as _;

/// Text safe inside HTML elements and attributes.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const CSS: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;\
max-width:1100px;color:#1d2330;background:#fafafa;padding:0 1em}\
h1{margin-bottom:.2em}h2{margin-top:1.6em;border-bottom:2px solid #d8dce6;padding-bottom:.2em}\
.sub{color:#5a6375}.cards{display:flex;gap:1em;flex-wrap:wrap;margin:1em 0}\
.card{background:#fff;border:1px solid #d8dce6;border-radius:8px;padding:.7em 1.1em;min-width:9em}\
.card b{display:block;font-size:1.6em}table{border-collapse:collapse;background:#fff;margin:.5em 0}\
th,td{border:1px solid #d8dce6;padding:.25em .6em}td.n{text-align:right;font-variant-numeric:tabular-nums}\
th{background:#eef1f6}svg{background:#fff;border:1px solid #d8dce6;border-radius:8px;max-width:100%;height:auto}\
.axis{stroke:#8a93a6;stroke-width:1}.grid{stroke:#e6e9ef;stroke-width:1}\
.line{fill:none;stroke:#2f6fd6;stroke-width:2}.dot{fill:#2f6fd6}.bar{fill:#46a86b}\
.err{stroke:#1d2330;stroke-width:1.5}.lbl{font-size:11px;fill:#5a6375}\
.charts{display:flex;flex-wrap:wrap;gap:0 1.5em}.charts>section{flex:1 1 420px;min-width:0}\
.charts svg{width:100%}";

/// Chart area of the charts at full width.
const W: f64 = 1000.0;
/// Width of each of two charts side by side (the rating and the accuracy charts): on a narrow
/// page they shrink, and below two of `.charts>section`'s 420 px they stack.
const HALF_W: f64 = 520.0;
const H: f64 = 300.0;
const PAD_L: f64 = 55.0;
const PAD_B: f64 = 40.0;
const PAD_T: f64 = 15.0;
const PAD_R: f64 = 15.0;

/// The rating history from the tags: a line over the months, the scale rounded out to 50;
/// `width` wide.
fn rating_chart(r: &Report, width: f64, out: &mut String) {
    let pts = &r.rating_history;
    if pts.is_empty() {
        out.push_str("<p class=\"sub\">No rating tags in the selection.</p>\n");
        return;
    }
    let lo = pts.iter().map(|p| p.rating).min().unwrap_or(0);
    let hi = pts.iter().map(|p| p.rating).max().unwrap_or(0);
    // Round the scale out to 50 points, with room when the rating never moved.
    let lo = (lo - 25).div_euclid(50) * 50;
    let hi = (hi + 74).div_euclid(50) * 50;
    let step = ((hi - lo) / 6).max(50) / 50 * 50;
    let points: Vec<(String, f64, String)> = pts
        .iter()
        .map(|p| {
            let tip = format!("{} {}", p.period, p.rating);
            (p.period.clone(), p.rating as f64, tip)
        })
        .collect();
    let scale = Scale {
        lo: lo as f64,
        hi: hi as f64,
        step: step as f64,
    };
    line_chart("rating-chart", "rating history", &points, scale, width, out);
}

/// A line chart's vertical scale: its ends and the step of its grid lines.
#[derive(Debug, Clone, Copy)]
struct Scale {
    lo: f64,
    hi: f64,
    step: f64,
}

/// A line chart of `points` (label under the axis, value, tooltip) in order along the x axis,
/// with grid lines every `scale.step`, `w` wide; at most `w / 100` labels under the axis.
fn line_chart(
    id: &str,
    label: &str,
    points: &[(String, f64, String)],
    scale: Scale,
    w: f64,
    out: &mut String,
) {
    let Scale { lo, hi, step } = scale;
    let span = (hi - lo).max(1.0);
    let x = |i: usize| {
        PAD_L
            + if points.len() == 1 {
                (w - PAD_L - PAD_R) / 2.0
            } else {
                i as f64 * (w - PAD_L - PAD_R) / (points.len() - 1) as f64
            }
    };
    let y = |v: f64| PAD_T + (hi - v) * (H - PAD_T - PAD_B) / span;
    let _ = writeln!(
        out,
        "<svg id=\"{id}\" viewBox=\"0 0 {w} {H}\" width=\"{w}\" height=\"{H}\" role=\"img\" aria-label=\"{label}\">"
    );
    let mut v = lo;
    while v <= hi {
        let yy = y(v);
        let _ = writeln!(
            out,
            "<line class=\"grid\" x1=\"{PAD_L}\" x2=\"{}\" y1=\"{yy:.1}\" y2=\"{yy:.1}\"/><text class=\"lbl\" x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{v}</text>",
            w - PAD_R,
            PAD_L - 6.0,
            yy + 4.0
        );
        v += step;
    }
    let _ = writeln!(
        out,
        "<line class=\"axis\" x1=\"{PAD_L}\" x2=\"{PAD_L}\" y1=\"{PAD_T}\" y2=\"{}\"/><line class=\"axis\" x1=\"{PAD_L}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>",
        H - PAD_B,
        w - PAD_R,
        H - PAD_B,
        H - PAD_B
    );
    let path: Vec<String> = points
        .iter()
        .enumerate()
        .map(|(i, p)| format!("{:.1},{:.1}", x(i), y(p.1)))
        .collect();
    let _ = writeln!(
        out,
        "<polyline class=\"line\" points=\"{}\"/>",
        path.join(" ")
    );
    let label_every = points.len().div_ceil((w / 100.0) as usize).max(1);
    let last = points.len().saturating_sub(1);
    for (i, (key, value, tip)) in points.iter().enumerate() {
        let _ = writeln!(
            out,
            "<circle class=\"dot\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\"><title>{}</title></circle>",
            x(i),
            y(*value),
            escape(tip)
        );
        // Every `label_every`-th label and the last, but none so close before the last that
        // the two would overlap.
        if (i % label_every == 0 && last - i >= label_every) || i == last {
            // The last label ends at its point, so that it stays inside the chart.
            let anchor = if i + 1 == points.len() && i > 0 {
                "end"
            } else {
                "middle"
            };
            let _ = writeln!(
                out,
                "<text class=\"lbl\" x=\"{:.1}\" y=\"{}\" text-anchor=\"{anchor}\">{}</text>",
                x(i),
                H - PAD_B + 16.0,
                escape(key)
            );
        }
    }
    out.push_str("</svg>\n");
}

/// Accuracy by year over the analysed games, on the rating chart's drawing: dated years
/// with an accuracy only, the scale rounded out to 10 within 0-100; `width` wide.
fn accuracy_chart(a: &AnalysisOut, width: f64, out: &mut String) {
    let points: Vec<(String, f64, String)> = a
        .by_year
        .iter()
        .filter(|f| f.key != "unknown")
        .filter_map(|f| {
            let acc = f.accuracy?;
            let tip = format!(
                "{}: accuracy {acc:.1} in {} analysed games{}",
                f.key,
                f.games,
                f.acpl.map_or(String::new(), |c| format!(", ACPL {c:.1}"))
            );
            Some((f.key.clone(), acc, tip))
        })
        .collect();
    if points.is_empty() {
        out.push_str("<p class=\"sub\">No dated analysed game.</p>\n");
        return;
    }
    let lo = points.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let hi = points.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
    let scale = Scale {
        lo: ((lo - 5.0) / 10.0).floor().max(0.0) * 10.0,
        hi: ((hi + 5.0) / 10.0).ceil().min(10.0) * 10.0,
        step: 10.0,
    };
    line_chart(
        "accuracy-chart",
        "accuracy by year",
        &points,
        scale,
        width,
        out,
    );
}

/// The analysis section: what was analysed and by which engine, the figures by colour, time
/// control and year (and phase, when stored), the best and the worst games.
fn analysis_section(a: &AnalysisOut, out: &mut String) {
    out.push_str("<h2 id=\"analysis\">Analysis</h2>\n");
    if a.overall.games == 0 {
        let _ = writeln!(
            out,
            "<p class=\"sub\">None of the {} games analysed (<code>arbiter analyse --db DB</code> analyses them).</p>",
            a.of_games
        );
        return;
    }
    let _ = writeln!(
        out,
        "<p>{} of {} games analysed, {} without analysis; by {}. Each game counts with its strongest analysis.</p>",
        a.overall.games,
        a.of_games,
        a.without_analysis,
        escape(&a.engines_text())
    );
    out.push_str("<table id=\"analysis-figures\"><tr><th></th><th>games</th><th>accuracy</th><th>ACPL</th><th>inaccuracies /100</th><th>mistakes /100</th><th>blunders /100</th></tr>\n");
    for (key, f) in a.lines() {
        let _ = write!(out, "<tr><td>{}</td>", escape(&key));
        for c in f.cells() {
            let _ = write!(out, "<td class=\"n\">{c}</td>");
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
    for (id, title, games) in [
        ("best-games", "Best games", &a.best),
        ("worst-games", "Worst games", &a.worst),
    ] {
        let _ = writeln!(
            out,
            "<h3>{title} by accuracy</h3>\n<table id=\"{id}\"><tr><th>game</th><th>colour</th><th>opponent</th><th>date</th><th>event</th><th>accuracy</th><th>ACPL</th></tr>"
        );
        for g in games.iter() {
            let _ = writeln!(
                out,
                "<tr><td class=\"n\">#{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{:.1}</td><td class=\"n\">{}</td></tr>",
                g.game_id,
                g.colour.name(),
                escape(g.opponent.as_deref().unwrap_or("?")),
                escape(&g.date),
                escape(g.event.as_deref().unwrap_or("")),
                g.accuracy,
                g.acpl.map_or("-".to_owned(), |v| v.to_string())
            );
        }
        out.push_str("</table>\n");
    }
}

fn year_bars(r: &Report, out: &mut String) {
    let years: Vec<&Line> = r.by_year.iter().filter(|l| l.games > 0).collect();
    if years.is_empty() {
        out.push_str("<p class=\"sub\">No finished games.</p>\n");
        return;
    }
    let _ = writeln!(
        out,
        "<svg id=\"year-chart\" viewBox=\"0 0 {W} {H}\" width=\"{W}\" height=\"{H}\" role=\"img\" aria-label=\"score by year\">"
    );
    let y = |pct: f64| PAD_T + (100.0 - pct) * (H - PAD_T - PAD_B) / 100.0;
    for pct in [0.0, 25.0, 50.0, 75.0, 100.0] {
        let yy = y(pct);
        let _ = writeln!(
            out,
            "<line class=\"grid\" x1=\"{PAD_L}\" x2=\"{}\" y1=\"{yy:.1}\" y2=\"{yy:.1}\"/><text class=\"lbl\" x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{pct}%</text>",
            W - PAD_R,
            PAD_L - 6.0,
            yy + 4.0
        );
    }
    let slot = (W - PAD_L - PAD_R) / years.len() as f64;
    let label_every = years.len().div_ceil(25).max(1);
    for (i, l) in years.iter().enumerate() {
        let pct = l.score_pct.unwrap_or(0.0);
        let x = PAD_L + i as f64 * slot + slot * 0.15;
        let w = slot * 0.7;
        let _ = writeln!(
            out,
            "<rect class=\"bar\" x=\"{x:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"{:.1}\"><title>{}: {} in {} games ({:.1}%)</title></rect>",
            y(pct),
            y(0.0) - y(pct),
            escape(&l.key),
            l.score,
            l.games,
            pct
        );
        if let (Some(lo), Some(hi)) = (l.score_low_pct, l.score_high_pct) {
            let cx = x + w / 2.0;
            let _ = writeln!(
                out,
                "<line class=\"err\" x1=\"{cx:.1}\" x2=\"{cx:.1}\" y1=\"{:.1}\" y2=\"{:.1}\"/>",
                y(lo),
                y(hi)
            );
        }
        if i % label_every == 0 {
            let _ = writeln!(
                out,
                "<text class=\"lbl\" x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                x + w / 2.0,
                H - PAD_B + 16.0,
                escape(&l.key)
            );
        }
    }
    out.push_str("</svg>\n");
}

fn cells(l: &Line) -> String {
    let pct = |v: Option<f64>| v.map_or("-".to_owned(), |v| format!("{v:.1}"));
    format!(
        "<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}–{}</td>",
        l.games,
        l.wins,
        l.draws,
        l.losses,
        l.unfinished,
        l.score,
        pct(l.score_pct),
        pct(l.score_low_pct),
        pct(l.score_high_pct)
    )
}

const HEAD: &str = "<th>games</th><th>won</th><th>drawn</th><th>lost</th><th>unfinished</th><th>score</th><th>%</th><th>95% interval</th>";

fn lines_table(id: &str, first: &str, lines: &[Line], out: &mut String) {
    let _ = writeln!(out, "<table id=\"{id}\"><tr><th>{first}</th>{HEAD}</tr>");
    for l in lines {
        let _ = writeln!(out, "<tr><td>{}</td>{}</tr>", escape(&l.key), cells(l));
    }
    out.push_str("</table>\n");
}

fn openings_table(lines: &[OpeningLine], out: &mut String) {
    let _ = writeln!(
        out,
        "<table id=\"openings\"><tr><th>opening</th><th>colour</th>{HEAD}</tr>"
    );
    for o in lines.iter().take(40) {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td>{}</tr>",
            escape(&o.line.key),
            o.colour,
            cells(&o.line)
        );
    }
    out.push_str("</table>\n");
}

/// The events of the selected games, each as a tournament: year, event, site, score of games,
/// TPR and the place when the event is complete enough to give one.
fn events_table(events: &[PlayerEvent], out: &mut String) {
    out.push_str("<table id=\"events\"><tr><th>year</th><th>event</th><th>site</th><th>score</th><th>games</th><th>TPR</th><th>place</th></tr>\n");
    for e in events {
        let _ = writeln!(
            out,
            "<tr><td class=\"n\">{}</td><td>{}</td><td>{}</td><td class=\"n\">{:.1}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            e.year.map_or("?".to_owned(), |y| y.to_string()),
            escape(&e.event),
            escape(&e.site),
            e.score,
            e.games,
            e.tpr.map_or("-".to_owned(), |t| t.to_string()),
            e.place
                .map_or("-".to_owned(), |p| format!("{p} of {}", e.players))
        );
    }
    out.push_str("</table>\n");
}

/// The whole page; `events` are the events of the selected games (none: no section).
pub fn page(r: &Report, events: &[PlayerEvent]) -> String {
    let mut out = String::new();
    let name = escape(&r.player);
    let _ = writeln!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{name}: arbiter dossier</title><style>{CSS}</style></head><body>"
    );
    let _ = writeln!(out, "<h1>{name}</h1>");
    let spellings: Vec<String> = r
        .spellings
        .iter()
        .map(|s| format!("{} ({})", escape(&s.key), s.games))
        .collect();
    let _ = writeln!(
        out,
        "<p class=\"sub\">{}spellings: {} · games {} to {}</p>",
        r.fide_id.map_or(String::new(), |f| format!("FIDE {f} · ")),
        spellings.join(", "),
        escape(r.first_date.as_deref().unwrap_or("?")),
        escape(r.last_date.as_deref().unwrap_or("?"))
    );
    let perf = r.performance.as_ref();
    let _ = writeln!(
        out,
        "<div class=\"cards\"><div class=\"card\">games<b>{}</b></div><div class=\"card\">+ / = / −<b>{} / {} / {}</b></div><div class=\"card\">score<b>{} ({})</b></div><div class=\"card\">performance (FIDE)<b>{}</b></div><div class=\"card\">average opponent<b>{}</b></div><div class=\"card\">unfinished<b>{}</b></div></div>",
        r.games,
        r.wins,
        r.draws,
        r.losses,
        r.score,
        r.score_pct.map_or("-".to_owned(), |p| format!("{p:.1}%")),
        perf.map_or("-".to_owned(), |p| p.fide.to_string()),
        perf.map_or("-".to_owned(), |p| format!("{:.0}", p.average_opponent)),
        r.unfinished
    );
    if let Some(p) = perf {
        let _ = writeln!(
            out,
            "<p>Performance over {} games against rated opponents: FIDE table 8.1.1 <b>{}</b>, linear <b>{:.0}</b>, perfect <b>{:.0}</b>.{}</p>",
            p.games,
            p.fide,
            p.linear,
            p.perfect,
            p.expected.as_ref().map_or(String::new(), |e| format!(
                " Expected score {:.1}, actual {} in {} games (95% Wilson interval {:.1}–{:.1}): {}.",
                e.expected,
                e.actual,
                e.games,
                e.low,
                e.high,
                if e.significant { "unlikely to be chance" } else { "within chance" }
            ))
        );
    }
    // With analysed games, the accuracy by year beside the rating history (stacked on a
    // narrow page); without, the rating history alone at full width.
    match r.analysis.as_ref().filter(|a| a.overall.games > 0) {
        Some(a) => {
            out.push_str(
                "<div class=\"charts\"><section>\n<h2>Rating history (from the tags)</h2>\n",
            );
            rating_chart(r, HALF_W, &mut out);
            out.push_str("</section><section>\n<h2>Accuracy by year (analysed games)</h2>\n");
            accuracy_chart(a, HALF_W, &mut out);
            out.push_str("</section></div>\n");
        }
        None => {
            out.push_str("<h2>Rating history (from the tags)</h2>\n");
            rating_chart(r, W, &mut out);
        }
    }
    out.push_str("<h2>Score by year</h2>\n");
    year_bars(r, &mut out);
    out.push_str("<h2>By colour</h2>\n");
    lines_table(
        "colours",
        "colour",
        &[r.white.clone(), r.black.clone()],
        &mut out,
    );
    out.push_str("<h2>Openings</h2>\n");
    openings_table(&r.openings.named, &mut out);
    out.push_str("<h2>By time control</h2>\n");
    lines_table("time-controls", "class", &r.by_time_control, &mut out);
    out.push_str("<h2>Most frequent opponents</h2>\n");
    lines_table("opponents", "opponent", &r.opponents, &mut out);
    if let Some(a) = &r.analysis {
        analysis_section(a, &mut out);
    }
    if !events.is_empty() {
        out.push_str("<h2>Events</h2>\n<p class=\"sub\">Score and TPR (over rated opponents) in each event; the place with the default tie-breaks when the stored games are enough of the event.</p>\n");
        events_table(events, &mut out);
    }
    let _ = writeln!(
        out,
        "<p class=\"sub\">Made by arbiter stats. Intervals are 95% Wilson score intervals on the score fraction (each game one trial; draws make them cautious).</p></body></html>"
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape("<a href=\"x\">R&D's</a>"),
            "&lt;a href=&quot;x&quot;&gt;R&amp;D&#39;s&lt;/a&gt;"
        );
    }
}
