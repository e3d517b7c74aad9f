//! Which edition of the FIDE Laws of Chess governs a game: chosen from the PGN Date tag
//! (editions take effect on 1 January 1993, 1 July 2001 and 1 July 2014), or forced from the
//! command line with `--laws auto|1980|1993|2001|2014` (`1997` is an alias of `1993`).

use std::fmt;
use std::str::FromStr;

/// An edition of the Laws, named by the year it took effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Edition {
    /// The 1980 Laws with FIDE's interpretations: mate and stalemate end the game,
    /// repetition and fifty moves only on a claim, no dead-position rule.
    Fide1980,
    /// The 1984 text as amended by the 1988 and 1992 Congresses, which "took effect from
    /// 1 January 1993" (its Art. 19; the file `fide-laws-1997.txt`). arbiter applies it up
    /// to 30 June 2001: the text in force from 1 July 1997 is not among arbiter's, and the
    /// next one it has (2001) postdates those games (docs/LAWS.md says why this one stands
    /// in). Art. 10.4's listed endings are drawn; a bare king cannot win (10.5).
    /// Named `1997` until 2026-11: that name still reads as this edition.
    Fide1993,
    /// From 1 July 2001: any dead position ends the game (9.6); a flag-fall is a draw when
    /// the opponent cannot mate by any series of legal moves (6.9).
    Fide2001,
    /// From 1 July 2014 (the 2017 text): as 2001, plus fivefold repetition and 75 moves end
    /// the game automatically (9.6.1, 9.6.2).
    Fide2014,
}

impl Edition {
    pub const NEWEST: Edition = Edition::Fide2014;

    /// Every edition, oldest first.
    pub const ALL: [Edition; 4] = [
        Edition::Fide1980,
        Edition::Fide1993,
        Edition::Fide2001,
        Edition::Fide2014,
    ];

    /// The year in the edition's name (what `games.laws_edition` holds).
    pub fn year(self) -> u16 {
        match self {
            Edition::Fide1980 => 1980,
            Edition::Fide1993 => 1993,
            Edition::Fide2001 => 2001,
            Edition::Fide2014 => 2014,
        }
    }

    /// The edition in force on a date (year, month, day; unknown month/day read as the
    /// earliest possible, so a game is never judged by Laws that may postdate it).
    pub fn in_force(year: u16, month: Option<u8>, day: Option<u8>) -> Edition {
        let (m, d) = (month.unwrap_or(1), day.unwrap_or(1));
        let from = |y: u16, month: u8| (year, m, d) >= (y, month, 1);
        if from(2014, 7) {
            Edition::Fide2014
        } else if from(2001, 7) {
            Edition::Fide2001
        } else if from(1993, 1) {
            Edition::Fide1993
        } else {
            Edition::Fide1980
        }
    }

    /// The edition for a PGN Date tag value (`YYYY.MM.DD`, any part may be `??`). `None`
    /// when the year is unknown: the caller then applies the newest edition and says so.
    pub fn from_pgn_date(date: &str) -> Option<Edition> {
        match Edition::from_standard_date(date.as_bytes()) {
            Some(known) => known,
            None => Edition::from_any_date(date),
        }
    }

    /// `from_pgn_date` for any text: the parts split at `.`, `-` or `/` and parsed.
    fn from_any_date(date: &str) -> Option<Edition> {
        let mut parts = date.trim().split(['.', '-', '/']);
        let year: u16 = parts.next()?.parse().ok()?;
        if !(1000..=9999).contains(&year) {
            return None;
        }
        let month = parts.next().and_then(|m| m.parse::<u8>().ok());
        let day = parts.next().and_then(|d| d.parse::<u8>().ok());
        let month = month.filter(|m| (1..=12).contains(m));
        let day = if month.is_some() {
            day.filter(|d| (1..=31).contains(d))
        } else {
            None
        };
        Some(Edition::in_force(year, month, day))
    }

