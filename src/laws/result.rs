//! Game results as PGN writes them (`1-0`, `0-1`, `1/2-1/2`, `*`), parsed here alone; a
//! finished game's result from White's side (`WhiteResult`); and how to read a Termination
//! tag that records a loss on time.

use crate::chess::Color;
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameResult {
    WhiteWins,
    BlackWins,
    Draw,
    /// `*`: the game is in progress, abandoned, or the result is unknown.
    Unfinished,
}

impl GameResult {
    /// Every result, in the order a usage message lists them.
    pub const ALL: [GameResult; 4] = [
        GameResult::WhiteWins,
        GameResult::BlackWins,
        GameResult::Draw,
        GameResult::Unfinished,
    ];

    /// Reads a PGN result token; `½-½` and `1/2` are accepted for a draw.
    pub fn parse(text: &str) -> Option<GameResult> {
        match text.trim() {
            "1-0" => Some(GameResult::WhiteWins),
            "0-1" => Some(GameResult::BlackWins),
            "1/2-1/2" | "½-½" | "1/2" => Some(GameResult::Draw),
            "*" => Some(GameResult::Unfinished),
            _ => None,
        }
    }

    pub fn win_for(color: Color) -> GameResult {
        match color {
            Color::White => GameResult::WhiteWins,
            Color::Black => GameResult::BlackWins,
        }
    }

    pub fn winner(self) -> Option<Color> {
        match self {
            GameResult::WhiteWins => Some(Color::White),
            GameResult::BlackWins => Some(Color::Black),
            _ => None,
        }
    }

    /// The result of a finished game from White's side; None for `*`.
    pub fn finished(self) -> Option<WhiteResult> {
        match self {
            GameResult::WhiteWins => Some(WhiteResult::WhiteWins),
            GameResult::BlackWins => Some(WhiteResult::BlackWins),
            GameResult::Draw => Some(WhiteResult::Draw),
            GameResult::Unfinished => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Unfinished => "*",
        }
    }
}

/// A finished game's result from White's side, as the tournaments, the leaderboard and the
/// rating systems take it from `result` / `lawful_result`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WhiteResult {
    WhiteWins,
    Draw,
    BlackWins,
}

impl WhiteResult {
    /// A result text read by the one parser (`GameResult::parse`: `1-0`, `0-1`, `1/2-1/2`,
    /// `½-½`); `*` and anything else is no result.
    pub fn parse(text: &[u8]) -> Option<WhiteResult> {
        std::str::from_utf8(text)
            .ok()
            .and_then(GameResult::parse)
            .and_then(GameResult::finished)
    }

    /// A stored result text (`result`, `lawful_result`), None when absent or unfinished.
    pub fn of(text: Option<&str>) -> Option<WhiteResult> {
        text.and_then(GameResult::parse)
            .and_then(GameResult::finished)
    }

    /// White's points: 1, ½ or 0.
    pub fn white_score(self) -> f64 {
        match self {
            WhiteResult::WhiteWins => 1.0,
            WhiteResult::Draw => 0.5,
            WhiteResult::BlackWins => 0.0,
        }
    }

    /// The result for White's score 1.0 / 0.5 / 0.0; anything else is no result.
    pub fn from_white_score(score: f64) -> Option<WhiteResult> {
        if score == 1.0 {
            Some(WhiteResult::WhiteWins)
        } else if score == 0.5 {
            Some(WhiteResult::Draw)
        } else if score == 0.0 {
            Some(WhiteResult::BlackWins)
        } else {
            None
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Does a Termination tag value say the game was lost on time? (`Time forfeit`,
/// `White lost on time`, `Black wins on time`, `flag fall`...)
pub fn is_time_forfeit(termination: &str) -> bool {
    let t = termination.to_ascii_lowercase();
    (t.contains("time") && (t.contains("forfeit") || t.contains("on time") || t.contains("out")))
        || t.contains("flag")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_and_time_terminations() {
        assert_eq!(GameResult::parse("1/2-1/2"), Some(GameResult::Draw));
        assert_eq!(GameResult::parse(" 0-1 "), Some(GameResult::BlackWins));
        assert_eq!(GameResult::parse("2-0"), None);
        assert!(is_time_forfeit("Time forfeit"));
        assert!(is_time_forfeit("White loses on time"));
        assert!(is_time_forfeit("Black won on time"));
        assert!(!is_time_forfeit("Normal"));
        assert!(!is_time_forfeit("Abandoned"));
    }
}
