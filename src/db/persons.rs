//! Persons and their spellings in the database: which person (`players`) each spelling
//! (`player_names`) belongs to, by FIDE id, then the user's aliases, then the safe
//! normalisation (docs/IDENTITY.md). Reassigning rewrites `player_names.person_id` and
//! `players` only, never `games`; a person merged away is dropped, its stored ratings moved to
//! the person it joined. The caller gives the transaction. Also what `players` lists and what
//! `players --suggest` weighs.

use crate::identity::aliases::{AliasError, Aliases, Evidence, PersonEvidence, YearElo};
use crate::identity::names::{fide_key, name_key, normalise};
use rusqlite::{Connection, params};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt;

/// The person an alias group stands for: the FIDE person when a name of the group carries
/// a FIDE id in the database, else the canonical name's person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Person {
    pub key: String,
    pub name: String,
    pub fide_id: Option<i64>,
}

/// How spellings become persons: the aliases and, per alias group, its person.
#[derive(Debug, Clone, Default)]
pub struct PersonRules {
    pub aliases: Aliases,
    groups: HashMap<String, Person>,
}

impl PersonRules {
    /// The person a spelling belongs to, by FIDE id, then aliases, then normalisation.
    pub fn person(&self, name: &str, fide_id: Option<i64>) -> Person {
        if let Some(id) = fide_id {
            return Person {
                key: fide_key(id),
                name: name.to_owned(),
                fide_id: Some(id),
            };
        }
        let norm = normalise(name);
        if let Some((canon, _)) = self.aliases.resolve(&norm) {
            if let Some(p) = self.groups.get(&canon.normalised) {
                return p.clone();
            }
            return Person {
                key: name_key(&canon.normalised),
                name: canon.written.clone(),
                fide_id: None,
            };
        }
        Person {
            key: name_key(&norm),
            name: name.to_owned(),
            fide_id: None,
        }
    }
}

#[derive(Debug)]
pub enum PersonError {
    Sqlite(rusqlite::Error),
    Alias(AliasError),
    /// `players --name` matched no spelling: the closest ones.
    NoMatch {
        name: String,
        closest: Vec<String>,
    },
}

impl fmt::Display for PersonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PersonError::Sqlite(e) => write!(f, "{e}"),
            PersonError::Alias(e) => write!(f, "{e}"),
            PersonError::NoMatch { name, closest } if closest.is_empty() => {
                write!(
                    f,
                    "no stored spelling contains {name:?}; the database has no players"
                )
            }
            PersonError::NoMatch { name, closest } => write!(
                f,
                "no stored spelling contains {name:?}; the closest: {}",
                closest.join("; ")
            ),
        }
    }
}

impl std::error::Error for PersonError {}

impl From<rusqlite::Error> for PersonError {
    fn from(e: rusqlite::Error) -> Self {
        PersonError::Sqlite(e)
    }
}

/// What a reassignment changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reassigned {
    pub spellings: u64,
    /// Spellings whose person changed.
    pub moved: u64,
    pub persons_before: u64,
    pub persons_after: u64,
    /// Spellings moved back to a person of their own because the rules no longer name them:
    /// what an earlier alias file did and this one undid.
    pub undone: Vec<Undone>,
    /// Stored rating rows (list and history) of persons merged away, moved to the person they
    /// joined.
    pub ratings_moved: u64,
    /// Stored rating rows of persons merged away that could not be moved: the run rated the
    /// person they joined too, or their spellings went to several persons.
    pub ratings_dropped: u64,
    /// Names of the alias file that match no stored spelling: (line, name as written).
    pub unknown: Vec<(usize, String)>,
}

/// A spelling an application took out of the person an earlier alias file had put it in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undone {
    pub spelling: String,
    /// The person it was with (id, name).
    pub from: (i64, String),
    /// The person it is now with (id, name).
    pub to: (i64, String),
}

