//! The selection every command shares: the schema's FROM clause over `games` with its joins
//! (`games_from`), and the game filters (persons, event, dates, result, rating, ply count,
//! findings, severity, Laws edition, duplicates, raw SQL) combined with AND into a WHERE clause
//! with bound parameters. `export`, `stats`, `openings`, `duplicates` and `ratings` all select
//! through here, so the same flags select the same games everywhere.
//! Every value is checked when the command line is read (`parse_*`): a value that could only
//! match nothing (`--result 1:0`, `--severity fatal`) is a usage error listing the valid ones.

use crate::db::directory::{Directory, ResolveError};
use rusqlite::Connection;
use rusqlite::types::Value;

/// A recorded or lawful result: the Laws' one result type.
pub use crate::laws::result::GameResult as ResultValue;

fn one_of<T: Copy>(text: &str, all: &[T], name: impl Fn(T) -> String) -> Result<T, String> {
    all.iter()
        .copied()
        .find(|&v| name(v) == text.trim())
        .ok_or_else(|| {
            format!(
                "{text:?} is not one of: {}",
                all.iter().map(|&v| name(v)).collect::<Vec<_>>().join(", ")
            )
        })
}

/// `--result`: 1-0, 0-1, 1/2-1/2 (or `½-½`) or *, read by the one result parser.
pub fn parse_result(text: &str) -> Result<ResultValue, String> {
    ResultValue::parse(text).map_or_else(
        || one_of(text, &ResultValue::ALL, |r| r.as_str().to_owned()),
        Ok,
    )
}

/// `--severity`: error, warning or info.
pub fn parse_severity(text: &str) -> Result<crate::findings::Severity, String> {
    one_of(text, &crate::findings::Severity::ALL, |s| {
        s.as_str().to_owned()
    })
}

/// `--laws`: the year of an edition (1980, 1993, 2001, 2014), or an alias of one (1997 for
/// 1993, the edition's name until 2026-11; 2017 for 2014).
pub fn parse_edition(text: &str) -> Result<crate::laws::Edition, String> {
    use crate::laws::Edition;
    Edition::from_year_name(text).ok_or_else(|| {
        let years = Edition::ALL.map(|e| e.year().to_string()).join(", ");
        format!("{text:?} is not one of: {years} (1997 reads as 1993, 2017 as 2014)")
    })
}

/// Every finding code any stage writes: the one catalogue (`src/findings.rs`, docs/findings.md).
pub fn known_codes() -> Vec<&'static str> {
    crate::findings::CATALOGUE.iter().map(|e| e.code).collect()
}

/// `--has-finding`, `--lacks-finding`: a code of the catalogue.
pub fn parse_code(text: &str) -> Result<String, String> {
    let codes = known_codes();
    if codes.contains(&text.trim()) {
        Ok(text.trim().to_owned())
    } else {
        Err(format!(
            "{text:?} is not a finding code; the codes are: {}",
            codes.join(", ")
        ))
    }
}

/// `--date-from`, `--date-to`: YYYY, YYYY.MM or YYYY.MM.DD.
pub fn parse_date(text: &str) -> Result<String, String> {
    const WANT: &str = "want YYYY, YYYY.MM or YYYY.MM.DD";
    let not_a_date = || format!("{text:?} is not a date ({WANT})");
    let parts: Vec<&str> = text.trim().split(['.', '-', '/']).map(str::trim).collect();
    let number = |p: &str| {
        (!p.is_empty() && p.len() <= 4 && p.bytes().all(|b| b.is_ascii_digit()))
            .then(|| p.parse::<i64>().ok())
            .flatten()
    };
    if parts.len() > 3 {
        return Err(not_a_date());
    }
    let year = number(parts[0]).ok_or_else(not_a_date)?;
    if let Some(m) = parts.get(1) {
        let month = number(m).ok_or_else(not_a_date)?;
        if !(1..=12).contains(&month) {
            return Err(format!(
                "{text:?} is not a date: there is no month {month} ({WANT})"
            ));
        }
        if let Some(d) = parts.get(2) {
            let day = number(d).ok_or_else(not_a_date)?;
            let days = days_in_month(year, month);
            if !(1..=days).contains(&day) {
                return Err(format!(
                    "{text:?} is not a date: month {month} of {year} has {days} days ({WANT})"
                ));
            }
        }
    }
    Ok(text.trim().to_owned())
}

