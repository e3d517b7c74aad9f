//! What a tournament is, independent of where it came from (TRF-16 or stored games): players
//! with their start numbers and ratings, and for each round what happened to each of them.
//! Scores are kept in half points so that every sum is exact.
//!
//! The kinds of round follow C.07 (2024) Art. 16: a game played over the board, a forfeit won or
//! lost, the pairing-allocated bye (PAB, TRF `U`), a requested full-point bye (`F`), a
//! half-point bye (`H`), a zero-point bye (`Z`), and a round in which the player was absent
//! (not paired, withdrawn, not yet arrived).

use std::fmt;

/// A score in half points: `Points(3)` is 1½.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Points(pub u32);

impl Points {
    pub const ZERO: Points = Points(0);
    pub const HALF: Points = Points(1);
    pub const ONE: Points = Points(2);

    pub fn as_f64(self) -> f64 {
        f64::from(self.0) / 2.0
    }
}

impl fmt::Display for Points {
    /// `3.5`, `3.0`, `0.5`: TRF-16's and the crosstables' way of writing a score.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = format!("{}.{}", self.0 / 2, if self.0 % 2 == 1 { 5 } else { 0 });
        f.pad(&text)
    }
}

impl std::ops::Add for Points {
    type Output = Points;
    fn add(self, other: Points) -> Points {
        Points(self.0 + other.0)
    }
}

impl std::ops::AddAssign for Points {
    fn add_assign(&mut self, other: Points) {
        self.0 += other.0;
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Colour {
    White,
    Black,
    /// No colour: a bye, an absence, or a forfeit whose colour was not recorded.
    None,
}

impl Colour {
    pub fn opposite(self) -> Colour {
        match self {
            Colour::White => Colour::Black,
            Colour::Black => Colour::White,
            Colour::None => Colour::None,
        }
    }

    /// TRF-16's letter: `w`, `b`, `-`.
    pub fn trf(self) -> char {
        match self {
            Colour::White => 'w',
            Colour::Black => 'b',
            Colour::None => '-',
        }
    }
}

/// What one round was for one player. The TRF-16 code is in brackets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RoundOutcome {
    /// A game played over the board and rated (`1`, `=`, `0`).
    Played(RoundResult),
    /// A game played but not to be rated, e.g. ended before the first move (`W`, `D`, `L`).
    Unrated(RoundResult),
    /// A forfeit win: the opponent did not come (`+`).
    ForfeitWin,
    /// A forfeit loss: the player did not come (`-`).
    ForfeitLoss,
    /// The pairing-allocated bye, scored as a win (`U`).
    Pab,
    /// A requested full-point bye (`F`).
    FullBye,
    /// A requested half-point bye (`H`).
    HalfBye,
    /// A zero-point bye (`Z`).
    ZeroBye,
    /// Not paired: absent, withdrawn or not yet arrived (blank).
    Absent,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RoundResult {
    Win,
    Draw,
    Loss,
}

impl RoundResult {
    pub fn points(self) -> Points {
        match self {
            RoundResult::Win => Points::ONE,
            RoundResult::Draw => Points::HALF,
            RoundResult::Loss => Points::ZERO,
        }
    }

    pub fn reversed(self) -> RoundResult {
        match self {
            RoundResult::Win => RoundResult::Loss,
            RoundResult::Draw => RoundResult::Draw,
            RoundResult::Loss => RoundResult::Win,
        }
    }
}

impl RoundOutcome {
    /// Points the round gives the player (C.07 Art. 16: unplayed rounds score what the
    /// regulations award them: a PAB or full-point bye a win, a half-point bye a draw).
    pub fn points(self) -> Points {
        match self {
            RoundOutcome::Played(r) | RoundOutcome::Unrated(r) => r.points(),
            RoundOutcome::ForfeitWin | RoundOutcome::Pab | RoundOutcome::FullBye => Points::ONE,
            RoundOutcome::HalfBye => Points::HALF,
            RoundOutcome::ForfeitLoss | RoundOutcome::ZeroBye | RoundOutcome::Absent => {
                Points::ZERO
            }
        }
    }

    /// A game played over the board against an opponent.
    pub fn is_game(self) -> bool {
        matches!(self, RoundOutcome::Played(_) | RoundOutcome::Unrated(_))
    }

    /// Whether the round has an opponent on the other side of the pairing (a game or a
    /// forfeit); byes and absences have none.
    pub fn has_opponent(self) -> bool {
        matches!(
            self,
            RoundOutcome::Played(_)
                | RoundOutcome::Unrated(_)
                | RoundOutcome::ForfeitWin
                | RoundOutcome::ForfeitLoss
        )
    }

    /// "Played" in the sense C.07 gives the PAB: a game, or the bye the pairing imposed on the
    /// player (Art. 16.2.1: the PAB is not the player's choice).
    pub fn played_or_pab(self) -> bool {
        self.is_game() || self == RoundOutcome::Pab
    }

    /// A voluntary unplayed round (VUR, C.07 2024 Art. 16.2): an unplayed round that did not
    /// give the player a win: half- and zero-point byes, forfeit losses, absences.
    pub fn is_vur(self) -> bool {
        !self.played_or_pab() && self.points() != Points::ONE
    }

    /// The result seen from the other side of the pairing (for mirrored TRF lines).
    pub fn mirrored(self) -> Option<RoundOutcome> {
        match self {
            RoundOutcome::Played(r) => Some(RoundOutcome::Played(r.reversed())),
            RoundOutcome::Unrated(r) => Some(RoundOutcome::Unrated(r.reversed())),
            RoundOutcome::ForfeitWin => Some(RoundOutcome::ForfeitLoss),
            RoundOutcome::ForfeitLoss => Some(RoundOutcome::ForfeitWin),
            _ => None,
        }
    }

    /// TRF-16's result code.
    pub fn trf(self) -> char {
        match self {
            RoundOutcome::Played(RoundResult::Win) => '1',
            RoundOutcome::Played(RoundResult::Draw) => '=',
            RoundOutcome::Played(RoundResult::Loss) => '0',
            RoundOutcome::Unrated(RoundResult::Win) => 'W',
            RoundOutcome::Unrated(RoundResult::Draw) => 'D',
            RoundOutcome::Unrated(RoundResult::Loss) => 'L',
            RoundOutcome::ForfeitWin => '+',
            RoundOutcome::ForfeitLoss => '-',
            RoundOutcome::Pab => 'U',
            RoundOutcome::FullBye => 'F',
            RoundOutcome::HalfBye => 'H',
            RoundOutcome::ZeroBye => 'Z',
            RoundOutcome::Absent => ' ',
        }
    }

    pub fn from_trf(code: char) -> Option<RoundOutcome> {
        Some(match code {
            '1' => RoundOutcome::Played(RoundResult::Win),
            '=' => RoundOutcome::Played(RoundResult::Draw),
            '0' => RoundOutcome::Played(RoundResult::Loss),
            'W' | 'w' => RoundOutcome::Unrated(RoundResult::Win),
            'D' | 'd' => RoundOutcome::Unrated(RoundResult::Draw),
            'L' | 'l' => RoundOutcome::Unrated(RoundResult::Loss),
            '+' => RoundOutcome::ForfeitWin,
            '-' => RoundOutcome::ForfeitLoss,
            'U' | 'u' => RoundOutcome::Pab,
            'F' | 'f' => RoundOutcome::FullBye,
            'H' | 'h' => RoundOutcome::HalfBye,
            'Z' | 'z' => RoundOutcome::ZeroBye,
            ' ' => RoundOutcome::Absent,
            _ => return None,
        })
    }
}

/// One player's round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Round {
    /// Index into `Tournament::players` of the opponent, for games and forfeits.
    pub opponent: Option<usize>,
    pub colour: Colour,
    pub outcome: RoundOutcome,
}

impl Round {
    pub const ABSENT: Round = Round {
        opponent: None,
        colour: Colour::None,
        outcome: RoundOutcome::Absent,
    };

