//! Position search with the Laws' forms (`positions::laws`: repetitions, claims passed
//! over, automatic draws) over a database. The other forms of the query, when there are
//! any, find their games first (`positions::search`: the index, or a scan); with
//! the Laws' forms alone, the selection is scanned, less the games the import's verdict
//! rules out (`db::position_laws::candidate_condition`). Each candidate is replayed with the
//! whole query under the Laws of its game: the edition and ending the import stored, or, for
//! a game stored without a verdict, the ones `laws::judge` gives.

use super::positions::{Found, Hit};
use super::{QueryError, Selection};
use crate::db::encode::{decode_moves, start_position};
use crate::db::position_laws::{LawsGame, for_each_candidate, laws_game};
use crate::laws::{Edition, GameInput, LawsChoice, VerdictOptions, judge};
use crate::positions::laws::GameLaws;
use crate::positions::{Matcher, Query};
use rayon::prelude::*;
use rusqlite::Connection;

/// Games replayed together (in parallel).
const CHUNK: usize = 4096;

/// The games of the selection that match `query`, which has Laws' forms, by id.
pub fn search(
    conn: &Connection,
    query: &Query,
    selection: &Selection,
) -> Result<Found, QueryError> {
    let matcher = Matcher::new(query);
    let base = query.without_laws();
    let mut found = Found::default();
    let mut chunk: Vec<LawsGame> = Vec::with_capacity(CHUNK);
    if base.is_empty() {
        for_each_candidate(conn, selection, &query.laws, |g| {
            chunk.push(g);
            if chunk.len() == CHUNK {
                verify(&matcher, &mut chunk, &mut found);
            }
            Ok::<(), QueryError>(())
        })?;
    } else {
        // The games where the rest of the query holds at some ply: every answer is one.
        let first = super::positions::search(conn, &base, selection)?;
        found.indexed = first.indexed;
        found.unindexed = first.unindexed;
        found.replayed = first.replayed;
        for hit in &first.hits {
            if let Some(g) = laws_game(conn, hit.id)? {
                chunk.push(g);
            }
            if chunk.len() == CHUNK {
                verify(&matcher, &mut chunk, &mut found);
            }
        }
    }
    verify(&matcher, &mut chunk, &mut found);
    found.hits.sort_by_key(|h| h.id);
    Ok(found)
}

/// Replays a chunk of games in parallel and keeps their matches.
fn verify(matcher: &Matcher, chunk: &mut Vec<LawsGame>, found: &mut Found) {
    found.replayed += chunk.len() as u64;
    let hits: Vec<Hit> = chunk
        .par_iter()
        .filter_map(|g| {
            let ply = match_game(matcher, g)?;
            Some(Hit { id: g.id, ply })
        })
        .collect();
    found.hits.extend(hits);
    chunk.clear();
}

/// The first ply at which a stored game matches (None: no match, or it does not decode).
pub fn match_game(matcher: &Matcher, g: &LawsGame) -> Option<u32> {
    let start = start_position(g.start_fen.as_deref(), g.variant == "chess960").ok()?;
    let moves = decode_moves(&start, &g.moves).ok()?;
    let stored = g
        .edition
        .as_deref()
        .and_then(Edition::from_year_name)
        .map(|edition| GameLaws {
            edition,
            end: g.end,
        });
    if let Some(laws) = stored {
        return matcher.first_match_under(&start, &moves, &laws);
    }
    // No verdict stored: the edition by the date, as the import would have chosen it. A
    // known ending only takes matches away, so the verdict is asked for only on a match.
    let edition = LawsChoice::Auto.for_game(g.date.as_deref()).edition;
    let unended = GameLaws { edition, end: None };
    matcher.first_match_under(&start, &moves, &unended)?;
    let input = GameInput {
        start,
        moves: &moves,
        date: g.date.as_deref(),
        result_tag: None,
        termination_tag: None,
        result_marker: None,
    };
    let verdict = judge(&input, &VerdictOptions::default());
    let laws = GameLaws {
        edition: verdict.edition,
        end: verdict.termination.map(|(_, ply)| ply),
    };
    matcher.first_match_under(&start, &moves, &laws)
}