/// Every person's spellings with their games, for persons with a spelling like `pattern`
/// (SQL LIKE, case-insensitive for ASCII), most games first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub person: i64,
    pub person_name: String,
    pub key: String,
    /// The person's games.
    pub total: i64,
    pub spelling: String,
    pub fide_id: Option<i64>,
    /// The spelling's games.
    pub games: i64,
}

/// The persons with a spelling containing `name` (case-insensitive), every person without
/// one; most games first. A name that no spelling contains is an error naming the closest.
pub fn list_matching(conn: &Connection, name: Option<&str>) -> Result<Vec<Listed>, PersonError> {
    let rows = list(conn, &format!("%{}%", name.unwrap_or("")))?;
    match name {
        Some(name) if rows.is_empty() => {
            let dir = crate::db::directory::Directory::load(conn)?;
            Err(PersonError::NoMatch {
                name: name.to_owned(),
                closest: dir.closest_spellings(name, 8),
            })
        }
        _ => Ok(rows),
    }
}

fn list(conn: &Connection, pattern: &str) -> rusqlite::Result<Vec<Listed>> {
    conn.prepare_cached(include_str!("sql/person_list.sql"))?
        .query_map(params![pattern], |r| {
            Ok(Listed {
                person: r.get(0)?,
                person_name: r.get(1)?,
                key: r.get(2)?,
                total: r.get(3)?,
                spelling: r.get(4)?,
                fide_id: r.get(5)?,
                games: r.get(6)?,
            })
        })?
        .collect()
}

/// What `players --suggest` weighs: each person's FIDE id, games, years and dates, own and
/// opponents' average rating, events, opponents and days played, and every spelling.
pub fn evidence(conn: &Connection) -> rusqlite::Result<Evidence> {
    let mut e = Evidence::default();
    let mut stmt = conn.prepare_cached(include_str!("sql/person_evidence.sql"))?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let id: i64 = r.get(0)?;
        let years = match (r.get::<_, Option<i64>>(4)?, r.get::<_, Option<i64>>(5)?) {
            (Some(a), Some(b)) => Some((a, b)),
            _ => None,
        };
        e.persons.insert(
            id,
            PersonEvidence {
                id,
                name: r.get(1)?,
                fide: r.get(2)?,
                games: r.get(3)?,
                years,
                elo: r.get(6)?,
                events: HashSet::new(),
                dates: match (r.get::<_, Option<i64>>(7)?, r.get::<_, Option<i64>>(8)?) {
                    (Some(a), Some(b)) => Some((a, b)),
                    _ => None,
                },
                opponent_elo: r.get(9)?,
                opponents: HashSet::new(),
                days: Vec::new(),
                elo_by_year: Default::default(),
            },
        );
    }
    let mut stmt = conn.prepare_cached(include_str!("sql/person_elo_by_year.sql"))?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        if let Some(p) = e.persons.get_mut(&r.get(0)?) {
            let elo = YearElo {
                own: (r.get::<_, Option<f64>>(2)?.unwrap_or(0.0), r.get(3)?),
                opponents: (r.get::<_, Option<f64>>(4)?.unwrap_or(0.0), r.get(5)?),
            };
            p.elo_by_year.insert(r.get(1)?, elo);
        }
    }
    let mut stmt = conn.prepare_cached(include_str!("sql/person_opponents.sql"))?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        if let Some(p) = e.persons.get_mut(&r.get(0)?) {
            p.opponents.insert(r.get(1)?);
        }
    }
    let mut stmt = conn.prepare_cached(include_str!("sql/person_days.sql"))?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        if let Some(p) = e.persons.get_mut(&r.get(0)?) {
            p.days.push((r.get(1)?, r.get(2)?));
        }
    }
    let mut stmt = conn.prepare_cached(include_str!("sql/person_events.sql"))?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        if let Some(p) = e.persons.get_mut(&r.get(0)?) {
            p.events.insert(r.get(1)?);
        }
    }
    e.spellings = conn
        .prepare_cached(include_str!("sql/person_spellings.sql"))?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<Result<_, _>>()?;
    Ok(e)
}

