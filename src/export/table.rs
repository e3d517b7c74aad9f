//! Tables: typed cells, the column catalogue of a game row (name, type, meaning, value), the
//! `--columns` choice, and the seam every table format implements (`TableFormat`: begin with
//! the columns, one row of cells at a time, finish). CSV, JSON lines and Parquet each live in
//! their own file; `GameTable` turns them into a game `Writer`.

use super::ExportRow;
use super::{ExportError, Writer};
use crate::chess::san::to_san;
use crate::chess::uci::to_uci;
use crate::search::phase::{self, Phase, PhaseFigures};
use std::borrow::Cow;
use std::fmt::Write as _;

pub use crate::table::{Cell, Column, Kind};

/// A table format: CSV, JSON lines, Parquet. `begin` gets the columns, `row` their values in
/// the same order, `finish` ends the output (an empty table still gets its header/schema).
pub trait TableFormat: Send {
    fn begin(&mut self, columns: &[Column]) -> Result<(), ExportError>;
    fn row(&mut self, cells: &[Cell<'_>]) -> Result<(), ExportError>;
    fn finish(self: Box<Self>) -> Result<(), ExportError>;
}

/// A column's value: from the row, or from the row's figures by phase (computed once a row
/// for all the phase columns).
#[derive(Clone, Copy)]
enum Get {
    Row(for<'r> fn(&'r ExportRow) -> Cell<'r>),
    Phase(fn(&PhaseFigures) -> Cell<'static>),
}

struct GameColumn {
    column: Column,
    get: Get,
    /// In the default selection.
    default: bool,
}

macro_rules! column {
    ($name:literal, $kind:ident, $meaning:literal, $get:expr, $default:expr) => {
        GameColumn {
            column: Column {
                name: $name,
                kind: Kind::$kind,
                meaning: $meaning,
            },
            get: $get,
            default: $default,
        }
    };
}

macro_rules! col {
    ($name:literal, $kind:ident, $meaning:literal, $get:expr) => {
        col!($name, $kind, $meaning, $get, true)
    };
    ($name:literal, $kind:ident, $meaning:literal, $get:expr, $default:expr) => {
        column!($name, $kind, $meaning, Get::Row($get), $default)
    };
}

/// A column of a side's figure in a phase (`search::phase`).
macro_rules! phase_col {
    ($name:literal, $kind:ident, $meaning:literal, $get:expr, $default:expr) => {
        column!($name, $kind, $meaning, Get::Phase($get), $default)
    };
}

fn tag<'r>(row: &'r ExportRow, name: &str) -> Cell<'r> {
    Cell::opt_text(row.tag(name))
}

fn judgement(row: &ExportRow, side: usize, kind: usize) -> Cell<'_> {
    Cell::opt_int(row.judgements.and_then(|j| j[side][kind]).map(i64::from))
}

/// White's centipawns of every position from the stored evaluations (`None`: not evaluated),
/// as lichess's ACPL reads them: a mate is ±`CP_CEILING` (`Mate(0)`, a checkmate on the
/// board, against the side to move), and a game from the standard start begins at lichess's
/// `INITIAL_CP`. `None` for a game without an analysis.
fn white_curve(row: &ExportRow) -> Option<Vec<Option<i32>>> {
    if row.evals.is_empty() {
        return None;
    }
    Some(crate::search::lichess::stored_curve(
        row.evals.iter().map(|&(ply, score, _)| (ply, score)),
        row.moves.len(),
        row.start.turn() == crate::chess::Color::White,
        row.start_fen.is_none(),
    ))
}

/// The side's average centipawn loss on the game's evaluations (`lichess::acpl`).
fn acpl(row: &ExportRow, side: usize) -> Cell<'_> {
    let Some(curve) = white_curve(row) else {
        return Cell::Null;
    };
    let white_first = row.start.turn() == crate::chess::Color::White;
    Cell::opt_int(crate::search::lichess::acpl(&curve, white_first)[side].map(i64::from))
}

