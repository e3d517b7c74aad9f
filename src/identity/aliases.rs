//! The user's alias file: which spellings are one person. TSV, one `canonical<TAB>variant`
//! a line; empty lines and lines starting with `#` are skipped (`players --suggest` writes
//! its evidence there). Both sides are compared by the safe normalisation (`names`).
//! A malformed line, a variant given two canonical names, or a canonical name that is
//! itself another name's variant is refused with the file and line(s), before anything is
//! applied.

use super::names::normalise;
use std::collections::HashMap;
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
        })
    }

    /// The canonical name of a normalised spelling, and the line that says so.
    pub fn resolve(&self, normalised: &str) -> Option<(&Canonical, usize)> {
        self.map.get(normalised).map(|(c, l)| (c, *l))
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }
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
}
