//! Which edition of the FIDE Laws of Chess governs a game: chosen from the PGN Date tag
//! (editions take effect on 1 July of 1997, 2001 and 2014), or forced from the command line
//! with `--laws auto|1980|1997|2001|2014`.

use std::fmt;
use std::str::FromStr;

/// An edition of the Laws, named by the year it took effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Edition {
    /// The 1980 Laws with FIDE's interpretations: mate and stalemate end the game,
    /// repetition and fifty moves only on a claim, no dead-position rule.
    Fide1980,
    /// The 1984 text as amended to 1992, in force to 30 June 2001 (arbiter dates it from
    /// 1 July 1997): Art. 10.4's listed endings are drawn; a bare king cannot win (10.5).
    Fide1997,
    /// From 1 July 2001: any dead position ends the game (9.6); a flag-fall is a draw when
    /// the opponent cannot mate by any series of legal moves (6.9).
    Fide2001,
    /// From 1 July 2014 (the 2017 text): as 2001, plus fivefold repetition and 75 moves end
    /// the game automatically (9.6.1, 9.6.2).
    Fide2014,
}

impl Edition {
    pub const NEWEST: Edition = Edition::Fide2014;

    /// The year in the edition's name.
    pub fn year(self) -> u16 {
        match self {
            Edition::Fide1980 => 1980,
            Edition::Fide1997 => 1997,
            Edition::Fide2001 => 2001,
            Edition::Fide2014 => 2014,
        }
    }

    /// The edition in force on a date (year, month, day; unknown month/day read as the
    /// earliest possible, so a game is never judged by Laws that may postdate it).
    pub fn in_force(year: u16, month: Option<u8>, day: Option<u8>) -> Edition {
        let (m, d) = (month.unwrap_or(1), day.unwrap_or(1));
        let from_july = |y: u16| (year, m, d) >= (y, 7, 1);
        if from_july(2014) {
            Edition::Fide2014
        } else if from_july(2001) {
            Edition::Fide2001
        } else if from_july(1997) {
            Edition::Fide1997
        } else {
            Edition::Fide1980
        }
    }

    /// The edition for a PGN Date tag value (`YYYY.MM.DD`, any part may be `??`). `None`
    /// when the year is unknown: the caller then applies the newest edition and says so.
    pub fn from_pgn_date(date: &str) -> Option<Edition> {
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

/// A `--laws` value that is not one of `auto`, `1980`, `1997`, `2001`, `2014`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LawsChoiceError(pub String);

impl fmt::Display for LawsChoiceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown Laws edition {:?}: expected auto, 1980, 1997, 2001 or 2014",
            self.0
        )
    }
}

impl std::error::Error for LawsChoiceError {}

impl FromStr for LawsChoice {
    type Err = LawsChoiceError;

    fn from_str(s: &str) -> Result<LawsChoice, LawsChoiceError> {
        Ok(match s.trim().to_ascii_lowercase().as_str() {
            "auto" => LawsChoice::Auto,
            "1980" => LawsChoice::Fixed(Edition::Fide1980),
            "1997" => LawsChoice::Fixed(Edition::Fide1997),
            "2001" => LawsChoice::Fixed(Edition::Fide2001),
            "2014" | "2017" => LawsChoice::Fixed(Edition::Fide2014),
            _ => return Err(LawsChoiceError(s.to_string())),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn editions_change_on_the_first_of_july() {
        let e = |d: &str| Edition::from_pgn_date(d);
        assert_eq!(e("1997.06.30"), Some(Edition::Fide1980));
        assert_eq!(e("1997.07.01"), Some(Edition::Fide1997));
        assert_eq!(e("2001.06.30"), Some(Edition::Fide1997));
        assert_eq!(e("2001.07.01"), Some(Edition::Fide2001));
        assert_eq!(e("2014.06.30"), Some(Edition::Fide2001));
        assert_eq!(e("2014.07.01"), Some(Edition::Fide2014));
        assert_eq!(e("2023.??.??"), Some(Edition::Fide2014));
        // An unknown month in the year of a change counts as January: the older Laws.
        assert_eq!(e("2001.??.??"), Some(Edition::Fide1997));
        assert_eq!(e("1975.05.??"), Some(Edition::Fide1980));
        assert_eq!(e("????.??.??"), None);
        assert_eq!(e(""), None);
    }

    #[test]
    fn undated_games_get_the_newest_edition_and_say_so() {
        let c = LawsChoice::Auto.for_game(Some("????.??.??"));
        assert_eq!(c.edition, Edition::Fide2014);
        assert!(c.undated);
        let c = LawsChoice::Auto.for_game(None);
        assert!(c.undated);
        let c = "1997".parse::<LawsChoice>().unwrap().for_game(None);
        assert_eq!(c.edition, Edition::Fide1997);
        assert!(!c.undated);
        assert!("1999".parse::<LawsChoice>().is_err());
    }
}
