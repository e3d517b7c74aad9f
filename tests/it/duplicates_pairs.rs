//! `duplicates` groups the games pair of persons by pair (rows sorted by SQLite, one pair in
//! memory at a time) instead of holding every game's key: the groups must be the ones found
//! over all the games at once, with the same survivors, members, order and reasons.

use crate::common::cli::{ok, s};
use arbiter::db::duplicates::{
    Group, Prefer, all_groups, candidates, find_groups, prefix_moves, refresh,
};
use std::path::Path;

/// Imports `files` into a new database and compares the streamed groups with the groups of
/// all games at once, under every survivor policy; returns the number of groups found.
fn same_groups(files: &[&Path]) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("d.sqlite");
    let mut args = vec!["import", "--db", s(&db), "-q"];
    args.extend(files.iter().map(|f| s(f)));
    ok(&args);
    let mut conn = arbiter::db::open_existing(&db).unwrap();
    let all = candidates(&conn).unwrap();
    let mut found = 0;
    for prefer in Prefer::NAMES.map(|n| Prefer::parse(n).unwrap()) {
        let whole = find_groups(&all, prefer, |ids| prefix_moves(&conn, ids)).unwrap();
        let (read, streamed) = all_groups(&conn, prefer).unwrap();
        assert_eq!(read, all.len() as u64);
        assert_eq!(streamed, whole, "policy {prefer:?}");
        // Stored through the temporary table: numbered by survivor, members in order.
        let counts = refresh(&mut conn, prefer).unwrap();
        assert_eq!(counts.games, all.len() as u64);
        assert_eq!(stored(&conn), whole, "policy {prefer:?}");
        found = whole.len();
    }
    found
}

/// The stored groups in id order, members survivor first then by game id (the order
/// `find_groups` lists them in).
fn stored(conn: &rusqlite::Connection) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    let mut stmt = conn
        .prepare(
            "SELECT d.id, d.kind, d.survivor_id, m.game_id, m.survivor, m.reason
             FROM duplicate_groups d JOIN duplicate_members m ON m.group_id = d.id
             ORDER BY d.id, m.survivor DESC, m.game_id",
        )
        .unwrap();
    let mut rows = stmt.query([]).unwrap();
    let mut last = None;
    while let Some(r) = rows.next().unwrap() {
        let id: i64 = r.get(0).unwrap();
        if last != Some(id) {
            let kind: String = r.get(1).unwrap();
            groups.push(Group {
                kind: if kind == "variant" {
                    arbiter::db::duplicates::Kind::Variant
                } else {
                    arbiter::db::duplicates::Kind::Contained
                },
                survivor: r.get(2).unwrap(),
                members: Vec::new(),
            });
            last = Some(id);
        }
        let member = (r.get(3).unwrap(), r.get(4).unwrap(), r.get(5).unwrap());
        groups.last_mut().unwrap().members.push(member);
    }
    groups
}

#[test]
fn pair_by_pair_finds_the_groups_of_testdata_duplicates() {
    let pgn = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/duplicates.pgn");
    assert_eq!(same_groups(&[&pgn]), 1);
}

#[test]
fn pair_by_pair_finds_the_groups_of_the_master_games() {
    if !crate::common::long() {
        return;
    }
    let Some(corpus) = crate::common::corpus() else {
        return;
    };
    let mut files: Vec<_> = std::fs::read_dir(corpus.join("games/otb-pgnmentor"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .collect();
    files.sort();
    let refs: Vec<&Path> = files.iter().map(|p| p.as_path()).collect();
    let groups = same_groups(&refs);
    assert_eq!(groups, 9, "the master games hold 9 groups");
}