/// Finds or creates a person by its key.
pub fn upsert_person(conn: &Connection, p: &Person) -> rusqlite::Result<i64> {
    conn.prepare_cached(include_str!("sql/upsert_person.sql"))?
        .query_row(params![p.name, p.fide_id, p.key], |r| r.get(0))
}

/// Every person's id and canonical name, by id.
pub fn persons_by_id(conn: &Connection) -> rusqlite::Result<Vec<(i64, String)>> {
    conn.prepare_cached(include_str!("sql/persons_by_id.sql"))?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect()
}

/// How many games the database holds.
pub fn stored_games(conn: &Connection) -> rusqlite::Result<u64> {
    conn.prepare_cached(include_str!("sql/count_games.sql"))?
        .query_row([], |r| r.get::<_, i64>(0).map(|n| n as u64))
}

/// The rules for `aliases` against the spellings stored: an alias group whose names carry
/// two different FIDE ids is refused, naming the two lines.
pub fn rules(conn: &Connection, aliases: Aliases) -> Result<PersonRules, PersonError> {
    let mut groups: HashMap<String, (Person, usize, String)> = HashMap::new();
    if !aliases.is_empty() {
        let mut stmt = conn.prepare_cached(include_str!("sql/person_fide_spellings.sql"))?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?;
        for row in rows {
            let (name, fide) = row?;
            let Some((canon, line)) = aliases.resolve(&normalise(&name)) else {
                continue;
            };
            match groups.get(&canon.normalised) {
                Some((p, first_line, first_name)) if p.fide_id != Some(fide) => {
                    return Err(PersonError::Alias(AliasError::FideConflict {
                        path: aliases.path.clone(),
                        first: (*first_line, first_name.clone(), p.fide_id.unwrap_or(0)),
                        second: (line, name, fide),
                    }));
                }
                Some(_) => {}
                None => {
                    let p = Person {
                        key: fide_key(fide),
                        name: canon.written.clone(),
                        fide_id: Some(fide),
                    };
                    groups.insert(canon.normalised.clone(), (p, line, name));
                }
            }
        }
    }
    Ok(PersonRules {
        aliases,
        groups: groups.into_iter().map(|(k, (p, _, _))| (k, p)).collect(),
    })
}

