//! Duplicate games, explained: groups of records of one game, found through indexes, never
//! by comparing all pairs, and stored in `duplicate_groups`/`duplicate_members` (no game is
//! ever deleted). Kinds (docs/IDENTITY.md):
//! - exact: the same tags and moves (the content hash); the import stores such a record
//!   once and counts the others in `imports.games_present`, so no group holds them;
//! - variant: the same moves (`encode::moves_key`, computed on read) between the same persons, on compatible dates
//!   (equal where both are known), rounds and results: tags differing in spelling,
//!   missing date parts, round format, annotations or clocks;
//! - contained: one game's moves a strict prefix of another's between the same persons in
//!   the same event and round (a truncated copy), found within each (persons, event) bucket.
//!
//! The same moves between other persons are not duplicates (short draws and theory lines
//! repeat); `same_moves_other_players` lists them on request.

use super::encode::{decode_moves, encode_moves, moves_hash, moves_key, start_position};
use crate::laws::result::WhiteResult;
use rusqlite::{Connection, params};
use std::collections::HashMap;
use std::fmt;

/// What a game brings to the comparison (moves are fetched only for contained candidates).
#[derive(Debug, Clone, Default)]
pub struct Candidate {
    pub id: i64,
    /// `encode::moves_key`: the start and the moves, whichever layout stored them.
    pub moves_hash: Vec<u8>,
    pub ply_count: i64,
    pub white: Option<i64>,
    pub black: Option<i64>,
    pub white_name: Option<i64>,
    pub black_name: Option<i64>,
    pub event: Option<i64>,
    pub date: [Option<i64>; 3],
    pub round: Option<String>,
    pub result: Option<String>,
    pub annotated: bool,
    pub clocks: bool,
    pub tags: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Kind {
    #[default]
    Variant,
    Contained,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Variant => "variant",
            Kind::Contained => "contained",
        }
    }
}

/// Which record of a group survives: the policy's first criterion, then the others in the
/// default order (longest, has a result, annotations, clocks, more tags, imported first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Prefer {
    #[default]
    Longest,
    Annotated,
    Clocks,
    Tags,
    First,
}

impl Prefer {
    pub const NAMES: [&str; 5] = ["longest", "annotated", "clocks", "tags", "first"];

    pub fn parse(s: &str) -> Option<Prefer> {
        Some(match s {
            "longest" => Prefer::Longest,
            "annotated" => Prefer::Annotated,
            "clocks" => Prefer::Clocks,
            "tags" => Prefer::Tags,
            "first" => Prefer::First,
            _ => return None,
        })
    }
}

fn finished(c: &Candidate) -> bool {
    WhiteResult::of(c.result.as_deref()).is_some()
}

/// The survivor's sort key under `prefer`: greater is better.
fn merit(c: &Candidate, prefer: Prefer) -> [i64; 7] {
    let first = match prefer {
        Prefer::Longest => c.ply_count,
        Prefer::Annotated => c.annotated as i64,
        Prefer::Clocks => c.clocks as i64,
        Prefer::Tags => c.tags,
        Prefer::First => -c.id,
    };
    [
        first,
        c.ply_count,
        finished(c) as i64,
        c.annotated as i64,
        c.clocks as i64,
        c.tags,
        -c.id,
    ]
}

/// Known parts of two dates agree.
fn dates_agree(a: &[Option<i64>; 3], b: &[Option<i64>; 3]) -> bool {
    a.iter()
        .zip(b)
        .all(|(x, y)| x.is_none() || y.is_none() || x == y)
}

/// Round numbers agree when the first number of each is the same (`1`, `01`, `1.1`, `1.0`)
/// or either is unknown.
fn rounds_agree(a: Option<&str>, b: Option<&str>) -> bool {
    let first =
        |r: Option<&str>| r.and_then(|r| r.trim().split(['.', ' ']).next()?.parse::<i64>().ok());
    match (first(a), first(b)) {
        (Some(x), Some(y)) => x == y,
        _ => true,
    }
}

fn results_agree(a: &Candidate, b: &Candidate) -> bool {
    !finished(a) || !finished(b) || a.result == b.result
}

/// Two records with the same moves and persons are one game unless a tag says otherwise.
fn same_game(a: &Candidate, b: &Candidate) -> bool {
    dates_agree(&a.date, &b.date)
        && rounds_agree(a.round.as_deref(), b.round.as_deref())
        && results_agree(a, b)
}

