//! The tie-break names of C.07 Art. 5 (the table of acronyms) and the modifiers of Art. 14:
//! `-C1`/`-C2` cut the least significant value(s), `-M1`/`-M2` the least and the most
//! significant (median). `/` is accepted in place of `-` (`BH/C1`), as TieBreakServer and
//! several pairing programs write them. The text as given is kept: it names the output column.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Acronym {
    Bh,
    Fb,
    Aob,
    Sb,
    Ks,
    Ps,
    Win,
    Won,
    Bpg,
    Bwg,
    Ge,
    Rep,
    De,
    Aro,
    Tpr,
    Ptp,
    Apro,
    Appo,
}

/// Every acronym, what it means, the C.07 (2024) Article that defines it, and the modifiers it
/// takes (`C`: cuts, `M`: medians too).
pub const TABLE: &[(Acronym, &str, &str, &str, &str)] = &[
    (Acronym::De, "DE", "Direct encounter", "6", ""),
    (
        Acronym::Win,
        "WIN",
        "Number of wins (played or not)",
        "7.1",
        "",
    ),
    (
        Acronym::Won,
        "WON",
        "Number of games won over the board",
        "7.2",
        "",
    ),
    (
        Acronym::Bpg,
        "BPG",
        "Number of games played with Black",
        "7.3",
        "",
    ),
    (
        Acronym::Bwg,
        "BWG",
        "Number of games won with Black",
        "7.4",
        "",
    ),
    (Acronym::Ge, "GE", "Games one elected to play", "7.6", ""),
    (
        Acronym::Rep,
        "REP",
        "Rounds one elected to play (same as GE)",
        "7.6",
        "",
    ),
    (Acronym::Ps, "PS", "Progressive scores", "7.5", "C"),
    (Acronym::Bh, "BH", "Buchholz", "8.1", "CM"),
    (Acronym::Fb, "FB", "Fore Buchholz", "8.2", "CM"),
    (
        Acronym::Aob,
        "AOB",
        "Average of opponents' Buchholz",
        "8.3",
        "",
    ),
    (Acronym::Sb, "SB", "Sonneborn-Berger", "9.1", "C"),
    (Acronym::Ks, "KS", "Koya system (round robins)", "9.2", ""),
    (
        Acronym::Aro,
        "ARO",
        "Average rating of opponents",
        "10.1",
        "CM",
    ),
    (
        Acronym::Tpr,
        "TPR",
        "Tournament performance rating",
        "10.2",
        "",
    ),
    (
        Acronym::Apro,
        "APRO",
        "Average performance rating of opponents",
        "10.3",
        "",
    ),
    (
        Acronym::Ptp,
        "PTP",
        "Perfect tournament performance",
        "10.4",
        "",
    ),
    (
        Acronym::Appo,
        "APPO",
        "Average perfect performance of opponents",
        "10.5",
        "",
    ),
];

impl Acronym {
    pub fn name(self) -> &'static str {
        TABLE
            .iter()
            .find(|row| row.0 == self)
            .map(|row| row.1)
            .unwrap_or("?")
    }

    fn modifiers(self) -> &'static str {
        TABLE
            .iter()
            .find(|row| row.0 == self)
            .map(|row| row.4)
            .unwrap_or("")
    }

    /// Higher is better, except for DE (a rank inside the tied group).
    pub fn descending(self) -> bool {
        self != Acronym::De
    }

    /// Decimal places to print: SB reaches quarter points, AOB is rounded to hundredths,
    /// the points-based ones are half points, counts and ratings are whole numbers.
    pub fn decimals(self) -> usize {
        match self {
            Acronym::Sb | Acronym::Aob => 2,
            Acronym::Bh | Acronym::Fb | Acronym::Ks | Acronym::Ps => 1,
            _ => 0,
        }
    }
}

/// One tie-break as asked for: the acronym, its cuts, and the text it was written as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    pub acronym: Acronym,
    /// Least significant values cut (Art. 14.1 / 14.2; a median cuts one of each).
    pub cut_low: usize,
    /// Most significant values cut (Art. 14.3 / 14.4).
    pub cut_high: usize,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    Unknown(String),
    Modifier { text: String, modifier: String },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Unknown(t) => write!(
                f,
                "unknown tie-break '{t}'; valid: {} (modifiers: BH, FB and ARO take -C1, -C2, -M1, -M2; SB and PS take -C1, -C2)",
                valid_names()
            ),
            ParseError::Modifier { text, modifier } => write!(
                f,
                "tie-break '{text}': modifier '{modifier}' is not one this tie-break takes; valid: {}",
                valid_modifiers(text)
            ),
        }
    }
}

