//! Reading games back from the database, one row at a time: the columns every export needs,
//! the tags in file order, the main-line comments, the full annotated movetext, and the
//! moves decoded and checked; and the findings of the selected games. Works on schema version 1 (names as written) and version 2
//! (persons, openings, time controls, duplicates: docs/SCHEMA.md).

use super::names::{Names, Opening};
use super::side::{SideRows, SideStatements, Table};
use super::{QueryError, Selection};
use crate::chess::san::SanText;
use crate::chess::{Move, Position};
use crate::db::encode::{decode_clocks, decode_game_san};
use crate::search::Score;
use rusqlite::{Connection, Row, params_from_iter};

/// One game as exports see it. Built from a database row (`for_each_game`); every field is
/// plain data, so the pipeline can fill one from a game it has just processed.
#[derive(Debug, Clone, Default)]
pub struct ExportRow {
    pub id: i64,
    /// The imported file's path as given to import.
    pub file: Option<String>,
    pub game_number: i64,
    pub byte_offset: i64,
    pub line: i64,
    /// All tags (Seven Tag Roster first, then the others in file order).
    pub tags: Vec<(String, String)>,
    pub year: Option<i64>,
    pub month: Option<i64>,
    pub day: Option<i64>,
    /// WhiteElo, BlackElo when numeric.
    pub elo: [Option<i64>; 2],
    pub fide_ids: [Option<i64>; 2],
    /// White's and Black's person (canonical name) and its id; on a version-1 database the
    /// name as written and its id.
    pub persons: [Option<String>; 2],
    pub person_ids: [Option<i64>; 2],
    /// The spellings' ids (`player_names.id`; `players.id` on version 1).
    pub name_ids: [Option<i64>; 2],
    pub eco: Option<String>,
    pub opening: Option<String>,
    pub opening_family: Option<String>,
    pub time_control: Option<String>,
    pub tc_class: Option<String>,
    /// A duplicate that is not its group's survivor.
    pub duplicate: bool,
    pub result: Option<String>,
    pub result_marker: Option<String>,
    pub lawful_result: Option<String>,
    pub termination: Option<String>,
    pub termination_ply: Option<i64>,
    pub threefold_ply: Option<i64>,
    pub fifty_ply: Option<i64>,
    pub laws_edition: Option<String>,
    pub variant: String,
    pub start: Position,
    pub start_fen: Option<String>,
    pub ply_count: i64,
    pub final_fen: String,
    pub moves: Vec<Move>,
    /// Each move's canonical SAN, written while the moves were decoded (a row read from the
    /// database); empty when the row was made otherwise, and the writers replay for it.
    pub sans: Vec<SanText>,
    pub clocks: Vec<Option<u64>>,
    /// (ply, text) of the main line.
    pub comments: Vec<(u32, String)>,
    /// The whole game as PGN with variations, NAGs and every comment, when it had any
    /// variation, NAG or trailing comment (`games.annotated`).
    pub annotated: Option<String>,
    pub finding_codes: Vec<String>,
    /// The ply each finding is about, beside `finding_codes`.
    pub finding_plies: Vec<Option<u32>>,
    /// `--analyse` results: (ply, score, depth), White's view.
    pub evals: Vec<(u32, Score, u32)>,
    /// The principal variation of each evaluated position that has one, by ply, best move
    /// first; unchecked (`db::analyses::decode_pv`): replay it from the position.
    pub lines: Vec<(u32, Vec<Move>)>,
    /// White, Black accuracy; per side inaccuracies, mistakes, blunders.
    pub accuracy: [Option<f64>; 2],
    /// `None` for a kind the analysis never gives (arbiter's own search: blunders only).
    pub judgements: Option<[[Option<u32>; 3]; 2]>,
    /// The engine behind the labels of an analysed game: the UCI engine's name, or `arbiter`
    /// for its own search (`search::strength`).
    pub analysis_engine: Option<String>,
    /// With a position query (`export --position` …): the first ply at which it matches.
    pub match_ply: Option<u32>,
}