/// Days in a month of the Gregorian calendar (month 1-12).
fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// A usage error when `--date-from` comes after `--date-to` (both as `parse_date` checked
/// them): no game could be selected. `2020.05` to `2020` is a range (May to December).
pub fn check_date_range(from: &str, to: &str) -> Result<(), String> {
    match (date_key(from, 0, 0), date_key(to, 99, 99)) {
        (Some(a), Some(b)) if a > b => Err(format!(
            "--date-from {from} is after --date-to {to}: no game can be in that range"
        )),
        _ => Ok(()),
    }
}

/// Why SQLite refuses a `--where` condition: its own short message, and the whole statement
/// it was tried in (shown with `-v`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WhereError {
    pub message: String,
    pub statement: String,
}

/// Checks a `--where` condition before anything runs: it is compiled (never run) in the
/// selection's statement against an empty database of the current schema in memory. The
/// error is SQLite's message alone, without the long internal statement.
pub fn check_where(sql: &str) -> Result<(), WhereError> {
    let statement = format!(
        "SELECT g.id FROM {} WHERE ({sql})",
        games_from(crate::db::SCHEMA_VERSION)
    );
    let conn = crate::db::open(std::path::Path::new(":memory:")).map_err(|e| WhereError {
        message: e.to_string(),
        statement: statement.clone(),
    })?;
    match conn.prepare(&statement) {
        Ok(_) => Ok(()),
        Err(rusqlite::Error::SqlInputError { msg, .. }) => Err(WhereError {
            message: msg,
            statement,
        }),
        Err(e) => Err(WhereError {
            message: e.to_string(),
            statement,
        }),
    }
}

#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// A person on either side, any spelling, ignoring case; several mean any of them.
    /// `resolve_names` turns these into `persons`, as the command line's names always are.
    pub player: Vec<String>,
    /// Persons (players.id) on either side; several mean any of them.
    pub persons: Vec<i64>,
    /// Only these games (a position search's matches); None: no restriction.
    pub ids: Option<Vec<i64>>,
    /// Only the games stored after this id (those an import just added).
    pub after_id: Option<i64>,
    /// White's and Black's person (players.id), resolved from `white` and `black`.
    pub white_person: Option<i64>,
    pub black_person: Option<i64>,
    /// A name on either side exactly as written; several mean any of them.
    pub player_exact: Vec<String>,
    pub white: Option<String>,
    pub black: Option<String>,
    pub event: Option<String>,
    /// The events `event` names (`db::events::resolve`, the one rule `tournament` uses too),
    /// once the names are resolved.
    pub event_ids: Vec<i64>,
    /// The Site tag, exactly as written.
    pub site: Option<String>,
    /// ECO codes or prefixes of arbiter's classification (`B`, `B9`, `B90`); any of them.
    pub eco: Vec<String>,
    /// The start of arbiter's opening name, ignoring ASCII case (`Sicilian Defense`,
    /// `Sicilian Defense: Najdorf`); any of them.
    pub opening: Vec<String>,
    /// The time-control class (`identity::timecontrol::CLASSES`).
    pub tc_class: Option<&'static str>,
    /// Inclusive bounds on the date, `YYYY`, `YYYY.MM` or `YYYY.MM.DD` (checked).
    pub date_from: Option<String>,
    pub date_to: Option<String>,
    pub result: Option<ResultValue>,
    /// Both players rated at least this.
    pub min_elo: Option<i64>,
    pub min_plies: Option<i64>,
    pub max_plies: Option<i64>,
    /// Games with a finding of this code.
    pub has_finding: Vec<String>,
    /// Games without a finding of this code.
    pub lacks_finding: Vec<String>,
    /// Games with at least one finding of this severity.
    pub severity: Option<crate::findings::Severity>,
    pub edition: Option<crate::laws::Edition>,
    /// Leave out duplicates that are not their group's survivor (schema version 2).
    pub unique: bool,
    /// Only the members of duplicate groups (schema version 2).
    pub in_duplicate_group: bool,
    /// Raw SQL condition on `g` (games), `w`/`b` (spellings), `pw`/`pb` (persons), `e`
    /// (events).
    pub sql: Option<String>,
}

