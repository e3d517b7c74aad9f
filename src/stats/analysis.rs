//! A player's analysis summary over a selection, the one computation behind the dossier's
//! analysis section, the leaderboard's analysis columns and the head-to-head's accuracies
//! (docs/ANALYSIS.md, "A player's summary"): over the player's selected games that have an
//! analysis, each with its current (strongest) one, the mean of the per-game accuracy (as
//! exported, one decimal) and ACPL, and each label per 100 of the player's moves, a count the
//! analysis never gives left out of both sides of its rate. By phase the same, over the
//! player's moves in each phase (`search::phase`, as the export's per-phase columns).

use super::row::{Colour, format_date_key};
use crate::db::query::Filter;
use crate::db::query::analysis_summary::{AnalysisRow, for_each_analysis_row};
use crate::search::lichess::{shown_accuracy, stored_acpl, stored_curve};
use crate::search::phase::{self, Phase, PhaseFigures};
use crate::search::strength::Strength;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// The label kinds, in the stored order.
pub const KINDS: [&str; 3] = ["inaccuracies", "mistakes", "blunders"];

/// How many best and worst games a summary keeps.
pub const EXTREMES: usize = 5;

/// One side of one analysed game, as the summary counts it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SideFigures {
    /// The game accuracy as shown (one decimal).
    pub accuracy: Option<f64>,
    pub acpl: Option<u32>,
    /// Inaccuracies, mistakes, blunders; None: not judged by this analysis.
    pub counts: [Option<u32>; 3],
    /// The side's moves (its plies).
    pub moves: u32,
}

/// Sums over the analysed games of one slice (all, a colour, a year, a time control).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Figures {
    pub games: u32,
    pub accuracy_sum: f64,
    pub accuracy_games: u32,
    pub acpl_sum: u64,
    pub acpl_games: u32,
    /// Per kind: the labels, and the moves of the games that give that kind.
    pub counts: [u64; 3],
    pub moves: [u64; 3],
}

impl Figures {
    pub fn add(&mut self, s: &SideFigures) {
        self.games += 1;
        if let Some(a) = s.accuracy {
            self.accuracy_sum += a;
            self.accuracy_games += 1;
        }
        if let Some(a) = s.acpl {
            self.acpl_sum += u64::from(a);
            self.acpl_games += 1;
        }
        for k in 0..3 {
            if let Some(n) = s.counts[k] {
                self.counts[k] += u64::from(n);
                self.moves[k] += u64::from(s.moves);
            }
        }
    }

    pub fn accuracy(&self) -> Option<f64> {
        (self.accuracy_games > 0).then(|| self.accuracy_sum / f64::from(self.accuracy_games))
    }

    pub fn acpl(&self) -> Option<f64> {
        (self.acpl_games > 0).then(|| self.acpl_sum as f64 / f64::from(self.acpl_games))
    }

    /// Labels of kind `k` per 100 moves; None when no game gives that kind.
    pub fn rate(&self, k: usize) -> Option<f64> {
        (self.moves[k] > 0).then(|| 100.0 * self.counts[k] as f64 / self.moves[k] as f64)
    }

    /// The count of kind `k`; None when no game gives that kind.
    pub fn count(&self, k: usize) -> Option<u64> {
        (self.moves[k] > 0).then_some(self.counts[k])
    }
}

/// A game among the best or the worst by accuracy.
#[derive(Debug, Clone, PartialEq)]
pub struct GameRef {
    pub game_id: i64,
    pub colour: Colour,
    pub opponent: Option<i64>,
    pub date: u32,
    pub event: Option<String>,
    pub accuracy: f64,
    pub acpl: Option<u32>,
}

/// One person's summary over a selection.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// The person's selected games (finished or not), analysed or not.
    pub selected: u32,
    pub all: Figures,
    pub by_colour: [Figures; 2],
    /// By time-control class (None: not classified) and by year (None: undated).
    pub by_tc: BTreeMap<Option<String>, Figures>,
    pub by_year: BTreeMap<Option<i32>, Figures>,
    /// By phase (opening, middlegame, endgame): the games in which the player moved in it.
    pub by_phase: [Figures; 3],
    /// Games by the analysis they were read with (`Strength`'s text), and its engine's name.
    pub engines: BTreeMap<String, (String, u32)>,
    /// Highest accuracy first, and lowest first (ties: the earlier game id).
    pub best: Vec<GameRef>,
    pub worst: Vec<GameRef>,
}