impl ExportRow {
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

const COLUMNS: &str = "g.id, g.result, g.result_marker, g.lawful_result, g.termination, \
    g.termination_ply, g.threefold_ply, g.fifty_ply, g.laws_edition, g.variant, g.start_fen, \
    g.ply_count, NULL, g.moves, g.clocks, e.name, g.site, g.date, g.round, w.name, b.name, \
    g.white_elo, g.black_elo, i.path, g.game_number, g.byte_offset, g.line, g.year, g.month, \
    g.day, g.annotated, g.white_id, g.black_id";

/// Version 2 on, after `COLUMNS` (index 33 on).
const COLUMNS_V2: &str = ", g.eco, g.opening, g.opening_family, g.time_control, g.tc_class, \
    g.white_fide_id, g.black_fide_id, pw.name, pb.name, pw.id, pb.id, \
    coalesce(dm.survivor = 0, 0)";
/// Version 3 on: `COLUMNS` and `COLUMNS_V2`, with the ids of the event (15), the import (23)
/// and the opening (34) where the joined names were, and NULL for the spellings (19, 20),
/// the opening's family (35) and the persons (40-43): `Names` looks them up once per id. SQLite leaves out the joins
/// that neither these columns nor the filter use (each is on a unique key).
const COLUMNS_BY_ID: &str = "g.id, g.result, g.result_marker, g.lawful_result, \
    g.termination, g.termination_ply, g.threefold_ply, g.fifty_ply, g.laws_edition, \
    g.variant, g.start_fen, g.ply_count, NULL, g.moves, g.clocks, g.event_id, g.site, g.date, \
    g.round, NULL, NULL, g.white_elo, g.black_elo, g.import_id, g.game_number, g.byte_offset, \
    g.line, g.year, g.month, g.day, g.annotated, g.white_id, g.black_id, g.eco, g.opening_id, \
    NULL, g.time_control, g.tc_class, g.white_fide_id, g.black_fide_id, NULL, NULL, NULL, NULL, \
    coalesce(dm.survivor = 0, 0)";

/// The `games` columns the games may be ordered by (before their id): those that
/// partition an export.
pub const ORDER_COLUMNS: [&str; 7] = [
    "year",
    "month",
    "day",
    "eco",
    "tc_class",
    "laws_edition",
    "variant",
];

/// The order games come out in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Order {
    /// By id.
    #[default]
    Id,
    /// By these of `ORDER_COLUMNS` first (others are left out), then by id. On a version-1
    /// database, which has no `eco` or `tc_class`, without those.
    Columns(Vec<&'static str>),
    /// Duplicate groups: by group, its survivor first, then by id.
    DuplicateGroups,
}

impl Order {
    fn sql(&self, version: i64) -> String {
        let mut keys: Vec<String> = match self {
            Order::Id => Vec::new(),
            Order::Columns(columns) => columns
                .iter()
                .filter(|c| ORDER_COLUMNS.contains(c))
                .filter(|c| version >= 2 || !matches!(**c, "eco" | "tc_class"))
                .map(|c| format!("g.{c}"))
                .collect(),
            Order::DuplicateGroups => vec!["dm.group_id".into(), "dm.survivor DESC".into()],
        };
        keys.push("g.id".to_owned());
        keys.join(", ")
    }