/// The game's figures by phase: each side's accuracy and ACPL over the moves of each phase
/// (`search::phase`), and its labels there, a kind the analysis never gives left `None`.
/// `None` for a game without an analysis.
fn phase_figures(row: &ExportRow) -> Option<PhaseFigures> {
    let labels = row
        .finding_codes
        .iter()
        .zip(&row.finding_plies)
        .filter_map(|(code, ply)| {
            let kind = crate::search::analysis::Judgement::ALL
                .into_iter()
                .find(|j| j.code() == code.as_str())?;
            Some(((*ply)?, kind))
        });
    Some(phase::game_figures(
        &row.start,
        &row.moves,
        &white_curve(row)?,
        row.judgements,
        labels,
    ))
}

fn phase_accuracy(f: &PhaseFigures, side: usize, phase: Phase) -> Cell<'static> {
    f.accuracy[side][phase.index()].map_or(Cell::Null, |a| Cell::Float((a * 10.0).round() / 10.0))
}

fn phase_labels(f: &PhaseFigures, side: usize, phase: Phase, kind: usize) -> Cell<'static> {
    Cell::opt_int(f.labels[side][phase.index()][kind].map(i64::from))
}

fn accuracy(row: &ExportRow, side: usize) -> Cell<'_> {
    row.accuracy[side].map_or(Cell::Null, |a| {
        Cell::Float(crate::search::lichess::shown_accuracy(a))
    })
}

/// The main line in SAN, move numbers included (`1. e4 e5 2. Nf3`): from the SAN the row
/// was read with, else replayed.
pub fn san_text(row: &ExportRow) -> String {
    let mut pos = row.start;
    let mut out = String::with_capacity(row.moves.len() * 5);
    let mut number = pos.fullmove_number();
    let mut black = pos.turn() == crate::chess::Color::Black;
    for (i, &m) in row.moves.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        if !black {
            let _ = write!(out, "{number}. ");
        } else if i == 0 {
            let _ = write!(out, "{number}... ");
        }
        match row.sans.get(i) {
            Some(san) if row.sans.len() == row.moves.len() => out.push_str(san.as_str()),
            _ => {
                out.push_str(to_san(&pos, m).as_str());
                pos.play_unchecked(m);
            }
        }
        if black {
            number += 1;
        }
        black = !black;
    }
    out
}

/// The main line in UCI, space-separated (`e2e4 e7e5`).
pub fn uci_text(row: &ExportRow) -> String {
    let mut pos = row.start;
    let mut out = String::with_capacity(row.moves.len() * 5);
    for (i, &m) in row.moves.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&to_uci(&pos, m));
        pos.play_unchecked(m);
    }
    out
}