    /// `from_pgn_date` for the standard form that nearly every Date tag has, `YYYY.MM.DD`
    /// with each part digits or question marks, read byte by byte (the general reader splits
    /// and parses, some 900 instructions a game). `None` for any other text, which the general
    /// reader then takes; for this form both give the same answer.
    fn from_standard_date(b: &[u8]) -> Option<Option<Edition>> {
        let &[y0, y1, y2, y3, b'.', m0, m1, b'.', d0, d1] = b else {
            return None;
        };
        // A part of two digits is its number, `??` unknown; anything else is not this form.
        let part = |a: u8, b: u8| match (a, b) {
            (b'0'..=b'9', b'0'..=b'9') => Some(Some((a - b'0') * 10 + (b - b'0'))),
            (b'?', b'?') => Some(None),
            _ => None,
        };
        let (month, day) = (part(m0, m1)?, part(d0, d1)?);
        let year = [y0, y1, y2, y3];
        if year == *b"????" {
            return Some(None);
        }
        if !year.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let year = year.iter().fold(0u16, |n, &d| n * 10 + u16::from(d - b'0'));
        if year < 1000 {
            return Some(None);
        }
        let month = month.filter(|m| (1..=12).contains(m));
        let day = if month.is_some() {
            day.filter(|d| (1..=31).contains(d))
        } else {
            None
        };
        Some(Some(Edition::in_force(year, month, day)))
    }

    /// Every text `games.laws_edition` may hold for this edition: its year, and for 1993 the
    /// `1997` that databases written before the edition was renamed hold (the same text).
    pub fn stored_names(self) -> &'static [&'static str] {
        match self {
            Edition::Fide1980 => &["1980"],
            Edition::Fide1993 => &["1993", "1997"],
            Edition::Fide2001 => &["2001"],
            Edition::Fide2014 => &["2014"],
        }
    }

    /// The edition a stored or typed year names: a year of [`Edition::ALL`] or an alias
    /// (`1997` for 1993, `2017` for 2014, the year of the text arbiter reads for it).
    pub fn from_year_name(name: &str) -> Option<Edition> {
        Some(match name.trim() {
            "1980" => Edition::Fide1980,
            "1993" | "1997" => Edition::Fide1993,
            "2001" => Edition::Fide2001,
            "2014" | "2017" => Edition::Fide2014,
            _ => return None,
        })
    }

    /// A stored `games.laws_edition` value as the edition's current name (`1997` → `1993`);
    /// anything else unchanged.
    pub fn canonical_stored(stored: String) -> String {
        match Edition::from_year_name(&stored) {
            Some(e) => e.year().to_string(),
            None => stored,
        }
    }
}

impl fmt::Display for Edition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FIDE {}", self.year())
    }
}

/// The `--laws` choice: a fixed edition, or `auto` (by each game's Date tag).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LawsChoice {
    #[default]
    Auto,
    Fixed(Edition),
}

/// Which edition applies to one game and whether it was chosen without a date.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EditionChoice {
    pub edition: Edition,
    /// True when `auto` found no usable year and fell back to the newest edition.
    pub undated: bool,
}

impl LawsChoice {
    pub fn for_game(self, date: Option<&str>) -> EditionChoice {
        match self {
            LawsChoice::Fixed(edition) => EditionChoice {
                edition,
                undated: false,
            },
            LawsChoice::Auto => match date.and_then(Edition::from_pgn_date) {
                Some(edition) => EditionChoice {
                    edition,
                    undated: false,
                },
                None => EditionChoice {
                    edition: Edition::NEWEST,
                    undated: true,
                },
            },
        }
    }
}

/// A `--laws` value that is not one of `auto`, `1980`, `1993` (alias `1997`), `2001`, `2014`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LawsChoiceError(pub String);

impl fmt::Display for LawsChoiceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown Laws edition {:?}: expected auto, 1980, 1993 (alias 1997), 2001 or 2014",
            self.0
        )
    }
}

impl std::error::Error for LawsChoiceError {}

impl FromStr for LawsChoice {
    type Err = LawsChoiceError;