/// `--eco`: a code or prefix, `A`..`E` then up to two digits (`B`, `B9`, `B90`).
pub fn parse_eco(text: &str) -> Result<String, String> {
    let code = text.trim().to_ascii_uppercase();
    let mut chars = code.chars();
    let letter = chars.next().is_some_and(|c| ('A'..='E').contains(&c));
    let digits: Vec<char> = chars.collect();
    if letter && digits.len() <= 2 && digits.iter().all(char::is_ascii_digit) {
        Ok(code)
    } else {
        Err(format!(
            "{text:?} is not an ECO code or prefix: a letter A, B, C, D or E and up to two \
             digits (B, B9, B90)"
        ))
    }
}

/// `--opening`: the start of a name in arbiter's opening book; one that starts no name is
/// refused with the families.
pub fn parse_opening(text: &str) -> Result<String, String> {
    let book = crate::identity::openings::Book::get();
    let want = text.trim();
    let lower = want.to_ascii_lowercase();
    if !want.is_empty()
        && book
            .names()
            .any(|n| n.to_ascii_lowercase().starts_with(&lower))
    {
        return Ok(want.to_owned());
    }
    let mut families: Vec<&str> = book
        .names()
        .map(|n| n.split(':').next().unwrap_or(n))
        .collect();
    families.sort_unstable();
    families.dedup();
    Err(format!(
        "{text:?} starts no opening name; the families are: {}",
        families.join(", ")
    ))
}

/// `--tc-class`: one of `identity::timecontrol::CLASSES`.
pub fn parse_tc_class(text: &str) -> Result<&'static str, String> {
    one_of(text, &crate::identity::timecontrol::CLASSES, str::to_owned)
}

/// `text` for a LIKE pattern with `\` as the escape: `%` and `_` match themselves.
fn like_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `(year, month, day)` sort key for a partial date; missing parts take `fill`.
fn date_key(text: &str, fill_month: i64, fill_day: i64) -> Option<i64> {
    let mut parts = text.trim().split(['.', '-', '/']);
    let year: i64 = parts.next()?.trim().parse().ok()?;
    let mut part = |fill: i64| match parts.next() {
        None => Some(fill),
        Some(p) => p.trim().parse::<i64>().ok(),
    };
    let month = part(fill_month)?;
    let day = part(fill_day)?;
    Some(year * 10_000 + month * 100 + day)
}

impl Filter {
    /// The WHERE clause (without the keyword; `1` when there is no filter) and its values,
    /// for a database of schema `version` (persons exist from version 2).
    pub(super) fn to_sql(&self, version: i64) -> (String, Vec<Value>) {
        let mut c = Conds::default();
        self.who_sql(&mut c, version);
        self.games_sql(&mut c, version);
        self.findings_sql(&mut c, version);
        let clause = if c.conds.is_empty() {
            "1".to_owned()
        } else {
            c.conds.join(" AND ")
        };
        (clause, c.values)
    }

