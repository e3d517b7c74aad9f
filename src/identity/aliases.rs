//! The user's alias file: which spellings are one person. TSV, one `canonical<TAB>variant`
//! a line; empty lines and lines starting with `#` are skipped (`players --suggest` writes
//! its evidence there). Both sides are compared by the safe normalisation (`names`).
//! A malformed line, a variant given two canonical names, or a canonical name that is
//! itself another name's variant is refused with the file and line(s), before anything is
//! applied.

use super::names::normalise;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};

/// One alias group's canonical name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Canonical {
    /// As written in the file (the person's display name).
    pub written: String,
    pub normalised: String,
    /// First line that names it.
    pub line: usize,
}

/// A parsed alias file: normalised spelling → its group's canonical name. Canonical names
/// map to themselves.
#[derive(Debug, Clone, Default)]
pub struct Aliases {
    pub path: PathBuf,
    map: HashMap<String, (Canonical, usize)>,
    /// Every name of the file once, as first written: (line, written, normalised).
    names: Vec<(usize, String, String)>,
}

#[derive(Debug)]
pub enum AliasError {
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    Malformed {
        path: PathBuf,
        line: usize,
        why: String,
    },
    /// A variant given two different canonical names.
    TwoPersons {
        path: PathBuf,
        variant: String,
        first: (usize, String),
        second: (usize, String),
    },
    /// A canonical name that another line gives as a variant of someone else.
    Chain {
        path: PathBuf,
        name: String,
        as_canonical: usize,
        as_variant: usize,
    },
    /// Two names of one group carry different FIDE ids in the database.
    FideConflict {
        path: PathBuf,
        first: (usize, String, i64),
        second: (usize, String, i64),
    },
}

impl fmt::Display for AliasError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AliasError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            AliasError::Malformed { path, line, why } => {
                write!(f, "{}:{line}: {why}", path.display())
            }
            AliasError::TwoPersons {
                path,
                variant,
                first,
                second,
            } => write!(
                f,
                "{p}:{}: {variant:?} is mapped to {:?} here and to {:?} at {p}:{}; a name can be one person only",
                second.0,
                second.1,
                first.1,
                first.0,
                p = path.display()
            ),
            AliasError::Chain {
                path,
                name,
                as_canonical,
                as_variant,
            } => write!(
                f,
                "{p}:{as_canonical}: canonical name {name:?} is a variant of another name at {p}:{as_variant}; map every variant to the final canonical name",
                p = path.display()
            ),
            AliasError::FideConflict {
                path,
                first,
                second,
            } => write!(
                f,
                "{p}:{}: {:?} has FIDE id {} in the database, but {p}:{} puts it with {:?}, which has FIDE id {}; two FIDE ids are two persons",
                second.0,
                second.1,
                second.2,
                first.0,
                first.1,
                first.2,
                p = path.display()
            ),
        }
    }
}

impl std::error::Error for AliasError {}

impl Aliases {
    pub fn load(path: &Path) -> Result<Aliases, AliasError> {
        let bytes = std::fs::read(path).map_err(|source| AliasError::Io {
            path: path.to_owned(),
            source,
        })?;
        let text = String::from_utf8(bytes).map_err(|e| {
            let upto = &e.as_bytes()[..e.utf8_error().valid_up_to()];
            AliasError::Malformed {
                path: path.to_owned(),
                line: upto.iter().filter(|&&b| b == b'\n').count() + 1,
                why: "not UTF-8".into(),
            }
        })?;
        Aliases::parse(path, &text)
    }