    fn from_str(s: &str) -> Result<LawsChoice, LawsChoiceError> {
        if s.trim().eq_ignore_ascii_case("auto") {
            return Ok(LawsChoice::Auto);
        }
        Edition::from_year_name(s)
            .map(LawsChoice::Fixed)
            .ok_or_else(|| LawsChoiceError(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn editions_change_on_their_dates() {
        let e = |d: &str| Edition::from_pgn_date(d);
        // The 1993 text "took effect from 1 January 1993" (its Art. 19).
        assert_eq!(e("1992.12.31"), Some(Edition::Fide1980));
        assert_eq!(e("1993.01.01"), Some(Edition::Fide1993));
        assert_eq!(e("1993.??.??"), Some(Edition::Fide1993));
        assert_eq!(e("1995.06.15"), Some(Edition::Fide1993));
        assert_eq!(e("1997.06.30"), Some(Edition::Fide1993));
        assert_eq!(e("1997.07.01"), Some(Edition::Fide1993));
        assert_eq!(e("2001.06.30"), Some(Edition::Fide1993));
        assert_eq!(e("2001.07.01"), Some(Edition::Fide2001));
        assert_eq!(e("2014.06.30"), Some(Edition::Fide2001));
        assert_eq!(e("2014.07.01"), Some(Edition::Fide2014));
        assert_eq!(e("2023.??.??"), Some(Edition::Fide2014));
        // An unknown month in the year of a change counts as January: the older Laws.
        assert_eq!(e("2001.??.??"), Some(Edition::Fide1993));
        assert_eq!(e("1975.05.??"), Some(Edition::Fide1980));
        assert_eq!(e("????.??.??"), None);
        assert_eq!(e(""), None);
    }

    /// The byte-by-byte reader of the standard form answers as the general one, on every
    /// kind of part it takes and on texts it leaves to the general one.
    #[test]
    fn the_standard_date_reader_answers_as_the_general_one() {
        let years = [
            "0999", "1000", "1992", "1993", "2001", "2014", "9999", "????", "19?3",
        ];
        let parts = [
            "??", "00", "01", "06", "07", "12", "13", "31", "32", "99", "?1", "1?",
        ];
        let mut standard = 0;
        for y in years {
            for m in parts {
                for d in parts {
                    let date = format!("{y}.{m}.{d}");
                    let fast = Edition::from_standard_date(date.as_bytes());
                    standard += usize::from(fast.is_some());
                    assert_eq!(
                        fast.unwrap_or_else(|| Edition::from_any_date(&date)),
                        Edition::from_any_date(&date),
                        "{date}"
                    );
                    assert_eq!(Edition::from_pgn_date(&date), Edition::from_any_date(&date));
                }
            }
        }
        assert!(standard > 500, "{standard}");
        for other in [
            "2001-07-01",
            " 2001.07.01",
            "2001.7.1",
            "+2001.07.01",
            "2001.07.01 ",
        ] {
            assert_eq!(
                Edition::from_standard_date(other.as_bytes()),
                None,
                "{other}"
            );
        }
        assert_eq!(
            Edition::from_pgn_date("2001-07-01"),
            Some(Edition::Fide2001)
        );
    }

    #[test]
    fn undated_games_get_the_newest_edition_and_say_so() {
        let c = LawsChoice::Auto.for_game(Some("????.??.??"));
        assert_eq!(c.edition, Edition::Fide2014);
        assert!(c.undated);
        let c = LawsChoice::Auto.for_game(None);
        assert!(c.undated);
        let c = "1993".parse::<LawsChoice>().unwrap().for_game(None);
        assert_eq!(c.edition, Edition::Fide1993);
        assert!(!c.undated);
        assert!("1999".parse::<LawsChoice>().is_err());
    }

    #[test]
    fn laws_1997_is_still_accepted_as_the_1993_edition() {
        for name in ["1997", " 1997 ", "1993"] {
            assert_eq!(
                name.parse::<LawsChoice>(),
                Ok(LawsChoice::Fixed(Edition::Fide1993))
            );
        }
        assert_eq!(Edition::Fide1993.year(), 1993);
        assert_eq!(Edition::Fide1993.to_string(), "FIDE 1993");
        assert_eq!(Edition::canonical_stored("1997".into()), "1993");
        assert_eq!(Edition::canonical_stored("2014".into()), "2014");
        assert_eq!(Edition::canonical_stored("odd".into()), "odd");
        for e in Edition::ALL {
            assert_eq!(e.stored_names()[0], e.year().to_string());
            for name in e.stored_names() {
                assert_eq!(Edition::from_year_name(name), Some(e));
            }
        }
        let err = "1999".parse::<LawsChoice>().unwrap_err().to_string();
        assert!(err.contains("1993 (alias 1997)"), "{err}");
    }
}