    /// The players' conditions: names, ids, persons, sides.
    fn who_sql(&self, c: &mut Conds, version: i64) {
        // The condition that side `s` (`w` or `b`) is the person named `?`: a spelling of
        // that person or its canonical name, ignoring (ASCII) case, or the person whose
        // identity key is the name's safe normalisation (`carlsen,magnus` finds
        // `Carlsen, Magnus`: docs/IDENTITY.md). Version 1 knows only the names as written.
        let v2 = version >= 2;
        let person = |s: &str| {
            if v2 {
                format!(
                    "{s}.person_id IN (SELECT n.person_id FROM player_names n WHERE n.name = ? \
                     COLLATE NOCASE UNION SELECT p.id FROM players p WHERE p.name = ? \
                     COLLATE NOCASE OR p.key = ?)"
                )
            } else {
                format!("({s}.name = ? COLLATE NOCASE OR {s}.name = ? COLLATE NOCASE)")
            }
        };
        let person_values = |name: &str| {
            let mut v = vec![text(name), text(name)];
            if v2 {
                v.push(text(&crate::identity::names::name_key(
                    &crate::identity::names::normalise(name),
                )));
            }
            v
        };
        if !self.player.is_empty() {
            let mut any = Vec::new();
            let mut vals = Vec::new();
            for p in &self.player {
                any.push(format!("{} OR {}", person("w"), person("b")));
                vals.extend(person_values(p));
                vals.extend(person_values(p));
            }
            c.push(&format!("({})", any.join(" OR ")), vals);
        }
        if let Some(ids) = &self.ids {
            // One bound value however many games: a JSON array read by json_each.
            let list = format!(
                "[{}]",
                ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
            );
            c.push(
                "g.id IN (SELECT value FROM json_each(?))",
                vec![Value::Text(list)],
            );
        }
        if let Some(id) = self.after_id {
            c.push("g.id > ?", vec![Value::Integer(id)]);
        }
        if !self.persons.is_empty() {
            let marks = vec!["?"; self.persons.len()].join(", ");
            let ids: Vec<Value> = self.persons.iter().map(|&id| Value::Integer(id)).collect();
            let mut vals = ids.clone();
            vals.extend(ids);
            c.push(
                &format!("(w.person_id IN ({marks}) OR b.person_id IN ({marks}))"),
                vals,
            );
        }
        if let Some(id) = self.white_person {
            c.push("w.person_id = ?", vec![Value::Integer(id)]);
        }
        if let Some(id) = self.black_person {
            c.push("b.person_id = ?", vec![Value::Integer(id)]);
        }
        if !self.player_exact.is_empty() {
            let mut any = Vec::new();
            let mut vals = Vec::new();
            for p in &self.player_exact {
                any.push("w.name = ? OR b.name = ?");
                vals.extend([text(p), text(p)]);
            }
            c.push(&format!("({})", any.join(" OR ")), vals);
        }
        if let Some(p) = &self.white {
            c.push(&person("w"), person_values(p));
        }
        if let Some(p) = &self.black {
            c.push(&person("b"), person_values(p));
        }
    }