/// Gives every stored spelling its person under `rules`, then drops the persons left with no
/// spelling, after moving their stored ratings to the person their spellings joined (a row
/// that would collide with that person's own row in the same run is dropped, as is every row
/// of a person whose spellings went to several persons). Run inside a transaction: on error
/// nothing has changed.
pub fn reassign(conn: &Connection, rules: &PersonRules) -> Result<Reassigned, PersonError> {
    let count = || {
        conn.prepare_cached(include_str!("sql/count_persons.sql"))?
            .query_row([], |r| r.get::<_, i64>(0).map(|n| n as u64))
    };
    let persons_before = count()?;
    let names: HashMap<i64, String> = persons_by_id(conn)?.into_iter().collect();
    let spellings: Vec<(i64, String, Option<i64>, i64)> = conn
        .prepare_cached(include_str!("sql/spelling_persons.sql"))?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
        .collect::<Result<_, _>>()?;
    let mut moved = 0;
    let mut undone = Vec::new();
    // Each person before → the persons its spellings have now.
    let mut went: HashMap<i64, BTreeSet<i64>> = HashMap::new();
    let mut update = conn.prepare_cached(include_str!("sql/update_spelling_person.sql"))?;
    for (id, name, fide, person) in &spellings {
        let p = rules.person(name, *fide);
        let new = upsert_person(conn, &p)?;
        went.entry(*person).or_default().insert(new);
        if new != *person {
            update.execute(params![id, new])?;
            moved += 1;
            if fide.is_none() && rules.aliases.resolve(&normalise(name)).is_none() {
                undone.push(Undone {
                    spelling: name.clone(),
                    from: (*person, names.get(person).cloned().unwrap_or_default()),
                    to: (new, p.name.clone()),
                });
            }
        }
    }
    let orphans: Vec<i64> = conn
        .prepare_cached(include_str!("sql/persons_without_spellings.sql"))?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let (mut ratings_moved, mut ratings_dropped) = (0, 0);
    for orphan in orphans {
        if let Some(joined) = went.get(&orphan).filter(|to| to.len() == 1) {
            let to = *joined.iter().next().unwrap_or(&orphan);
            // The history first: a run that rated the joined person too keeps neither the
            // merged person's list row nor its history (its own track, rated apart).
            for sql in [
                include_str!("sql/repoint_rating_history.sql"),
                include_str!("sql/repoint_ratings.sql"),
            ] {
                ratings_moved += conn.prepare_cached(sql)?.execute(params![orphan, to])? as u64;
            }
        }
        for sql in [
            include_str!("sql/delete_person_ratings.sql"),
            include_str!("sql/delete_person_rating_history.sql"),
        ] {
            ratings_dropped += conn.prepare_cached(sql)?.execute(params![orphan])? as u64;
        }
    }
    conn.prepare_cached(include_str!("sql/delete_persons_without_spellings.sql"))?
        .execute([])?;
    Ok(Reassigned {
        spellings: spellings.len() as u64,
        moved,
        persons_before,
        persons_after: count()?,
        undone,
        ratings_moved,
        ratings_dropped,
        unknown: Vec::new(),
    })
}

