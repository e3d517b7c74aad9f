//! One row of `player_games` (one person's side of one game), as the statistics read it: the
//! view's columns in the view's order, then the few facts about the game the view does not carry
//! (where the Laws say it ended, the Termination tag); the analysis is `analysis`'s own pass.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Colour {
    White,
    Black,
}

impl Colour {
    pub fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        match self {
            Colour::White => "white",
            Colour::Black => "black",
        }
    }
}

/// A score from this side's point of view: 1, ½, 0, or unfinished (`*`, no result, anything
/// else). Unfinished games are counted apart, never as losses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PlayerScore {
    Win,
    Draw,
    Loss,
    Unfinished,
}

impl PlayerScore {
    /// From the view's `score` column (REAL 1.0 / 0.5 / 0.0 or NULL).
    pub fn from_score(score: Option<f64>) -> PlayerScore {
        match score {
            Some(s) if s >= 1.0 => PlayerScore::Win,
            Some(s) if s > 0.0 => PlayerScore::Draw,
            Some(_) => PlayerScore::Loss,
            None => PlayerScore::Unfinished,
        }
    }

    pub fn points(self) -> Option<f64> {
        match self {
            PlayerScore::Win => Some(1.0),
            PlayerScore::Draw => Some(0.5),
            PlayerScore::Loss => Some(0.0),
            PlayerScore::Unfinished => None,
        }
    }
}

/// The columns of the `player_games` view (docs/SCHEMA.md), in its order, plus `GameFacts`.
/// The reader fills one value and reuses it, so the strings keep their buffers.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayerGame {
    pub game_id: i64,
    /// The person.
    pub player_id: i64,
    /// The spelling (player_names.id).
    pub name_id: i64,
    pub colour: Colour,
    pub opponent_id: Option<i64>,
    pub opponent_name_id: Option<i64>,
    pub rating: Option<i64>,
    pub opponent_rating: Option<i64>,
    /// Effective result: the Laws' where they decide, else the recorded one.
    pub result: Option<String>,
    /// This side's score of the effective result (None: unfinished).
    pub score: Option<f64>,
    /// This side's score of the recorded Result tag.
    pub recorded_score: Option<f64>,
    pub date: Option<String>,
    pub year: Option<i32>,
    pub month: Option<u8>,
    pub day: Option<u8>,
    pub event_id: Option<i64>,
    pub eco: Option<String>,
    pub opening: Option<String>,
    pub opening_family: Option<String>,
    pub tc_class: Option<String>,
    pub time_control: Option<String>,
    pub ply_count: u32,
    /// Automatic ending found by the Laws: checkmate, stalemate, dead-position, fivefold,
    /// seventy-five.
    pub termination: Option<String>,
    pub laws_edition: Option<String>,
    /// A duplicate group member that is not its survivor.
    pub duplicate: bool,
    pub facts: GameFacts,
}

/// What the statistics need beyond the view's columns.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GameFacts {
    /// Ply at which the automatic ending happened (games.termination_ply).
    pub termination_ply: Option<u32>,
    /// First ply at which a threefold repetition / fifty-move draw could be claimed.
    pub threefold_ply: Option<u32>,
    pub fifty_ply: Option<u32>,
    /// The Termination tag says the game was lost on time.
    pub on_time: bool,
}

impl PlayerGame {
    /// A blank row for `player_id` as `colour` (used by the reader and by tests).
    pub fn new(game_id: i64, player_id: i64, colour: Colour) -> PlayerGame {
        PlayerGame {
            game_id,
            player_id,
            name_id: player_id,
            colour,
            opponent_id: None,
            opponent_name_id: None,
            rating: None,
            opponent_rating: None,
            result: None,
            score: None,
            recorded_score: None,
            date: None,
            year: None,
            month: None,
            day: None,
            event_id: None,
            eco: None,
            opening: None,
            opening_family: None,
            tc_class: None,
            time_control: None,
            ply_count: 0,
            termination: None,
            laws_edition: None,
            duplicate: false,
            facts: GameFacts::default(),
        }
    }

    pub fn outcome(&self) -> PlayerScore {
        PlayerScore::from_score(self.score)
    }

    /// Sort key of the known part of the date: YYYYMMDD with 0 for unknown parts, 0 if undated.
    pub fn date_key(&self) -> u32 {
        match self.year {
            Some(y) if y > 0 => {
                y as u32 * 10_000
                    + u32::from(self.month.unwrap_or(0)) * 100
                    + u32::from(self.day.unwrap_or(0))
            }
            _ => 0,
        }
    }

    /// Moves this side made (from the standard start: White makes the odd plies).
    pub fn own_moves(&self) -> u32 {
        match self.colour {
            Colour::White => self.ply_count.div_ceil(2),
            Colour::Black => self.ply_count / 2,
        }
    }
}

/// A date key as people read it: `2024.03.??`, `????.??.??` when undated.
pub fn format_date_key(key: u32) -> String {
    if key == 0 {
        return "????.??.??".to_owned();
    }
    let part = |v: u32| {
        if v == 0 {
            "??".to_owned()
        } else {
            format!("{v:02}")
        }
    };
    format!(
        "{:04}.{}.{}",
        key / 10_000,
        part(key / 100 % 100),
        part(key % 100)
    )
}