/// Every column of a game row, in output order.
static GAME_COLUMNS: &[GameColumn] = &[
    col!("id", Int, "arbiter's game id in the database", |r| {
        Cell::Int(r.id)
    }),
    col!(
        "file",
        Text,
        "the file the game was imported from, as given to import",
        |r| { Cell::opt_text(r.file.as_deref()) }
    ),
    col!("game", Int, "1-based number of the game in its file", |r| {
        Cell::Int(r.game_number)
    }),
    col!(
        "byte",
        Int,
        "byte offset of the game in its (decompressed) file",
        |r| { Cell::Int(r.byte_offset) }
    ),
    col!(
        "line",
        Int,
        "1-based line of the game's first byte in its file",
        |r| { Cell::Int(r.line) }
    ),
    col!("event", Text, "Event tag", |r| tag(r, "Event")),
    col!("site", Text, "Site tag", |r| tag(r, "Site")),
    col!(
        "date",
        Text,
        "Date tag as written (YYYY.MM.DD, ? for unknown parts)",
        |r| { tag(r, "Date") }
    ),
    col!("year", Int, "year of the Date tag, when known", |r| {
        Cell::opt_int(r.year)
    }),
    col!("month", Int, "month of the Date tag, when known", |r| {
        Cell::opt_int(r.month)
    }),
    col!("day", Int, "day of the Date tag, when known", |r| {
        Cell::opt_int(r.day)
    }),
    col!("round", Text, "Round tag", |r| tag(r, "Round")),
    col!("white", Text, "White tag, the name as written", |r| tag(
        r, "White"
    )),
    col!("black", Text, "Black tag, the name as written", |r| tag(
        r, "Black"
    )),
    col!(
        "result",
        Text,
        "Result tag as written (1-0, 0-1, 1/2-1/2, *)",
        |r| { tag(r, "Result") }
    ),
    col!(
        "white_person",
        Text,
        "White's person: the canonical name of every spelling of that player",
        |r| { Cell::opt_text(r.persons[0].as_deref()) }
    ),
    col!(
        "black_person",
        Text,
        "Black's person: the canonical name of every spelling of that player",
        |r| { Cell::opt_text(r.persons[1].as_deref()) }
    ),
    col!("white_elo", Int, "WhiteElo tag, when numeric", |r| {
        Cell::opt_int(r.elo[0])
    }),
    col!("black_elo", Int, "BlackElo tag, when numeric", |r| {
        Cell::opt_int(r.elo[1])
    }),
    col!("white_fide_id", Int, "WhiteFideId tag, when numeric", |r| {
        Cell::opt_int(r.fide_ids[0])
    }),
    col!("black_fide_id", Int, "BlackFideId tag, when numeric", |r| {
        Cell::opt_int(r.fide_ids[1])
    }),
    col!(
        "eco",
        Text,
        "ECO code: arbiter's classification by position when made, else the ECO tag",
        |r| { Cell::opt_text(r.eco.as_deref()) }
    ),
    col!(
        "opening",
        Text,
        "opening name: arbiter's classification when made, else the Opening tag",
        |r| { Cell::opt_text(r.opening.as_deref()) }
    ),
    col!("time_control", Text, "TimeControl tag as written", |r| {
        Cell::opt_text(r.time_control.as_deref())
    }),
    col!(
        "tc_class",
        Text,
        "class of the time control: classical, rapid, blitz, bullet, correspondence, unknown",
        |r| { Cell::opt_text(r.tc_class.as_deref()) }
    ),
    col!("variant", Text, "standard or chess960", |r| Cell::text(
        &r.variant
    )),
    col!(
        "start_fen",
        Text,
        "the FEN tag (start position) when the game did not start from the standard position",
        |r| { Cell::opt_text(r.start_fen.as_deref()) }
    ),
    col!(
        "result_marker",
        Text,
        "the termination marker after the moves",
        |r| { Cell::opt_text(r.result_marker.as_deref()) }
    ),
    col!(
        "lawful_result",
        Text,
        "the result the Laws decide (empty: left to the players)",
        |r| { Cell::opt_text(r.lawful_result.as_deref()) }
    ),
    col!(
        "termination",
        Text,
        "automatic ending: checkmate, stalemate, dead-position, fivefold, seventy-five",
        |r| { Cell::opt_text(r.termination.as_deref()) }
    ),
    col!(
        "termination_ply",
        Int,
        "ply at which that ending happened",
        |r| { Cell::opt_int(r.termination_ply) }
    ),
    col!(
        "threefold_ply",
        Int,
        "first ply at which a threefold repetition could be claimed",
        |r| { Cell::opt_int(r.threefold_ply) }
    ),
    col!(
        "fifty_ply",
        Int,
        "first ply at which a fifty-move draw could be claimed",
        |r| { Cell::opt_int(r.fifty_ply) }
    ),
    col!(
        "laws_edition",
        Int,
        "edition of the Laws applied: 1980, 1993, 2001 or 2014",
        |r| { Cell::opt_int(r.laws_edition.as_deref().and_then(|e| e.parse().ok())) }
    ),
    col!("ply_count", Int, "half-moves in the main line", |r| {
        Cell::Int(r.ply_count)
    }),
    col!(
        "final_fen",
        Text,
        "FEN after the last move",
        |r| Cell::text(&r.final_fen)
    ),
    col!(
        "findings",
        TextList,
        "codes of the game's findings (docs/findings.md)",
        |r| {
            Cell::List(
                r.finding_codes
                    .iter()
                    .map(|c| Cow::Borrowed(c.as_str()))
                    .collect(),
            )
        }
    ),
    col!(
        "white_accuracy",
        Float,
        "--analyse: White's game accuracy, 0-100",
        |r| { accuracy(r, 0) }
    ),
    col!(
        "black_accuracy",
        Float,
        "--analyse: Black's game accuracy, 0-100",
        |r| { accuracy(r, 1) }
    ),
    col!(
        "white_acpl",
        Int,
        "--analyse: White's average centipawn loss (lichess's: evaluations ceiled at ±1000)",
        |r| { acpl(r, 0) }
    ),
    col!(
        "black_acpl",
        Int,
        "--analyse: Black's average centipawn loss (lichess's: evaluations ceiled at ±1000)",
        |r| { acpl(r, 1) }
    ),
    col!(
        "white_inaccuracies",
        Int,
        "--analyse: White's inaccuracies (blank: not judged, arbiter's own search gives blunders only)",
        |r| { judgement(r, 0, 0) }
    ),
    col!(
        "white_mistakes",
        Int,
        "--analyse: White's mistakes (blank: not judged, arbiter's own search gives blunders only)",
        |r| { judgement(r, 0, 1) }
    ),
    col!("white_blunders", Int, "--analyse: White's blunders", |r| {
        judgement(r, 0, 2)
    }),
    col!(
        "black_inaccuracies",
        Int,
        "--analyse: Black's inaccuracies (blank: not judged, arbiter's own search gives blunders only)",
        |r| { judgement(r, 1, 0) }
    ),
    col!(
        "black_mistakes",
        Int,
        "--analyse: Black's mistakes (blank: not judged, arbiter's own search gives blunders only)",
        |r| { judgement(r, 1, 1) }
    ),
    col!("black_blunders", Int, "--analyse: Black's blunders", |r| {
        judgement(r, 1, 2)
    }),
    phase_col!(
        "white_opening_accuracy",
        Float,
        "--analyse: White's accuracy over its moves in the opening (docs/ANALYSIS.md, Phases), 0-100",
        |f| phase_accuracy(f, 0, Phase::Opening),
        true
    ),
    phase_col!(
        "white_opening_acpl",
        Int,
        "--analyse: White's average centipawn loss over its moves in the opening",
        |f| Cell::opt_int(f.acpl[0][Phase::Opening.index()].map(i64::from)),
        true
    ),
    phase_col!(
        "white_middlegame_accuracy",
        Float,
        "--analyse: White's accuracy over its moves in the middlegame (docs/ANALYSIS.md, Phases), 0-100",
        |f| phase_accuracy(f, 0, Phase::Middlegame),
        true
    ),
    phase_col!(
        "white_middlegame_acpl",
        Int,
        "--analyse: White's average centipawn loss over its moves in the middlegame",
        |f| Cell::opt_int(f.acpl[0][Phase::Middlegame.index()].map(i64::from)),
        true
    ),
    phase_col!(
        "white_endgame_accuracy",
        Float,
        "--analyse: White's accuracy over its moves in the endgame (docs/ANALYSIS.md, Phases), 0-100",
        |f| phase_accuracy(f, 0, Phase::Endgame),
        true
    ),
    phase_col!(
        "white_endgame_acpl",
        Int,
        "--analyse: White's average centipawn loss over its moves in the endgame",
        |f| Cell::opt_int(f.acpl[0][Phase::Endgame.index()].map(i64::from)),
        true
    ),
    phase_col!(
        "black_opening_accuracy",
        Float,
        "--analyse: Black's accuracy over its moves in the opening (docs/ANALYSIS.md, Phases), 0-100",
        |f| phase_accuracy(f, 1, Phase::Opening),
        true
    ),
    phase_col!(
        "black_opening_acpl",
        Int,
        "--analyse: Black's average centipawn loss over its moves in the opening",
        |f| Cell::opt_int(f.acpl[1][Phase::Opening.index()].map(i64::from)),
        true
    ),
    phase_col!(
        "black_middlegame_accuracy",
        Float,
        "--analyse: Black's accuracy over its moves in the middlegame (docs/ANALYSIS.md, Phases), 0-100",
        |f| phase_accuracy(f, 1, Phase::Middlegame),
        true
    ),
    phase_col!(
        "black_middlegame_acpl",
        Int,
        "--analyse: Black's average centipawn loss over its moves in the middlegame",
        |f| Cell::opt_int(f.acpl[1][Phase::Middlegame.index()].map(i64::from)),
        true
    ),
    phase_col!(
        "black_endgame_accuracy",
        Float,
        "--analyse: Black's accuracy over its moves in the endgame (docs/ANALYSIS.md, Phases), 0-100",
        |f| phase_accuracy(f, 1, Phase::Endgame),
        true
    ),
    phase_col!(
        "black_endgame_acpl",
        Int,
        "--analyse: Black's average centipawn loss over its moves in the endgame",
        |f| Cell::opt_int(f.acpl[1][Phase::Endgame.index()].map(i64::from)),
        true
    ),
    phase_col!(
        "white_opening_inaccuracies",
        Int,
        "--analyse: White's inaccuracies in the opening (blank: not judged)",
        |f| phase_labels(f, 0, Phase::Opening, 0),
        false
    ),
    phase_col!(
        "white_opening_mistakes",
        Int,
        "--analyse: White's mistakes in the opening (blank: not judged)",
        |f| phase_labels(f, 0, Phase::Opening, 1),
        false
    ),
    phase_col!(
        "white_opening_blunders",
        Int,
        "--analyse: White's blunders in the opening (blank: not judged)",
        |f| phase_labels(f, 0, Phase::Opening, 2),
        false
    ),
    phase_col!(
        "white_middlegame_inaccuracies",
        Int,
        "--analyse: White's inaccuracies in the middlegame (blank: not judged)",
        |f| phase_labels(f, 0, Phase::Middlegame, 0),
        false
    ),
    phase_col!(
        "white_middlegame_mistakes",
        Int,
        "--analyse: White's mistakes in the middlegame (blank: not judged)",
        |f| phase_labels(f, 0, Phase::Middlegame, 1),
        false
    ),
    phase_col!(
        "white_middlegame_blunders",
        Int,
        "--analyse: White's blunders in the middlegame (blank: not judged)",
        |f| phase_labels(f, 0, Phase::Middlegame, 2),
        false
    ),
    phase_col!(
        "white_endgame_inaccuracies",
        Int,
        "--analyse: White's inaccuracies in the endgame (blank: not judged)",
        |f| phase_labels(f, 0, Phase::Endgame, 0),
        false
    ),
    phase_col!(
        "white_endgame_mistakes",
        Int,
        "--analyse: White's mistakes in the endgame (blank: not judged)",
        |f| phase_labels(f, 0, Phase::Endgame, 1),
        false
    ),
    phase_col!(
        "white_endgame_blunders",
        Int,
        "--analyse: White's blunders in the endgame (blank: not judged)",
        |f| phase_labels(f, 0, Phase::Endgame, 2),
        false
    ),
    phase_col!(
        "black_opening_inaccuracies",
        Int,
        "--analyse: Black's inaccuracies in the opening (blank: not judged)",
        |f| phase_labels(f, 1, Phase::Opening, 0),
        false
    ),
    phase_col!(
        "black_opening_mistakes",
        Int,
        "--analyse: Black's mistakes in the opening (blank: not judged)",
        |f| phase_labels(f, 1, Phase::Opening, 1),
        false
    ),
    phase_col!(
        "black_opening_blunders",
        Int,
        "--analyse: Black's blunders in the opening (blank: not judged)",
        |f| phase_labels(f, 1, Phase::Opening, 2),
        false
    ),
    phase_col!(
        "black_middlegame_inaccuracies",
        Int,
        "--analyse: Black's inaccuracies in the middlegame (blank: not judged)",
        |f| phase_labels(f, 1, Phase::Middlegame, 0),
        false
    ),
    phase_col!(
        "black_middlegame_mistakes",
        Int,
        "--analyse: Black's mistakes in the middlegame (blank: not judged)",
        |f| phase_labels(f, 1, Phase::Middlegame, 1),
        false
    ),
    phase_col!(
        "black_middlegame_blunders",
        Int,
        "--analyse: Black's blunders in the middlegame (blank: not judged)",
        |f| phase_labels(f, 1, Phase::Middlegame, 2),
        false
    ),
    phase_col!(
        "black_endgame_inaccuracies",
        Int,
        "--analyse: Black's inaccuracies in the endgame (blank: not judged)",
        |f| phase_labels(f, 1, Phase::Endgame, 0),
        false
    ),
    phase_col!(
        "black_endgame_mistakes",
        Int,
        "--analyse: Black's mistakes in the endgame (blank: not judged)",
        |f| phase_labels(f, 1, Phase::Endgame, 1),
        false
    ),
    phase_col!(
        "black_endgame_blunders",
        Int,
        "--analyse: Black's blunders in the endgame (blank: not judged)",
        |f| phase_labels(f, 1, Phase::Endgame, 2),
        false
    ),
    phase_col!(
        "white_opening_moves",
        Int,
        "--analyse: White's moves in the opening (what its labels there are per 100 of)",
        |f| Cell::Int(i64::from(f.moves[0][Phase::Opening.index()])),
        false
    ),
    phase_col!(
        "white_middlegame_moves",
        Int,
        "--analyse: White's moves in the middlegame (what its labels there are per 100 of)",
        |f| Cell::Int(i64::from(f.moves[0][Phase::Middlegame.index()])),
        false
    ),
    phase_col!(
        "white_endgame_moves",
        Int,
        "--analyse: White's moves in the endgame (what its labels there are per 100 of)",
        |f| Cell::Int(i64::from(f.moves[0][Phase::Endgame.index()])),
        false
    ),
    phase_col!(
        "black_opening_moves",
        Int,
        "--analyse: Black's moves in the opening (what its labels there are per 100 of)",
        |f| Cell::Int(i64::from(f.moves[1][Phase::Opening.index()])),
        false
    ),
    phase_col!(
        "black_middlegame_moves",
        Int,
        "--analyse: Black's moves in the middlegame (what its labels there are per 100 of)",
        |f| Cell::Int(i64::from(f.moves[1][Phase::Middlegame.index()])),
        false
    ),
    phase_col!(
        "black_endgame_moves",
        Int,
        "--analyse: Black's moves in the endgame (what its labels there are per 100 of)",
        |f| Cell::Int(i64::from(f.moves[1][Phase::Endgame.index()])),
        false
    ),
    col!(
        "analysis_engine",
        Text,
        "--analyse: the engine behind the labels (its UCI name, or arbiter for its own search)",
        |r| { Cell::opt_text(r.analysis_engine.as_deref()) }
    ),
    col!(
        "moves",
        Text,
        "the main line in canonical SAN with move numbers",
        |r| { Cell::Text(Cow::Owned(san_text(r))) }
    ),
    col!(
        "uci",
        Text,
        "the main line in UCI notation (with --uci, or chosen by --columns)",
        |r| Cell::Text(Cow::Owned(uci_text(r))),
        false
    ),
    col!(
        "match_ply",
        Int,
        "with a position query (--position, --material …): the first ply at which the game matches, 0 the start",
        |r| Cell::opt_int(r.match_ply.map(i64::from)),
        false
    ),
];