/// What differs between a member and its survivor, for the reason text.
fn differences(m: &Candidate, s: &Candidate) -> Vec<&'static str> {
    let mut d = Vec::new();
    if m.white_name != s.white_name {
        d.push("White spelling");
    }
    if m.black_name != s.black_name {
        d.push("Black spelling");
    }
    if m.event != s.event {
        d.push("Event/Site");
    }
    if m.date != s.date {
        d.push("date parts");
    }
    if m.round != s.round {
        d.push("Round");
    }
    if m.result != s.result {
        d.push("Result");
    }
    if m.annotated != s.annotated {
        d.push("annotations");
    }
    if m.clocks != s.clocks {
        d.push("clocks");
    }
    if m.tags != s.tags {
        d.push("other tags");
    }
    d
}

struct UnionFind(Vec<usize>);

impl UnionFind {
    fn find(&mut self, mut i: usize) -> usize {
        while self.0[i] != i {
            self.0[i] = self.0[self.0[i]];
            i = self.0[i];
        }
        i
    }
    fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.0[a.max(b)] = a.min(b);
        }
    }
}

/// One group found: its kind, survivor and members with reasons (survivor first).
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub kind: Kind,
    pub survivor: i64,
    pub members: Vec<(i64, bool, String)>,
}

/// Groups among `games`; `moves(id)` gives a game's move bytes for the prefix test.
pub fn find_groups(
    games: &[Candidate],
    prefer: Prefer,
    mut moves: impl FnMut(&[i64]) -> rusqlite::Result<HashMap<i64, Vec<u8>>>,
) -> rusqlite::Result<Vec<Group>> {
    let mut uf = UnionFind((0..games.len()).collect());
    // Variant: buckets by (moves, persons), then the tags' agreement with the bucket's first.
    // (moves hash, White person, Black person) → games.
    type Bucket<'a> = (&'a [u8], Option<i64>, Option<i64>);
    let mut buckets: HashMap<Bucket, Vec<usize>> = HashMap::new();
    for (i, g) in games.iter().enumerate() {
        if g.white.is_some() || g.black.is_some() {
            buckets
                .entry((&g.moves_hash, g.white, g.black))
                .or_default()
                .push(i);
        }
    }
    let mut contained_link: HashMap<usize, (usize, i64)> = HashMap::new();
    for members in buckets.values().filter(|m| m.len() > 1) {
        for (k, &a) in members.iter().enumerate() {
            if let Some(&b) = members[..k]
                .iter()
                .find(|&&b| same_game(&games[a], &games[b]))
            {
                uf.union(a, b);
            }
        }
    }
    // Contained: buckets by (persons, event), a strict prefix between the longer and shorter.
    let mut by_meeting: HashMap<(Option<i64>, Option<i64>, i64), Vec<usize>> = HashMap::new();
    for (i, g) in games.iter().enumerate() {
        if let Some(e) = g.event
            && (g.white.is_some() || g.black.is_some())
        {
            by_meeting.entry((g.white, g.black, e)).or_default().push(i);
        }
    }
    let meetings: Vec<&Vec<usize>> = by_meeting
        .values()
        .filter(|m| {
            m.len() > 1
                && m.iter()
                    .any(|&i| games[i].ply_count != games[m[0]].ply_count)
        })
        .collect();
    let ids: Vec<i64> = meetings
        .iter()
        .flat_map(|m| m.iter().map(|&i| games[i].id))
        .collect();
    let blobs = if ids.is_empty() {
        HashMap::new()
    } else {
        moves(&ids)?
    };
    for m in meetings {
        for &a in m {
            // The longer games `a` is a strict prefix of.
            let mut longer: Vec<usize> = Vec::new();
            for &b in m {
                let (ga, gb) = (&games[a], &games[b]);
                if ga.ply_count >= gb.ply_count
                    || !dates_agree(&ga.date, &gb.date)
                    || !rounds_agree(ga.round.as_deref(), gb.round.as_deref())
                {
                    continue;
                }
                let (Some(ma), Some(mb)) = (blobs.get(&ga.id), blobs.get(&gb.id)) else {
                    continue;
                };
                if mb.starts_with(ma) {
                    longer.push(b);
                }
            }
            // A truncated copy of one game: every longer game is a prefix or a copy of the
            // longest. A prefix of two games that part ways (two games of a match that
            // opened alike) is a copy of neither that can be told: it joins no group, or
            // it would join those two different games into one.
            let Some(&top) = longer.iter().max_by_key(|&&b| games[b].ply_count) else {
                continue;
            };
            let top_moves = blobs.get(&games[top].id);
            let one_game = longer.iter().all(|&b| {
                games[b].moves_hash == games[top].moves_hash
                    || blobs
                        .get(&games[b].id)
                        .zip(top_moves)
                        .is_some_and(|(mb, mt)| mt.starts_with(mb))
            });
            if one_game {
                for &b in &longer {
                    uf.union(a, b);
                }
                contained_link.insert(a, (top, games[a].ply_count));
            }
        }
    }
    let mut groups: HashMap<usize, Vec<usize>> = HashMap::new();
    for i in 0..games.len() {
        let r = uf.find(i);
        groups.entry(r).or_default().push(i);
    }
    let mut out: Vec<Group> = groups
        .into_values()
        .filter(|m| m.len() > 1)
        .map(|m| {
            let s = *m
                .iter()
                .max_by_key(|&&i| merit(&games[i], prefer))
                .expect("a group has members");
            let sv = &games[s];
            let kind = if m.iter().any(|&i| games[i].moves_hash != sv.moves_hash) {
                Kind::Contained
            } else {
                Kind::Variant
            };
            let mut members = vec![(sv.id, true, survivor_reason(sv, prefer, m.len()))];
            for &i in m.iter().filter(|&&i| i != s) {
                let g = &games[i];
                let reason = if g.moves_hash != sv.moves_hash && g.ply_count > sv.ply_count {
                    // A survivor chosen before the longest (--prefer) is the prefix.
                    format!(
                        "longer than game {}, which is its prefix at ply {}",
                        sv.id, sv.ply_count
                    )
                } else if g.moves_hash != sv.moves_hash {
                    let ply = contained_link.get(&i).map_or(g.ply_count, |l| l.1);
                    format!("prefix of game {} at ply {ply}", sv.id)
                } else {
                    let d = differences(g, sv);
                    if d.is_empty() {
                        format!("same moves and tags as game {}", sv.id)
                    } else {
                        format!("same moves as game {}; differs in {}", sv.id, d.join(", "))
                    }
                };
                members.push((g.id, false, reason));
            }
            Group {
                kind,
                survivor: sv.id,
                members,
            }
        })
        .collect();
    out.sort_by_key(|g| g.survivor);
    Ok(out)
}