impl Summary {
    /// Counts one side of a selected game; `engine` (the analysis's strength and engine name)
    /// is None when the game has no analysis; `phases` is the game's `phase_figures`.
    pub fn add(
        &mut self,
        row: &AnalysisRow,
        colour: Colour,
        engine: Option<(&str, &str)>,
        phases: Option<&PhaseFigures>,
    ) {
        self.selected += 1;
        let (Some(a), Some((strength, name))) = (&row.analysis, engine) else {
            return;
        };
        let c = colour.index();
        let acpl = stored_acpl(
            a.evals.iter().copied(),
            row.ply_count as usize,
            row.white_first,
            row.standard_start,
        );
        let white_moves = if row.white_first {
            row.ply_count.div_ceil(2)
        } else {
            row.ply_count / 2
        };
        let s = SideFigures {
            accuracy: a.accuracy[c].map(shown_accuracy),
            acpl: acpl[c],
            counts: a.counts[c],
            moves: match colour {
                Colour::White => white_moves,
                Colour::Black => row.ply_count - white_moves,
            },
        };
        self.all.add(&s);
        self.by_colour[c].add(&s);
        self.by_tc.entry(row.tc_class.clone()).or_default().add(&s);
        self.by_year.entry(row.year).or_default().add(&s);
        if let Some(f) = phases {
            for p in Phase::ALL.map(Phase::index) {
                if f.moves[c][p] > 0 {
                    self.by_phase[p].add(&SideFigures {
                        accuracy: f.accuracy[c][p].map(shown_accuracy),
                        acpl: f.acpl[c][p],
                        counts: f.labels[c][p],
                        moves: f.moves[c][p],
                    });
                }
            }
        }
        let e = self
            .engines
            .entry(strength.to_owned())
            .or_insert_with(|| (name.to_owned(), 0));
        e.1 += 1;
        if let Some(accuracy) = s.accuracy {
            let game = GameRef {
                game_id: row.id,
                colour,
                opponent: row.persons[1 - c],
                date: date_key(row),
                event: row.event.clone(),
                accuracy,
                acpl: s.acpl,
            };
            keep(&mut self.best, game.clone(), |a, b| b.total_cmp(a));
            keep(&mut self.worst, game, f64::total_cmp);
        }
    }
}

/// A game's figures by phase from its stored analysis, as the export's per-phase columns give
/// them (`phase::game_figures`); None without an analysis.
pub fn phase_figures(row: &AnalysisRow) -> Option<PhaseFigures> {
    let a = row.analysis.as_ref()?;
    let curve = stored_curve(
        a.evals.iter().copied(),
        a.moves.len(),
        row.white_first,
        row.standard_start,
    );
    Some(phase::game_figures(
        &row.start,
        &a.moves,
        &curve,
        Some(a.counts),
        a.labels.iter().copied(),
    ))
}

/// Inserts `game` into `list` (ordered by `order` on accuracy, then by game id) and keeps the
/// first `EXTREMES`.
fn keep(list: &mut Vec<GameRef>, game: GameRef, order: fn(&f64, &f64) -> std::cmp::Ordering) {
    let at = list.partition_point(|g| {
        order(&g.accuracy, &game.accuracy)
            .then(g.game_id.cmp(&game.game_id))
            .is_lt()
    });
    if at < EXTREMES {
        list.insert(at, game);
        list.truncate(EXTREMES);
    }
}

fn date_key(row: &AnalysisRow) -> u32 {
    super::board::date_key(
        row.year.map(i64::from),
        row.month.map(i64::from),
        row.day.map(i64::from),
    )
}

/// Which sides of the selected games to summarise.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    /// Count every record, duplicates included.
    pub all_games: bool,
    /// Only this person (None: everyone).
    pub person: Option<i64>,
    /// Only games against this person (head-to-head).
    pub opponent: Option<i64>,
}

/// Every person's summary over the games the filter selects, in one pass. The dossier, the
/// leaderboard and the head-to-head all call this.
pub fn summarise(
    conn: &rusqlite::Connection,
    filter: &Filter,
    scope: &Scope,
) -> rusqlite::Result<HashMap<i64, Summary>> {
    let mut out: HashMap<i64, Summary> = HashMap::new();
    // Most games share a few settings: each is read once.
    let mut strengths: HashMap<String, (String, String)> = HashMap::new();
    for_each_analysis_row(conn, filter, scope.person, |row| {
        if row.duplicate && !scope.all_games {
            return;
        }
        let engine = row.analysis.as_ref().map(|a| {
            let (strength, name) = strengths.entry(a.settings.clone()).or_insert_with(|| {
                let s = Strength::of_settings(&a.settings);
                (s.to_string(), s.engine_name().to_owned())
            });
            (strength.as_str(), name.as_str())
        });
        let mut phases = None;
        for colour in [Colour::White, Colour::Black] {
            let c = colour.index();
            let Some(person) = row.persons[c] else {
                continue;
            };
            if scope.person.is_some_and(|p| p != person)
                || scope
                    .opponent
                    .is_some_and(|o| row.persons[1 - c] != Some(o))
            {
                continue;
            }
            // Read once a game, and only for a side that is counted.
            let phases = phases.get_or_insert_with(|| phase_figures(row));
            out.entry(person)
                .or_default()
                .add(row, colour, engine, phases.as_ref());
        }
    })?;
    Ok(out)
}

