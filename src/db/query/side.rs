//! The per-game tables an export reads beside `games` (tags, comments, findings,
//! evaluations, analyses): either one cursor per table, read in game-id order alongside the
//! games' own cursor (a merge join: five streaming queries for the whole export), or one
//! indexed lookup per game and table when the games do not come out in id order
//! (partitioned output). The merge join is what makes a full export fast: five lookups a
//! game were a third of the time of a 1M-game export (docs/PERFORMANCE.md).

use super::QueryError;
use rusqlite::fallible_streaming_iterator::FallibleStreamingIterator;
use rusqlite::types::Value;
use rusqlite::{Connection, Row, Rows, Statement, params_from_iter};

/// Each table's rows with the game id first; `{rows}` is where the merge join restricts
/// them, `{key}` the order within a game.
const TABLES: [(&str, &str); 5] = [
    ("SELECT game_id, name, value FROM tags", "seq"),
    ("SELECT game_id, ply, text FROM comments", "ply, seq"),
    ("SELECT game_id, code, ply FROM findings", "id"),
    (
        "SELECT game_id, ply, score_cp, mate, depth, pv FROM evaluations",
        "ply",
    ),
    (
        "SELECT game_id, white_accuracy, black_accuracy, white_inaccuracies, white_mistakes, \
         white_blunders, black_inaccuracies, black_mistakes, black_blunders, settings \
         FROM analyses",
        "game_id",
    ),
];

/// Before version 12 (`evaluations.pv`): the evaluations without their lines.
const EVALUATIONS_BEFORE_12: &str =
    "SELECT game_id, ply, score_cp, mate, depth, NULL FROM evaluations";

/// Which per-game table, in the order of `TABLES`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    Tags,
    Comments,
    Findings,
    Evaluations,
    Analyses,
}

/// The prepared statements, owned here so that the cursors can borrow them.
pub struct SideStatements<'c> {
    statements: Vec<Statement<'c>>,
    merged: bool,
    values: Vec<Value>,
}

