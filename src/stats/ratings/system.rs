//! The rating systems as one list. Each system is a [`System`]: a stable name (stored in
//! `rating_runs.system`), the settings it takes ([`Param`]s, which the command line offers as
//! flags and a stored run keeps as JSON), and its run over a [`Selection`]. Adding a system is
//! one file under `stats/ratings/` with its `impl System`, plus its line in [`SYSTEMS`].

use super::period::{History, PeriodKind};
use super::select::{ResultSource, Selection};
use super::{HistoryRow, RatingRow};
use crate::db::ratings::{HistoryRecord, RatingRecord, RunRecord, store_run};
use rusqlite::Connection;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::fmt;

/// Every rating system, in the order `--help` lists them.
pub static SYSTEMS: &[&dyn System] = &[
    &super::pool::Pool,
    &super::elo::Elo,
    &super::glicko2::Glicko2System,
    &super::glicko::GlickoSystem,
];

/// A rating system.
pub trait System: Sync {
    /// The stable name: `--system NAME` and `rating_runs.system`. Never change it.
    fn name(&self) -> &'static str;
    /// One line for `--help`.
    fn about(&self) -> &'static str;
    /// The settings it takes.
    fn params(&self) -> &'static [Param];
    /// Rates the selection.
    fn run(&self, values: &Values, cx: &Context) -> Result<Report, RateError>;
}

/// The system of this name.
pub fn find(name: &str) -> Option<&'static dyn System> {
    SYSTEMS.iter().copied().find(|s| s.name() == name)
}

/// Every setting of every system once (systems may share one, as the period systems share
/// `period`), with the systems that take it.
pub fn all_params() -> Vec<(&'static Param, Vec<&'static str>)> {
    let mut out: Vec<(&'static Param, Vec<&'static str>)> = Vec::new();
    for s in SYSTEMS {
        for p in s.params() {
            match out.iter_mut().find(|(q, _)| q.key == p.key) {
                Some((_, systems)) => systems.push(s.name()),
                None => out.push((p, vec![s.name()])),
            }
        }
    }
    out
}

/// What a setting's value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Any finite number.
    Number,
    /// A number greater than 0.
    Positive,
    /// A whole number greater than 0.
    Count,
    /// A whole number of 0 or more.
    Integer,
    /// One of these names.
    Choice(&'static [&'static str]),
    /// On when given.
    Switch,
    /// Text the system reads itself.
    Text,
    /// `NAME=RATING`, repeatable: persons held at a rating; the caller resolves the names
    /// ([`Context::anchors`]).
    Anchors,
}

/// One setting of a system.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    /// The key in the stored settings (JSON).
    pub key: &'static str,
    /// The command-line flag, without `--`.
    pub flag: &'static str,
    pub help: &'static str,
    /// None: unset unless given.
    pub default: Option<&'static str>,
    pub kind: Kind,
}

/// The settings given for a run (by the command line, or read back from a stored run); a
/// setting not given has its default.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Values {
    given: BTreeMap<&'static str, Vec<String>>,
}

impl Values {
    /// Sets a setting by its key (a switch: any value, usually `true`).
    pub fn set(&mut self, key: &'static str, values: Vec<String>) {
        self.given.insert(key, values);
    }

    /// The keys given.
    pub fn given(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.given.keys().copied()
    }

