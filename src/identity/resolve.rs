//! Which person a name given on the command line means (`--player`, `--white`, `--black`,
//! `--anchor`, `stats player`, `h2h`): the one resolver every command uses. Pure logic over the
//! database's spellings; `db::directory` loads them. Rules, tried in order, the first that
//! finds anybody deciding:
//! 1. `#ID` names a person by id;
//! 2. the safe normalisation (`names::normalise`: `Carlsen,M` is `Carlsen, M`) of a spelling or
//!    a person's canonical name;
//! 3. the same name in the other order (`Magnus Carlsen` ↔ `Carlsen, Magnus`);
//! 4. a surname with initials (`Carlsen, M` finds `Carlsen, Magnus`);
//! 5. a surname alone (`Carlsen`);
//! 6. each of 2–5 with accents folded (`Nepomniachtchi` finds `Nepomniachtchi` spelled with a
//!    diacritic).
//!
//! One person found: resolved. Several: ambiguous, the caller lists them with ids and games.
//! Nobody: the closest spellings, ranked by the surname's edit distance first.

use super::names::normalise;
use unicode_normalization::UnicodeNormalization;

/// A spelling of a person (or the person's canonical name), as the database holds it.
#[derive(Debug, Clone, Copy)]
pub struct Spelled<'a> {
    pub person: i64,
    pub name: &'a str,
}

/// What a name means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// Exactly one person.
    One(i64),
    /// Several persons, sorted by id; `rule` says how they matched.
    Many { persons: Vec<i64>, rule: Rule },
    /// `#ID` with no such person.
    NoSuchId(i64),
    /// Nobody: the closest spellings, best first.
    NoMatch { closest: Vec<String> },
    /// An empty or blank name.
    Empty,
}

/// The rule that matched (for the message that lists several persons).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    Spelling,
    OtherOrder,
    Initials,
    Surname,
}

impl Rule {
    pub fn describe(self) -> &'static str {
        match self {
            Rule::Spelling => "spelled so",
            Rule::OtherOrder => "spelled so in the other name order",
            Rule::Initials => "with that surname and those initials",
            Rule::Surname => "with that surname",
        }
    }
}