fn survivor_reason(s: &Candidate, prefer: Prefer, n: usize) -> String {
    let mut has = vec![format!("{} plies", s.ply_count)];
    if finished(s) {
        has.push("a result".into());
    }
    if s.annotated {
        has.push("annotations".into());
    }
    if s.clocks {
        has.push("clocks".into());
    }
    has.push(format!("{} tags", s.tags));
    let by = Prefer::NAMES[prefer as usize];
    format!("survivor of {n} (policy {by}): {}", has.join(", "))
}

/// Counts of a refresh.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub games: u64,
    pub variant_groups: u64,
    pub variant_games: u64,
    pub contained_groups: u64,
    pub contained_games: u64,
    /// Exact copies the imports met and did not store.
    pub exact_skipped: u64,
}

impl fmt::Display for Counts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} games: exact copies skipped at import {}; variant {} groups ({} records); contained {} groups ({} records)",
            self.games,
            self.exact_skipped,
            self.variant_groups,
            self.variant_games,
            self.contained_groups,
            self.contained_games
        )
    }
}

/// The comparison data of one row of `duplicate_candidates.sql`.
fn row_to_candidate(r: &rusqlite::Row) -> rusqlite::Result<Candidate> {
    let start_fen: Option<String> = r.get(16)?;
    let chess960 = r.get_ref(17)?.as_str()? == "chess960";
    let blob = r.get_ref(1)?.as_blob()?;
    // A row whose moves do not replay keys on its bytes: it still meets its exact copies.
    let key = moves_key(start_fen.as_deref(), chess960, blob)
        .unwrap_or_else(|_| moves_hash(start_fen.as_deref(), blob));
    Ok(Candidate {
        id: r.get(0)?,
        moves_hash: key.to_vec(),
        ply_count: r.get(2)?,
        white: r.get(3)?,
        black: r.get(4)?,
        white_name: r.get(5)?,
        black_name: r.get(6)?,
        event: r.get(7)?,
        date: [r.get(8)?, r.get(9)?, r.get(10)?],
        round: r.get(11)?,
        result: r.get(12)?,
        annotated: r.get(13)?,
        clocks: r.get(14)?,
        tags: r.get(15)?,
    })
}