    fn raw<'a>(&'a self, p: &Param) -> Option<&'a str> {
        match self.given.get(p.key) {
            Some(v) => v.last().map(String::as_str),
            None => p.default,
        }
    }

    /// Checks every value given against its kind: a number that is not one, or is not > 0,
    /// is refused naming the flag.
    pub fn check(&self, params: &[Param]) -> Result<(), SettingError> {
        for p in params {
            match p.kind {
                Kind::Number | Kind::Positive => {
                    self.number(p)?;
                }
                Kind::Count | Kind::Integer => {
                    self.integer(p)?;
                }
                Kind::Anchors => {
                    for a in self.list(p) {
                        parse_anchor(p, a)?;
                    }
                }
                Kind::Choice(_) | Kind::Switch | Kind::Text => {}
            }
        }
        Ok(())
    }

    /// A number (`Number` or `Positive`), None when unset.
    pub fn number(&self, p: &Param) -> Result<Option<f64>, SettingError> {
        let Some(raw) = self.raw(p) else {
            return Ok(None);
        };
        let x = raw
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| SettingError::invalid(p, raw, "not a number"))?;
        if p.kind == Kind::Positive && x <= 0.0 {
            return Err(SettingError::NotPositive {
                flag: p.flag,
                value: raw.to_owned(),
            });
        }
        Ok(Some(x))
    }

    /// A whole number (`Count` or `Integer`), None when unset.
    pub fn integer(&self, p: &Param) -> Result<Option<u64>, SettingError> {
        let Some(raw) = self.raw(p) else {
            return Ok(None);
        };
        let x = match raw.trim().parse::<i64>() {
            Ok(x) => x,
            Err(_) => return Err(SettingError::invalid(p, raw, "not a whole number")),
        };
        if x < 0 || (p.kind == Kind::Count && x == 0) {
            return Err(SettingError::NotPositive {
                flag: p.flag,
                value: raw.to_owned(),
            });
        }
        Ok(Some(x as u64))
    }

    /// A choice or text, None when unset.
    pub fn text(&self, p: &Param) -> Option<&str> {
        self.raw(p)
    }

    pub fn switch(&self, p: &Param) -> bool {
        self.given.contains_key(p.key)
    }

    /// Every value of a repeatable setting.
    pub fn list(&self, p: &Param) -> Vec<&str> {
        self.given
            .get(p.key)
            .map(|v| v.iter().map(String::as_str).collect())
            .unwrap_or_default()
    }

    /// The settings as stored: each of `params` by its key, typed (numbers as numbers, unset
    /// as null).
    pub fn json(&self, params: &[Param]) -> Map<String, Value> {
        let mut m = Map::new();
        for p in params {
            let v = match p.kind {
                Kind::Number | Kind::Positive => json!(self.number(p).ok().flatten()),
                Kind::Count | Kind::Integer => json!(self.integer(p).ok().flatten()),
                Kind::Switch => json!(self.switch(p)),
                Kind::Choice(_) | Kind::Text => json!(self.text(p)),
                Kind::Anchors => json!(self.list(p)),
            };
            m.insert(p.key.to_owned(), v);
        }
        m
    }
}

/// `NAME=RATING` (the name may hold `=`; the last one splits).
pub fn parse_anchor<'a>(p: &Param, text: &'a str) -> Result<(&'a str, f64), SettingError> {
    let Some((name, r)) = text.rsplit_once('=') else {
        return Err(SettingError::invalid(p, text, "expected NAME=RATING"));
    };
    match r.trim().parse::<f64>() {
        Ok(r) if r.is_finite() && !name.trim().is_empty() => Ok((name.trim(), r)),
        Ok(_) if name.trim().is_empty() => Err(SettingError::invalid(p, text, "no name")),
        _ => Err(SettingError::invalid(
            p,
            text,
            &format!("{} is not a rating", r.trim()),
        )),
    }
}

/// A setting the run cannot take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingError {
    /// A number that must be greater than 0.
    NotPositive { flag: &'static str, value: String },
    Invalid {
        flag: &'static str,
        value: String,
        why: String,
    },
    /// A setting of other systems.
    NotFor {
        flag: &'static str,
        system: &'static str,
        takes_it: Vec<&'static str>,
    },
}

impl SettingError {
    fn invalid(p: &Param, value: &str, why: &str) -> SettingError {
        SettingError::Invalid {
            flag: p.flag,
            value: value.to_owned(),
            why: why.to_owned(),
        }
    }
}

impl fmt::Display for SettingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SettingError::NotPositive { flag, value } => {
                write!(f, "--{flag} {value}: must be > 0")
            }
            SettingError::Invalid { flag, value, why } => write!(f, "--{flag} {value}: {why}"),
            SettingError::NotFor {
                flag,
                system,
                takes_it,
            } => write!(
                f,
                "--{flag} applies to {}, not {system}",
                takes_it.join(" and ")
            ),
        }
    }
}

impl std::error::Error for SettingError {}

/// Checks that every setting given belongs to `system` and has a valid value.
pub fn check_settings(system: &dyn System, values: &Values) -> Result<(), SettingError> {
    for key in values.given() {
        if !system.params().iter().any(|p| p.key == key) {
            let (p, takes_it) = all_params()
                .into_iter()
                .find(|(p, _)| p.key == key)
                .map_or((key, Vec::new()), |(p, s)| (p.flag, s));
            return Err(SettingError::NotFor {
                flag: p,
                system: system.name(),
                takes_it,
            });
        }
    }
    values.check(system.params())
}