    pub fn parse(path: &Path, text: &str) -> Result<Aliases, AliasError> {
        let malformed = |line: usize, why: String| AliasError::Malformed {
            path: path.to_owned(),
            line,
            why,
        };
        // normalised variant → (canonical, line); canonical normalised → first line.
        let mut variants: HashMap<String, (Canonical, usize)> = HashMap::new();
        let mut canonicals: HashMap<String, Canonical> = HashMap::new();
        let mut names: Vec<(usize, String, String)> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let trimmed = raw.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = raw.trim_end_matches('\r').split('\t').collect();
            if fields.len() != 2 {
                return Err(malformed(
                    line,
                    format!(
                        "expected two fields separated by one tab (canonical<TAB>variant), found {}",
                        fields.len()
                    ),
                ));
            }
            let (canonical, variant) = (fields[0].trim(), fields[1].trim());
            if canonical.is_empty() || variant.is_empty() {
                return Err(malformed(line, "empty name".into()));
            }
            let canonical_norm = normalise(canonical);
            let variant_norm = normalise(variant);
            if canonical_norm.is_empty() || variant_norm.is_empty() {
                return Err(malformed(line, "a name with no letters".into()));
            }
            for (written, norm) in [(canonical, &canonical_norm), (variant, &variant_norm)] {
                if seen.insert(norm.clone()) {
                    names.push((line, written.to_owned(), norm.clone()));
                }
            }
            let canon = canonicals
                .entry(canonical_norm.clone())
                .or_insert_with(|| Canonical {
                    written: canonical.to_owned(),
                    normalised: canonical_norm.clone(),
                    line,
                })
                .clone();
            if variant_norm == canonical_norm {
                continue;
            }
            if let Some((other, other_line)) = variants.get(&variant_norm)
                && other.normalised != canonical_norm
            {
                return Err(AliasError::TwoPersons {
                    path: path.to_owned(),
                    variant: variant.to_owned(),
                    first: (*other_line, other.written.clone()),
                    second: (line, canonical.to_owned()),
                });
            }
            variants.insert(variant_norm, (canon, line));
        }
        for (norm, canon) in &canonicals {
            if let Some((other, variant_line)) = variants.get(norm)
                && other.normalised != *norm
            {
                return Err(AliasError::Chain {
                    path: path.to_owned(),
                    name: canon.written.clone(),
                    as_canonical: canon.line,
                    as_variant: *variant_line,
                });
            }
        }
        let mut map = variants;
        for (norm, canon) in canonicals {
            let line = canon.line;
            map.entry(norm).or_insert((canon, line));
        }
        Ok(Aliases {
            path: path.to_owned(),
            map,
            names,
        })
    }

    /// The canonical name of a normalised spelling, and the line that says so.
    pub fn resolve(&self, normalised: &str) -> Option<(&Canonical, usize)> {
        self.map.get(normalised).map(|(c, l)| (c, *l))
    }

    /// Every name of the file once, in file order: (line, as written, normalised).
    pub fn names(&self) -> impl Iterator<Item = (usize, &str, &str)> {
        self.names
            .iter()
            .map(|(l, w, n)| (*l, w.as_str(), n.as_str()))
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }
}

/// What the suggestions weigh about one person.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PersonEvidence {
    pub id: i64,
    /// The canonical (display) name.
    pub name: String,
    pub fide: Option<i64>,
    pub games: i64,
    /// First and last year with a game.
    pub years: Option<(i64, i64)>,
    /// Average Elo tag in their games.
    pub elo: Option<f64>,
    pub events: HashSet<i64>,
}

/// Everything the suggestions read: the persons, and every stored spelling with its person
/// and the FIDE id written beside it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Evidence {
    pub persons: HashMap<i64, PersonEvidence>,
    /// (person, spelling, FIDE id).
    pub spellings: Vec<(i64, String, Option<i64>)>,
}

/// Why two persons may be one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reason {
    /// The same spelling (after the safe normalisation), told apart only by a FIDE id tag.
    SameSpelling,
    /// "First Last" and "Last, First".
    OtherOrder,
    /// The same name but for accents (`Dominguez` / `Domínguez`).
    Accents,
    /// Same surname and first initial, with years or events in common.
    SurnameInitial,
}