/// Resolves `query` against `names`; `exists` says whether a person id exists (for `#ID`).
pub fn resolve(names: &[Spelled<'_>], exists: impl Fn(i64) -> bool, query: &str) -> Resolution {
    let query = query.trim();
    if query.is_empty() {
        return Resolution::Empty;
    }
    if let Some(id) = query
        .strip_prefix('#')
        .and_then(|n| n.trim().parse::<i64>().ok())
    {
        return if exists(id) {
            Resolution::One(id)
        } else {
            Resolution::NoSuchId(id)
        };
    }
    for fold in [false, true] {
        let form = |s: &str| {
            let n = normalise(s);
            if fold { fold_accents(&n) } else { n }
        };
        let q = form(query);
        let parsed: Vec<(i64, Parts)> = names
            .iter()
            .map(|s| (s.person, Parts::of(&form(s.name))))
            .collect();
        let tiers: [(Rule, &Matcher); 4] = [
            (Rule::Spelling, &|p, q| p.full == q),
            (Rule::OtherOrder, &|p, q| {
                p.other_order.as_deref() == Some(q)
            }),
            (Rule::Initials, &|p, q| p.has_initials(q)),
            (Rule::Surname, &|p, q| {
                !q.contains([',', ' ']) && p.surname == q
            }),
        ];
        for (rule, matches) in tiers {
            let mut persons: Vec<i64> = parsed
                .iter()
                .filter(|(_, p)| matches(p, &q))
                .map(|(id, _)| *id)
                .collect();
            persons.sort_unstable();
            persons.dedup();
            match persons.len() {
                0 => {}
                1 => return Resolution::One(persons[0]),
                _ => return Resolution::Many { persons, rule },
            }
        }
    }
    Resolution::NoMatch {
        closest: closest(names, query, 8),
    }
}

/// One rule's test of a spelling against the query (both in the same form).
type Matcher = dyn Fn(&Parts, &str) -> bool;

/// A normalised spelling cut into what the rules compare.
struct Parts {
    full: String,
    /// The part before the comma, or the last word when there is no comma.
    surname: String,
    /// The given names (after the comma, or the words before the surname).
    given: Vec<String>,
    /// `Last, First` for `First Last` and the other way round.
    other_order: Option<String>,
}

impl Parts {
    fn of(normalised: &str) -> Parts {
        let full = normalised.to_owned();
        if let Some((last, first)) = normalised.split_once(", ") {
            let given: Vec<String> = first.split(' ').map(str::to_owned).collect();
            let other_order = (!first.is_empty()).then(|| format!("{first} {last}"));
            Parts {
                full,
                surname: last.to_owned(),
                given,
                other_order,
            }
        } else {
            let words: Vec<&str> = normalised.split(' ').collect();
            let (surname, given) = match words.split_last() {
                Some((last, rest)) => (
                    (*last).to_owned(),
                    rest.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>(),
                ),
                None => (String::new(), Vec::new()),
            };
            let other_order =
                (!given.is_empty()).then(|| format!("{surname}, {}", given.join(" ")));
            Parts {
                full,
                surname,
                given,
                other_order,
            }
        }
    }

    /// `q` is `surname, i j` (initials, each one letter) and this name has that surname and
    /// given names starting with those letters, in order.
    fn has_initials(&self, q: &str) -> bool {
        let Some((last, initials)) = q.split_once(", ") else {
            return false;
        };
        let initials: Vec<&str> = initials.split(' ').filter(|s| !s.is_empty()).collect();
        if last != self.surname
            || initials.is_empty()
            || initials.len() > self.given.len()
            || initials.iter().any(|i| i.chars().count() != 1)
        {
            return false;
        }
        initials
            .iter()
            .zip(&self.given)
            .all(|(i, g)| g.starts_with(*i))
    }
}

/// Letters without their combining marks (NFD, marks dropped): `é` is `e`, `ø` stays `ø`.
pub fn fold_accents(s: &str) -> String {
    s.nfd()
        .filter(|c| !unicode_normalization::char::is_combining_mark(*c))
        .collect()
}

/// The spellings closest to `query`: by the edit distance of the surnames first, then of the
/// whole names, ignoring case and accents; at most `n`, each once.
pub fn closest(names: &[Spelled<'_>], query: &str, n: usize) -> Vec<String> {
    let chars = |s: &str| -> Vec<char> { fold_accents(&normalise(s)).chars().collect() };
    let q = Parts::of(&fold_accents(&normalise(query)));
    // A query without a comma may be `First Last` or a surname: its last word is the surname.
    let q_surname: Vec<char> = q.surname.chars().collect();
    let q_full = chars(query);
    let mut scored: Vec<(usize, usize, &str)> = names
        .iter()
        .map(|s| {
            let p = Parts::of(&fold_accents(&normalise(s.name)));
            let surname: Vec<char> = p.surname.chars().collect();
            (
                edit_distance(&q_surname, &surname),
                edit_distance(&q_full, &chars(s.name)),
                s.name,
            )
        })
        .collect();
    scored.sort_unstable();
    let mut out: Vec<String> = Vec::new();
    for (_, _, name) in scored {
        if out.len() == n {
            break;
        }
        if !out.iter().any(|o| o == name) {
            out.push(name.to_owned());
        }
    }
    out
}

/// Levenshtein distance over characters.
pub fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Vec<Spelled<'static>> {
        [
            (1, "Carlsen, Magnus"),
            (1, "Carlsen,M"),
            (2, "Caruana, Fabiano"),
            (3, "Nepomniachtchi, Ian"),
            (4, "Polgar, Judit"),
            (5, "Polgar, Susan"),
            (6, "Réti, Richard"),
            (7, "Kasparov, Garry"),
            (8, "Anand, Viswanathan"),
            (9, "Magnus Smith"),
        ]
        .into_iter()
        .map(|(person, name)| Spelled { person, name })
        .collect()
    }

    fn r(q: &str) -> Resolution {
        let n = names();
        resolve(&n, |id| (1..=9).contains(&id), q)
    }

    #[test]
    fn each_rule_finds_its_person() {
        assert_eq!(r("#7"), Resolution::One(7));
        assert_eq!(r("#70"), Resolution::NoSuchId(70));
        // The safe normalisation: case, the space after the comma.
        assert_eq!(r("carlsen,  magnus"), Resolution::One(1));
        assert_eq!(r("Carlsen, M"), Resolution::One(1));
        // The other order.
        assert_eq!(r("Magnus Carlsen"), Resolution::One(1));
        assert_eq!(r("Smith, Magnus"), Resolution::One(9));
        // Surname and initials.
        assert_eq!(r("Caruana, F"), Resolution::One(2));
        assert_eq!(r("Polgar, J"), Resolution::One(4));
        // A surname that names one person; one that names two.
        assert_eq!(r("Kasparov"), Resolution::One(7));
        assert_eq!(
            r("Polgar"),
            Resolution::Many {
                persons: vec![4, 5],
                rule: Rule::Surname
            }
        );
        // Accents folded only when nothing matched with them.
        assert_eq!(r("Reti, Richard"), Resolution::One(6));
        assert_eq!(r("Reti"), Resolution::One(6));
        assert_eq!(r("  "), Resolution::Empty);
    }

    #[test]
    fn nobody_gets_the_closest_spellings_by_surname() {
        let Resolution::NoMatch { closest } = r("Carlson") else {
            panic!("{:?}", r("Carlson"));
        };
        assert_eq!(closest[0..2], ["Carlsen,M", "Carlsen, Magnus"]);
        let Resolution::NoMatch { closest } = r("Fabiano Caruano") else {
            panic!()
        };
        assert_eq!(closest[0], "Caruana, Fabiano");
        // An initial that fits no given name is not a match.
        assert!(matches!(r("Caruana, X"), Resolution::NoMatch { .. }));
    }

    #[test]
    fn edit_distance_of_known_pairs() {
        let d = |a: &str, b: &str| {
            edit_distance(
                &a.chars().collect::<Vec<_>>(),
                &b.chars().collect::<Vec<_>>(),
            )
        };
        assert_eq!(d("kitten", "sitting"), 3);
        assert_eq!(d("carlsen", "carlson"), 1);
        assert_eq!(d("", "abc"), 3);
        assert_eq!(d("tal", "tal"), 0);
    }
}