    /// The game's own columns: event, site, classification, time control, dates, result,
    /// ratings, length.
    fn games_sql(&self, c: &mut Conds, version: i64) {
        let v2 = version >= 2;
        if !self.event_ids.is_empty() {
            let marks = vec!["?"; self.event_ids.len()].join(", ");
            let vals = self
                .event_ids
                .iter()
                .map(|&id| Value::Integer(id))
                .collect();
            c.push(&format!("g.event_id IN ({marks})"), vals);
        } else if let Some(e) = &self.event {
            c.push("e.name = ?", vec![text(e)]);
        }
        if let Some(s) = &self.site {
            c.push("g.site = ?", vec![text(s)]);
        }
        // Columns of schema version 2 (the classification and the time control).
        if v2 && !self.eco.is_empty() {
            let any = vec!["g.eco LIKE ?"; self.eco.len()].join(" OR ");
            let vals = self.eco.iter().map(|e| text(&format!("{e}%"))).collect();
            c.push(&format!("({any})"), vals);
        }
        if v2 && !self.opening.is_empty() {
            // Version 3 keeps the names once, in `openings`.
            let column = if version >= 3 {
                "(SELECT o3.name FROM openings o3 WHERE o3.id = g.opening_id)"
            } else {
                "g.opening"
            };
            let any = vec![format!("{column} LIKE ? ESCAPE '\\'"); self.opening.len()].join(" OR ");
            let vals = self
                .opening
                .iter()
                .map(|o| text(&format!("{}%", like_escape(o))))
                .collect();
            c.push(&format!("({any})"), vals);
        }
        if let Some(tc) = self.tc_class.filter(|_| v2) {
            c.push("g.tc_class = ?", vec![text(tc)]);
        }
        let key = "(g.year * 10000 + coalesce(g.month, 0) * 100 + coalesce(g.day, 0))";
        if let Some(k) = self.date_from.as_deref().and_then(|d| date_key(d, 0, 0)) {
            c.push(
                &format!("g.year IS NOT NULL AND {key} >= ?"),
                vec![Value::Integer(k)],
            );
        }
        if let Some(k) = self.date_to.as_deref().and_then(|d| date_key(d, 99, 99)) {
            c.push(
                &format!("g.year IS NOT NULL AND {key} <= ?"),
                vec![Value::Integer(k)],
            );
        }
        if let Some(r) = self.result {
            c.push("g.result = ?", vec![text(r.as_str())]);
        }
        if let Some(n) = self.min_elo {
            c.push(
                "g.white_elo >= ? AND g.black_elo >= ?",
                vec![Value::Integer(n), Value::Integer(n)],
            );
        }
        if let Some(n) = self.min_plies {
            c.push("g.ply_count >= ?", vec![Value::Integer(n)]);
        }
        if let Some(n) = self.max_plies {
            c.push("g.ply_count <= ?", vec![Value::Integer(n)]);
        }
    }

    /// Findings, the edition applied, duplicates, and the user's own SQL.
    fn findings_sql(&self, c: &mut Conds, version: i64) {
        for code in &self.has_finding {
            c.push(
                "EXISTS (SELECT 1 FROM findings f WHERE f.game_id = g.id AND f.code = ?)",
                vec![text(code)],
            );
        }
        for code in &self.lacks_finding {
            c.push(
                "NOT EXISTS (SELECT 1 FROM findings f WHERE f.game_id = g.id AND f.code = ?)",
                vec![text(code)],
            );
        }
        if let Some(s) = self.severity {
            c.push(
                "EXISTS (SELECT 1 FROM findings f WHERE f.game_id = g.id AND f.severity = ?)",
                vec![text(s.as_str())],
            );
        }
        if let Some(e) = self.edition {
            // Databases written before 1993's edition was renamed hold `1997` for it.
            let names = e.stored_names();
            let marks = vec!["?"; names.len()].join(", ");
            c.push(
                &format!("g.laws_edition IN ({marks})"),
                names.iter().map(|n| text(n)).collect(),
            );
        }
        if self.unique && version >= 2 {
            c.push(
                "NOT EXISTS (SELECT 1 FROM duplicate_members d WHERE d.game_id = g.id \
                 AND d.survivor = 0)",
                Vec::new(),
            );
        }
        if self.in_duplicate_group && version >= 2 {
            c.push("dm.group_id IS NOT NULL", Vec::new());
        }
        if let Some(sql) = &self.sql {
            c.push(&format!("({sql})"), Vec::new());
        }
    }
}

fn text(s: &str) -> Value {
    Value::Text(s.to_owned())
}

/// The conditions of a WHERE clause and their values, numbered as they come.
#[derive(Default)]
struct Conds {
    conds: Vec<String>,
    values: Vec<Value>,
}

