//! `GameRecord`: everything the database stores about one accepted game, as plain values.
//! The pipeline builds it from a processed game on a worker thread, together with the
//! tags' split into columns (`Columns`), so that the single writer thread only binds values.

use crate::chess::{Move, Position};
use crate::identity::names::parse_fide_id;
use crate::identity::openings::Opening;
use crate::identity::timecontrol::tc_class;
use crate::tags::Tags;

/// One finding as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FindingRecord {
    pub code: &'static str,
    pub severity: &'static str,
    pub ply: Option<u32>,
    pub line: u64,
    pub column: u32,
    pub byte: u64,
    pub token: Option<String>,
    pub detail: String,
}

/// One evaluated ply: score from White's view (centipawns or mate), depth, nodes, best move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalRecord {
    pub ply: u32,
    pub score_cp: Option<i32>,
    pub mate: Option<i32>,
    pub depth: u32,
    pub nodes: u64,
    pub best_move: Option<Move>,
    /// The principal variation, best move first (a few plies; empty: none).
    pub pv: Vec<Move>,
    pub deep: bool,
    /// Evaluated by the UCI engine (the second tier).
    pub engine: bool,
}

/// What `--analyse` found about a game.
#[derive(Debug, Clone, Default)]
pub struct AnalysisRecord {
    pub evals: Vec<EvalRecord>,
    /// White, Black.
    pub accuracy: [Option<f64>; 2],
    /// Per side: inaccuracies, mistakes, blunders.
    pub counts: [[u32; 3]; 2],
    pub settings: String,
    /// The second tier's positions searched, nodes, and the positions with a legal move.
    pub engine: [u64; 3],
}

#[derive(Debug, Clone, Default)]
pub struct GameRecord {
    pub game_number: u64,
    pub byte_offset: u64,
    pub line: u64,
    pub content_hash: [u8; 16],
    /// All tags in file order; the writer splits them into columns and the `tags` table.
    pub tags: Tags,
    pub result_marker: Option<&'static str>,
    pub lawful_result: Option<&'static str>,
    pub termination: Option<(&'static str, u32)>,
    pub threefold_ply: Option<u32>,
    pub fifty_ply: Option<u32>,
    /// Year of the edition applied (1980, 1993, 2001, 2014; databases written before the 1993 rename store 1997); stored as text.
    pub laws_edition: Option<u16>,
    pub laws_undated: bool,
    pub chess960: bool,
    pub start_fen: Option<String>,
    /// The position after the last move (its FEN only when an export asks).
    pub final_position: Position,
    pub moves: Vec<Move>,
    pub clocks: Vec<Option<u64>>,
    /// Main-line comments: (ply, text).
    pub comments: Vec<(u32, String)>,
    /// Full movetext, when the game had variations or NAGs.
    pub annotated: Option<String>,
    pub findings: Vec<FindingRecord>,
    pub analysis: Option<AnalysisRecord>,
    /// The opening by position (standard start only).
    pub opening: Option<Opening>,
    /// The moves as stored: the packed layout (`encode::pack_moves`), made on the worker so
    /// that the writer's thread only writes.
    pub moves_blob: Vec<u8>,
    /// The tags as `games` columns, and which of them go to `tags` (`Columns::of`).
    pub columns: Columns,
    /// The clocks as stored (`encode::encode_clocks`), `None` when the game had none.
    pub clocks_blob: Option<Vec<u8>>,
    /// What the game adds to the position index, made on the worker; `None` when the
    /// import does not index positions (`import --no-position-index`).
    pub positions: Option<crate::positions::index::GameEntry>,
}

/// Tags stored in their own columns of `games` rather than in `tags`.
/// (Tags such as WhiteFideId, WhiteTitle or TimeControl are copied into columns and kept in
/// `tags` too, as written.)
pub const COLUMN_TAGS: [&str; 10] = [
    "Event", "Site", "Date", "Round", "White", "Black", "Result", "WhiteElo", "BlackElo", "FEN",
];

/// The tags a `games` row reads, in this order in `Columns::tag`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnTag {
    Event,
    Site,
    Date,
    Round,
    White,
    Black,
    Result,
    WhiteElo,
    BlackElo,
    WhiteFideId,
    BlackFideId,
    WhiteTitle,
    BlackTitle,
    WhiteFed,
    BlackFed,
    WhiteTeam,
    BlackTeam,
    TimeControl,
}

const COLUMN_TAG_NAMES: [&str; 18] = [
    "Event",
    "Site",
    "Date",
    "Round",
    "White",
    "Black",
    "Result",
    "WhiteElo",
    "BlackElo",
    "WhiteFideId",
    "BlackFideId",
    "WhiteTitle",
    "BlackTitle",
    "WhiteFed",
    "BlackFed",
    "WhiteTeam",
    "BlackTeam",
    "TimeControl",
];