/// What a system gets besides its settings.
pub struct Context<'a> {
    pub selection: &'a Selection,
    /// Persons held at a rating (selection index, rating), resolved by the caller from the
    /// system's `Anchors` setting.
    pub anchors: Vec<(u32, f64)>,
    /// Whether the history by period is wanted (only a stored run keeps it).
    pub keep: History,
    /// List every problem set in an error, not the first ten.
    pub verbose: bool,
}

/// What a run produced, ready to print and store.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Report {
    pub rows: Vec<RatingRow>,
    pub history: Vec<HistoryRow>,
    /// The period the history is by (period systems).
    pub period: Option<PeriodKind>,
    pub rated_games: usize,
    /// Lines for the user about the run.
    pub summary: Vec<String>,
    /// Selected games the system left out, by reason.
    pub not_rated: Vec<(&'static str, usize)>,
}

/// Groups or sets of players named in an error: size and one member's name each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Members {
    pub size: usize,
    pub example: String,
}

/// Sets shown before "… and N more" unless verbose.
pub const SHOWN: usize = 10;

/// Why a run gave no list.
#[derive(Debug, Clone, PartialEq)]
pub enum RateError {
    Setting(SettingError),
    /// No game to rate; the account of the stored games.
    NoGames(String),
    /// The players form groups that never met.
    SeparateGroups {
        groups: Vec<Members>,
        all: bool,
    },
    /// After setting perfect scores aside, sets of players only won (or only lost) against
    /// the rest: infinite ratings.
    OneSided {
        sets: Vec<Members>,
        all: bool,
    },
    /// A person held at a rating who is not in the group rated.
    AnchorNotRated(String),
    /// Nobody got a rating from these many games.
    NobodyRated(usize),
}

impl RateError {
    /// A wrong setting is a usage error; the rest are about the games.
    pub fn is_usage(&self) -> bool {
        matches!(self, RateError::Setting(_) | RateError::AnchorNotRated(_))
    }
}

/// Appends the first `SHOWN` sets (`all`: every one) as `N players, e.g. NAME` lines, and how
/// many more there are.
pub fn list_members(text: &mut String, sets: &[Members], all: bool, what: &str) {
    let shown = if all { sets.len() } else { SHOWN };
    for s in sets.iter().take(shown) {
        text.push_str(&format!("\n  {} players, e.g. {}", s.size, s.example));
    }
    if sets.len() > shown {
        text.push_str(&format!(
            "\n  … and {} more {what} (-v lists every one)",
            sets.len() - shown
        ));
    }
}

/// What to do about a pool that is not well connected.
const WAY_FORWARD: &str = "ways forward: --prior-draws 2 (two virtual draws between every two players who met, \
     as BayesElo's prior: finite ratings pulled toward their opponents'), --min-games N (rate \
     only players with N games or more), or a narrower selection";

impl fmt::Display for RateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RateError::Setting(e) => write!(f, "{e}"),
            RateError::NoGames(account) => {
                write!(f, "no rated games in the selection ({account})")
            }
            RateError::SeparateGroups { groups, all } => {
                let mut text = format!(
                    "the players form {} separate groups (no ratings between them):",
                    groups.len()
                );
                list_members(&mut text, groups, *all, "groups");
                write!(
                    f,
                    "{text}\n  (no setting relates players who are not linked by games: \
                     --largest-group rates the largest group, or select one group's games, \
                     e.g. one --event)"
                )
            }
            RateError::OneSided { sets, all } => {
                let mut text = format!(
                    "after setting aside perfect scores, {} sets of players only won or only lost against the rest (their ratings would be infinite):",
                    sets.len()
                );
                list_members(&mut text, sets, *all, "sets");
                write!(f, "{text}\n  ({WAY_FORWARD})")
            }
            RateError::AnchorNotRated(name) => write!(
                f,
                "--anchor {name}: not among the players rated (another group, or no rated game)"
            ),
            RateError::NobodyRated(games) => {
                write!(f, "nobody got a rating from the {games} games selected")
            }
        }
    }
}

impl std::error::Error for RateError {}

impl From<SettingError> for RateError {
    fn from(e: SettingError) -> RateError {
        RateError::Setting(e)
    }
}

/// Sets of players by size and one member's name each.
pub fn members(sets: &[Vec<u32>], names: &[String]) -> Vec<Members> {
    sets.iter()
        .map(|s| Members {
            size: s.len(),
            example: s
                .first()
                .and_then(|&p| names.get(p as usize))
                .cloned()
                .unwrap_or_default(),
        })
        .collect()
}

