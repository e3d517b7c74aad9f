//! What a position search with the Laws' forms (`positions::laws`) reads of stored games:
//! the moves, and the import's verdict (the edition applied, the ply of an automatic ending),
//! and which games that verdict already rules out, so that a search for claims or
//! repetitions replays only the few games that can hold them.

use crate::db::query::Selection;
use crate::positions::laws::{AutomaticKind, ClaimKind, LawsQuery};
use rusqlite::{Connection, Row, params_from_iter};

/// A stored game with its verdict's columns.
#[derive(Debug, Clone)]
pub struct LawsGame {
    pub id: i64,
    pub start_fen: Option<String>,
    pub variant: String,
    pub moves: Vec<u8>,
    /// `games.laws_edition` (NULL: stored without a verdict, `import --no-laws`).
    pub edition: Option<String>,
    pub date: Option<String>,
    /// `games.termination_ply`: where the game ended by itself.
    pub end: Option<u32>,
}

fn row_to_game(r: &Row<'_>) -> rusqlite::Result<LawsGame> {
    Ok(LawsGame {
        id: r.get(0)?,
        start_fen: r.get(1)?,
        variant: r.get(2)?,
        moves: r.get(3)?,
        edition: r.get(4)?,
        date: r.get(5)?,
        end: r.get(6)?,
    })
}

/// One game by id, `None` when there is none.
pub fn laws_game(conn: &Connection, id: i64) -> rusqlite::Result<Option<LawsGame>> {
    let mut stmt = conn.prepare_cached(include_str!("sql/laws_game.sql"))?;
    let mut rows = stmt.query([id])?;
    rows.next()?.map(row_to_game).transpose()
}

/// What the stored verdict must show for a game to hold every form of `q`, as SQL over
/// games `g`. The verdict records the first ply of each claim before any automatic ending
/// (`threefold_ply`, `fifty_ply`), so:
/// - a threefold or fifty-move claim passed over needs that first claim;
/// - a third occurrence (`--repetition 3` and more) is a claim on the board, unless it came
///   at or after an ending; mate and stalemate end a game at its last position, which no
///   earlier ply can have been (the same position has the same moves), so only the other
///   endings let one through;
/// - an automatic ending passed over is that ending before the record's last ply.
///
/// A game stored without a verdict is always a candidate.
pub fn candidate_condition(q: &LawsQuery) -> String {
    let mut all: Vec<String> = Vec::new();
    if q.repetition.is_some_and(|n| n >= 3) {
        all.push(
            "(g.threefold_ply IS NOT NULL OR (g.termination_ply IS NOT NULL \
             AND g.termination NOT IN ('checkmate', 'stalemate')))"
                .into(),
        );
    }
    match q.claimable {
        Some(ClaimKind::Threefold) => all.push("g.threefold_ply IS NOT NULL".into()),
        Some(ClaimKind::Fifty) => all.push("g.fifty_ply IS NOT NULL".into()),
        None => {}
    }
    if let Some(kind) = q.automatic {
        // The names `pipeline::record::termination_name` stores.
        let name = match kind {
            AutomaticKind::Fivefold => "fivefold",
            AutomaticKind::SeventyFive => "seventy-five",
        };
        all.push(format!(
            "(g.termination = '{name}' AND g.termination_ply < g.ply_count)"
        ));
    }
    if all.is_empty() {
        return "1".into();
    }
    format!("(g.laws_edition IS NULL OR ({}))", all.join(" AND "))
}

/// Calls `f` with each game of the selection the stored verdict leaves possible for `q`,
/// by ascending id.
pub fn for_each_candidate<E: From<rusqlite::Error>>(
    conn: &Connection,
    selection: &Selection,
    q: &LawsQuery,
    mut f: impl FnMut(LawsGame) -> Result<(), E>,
) -> Result<(), E> {
    let (from, clause, values) = selection.sql();
    let sql = format!(
        "SELECT g.id, g.start_fen, g.variant, g.moves, g.laws_edition, g.date, g.termination_ply \
         FROM {from} WHERE ({clause}) AND {} ORDER BY g.id",
        candidate_condition(q)
    );
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query(params_from_iter(values))?;
    while let Some(r) = rows.next()? {
        f(row_to_game(r)?)?;
    }
    Ok(())
}
