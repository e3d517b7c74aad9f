//! Reading games back from the database, one row at a time: the columns every export needs,
//! the tags in file order, the main-line comments, and the moves decoded and checked.

use super::filter::Filter;
use super::table::FindingColumns;
use crate::chess::{Move, Position};
use crate::db::encode::{decode_clocks, decode_moves};
use crate::search::Score;
use rusqlite::{Connection, OptionalExtension, params_from_iter};
use std::io;

/// One game as exports see it.
#[derive(Debug, Clone, Default)]
pub struct ExportRow {
    pub id: i64,
    /// All tags in file order (column tags included).
    pub tags: Vec<(String, String)>,
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
    pub clocks: Vec<Option<u64>>,
    /// (ply, text) of the main line.
    pub comments: Vec<(u32, String)>,
    pub finding_codes: Vec<String>,
    /// `--analyse` results: (ply, score as lichess writes it: `0.25`, `#-3`), White's view.
    pub evals: Vec<(u32, String)>,
    /// White, Black accuracy; per side inaccuracies, mistakes, blunders.
    pub accuracy: [Option<f64>; 2],
    pub judgements: Option<[[u32; 3]; 2]>,
}

impl ExportRow {
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Games with their players and event, under the aliases the filters use.
const GAMES: &str = "games g LEFT JOIN player_names w ON w.id = g.white_id \
    LEFT JOIN player_names b ON b.id = g.black_id LEFT JOIN events e ON e.id = g.event_id";

const COLUMNS: &str = "g.id, g.result, g.result_marker, g.lawful_result, g.termination, \
    g.termination_ply, g.threefold_ply, g.fifty_ply, g.laws_edition, g.variant, g.start_fen, \
    g.ply_count, g.final_fen, g.moves, g.clocks, e.name, g.site, g.date, g.round, w.name, b.name, \
    g.white_elo, g.black_elo";

fn to_io(e: impl std::fmt::Display) -> io::Error {
    io::Error::other(e.to_string())
}

/// How many games the filter selects (for the progress bar).
pub fn count(conn: &Connection, filter: &Filter) -> io::Result<u64> {
    let (clause, values) = filter.to_sql().map_err(to_io)?;
    let sql = format!("SELECT count(*) FROM {GAMES} WHERE {clause}");
    conn.query_row(&sql, params_from_iter(values), |r| r.get::<_, i64>(0))
        .map(|n| n as u64)
        .map_err(to_io)
}

/// Calls `each` for every selected game, in id order, streaming from the cursor.
pub fn for_each_game(
    conn: &Connection,
    filter: &Filter,
    mut each: impl FnMut(&ExportRow) -> io::Result<()>,
) -> io::Result<u64> {
    let (clause, values) = filter.to_sql().map_err(to_io)?;
    let sql = format!("SELECT {COLUMNS} FROM {GAMES} WHERE {clause} ORDER BY g.id");
    let mut stmt = conn.prepare(&sql).map_err(to_io)?;
    let mut rows = stmt.query(params_from_iter(values)).map_err(to_io)?;
    let mut tag_stmt = conn
        .prepare_cached("SELECT name, value FROM tags WHERE game_id = ?1 ORDER BY seq")
        .map_err(to_io)?;
    let mut comment_stmt = conn
        .prepare_cached("SELECT ply, text FROM comments WHERE game_id = ?1 ORDER BY ply, seq")
        .map_err(to_io)?;
    let mut finding_stmt = conn
        .prepare_cached("SELECT code FROM findings WHERE game_id = ?1 ORDER BY id")
        .map_err(to_io)?;
    let mut eval_stmt = conn
        .prepare_cached(
            "SELECT ply, score_cp, mate FROM evaluations WHERE game_id = ?1 ORDER BY ply",
        )
        .map_err(to_io)?;
    let mut analysis_stmt = conn
        .prepare_cached(
            "SELECT white_accuracy, black_accuracy, white_inaccuracies, white_mistakes, white_blunders, \
             black_inaccuracies, black_mistakes, black_blunders FROM analyses WHERE game_id = ?1",
        )
        .map_err(to_io)?;
    let mut n = 0;
    while let Some(r) = rows.next().map_err(to_io)? {
        let id: i64 = r.get(0).map_err(to_io)?;
        let start_fen: Option<String> = r.get(10).map_err(to_io)?;
        let variant: String = r.get(9).map_err(to_io)?;
        let start = match &start_fen {
            Some(fen) => {
                let setup = crate::chess::fen::parse_setup(fen).map_err(to_io)?;
                Position::from_setup(&setup, variant == "chess960").map_err(to_io)?
            }
            None => Position::new(),
        };
        let blob: Vec<u8> = r.get(13).map_err(to_io)?;
        let moves = decode_moves(&start, &blob).map_err(|e| to_io(format!("game {id}: {e}")))?;
        let clocks = r
            .get::<_, Option<Vec<u8>>>(14)
            .map_err(to_io)?
            .map_or_else(Vec::new, |b| decode_clocks(&b));
        // Seven Tag Roster from the columns, then the rest in file order.
        let mut tags = Vec::new();
        for (name, col) in [
            ("Event", 15),
            ("Site", 16),
            ("Date", 17),
            ("Round", 18),
            ("White", 19),
            ("Black", 20),
        ] {
            let v: Option<String> = r.get(col).map_err(to_io)?;
            tags.push((name.to_owned(), v.unwrap_or_else(|| "?".to_owned())));
        }
        let result: Option<String> = r.get(1).map_err(to_io)?;
        tags.push((
            "Result".to_owned(),
            result.clone().unwrap_or_else(|| "*".to_owned()),
        ));
        for (name, col) in [("WhiteElo", 21), ("BlackElo", 22)] {
            if let Some(v) = r.get::<_, Option<i64>>(col).map_err(to_io)? {
                tags.push((name.to_owned(), v.to_string()));
            }
        }
        if let Some(fen) = &start_fen {
            tags.push(("FEN".to_owned(), fen.clone()));
        }
        let extra = tag_stmt
            .query_map([id], |t| {
                Ok((t.get::<_, String>(0)?, t.get::<_, String>(1)?))
            })
            .map_err(to_io)?;
        for t in extra {
            tags.push(t.map_err(to_io)?);
        }
        let comments = comment_stmt
            .query_map([id], |t| Ok((t.get::<_, u32>(0)?, t.get::<_, String>(1)?)))
            .map_err(to_io)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(to_io)?;
        let finding_codes = finding_stmt
            .query_map([id], |t| t.get::<_, String>(0))
            .map_err(to_io)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(to_io)?;
        let evals = eval_stmt
            .query_map([id], |t| {
                let ply: u32 = t.get(0)?;
                let score = match (t.get::<_, Option<i32>>(1)?, t.get::<_, Option<i32>>(2)?) {
                    (_, Some(mate)) => Score::Mate(mate),
                    (cp, None) => Score::Cp(cp.unwrap_or(0)),
                };
                Ok((ply, score.to_string()))
            })
            .map_err(to_io)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(to_io)?;
        let analysis = analysis_stmt
            .query_row([id], |t| {
                Ok((
                    [t.get::<_, Option<f64>>(0)?, t.get::<_, Option<f64>>(1)?],
                    [
                        [t.get(2)?, t.get(3)?, t.get(4)?],
                        [t.get(5)?, t.get(6)?, t.get(7)?],
                    ],
                ))
            })
            .optional()
            .map_err(to_io)?;
        let row = ExportRow {
            id,
            tags,
            result,
            result_marker: r.get(2).map_err(to_io)?,
            lawful_result: r.get(3).map_err(to_io)?,
            termination: r.get(4).map_err(to_io)?,
            termination_ply: r.get(5).map_err(to_io)?,
            threefold_ply: r.get(6).map_err(to_io)?,
            fifty_ply: r.get(7).map_err(to_io)?,
            laws_edition: r.get(8).map_err(to_io)?,
            variant,
            start,
            start_fen,
            ply_count: r.get(11).map_err(to_io)?,
            final_fen: r.get(12).map_err(to_io)?,
            moves,
            clocks,
            comments,
            finding_codes,
            evals,
            accuracy: analysis.map_or([None, None], |a| a.0),
            judgements: analysis.map(|a| a.1),
        };
        each(&row)?;
        n += 1;
    }
    Ok(n)
}

/// Calls `each` for every finding of the selected games, in game and finding order.
pub fn for_each_finding(
    conn: &Connection,
    filter: &Filter,
    mut each: impl FnMut(&FindingColumns) -> io::Result<()>,
) -> io::Result<()> {
    let (clause, values) = filter.to_sql().map_err(to_io)?;
    let sql = format!(
        "SELECT f.game_id, f.code, f.severity, f.ply, f.line, f.col, f.byte, f.token, f.detail \
         FROM {GAMES} JOIN findings f ON f.game_id = g.id WHERE {clause} ORDER BY f.game_id, f.id"
    );
    let mut stmt = conn.prepare(&sql).map_err(to_io)?;
    let mut rows = stmt.query(params_from_iter(values)).map_err(to_io)?;
    while let Some(r) = rows.next().map_err(to_io)? {
        let row = (|| -> rusqlite::Result<FindingColumns> {
            Ok(FindingColumns {
                game_id: r.get(0)?,
                code: r.get(1)?,
                severity: r.get(2)?,
                ply: r.get(3)?,
                line: r.get(4)?,
                column: r.get(5)?,
                byte: r.get(6)?,
                token: r.get(7)?,
                message: r.get(8)?,
            })
        })()
        .map_err(to_io)?;
        each(&row)?;
    }
    Ok(())
}
