//! The selection flags every command that reads games from the database shares (`export`,
//! `stats *`, `openings`, `ratings`, `duplicates`): one clap struct, flattened into each
//! command, turned into `db::query::select::Filter` here and nowhere else. Each value is checked
//! when the command line is read, so a bad one is a usage error (exit 2) listing the valid
//! ones.

use crate::db::query::select::{
    Filter, ResultValue, check_date_range, check_where, parse_code, parse_date, parse_eco,
    parse_edition, parse_opening, parse_result, parse_severity, parse_tc_class,
};
use clap::Args;

/// Which games a command reads. Flags combine with AND; a repeated flag means any of its
/// values.
#[derive(Args, Debug, Clone, Default)]
#[command(next_help_heading = "Selection (the same flags in export, stats, openings, ratings)")]
pub struct FilterArgs {
    /// A player on either side: the person under any spelling, ignoring case. Repeat for
    /// games of any of them.
    #[arg(long)]
    pub player: Vec<String>,
    /// A player on either side whose name as written is exactly this. Repeatable.
    #[arg(long)]
    pub player_exact: Vec<String>,
    /// White: the person under any spelling, ignoring case.
    #[arg(long)]
    pub white: Option<String>,
    /// Black: the person under any spelling, ignoring case.
    #[arg(long)]
    pub black: Option<String>,
    /// The Event tag, exactly as written.
    #[arg(long)]
    pub event: Option<String>,
    /// The Site tag, exactly as written.
    #[arg(long)]
    pub site: Option<String>,
    /// Games on or after this date (YYYY, YYYY.MM or YYYY.MM.DD); undated games are left out.
    #[arg(long, visible_alias = "from", value_parser = parse_date)]
    pub date_from: Option<String>,
    /// Games on or before this date; undated games are left out.
    #[arg(long, visible_alias = "to", value_parser = parse_date)]
    pub date_to: Option<String>,
    /// Recorded result: 1-0, 0-1, 1/2-1/2 or *.
    #[arg(long, value_parser = parse_result)]
    pub result: Option<ResultValue>,
    /// arbiter's ECO code, or its start (B, B9, B90). Repeat for any of them.
    #[arg(long, value_parser = parse_eco)]
    pub eco: Vec<String>,
    /// The start of arbiter's opening name, ignoring case ('Sicilian Defense',
    /// 'Sicilian Defense: Najdorf'). Repeat for any of them.
    #[arg(long, value_parser = parse_opening)]
    pub opening: Vec<String>,
    /// Time-control class: classical, rapid, blitz, bullet, correspondence or unknown.
    #[arg(long, value_parser = parse_tc_class)]
    pub tc_class: Option<&'static str>,
    /// Both players rated at least this.
    #[arg(long)]
    pub min_elo: Option<i64>,
    /// At least this many half-moves in the main line.
    #[arg(long)]
    pub min_plies: Option<i64>,
    /// At most this many half-moves in the main line.
    #[arg(long)]
    pub max_plies: Option<i64>,
    /// Only games with a finding of this code (repeatable; docs/findings.md).
    #[arg(long, value_parser = parse_code)]
    pub has_finding: Vec<String>,
    /// Only games without a finding of this code (repeatable).
    #[arg(long, value_parser = parse_code)]
    pub lacks_finding: Vec<String>,
    /// Only games with a finding of this severity: info, warning or error.
    #[arg(long, value_parser = parse_severity)]
    pub severity: Option<crate::pgn::Severity>,
    /// Only games judged under this edition of the Laws: 1980, 1993 (alias 1997), 2001 or 2014.
    #[arg(long, value_parser = parse_edition)]
    pub laws: Option<crate::laws::Edition>,
    /// Of each group of records of one game (`arbiter duplicates`), only the survivor. The
    /// default of stats, openings and ratings.
    #[arg(long, conflicts_with = "all_games")]
    pub unique: bool,
    /// Every record, duplicates included. The default of export.
    #[arg(long)]
    pub all_games: bool,
    /// A raw SQL condition on `g` (games), `w`/`b` (names as written), `pw`/`pb` (persons),
    /// `e` (events), e.g. "g.white_title = 'GM'".
    #[arg(long = "where", value_name = "SQL")]
    pub where_sql: Option<String>,
    /// Say more: with a --where that SQLite refuses, the whole statement it was tried in;
    /// with `ratings`, every group or set of players in a message, not the first ten.
    #[arg(short = 'v', long)]
    pub verbose: bool,
}