impl Conds {
    /// Adds `cond`; each `?` in it becomes the numbered parameter of the next value.
    fn push(&mut self, cond: &str, vals: Vec<Value>) {
        let mut pieces = cond.split('?');
        let mut c = pieces.next().unwrap_or_default().to_owned();
        let mut vals = vals.into_iter();
        for piece in pieces {
            match vals.next() {
                Some(v) => {
                    self.values.push(v);
                    c.push_str(&format!("?{}", self.values.len()));
                }
                // A `?` in raw SQL with no value of ours stays as written.
                None => c.push('?'),
            }
            c.push_str(piece);
        }
        self.conds.push(c);
    }
}

/// Why the names of a selection do not select: a person that nobody or several persons are
/// called, a spelling or an event the database does not hold.
#[derive(Debug)]
pub enum SelectError {
    Person(ResolveError),
    /// `--player-exact`: no spelling is exactly this.
    NoSpelling {
        name: String,
        closest: Vec<String>,
    },
    /// `--event`: the name designates no event, or several names.
    Event(crate::db::events::ResolveError),
    Sqlite(rusqlite::Error),
}

impl std::fmt::Display for SelectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let list = |f: &mut std::fmt::Formatter<'_>, what: &str, closest: &[String]| {
            if closest.is_empty() {
                write!(f, " (the database has no {what})")
            } else {
                write!(f, "; the closest:\n  {}", closest.join("\n  "))
            }
        };
        match self {
            SelectError::Person(e) => write!(f, "{e}"),
            SelectError::NoSpelling { name, closest } => {
                write!(f, "no player's name is written exactly {name:?}")?;
                list(f, "players", closest)
            }
            SelectError::Event(e) => write!(f, "--event: {e}"),
            SelectError::Sqlite(e) => write!(f, "database: {e}"),
        }
    }
}

impl std::error::Error for SelectError {}

impl From<rusqlite::Error> for SelectError {
    fn from(e: rusqlite::Error) -> SelectError {
        SelectError::Sqlite(e)
    }
}

impl From<ResolveError> for SelectError {
    fn from(e: ResolveError) -> SelectError {
        match e {
            ResolveError::Sqlite(e) => SelectError::Sqlite(e),
            e => SelectError::Person(e),
        }
    }
}

impl Filter {
    /// Turns the names of the selection into the persons they mean (`db::directory`'s one
    /// resolver), and checks that exact spellings and the event exist: a name that matches
    /// nobody is an error listing the closest ones, never a selection of no games. Gives a
    /// note for each name that also matched persons it passed over (of several persons, a name
    /// means the one holding 95 % of their games: docs/IDENTITY.md), for the caller to print.
    pub fn resolve_names(&mut self, conn: &Connection) -> Result<Vec<String>, SelectError> {
        let mut notes = Vec::new();
        let names = !self.player.is_empty()
            || self.white.is_some()
            || self.black.is_some()
            || !self.player_exact.is_empty();
        if names {
            let dir = Directory::load(conn)?;
            let mut resolve = |name: &str| -> Result<i64, SelectError> {
                let r = dir.resolve_noted(conn, name)?;
                notes.extend(r.note());
                Ok(r.person)
            };
            for name in std::mem::take(&mut self.player) {
                let id = resolve(&name)?;
                if !self.persons.contains(&id) {
                    self.persons.push(id);
                }
            }
            if let Some(name) = self.white.take() {
                self.white_person = Some(resolve(&name)?);
            }
            if let Some(name) = self.black.take() {
                self.black_person = Some(resolve(&name)?);
            }
            for name in &self.player_exact {
                if !dir.spellings.values().any(|s| &s.name == name) {
                    return Err(SelectError::NoSpelling {
                        name: name.clone(),
                        closest: dir.closest_spellings(name, 8),
                    });
                }
            }
        }
        if let Some(event) = &self.event {
            match crate::db::events::resolve(conn, event) {
                Ok(named) => self.event_ids = named.event_ids(),
                Err(crate::db::events::ResolveError::Sqlite(e)) => return Err(e.into()),
                Err(e) => return Err(SelectError::Event(e)),
            }
        }
        Ok(notes)
    }
}