/// One slice of a summary, as printed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FiguresOut {
    pub key: String,
    /// Analysed games in the slice.
    pub games: u32,
    /// Mean of the per-game accuracy, and of the per-game average centipawn loss.
    pub accuracy: Option<f64>,
    pub acpl: Option<f64>,
    /// Label counts; null when no game of the slice gives that label.
    pub inaccuracies: Option<u64>,
    pub mistakes: Option<u64>,
    pub blunders: Option<u64>,
    /// Per 100 of the player's moves in the games that give the label.
    pub inaccuracy_rate: Option<f64>,
    pub mistake_rate: Option<f64>,
    pub blunder_rate: Option<f64>,
}

impl FiguresOut {
    pub fn new(key: impl Into<String>, f: &Figures) -> FiguresOut {
        FiguresOut {
            key: key.into(),
            games: f.games,
            accuracy: f.accuracy(),
            acpl: f.acpl(),
            inaccuracies: f.count(0),
            mistakes: f.count(1),
            blunders: f.count(2),
            inaccuracy_rate: f.rate(0),
            mistake_rate: f.rate(1),
            blunder_rate: f.rate(2),
        }
    }
}

/// A figure as the text, the page and the leaderboard print it: `digits` decimals, `-` when
/// unknown.
pub fn shown(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".to_owned(), |v| format!("{v:.digits$}"))
}

impl FiguresOut {
    /// The printed cells after the key: games, accuracy, ACPL, and the three rates.
    pub fn cells(&self) -> [String; 6] {
        [
            self.games.to_string(),
            shown(self.accuracy, 1),
            shown(self.acpl, 1),
            shown(self.inaccuracy_rate, 2),
            shown(self.mistake_rate, 2),
            shown(self.blunder_rate, 2),
        ]
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EngineOut {
    /// The engine's UCI name, or `arbiter` for its own search.
    pub engine: String,
    /// The engine and its budget, as `analyse` names them.
    pub analysis: String,
    pub games: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GameOut {
    pub game_id: i64,
    pub colour: Colour,
    pub opponent: Option<String>,
    pub date: String,
    pub event: Option<String>,
    pub accuracy: f64,
    pub acpl: Option<u32>,
}

/// The dossier's analysis section.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnalysisOut {
    /// The selected games (finished or not) and those without an analysis.
    pub of_games: u32,
    pub without_analysis: u32,
    /// The figures over all analysed games (`games`: how many).
    #[serde(flatten)]
    pub overall: FiguresOut,
    pub engines: Vec<EngineOut>,
    pub white: FiguresOut,
    pub black: FiguresOut,
    pub by_time_control: Vec<FiguresOut>,
    pub by_year: Vec<FiguresOut>,
    /// By phase (opening, middlegame, endgame; `games`: those the player moved in it),
    /// each label per 100 of the player's moves in the phase.
    pub by_phase: Vec<FiguresOut>,
    pub best: Vec<GameOut>,
    pub worst: Vec<GameOut>,
}

impl AnalysisOut {
    /// `name`: a person's canonical name.
    pub fn new<'d>(s: &Summary, name: impl Fn(i64) -> &'d str) -> AnalysisOut {
        let games = |list: &[GameRef]| {
            list.iter()
                .map(|g| GameOut {
                    game_id: g.game_id,
                    colour: g.colour,
                    opponent: g.opponent.map(|o| name(o).to_owned()),
                    date: format_date_key(g.date),
                    event: g.event.clone(),
                    accuracy: g.accuracy,
                    acpl: g.acpl,
                })
                .collect()
        };
        AnalysisOut {
            of_games: s.selected,
            without_analysis: s.selected - s.all.games,
            overall: FiguresOut::new("all", &s.all),
            engines: s
                .engines
                .iter()
                .map(|(analysis, (engine, games))| EngineOut {
                    engine: engine.clone(),
                    analysis: analysis.clone(),
                    games: *games,
                })
                .collect(),
            white: FiguresOut::new("white", &s.by_colour[0]),
            black: FiguresOut::new("black", &s.by_colour[1]),
            by_time_control: s
                .by_tc
                .iter()
                .map(|(k, f)| FiguresOut::new(k.as_deref().unwrap_or("unknown"), f))
                .collect(),
            by_year: s
                .by_year
                .iter()
                .map(|(y, f)| FiguresOut::new(y.map_or("unknown".to_owned(), |y| y.to_string()), f))
                .collect(),
            by_phase: Phase::ALL
                .iter()
                .map(|p| FiguresOut::new(p.name(), &s.by_phase[p.index()]))
                .collect(),
            best: games(&s.best),
            worst: games(&s.worst),
        }
    }
}

impl AnalysisOut {
    /// The engines behind the games, as the text and the page say them: `Stockfish 15.1 at
    /// 1000000 nodes a position (5 games), ...`.
    pub fn engines_text(&self) -> String {
        let engines: Vec<String> = self
            .engines
            .iter()
            .map(|e| format!("{} ({} games)", e.analysis, e.games))
            .collect();
        engines.join(", ")
    }

