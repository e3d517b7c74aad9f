//! Which person a name given on the command line means (`--player`, `--white`, `--black`,
//! `--anchor`, `stats player`, `h2h`): the one resolver every command uses. Pure logic over the
//! database's spellings; `db::directory` loads them. Rules, tried in order, the first that
//! finds anybody deciding:
//! 1. `#ID` names a person by id;
//! 2. the safe normalisation (`names::normalise`: `Carlsen,M` is `Carlsen, M`) of a spelling or
//!    a person's canonical name;
//! 3. the same name in the other order (`Magnus Carlsen` ↔ `Carlsen, Magnus`);
//! 4. a surname with initials (`Carlsen, M` finds `Carlsen, Magnus`);
//! 5. a surname alone (`Carlsen`); a name without a comma is also read family name first
//!    (`Ding` and `Ding, L` find `Ding Liren`);
//! 6. each of 2–5 with accents folded (`Nepomniachtchi` finds `Nepomniachtchi` spelled with a
//!    diacritic).
//!
//! A pair or consultation side (`names::is_pair`: `Kramnik,Vladimir:Picot,Russell`) is found by
//! its own spelling only (rule 2), never by a member's surname, initials or name order.
//!
//! One person found: resolved. Several: the caller weighs their games ([`dominant`]): one
//! holding nearly all of them is the person meant, else the name is ambiguous and the caller
//! lists them with ids and games. Nobody: the closest spellings, ranked by the surname's edit
//! distance first.

use super::names::{is_pair, normalise};
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
        let parsed: Vec<(i64, Parts, bool)> = names
            .iter()
            .map(|s| (s.person, Parts::of(&form(s.name)), is_pair(s.name)))
            .collect();
        let tiers: [(Rule, &Matcher); 4] = [
            (Rule::Spelling, &|p, q| p.full == q),
            (Rule::OtherOrder, &|p, q| {
                p.other_order.as_deref() == Some(q)
            }),
            (Rule::Initials, &|p, q| p.has_initials(q)),
            (Rule::Surname, &|p, q| {
                !q.contains([',', ' '])
                    && (p.surname == q || p.family_first.as_ref().is_some_and(|(s, _)| s == q))
            }),
        ];
        for (rule, matches) in tiers {
            let mut persons: Vec<i64> = parsed
                .iter()
                .filter(|(_, p, pair)| (rule == Rule::Spelling || !pair) && matches(p, &q))
                .map(|(id, _, _)| *id)
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

/// Of the persons one name matches, with their games, the one a user means: the person holding
/// at least [`DOMINANT_GAMES`] games and 95 % of their games together (one game by `Carlsen,H`
/// beside 4,090 by `Carlsen,M`: `Carlsen` is `Carlsen,M`). None when no person holds that
/// share: the name is ambiguous.
pub fn dominant(games: &[(i64, i64)]) -> Option<i64> {
    let total: i64 = games.iter().map(|(_, n)| n).sum();
    let (person, most) = games
        .iter()
        .copied()
        .max_by_key(|&(id, n)| (n, std::cmp::Reverse(id)))?;
    (most >= DOMINANT_GAMES && most * 20 >= total * 19).then_some(person)
}

/// Below this many games a share says little: a name stays ambiguous.
pub const DOMINANT_GAMES: i64 = 20;

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
    /// A name without a comma read family name first (`Ding Liren`): surname and given names.
    family_first: Option<(String, Vec<String>)>,
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
                family_first: None,
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
            let family_first = words.split_first().and_then(|(first, rest)| {
                (!rest.is_empty()).then(|| {
                    (
                        (*first).to_owned(),
                        rest.iter().map(|w| (*w).to_owned()).collect(),
                    )
                })
            });
            Parts {
                full,
                surname,
                given,
                other_order,
                family_first,
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
        if initials.is_empty() || initials.iter().any(|i| i.chars().count() != 1) {
            return false;
        }
        let fits = |surname: &str, given: &[String]| {
            last == surname
                && initials.len() <= given.len()
                && initials.iter().zip(given).all(|(i, g)| g.starts_with(*i))
        };
        fits(&self.surname, &self.given)
            || self
                .family_first
                .as_ref()
                .is_some_and(|(surname, given)| fits(surname, given))
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

    /// `Kramnik` used to name the pair `Kramnik,Vladimir:Picot,Russell` too, by its surname.
    #[test]
    fn a_pair_name_is_found_by_its_own_spelling_only() {
        let n: Vec<Spelled<'static>> = [
            (1, "Kramnik,V"),
            (2, "Kramnik,Vladimir:Picot,Russell"),
            (3, "Alekhine, Alexander"),
            (4, "Alekhine/Reilly"),
        ]
        .into_iter()
        .map(|(person, name)| Spelled { person, name })
        .collect();
        let r = |q: &str| resolve(&n, |id| (1..=4).contains(&id), q);
        assert_eq!(r("Kramnik"), Resolution::One(1));
        assert_eq!(r("Kramnik, V"), Resolution::One(1));
        assert_eq!(r("Kramnik,Vladimir:Picot,Russell"), Resolution::One(2));
        assert_eq!(r("Alekhine"), Resolution::One(3));
        assert_eq!(r("alekhine/reilly"), Resolution::One(4));
        // A name without a comma may be written family name first.
        let n: Vec<Spelled<'static>> = [(1, "Ding Liren"), (2, "Wei Yi")]
            .into_iter()
            .map(|(person, name)| Spelled { person, name })
            .collect();
        let r = |q: &str| resolve(&n, |_| true, q);
        assert_eq!(r("Ding"), Resolution::One(1));
        assert_eq!(r("Ding, L"), Resolution::One(1));
        assert_eq!(r("Yi"), Resolution::One(2));
    }

    #[test]
    fn a_person_holding_nearly_all_the_games_is_the_one_meant() {
        assert_eq!(dominant(&[(7, 1), (3, 4090)]), Some(3));
        assert_eq!(dominant(&[(3, 32_648), (9, 8)]), Some(3));
        assert_eq!(dominant(&[(1, 20), (2, 1)]), Some(1));
        // Short of 95 %, or of 20 games: ambiguous.
        assert_eq!(dominant(&[(1, 37), (2, 1), (3, 1)]), None);
        assert_eq!(dominant(&[(1, 19), (2, 1)]), None);
        assert_eq!(dominant(&[(1, 6), (2, 0)]), None);
        assert_eq!(dominant(&[(4, 3000), (5, 400)]), None);
        assert_eq!(dominant(&[(4, 0), (5, 0)]), None);
        assert_eq!(dominant(&[]), None);
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
