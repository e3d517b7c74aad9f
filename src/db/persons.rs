//! Persons and their spellings in the database: which person (`players`) each spelling
//! (`player_names`) belongs to, by FIDE id, then the user's aliases, then the safe
//! normalisation (docs/IDENTITY.md). Reassigning rewrites `player_names.person_id` and
//! `players` only, never `games`; the caller gives the transaction.

use crate::identity::aliases::{AliasError, Aliases};
use crate::identity::names::{fide_key, name_key, normalise};
use rusqlite::{Connection, params};
use std::collections::HashMap;
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
}

impl fmt::Display for PersonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PersonError::Sqlite(e) => write!(f, "{e}"),
            PersonError::Alias(e) => write!(f, "{e}"),
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
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reassigned {
    pub spellings: u64,
    /// Spellings whose person changed.
    pub moved: u64,
    pub persons_before: u64,
    pub persons_after: u64,
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
        let mut stmt =
            conn.prepare("SELECT name, fide_id FROM player_names WHERE fide_id IS NOT NULL")?;
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

/// Gives every stored spelling its person under `rules`, then drops the persons left with
/// no spelling (and no rating). Run inside a transaction: on error nothing has changed.
pub fn reassign(conn: &Connection, rules: &PersonRules) -> Result<Reassigned, PersonError> {
    let count = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0).map(|n| n as u64));
    let persons_before = count("SELECT count(*) FROM players")?;
    let spellings: Vec<(i64, String, Option<i64>, i64)> = {
        let mut stmt =
            conn.prepare("SELECT id, name, fide_id, person_id FROM player_names ORDER BY id")?;
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
            .collect::<Result<_, _>>()?
    };
    let mut moved = 0;
    let mut update = conn.prepare("UPDATE player_names SET person_id = ?2 WHERE id = ?1")?;
    for (id, name, fide, person) in &spellings {
        let p = rules.person(name, *fide);
        let new = upsert_person(conn, &p)?;
        if new != *person {
            update.execute(params![id, new])?;
            moved += 1;
        }
    }
    conn.execute(
        "DELETE FROM players WHERE id NOT IN (SELECT person_id FROM player_names) \
         AND id NOT IN (SELECT player_id FROM ratings)",
        [],
    )?;
    Ok(Reassigned {
        spellings: spellings.len() as u64,
        moved,
        persons_before,
        persons_after: count("SELECT count(*) FROM players")?,
    })
}

/// `players --apply-aliases` and `import --aliases`: checks the file against the stored
/// FIDE ids and reassigns every spelling, in one transaction.
pub fn apply_aliases(
    conn: &mut Connection,
    aliases: Aliases,
) -> Result<(PersonRules, Reassigned), PersonError> {
    let tx = conn.transaction()?;
    let rules = rules(&tx, aliases)?;
    let done = reassign(&tx, &rules)?;
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
}