/// A pair of persons that may be one, with the evidence. `line` is the alias line that would
/// join them (canonical, variant); None when they must not be joined (two FIDE ids), and the
/// pair is listed only to explain why it stays two persons.
#[derive(Debug, Clone, PartialEq)]
pub struct Suggestion {
    pub reason: Reason,
    pub canonical: i64,
    pub variant: i64,
    pub why: Vec<String>,
    pub line: Option<(String, String)>,
}

/// Folds accents and the letters NFD does not split (`ø`, `ł`, `ß`…) to plain Latin, after
/// the safe normalisation: `Domínguez Pérez, Leinier` and `Dominguez Perez, Leinier` fold alike.
pub fn fold_accents(name: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    use unicode_normalization::char::is_combining_mark;
    let mut out = String::with_capacity(name.len());
    for c in normalise(name).nfd().filter(|c| !is_combining_mark(*c)) {
        match c {
            'ø' => out.push('o'),
            'ł' => out.push('l'),
            'đ' | 'ð' => out.push('d'),
            'ß' => out.push_str("ss"),
            'æ' => out.push_str("ae"),
            'œ' => out.push_str("oe"),
            'ı' => out.push('i'),
            'þ' => out.push_str("th"),
            c => out.push(c),
        }
    }
    out
}

/// `Last, First` as `first last` (folded); a name without a comma as it is (folded). Two
/// spellings with the same form and one comma between them are the same name in two orders.
fn first_last(name: &str) -> (String, bool) {
    let n = fold_accents(name);
    match n.split_once(", ") {
        Some((last, first)) => (format!("{first} {last}"), true),
        None => (n, false),
    }
}

/// Two given names can be one person's: equal, or one a prefix of the other (`M`, `Mi`,
/// `Michael`); `Rodney` and `Ronaldo` cannot.
pub fn given_names_fit(a: &str, b: &str) -> bool {
    let first = |n: &str| {
        let n = fold_accents(n);
        match n.split_once(", ") {
            Some((_, f)) => f.split(' ').next().unwrap_or("").to_owned(),
            None => n.split(' ').next().unwrap_or("").to_owned(),
        }
    };
    let (a, b) = (first(a), first(b));
    a.starts_with(&b) || b.starts_with(&a)
}

/// Surname and first initial (accents folded), from `Last, First` or `First Last`; None when
/// a name has no separable parts (`MagnusCarlsen`).
pub fn surname_initial(name: &str) -> Option<(String, char)> {
    let n = fold_accents(name);
    let (last, first) = match n.split_once(", ") {
        Some((l, f)) => (l.to_owned(), f.to_owned()),
        None => {
            let (f, l) = n.rsplit_once(' ')?;
            (l.to_owned(), f.to_owned())
        }
    };
    let initial = first.chars().find(|c| c.is_alphabetic())?;
    (!last.is_empty()).then_some((last, initial))
}