impl std::error::Error for ParseError {}

pub fn valid_names() -> String {
    TABLE.iter().map(|r| r.1).collect::<Vec<_>>().join(", ")
}

fn valid_modifiers(text: &str) -> String {
    let name = text
        .split(['-', '/'])
        .next()
        .unwrap_or("")
        .to_ascii_uppercase();
    let takes = TABLE
        .iter()
        .find(|r| r.1 == name)
        .map(|r| r.4)
        .unwrap_or("");
    let mut out = Vec::new();
    if takes.contains('C') {
        out.extend(["C1", "C2"]);
    }
    if takes.contains('M') {
        out.extend(["M1", "M2"]);
    }
    if out.is_empty() {
        "none".to_owned()
    } else {
        out.join(", ")
    }
}

impl Spec {
    /// `BH`, `BH-C1`, `bh/m2`, `SB-C1`, `ARO-C1`…
    pub fn parse(text: &str) -> Result<Spec, ParseError> {
        let trimmed = text.trim();
        let mut parts = trimmed.split(['-', '/']);
        let name = parts.next().unwrap_or("").to_ascii_uppercase();
        let acronym = TABLE
            .iter()
            .find(|r| r.1 == name)
            .map(|r| r.0)
            .ok_or_else(|| ParseError::Unknown(trimmed.to_owned()))?;
        let mut spec = Spec {
            acronym,
            cut_low: 0,
            cut_high: 0,
            text: trimmed.to_owned(),
        };
        for modifier in parts {
            let m = modifier.to_ascii_uppercase();
            let bad = || ParseError::Modifier {
                text: trimmed.to_owned(),
                modifier: modifier.to_owned(),
            };
            let (letter, count) = m.split_at(m.len().min(1));
            let count: usize = match count.parse() {
                Ok(n @ 1..=2) => n,
                _ => return Err(bad()),
            };
            let takes = acronym.modifiers();
            match letter {
                "C" if takes.contains('C') => spec.cut_low = count,
                "M" if takes.contains('M') => {
                    spec.cut_low = count;
                    spec.cut_high = count;
                }
                _ => return Err(bad()),
            }
        }
        Ok(spec)
    }

    /// A comma- or space-separated list.
    pub fn parse_list(text: &str) -> Result<Vec<Spec>, ParseError> {
        text.split([',', ' '])
            .filter(|s| !s.trim().is_empty())
            .map(Spec::parse)
            .collect()
    }
}

/// The default lists: for a round robin DE, SB, WIN, KS; for a Swiss BH-C1, BH, DE, WIN, BWG
/// (the orders commonly recommended for individual tournaments; a tournament's regulations
/// name their own, which `--tiebreaks` takes).
pub fn default_list(round_robin: bool) -> Vec<Spec> {
    let text = if round_robin {
        "DE,SB,WIN,KS"
    } else {
        "BH-C1,BH,DE,WIN,BWG"
    };
    Spec::parse_list(text).expect("the default lists parse")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dash_and_slash_are_the_same_modifier() {
        let a = Spec::parse("BH-C1").unwrap();
        let b = Spec::parse("bh/c1").unwrap();
        assert_eq!((a.acronym, a.cut_low, a.cut_high), (Acronym::Bh, 1, 0));
        assert_eq!((b.acronym, b.cut_low, b.cut_high), (Acronym::Bh, 1, 0));
        assert_eq!(b.text, "bh/c1");
        let m = Spec::parse("BH-M2").unwrap();
        assert_eq!((m.cut_low, m.cut_high), (2, 2));
    }

    #[test]
    fn unknown_acronyms_list_the_valid_ones() {
        let err = Spec::parse("XYZ").unwrap_err().to_string();
        assert!(
            err.starts_with("unknown tie-break 'XYZ'; valid: DE, WIN"),
            "{err}"
        );
        assert!(err.contains("APPO"));
    }

    #[test]
    fn a_modifier_the_tie_break_does_not_take_is_refused() {
        let err = Spec::parse("WIN-C1").unwrap_err().to_string();
        assert!(err.contains("valid: none"), "{err}");
        let err = Spec::parse("SB-M1").unwrap_err().to_string();
        assert!(err.contains("valid: C1, C2"), "{err}");
        assert!(Spec::parse("BH-C3").is_err());
    }

    #[test]
    fn ge_and_rep_are_both_accepted() {
        assert_eq!(Spec::parse("GE").unwrap().acronym, Acronym::Ge);
        assert_eq!(Spec::parse("REP").unwrap().acronym, Acronym::Rep);
    }
}