    pub fn points(&self) -> Points {
        self.outcome.points()
    }

    /// The opponent of a game played over the board.
    pub fn game_opponent(&self) -> Option<usize> {
        if self.outcome.is_game() {
            self.opponent
        } else {
            None
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Player {
    /// Start number (TRF-16 "starting rank"), 1-based.
    pub sno: u32,
    pub sex: char,
    pub title: String,
    pub name: String,
    /// FIDE rating; `None` for unrated.
    pub rating: Option<u16>,
    pub federation: String,
    pub fide_id: String,
    pub birth: String,
    /// The total as the source states it (TRF-16 columns 81-84), if it states one.
    pub stated_points: Option<Points>,
    /// The rank as the source states it (columns 86-89), if any.
    pub stated_rank: Option<u32>,
    /// One entry per round, `rounds` long.
    pub rounds: Vec<Round>,
    /// The 1-based line this player came from, for messages (0: not from a file).
    pub line: usize,
    /// The stored person (players.id) when built from stored games.
    pub person: Option<i64>,
}

impl Player {
    pub fn new(sno: u32, name: &str) -> Player {
        Player {
            sno,
            sex: ' ',
            title: String::new(),
            name: name.to_owned(),
            rating: None,
            federation: String::new(),
            fide_id: String::new(),
            birth: String::new(),
            stated_points: None,
            stated_rank: None,
            rounds: Vec::new(),
            line: 0,
            person: None,
        }
    }

    pub fn points(&self) -> Points {
        self.rounds
            .iter()
            .map(Round::points)
            .fold(Points::ZERO, |a, b| a + b)
    }

    /// Points after each round (the running score).
    pub fn running(&self) -> Vec<Points> {
        let mut sum = Points::ZERO;
        self.rounds
            .iter()
            .map(|r| {
                sum += r.points();
                sum
            })
            .collect()
    }
}

/// A team line (TRF-16 `013`): a name and its members' start numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Team {
    pub name: String,
    pub members: Vec<u32>,
}

/// Round robin (all-play-all, pairings fixed in advance) or Swiss. C.07 treats unplayed games
/// differently in the two (Art. 16.2: in a tournament with pre-determined pairings an unplayed
/// game counts as played for the opponents' tie-breaks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    RoundRobin,
    Swiss,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::RoundRobin => "round robin",
            Kind::Swiss => "Swiss",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Tournament {
    pub name: String,
    pub city: String,
    pub federation: String,
    /// Dates as written (TRF-16 `042`/`052`: `YYYY/MM/DD`; PGN `YYYY.MM.DD`).
    pub start_date: String,
    pub end_date: String,
    /// The `092` type line as written ("Individual: Swiss-System").
    pub kind_text: String,
    pub chief_arbiter: String,
    pub time_control: String,
    /// `132`: the date of each round as written.
    pub round_dates: Vec<String>,
    pub rounds: usize,
    pub players: Vec<Player>,
    pub teams: Vec<Team>,
}

impl Tournament {
    /// Round robin when the type says so; otherwise guessed from the shape: every player met
    /// every other once or twice (n players in n−1 or n rounds, or 2(n−1) / 2n for a double).
    pub fn kind(&self) -> Kind {
        let text = self.kind_text.to_ascii_lowercase();
        if text.contains("swiss") {
            return Kind::Swiss;
        }
        if text.contains("robin") || text.contains("berger") || text.contains("rr") {
            return Kind::RoundRobin;
        }
        let n = self.players.len();
        let r = self.rounds;
        if n >= 2 && (r + 1 == n || r == n || r == 2 * (n - 1) || r == 2 * n) {
            // Shape alone is not proof: each pair must have met (or had a forfeit) at most
            // the number of cycles, and someone must have met everyone.
            let cycles = if r >= 2 * (n - 1) { 2 } else { 1 };
            let met_all = self.players.iter().enumerate().any(|(i, p)| {
                let mut seen = vec![0u32; n];
                for round in &p.rounds {
                    if let Some(o) = round.opponent {
                        seen[o] += 1;
                    }
                }
                (0..n).all(|j| j == i || seen[j] == cycles)
            });
            // One player's games alone (a star: every pairing has him, as in a file of his
            // games from an open) meet the shape too, and are not a round robin.
            let pairings = |p: &Player| p.rounds.iter().filter(|x| x.opponent.is_some()).count();
            let games = self.players.iter().map(pairings).sum::<usize>() / 2;
            let star = n >= 3 && self.players.iter().any(|p| pairings(p) == games);
            if met_all && !star {
                return Kind::RoundRobin;
            }
        }
        Kind::Swiss
    }

    /// The index of the player with start number `sno`.
    pub fn index_of(&self, sno: u32) -> Option<usize> {
        self.players.iter().position(|p| p.sno == sno)
    }

    /// The tournament's last date as `(year, month, day)`, from the end date, else the last
    /// round date, else the start date.
    pub fn end(&self) -> Option<(u32, u32, u32)> {
        std::iter::once(&self.end_date)
            .chain(self.round_dates.iter().rev())
            .chain(std::iter::once(&self.start_date))
            .find_map(|d| parse_date(d))
    }
}

/// `YYYY/MM/DD`, `YYYY.MM.DD`, `YYYY-MM-DD` or TRF round dates `YY/MM/DD` (20YY).
pub fn parse_date(text: &str) -> Option<(u32, u32, u32)> {
    let parts: Vec<&str> = text.trim().split(['/', '.', '-']).collect();
    if parts.len() != 3 {
        return None;
    }
    let mut year: u32 = parts[0].parse().ok()?;
    let month: u32 = parts[1].parse().ok()?;
    let day: u32 = parts[2].parse().ok()?;
    if parts[0].len() == 2 {
        year += 2000;
    }
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || year < 1000 {
        return None;
    }
    Some((year, month, day))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vurs_are_the_unplayed_rounds_that_gave_no_win() {
        use RoundOutcome::*;
        assert!(HalfBye.is_vur());
        assert!(ZeroBye.is_vur());
        assert!(ForfeitLoss.is_vur());
        assert!(Absent.is_vur());
        assert!(!Pab.is_vur());
        assert!(!FullBye.is_vur());
        assert!(!ForfeitWin.is_vur());
        assert!(!Played(RoundResult::Loss).is_vur());
    }

    #[test]
    fn points_print_as_trf_writes_them() {
        assert_eq!(Points(7).to_string(), "3.5");
        assert_eq!(Points(6).to_string(), "3.0");
        assert_eq!(format!("{:>4}", Points(1)), " 0.5");
    }

    #[test]
    fn dates_in_the_three_spellings() {
        assert_eq!(parse_date("2026/03/01"), Some((2026, 3, 1)));
        assert_eq!(parse_date("2024.08.01"), Some((2024, 8, 1)));
        assert_eq!(parse_date("26/02/28"), Some((2026, 2, 28)));
        assert_eq!(parse_date("2024.??.??"), None);
    }
}