/// Pairs of persons that may be one, strongest reason first, each pair once (see [`suggest`]
/// for the alias file they make).
///  - the same spelling twice, once with a FIDE id and once without: join the name-only one
///    to the FIDE person (with two FIDE ids, only explained: two persons);
///  - the same name in the two orders, or but for accents: join unless both have FIDE ids;
///  - same surname and first initial, given names that fit, years that overlap or an event
///    in common, average ratings within 150: join unless both have FIDE ids.
pub fn pairs(evidence: &Evidence) -> Vec<Suggestion> {
    let persons = &evidence.persons;
    // Each key → the persons with a spelling of it, and one such spelling per person.
    let mut same: BTreeMap<String, BTreeMap<i64, String>> = BTreeMap::new();
    let mut order: BTreeMap<String, BTreeMap<i64, (String, bool)>> = BTreeMap::new();
    let mut folded: BTreeMap<String, BTreeMap<i64, String>> = BTreeMap::new();
    let mut initials: BTreeMap<(String, char), BTreeSet<i64>> = BTreeMap::new();
    for (person, name, _) in &evidence.spellings {
        if !persons.contains_key(person) {
            continue;
        }
        let put = |map: &mut BTreeMap<String, BTreeMap<i64, String>>, key: String| {
            map.entry(key)
                .or_default()
                .entry(*person)
                .or_insert_with(|| name.clone());
        };
        put(&mut same, normalise(name));
        put(&mut folded, fold_accents(name));
        let (form, comma) = first_last(name);
        order
            .entry(form)
            .or_default()
            .entry(*person)
            .or_insert_with(|| (name.clone(), comma));
        if let Some(k) = surname_initial(name) {
            initials.entry(k).or_default().insert(*person);
        }
    }
    // "First Last" against "Last, First": only pairs across the comma.
    let across: BTreeMap<String, BTreeMap<i64, String>> = order
        .into_iter()
        .filter(|(_, g)| g.values().any(|v| v.1) && g.values().any(|v| !v.1))
        .map(|(k, g)| (k, g.into_iter().map(|(p, (n, _))| (p, n)).collect()))
        .collect();
    let mut p = Pairing {
        persons,
        done: HashSet::new(),
        out: Vec::new(),
    };
    p.same_spelling(&same);
    p.full_name(
        &across,
        Reason::OtherOrder,
        "the same name in the other order",
    );
    p.full_name(&folded, Reason::Accents, "the same name but for accents");
    p.surname_initial(&initials);
    p.out
}

/// The pairs found so far, each pair of persons once.
struct Pairing<'a> {
    persons: &'a HashMap<i64, PersonEvidence>,
    done: HashSet<(i64, i64)>,
    out: Vec<Suggestion>,
}

/// Every two members of a group, once.
fn each_two(ids: &[i64]) -> impl Iterator<Item = (i64, i64)> + '_ {
    ids.iter()
        .enumerate()
        .flat_map(move |(i, &a)| ids[i + 1..].iter().map(move |&b| (a, b)))
}

