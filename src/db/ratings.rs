//! Storage of rating runs (`arbiter ratings`): one `rating_runs` row with the system's stable
//! name and its exact settings (JSON, so a run can be redone), one `ratings` row per person and,
//! for period systems, one `rating_history` row per person and period played. The run is
//! written in one transaction; each statement is its own file under `sql/`.

use rusqlite::{Connection, params};

/// A run as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRecord<'a> {
    /// The system's stable name (`pool`, `elo`, `glicko2`, `glicko`): data, never a Debug name.
    pub system: &'a str,
    /// JSON.
    pub settings: &'a str,
    /// ISO 8601 UTC.
    pub created_at: &'a str,
    pub games: i64,
    pub skipped: i64,
}

/// One person's line of a stored list.
#[derive(Debug, Clone, PartialEq)]
pub struct RatingRecord {
    pub player_id: i64,
    pub games: u32,
    pub score: f64,
    pub rating: Option<f64>,
    pub error: Option<f64>,
    pub rd: Option<f64>,
    pub volatility: Option<f64>,
    pub rank: Option<u32>,
}

/// One person's state at the end of a period in which they played.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryRecord {
    pub player_id: i64,
    /// `2024-03`, `2024-Q1` or `2024`.
    pub period: String,
    pub games: u32,
    pub rating: f64,
    pub rd: Option<f64>,
    pub volatility: Option<f64>,
}

/// Stores a run, its list and its history in one transaction; returns the run's id.
pub fn store_run(
    conn: &Connection,
    run: &RunRecord,
    ratings: &[RatingRecord],
    history: &[HistoryRecord],
) -> rusqlite::Result<i64> {
    let tx = conn.unchecked_transaction()?;
    tx.prepare_cached(include_str!("sql/insert_rating_run.sql"))?
        .execute(params![
            run.system,
            run.settings,
            run.created_at,
            run.games,
            run.skipped
        ])?;
    let run_id = tx.last_insert_rowid();
    {
        let mut insert = tx.prepare_cached(include_str!("sql/insert_rating.sql"))?;
        for r in ratings {
            insert.execute(params![
                run_id,
                r.player_id,
                r.games,
                r.score,
                r.rating,
                r.error,
                r.rd,
                r.volatility,
                r.rank
            ])?;
        }
        let mut insert = tx.prepare_cached(include_str!("sql/insert_rating_history.sql"))?;
        for h in history {
            insert.execute(params![
                run_id,
                h.player_id,
                h.period,
                h.games,
                h.rating,
                h.rd,
                h.volatility
            ])?;
        }
    }
    tx.commit()?;
    Ok(run_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_is_stored_with_its_list_and_history() {
        let dir = tempfile::tempdir().unwrap();
        let conn = crate::db::open(&dir.path().join("r.sqlite")).unwrap();
        for (id, name) in [(1, "Alice"), (2, "Bob")] {
            conn.execute(
                "INSERT INTO players (id, name, key) VALUES (?1, ?2, ?3)",
                params![id, name, format!("name:{name}")],
            )
            .unwrap();
        }
        let rating = |player_id, rating, rank| RatingRecord {
            player_id,
            games: 2,
            score: 1.0,
            rating: Some(rating),
            error: None,
            rd: Some(80.0),
            volatility: Some(0.06),
            rank: Some(rank),
        };
        let run = RunRecord {
            system: "glicko2",
            settings: r#"{"system":"glicko2","tau":0.5}"#,
            created_at: "2026-11-27T09:00:00Z",
            games: 2,
            skipped: 1,
        };
        let history = [HistoryRecord {
            player_id: 1,
            period: "2024-03".into(),
            games: 2,
            rating: 1510.0,
            rd: Some(80.0),
            volatility: Some(0.06),
        }];
        let id = store_run(
            &conn,
            &run,
            &[rating(1, 1510.0, 1), rating(2, 1490.0, 2)],
            &history,
        )
        .unwrap();
        let again = store_run(&conn, &run, &[rating(1, 1500.0, 1)], &[]).unwrap();
        assert_eq!(again, id + 1);
        let (system, skipped): (String, i64) = conn
            .query_row(
                "SELECT system, skipped FROM rating_runs WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!((system.as_str(), skipped), ("glicko2", 1));
        let rows: Vec<(i64, f64, u32)> = conn
            .prepare("SELECT player_id, rating, rank FROM ratings WHERE run_id = ?1 ORDER BY rank")
            .unwrap()
            .query_map([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(rows, [(1, 1510.0, 1), (2, 1490.0, 2)]);
        let period: String = conn
            .query_row("SELECT period FROM rating_history", [], |r| r.get(0))
            .unwrap();
        assert_eq!(period, "2024-03");
        // A failed row leaves nothing of its run behind (a person that does not exist).
        conn.pragma_update(None, "foreign_keys", "ON").unwrap();
        assert!(store_run(&conn, &run, &[rating(404, 1.0, 1)], &[]).is_err());
        let runs: i64 = conn
            .query_row("SELECT count(*) FROM rating_runs", [], |r| r.get(0))
            .unwrap();
        assert_eq!(runs, 2);
    }
}