/// `players --apply-aliases` and `import --aliases`: checks the file against the stored
/// FIDE ids and reassigns every spelling, in one transaction. The file is the whole mapping:
/// a spelling an earlier file mapped and this one does not name returns to its own person
/// (reported in `undone`); names of the file no stored spelling has are reported in `unknown`.
pub fn apply_aliases(
    conn: &mut Connection,
    aliases: Aliases,
) -> Result<(PersonRules, Reassigned), PersonError> {
    let tx = conn.transaction()?;
    let rules = rules(&tx, aliases)?;
    let mut done = reassign(&tx, &rules)?;
    let stored: HashSet<String> = tx
        .prepare_cached(include_str!("sql/person_spellings.sql"))?
        .query_map([], |r| r.get::<_, String>(1))?
        .map(|n| n.map(|n| normalise(&n)))
        .collect::<Result<_, _>>()?;
    done.unknown = rules
        .aliases
        .names()
        .filter(|(_, _, norm)| !stored.contains(*norm))
        .map(|(line, written, _)| (line, written.to_owned()))
        .collect();
    tx.commit()?;
    Ok((rules, done))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn db_with(spellings: &[(&str, Option<i64>)]) -> (tempfile::TempDir, Connection) {
        let dir = tempfile::tempdir().unwrap();
        let conn = crate::db::open(&dir.path().join("p.sqlite")).unwrap();
        let rules = PersonRules::default();
        for (name, fide) in spellings {
            let p = upsert_person(&conn, &rules.person(name, *fide)).unwrap();
            conn.execute(
                "INSERT INTO player_names (name, fide_id, person_id) VALUES (?1, ?2, ?3)",
                params![name, fide, p],
            )
            .unwrap();
        }
        (dir, conn)
    }

    fn person(conn: &Connection, name: &str, fide: Option<i64>) -> i64 {
        conn.query_row(
            "SELECT person_id FROM player_names WHERE name = ?1 AND fide_id IS ?2",
            params![name, fide],
            |r| r.get(0),
        )
        .unwrap()
    }

    #[test]
    fn fide_ids_override_spelling() {
        let (_d, conn) = db_with(&[
            ("Carlsen, Magnus", Some(1503014)),
            ("Carlsen,M", Some(1503014)),
            ("Polgar, J", Some(700070)),
            ("Polgar, J", Some(700088)),
            ("Polgar, J", None),
        ]);
        // One FIDE id, two spellings: one person.
        assert_eq!(
            person(&conn, "Carlsen, Magnus", Some(1503014)),
            person(&conn, "Carlsen,M", Some(1503014))
        );
        // One spelling, two FIDE ids (and none): three persons.
        let a = person(&conn, "Polgar, J", Some(700070));
        let b = person(&conn, "Polgar, J", Some(700088));
        let c = person(&conn, "Polgar, J", None);
        assert!(a != b && b != c && a != c);
    }

    #[test]
    fn aliases_apply_and_refuse_two_fide_ids() {
        let (_d, mut conn) = db_with(&[
            ("Carlsen, Magnus", None),
            ("Carlsen,M", None),
            ("MagnusCarlsen", Some(1503014)),
            ("Polgar, Judit", Some(700070)),
            ("Polgar, Zsuzsa", Some(700088)),
        ]);
        assert_ne!(
            person(&conn, "Carlsen,M", None),
            person(&conn, "Carlsen, Magnus", None)
        );
        let path = Path::new("a.tsv");
        let a = Aliases::parse(
            path,
            "Carlsen, Magnus\tCarlsen,M\nCarlsen, Magnus\tMagnusCarlsen\n",
        )
        .unwrap();
        let (_, done) = apply_aliases(&mut conn, a).unwrap();
        assert_eq!((done.spellings, done.moved), (5, 2));
        // The group carries FIDE id 1503014: its name-only spellings join that person.
        let fide = person(&conn, "MagnusCarlsen", Some(1503014));
        assert_eq!(person(&conn, "Carlsen,M", None), fide);
        assert_eq!(person(&conn, "Carlsen, Magnus", None), fide);
        let before: i64 = conn
            .query_row("SELECT count(*) FROM players", [], |r| r.get(0))
            .unwrap();
        assert_eq!(before, 3);
        // Merging two FIDE persons is refused, naming both lines, and nothing changes.
        let bad = Aliases::parse(
            path,
            "# sisters?\nPolgar, Judit\tPolgar, J.\nPolgar, Judit\tPolgar, Zsuzsa\n",
        )
        .unwrap();
        let e = apply_aliases(&mut conn, bad).unwrap_err().to_string();
        assert!(e.starts_with("a.tsv:"), "{e}");
        assert!(e.contains("700070") && e.contains("700088"), "{e}");
        assert!(e.contains("a.tsv:2") || e.contains("a.tsv:3"), "{e}");
        // An empty alias file undoes the mapping.
        let (_, done) = apply_aliases(&mut conn, Aliases::parse(path, "").unwrap()).unwrap();
        assert_eq!(done.moved, 2);
        assert_ne!(person(&conn, "Carlsen,M", None), fide);
    }

    fn rate(conn: &Connection, rows: &[(i64, f64)]) -> i64 {
        let ratings: Vec<crate::db::ratings::RatingRecord> = rows
            .iter()
            .map(|&(player_id, rating)| crate::db::ratings::RatingRecord {
                player_id,
                games: 3,
                score: 1.5,
                rating: Some(rating),
                error: None,
                rd: None,
                volatility: None,
                rank: None,
            })
            .collect();
        let run = crate::db::ratings::RunRecord {
            system: "pool",
            settings: "{}",
            created_at: "2026-11-27T10:00:00Z",
            games: 3,
            skipped: 0,
        };
        let history: Vec<crate::db::ratings::HistoryRecord> = rows
            .iter()
            .map(|&(player_id, rating)| crate::db::ratings::HistoryRecord {
                player_id,
                period: format!("2024-0{}", player_id % 9 + 1),
                games: 3,
                rating,
                rd: None,
                volatility: None,
            })
            .collect();
        crate::db::ratings::store_run(conn, &run, &ratings, &history).unwrap()
    }

    fn persons_named(conn: &Connection, name: &str) -> i64 {
        conn.query_row(
            "SELECT count(*) FROM players WHERE name = ?1",
            [name],
            |r| r.get(0),
        )
        .unwrap()
    }

    /// After a stored rating run, a merged-away person used to stay behind with its ratings
    /// and no spelling ("persons 4 -> 4"), so its name matched two persons.
    #[test]
    fn merged_persons_leave_no_ghost_and_their_ratings_follow_them() {
        let (_d, mut conn) = db_with(&[
            ("Carlsen, Magnus", None),
            ("Carlsen,M", None),
            ("Adams, Michael", None),
            ("Adams,Mi", None),
        ]);
        let id = |conn: &Connection, n: &str| person(conn, n, None);
        let (magnus, m) = (id(&conn, "Carlsen, Magnus"), id(&conn, "Carlsen,M"));
        let (adams, mi) = (id(&conn, "Adams, Michael"), id(&conn, "Adams,Mi"));
        // Run 1 rated Carlsen,M alone; run 2 rated both Adams spellings apart.
        let run1 = rate(&conn, &[(m, 2800.0), (adams, 2700.0)]);
        let run2 = rate(&conn, &[(adams, 2700.0), (mi, 2650.0)]);
        let a = Aliases::parse(
            Path::new("a.tsv"),
            "Carlsen, Magnus\tCarlsen,M\nAdams, Michael\tAdams,Mi\nNobody, Here\tNobody,H\n",
        )
        .unwrap();
        let (_, done) = apply_aliases(&mut conn, a).unwrap();
        assert_eq!((done.persons_before, done.persons_after), (4, 2));
        assert_eq!(persons_named(&conn, "Carlsen,M"), 0);
        assert_eq!(persons_named(&conn, "Adams,Mi"), 0);
        // Carlsen,M's rating of run 1 is now Carlsen, Magnus's; Adams,Mi's of run 2 collided
        // with Adams, Michael's own and was dropped.
        // (Each with its history row: the one moved, the other dropped, never mixed into
        // the history of the person that run rated apart.)
        assert_eq!((done.ratings_moved, done.ratings_dropped), (2, 2));
        let history = |run: i64, p: i64| -> i64 {
            conn.query_row(
                "SELECT count(*) FROM rating_history WHERE run_id = ?1 AND player_id = ?2",
                params![run, p],
                |r| r.get(0),
            )
            .unwrap()
        };
        assert_eq!((history(run1, magnus), history(run2, adams)), (1, 1));
        let rating = |run: i64, p: i64| -> Option<f64> {
            conn.query_row(
                "SELECT rating FROM ratings WHERE run_id = ?1 AND player_id = ?2",
                params![run, p],
                |r| r.get(0),
            )
            .ok()
        };
        assert_eq!(rating(run1, magnus), Some(2800.0));
        assert_eq!(rating(run2, adams), Some(2700.0));
        assert_eq!(rating(run2, mi), None);
        // Names of the file that match no stored spelling, with their lines.
        assert_eq!(
            done.unknown,
            [(3, "Nobody, Here".to_owned()), (3, "Nobody,H".to_owned())]
        );
        assert!(done.undone.is_empty());
        // A second file replaces the first: what it no longer names goes back, and is said.
        let b = Aliases::parse(Path::new("b.tsv"), "Adams, Michael\tAdams,Mi\n").unwrap();
        let (_, done) = apply_aliases(&mut conn, b).unwrap();
        assert_eq!(done.undone.len(), 1, "{:?}", done.undone);
        let u = &done.undone[0];
        assert_eq!(u.spelling, "Carlsen,M");
        assert_eq!(u.from, (magnus, "Carlsen, Magnus".to_owned()));
        assert_eq!(u.to.1, "Carlsen,M");
        assert!(done.unknown.is_empty());
    }
}
