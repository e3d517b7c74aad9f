//! The persons and spellings of a database, loaded once (`Directory`), and the one way a name
//! given on the command line becomes a person (`Directory::resolve`, by the rules of
//! `identity::resolve`): a name that matches nobody is an error that lists the closest spellings;
//! one that matches several persons goes to the one holding nearly all their games
//! (`resolve::dominant`, with the others named in [`Resolved::note`]), else is an error listing
//! the persons with their ids, games and years.

use crate::identity::resolve::{self, Resolution, Rule, Spelled};
use rusqlite::Connection;
use std::collections::HashMap;
use std::fmt;

/// A person (players row).
#[derive(Debug, Clone, PartialEq)]
pub struct Person {
    pub id: i64,
    pub name: String,
    pub fide_id: Option<i64>,
}

/// A spelling (player_names row).
#[derive(Debug, Clone, PartialEq)]
pub struct Spelling {
    pub id: i64,
    pub name: String,
    pub fide_id: Option<i64>,
    pub person_id: i64,
}

/// Persons and spellings, by id.
#[derive(Debug, Default)]
pub struct Directory {
    pub persons: HashMap<i64, Person>,
    pub spellings: HashMap<i64, Spelling>,
}

impl Directory {
    pub fn load(conn: &Connection) -> rusqlite::Result<Directory> {
        let mut d = Directory::default();
        let mut stmt = conn.prepare("SELECT id, name, fide_id FROM players")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let p = Person {
                id: r.get(0)?,
                name: r.get(1)?,
                fide_id: r.get(2)?,
            };
            d.persons.insert(p.id, p);
        }
        let mut stmt = conn.prepare("SELECT id, name, fide_id, person_id FROM player_names")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let s = Spelling {
                id: r.get(0)?,
                name: r.get(1)?,
                fide_id: r.get(2)?,
                person_id: r.get(3)?,
            };
            d.spellings.insert(s.id, s);
        }
        Ok(d)
    }

    pub fn person_name(&self, id: i64) -> &str {
        self.persons.get(&id).map_or("?", |p| p.name.as_str())
    }

    pub fn spelling_name(&self, id: i64) -> &str {
        self.spellings.get(&id).map_or("?", |s| s.name.as_str())
    }

    /// The `n` stored spellings closest to `query` (`identity::resolve::closest`), for a
    /// message about a name that matched nothing.
    pub fn closest_spellings(&self, query: &str, n: usize) -> Vec<String> {
        let spelled: Vec<Spelled<'_>> = self.spelled().collect();
        resolve::closest(&spelled, query, n)
    }

    /// Every stored spelling with its person, as the resolver reads names.
    fn spelled(&self) -> impl Iterator<Item = Spelled<'_>> {
        self.spellings.values().map(|s| Spelled {
            person: s.person_id,
            name: &s.name,
        })
    }
}

impl Directory {
    /// The person `query` means: `#ID`, any spelling, the other name order, a surname with
    /// initials, or a surname alone (`identity::resolve`); of several persons, the one holding
    /// nearly all their games ([`Directory::resolve_noted`] also says who else matched).
    pub fn resolve(&self, conn: &Connection, query: &str) -> Result<i64, ResolveError> {
        self.resolve_noted(conn, query).map(|r| r.person)
    }

    /// As [`Directory::resolve`], with the persons the name also matched and passed over.
    pub fn resolve_noted(&self, conn: &Connection, query: &str) -> Result<Resolved, ResolveError> {
        let names: Vec<Spelled<'_>> = self
            .persons
            .values()
            .map(|p| Spelled {
                person: p.id,
                name: &p.name,
            })
            .chain(self.spelled())
            .collect();
        match resolve::resolve(&names, |id| self.persons.contains_key(&id), query) {
            Resolution::One(id) => Ok(Resolved {
                person: id,
                query: query.trim().to_owned(),
                rule: Rule::Spelling,
                held: None,
                passed_over: Vec::new(),
            }),
            Resolution::Empty => Err(ResolveError::Empty),
            Resolution::NoSuchId(id) => Err(ResolveError::NoSuchId(id)),
            Resolution::NoMatch { closest } => Err(ResolveError::NoMatch {
                query: query.trim().to_owned(),
                closest,
            }),
            Resolution::Many { persons, rule } => {
                let mut candidates = Vec::with_capacity(persons.len());
                for id in persons {
                    candidates.push(evidence(conn, self, id).map_err(ResolveError::Sqlite)?);
                }
                // The likeliest first: most games.
                candidates
                    .sort_by(|a, b| b.games.cmp(&a.games).then(a.person.id.cmp(&b.person.id)));
                let games: Vec<(i64, i64)> =
                    candidates.iter().map(|e| (e.person.id, e.games)).collect();
                if resolve::dominant(&games).is_some() {
                    // Sorted by games: the dominant person is the first.
                    let held = candidates.remove(0);
                    return Ok(Resolved {
                        person: held.person.id,
                        query: query.trim().to_owned(),
                        rule,
                        held: Some(held),
                        passed_over: candidates,
                    });
                }
                Err(ResolveError::Ambiguous {
                    query: query.trim().to_owned(),
                    rule,
                    candidates,
                })
            }
        }
    }
}

