//! The rows the statistics read (`stats::read`, `stats::tree`): plain values, so the
//! statistics do their arithmetic without seeing a statement.

use super::{Filter, Selection, schema_version};
use rusqlite::{Connection, params_from_iter};
use std::collections::HashSet;

/// A game as the opening tree reads it.
#[derive(Debug, Clone, Copy)]
pub struct MovesRow<'a> {
    /// The packed moves (`encode::pack_moves`).
    pub moves: &'a [u8],
    /// The lawful result where the Laws gave one, else the recorded one.
    pub result: Option<&'a str>,
    pub elo: [Option<i64>; 2],
    /// From the standard start (no FEN, not Chess960).
    pub standard: bool,
}

/// Calls `each` with every game the filter selects, in the store's order.
pub fn for_each_moves(
    conn: &Connection,
    filter: &Filter,
    mut each: impl FnMut(&MovesRow<'_>),
) -> rusqlite::Result<()> {
    let selection = Selection::for_version(schema_version(conn)?, filter.clone());
    let (from, clause, values) = selection.sql();
    let sql = format!(
        "SELECT g.moves, COALESCE(g.lawful_result, g.result), g.white_elo, g.black_elo, \
         g.start_fen IS NULL AND g.variant = 'standard' FROM {from} WHERE {clause}"
    );
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query(params_from_iter(values))?;
    while let Some(r) = rows.next()? {
        let moves = r.get_ref(0)?.as_blob().map_err(rusqlite::Error::from)?;
        let result = r
            .get_ref(1)?
            .as_str_or_null()
            .map_err(rusqlite::Error::from)?;
        each(&MovesRow {
            moves,
            result,
            elo: [r.get(2)?, r.get(3)?],
            standard: r.get(4)?,
        });
    }
    Ok(())
}

/// A game as the statistics read it (`stats::read`): both sides, the result, the date, the
/// classification and the Laws' plies. The texts are buffers the next row reuses.
#[derive(Debug, Clone, Default)]
pub struct SidesRow {
    pub id: i64,
    /// White's and Black's person and spelling (`player_names.id`).
    pub persons: [Option<i64>; 2],
    pub name_ids: [Option<i64>; 2],
    pub elo: [Option<i64>; 2],
    /// The lawful result where the Laws gave one, else the recorded one.
    pub result: Option<String>,
    pub recorded: Option<String>,
    pub date: Option<String>,
    pub year: Option<i32>,
    pub month: Option<u8>,
    pub day: Option<u8>,
    pub event_id: Option<i64>,
    pub eco: Option<String>,
    pub opening: Option<String>,
    pub opening_family: Option<String>,
    pub tc_class: Option<String>,
    pub time_control: Option<String>,
    pub ply_count: u32,
    pub termination: Option<String>,
    pub laws_edition: Option<String>,
    /// A duplicate that is not its group's survivor.
    pub duplicate: bool,
    pub termination_ply: Option<u32>,
    pub threefold_ply: Option<u32>,
    pub fifty_ply: Option<u32>,
}

/// The columns of `SidesRow`, in its order; `{opening}` the opening's name and family.
const SIDES_COLUMNS: &str = "g.id, w.person_id, g.white_id, b.person_id, g.black_id, \
    g.white_elo, g.black_elo, COALESCE(g.lawful_result, g.result), g.result, g.date, g.year, \
    g.month, g.day, g.event_id, g.eco, {opening}, g.tc_class, g.time_control, \
    g.ply_count, g.termination, g.laws_edition, coalesce(dm.survivor = 0, 0), \
    g.termination_ply, g.threefold_ply, g.fifty_ply";

/// The selection's FROM list, and its WHERE clause and values narrowed to the games of
/// `person` (any of its spellings, either colour) when given.
pub(super) fn with_person(
    selection: &Selection,
    person: Option<i64>,
) -> (&'static str, String, Vec<rusqlite::types::Value>) {
    let (from, clause, values) = selection.sql();
    let mut values = values.to_vec();
    let mut clause = clause.to_owned();
    if let Some(p) = person {
        values.push(rusqlite::types::Value::Integer(p));
        let n = values.len();
        clause = format!(
            "({clause}) AND (g.white_id IN (SELECT id FROM player_names WHERE person_id = ?{n}) \
             OR g.black_id IN (SELECT id FROM player_names WHERE person_id = ?{n}))"
        );
    }
    (from, clause, values)
}

/// Calls `each` with every game the filter selects, in date order (year, month, day, game
/// id; unknown parts first, as SQLite orders NULL). `person`: only games of this person.
/// Returns the number of games read.
pub fn for_each_sides(
    conn: &Connection,
    filter: &Filter,
    person: Option<i64>,
    mut each: impl FnMut(&SidesRow),
) -> rusqlite::Result<u64> {
    let version = schema_version(conn)?;
    let selection = Selection::for_version(version, filter.clone());
    let (from, clause, values) = with_person(&selection, person);
    let columns = SIDES_COLUMNS.replace("{opening}", super::select::opening_columns(version));
    let sql = format!(
        "SELECT {columns} FROM {from} WHERE {clause} ORDER BY g.year, g.month, g.day, g.id"
    );
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query(params_from_iter(values))?;
    let text = |r: &rusqlite::Row, i: usize, into: &mut Option<String>| -> rusqlite::Result<()> {
        match r.get_ref(i)?.as_str_or_null()? {
            Some(s) => {
                let buf = into.get_or_insert_with(String::new);
                buf.clear();
                buf.push_str(s);
            }
            None => *into = None,
        }
        Ok(())
    };
    let mut row = SidesRow::default();
    let mut games = 0;
    while let Some(r) = rows.next()? {
        games += 1;
        row.id = r.get(0)?;
        row.persons = [r.get(1)?, r.get(3)?];
        row.name_ids = [r.get(2)?, r.get(4)?];
        row.elo = [r.get(5)?, r.get(6)?];
        text(r, 7, &mut row.result)?;
        text(r, 8, &mut row.recorded)?;
        text(r, 9, &mut row.date)?;
        row.year = r.get(10)?;
        row.month = r.get(11)?;
        row.day = r.get(12)?;
        row.event_id = r.get(13)?;
        text(r, 14, &mut row.eco)?;
        text(r, 15, &mut row.opening)?;
        text(r, 16, &mut row.opening_family)?;
        text(r, 17, &mut row.tc_class)?;
        text(r, 18, &mut row.time_control)?;
        row.ply_count = r.get(19)?;
        text(r, 20, &mut row.termination)?;
        text(r, 21, &mut row.laws_edition)?;
        row.duplicate = r.get(22)?;
        row.termination_ply = r.get(23)?;
        row.threefold_ply = r.get(24)?;
        row.fifty_ply = r.get(25)?;
        each(&row);
    }
    Ok(games)
}

/// The games whose Termination tag says they were decided on time.
pub fn time_forfeits(conn: &Connection) -> rusqlite::Result<HashSet<i64>> {
    let mut stmt = conn.prepare("SELECT game_id, value FROM tags WHERE name = 'Termination'")?;
    let mut rows = stmt.query([])?;
    let mut set = HashSet::new();
    while let Some(r) = rows.next()? {
        let value: String = r.get(1)?;
        if crate::laws::result::is_time_forfeit(&value) {
            set.insert(r.get(0)?);
        }
    }
    Ok(set)
}