/// Checks what the selection flags' own parsers cannot see alone, once the command line is
/// read and before the command runs: `--date-from` after `--date-to`, and a `--where`
/// condition SQLite refuses (one short line; `-v` adds the statement). A usage error, as
/// for any bad value. `matches` is the whole command line's; the selection flags are the
/// innermost subcommand's, when it has them.
pub fn check_selection(matches: &clap::ArgMatches) -> Result<(), String> {
    let mut m = matches;
    while let Some((_, sub)) = m.subcommand() {
        m = sub;
    }
    let text = |id: &str| m.try_get_one::<String>(id).ok().flatten();
    if let (Some(from), Some(to)) = (text("date_from"), text("date_to")) {
        check_date_range(from, to)?;
    }
    if let Some(sql) = text("where_sql")
        && let Err(e) = check_where(sql)
    {
        let verbose = m.try_get_one::<bool>("verbose").ok().flatten() == Some(&true);
        return Err(if verbose {
            format!("--where {sql:?}: {}\n  in: {}", e.message, e.statement)
        } else {
            format!("--where {sql:?}: {} (-v shows the statement)", e.message)
        });
    }
    Ok(())
}

impl FilterArgs {
    /// The filter these flags mean; `unique_by_default` is the command's choice when neither
    /// `--unique` nor `--all-games` is given.
    pub fn filter(&self, unique_by_default: bool) -> Filter {
        Filter {
            player: self.player.clone(),
            player_exact: self.player_exact.clone(),
            white: self.white.clone(),
            black: self.black.clone(),
            event: self.event.clone(),
            site: self.site.clone(),
            eco: self.eco.clone(),
            opening: self.opening.clone(),
            tc_class: self.tc_class,
            date_from: self.date_from.clone(),
            date_to: self.date_to.clone(),
            result: self.result,
            min_elo: self.min_elo,
            min_plies: self.min_plies,
            max_plies: self.max_plies,
            has_finding: self.has_finding.clone(),
            lacks_finding: self.lacks_finding.clone(),
            severity: self.severity,
            edition: self.laws,
            unique: self.unique || (unique_by_default && !self.all_games),
            sql: self.where_sql.clone(),
            ..Filter::default()
        }
    }

    /// The filter with its names resolved against the database (`Filter::resolve_names`): a
    /// person, spelling or event that matches nobody is a usage error listing the closest.
    pub fn select(
        &self,
        conn: &rusqlite::Connection,
        unique_by_default: bool,
    ) -> super::error::Result<Filter> {
        let mut filter = self.filter(unique_by_default);
        let notes = filter.resolve_names(conn).map_err(|e| match e {
            crate::db::query::select::SelectError::Sqlite(e) => super::error::AppError::Sqlite(e),
            e => super::error::AppError::Usage(e.to_string()),
        })?;
        for note in notes {
            eprintln!("note: {note}");
        }
        Ok(filter)
    }