/// The person a name means, and the persons it also matched by the same rule but passed over,
/// most games first (together under 5 % of the games: `identity::resolve::dominant`).
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    pub person: i64,
    pub query: String,
    pub rule: Rule,
    /// The person's evidence, when others matched too.
    pub held: Option<Evidence>,
    pub passed_over: Vec<Evidence>,
}

impl Resolved {
    /// What to tell the user when other persons matched too: who they are, with games, and how
    /// to name one of them. None when the name matched one person only.
    pub fn note(&self) -> Option<String> {
        let held = self.held.as_ref()?;
        let person = |e: &Evidence| {
            let s = if e.games == 1 { "" } else { "s" };
            format!("#{} {} ({} game{s})", e.person.id, e.person.name, e.games)
        };
        let others: Vec<String> = self.passed_over.iter().map(person).collect();
        Some(format!(
            "{:?} is {}, 95 % or more of the games of the persons {}; also matched: {} \
             (name one as #ID)",
            self.query,
            person(held),
            self.rule.describe(),
            others.join(", ")
        ))
    }
}

/// Why a name did not resolve to one person.
#[derive(Debug)]
pub enum ResolveError {
    Empty,
    NoSuchId(i64),
    NoMatch {
        query: String,
        closest: Vec<String>,
    },
    Ambiguous {
        query: String,
        rule: Rule,
        candidates: Vec<Evidence>,
    },
    Sqlite(rusqlite::Error),
}

impl fmt::Display for ResolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResolveError::Empty => f.write_str("an empty name names nobody; give a name or #ID"),
            ResolveError::NoSuchId(id) => write!(f, "no person with id {id}"),
            ResolveError::NoMatch { query, closest } => {
                write!(f, "no person is called {query:?}")?;
                if closest.is_empty() {
                    f.write_str(" (the database has no players)")
                } else {
                    write!(f, "; the closest spellings:\n  {}", closest.join("\n  "))
                }
            }
            ResolveError::Ambiguous {
                query,
                rule,
                candidates,
            } => {
                write!(
                    f,
                    "{query:?} names {} persons ({}); give one as #ID:",
                    candidates.len(),
                    rule.describe()
                )?;
                for e in candidates {
                    let years = match (e.first_year, e.last_year) {
                        (Some(a), Some(b)) => format!("{a}-{b}"),
                        _ => "undated".to_owned(),
                    };
                    write!(
                        f,
                        "\n  #{}  {}  games {}  years {years}  FIDE {}  spellings: {}",
                        e.person.id,
                        e.person.name,
                        e.games,
                        e.person.fide_id.map_or("-".to_owned(), |f| f.to_string()),
                        e.spellings.join("; ")
                    )?;
                }
                write!(
                    f,
                    "\n(none holds the 95 % of their games, and {} or more, that would make the name theirs)",
                    resolve::DOMINANT_GAMES
                )
            }
            ResolveError::Sqlite(e) => write!(f, "database: {e}"),
        }
    }
}

impl std::error::Error for ResolveError {}

/// What tells persons of the same name apart: games, first and last year, FIDE id.
#[derive(Debug, Clone, PartialEq)]
pub struct Evidence {
    pub person: Person,
    pub games: i64,
    pub first_year: Option<i64>,
    pub last_year: Option<i64>,
    pub spellings: Vec<String>,
}

pub fn evidence(conn: &Connection, dir: &Directory, id: i64) -> rusqlite::Result<Evidence> {
    let (games, first_year, last_year) = conn.query_row(
        "SELECT count(*), min(year), max(year) FROM games \
         WHERE white_id IN (SELECT id FROM player_names WHERE person_id = ?1) \
         OR black_id IN (SELECT id FROM player_names WHERE person_id = ?1)",
        [id],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    let mut spellings: Vec<String> = dir
        .spellings
        .values()
        .filter(|s| s.person_id == id)
        .map(|s| s.name.clone())
        .collect();
    spellings.sort();
    spellings.dedup();
    Ok(Evidence {
        person: dir.persons.get(&id).cloned().unwrap_or(Person {
            id,
            name: "?".into(),
            fide_id: None,
        }),
        games,
        first_year,
        last_year,
        spellings,
    })
}