    /// The table's lines, as the text and the page show them: all, by colour, by time
    /// control, by year and by phase.
    pub fn lines(&self) -> Vec<(String, &FiguresOut)> {
        fn section<'a>(name: &str, lines: &'a [FiguresOut]) -> Vec<(String, &'a FiguresOut)> {
            lines
                .iter()
                .map(|f| (format!("{name} {}", f.key), f))
                .collect()
        }
        let mut v = vec![
            ("all".to_owned(), &self.overall),
            ("white".to_owned(), &self.white),
            ("black".to_owned(), &self.black),
        ];
        v.extend(section("time control", &self.by_time_control));
        v.extend(section("year", &self.by_year));
        v.extend(section("phase", &self.by_phase));
        v
    }
}

/// The head-to-head's line: each player's accuracy and ACPL in the games against each other.
pub fn h2h_text(names: [&str; 2], figures: [&FiguresOut; 2]) -> String {
    let one = |v: Option<f64>| shown(v, 1);
    let sides: Vec<String> = names
        .iter()
        .zip(figures)
        .map(|(n, f)| {
            format!(
                "{n} accuracy {}, ACPL {} ({} games analysed)",
                one(f.accuracy),
                one(f.acpl),
                f.games
            )
        })
        .collect();
    format!("in these games: {}\n", sides.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(accuracy: f64, acpl: u32, counts: [Option<u32>; 3], moves: u32) -> SideFigures {
        SideFigures {
            accuracy: Some(accuracy),
            acpl: Some(acpl),
            counts,
            moves,
        }
    }

    #[test]
    fn a_count_never_given_stays_out_of_its_rate() {
        let mut f = Figures::default();
        // An engine's game: 2 inaccuracies, 1 mistake, 1 blunder in 40 moves.
        f.add(&side(80.0, 30, [Some(2), Some(1), Some(1)], 40));
        // The own search's: blunders only, 3 in 20 moves.
        f.add(&side(70.0, 50, [None, None, Some(3)], 20));
        assert_eq!(f.accuracy(), Some(75.0));
        assert_eq!(f.acpl(), Some(40.0));
        assert_eq!(f.rate(0), Some(5.0));
        assert_eq!(f.rate(1), Some(2.5));
        assert_eq!(f.rate(2), Some(100.0 * 4.0 / 60.0));
        let mut own = Figures::default();
        own.add(&side(70.0, 50, [None, None, Some(3)], 20));
        assert_eq!((own.rate(0), own.count(1)), (None, None));
        assert_eq!(own.count(2), Some(3));
    }

    #[test]
    fn the_best_and_worst_keep_the_extremes_in_order() {
        let mut best = Vec::new();
        let mut worst = Vec::new();
        for (id, a) in [
            (1, 50.0),
            (2, 90.0),
            (3, 70.0),
            (4, 90.0),
            (5, 10.0),
            (6, 60.0),
            (7, 65.0),
        ] {
            let g = GameRef {
                game_id: id,
                colour: Colour::White,
                opponent: None,
                date: 0,
                event: None,
                accuracy: a,
                acpl: None,
            };
            keep(&mut best, g.clone(), |a, b| b.total_cmp(a));
            keep(&mut worst, g, f64::total_cmp);
        }
        let ids = |l: &[GameRef]| l.iter().map(|g| g.game_id).collect::<Vec<_>>();
        assert_eq!(ids(&best), [2, 4, 3, 7, 6]);
        assert_eq!(ids(&worst), [5, 1, 6, 7, 3]);
    }
}