impl Pairing<'_> {
    fn key(a: i64, b: i64) -> (i64, i64) {
        (a.min(b), a.max(b))
    }

    /// The pair in order: the person it keeps first (the FIDE one, else the one with more
    /// games, else the older id).
    fn ordered(&self, a: i64, b: i64) -> (i64, i64) {
        let rank = |p: &PersonEvidence| (p.fide.is_none(), -p.games, p.id);
        if rank(&self.persons[&a]) <= rank(&self.persons[&b]) {
            (a, b)
        } else {
            (b, a)
        }
    }

    fn both_fide(&self, a: i64, b: i64) -> bool {
        self.persons[&a].fide.is_some() && self.persons[&b].fide.is_some()
    }

    /// `#12 340 games 2001-2024, FIDE id 1503014`.
    fn describe(&self, id: i64) -> String {
        let p = &self.persons[&id];
        let years = p
            .years
            .map_or("undated".to_owned(), |(a, b)| format!("{a}-{b}"));
        let fide = p
            .fide
            .map_or("no FIDE id".to_owned(), |f| format!("FIDE id {f}"));
        format!("#{id} {} games {years}, {fide}", p.games)
    }

    /// One spelling under two persons: which one has the FIDE id.
    fn same_spelling(&mut self, groups: &BTreeMap<String, BTreeMap<i64, String>>) {
        for (spelling, group) in groups {
            let ids: Vec<i64> = group.keys().copied().collect();
            for (a, b) in each_two(&ids) {
                let (c, v) = self.ordered(a, b);
                self.done.insert(Self::key(c, v));
                let mut why = vec![format!(
                    "the same spelling {spelling:?}: {}; {}",
                    self.describe(c),
                    self.describe(v)
                )];
                let line = if self.both_fide(c, v) {
                    why.push("two FIDE ids are two persons: not suggested".into());
                    None
                } else {
                    why.push(if self.persons[&c].fide.is_some() {
                        format!(
                            "only #{c} has a FIDE id (a FideId tag); this line joins the spelling without one to it"
                        )
                    } else {
                        "told apart by an earlier alias file".into()
                    });
                    Some((group[&c].clone(), group[&v].clone()))
                };
                self.out.push(Suggestion {
                    reason: Reason::SameSpelling,
                    canonical: c,
                    variant: v,
                    why,
                    line,
                });
            }
        }
    }

    /// One full name under two persons (in the other order, or but for accents).
    fn full_name(
        &mut self,
        groups: &BTreeMap<String, BTreeMap<i64, String>>,
        reason: Reason,
        what: &str,
    ) {
        for group in groups.values() {
            let ids: Vec<i64> = group.keys().copied().collect();
            for (a, b) in each_two(&ids) {
                if !self.done.insert(Self::key(a, b)) || self.both_fide(a, b) {
                    continue;
                }
                let (c, v) = self.ordered(a, b);
                self.out.push(Suggestion {
                    reason,
                    canonical: c,
                    variant: v,
                    why: vec![
                        format!("{what} ({:?} / {:?})", group[&c], group[&v]),
                        self.describe(c),
                        self.describe(v),
                    ],
                    line: Some((group[&c].clone(), group[&v].clone())),
                });
            }
        }
    }

    /// Same surname and first initial, given names that fit, common years or events, close
    /// average ratings.
    fn surname_initial(&mut self, groups: &BTreeMap<(String, char), BTreeSet<i64>>) {
        for ((surname, initial), ids) in groups {
            let ids: Vec<i64> = ids.iter().copied().collect();
            for (a, b) in each_two(&ids) {
                if self.done.contains(&Self::key(a, b)) || self.both_fide(a, b) {
                    continue; // two FIDE ids are two persons
                }
                let (c, v) = self.ordered(a, b);
                let (pc, pv) = (&self.persons[&c], &self.persons[&v]);
                if !given_names_fit(&pc.name, &pv.name) {
                    continue; // Rodney is not Ronaldo
                }
                let mut why = vec![
                    format!("surname {surname:?}, initial {initial:?}"),
                    format!("#{c} {} games, #{v} {} games", pc.games, pv.games),
                ];
                let overlap = match (pc.years, pv.years) {
                    (Some((a0, a1)), Some((b0, b1))) => {
                        why.push(format!("years {a0}-{a1} and {b0}-{b1}"));
                        a0 <= b1 + 1 && b0 <= a1 + 1
                    }
                    _ => false,
                };
                let shared = pc.events.intersection(&pv.events).count();
                if shared > 0 {
                    why.push(format!("{shared} shared events"));
                }
                let close_elo = match (pc.elo, pv.elo) {
                    (Some(x), Some(y)) => {
                        why.push(format!("average Elo {x:.0} and {y:.0}"));
                        (x - y).abs() <= 150.0
                    }
                    _ => true,
                };
                if !(overlap || shared > 0) || !close_elo {
                    continue;
                }
                let line = Some((pc.name.clone(), pv.name.clone()));
                self.done.insert(Self::key(c, v));
                self.out.push(Suggestion {
                    reason: Reason::SurnameInitial,
                    canonical: c,
                    variant: v,
                    why,
                    line,
                });
            }
        }
    }
}

/// Persons to join into one: the pairs that link them (the evidence), and the alias lines
/// that join them, every line with the group's canonical name (the FIDE person's, else the
/// person with most games).
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub canonical: i64,
    pub pairs: Vec<Suggestion>,
    pub lines: Vec<(String, String)>,
}

/// What `players --suggest` prints: groups to join, and pairs kept apart with the reason.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Suggestions {
    pub groups: Vec<Group>,
    pub apart: Vec<Suggestion>,
}