/// Games with their players, event and import, under the aliases the filters use: `g`
/// games, `w`/`b` the spellings, `pw`/`pb` the persons (v2), `e` events, `i` imports,
/// `o` the opening's names (v3).
pub(super) fn games_from(version: i64) -> &'static str {
    if version >= 3 {
        "games g LEFT JOIN player_names w ON w.id = g.white_id \
         LEFT JOIN player_names b ON b.id = g.black_id \
         LEFT JOIN players pw ON pw.id = w.person_id LEFT JOIN players pb ON pb.id = b.person_id \
         LEFT JOIN events e ON e.id = g.event_id LEFT JOIN imports i ON i.id = g.import_id \
         LEFT JOIN duplicate_members dm ON dm.game_id = g.id \
         LEFT JOIN openings o ON o.id = g.opening_id"
    } else if version >= 2 {
        "games g LEFT JOIN player_names w ON w.id = g.white_id \
         LEFT JOIN player_names b ON b.id = g.black_id \
         LEFT JOIN players pw ON pw.id = w.person_id LEFT JOIN players pb ON pb.id = b.person_id \
         LEFT JOIN events e ON e.id = g.event_id LEFT JOIN imports i ON i.id = g.import_id \
         LEFT JOIN duplicate_members dm ON dm.game_id = g.id"
    } else {
        "games g LEFT JOIN players w ON w.id = g.white_id \
         LEFT JOIN players b ON b.id = g.black_id LEFT JOIN events e ON e.id = g.event_id \
         LEFT JOIN imports i ON i.id = g.import_id"
    }
}