/// Loads every game's comparison data (all at once: `same_moves_other_players` compares
/// games across persons).
pub fn candidates(conn: &Connection) -> rusqlite::Result<Vec<Candidate>> {
    let mut stmt = conn.prepare(concat!(
        include_str!("sql/duplicate_candidates.sql"),
        "ORDER BY g.id"
    ))?;
    stmt.query_map([], row_to_candidate)?.collect()
}

/// The moves of `ids` in the 2-byte layout, for the prefix test (a packed blob is no prefix
/// of a longer game's); a row whose moves do not replay is left out of it.
pub fn prefix_moves(conn: &Connection, ids: &[i64]) -> rusqlite::Result<HashMap<i64, Vec<u8>>> {
    let mut stmt =
        conn.prepare_cached("SELECT moves, start_fen, variant FROM games WHERE id = ?1")?;
    let mut out = HashMap::with_capacity(ids.len());
    for &id in ids {
        let (blob, fen, variant): (Vec<u8>, Option<String>, String) =
            stmt.query_row([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        if let Ok(moves) = start_position(fen.as_deref(), variant == "chess960")
            .and_then(|start| decode_moves(&start, &blob))
        {
            out.insert(id, encode_moves(&moves));
        }
    }
    Ok(out)
}

/// Finds the groups among the stored games pair of persons by pair, handing each pair's
/// groups to `each`; returns how many games were read.
///
/// Both kinds of link join games between the same two persons (a variant bucket is
/// (moves, White, Black), a contained one (White, Black, event)), so no group spans two
/// pairs of persons: the rows come sorted by pair (SQLite's sorter spills to disk) and each
/// pair's games are grouped on their own and dropped. Memory is one pair's games, not every
/// game's key (832 MB on a million games when they were all held).
pub fn for_each_pair_groups(
    conn: &Connection,
    prefer: Prefer,
    mut each: impl FnMut(Vec<Group>) -> rusqlite::Result<()>,
) -> rusqlite::Result<u64> {
    // By pair of persons (games of no known person first), in id order within a pair.
    let mut stmt = conn.prepare(concat!(
        include_str!("sql/duplicate_candidates.sql"),
        "ORDER BY w.person_id, b.person_id, g.id"
    ))?;
    let mut rows = stmt.query([])?;
    let mut read = 0u64;
    let mut pair: Vec<Candidate> = Vec::new();
    let mut flush = |pair: &mut Vec<Candidate>| -> rusqlite::Result<()> {
        if pair.len() > 1 {
            let groups = find_groups(pair, prefer, |ids| prefix_moves(conn, ids))?;
            if !groups.is_empty() {
                each(groups)?;
            }
        }
        pair.clear();
        Ok(())
    };
    while let Some(r) = rows.next()? {
        read += 1;
        let persons: (Option<i64>, Option<i64>) = (r.get(3)?, r.get(4)?);
        if persons == (None, None) {
            // Games of no known person join no group (and come first in the order).
            continue;
        }
        if pair
            .last()
            .is_some_and(|last| (last.white, last.black) != persons)
        {
            flush(&mut pair)?;
        }
        pair.push(row_to_candidate(r)?);
    }
    flush(&mut pair)?;
    Ok(read)
}

/// Every group among the stored games, in `find_groups`' order (by survivor), and how
/// many games were read: the groups `find_groups` finds over all the games at once.
pub fn all_groups(conn: &Connection, prefer: Prefer) -> rusqlite::Result<(u64, Vec<Group>)> {
    let mut out: Vec<Group> = Vec::new();
    let read = for_each_pair_groups(conn, prefer, |groups| {
        out.extend(groups);
        Ok(())
    })?;
    out.sort_by_key(|g| g.survivor);
    Ok((read, out))
}

/// Finds the groups again and replaces the stored ones, in one transaction. The groups
/// are numbered by survivor, as `find_groups` orders them: each pair's groups wait in a
/// temporary table keyed by survivor (on disk, like the sort), not in memory, since on a
/// million copies of the master games nearly every record is in a group.
pub fn refresh(conn: &mut Connection, prefer: Prefer) -> rusqlite::Result<Counts> {
    let tx = conn.transaction()?;
    tx.execute_batch(
        "DROP TABLE IF EXISTS temp.found_members;
         CREATE TEMP TABLE found_members (survivor INTEGER NOT NULL, seq INTEGER NOT NULL,
             kind TEXT NOT NULL, game_id INTEGER NOT NULL, reason TEXT NOT NULL,
             PRIMARY KEY (survivor, seq)) WITHOUT ROWID;",
    )?;
    let games = {
        let mut found = tx.prepare(
            "INSERT INTO temp.found_members (survivor, seq, kind, game_id, reason)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        for_each_pair_groups(&tx, prefer, |groups| {
            for g in groups {
                for (seq, (id, _, reason)) in g.members.iter().enumerate() {
                    found.execute(params![g.survivor, seq as i64, g.kind.as_str(), id, reason])?;
                }
            }
            Ok(())
        })?
    };
    tx.execute_batch("DELETE FROM duplicate_members; DELETE FROM duplicate_groups;")?;
    let mut counts = Counts {
        games,
        exact_skipped: tx.query_row(
            "SELECT coalesce(sum(games_present), 0) FROM imports",
            [],
            |r| r.get::<_, i64>(0),
        )? as u64,
        ..Counts::default()
    };
    {
        let mut group_stmt =
            tx.prepare("INSERT INTO duplicate_groups (kind, survivor_id) VALUES (?1, ?2)")?;
        let mut member_stmt = tx.prepare(
            "INSERT INTO duplicate_members (game_id, group_id, survivor, reason) VALUES (?1, ?2, ?3, ?4)",
        )?;
        let mut found = tx.prepare(
            "SELECT seq, kind, game_id, reason FROM temp.found_members ORDER BY survivor, seq",
        )?;
        let mut rows = found.query([])?;
        let mut gid = 0;
        while let Some(r) = rows.next()? {
            let (seq, kind, id): (i64, &str, i64) = (r.get(0)?, r.get_ref(1)?.as_str()?, r.get(2)?);
            let reason = r.get_ref(3)?.as_str()?;
            let variant = kind == Kind::Variant.as_str();
            if seq == 0 {
                group_stmt.execute(params![kind, id])?;
                gid = tx.last_insert_rowid();
                if variant {
                    counts.variant_groups += 1;
                } else {
                    counts.contained_groups += 1;
                }
            }
            member_stmt.execute(params![id, gid, seq == 0, reason])?;
            if variant {
                counts.variant_games += 1;
            } else {
                counts.contained_games += 1;
            }
        }
    }
    tx.execute_batch("DROP TABLE temp.found_members;")?;
    tx.commit()?;
    Ok(counts)
}

/// Groups of games with the same moves between other persons (not duplicates), at least
/// `min_plies` long: (moves hash groups of game ids).
pub fn same_moves_other_players(games: &[Candidate], min_plies: i64) -> Vec<Vec<i64>> {
    let mut by_moves: HashMap<&[u8], Vec<&Candidate>> = HashMap::new();
    for g in games.iter().filter(|g| g.ply_count >= min_plies) {
        by_moves.entry(&g.moves_hash).or_default().push(g);
    }
    let mut out: Vec<Vec<i64>> = by_moves
        .into_values()
        .filter(|m| {
            m.iter()
                .any(|g| (g.white, g.black) != (m[0].white, m[0].black))
        })
        .map(|m| m.iter().map(|g| g.id).collect())
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(id: i64, moves: &[u8], white: i64, black: i64) -> Candidate {
        Candidate {
            id,
            moves_hash: crate::db::encode::moves_hash(None, moves).to_vec(),
            ply_count: moves.len() as i64 / 2,
            white: Some(white),
            black: Some(black),
            white_name: Some(white * 10),
            black_name: Some(black * 10),
            event: Some(1),
            date: [Some(2020), Some(5), Some(1)],
            round: Some("1".into()),
            result: Some("1-0".into()),
            tags: 8,
            ..Candidate::default()
        }
    }

    fn groups(games: &[Candidate], prefer: Prefer) -> Vec<Group> {
        let blobs: HashMap<i64, Vec<u8>> = games
            .iter()
            .map(|g| (g.id, vec![1u8; g.ply_count as usize * 2]))
            .collect();
        find_groups(games, prefer, |ids| {
            Ok(ids.iter().map(|id| (*id, blobs[id].clone())).collect())
        })
        .unwrap()
    }

    #[test]
    fn kinds_on_constructed_games() {
        let full = [1u8; 120];
        let mut reannotated = game(2, &full, 1, 2);
        reannotated.annotated = true;
        reannotated.white_name = Some(11);
        reannotated.date = [Some(2020), None, None];
        reannotated.round = Some("1.1".into());
        let games = vec![
            game(1, &full, 1, 2),
            reannotated,
            // A truncated copy: 40 plies of the 60.
            game(3, &full[..80], 1, 2),
            // Same moves, other players: not a duplicate.
            game(4, &full, 5, 6),
            // Same moves and players, another day: another game.
            Candidate {
                date: [Some(2021), Some(1), Some(1)],
                ..game(5, &full, 1, 2)
            },
        ];
        let g = groups(&games, Prefer::Longest);
        assert_eq!(g.len(), 1, "{g:#?}");
        assert_eq!(g[0].kind, Kind::Contained);
        // Longest, then annotations: game 2 survives.
        assert_eq!(g[0].survivor, 2);
        let reasons: Vec<&str> = g[0].members.iter().map(|m| m.2.as_str()).collect();
        assert_eq!(
            reasons,
            [
                "survivor of 3 (policy longest): 60 plies, a result, annotations, 8 tags",
                "same moves as game 2; differs in White spelling, date parts, Round, annotations",
                "prefix of game 2 at ply 40",
            ]
        );
        assert_eq!(same_moves_other_players(&games, 10), vec![vec![1, 2, 4, 5]]);
        // Without the truncated copy the group is a variant group.
        let g = groups(&[games[0].clone(), games[1].clone()], Prefer::First);
        assert_eq!((g[0].kind, g[0].survivor), (Kind::Variant, 1));
    }

    #[test]
    fn a_prefix_of_two_games_that_part_ways_joins_neither() {
        // Regression (synthetic million): a 26-ply copy was a prefix of two bullet games of
        // one match and round 3 (3.15 and 3.5) that opened alike, and joined them into one
        // group, marking a finished game a duplicate of another.
        let blob = |tail: u8, plies: usize| {
            let mut m = vec![1u8; 52];
            m.resize(plies * 2, tail);
            m
        };
        let moves: HashMap<i64, Vec<u8>> = [
            (1, blob(7, 53)),
            (2, blob(9, 98)),
            (3, blob(0, 26)),
            // A truncated copy of game 2 alone.
            (4, blob(9, 70)),
        ]
        .into_iter()
        .collect();
        let games: Vec<Candidate> = moves
            .iter()
            .map(|(&id, m)| Candidate {
                round: Some(if id == 2 { "3.5" } else { "3.15" }.into()),
                ..game(id, m, 1, 2)
            })
            .collect();
        let g = find_groups(&games, Prefer::Longest, |ids| {
            Ok(ids.iter().map(|id| (*id, moves[id].clone())).collect())
        })
        .unwrap();
        assert_eq!(g.len(), 1, "{g:#?}");
        let ids: Vec<i64> = g[0].members.iter().map(|m| m.0).collect();
        assert_eq!(ids, [2, 4]);
        assert_eq!(g[0].members[1].2, "prefix of game 2 at ply 70");
        // The survivor chosen first: the longer member says so.
        let mut first = games.clone();
        for c in &mut first {
            c.id = 10 - c.id;
        }
        let g = find_groups(&first, Prefer::First, |ids| {
            Ok(ids
                .iter()
                .map(|id| (*id, moves[&(10 - id)].clone()))
                .collect())
        })
        .unwrap();
        assert_eq!(g[0].survivor, 6);
        assert_eq!(
            g[0].members[1].2,
            "longer than game 6, which is its prefix at ply 70"
        );
    }

    #[test]
    fn survivor_policy_orders() {
        let moves = [2u8; 40];
        let mut a = game(1, &moves, 1, 2);
        a.result = Some("*".into());
        let mut b = game(2, &moves, 1, 2);
        b.tags = 3;
        let mut c = game(3, &moves, 1, 2);
        c.clocks = true;
        c.tags = 3;
        let all = [a, b, c];
        assert_eq!(groups(&all, Prefer::Longest)[0].survivor, 3);
        assert_eq!(groups(&all, Prefer::Tags)[0].survivor, 1);
        assert_eq!(groups(&all, Prefer::First)[0].survivor, 1);
        assert_eq!(groups(&all, Prefer::Clocks)[0].survivor, 3);
    }

    #[test]
    fn rounds_and_dates() {
        assert!(rounds_agree(Some("1"), Some("01")));
        assert!(rounds_agree(Some("3.2"), Some("3")));
        assert!(rounds_agree(Some("?"), Some("3")));
        assert!(!rounds_agree(Some("3"), Some("4")));
        assert!(dates_agree(
            &[Some(2020), None, None],
            &[Some(2020), Some(3), Some(1)]
        ));
        assert!(!dates_agree(
            &[Some(2020), Some(4), None],
            &[Some(2020), Some(3), Some(1)]
        ));
    }
}