    /// Whether the games come out by ascending id.
    fn by_id(&self, version: i64) -> bool {
        self.sql(version) == "g.id"
    }
}

/// Calls `each` for every selected game, in `order`, streaming from the cursor.
pub fn for_each_game<E: From<QueryError> + From<rusqlite::Error>>(
    conn: &Connection,
    selection: &Selection,
    order: &Order,
    mut each: impl FnMut(&ExportRow) -> Result<(), E>,
) -> Result<u64, E> {
    let version = selection.version();
    let (from, clause, values) = selection.sql();
    let columns = match version {
        3.. => COLUMNS_BY_ID.to_owned(),
        2 => format!("{COLUMNS}{COLUMNS_V2}"),
        _ => COLUMNS.to_owned(),
    };
    let sql = format!(
        "SELECT {columns} FROM {from} WHERE {clause} ORDER BY {}",
        order.sql(version)
    );
    let mut stmt = conn.prepare(&sql)?;
    let mut names = if version >= 3 {
        Some(Names::new(conn)?)
    } else {
        None
    };
    let mut rows = stmt.query(params_from_iter(values.iter()))?;
    // In id order the side tables are read by one cursor each, alongside this one.
    let mut side_statements =
        SideStatements::prepare(conn, version, order.by_id(version), from, clause, values)?;
    let mut side = side_statements.open()?;
    let mut n = 0;
    let mut row = ExportRow::default();
    while let Some(r) = rows.next()? {
        read_game(r, version, &mut side, names.as_mut(), &mut row)?;
        each(&row)?;
        n += 1;
    }
    Ok(n)
}

/// Fills `row` from the database row `r`: the start position and the moves, the people and
/// the tags, the side tables' annotations, then (version 2 on) arbiter's own classification.
fn read_game(
    r: &Row<'_>,
    version: i64,
    side: &mut SideRows<'_, '_>,
    names: Option<&mut Names<'_>>,
    row: &mut ExportRow,
) -> Result<(), QueryError> {
    let id: i64 = r.get(0)?;
    let bad = |message: String| QueryError::Game { id, message };
    let start_fen: Option<String> = r.get(10)?;
    let variant: String = r.get(9)?;
    let start = match &start_fen {
        Some(fen) => {
            let setup = crate::chess::fen::parse_setup(fen).map_err(|e| bad(e.to_string()))?;
            Position::from_setup(&setup, variant == "chess960").map_err(|e| bad(e.to_string()))?
        }
        None => Position::new(),
    };
    let blob: Vec<u8> = r.get(13)?;
    // The final position is the replay's (version 3 stores no final FEN), and so is the SAN
    // the exports write: the moves are replayed once.
    let (moves, sans, end) = decode_game_san(&start, &blob).map_err(|e| bad(e.to_string()))?;
    let clocks = r
        .get::<_, Option<Vec<u8>>>(14)?
        .map_or_else(Vec::new, |b| decode_clocks(&b));
    let mut who = People::read(r, names)?;
    let result: Option<String> = r.get(1)?;
    let elo = [r.get::<_, Option<i64>>(21)?, r.get::<_, Option<i64>>(22)?];
    let tags = read_tags(r, id, side, &mut who, &result, elo, start_fen.as_deref())?;
    let notes = Annotations::read(side, id)?;
    let tag_of = |name: &str| tags.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
    let fide_tag = |name: &str| tag_of(name).and_then(|v| v.trim().parse::<i64>().ok());
    let mut out = ExportRow {
        id,
        file: who.file.take(),
        game_number: r.get(24)?,
        byte_offset: r.get(25)?,
        line: r.get(26)?,
        year: r.get(27)?,
        month: r.get(28)?,
        day: r.get(29)?,
        annotated: r.get(30)?,
        elo,
        fide_ids: [fide_tag("WhiteFideId"), fide_tag("BlackFideId")],
        persons: std::mem::take(&mut who.spellings),
        person_ids: who.name_ids,
        name_ids: who.name_ids,
        eco: tag_of("ECO"),
        opening: tag_of("Opening"),
        opening_family: None,
        time_control: tag_of("TimeControl"),
        tc_class: None,
        duplicate: false,
        tags,
        result,
        result_marker: r.get(2)?,
        lawful_result: r.get(3)?,
        termination: r.get(4)?,
        termination_ply: r.get(5)?,
        threefold_ply: r.get(6)?,
        fifty_ply: r.get(7)?,
        // `1997` in a database written before the 1993 edition was renamed reads as `1993`.
        laws_edition: r
            .get::<_, Option<String>>(8)?
            .map(crate::laws::Edition::canonical_stored),
        variant,
        start,
        start_fen,
        ply_count: r.get(11)?,
        final_fen: end.fen(),
        moves,
        sans,
        clocks,
        comments: notes.comments,
        finding_codes: notes.finding_codes,
        finding_plies: notes.finding_plies,
        evals: notes.evals,
        lines: notes.lines,
        accuracy: notes.analysis.as_ref().map_or([None, None], |a| a.0),
        judgements: notes.analysis.as_ref().map(|a| a.1),
        analysis_engine: notes.analysis.map(|a| a.2),
        match_ply: None,
    };
    if version >= 2 {
        classify(r, version, who, &mut out)?;
    }
    *row = out;
    Ok(())
}

/// Who played a stored game and where it came from: the names joined through `Names`
/// (version 3 on), else the columns that hold them.
struct People {
    /// The spellings' ids, as stored.
    name_ids: [Option<i64>; 2],
    /// The names as written.
    spellings: [Option<String>; 2],
    /// The persons behind them and their ids (version 3 on).
    persons: [Option<String>; 2],
    person_ids: [Option<i64>; 2],
    event: Option<String>,
    file: Option<String>,
    opening: Option<Opening>,
}

impl People {
    fn read(r: &Row<'_>, names: Option<&mut Names<'_>>) -> Result<People, QueryError> {
        let name_ids = [r.get::<_, Option<i64>>(31)?, r.get::<_, Option<i64>>(32)?];
        let mut who = People {
            name_ids,
            spellings: [None, None],
            persons: [None, None],
            person_ids: name_ids,
            event: None,
            file: None,
            opening: None,
        };
        let Some(names) = names else {
            who.spellings = [r.get(19)?, r.get(20)?];
            who.event = r.get(15)?;
            who.file = r.get(23)?;
            return Ok(who);
        };
        for (side, &name_id) in name_ids.iter().enumerate() {
            let Some(s) = names.spelling(name_id)?.cloned() else {
                who.person_ids[side] = None;
                continue;
            };
            who.persons[side] = names.person(Some(s.person_id))?.cloned();
            who.person_ids[side] = who.persons[side].as_ref().map(|_| s.person_id);
            who.spellings[side] = Some(s.name);
        }
        who.event = names.event(r.get(15)?)?.cloned();
        who.file = names.import(r.get(23)?)?.cloned();
        who.opening = names.opening(r.get(34)?)?.cloned();
        Ok(who)
    }
}

/// The Seven Tag Roster from the columns, the ratings and the FEN, then the other tags in
/// file order (the event's name is moved into its tag).
fn read_tags(
    r: &Row<'_>,
    id: i64,
    side: &mut SideRows<'_, '_>,
    who: &mut People,
    result: &Option<String>,
    elo: [Option<i64>; 2],
    start_fen: Option<&str>,
) -> Result<Vec<(String, String)>, QueryError> {
    let mut tags = Vec::new();
    for (name, v) in [
        ("Event", who.event.take()),
        ("Site", r.get(16)?),
        ("Date", r.get(17)?),
        ("Round", r.get(18)?),
        ("White", who.spellings[0].clone()),
        ("Black", who.spellings[1].clone()),
    ] {
        tags.push((name.to_owned(), v.unwrap_or_else(|| "?".to_owned())));
    }
    tags.push((
        "Result".to_owned(),
        result.clone().unwrap_or_else(|| "*".to_owned()),
    ));
    for (name, v) in [("WhiteElo", elo[0]), ("BlackElo", elo[1])] {
        if let Some(v) = v {
            tags.push((name.to_owned(), v.to_string()));
        }
    }
    if let Some(fen) = start_fen {
        tags.push(("FEN".to_owned(), fen.to_owned()));
    }
    side.each(Table::Tags, id, |t| {
        tags.push((t.get::<_, String>(1)?, t.get::<_, String>(2)?));
        Ok(())
    })?;
    Ok(tags)
}

/// Accuracy of White and Black, and each side's inaccuracies, mistakes and blunders.
type Analysis = ([Option<f64>; 2], [[Option<u32>; 3]; 2], String);

/// The name of the engine an analysis stored with `settings` was made by.
pub fn engine_of(settings: &str) -> String {
    crate::search::strength::Strength::of_settings(settings)
        .engine_name()
        .to_owned()
}

/// What the side tables add to a game: main-line comments, findings, evaluations and the
/// analysis.
struct Annotations {
    comments: Vec<(u32, String)>,
    finding_codes: Vec<String>,
    finding_plies: Vec<Option<u32>>,
    evals: Vec<(u32, Score, u32)>,
    lines: Vec<(u32, Vec<Move>)>,
    analysis: Option<Analysis>,
}

impl Annotations {
    fn read(side: &mut SideRows<'_, '_>, id: i64) -> Result<Annotations, QueryError> {
        let mut comments = Vec::new();
        side.each(Table::Comments, id, |t| {
            comments.push((t.get::<_, u32>(1)?, t.get::<_, String>(2)?));
            Ok(())
        })?;
        let (mut finding_codes, mut finding_plies) = (Vec::new(), Vec::new());
        side.each(Table::Findings, id, |t| {
            finding_codes.push(t.get::<_, String>(1)?);
            finding_plies.push(t.get::<_, Option<u32>>(2)?);
            Ok(())
        })?;
        let (mut evals, mut lines) = (Vec::new(), Vec::new());
        side.each(Table::Evaluations, id, |t| {
            let score = match (t.get::<_, Option<i32>>(2)?, t.get::<_, Option<i32>>(3)?) {
                (_, Some(mate)) => Score::Mate(mate),
                (cp, None) => Score::Cp(cp.unwrap_or(0)),
            };
            let ply = t.get::<_, u32>(1)?;
            evals.push((ply, score, t.get::<_, u32>(4)?));
            if let Some(pv) = t.get::<_, Option<Vec<u8>>>(5)? {
                lines.push((ply, crate::db::analyses::decode_pv(&pv)));
            }
            Ok(())
        })?;
        let mut analysis = None;
        side.each(Table::Analyses, id, |t| {
            analysis = Some((
                [t.get::<_, Option<f64>>(1)?, t.get::<_, Option<f64>>(2)?],
                [
                    [t.get(3)?, t.get(4)?, t.get(5)?],
                    [t.get(6)?, t.get(7)?, t.get(8)?],
                ],
                engine_of(&t.get::<_, String>(9)?),
            ));
            Ok(())
        })?;
        Ok(Annotations {
            comments,
            finding_codes,
            finding_plies,
            evals,
            lines,
            analysis,
        })
    }
}

/// Version 2 on: arbiter's own classification (ECO, opening, time control, FIDE ids,
/// persons, duplicates) over the file's tags, where it made one.
fn classify(r: &Row<'_>, version: i64, who: People, out: &mut ExportRow) -> Result<(), QueryError> {
    let text = |k: usize| r.get::<_, Option<String>>(k);
    if let Some(eco) = text(33)? {
        out.eco = Some(eco);
    }
    match who.opening {
        Some(o) => {
            out.opening = Some(o.name);
            out.opening_family = Some(o.family);
        }
        None if version >= 3 => {}
        None => {
            if let Some(opening) = text(34)? {
                out.opening = Some(opening);
            }
            out.opening_family = text(35)?;
        }
    }
    if let Some(tc) = text(36)? {
        out.time_control = Some(tc);
    }
    out.tc_class = text(37)?;
    for (side, k) in [(0, 38), (1, 39)] {
        if let Some(id) = r.get::<_, Option<i64>>(k)? {
            out.fide_ids[side] = Some(id);
        }
    }
    if version >= 3 {
        out.persons = who.persons;
        out.person_ids = who.person_ids;
    } else {
        out.persons = [text(40)?, text(41)?];
        out.person_ids = [r.get(42)?, r.get(43)?];
    }
    out.duplicate = r.get::<_, i64>(44)? != 0;
    Ok(())
}

/// Calls `each` for every finding of the selected games, in game and finding order.
pub fn for_each_finding<E: From<QueryError> + From<rusqlite::Error>>(
    conn: &Connection,
    selection: &Selection,
    mut each: impl FnMut(&FindingRow<'_>) -> Result<(), E>,
) -> Result<u64, E> {
    let (from, clause, values) = selection.sql();
    let sql = format!(
        "SELECT i.path, g.game_number, f.byte, f.line, f.col, f.ply, f.code, f.severity, \
         f.token, f.detail FROM {from} JOIN findings f ON f.game_id = g.id WHERE {clause} \
         ORDER BY f.game_id, f.id"
    );
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query(params_from_iter(values))?;
    let mut n = 0;
    while let Some(r) = rows.next()? {
        let file: Option<String> = r.get(0)?;
        let code: String = r.get(6)?;
        let severity: String = r.get(7)?;
        let token: Option<String> = r.get(8)?;
        let message: String = r.get(9)?;
        each(&FindingRow {
            file: file.as_deref().unwrap_or(""),
            game: r.get(1)?,
            byte: r.get(2)?,
            line: r.get(3)?,
            column: r.get(4)?,
            ply: r.get(5)?,
            code: &code,
            severity: &severity,
            token: token.as_deref(),
            message: &message,
        })?;
        n += 1;
    }
    Ok(n)
}

/// One finding as a row, borrowed from wherever it lives: the same fields whether it comes
/// from the store (`for_each_finding`) or from the pipeline (`export::findings`).
#[derive(Clone, Debug, PartialEq)]
pub struct FindingRow<'a> {
    pub file: &'a str,
    pub game: i64,
    pub byte: i64,
    pub line: i64,
    pub column: i64,
    pub ply: Option<i64>,
    pub code: &'a str,
    pub severity: &'a str,
    pub token: Option<&'a str>,
    pub message: &'a str,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_name_only_games_columns_the_version_has() {
        assert_eq!(Order::Id.sql(3), "g.id");
        let by = Order::Columns(vec!["eco", "g.id; DROP TABLE games", "year"]);
        assert_eq!(by.sql(3), "g.eco, g.year, g.id");
        assert_eq!(by.sql(1), "g.year, g.id", "version 1 has no eco");
        assert!(Order::Columns(vec!["tc_class"]).by_id(1));
        assert!(!by.by_id(3));
        assert_eq!(
            Order::DuplicateGroups.sql(3),
            "dm.group_id, dm.survivor DESC, g.id"
        );
    }
}