/// The opening's full name and family under `games_from(version)`: columns of `games` in
/// version 2, of `openings` from version 3.
pub(super) fn opening_columns(version: i64) -> &'static str {
    if version >= 3 {
        "o.name, o.family"
    } else {
        "g.opening, g.opening_family"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn impossible_dates_are_refused_naming_the_value() {
        for ok in [
            "2020",
            "2020.02",
            "2020.02.29",
            "2000.02.29",
            "1999.12.31",
            " 2012.06 ",
        ] {
            assert!(parse_date(ok).is_ok(), "{ok}");
        }
        let e = parse_date("2020.13.45").unwrap_err();
        assert!(
            e.contains("\"2020.13.45\"") && e.contains("no month 13"),
            "{e}"
        );
        let e = parse_date("2020.02.30").unwrap_err();
        assert!(
            e.contains("\"2020.02.30\"") && e.contains("has 29 days"),
            "{e}"
        );
        let e = parse_date("1900.02.29").unwrap_err();
        assert!(e.contains("has 28 days"), "{e}");
        for bad in [
            "2020.00",
            "2020.04.31",
            "2020.1.1.1",
            "20200",
            "yesterday",
            "2020..01",
            "",
        ] {
            assert!(parse_date(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_reversed_date_range_is_refused() {
        let e = check_date_range("2020", "2019").unwrap_err();
        assert!(e.contains("2020") && e.contains("2019"), "{e}");
        assert!(check_date_range("2020.06", "2020.05.31").is_err());
        assert!(check_date_range("2020.05", "2020").is_ok());
        assert!(check_date_range("2020", "2020.01").is_ok());
        assert!(check_date_range("2019", "2020").is_ok());
    }

    #[test]
    fn a_bad_where_is_one_short_line_and_a_good_one_passes() {
        assert!(check_where("g.white_title = 'GM' AND pw.name LIKE 'C%'").is_ok());
        let e = check_where("g.nosuch = 1").unwrap_err();
        assert_eq!(e.message, "no such column: g.nosuch");
        assert!(e.statement.contains("FROM games g") && e.statement.contains("g.nosuch = 1"));
        assert!(check_where("1); DROP TABLE games; --").is_err());
    }

    #[test]
    fn combines_with_and_and_numbers_parameters() {
        let f = Filter {
            player_exact: vec!["Carlsen, Magnus".into()],
            min_plies: Some(40),
            date_from: Some("2014".into()),
            date_to: Some("2014.06".into()),
            ..Filter::default()
        };
        let (sql, values) = f.to_sql(1);
        assert_eq!(values.len(), 5);
        assert!(
            sql.starts_with("(w.name = ?1 OR b.name = ?2) AND "),
            "{sql}"
        );
        assert!(
            sql.contains(">= ?3") && sql.contains("<= ?4") && sql.ends_with("g.ply_count >= ?5"),
            "{sql}"
        );
        assert_eq!(values[2], Value::Integer(20_140_000));
        assert_eq!(values[3], Value::Integer(20_140_699));
        assert_eq!(Filter::default().to_sql(2).0, "1");
    }

    #[test]
    fn classification_and_the_import_stage_select_by_their_columns() {
        let f = Filter {
            eco: vec!["B9".into()],
            tc_class: Some("blitz"),
            after_id: Some(41),
            in_duplicate_group: true,
            ..Filter::default()
        };
        let (sql, values) = f.to_sql(3);
        assert!(sql.starts_with("g.id > ?1 AND "), "{sql}");
        assert!(
            sql.contains("g.eco LIKE ?") && sql.contains("g.tc_class = ?"),
            "{sql}"
        );
        assert!(sql.ends_with("dm.group_id IS NOT NULL"), "{sql}");
        assert_eq!(values[0], Value::Integer(41));
        assert!(values.contains(&Value::Text("B9%".into())));
        // Version 1 has no duplicate groups.
        assert!(!f.to_sql(1).0.contains("dm."));
    }

    #[test]
    fn repeated_players_mean_any_of_them() {
        let f = Filter {
            player: vec!["carlsen, magnus".into(), "Caruana, F".into()],
            ..Filter::default()
        };
        let (sql, values) = f.to_sql(2);
        assert_eq!(values.len(), 12);
        assert_eq!(values[2], Value::Text("name:carlsen, magnus".into()));
        assert_eq!(sql.matches(" OR ").count(), 7, "{sql}");
        assert!(sql.contains("COLLATE NOCASE"), "{sql}");
    }

    #[test]
    fn bad_values_are_refused_with_the_valid_ones() {
        assert_eq!(parse_result("1/2-1/2"), Ok(ResultValue::Draw));
        // The one result parser: the draw as PGN writes it and as many sites print it.
        assert_eq!(parse_result("½-½"), Ok(ResultValue::Draw));
        let e = parse_result("1:0").unwrap_err();
        assert!(e.contains("1-0, 0-1, 1/2-1/2, *"), "{e}");
        let e = parse_severity("fatal").unwrap_err();
        assert!(e.contains("info, warning, error"), "{e}");
        assert_eq!(parse_edition("2014"), Ok(crate::laws::Edition::Fide2014));
        let e = parse_edition("2018").unwrap_err();
        assert!(e.contains("1980, 1993, 2001, 2014"), "{e}");
        assert_eq!(parse_edition("1997"), Ok(crate::laws::Edition::Fide1993));
        assert!(parse_code("result.mismatch").is_ok());
        let e = parse_code("result.mismatchh").unwrap_err();
        assert!(e.contains("result.mismatch,"), "{e}");
        assert_eq!(known_codes().len(), crate::findings::CATALOGUE.len());
        assert!(parse_code("move.repaired.castling-zeros").is_ok());
        assert!(parse_code("pgn.bom").is_ok());
        assert!(parse_date("2014.06").is_ok());
        assert!(parse_date("last year").is_err());
        assert!(parse_date("2014.xx").is_err());
    }
}
