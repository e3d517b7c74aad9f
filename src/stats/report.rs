//! A dossier as people and programs read it: names resolved, tables sorted, each score with its
//! 95 % Wilson interval. One `Report` feeds the text, JSON, CSV and HTML outputs; `LeaderRow`
//! is the one-line-per-person form of the leaderboard.

use super::analysis::{AnalysisOut, Summary};
use super::dossier::{
    ByColour, Dossier, Ending, PLY_BUCKET_WIDTH, PLY_BUCKETS, Stats, Streak, Tally,
};
use super::performance::{Performance, PerformanceInput, wilson};
use super::row::format_date_key;
use crate::db::directory::Directory;
use crate::identity::names::visible;
use crate::table::{Cell, Column, Kind};
use serde::Serialize;
use std::collections::HashMap;
use std::fmt::Write as _;

/// One line of a table: a key and its tally.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Line {
    pub key: String,
    /// Finished games (unfinished ones are counted apart).
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub unfinished: u32,
    pub score: f64,
    /// Score in percent of the finished games, and its 95 % Wilson interval.
    pub score_pct: Option<f64>,
    pub score_low_pct: Option<f64>,
    pub score_high_pct: Option<f64>,
}

impl Line {
    pub fn new(key: impl Into<String>, t: &Tally) -> Line {
        let interval = wilson(t.score(), t.games());
        Line {
            key: key.into(),
            games: t.games(),
            wins: t.wins,
            draws: t.draws,
            losses: t.losses,
            unfinished: t.unfinished,
            score: t.score(),
            score_pct: t.fraction().map(|f| 100.0 * f),
            score_low_pct: interval.map(|i| 100.0 * i.0),
            score_high_pct: interval.map(|i| 100.0 * i.1),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpeningLine {
    pub colour: &'static str,
    #[serde(flatten)]
    pub line: Line,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Openings {
    pub eco: Vec<OpeningLine>,
    pub family: Vec<OpeningLine>,
    pub named: Vec<OpeningLine>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StreakOut {
    pub length: u32,
    pub from: Option<String>,
    pub to: Option<String>,
    pub first_game: Option<i64>,
    pub last_game: Option<i64>,
}

impl From<Streak> for StreakOut {
    fn from(s: Streak) -> StreakOut {
        let some = s.length > 0;
        StreakOut {
            length: s.length,
            from: some.then(|| format_date_key(s.from)),
            to: some.then(|| format_date_key(s.to)),
            first_game: some.then_some(s.first_game),
            last_game: some.then_some(s.last_game),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Streaks {
    pub unbeaten: StreakOut,
    pub winning: StreakOut,
    pub losing: StreakOut,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Count {
    pub key: String,
    pub games: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Laws {
    pub unlawful_result: u32,
    pub on_time: u32,
    pub ended_earlier: u32,
    pub forfeits: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RatingOut {
    /// `YYYY-MM` (`YYYY-??` when the month is unknown).
    pub period: String,
    pub rating: i64,
}

/// Everything about one person, ready to print.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub player: String,
    pub player_id: i64,
    pub fide_id: Option<i64>,
    /// Spellings used in the selection, with their games (finished or not).
    pub spellings: Vec<Count>,
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub unfinished: u32,
    pub score: f64,
    pub score_pct: Option<f64>,
    pub white: Line,
    pub black: Line,
    pub performance: Option<Performance>,
    pub first_date: Option<String>,
    pub last_date: Option<String>,
    pub by_year: Vec<Line>,
    pub by_time_control: Vec<Line>,
    pub by_opponent_rating: Vec<Line>,
    pub openings: Openings,
    pub laws: Laws,
    pub endings: Vec<Count>,
    pub streaks: Streaks,
    pub plies: Vec<Count>,
    pub mean_plies: Option<f64>,
    pub rating_history: Vec<RatingOut>,
    pub opponents: Vec<Line>,
    /// The analysis summary over the selected games (`stats::analysis`).
    pub analysis: Option<AnalysisOut>,
}

fn openings(map: &std::collections::HashMap<u32, [Tally; 2]>, stats: &Stats) -> Vec<OpeningLine> {
    let mut v: Vec<OpeningLine> = map
        .iter()
        .flat_map(|(&k, t)| {
            [("white", &t[0]), ("black", &t[1])]
                .into_iter()
                .filter(|(_, t)| t.games() + t.unfinished > 0)
                .map(move |(colour, t)| OpeningLine {
                    colour,
                    line: Line::new(stats.symbols.name(k), t),
                })
        })
        .collect();
    v.sort_by(|a, b| {
        (b.line.games + b.line.unfinished)
            .cmp(&(a.line.games + a.line.unfinished))
            .then_with(|| a.line.key.cmp(&b.line.key))
            .then_with(|| a.colour.cmp(b.colour))
    });
    v
}

impl Report {
    /// `analysis`: the person's summary over the same selection (`analysis::summarise`).
    pub fn new(
        d: &Dossier,
        stats: &Stats,
        dir: &Directory,
        opponents: usize,
        analysis: Option<&Summary>,
    ) -> Report {
        let person = dir.persons.get(&d.player_id);
        let mut spellings: Vec<Count> = d
            .spellings
            .iter()
            .map(|(&id, &games)| Count {
                key: dir.spelling_name(id).to_owned(),
                games,
            })
            .collect();
        spellings.sort_by(|a, b| b.games.cmp(&a.games).then_with(|| a.key.cmp(&b.key)));
        let year_key = |y: &Option<i32>| y.map_or("unknown".to_owned(), |y| y.to_string());
        let band_key =
            |b: &Option<i64>| b.map_or("unrated".to_owned(), |b| format!("{b}-{}", b + 199));
        let ply_buckets = (0..PLY_BUCKETS)
            .map(|i| {
                let from = i as u32 * PLY_BUCKET_WIDTH;
                let key = if i + 1 == PLY_BUCKETS {
                    format!("{from}+")
                } else {
                    format!("{from}-{}", from + PLY_BUCKET_WIDTH - 1)
                };
                Count {
                    key,
                    games: d.plies[i],
                }
            })
            .collect();
        let all = d.total.games() + d.total.unfinished;
        let dated = |k: u32| (k != 0).then(|| format_date_key(k));
        Report {
            player: dir.person_name(d.player_id).to_owned(),
            player_id: d.player_id,
            fide_id: person.and_then(|p| p.fide_id),
            spellings,
            games: d.total.games(),
            wins: d.total.wins,
            draws: d.total.draws,
            losses: d.total.losses,
            unfinished: d.total.unfinished,
            score: d.total.score(),
            score_pct: d.total.fraction().map(|f| 100.0 * f),
            white: Line::new("white", &d.by_colour[0]),
            black: Line::new("black", &d.by_colour[1]),
            performance: d.performance.summary(),
            first_date: dated(d.first),
            last_date: dated(d.last),
            by_year: d
                .by_year
                .iter()
                .map(|(y, t)| Line::new(year_key(y), t))
                .collect(),
            by_time_control: d
                .by_tc
                .iter()
                .map(|(k, t)| Line::new(k.map_or("unknown", |k| stats.symbols.name(k)), t))
                .collect(),
            by_opponent_rating: d
                .by_band
                .iter()
                .map(|(b, t)| Line::new(band_key(b), t))
                .collect(),
            openings: Openings {
                eco: openings(&d.by_eco, stats),
                family: openings(&d.by_family, stats),
                named: openings(&d.by_opening, stats),
            },
            laws: Laws {
                unlawful_result: d.audit.unlawful_result,
                on_time: d.audit.on_time,
                ended_earlier: d.audit.ended_earlier,
                forfeits: d.forfeits,
            },
            endings: Ending::ALL
                .iter()
                .filter_map(|e| {
                    d.endings.get(e).map(|&games| Count {
                        key: e.name().to_owned(),
                        games,
                    })
                })
                .collect(),
            streaks: Streaks {
                unbeaten: d.streaks.unbeaten().into(),
                winning: d.streaks.winning().into(),
                losing: d.streaks.losing().into(),
            },
            plies: ply_buckets,
            mean_plies: (all > 0).then(|| d.ply_sum as f64 / f64::from(all)),
            rating_history: d
                .rating_history
                .iter()
                .map(|p| RatingOut {
                    period: if p.month == 0 {
                        format!("{:04}-??", p.year)
                    } else {
                        format!("{:04}-{:02}", p.year, p.month)
                    },
                    rating: p.rating,
                })
                .collect(),
            opponents: d
                .top_opponents(opponents)
                .iter()
                .map(|(id, t)| Line::new(dir.person_name(*id), t))
                .collect(),
            analysis: analysis.map(|s| AnalysisOut::new(s, |id| dir.person_name(id))),
        }
    }
}

/// One row of the leaderboard.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LeaderRow {
    pub player_id: i64,
    pub player: String,
    pub fide_id: Option<i64>,
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub unfinished: u32,
    pub score: f64,
    pub score_pct: Option<f64>,
    pub white_games: u32,
    pub white_score: f64,
    pub black_games: u32,
    pub black_score: f64,
    pub rated_games: u32,
    pub average_opponent: Option<f64>,
    pub performance_fide: Option<i64>,
    pub performance_linear: Option<f64>,
    pub performance_perfect: Option<f64>,
    pub expected_score: Option<f64>,
    pub first_date: Option<String>,
    pub last_date: Option<String>,
    /// The analysis summary's (`stats::analysis`): analysed games, mean accuracy, mean
    /// average centipawn loss, blunders per 100 moves.
    pub analysed_games: u32,
    pub accuracy: Option<f64>,
    pub acpl: Option<f64>,
    pub blunder_rate: Option<f64>,
}

impl LeaderRow {
    /// `analysis`: the person's summary over the same selection, if any.
    pub fn new(d: &Dossier, dir: &Directory, analysis: Option<&Summary>) -> LeaderRow {
        LeaderRow::from_parts(
            d.player_id,
            &d.total,
            &d.by_colour,
            &d.performance,
            (d.first, d.last),
            analysis,
            dir,
        )
    }

    /// The row from what it prints: results overall and by colour, the performance input, and
    /// the date keys of the first and last dated games (a dossier's, or `board`'s counters).
    pub fn from_parts(
        player_id: i64,
        total: &Tally,
        by_colour: &ByColour,
        performance: &PerformanceInput,
        (first, last): (u32, u32),
        analysis: Option<&Summary>,
        dir: &Directory,
    ) -> LeaderRow {
        let p = performance.summary();
        let a = analysis.map(|s| &s.all);
        let dated = |k: u32| (k != 0).then(|| format_date_key(k));
        LeaderRow {
            player_id,
            player: dir.person_name(player_id).to_owned(),
            fide_id: dir.persons.get(&player_id).and_then(|p| p.fide_id),
            games: total.games(),
            wins: total.wins,
            draws: total.draws,
            losses: total.losses,
            unfinished: total.unfinished,
            score: total.score(),
            score_pct: total.fraction().map(|f| 100.0 * f),
            white_games: by_colour[0].games(),
            white_score: by_colour[0].score(),
            black_games: by_colour[1].games(),
            black_score: by_colour[1].score(),
            rated_games: p.as_ref().map_or(0, |p| p.games),
            average_opponent: p.as_ref().map(|p| p.average_opponent),
            performance_fide: p.as_ref().map(|p| p.fide),
            performance_linear: p.as_ref().map(|p| p.linear),
            performance_perfect: p.as_ref().map(|p| p.perfect),
            expected_score: p
                .as_ref()
                .and_then(|p| p.expected.as_ref().map(|e| e.expected)),
            first_date: dated(first),
            last_date: dated(last),
            analysed_games: a.map_or(0, |a| a.games),
            accuracy: a.and_then(|a| a.accuracy()),
            acpl: a.and_then(|a| a.acpl()),
            blunder_rate: a.and_then(|a| a.rate(2)),
        }
    }
}

/// The leaderboard's columns, for the export's table formats (CSV, JSON lines, Parquet).
pub const LEADER_COLUMNS: [Column; 26] = [
    col("player_id", Kind::Int, "person (players.id)"),
    col("player", Kind::Text, "the person's canonical name"),
    col("fide_id", Kind::Int, "FIDE id, when known"),
    col("games", Kind::Int, "finished games (unfinished ones apart)"),
    col("wins", Kind::Int, "wins"),
    col("draws", Kind::Int, "draws"),
    col("losses", Kind::Int, "losses"),
    col("unfinished", Kind::Int, "games with * or no result"),
    col("score", Kind::Float, "points"),
    col(
        "score_pct",
        Kind::Float,
        "points in percent of the finished games",
    ),
    col("white_games", Kind::Int, "finished games with White"),
    col("white_score", Kind::Float, "points with White"),
    col("black_games", Kind::Int, "finished games with Black"),
    col("black_score", Kind::Float, "points with Black"),
    col(
        "rated_games",
        Kind::Int,
        "finished games against rated opponents, forfeits left out",
    ),
    col(
        "average_opponent",
        Kind::Float,
        "average rating of those opponents",
    ),
    col(
        "performance_fide",
        Kind::Int,
        "FIDE table 8.1.1 performance",
    ),
    col("performance_linear", Kind::Float, "Ra + 400(W-L)/n"),
    col(
        "performance_perfect",
        Kind::Float,
        "rating whose logistic expected score equals the score",
    ),
    col(
        "expected_score",
        Kind::Float,
        "expected points where both sides were rated",
    ),
    col("first_date", Kind::Text, "first dated game"),
    col("last_date", Kind::Text, "last dated game"),
    col(
        "analysed_games",
        Kind::Int,
        "games with an analysis (each with its strongest)",
    ),
    col(
        "accuracy",
        Kind::Float,
        "mean of the per-game accuracy in the analysed games",
    ),
    col(
        "acpl",
        Kind::Float,
        "mean of the per-game average centipawn loss",
    ),
    col(
        "blunder_rate",
        Kind::Float,
        "blunders per 100 own moves in the analysed games",
    ),
];

const fn col(name: &'static str, kind: Kind, meaning: &'static str) -> Column {
    Column {
        name,
        kind,
        meaning,
    }
}

impl LeaderRow {
    /// The row's cells, in `LEADER_COLUMNS` order.
    pub fn cells(&self) -> Vec<Cell<'_>> {
        let f = |v: Option<f64>| v.map_or(Cell::Null, Cell::Float);
        let u = |v: u32| Cell::Int(i64::from(v));
        vec![
            Cell::Int(self.player_id),
            Cell::text(&self.player),
            Cell::opt_int(self.fide_id),
            u(self.games),
            u(self.wins),
            u(self.draws),
            u(self.losses),
            u(self.unfinished),
            Cell::Float(self.score),
            f(self.score_pct),
            u(self.white_games),
            Cell::Float(self.white_score),
            u(self.black_games),
            Cell::Float(self.black_score),
            u(self.rated_games),
            f(self.average_opponent),
            Cell::opt_int(self.performance_fide),
            f(self.performance_linear),
            f(self.performance_perfect),
            f(self.expected_score),
            Cell::opt_text(self.first_date.as_deref()),
            Cell::opt_text(self.last_date.as_deref()),
            u(self.analysed_games),
            f(self.accuracy),
            f(self.acpl),
            f(self.blunder_rate),
        ]
    }
}

/// Leaderboard orders: most games, most points, best FIDE performance, most analysed games,
/// highest accuracy, lowest average centipawn loss, fewest blunders per 100 moves (a person
/// without the figure last; ties by games, then id).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortBy {
    Games,
    Score,
    Performance,
    Analysed,
    Accuracy,
    Acpl,
    BlunderRate,
}

impl crate::choice::Choice for SortBy {
    const ALL: &'static [SortBy] = &[
        SortBy::Games,
        SortBy::Score,
        SortBy::Performance,
        SortBy::Analysed,
        SortBy::Accuracy,
        SortBy::Acpl,
        SortBy::BlunderRate,
    ];

    fn name(self) -> &'static str {
        match self {
            SortBy::Games => "games",
            SortBy::Score => "score",
            SortBy::Performance => "performance",
            SortBy::Analysed => "analysed",
            SortBy::Accuracy => "accuracy",
            SortBy::Acpl => "acpl",
            SortBy::BlunderRate => "blunder-rate",
        }
    }
}

/// `rows` of every person, sorted; `analysis`: the persons' summaries over the same selection.
pub fn leaderboard(
    stats: &Stats,
    dir: &Directory,
    sort: SortBy,
    analysis: &HashMap<i64, Summary>,
) -> Vec<LeaderRow> {
    let mut rows: Vec<LeaderRow> = stats
        .dossiers
        .values()
        .map(|d| LeaderRow::new(d, dir, analysis.get(&d.player_id)))
        .collect();
    sort_leaderboard(&mut rows, sort);
    rows
}

/// Sorts by the key asked for, then by games (most first) and person id.
pub fn sort_leaderboard(rows: &mut [LeaderRow], sort: SortBy) {
    let tie = |a: &LeaderRow, b: &LeaderRow| {
        b.games
            .cmp(&a.games)
            .then_with(|| a.player_id.cmp(&b.player_id))
    };
    // A figure, the person without it last; `high`: the highest first.
    let figure = |a: Option<f64>, b: Option<f64>, high: bool| match (a, b) {
        (Some(a), Some(b)) if high => b.total_cmp(&a),
        (Some(a), Some(b)) => a.total_cmp(&b),
        (a, b) => b.is_some().cmp(&a.is_some()),
    };
    match sort {
        SortBy::Games => rows.sort_by(tie),
        SortBy::Score => rows.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| tie(a, b))),
        SortBy::Performance => rows.sort_by(|a, b| {
            b.performance_fide
                .cmp(&a.performance_fide)
                .then_with(|| tie(a, b))
        }),
        SortBy::Analysed => rows.sort_by(|a, b| {
            b.analysed_games
                .cmp(&a.analysed_games)
                .then_with(|| tie(a, b))
        }),
        SortBy::Accuracy => {
            rows.sort_by(|a, b| figure(a.accuracy, b.accuracy, true).then_with(|| tie(a, b)))
        }
        SortBy::Acpl => rows.sort_by(|a, b| figure(a.acpl, b.acpl, false).then_with(|| tie(a, b))),
        SortBy::BlunderRate => rows
            .sort_by(|a, b| figure(a.blunder_rate, b.blunder_rate, false).then_with(|| tie(a, b))),
    }
}

/// The analysis section: what was analysed and by which engine, the figures overall, by
/// colour, time control and year, and the best and worst games by accuracy.
fn write_analysis(a: &AnalysisOut, out: &mut String) {
    if a.overall.games == 0 {
        let _ = writeln!(
            out,
            "\nanalysis: none of the {} games analysed (`arbiter analyse --db DB` analyses them)",
            a.of_games
        );
        return;
    }
    let _ = writeln!(
        out,
        "\nanalysis: {} of {} games analysed, {} without analysis; by {}",
        a.overall.games,
        a.of_games,
        a.without_analysis,
        a.engines_text()
    );
    let rows: Vec<Vec<String>> = a
        .lines()
        .into_iter()
        .map(|(key, f)| std::iter::once(key).chain(f.cells()).collect())
        .collect();
    table(
        &[
            "",
            "games",
            "accuracy",
            "ACPL",
            "inaccuracies/100",
            "mistakes/100",
            "blunders/100",
        ],
        &rows,
        out,
    );
    let _ = writeln!(
        out,
        "  (per 100 of the player's moves; - where no analysed game gives that label)"
    );
    for (title, games) in [("best", &a.best), ("worst", &a.worst)] {
        let _ = writeln!(out, "\n{title} games by accuracy");
        let rows: Vec<Vec<String>> = games
            .iter()
            .map(|g| {
                vec![
                    format!("#{}", g.game_id),
                    g.colour.name().to_owned(),
                    g.opponent.clone().unwrap_or_else(|| "?".to_owned()),
                    g.date.clone(),
                    g.event.clone().unwrap_or_default(),
                    format!("{:.1}", g.accuracy),
                    g.acpl.map_or("-".to_owned(), |v| v.to_string()),
                ]
            })
            .collect();
        table(
            &[
                "game", "colour", "opponent", "date", "event", "accuracy", "ACPL",
            ],
            &rows,
            out,
        );
    }
}

/// Numbers as the text report prints them.
fn pct(v: Option<f64>) -> String {
    v.map_or("-".to_owned(), |v| format!("{v:.1}%"))
}

fn score(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// An aligned table: the first column left-aligned, the others right-aligned. Characters
/// that would not be seen are escaped as `players` shows them (`identity::names::visible`),
/// so two names that look alike but differ in what cannot be seen look different here too.
pub fn table(header: &[&str], rows: &[Vec<String>], out: &mut String) {
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| r.iter().map(|c| visible(c).into_owned()).collect())
        .collect();
    let rows = &rows;
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut line = |cells: &[String]| {
        let mut s = String::from("  ");
        for (i, (c, w)) in cells.iter().zip(&widths).enumerate() {
            let pad = w - c.chars().count();
            if i == 0 {
                s.push_str(c);
                s.push_str(&" ".repeat(pad));
            } else {
                s.push_str("  ");
                s.push_str(&" ".repeat(pad));
                s.push_str(c);
            }
        }
        out.push_str(s.trim_end());
        out.push('\n');
    };
    line(&header.iter().map(|h| h.to_string()).collect::<Vec<_>>());
    for r in rows {
        line(r);
    }
}

const LINE_HEADER: [&str; 9] = [
    "",
    "games",
    "+",
    "=",
    "-",
    "*",
    "score",
    "%",
    "95% interval",
];

fn line_cells(l: &Line) -> Vec<String> {
    vec![
        l.key.clone(),
        l.games.to_string(),
        l.wins.to_string(),
        l.draws.to_string(),
        l.losses.to_string(),
        l.unfinished.to_string(),
        score(l.score),
        pct(l.score_pct),
        match (l.score_low_pct, l.score_high_pct) {
            (Some(lo), Some(hi)) => format!("{lo:.0}-{hi:.0}%"),
            _ => "-".to_owned(),
        },
    ]
}

fn lines_table(title: &str, lines: &[Line], out: &mut String) {
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n{title}");
    let rows: Vec<Vec<String>> = lines.iter().map(line_cells).collect();
    table(&LINE_HEADER, &rows, out);
}

fn openings_table(title: &str, lines: &[OpeningLine], limit: usize, out: &mut String) {
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n{title}");
    let rows: Vec<Vec<String>> = lines
        .iter()
        .take(limit)
        .map(|o| {
            let mut c = line_cells(&o.line);
            c.insert(1, o.colour.to_owned());
            c
        })
        .collect();
    let mut header = LINE_HEADER.to_vec();
    header.insert(1, "colour");
    table(&header, &rows, out);
    if lines.len() > limit {
        let _ = writeln!(
            out,
            "  ... {} more (--format json lists all)",
            lines.len() - limit
        );
    }
}

impl Report {
    /// The readable dossier.
    pub fn text(&self) -> String {
        let mut out = String::new();
        self.write_header(&mut out);
        self.write_performance(&mut out);
        lines_table("by year", &self.by_year, &mut out);
        lines_table("by time control", &self.by_time_control, &mut out);
        lines_table("by opponent rating", &self.by_opponent_rating, &mut out);
        openings_table("openings (ECO)", &self.openings.eco, 12, &mut out);
        openings_table("openings (named)", &self.openings.named, 12, &mut out);
        lines_table("most frequent opponents", &self.opponents, &mut out);
        self.write_endings(&mut out);
        self.write_length_rating_analysis(&mut out);
        out
    }

    /// Who (name, FIDE id, person, spellings), the games and score, and the colours.
    fn write_header(&self, out: &mut String) {
        let _ = write!(out, "{}", visible(&self.player));
        if let Some(f) = self.fide_id {
            let _ = write!(out, "  (FIDE {f})");
        }
        let _ = writeln!(out, "  [person #{}]", self.player_id);
        let spellings: Vec<String> = self
            .spellings
            .iter()
            .map(|s| format!("{} ({})", visible(&s.key), s.games))
            .collect();
        let _ = writeln!(out, "spellings: {}", spellings.join(", "));
        let _ = writeln!(
            out,
            "games {} (+{} ={} -{}), score {} ({}); unfinished {}; dates {} .. {}",
            self.games,
            self.wins,
            self.draws,
            self.losses,
            score(self.score),
            pct(self.score_pct),
            self.unfinished,
            self.first_date.as_deref().unwrap_or("?"),
            self.last_date.as_deref().unwrap_or("?")
        );
        lines_table("by colour", &[self.white.clone(), self.black.clone()], out);
    }

    /// The performance over the games against rated opponents, and expected against actual.
    fn write_performance(&self, out: &mut String) {
        match &self.performance {
            Some(p) => {
                let _ = writeln!(
                    out,
                    "\nperformance over {} games against rated opponents (score {}, average opponent {:.0}):",
                    p.games,
                    score(p.score),
                    p.average_opponent
                );
                let _ = writeln!(
                    out,
                    "  FIDE table 8.1.1 {}   linear {:.0}   perfect {:.0}",
                    p.fide, p.linear, p.perfect
                );
                if let Some(e) = &p.expected {
                    let _ = writeln!(
                        out,
                        "  expected {:.1} / actual {} in {} games with both rated; 95% Wilson interval {:.1}-{:.1}: {}",
                        e.expected,
                        score(e.actual),
                        e.games,
                        e.low,
                        e.high,
                        if e.significant {
                            "the difference is unlikely to be chance"
                        } else {
                            "within chance"
                        }
                    );
                }
            }
            None => {
                let _ = writeln!(
                    out,
                    "\nperformance: no finished game against a rated opponent"
                );
            }
        }
    }

    /// How games ended, the Laws audit and the streaks.
    fn write_endings(&self, out: &mut String) {
        let _ = writeln!(out, "\nhow games ended");
        let rows: Vec<Vec<String>> = self
            .endings
            .iter()
            .map(|c| vec![c.key.clone(), c.games.to_string()])
            .collect();
        table(&["", "games"], &rows, out);
        let _ = writeln!(
            out,
            "\nLaws audit: {} recorded results unlawful, {} decided on time, {} should have ended earlier, {} forfeits",
            self.laws.unlawful_result,
            self.laws.on_time,
            self.laws.ended_earlier,
            self.laws.forfeits
        );
        let _ = writeln!(out, "\nstreaks (dated games in date order)");
        let rows: Vec<Vec<String>> = [
            ("unbeaten", &self.streaks.unbeaten),
            ("winning", &self.streaks.winning),
            ("losing", &self.streaks.losing),
        ]
        .iter()
        .map(|(k, s)| {
            vec![
                k.to_string(),
                s.length.to_string(),
                s.from.clone().unwrap_or_default(),
                s.to.clone().unwrap_or_default(),
            ]
        })
        .collect();
        table(&["", "games", "from", "to"], &rows, out);
    }

    /// Game length, the rating history from the tags and the analysis.
    fn write_length_rating_analysis(&self, out: &mut String) {
        let _ = writeln!(
            out,
            "\ngame length (plies), mean {}",
            self.mean_plies
                .map_or("-".to_owned(), |m| format!("{m:.1}"))
        );
        let rows: Vec<Vec<String>> = self
            .plies
            .iter()
            .filter(|c| c.games > 0)
            .map(|c| vec![c.key.clone(), c.games.to_string()])
            .collect();
        table(&["", "games"], &rows, out);
        if !self.rating_history.is_empty() {
            let first = &self.rating_history[0];
            let last = &self.rating_history[self.rating_history.len() - 1];
            let max = self
                .rating_history
                .iter()
                .map(|r| r.rating)
                .max()
                .unwrap_or(0);
            let _ = writeln!(
                out,
                "\nrating (tags): {} {} .. {} {}, highest {}, {} months",
                first.period,
                first.rating,
                last.period,
                last.rating,
                max,
                self.rating_history.len()
            );
        }
        if let Some(a) = &self.analysis {
            write_analysis(a, out);
        }
    }

    /// Long CSV: one record per table line (`section`, `key`, `colour`, counts), then the
    /// performance figures as `performance` records with their value in `score`.
    pub fn csv_records(&self) -> Vec<CsvRecord> {
        let mut v = Vec::new();
        let mut push = |section: &str, colour: &str, l: &Line| {
            v.push(CsvRecord::new(&self.player, section, colour, l));
        };
        let total = Line::new(
            "total",
            &Tally {
                wins: self.wins,
                draws: self.draws,
                losses: self.losses,
                unfinished: self.unfinished,
            },
        );
        push("total", "", &total);
        push("colour", "white", &self.white);
        push("colour", "black", &self.black);
        for l in &self.by_year {
            push("year", "", l);
        }
        for l in &self.by_time_control {
            push("time_control", "", l);
        }
        for l in &self.by_opponent_rating {
            push("opponent_rating", "", l);
        }
        for (section, ls) in [
            ("eco", &self.openings.eco),
            ("opening_family", &self.openings.family),
            ("opening", &self.openings.named),
        ] {
            for o in ls {
                push(section, o.colour, &o.line);
            }
        }
        for l in &self.opponents {
            push("opponent", "", l);
        }
        if let Some(p) = &self.performance {
            for (key, value) in [
                ("average_opponent", p.average_opponent),
                ("fide", p.fide as f64),
                ("linear", p.linear),
                ("perfect", p.perfect),
            ] {
                let mut r = CsvRecord::new(
                    &self.player,
                    "performance",
                    "",
                    &Line::new(key, &Tally::default()),
                );
                r.games = p.games;
                r.score = value;
                v.push(r);
            }
        }
        v
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CsvRecord {
    pub player: String,
    pub section: String,
    pub key: String,
    pub colour: String,
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub unfinished: u32,
    pub score: f64,
    pub score_pct: Option<f64>,
    pub score_low_pct: Option<f64>,
    pub score_high_pct: Option<f64>,
}

/// The columns of a dossier's rows (`CsvRecord`) in the table formats.
pub const RECORD_COLUMNS: [Column; 13] = [
    Column {
        name: "player",
        kind: Kind::Text,
        meaning: "the person's canonical name",
    },
    Column {
        name: "section",
        kind: Kind::Text,
        meaning: "total, colour, year, time control, opening, opening_family, eco, ...",
    },
    Column {
        name: "key",
        kind: Kind::Text,
        meaning: "the row within its section (a year, an opening, ...)",
    },
    Column {
        name: "colour",
        kind: Kind::Text,
        meaning: "white, black, or empty for both",
    },
    Column {
        name: "games",
        kind: Kind::Int,
        meaning: "games",
    },
    Column {
        name: "wins",
        kind: Kind::Int,
        meaning: "wins",
    },
    Column {
        name: "draws",
        kind: Kind::Int,
        meaning: "draws",
    },
    Column {
        name: "losses",
        kind: Kind::Int,
        meaning: "losses",
    },
    Column {
        name: "unfinished",
        kind: Kind::Int,
        meaning: "games without a result",
    },
    Column {
        name: "score",
        kind: Kind::Float,
        meaning: "points scored",
    },
    Column {
        name: "score_pct",
        kind: Kind::Float,
        meaning: "score in percent of the finished games",
    },
    Column {
        name: "score_low_pct",
        kind: Kind::Float,
        meaning: "the 95% interval's low end, percent",
    },
    Column {
        name: "score_high_pct",
        kind: Kind::Float,
        meaning: "the 95% interval's high end, percent",
    },
];

impl CsvRecord {
    /// The row's cells in `RECORD_COLUMNS`' order.
    pub fn cells(&self) -> Vec<Cell<'_>> {
        let f = |v: Option<f64>| v.map_or(Cell::Null, Cell::Float);
        vec![
            Cell::text(&self.player),
            Cell::text(&self.section),
            Cell::text(&self.key),
            Cell::text(&self.colour),
            Cell::Int(i64::from(self.games)),
            Cell::Int(i64::from(self.wins)),
            Cell::Int(i64::from(self.draws)),
            Cell::Int(i64::from(self.losses)),
            Cell::Int(i64::from(self.unfinished)),
            Cell::Float(self.score),
            f(self.score_pct),
            f(self.score_low_pct),
            f(self.score_high_pct),
        ]
    }

    pub fn new(player: &str, section: &str, colour: &str, l: &Line) -> CsvRecord {
        CsvRecord {
            player: player.to_owned(),
            section: section.to_owned(),
            key: l.key.clone(),
            colour: colour.to_owned(),
            games: l.games,
            wins: l.wins,
            draws: l.draws,
            losses: l.losses,
            unfinished: l.unfinished,
            score: l.score,
            score_pct: l.score_pct,
            score_low_pct: l.score_low_pct,
            score_high_pct: l.score_high_pct,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_aligns_numbers_right() {
        let mut out = String::new();
        table(
            &["", "games"],
            &[
                vec!["white".into(), "7".into()],
                vec!["black".into(), "12".into()],
            ],
            &mut out,
        );
        assert_eq!(out, "         games\n  white      7\n  black     12\n");
    }

    #[test]
    fn line_carries_the_wilson_interval() {
        let l = Line::new(
            "x",
            &Tally {
                wins: 5,
                draws: 3,
                losses: 1,
                unfinished: 2,
            },
        );
        assert_eq!((l.games, l.score, l.unfinished), (9, 6.5, 2));
        assert_eq!(
            format!(
                "{:.2} {:.2} {:.2}",
                l.score_pct.unwrap(),
                l.score_low_pct.unwrap(),
                l.score_high_pct.unwrap()
            ),
            "72.22 40.19 90.96"
        );
    }
}