/// A game's tags as the `games` row holds them: where each column's tag is (its first
/// occurrence, trimmed, when not empty), the values parsed from them, and which tags go to
/// the `tags` table. Made once per game on a worker.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Columns {
    /// Index into `GameRecord::tags` of each `ColumnTag`'s first tag.
    at: [Option<u32>; 18],
    pub year: Option<i64>,
    pub month: Option<i64>,
    pub day: Option<i64>,
    pub white_elo: Option<i64>,
    pub black_elo: Option<i64>,
    pub white_fide_id: Option<i64>,
    pub black_fide_id: Option<i64>,
    pub tc_class: &'static str,
    /// Indexes of the tags stored in `tags` (their `seq` there), in file order.
    pub extra: Vec<u32>,
}

impl Columns {
    pub fn of(tags: &Tags) -> Columns {
        let mut c = Columns::default();
        for (i, (name, _)) in tags.iter().enumerate() {
            let i = i as u32;
            if !COLUMN_TAGS.contains(&name) {
                c.extra.push(i);
            }
            // The first tag of a name is the one read, as `GameRecord::tag` reads it.
            if let Some(k) = COLUMN_TAG_NAMES.iter().position(|&n| n == name)
                && c.at[k].is_none()
            {
                c.at[k] = Some(i);
            }
        }
        let get = |k: ColumnTag| c.tag(tags, k);
        let elo = |k| get(k).and_then(|v| v.parse::<i64>().ok());
        let (year, month, day) = get(ColumnTag::Date).map_or((None, None, None), date_parts);
        Columns {
            year,
            month,
            day,
            white_elo: elo(ColumnTag::WhiteElo),
            black_elo: elo(ColumnTag::BlackElo),
            white_fide_id: get(ColumnTag::WhiteFideId).and_then(parse_fide_id),
            black_fide_id: get(ColumnTag::BlackFideId).and_then(parse_fide_id),
            tc_class: tc_class(get(ColumnTag::TimeControl)),
            ..c
        }
    }

    /// The column's tag value, trimmed, when the game has it and it is not blank.
    pub fn tag<'a>(&self, tags: &'a Tags, k: ColumnTag) -> Option<&'a str> {
        self.at[k as usize]
            .and_then(|i| tags.get(i as usize))
            .map(|(_, v)| v.trim())
            .filter(|v| !v.is_empty())
    }
}

/// Year, month and day of a PGN date, each when known (`?` parts and impossible months or
/// days are `None`).
pub(crate) fn date_parts(date: &str) -> (Option<i64>, Option<i64>, Option<i64>) {
    let mut it = date.split('.').map(|p| p.trim().parse::<i64>().ok());
    (
        it.next().flatten(),
        it.next().flatten().filter(|m| (1..=12).contains(m)),
        it.next().flatten().filter(|d| (1..=31).contains(d)),
    )
}

impl GameRecord {
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.value(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(pairs: &[(&str, &str)]) -> Tags {
        let mut t = Tags::new();
        for (n, v) in pairs {
            t.push(n, v);
        }
        t
    }

    #[test]
    fn columns_read_each_tags_first_value_trimmed_and_list_the_tags_kept_apart() {
        let t = tags(&[
            ("Event", "Hoogovens"),
            ("Site", "  "),
            ("White", " Kasparov, Garry "),
            ("ECO", "B90"),
            ("Event", "a second Event"),
            ("WhiteFideId", "4100018"),
            ("TimeControl", "40/7200:3600"),
            ("Date", "1999.??.05"),
            ("WhiteElo", "2812"),
            ("BlackElo", "unrated"),
        ]);
        let c = Columns::of(&t);
        assert_eq!(c.tag(&t, ColumnTag::Event), Some("Hoogovens"));
        assert_eq!(c.tag(&t, ColumnTag::Site), None, "a blank tag is no value");
        assert_eq!(c.tag(&t, ColumnTag::White), Some("Kasparov, Garry"));
        assert_eq!(c.tag(&t, ColumnTag::Black), None);
        assert_eq!((c.year, c.month, c.day), (Some(1999), None, Some(5)));
        assert_eq!((c.white_elo, c.black_elo), (Some(2812), None));
        assert_eq!((c.white_fide_id, c.black_fide_id), (Some(4100018), None));
        assert_eq!(c.tc_class, "classical");
        // ECO, WhiteFideId and TimeControl go to `tags` by their place in the game; the
        // repeated Event, like every column tag, does not.
        assert_eq!(c.extra, vec![3, 5, 6]);
        assert_eq!(Columns::of(&Tags::new()).tc_class, "unknown");
    }
}