/// A column name that is not in the catalogue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownColumn(pub String);

impl std::fmt::Display for UnknownColumn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "unknown column {:?}; the columns are: {}",
            self.0,
            GAME_COLUMNS
                .iter()
                .map(|c| c.column.name)
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

impl std::error::Error for UnknownColumn {}

/// The chosen columns of a game row.
#[derive(Clone, Debug)]
pub struct Selection(Vec<usize>);

impl Selection {
    /// The default columns, plus `uci` when asked.
    pub fn default_with(uci: bool) -> Selection {
        Selection(
            GAME_COLUMNS
                .iter()
                .enumerate()
                .filter(|(_, c)| c.default || (uci && c.column.name == "uci"))
                .map(|(i, _)| i)
                .collect(),
        )
    }

    /// Adds a column by name, when it is not there yet (`match_ply` with a position query).
    pub fn add(&mut self, name: &str) {
        if let Some(i) = GAME_COLUMNS.iter().position(|c| c.column.name == name)
            && !self.0.contains(&i)
        {
            self.0.push(i);
        }
    }

    /// `a,b,c` in the order given.
    pub fn parse(list: &str) -> Result<Selection, UnknownColumn> {
        list.split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(|name| {
                GAME_COLUMNS
                    .iter()
                    .position(|c| c.column.name == name)
                    .ok_or_else(|| UnknownColumn(name.to_owned()))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Selection)
    }

    pub fn columns(&self) -> Vec<Column> {
        self.0.iter().map(|&i| GAME_COLUMNS[i].column).collect()
    }

    /// The row's cells for these columns.
    pub fn cells<'r>(&self, row: &'r ExportRow, out: &mut Vec<Cell<'r>>) {
        out.clear();
        let mut by_phase = None;
        out.extend(self.0.iter().map(|&i| match GAME_COLUMNS[i].get {
            Get::Row(get) => get(row),
            Get::Phase(get) => match by_phase.get_or_insert_with(|| phase_figures(row)) {
                Some(f) => get(f),
                None => Cell::Null,
            },
        }));
    }
}