/// Runs a system over a selection: its settings checked, a selection without games or a run
/// that rated nobody refused.
pub fn rate(system: &dyn System, values: &Values, cx: &Context) -> Result<Report, RateError> {
    check_settings(system, values)?;
    if cx.selection.games.is_empty() {
        return Err(RateError::NoGames(cx.selection.left_out.accounting(0, &[])));
    }
    let report = system.run(values, cx)?;
    if report.rows.iter().all(|r| r.rating.is_none()) {
        return Err(RateError::NobodyRated(report.rated_games));
    }
    Ok(report)
}

/// The exact settings of a run, so it can be redone: the system's name and settings, the
/// selection and the result rated by, and `common` (settings of the run that are no
/// system's, such as `min_games`).
pub fn settings_json(
    system: &dyn System,
    values: &Values,
    selection: Value,
    source: ResultSource,
    common: Map<String, Value>,
) -> Value {
    let mut s = Map::new();
    s.insert("system".into(), json!(system.name()));
    s.insert("selection".into(), selection);
    s.insert("result_source".into(), json!(source.name()));
    s.extend(common);
    s.extend(values.json(system.params()));
    Value::Object(s)
}

/// Stores a run of `system` over `selection` (a database's: its person ids), with `settings`
/// and the time now; returns the run's id.
pub fn store(
    conn: &Connection,
    system: &dyn System,
    settings: &Value,
    selection: &Selection,
    report: &Report,
) -> rusqlite::Result<i64> {
    let person = |p: u32| selection.person_ids[p as usize];
    let ratings: Vec<RatingRecord> = report
        .rows
        .iter()
        .map(|r| RatingRecord {
            player_id: person(r.player),
            games: r.games,
            score: r.score,
            rating: r.rating,
            error: r.error,
            rd: r.rd,
            volatility: r.volatility,
            rank: r.rank,
        })
        .collect();
    let kind = report.period.unwrap_or(PeriodKind::Month);
    let history: Vec<HistoryRecord> = report
        .history
        .iter()
        .map(|h| HistoryRecord {
            player_id: person(h.player),
            period: kind.label(h.period),
            games: h.games,
            rating: h.rating,
            rd: h.rd,
            volatility: h.volatility,
        })
        .collect();
    let settings = settings.to_string();
    let created_at = super::now_utc();
    store_run(
        conn,
        &RunRecord {
            system: system.name(),
            settings: &settings,
            created_at: &created_at,
            games: report.rated_games as i64,
            skipped: selection.left_out.unfinished as i64,
        },
        &ratings,
        &history,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::ratings::{Date, RatedGame, WhiteResult};

    /// Virtual draws join only players who met, so they cannot rate separate groups: the
    /// message offers what does (the largest group, a narrower selection), not them.
    #[test]
    fn separate_groups_offer_what_can_relate_them() {
        let members = |size, example: &str| Members {
            size,
            example: example.to_owned(),
        };
        let text = RateError::SeparateGroups {
            groups: vec![
                members(477, "Saydaliev,Saidakbar"),
                members(2, "Temirbekov,T"),
            ],
            all: false,
        }
        .to_string();
        assert!(
            text.starts_with("the players form 2 separate groups"),
            "{text}"
        );
        assert!(
            text.contains("477 players, e.g. Saydaliev,Saidakbar"),
            "{text}"
        );
        assert!(
            text.contains("--largest-group rates the largest group"),
            "{text}"
        );
        assert!(!text.contains("--prior-draws"), "{text}");
    }

    #[test]
    fn names_are_stable_and_unique() {
        let names: Vec<&str> = SYSTEMS.iter().map(|s| s.name()).collect();
        // Stored in rating_runs.system: the names runs stored before this list existed had
        // (the lower-cased variants of the old command-line enum) still read.
        assert_eq!(names, ["pool", "elo", "glicko2", "glicko"]);
        assert!(find("glicko2").is_some() && find("Glicko2").is_none());
        // A setting shared by systems is one flag, with its systems.
        let period = all_params()
            .into_iter()
            .find(|(p, _)| p.key == "period")
            .unwrap();
        assert_eq!(period.1, ["elo", "glicko2", "glicko"]);
    }

    #[test]
    fn numbers_that_must_be_positive_are_refused() {
        let glicko2 = find("glicko2").unwrap();
        let elo = find("elo").unwrap();
        let with = |key: &'static str, v: &str| {
            let mut values = Values::default();
            values.set(key, vec![v.to_owned()]);
            values
        };
        let e = check_settings(glicko2, &with("tau", "-0.5")).unwrap_err();
        assert_eq!(e.to_string(), "--tau -0.5: must be > 0");
        let e = check_settings(glicko2, &with("tau", "0")).unwrap_err();
        assert_eq!(e.to_string(), "--tau 0: must be > 0");
        assert!(check_settings(glicko2, &with("tau", "0.3")).is_ok());
        let e = check_settings(elo, &with("k", "0")).unwrap_err();
        assert_eq!(e.to_string(), "--k 0: must be > 0");
        let e = check_settings(elo, &with("k", "-20")).unwrap_err();
        assert_eq!(e.to_string(), "--k -20: must be > 0");
        let e = check_settings(elo, &with("k", "ten")).unwrap_err();
        assert_eq!(e.to_string(), "--k ten: not a whole number");
        let e = check_settings(find("glicko").unwrap(), &with("c", "-1")).unwrap_err();
        assert_eq!(e.to_string(), "--c -1: must be > 0");
        // A setting of another system is refused, naming the systems that take it.
        let e = check_settings(elo, &with("tau", "0.5")).unwrap_err();
        assert_eq!(e.to_string(), "--tau applies to glicko2, not elo");
        let e = check_settings(elo, &with("per_game", "true")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--per-game applies to glicko2 and glicko, not elo"
        );
        let e = check_settings(find("pool").unwrap(), &with("anchor", "Carlsen")).unwrap_err();
        assert_eq!(e.to_string(), "--anchor Carlsen: expected NAME=RATING");
    }

    #[test]
    fn stored_settings_are_typed_and_complete() {
        let pool = find("pool").unwrap();
        let mut values = Values::default();
        values.set("white_advantage", vec!["auto".into()]);
        values.set("anchor", vec!["A=2800".into()]);
        let mut common = Map::new();
        common.insert("min_games".into(), json!(3));
        let s = settings_json(
            pool,
            &values,
            json!({"from": "2020"}),
            ResultSource::Lawful,
            common,
        );
        assert_eq!(s["system"], "pool");
        assert_eq!(s["result_source"], "lawful");
        assert_eq!(s["white_advantage"], "auto");
        assert_eq!(s["average"], 2000.0);
        assert_eq!(s["samples"], 100);
        assert_eq!(s["largest_group"], false);
        assert_eq!(s["anchor"], json!(["A=2800"]));
        assert_eq!(s["prior_draws"], Value::Null);
        assert_eq!(s["min_games"], 3);
        assert_eq!(s["selection"]["from"], "2020");
        let elo = settings_json(
            find("elo").unwrap(),
            &Values::default(),
            json!({}),
            ResultSource::Recorded,
            Map::new(),
        );
        assert_eq!(
            (&elo["rules"], &elo["k"], &elo["start"], &elo["period"]),
            (
                &json!("2025"),
                &Value::Null,
                &json!("tags"),
                &json!("month")
            )
        );
    }

    #[test]
    fn every_system_rates_a_small_pool() {
        let game = |white, black, outcome, month| RatedGame {
            white,
            black,
            outcome,
            date: Date::new(2024, month, 1),
            event: 1,
        };
        let selection = Selection {
            games: vec![
                game(0, 1, WhiteResult::WhiteWins, 1),
                game(1, 2, WhiteResult::Draw, 1),
                game(2, 0, WhiteResult::BlackWins, 2),
                game(1, 0, WhiteResult::Draw, 2),
                game(2, 1, WhiteResult::BlackWins, 3),
                game(0, 2, WhiteResult::Draw, 3),
            ],
            names: vec!["A".into(), "B".into(), "C".into()],
            person_ids: vec![10, 20, 30],
            first_tag: vec![Some(2000), Some(1900), Some(1800)],
            ..Selection::default()
        };
        let cx = Context {
            selection: &selection,
            anchors: Vec::new(),
            keep: History::Keep,
            verbose: false,
        };
        for s in SYSTEMS {
            let report = rate(*s, &Values::default(), &cx).unwrap();
            assert_eq!(report.rated_games, 6, "{}", s.name());
            assert_eq!(report.rows.len(), 3, "{}", s.name());
            // A scored 3 of 4: first everywhere.
            assert_eq!(report.rows[0].player, 0, "{}", s.name());
            assert_eq!(report.rows[0].score, 3.0, "{}", s.name());
        }
        let empty = Selection::default();
        let cx = Context {
            selection: &empty,
            ..cx
        };
        assert!(matches!(
            rate(SYSTEMS[0], &Values::default(), &cx),
            Err(RateError::NoGames(_))
        ));
    }
}
