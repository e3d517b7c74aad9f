//! Game filters (player, event, dates, result, rating, ply count, findings, severity, Laws
//! edition, raw SQL) combined with AND into a WHERE clause with bound parameters.

use rusqlite::types::Value;

#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// A player on either side.
    pub player: Option<String>,
    pub white: Option<String>,
    pub black: Option<String>,
    pub event: Option<String>,
    /// Inclusive bounds on the date, `YYYY`, `YYYY.MM` or `YYYY.MM.DD`.
    pub date_from: Option<String>,
    pub date_to: Option<String>,
    /// Recorded result (`1-0`, `0-1`, `1/2-1/2`, `*`).
    pub result: Option<String>,
    /// Both players rated at least this.
    pub min_elo: Option<i64>,
    pub min_plies: Option<i64>,
    pub max_plies: Option<i64>,
    /// Games with a finding of this code.
    pub has_finding: Vec<String>,
    /// Games without a finding of this code.
    pub lacks_finding: Vec<String>,
    /// Games with at least one finding of this severity.
    pub severity: Option<String>,
    /// Edition applied: 1980, 1997, 2001, 2014.
    pub edition: Option<String>,
    /// Raw SQL condition on `g` (games), `w`/`b` (players), `e` (events).
    pub sql: Option<String>,
}

/// `(year, month, day)` sort key for a partial date; missing parts take `fill`.
fn date_key(text: &str, fill_month: i64, fill_day: i64) -> Option<i64> {
    let mut parts = text.split(['.', '-', '/']);
    let year: i64 = parts.next()?.trim().parse().ok()?;
    let month: i64 = parts
        .next()
        .and_then(|m| m.trim().parse().ok())
        .unwrap_or(fill_month);
    let day: i64 = parts
        .next()
        .and_then(|d| d.trim().parse().ok())
        .unwrap_or(fill_day);
    Some(year * 10_000 + month * 100 + day)
}

/// The date error for a user's date text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadDate(pub String);

impl std::fmt::Display for BadDate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:?} is not a date (want YYYY, YYYY.MM or YYYY.MM.DD)",
            self.0
        )
    }
}

impl std::error::Error for BadDate {}

impl Filter {
    /// The WHERE clause (without the keyword; `1` when there is no filter) and its values.
    pub fn to_sql(&self) -> Result<(String, Vec<Value>), BadDate> {
        let mut conds: Vec<String> = Vec::new();
        let mut values: Vec<Value> = Vec::new();
        // Each `?` of a condition becomes the numbered parameter of the next value.
        let mut push = |cond: &str, vals: Vec<Value>, conds: &mut Vec<String>| {
            let mut pieces = cond.split('?');
            let mut c = pieces.next().unwrap_or_default().to_owned();
            let mut vals = vals.into_iter();
            for piece in pieces {
                match vals.next() {
                    Some(v) => {
                        values.push(v);
                        c.push_str(&format!("?{}", values.len()));
                    }
                    // A `?` in raw SQL with no value of ours stays as written.
                    None => c.push('?'),
                }
                c.push_str(piece);
            }
            conds.push(c);
        };
        let text = |s: &String| Value::Text(s.clone());
        if let Some(p) = &self.player {
            push(
                "(w.name = ? OR b.name = ?)",
                vec![text(p), text(p)],
                &mut conds,
            );
        }
        if let Some(p) = &self.white {
            push("w.name = ?", vec![text(p)], &mut conds);
        }
        if let Some(p) = &self.black {
            push("b.name = ?", vec![text(p)], &mut conds);
        }
        if let Some(e) = &self.event {
            push("e.name = ?", vec![text(e)], &mut conds);
        }
        let key = "(g.year * 10000 + coalesce(g.month, 0) * 100 + coalesce(g.day, 0))";
        if let Some(d) = &self.date_from {
            let k = date_key(d, 0, 0).ok_or_else(|| BadDate(d.clone()))?;
            push(
                &format!("g.year IS NOT NULL AND {key} >= ?"),
                vec![Value::Integer(k)],
                &mut conds,
            );
        }
        if let Some(d) = &self.date_to {
            let k = date_key(d, 99, 99).ok_or_else(|| BadDate(d.clone()))?;
            push(
                &format!("g.year IS NOT NULL AND {key} <= ?"),
                vec![Value::Integer(k)],
                &mut conds,
            );
        }
        if let Some(r) = &self.result {
            push("g.result = ?", vec![text(r)], &mut conds);
        }
        if let Some(n) = self.min_elo {
            push(
                "g.white_elo >= ? AND g.black_elo >= ?",
                vec![Value::Integer(n), Value::Integer(n)],
                &mut conds,
            );
        }
        if let Some(n) = self.min_plies {
            push("g.ply_count >= ?", vec![Value::Integer(n)], &mut conds);
        }
        if let Some(n) = self.max_plies {
            push("g.ply_count <= ?", vec![Value::Integer(n)], &mut conds);
        }
        for code in &self.has_finding {
            push(
                "EXISTS (SELECT 1 FROM findings f WHERE f.game_id = g.id AND f.code = ?)",
                vec![text(code)],
                &mut conds,
            );
        }
        for code in &self.lacks_finding {
            push(
                "NOT EXISTS (SELECT 1 FROM findings f WHERE f.game_id = g.id AND f.code = ?)",
                vec![text(code)],
                &mut conds,
            );
        }
        if let Some(s) = &self.severity {
            push(
                "EXISTS (SELECT 1 FROM findings f WHERE f.game_id = g.id AND f.severity = ?)",
                vec![text(s)],
                &mut conds,
            );
        }
        if let Some(e) = &self.edition {
            push("g.laws_edition = ?", vec![text(e)], &mut conds);
        }
        if let Some(sql) = &self.sql {
            push(&format!("({sql})"), Vec::new(), &mut conds);
        }
        let clause = if conds.is_empty() {
            "1".to_owned()
        } else {
            conds.join(" AND ")
        };
        Ok((clause, values))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combines_with_and_and_numbers_parameters() {
        let f = Filter {
            player: Some("Carlsen, Magnus".into()),
            min_plies: Some(40),
            date_from: Some("2014".into()),
            date_to: Some("2014.06".into()),
            ..Filter::default()
        };
        let (sql, values) = f.to_sql().unwrap();
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
        assert_eq!(Filter::default().to_sql().unwrap().0, "1");
        let bad = Filter {
            date_from: Some("last year".into()),
            ..Filter::default()
        };
        assert!(bad.to_sql().is_err());
    }
}