/// The suggestions as an alias file can take them: the [`pairs`] joined into groups (a pair
/// that would put two FIDE ids in one group is kept apart, with that reason), each variant
/// spelling once. Nothing is merged here: the caller prints them to be checked.
pub fn suggest(evidence: &Evidence) -> Suggestions {
    let persons = &evidence.persons;
    let mut parent: HashMap<i64, i64> = HashMap::new();
    fn root(parent: &HashMap<i64, i64>, mut x: i64) -> i64 {
        while let Some(&up) = parent.get(&x).filter(|&&up| up != x) {
            x = up;
        }
        x
    }
    // Each group's FIDE id, by its root.
    let mut fide: HashMap<i64, i64> = HashMap::new();
    let mut out = Suggestions::default();
    let mut joined: Vec<Suggestion> = Vec::new();
    for mut s in pairs(evidence) {
        if s.line.is_none() {
            out.apart.push(s);
            continue;
        }
        let (a, b) = (root(&parent, s.canonical), root(&parent, s.variant));
        let id = |r: i64| fide.get(&r).copied().or(persons[&r].fide);
        if a != b {
            if let (Some(x), Some(y)) = (id(a), id(b))
                && x != y
            {
                s.why.push(format!(
                    "it would put FIDE ids {x} and {y} in one group: not suggested"
                ));
                s.line = None;
                out.apart.push(s);
                continue;
            }
            let f = id(a).or(id(b));
            parent.insert(b, a);
            parent.entry(a).or_insert(a);
            if let Some(f) = f {
                fide.insert(a, f);
            }
        }
        joined.push(s);
    }
    let mut groups: BTreeMap<i64, Vec<Suggestion>> = BTreeMap::new();
    for s in joined {
        groups
            .entry(root(&parent, s.canonical))
            .or_default()
            .push(s);
    }
    let mut spellings: HashMap<i64, Vec<&str>> = HashMap::new();
    for (person, name, _) in &evidence.spellings {
        spellings.entry(*person).or_default().push(name);
    }
    for (_, pairs) in groups {
        let mut members: Vec<i64> = pairs
            .iter()
            .flat_map(|s| [s.canonical, s.variant])
            .collect();
        members.sort_unstable();
        members.dedup();
        let rank = |p: &i64| {
            let e = &persons[p];
            (e.fide.is_none(), -e.games, e.id)
        };
        let canonical = *members
            .iter()
            .min_by_key(|p| rank(p))
            .unwrap_or(&members[0]);
        let name = persons[&canonical].name.clone();
        let mut seen: HashSet<String> = HashSet::new();
        let mut lines = Vec::new();
        for p in members.iter().filter(|&&p| p != canonical) {
            for spelling in spellings.get(p).into_iter().flatten() {
                if seen.insert(normalise(spelling)) {
                    lines.push((name.clone(), (*spelling).to_owned()));
                }
            }
        }
        out.groups.push(Group {
            canonical,
            pairs,
            lines,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Aliases, AliasError> {
        Aliases::parse(Path::new("a.tsv"), text)
    }

    #[test]
    fn groups_by_canonical_name() {
        let a = parse("# comment\nCarlsen, Magnus\tCarlsen,M\n\nCarlsen,Magnus\tMagnusCarlsen\n")
            .unwrap();
        let (c, line) = a.resolve(&normalise("MagnusCarlsen")).unwrap();
        assert_eq!((c.written.as_str(), line), ("Carlsen, Magnus", 4));
        assert_eq!(
            a.resolve("carlsen, m").unwrap().0.normalised,
            "carlsen, magnus"
        );
        assert_eq!(a.resolve("carlsen, magnus").unwrap().1, 2);
        assert!(a.resolve("carlsen, mads").is_none());
    }

    #[test]
    fn malformed_lines_name_file_and_line() {
        let e = parse("A\tB\nno tab here\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "a.tsv:2: expected two fields separated by one tab (canonical<TAB>variant), found 1"
        );
        let e = parse("A\tB\tC\n").unwrap_err();
        assert!(
            e.to_string().starts_with("a.tsv:1: expected two fields"),
            "{e}"
        );
        let e = parse("A\t  \n").unwrap_err();
        assert_eq!(e.to_string(), "a.tsv:1: empty name");
    }

    #[test]
    fn a_variant_of_two_persons_names_both_lines() {
        let e = parse("Polgar, Judit\tPolgar,J\nPolgar, Zsuzsa\tpolgar, j.\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "a.tsv:2: \"polgar, j.\" is mapped to \"Polgar, Zsuzsa\" here and to \"Polgar, Judit\" at a.tsv:1; a name can be one person only"
        );
        let e = parse("Carlsen, Magnus\tCarlsen,M\nCarlsen,M\tMC\n").unwrap_err();
        assert!(
            matches!(
                e,
                AliasError::Chain {
                    as_canonical: 2,
                    as_variant: 1,
                    ..
                }
            ),
            "{e}"
        );
    }

    fn person(id: i64, name: &str, fide: Option<i64>, games: i64) -> PersonEvidence {
        PersonEvidence {
            id,
            name: name.into(),
            fide,
            games,
            years: Some((2010, 2020)),
            elo: Some(2500.0),
            events: HashSet::new(),
        }
    }

    fn evidence(persons: &[(i64, &str, Option<i64>, i64)]) -> Evidence {
        Evidence {
            persons: persons
                .iter()
                .map(|&(id, name, fide, games)| (id, person(id, name, fide, games)))
                .collect(),
            spellings: persons
                .iter()
                .map(|&(id, name, fide, _)| (id, name.to_owned(), fide))
                .collect(),
        }
    }

    #[test]
    fn same_spelling_pairs_say_which_has_the_fide_id() {
        let e = evidence(&[
            (1, "Carlsen, Magnus", None, 30),
            (2, "Carlsen, Magnus", Some(1503014), 12),
            (3, "Polgar, J", Some(700070), 5),
            (4, "Polgar, J", Some(700088), 6),
        ]);
        let s = pairs(&e);
        let carlsen = s
            .iter()
            .find(|s| s.variant == 1 || s.canonical == 1)
            .unwrap();
        // The FIDE person keeps the pair, though it has fewer games.
        assert_eq!((carlsen.canonical, carlsen.variant), (2, 1));
        assert_eq!(carlsen.reason, Reason::SameSpelling);
        assert!(
            carlsen.why[1].contains("only #2 has a FIDE id"),
            "{:?}",
            carlsen.why
        );
        assert!(
            carlsen.why[0].contains("FIDE id 1503014"),
            "{:?}",
            carlsen.why
        );
        assert_eq!(
            carlsen.line,
            Some(("Carlsen, Magnus".into(), "Carlsen, Magnus".into()))
        );
        // Two FIDE ids: explained, never a line.
        let polgar = s
            .iter()
            .find(|s| s.canonical == 3 || s.variant == 3)
            .unwrap();
        assert_eq!(polgar.line, None);
        assert!(
            polgar.why.iter().any(|w| w.contains("two FIDE ids")),
            "{:?}",
            polgar.why
        );
        assert_eq!(s.len(), 2, "{s:?}");
    }

    #[test]
    fn other_order_and_accents_are_proposed() {
        let mut e = evidence(&[
            (1, "Carlsen, Magnus", None, 40),
            (2, "Magnus Carlsen", None, 3),
            (3, "Domínguez Pérez, Leinier", None, 20),
            (4, "Dominguez Perez, Leinier", None, 25),
            (5, "Nakamura, Hikaru", Some(2016192), 9),
            (6, "Hikaru Nakamura", Some(2016193), 9),
        ]);
        // No years or events in common: the surname rule alone would not propose these.
        for (i, p) in e.persons.values_mut().enumerate() {
            p.years = Some((1900 + 10 * i as i64, 1900 + 10 * i as i64));
        }
        let s = pairs(&e);
        let pair = |a: i64, b: i64| s.iter().find(|s| s.canonical == a && s.variant == b);
        let order = pair(1, 2).expect("other order");
        assert_eq!(order.reason, Reason::OtherOrder);
        assert_eq!(
            order.line,
            Some(("Carlsen, Magnus".into(), "Magnus Carlsen".into()))
        );
        let accents = pair(4, 3).expect("accents");
        assert_eq!(accents.reason, Reason::Accents);
        // Two FIDE ids are two persons, whatever the order.
        assert!(
            s.iter().all(|s| s.canonical != 5 && s.variant != 5),
            "{s:?}"
        );
        assert_eq!(s.len(), 2, "{s:?}");
        assert_eq!(fold_accents("Łukasz Ørsted-Weiß"), "lukasz orsted-weiss");
    }

    #[test]
    fn surname_and_initial_need_common_ground() {
        let mut e = evidence(&[
            (1, "Adams, Michael", None, 100),
            (2, "Adams,Mi", None, 4),
            (3, "Abud,Rodney Lester", None, 3),
            (4, "Abud,Ronaldo", None, 3),
            (5, "Adams, M.", None, 2),
        ]);
        e.persons.get_mut(&5).unwrap().years = Some((1950, 1951));
        let s = pairs(&e);
        assert_eq!(s.len(), 1, "{s:?}");
        assert_eq!((s[0].canonical, s[0].variant), (1, 2));
        assert_eq!(s[0].reason, Reason::SurnameInitial);
        assert!(s[0].why[0].contains("surname \"adams\""), "{:?}", s[0].why);
        assert_eq!(surname_initial("Carlsen,M"), Some(("carlsen".into(), 'm')));
        assert_eq!(
            surname_initial("Magnus Carlsen"),
            Some(("carlsen".into(), 'm'))
        );
        assert_eq!(surname_initial("MagnusCarlsen"), None);
        assert!(given_names_fit("Carlsen,M", "Magnus Carlsen"));
    }

    #[test]
    fn suggestions_form_one_alias_file() {
        // Carlsen,M and Magnus Carlsen each pair with Carlsen, Magnus (and with each other):
        // one group, every variant once, under the FIDE person's name.
        let e = evidence(&[
            (1, "Carlsen, Magnus", Some(1503014), 10),
            (2, "Carlsen,M", None, 30),
            (3, "Magnus Carlsen", None, 3),
            (4, "Polgar, Judit", Some(700070), 5),
            (5, "Polgar,J", None, 5),
            (6, "Polgar, Johanna", Some(700088), 5),
        ]);
        let s = suggest(&e);
        let carlsen = s.groups.iter().find(|g| g.canonical == 1).unwrap();
        assert_eq!(
            carlsen.lines,
            [
                ("Carlsen, Magnus".to_owned(), "Carlsen,M".to_owned()),
                ("Carlsen, Magnus".to_owned(), "Magnus Carlsen".to_owned())
            ]
        );
        // Polgar,J fits Judit and Johanna: joined to one, the other pair kept apart.
        let polgar = s
            .groups
            .iter()
            .find(|g| g.lines.iter().any(|l| l.1 == "Polgar,J"));
        assert!(polgar.is_some(), "{s:?}");
        assert!(
            s.apart.iter().any(|p| p
                .why
                .iter()
                .any(|w| w.contains("FIDE ids 700070 and 700088")
                    || w.contains("FIDE ids 700088 and 700070"))),
            "{s:?}"
        );
        let text: String = s
            .groups
            .iter()
            .flat_map(|g| g.lines.iter().map(|(c, v)| format!("{c}\t{v}\n")))
            .collect();
        assert!(Aliases::parse(Path::new("s.tsv"), &text).is_ok(), "{text}");
    }

    #[test]
    fn every_name_of_the_file_once() {
        let a = parse("Carlsen, Magnus\tCarlsen,M\n# x\nCarlsen,Magnus\tMC\nAdams, M\tAdams,M.\n")
            .unwrap();
        let names: Vec<(usize, &str)> = a.names().map(|(l, w, _)| (l, w)).collect();
        assert_eq!(
            names,
            [
                (1, "Carlsen, Magnus"),
                (1, "Carlsen,M"),
                (3, "MC"),
                (4, "Adams, M")
            ]
        );
    }
}