    /// The flags given, as a JSON object keyed by flag name (stored with a rating run so it
    /// can be redone).
    pub fn settings(&self) -> serde_json::Value {
        let mut m = serde_json::Map::new();
        let mut put = |k: &str, v: serde_json::Value| {
            if !(v.is_null() || v == false || v.as_array().is_some_and(Vec::is_empty)) {
                m.insert(k.to_owned(), v);
            }
        };
        use serde_json::json;
        put("player", json!(self.player));
        put("player-exact", json!(self.player_exact));
        put("white", json!(self.white));
        put("black", json!(self.black));
        put("event", json!(self.event));
        put("site", json!(self.site));
        put("date-from", json!(self.date_from));
        put("date-to", json!(self.date_to));
        put("result", json!(self.result.map(ResultValue::as_str)));
        put("eco", json!(self.eco));
        put("opening", json!(self.opening));
        put("tc-class", json!(self.tc_class));
        put("min-elo", json!(self.min_elo));
        put("min-plies", json!(self.min_plies));
        put("max-plies", json!(self.max_plies));
        put("has-finding", json!(self.has_finding));
        put("lacks-finding", json!(self.lacks_finding));
        put("severity", json!(self.severity.map(|s| s.as_str())));
        put("laws", json!(self.laws.map(|e| e.year())));
        put("unique", json!(self.unique));
        put("all-games", json!(self.all_games));
        put("where", json!(self.where_sql));
        serde_json::Value::Object(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser, Debug)]
    struct Probe {
        #[command(flatten)]
        filter: FilterArgs,
    }

    fn parse(args: &[&str]) -> Result<Filter, clap::Error> {
        let mut all = vec!["probe"];
        all.extend_from_slice(args);
        Probe::try_parse_from(all).map(|p| p.filter.filter(false))
    }

    #[test]
    fn every_flag_reaches_the_filter() {
        let f = parse(&[
            "--player",
            "Carlsen, Magnus",
            "--player",
            "Caruana",
            "--site",
            "Wijk aan Zee",
            "--from",
            "2010",
            "--to",
            "2012.06",
            "--eco",
            "b9",
            "--opening",
            "Sicilian",
            "--tc-class",
            "blitz",
            "--result",
            "1-0",
            "--laws",
            "2001",
            "--unique",
        ])
        .unwrap();
        assert_eq!(f.player, ["Carlsen, Magnus", "Caruana"]);
        assert_eq!(f.site.as_deref(), Some("Wijk aan Zee"));
        assert_eq!(
            (f.date_from.as_deref(), f.date_to.as_deref()),
            (Some("2010"), Some("2012.06"))
        );
        assert_eq!(f.eco, ["B9"]);
        assert_eq!(f.opening, ["Sicilian"]);
        assert_eq!(f.tc_class, Some("blitz"));
        assert_eq!(f.result, Some(ResultValue::WhiteWins));
        assert_eq!(f.edition, Some(crate::laws::Edition::Fide2001));
        assert!(f.unique);
        let settings = Probe::try_parse_from(["probe", "--tc-class", "rapid", "--min-elo", "2500"])
            .unwrap()
            .filter
            .settings();
        assert_eq!(
            settings.to_string(),
            r#"{"min-elo":2500,"tc-class":"rapid"}"#
        );
    }

    #[test]
    fn duplicates_follow_the_command_default_unless_told() {
        let probe = |args: &[&str]| {
            let mut all = vec!["probe"];
            all.extend_from_slice(args);
            Probe::try_parse_from(all).unwrap().filter
        };
        assert!(probe(&[]).filter(true).unique);
        assert!(!probe(&[]).filter(false).unique);
        assert!(!probe(&["--all-games"]).filter(true).unique);
        assert!(probe(&["--unique"]).filter(false).unique);
        assert!(Probe::try_parse_from(["probe", "--unique", "--all-games"]).is_err());
    }

    #[test]
    fn bad_values_list_the_valid_ones() {
        let message = |args: &[&str]| parse(args).unwrap_err().to_string();
        assert!(message(&["--tc-class", "armageddon"]).contains("classical, rapid, blitz"));
        assert!(message(&["--eco", "F00"]).contains("A, B, C, D or E"));
        assert!(message(&["--eco", "B901"]).contains("up to two"));
        let e = message(&["--opening", "Martian Gambit"]);
        assert!(
            e.contains("Sicilian Defense") && e.contains("Ruy Lopez"),
            "{e}"
        );
        assert!(message(&["--result", "1:0"]).contains("1-0, 0-1"));
        assert!(message(&["--from", "yesterday"]).contains("YYYY"));
        assert_eq!(
            parse(&["--opening", "sicilian defense: najdorf"])
                .unwrap()
                .opening,
            ["sicilian defense: najdorf"]
        );
    }
}