/// Every game column with its type and meaning, for `--list-columns`.
pub fn list_columns() -> String {
    let mut out = String::new();
    for c in GAME_COLUMNS {
        let _ = writeln!(
            out,
            "{:<20} {:<13} {}{}",
            c.column.name,
            c.column.kind.as_str(),
            c.column.meaning,
            if c.default { "" } else { " [not by default]" }
        );
    }
    out
}

/// A table format as a game writer: each game becomes one row of the chosen columns.
pub struct GameTable {
    format: Box<dyn TableFormat>,
    selection: Selection,
}

impl GameTable {
    pub fn new(format: Box<dyn TableFormat>, selection: Selection) -> GameTable {
        GameTable { format, selection }
    }
}

impl Writer for GameTable {
    fn begin(&mut self) -> Result<(), ExportError> {
        self.format.begin(&self.selection.columns())
    }

    fn game(&mut self, row: &ExportRow) -> Result<(), ExportError> {
        let mut cells = Vec::with_capacity(self.selection.0.len());
        self.selection.cells(row, &mut cells);
        self.format.row(&cells)
    }

    fn finish(self: Box<Self>) -> Result<(), ExportError> {
        self.format.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_parse_in_order_and_unknown_lists_the_valid_ones() {
        let s = Selection::parse("moves, white,id").unwrap();
        let names: Vec<_> = s.columns().iter().map(|c| c.name).collect();
        assert_eq!(names, ["moves", "white", "id"]);
        let e = Selection::parse("white,colour").unwrap_err();
        assert_eq!(e.0, "colour");
        assert!(e.to_string().contains("eco, opening"), "{e}");
        let default: Vec<_> = Selection::default_with(false)
            .columns()
            .iter()
            .map(|c| c.name)
            .collect();
        assert!(default.contains(&"moves") && !default.contains(&"uci"));
        assert!(
            Selection::default_with(true)
                .columns()
                .iter()
                .any(|c| c.name == "uci")
        );
        // Names are unique.
        let mut all: Vec<_> = GAME_COLUMNS.iter().map(|c| c.column.name).collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), GAME_COLUMNS.len());
    }

    #[test]
    fn moves_as_san_and_uci() {
        let mut pos = crate::chess::Position::new();
        let mut moves = Vec::new();
        for t in ["e4", "e5", "Nf3", "Nc6", "O-O-O"].iter().take(4) {
            moves.push(
                crate::chess::san::play_san(&mut pos, t, crate::chess::SanMode::Strict)
                    .unwrap()
                    .mv,
            );
        }
        let row = ExportRow {
            moves,
            ..ExportRow::default()
        };
        assert_eq!(san_text(&row), "1. e4 e5 2. Nf3 Nc6");
        assert_eq!(uci_text(&row), "e2e4 e7e5 g1f3 b8c6");
    }
}