impl<'c> SideStatements<'c> {
    /// `merged`: the games come out in ascending id order, selected by `clause` over
    /// `from` (the games' joins) with `values` bound; each table is then read once, in that
    /// order, restricted to the selected games. Otherwise one lookup per game. `version` is
    /// the schema version (older files are read as they are).
    pub fn prepare(
        conn: &'c Connection,
        version: i64,
        merged: bool,
        from: &str,
        clause: &str,
        values: &[Value],
    ) -> Result<SideStatements<'c>, QueryError> {
        let statements = TABLES
            .iter()
            .enumerate()
            .map(|(i, &(select, key))| {
                let select = if i == Table::Evaluations as usize && version < 12 {
                    EVALUATIONS_BEFORE_12
                } else {
                    select
                };
                let sql = match (merged, clause == "1") {
                    (false, _) => format!("{select} WHERE game_id = ?1 ORDER BY {key}"),
                    (true, true) => format!("{select} ORDER BY game_id, {key}"),
                    // The selected ids, in order: SQLite walks the sorted IN list and looks
                    // each game's rows up, so no sorter holds the table (EXPLAIN QUERY PLAN).
                    (true, false) => format!(
                        "{select} WHERE game_id IN (SELECT g.id FROM {from} WHERE {clause}) \
                         ORDER BY game_id, {key}"
                    ),
                };
                conn.prepare(&sql)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(SideStatements {
            statements,
            merged,
            values: if merged && clause != "1" {
                values.to_vec()
            } else {
                Vec::new()
            },
        })
    }

    /// The readers, positioned before the first game.
    pub fn open(&mut self) -> Result<SideRows<'_, 'c>, QueryError> {
        let mut sources = Vec::with_capacity(TABLES.len());
        for st in &mut self.statements {
            sources.push(if self.merged {
                let mut rows = st.query(params_from_iter(self.values.iter()))?;
                rows.advance()?;
                Source::Merged(rows)
            } else {
                Source::PerGame(st)
            });
        }
        Ok(SideRows { sources })
    }
}

enum Source<'s, 'c> {
    PerGame(&'s mut Statement<'c>),
    /// Positioned on the first row not yet handed out.
    Merged(Rows<'s>),
}

/// Reads the rows of each game, games asked for in the order of the games' cursor.
pub struct SideRows<'s, 'c> {
    sources: Vec<Source<'s, 'c>>,
}

impl SideRows<'_, '_> {
    /// Calls `each` with every row of `table` for game `id` (column 0 is the game id, the
    /// table's values follow), in the table's order. With the merge join, rows of games
    /// before `id` that were not asked for are skipped.
    pub fn each(
        &mut self,
        table: Table,
        id: i64,
        mut each: impl FnMut(&Row<'_>) -> rusqlite::Result<()>,
    ) -> Result<(), QueryError> {
        match &mut self.sources[table as usize] {
            Source::PerGame(st) => {
                let mut rows = st.query([id])?;
                while let Some(r) = rows.next()? {
                    each(r)?;
                }
            }
            Source::Merged(rows) => {
                while let Some(r) = rows.get() {
                    let game: i64 = r.get(0)?;
                    if game > id {
                        break;
                    }
                    if game == id {
                        each(r)?;
                    }
                    rows.advance()?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::types::ValueRef;

    /// Every table, its rows for games 1..=4, read for games `ids` both ways.
    fn read(merged: bool, clause: &str, ids: &[i64]) -> Vec<(i64, String)> {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE games (id INTEGER PRIMARY KEY, year INTEGER);
             CREATE TABLE tags (game_id, seq, name, value, PRIMARY KEY (game_id, seq));
             CREATE TABLE comments (game_id, ply, seq, text, PRIMARY KEY (game_id, ply, seq));
             CREATE TABLE findings (id INTEGER PRIMARY KEY, game_id, code, ply);
             CREATE TABLE evaluations (game_id, ply, score_cp, mate, depth);
             CREATE TABLE analyses (game_id INTEGER PRIMARY KEY, white_accuracy,
               black_accuracy, white_inaccuracies, white_mistakes, white_blunders,
               black_inaccuracies, black_mistakes, black_blunders, settings);
             INSERT INTO games VALUES (1, 1990), (2, 2000), (3, 1990), (4, 1990);
             INSERT INTO tags VALUES (3, 1, 'B', 'b3'), (1, 0, 'A', 'a1'), (3, 0, 'A', 'a3'),
               (2, 0, 'A', 'a2');
             INSERT INTO comments VALUES (4, 2, 0, 'late'), (4, 1, 1, 'second'),
               (4, 1, 0, 'first');
             INSERT INTO findings VALUES (7, 3, 'x.two', 2), (5, 3, 'x.one', 1), (9, 2, 'y', NULL);
             INSERT INTO evaluations VALUES (1, 3, 20, NULL, 9);
             INSERT INTO analyses VALUES (4, 90.5, 80.0, 1, 2, 3, 4, 5, 6, '{}');",
        )
        .unwrap();
        let values = [Value::Integer(1990)];
        let mut st =
            SideStatements::prepare(&conn, 11, merged, "games g", clause, &values).unwrap();
        let mut side = st.open().unwrap();
        let mut out = Vec::new();
        for &id in ids {
            for table in [
                Table::Tags,
                Table::Comments,
                Table::Findings,
                Table::Evaluations,
                Table::Analyses,
            ] {
                side.each(table, id, |r| {
                    let show = |k: usize| match r.get_ref(k).unwrap() {
                        ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                        ValueRef::Integer(n) => n.to_string(),
                        ValueRef::Real(x) => x.to_string(),
                        v => format!("{v:?}"),
                    };
                    out.push((id, format!("{table:?} {}/{}", show(1), show(2))));
                    Ok(())
                })
                .unwrap();
            }
        }
        out
    }

    #[test]
    fn merged_cursors_give_each_game_its_rows_in_order_as_lookups_do() {
        let all = read(false, "1", &[1, 2, 3, 4]);
        assert_eq!(read(true, "1", &[1, 2, 3, 4]), all);
        let texts: Vec<_> = all.iter().map(|(id, t)| format!("{id} {t}")).collect();
        assert_eq!(
            texts,
            [
                "1 Tags A/a1",
                "1 Evaluations 3/20",
                "2 Tags A/a2",
                "2 Findings y/Null",
                "3 Tags A/a3",
                "3 Tags B/b3",
                "3 Findings x.one/1",
                "3 Findings x.two/2",
                "4 Comments 1/first",
                "4 Comments 1/second",
                "4 Comments 2/late",
                "4 Analyses 90.5/80",
            ]
        );
        // A selection (year 1990: games 1, 3, 4): the merged cursors read only those games'
        // rows; asking for a subset skips the others' rows.
        let selected = read(true, "g.year = ?1", &[1, 3, 4]);
        assert_eq!(selected, read(false, "1", &[1, 3, 4]));
        assert_eq!(read(true, "1", &[3]), read(false, "1", &[3]));
    }
}
