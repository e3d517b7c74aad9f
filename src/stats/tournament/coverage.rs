//! Whether a tournament built from stored games is whole. PGN records games, not byes or
//! withdrawals, and a collection often holds part of an event (one player's file, the games a
//! magazine printed): the standings are then those of the stored games only, and the reader is
//! told how many games of how many, which rounds and which players lack games. One player's
//! games alone (every game has him: a star) are his part of an event, not its standings.

use super::model::{Kind, Tournament};

/// How much of its event a tournament holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coverage {
    pub kind: Kind,
    /// Round robins: how many times each pair meets (1 or 2).
    pub cycles: usize,
    pub players: usize,
    pub rounds: usize,
    /// Pairings stored: games, forfeits included.
    pub games: usize,
    /// Pairings a complete event of this kind, size and length has: `cycles·n(n−1)/2` for a
    /// round robin, `⌊n/2⌋` a round for a Swiss.
    pub expected: usize,
    /// The 1-based rounds with fewer than `⌊n/2⌋` pairings.
    pub rounds_short: Vec<usize>,
    /// The players with fewer pairings than the event gave each (a round robin: `cycles·(n−1)`;
    /// a Swiss: one a round, less one bye when the number of players is odd), with their
    /// pairings, in start-number order.
    pub players_short: Vec<(String, usize)>,
    /// What each player should have had (see `players_short`).
    pub per_player: usize,
    /// The one player every stored pairing has, when there are three players or more.
    pub star: Option<String>,
}

/// How many players a note names before "… and N more".
const NAMED: usize = 10;

impl Coverage {
    /// The coverage of `t` read as a tournament of kind `kind`.
    pub fn of(t: &Tournament, kind: Kind) -> Coverage {
        let n = t.players.len();
        let r = t.rounds;
        let pairings: Vec<usize> = t
            .players
            .iter()
            .map(|p| p.rounds.iter().filter(|x| x.opponent.is_some()).count())
            .collect();
        let games = pairings.iter().sum::<usize>() / 2;
        let cycles = if kind == Kind::RoundRobin && r > n {
            2
        } else {
            1
        };
        let (expected, per_player) = match kind {
            Kind::RoundRobin => (
                cycles * n * n.saturating_sub(1) / 2,
                cycles * n.saturating_sub(1),
            ),
            Kind::Swiss => (n / 2 * r, r.saturating_sub(n % 2)),
        };
        let rounds_short = (0..r)
            .filter(|&k| {
                let paired = t
                    .players
                    .iter()
                    .filter(|p| p.rounds[k].opponent.is_some())
                    .count();
                paired / 2 < n / 2
            })
            .map(|k| k + 1)
            .collect();
        let players_short = t
            .players
            .iter()
            .zip(&pairings)
            .filter(|(_, g)| **g < per_player)
            .map(|(p, &g)| (p.name.clone(), g))
            .collect();
        let star = (n >= 3 && games > 0)
            .then(|| pairings.iter().position(|&g| g == games))
            .flatten()
            .map(|i| t.players[i].name.clone());
        Coverage {
            kind,
            cycles,
            players: n,
            rounds: r,
            games,
            expected,
            rounds_short,
            players_short,
            per_player,
            star,
        }
    }

    /// Every pairing of the event is stored, and not only one player's.
    pub fn is_complete(&self) -> bool {
        self.star.is_none() && self.games >= self.expected
    }

    /// Enough of the event to give a place in it: not a star, and at least three quarters of
    /// its pairings.
    pub fn gives_places(&self) -> bool {
        self.star.is_none()
            && self.players >= 2
            && self.expected > 0
            && self.games * 4 >= self.expected * 3
    }

    /// The event's shape in words: `14-player round robin`, `60-player Swiss of 9 rounds`.
    fn shape(&self) -> String {
        match (self.kind, self.cycles) {
            (Kind::RoundRobin, 2) => format!("{}-player double round robin", self.players),
            (Kind::RoundRobin, _) => format!("{}-player round robin", self.players),
            (Kind::Swiss, _) => format!("{}-player Swiss of {} rounds", self.players, self.rounds),
        }
    }

    /// The note for the reader, one line each; none when the event is complete.
    pub fn notes(&self) -> Vec<String> {
        if let Some(star) = &self.star {
            return vec![format!(
                "note: only one player's games are stored: all {} games are {star}'s; this is \
                 that player's part of an event, not its standings, and it is not read as a \
                 round robin",
                self.games
            )];
        }
        if self.is_complete() {
            return Vec::new();
        }
        let mut out = vec![format!(
            "note: {} of {} games of a {} are stored; rounds with missing games are treated \
             as absences",
            self.games,
            self.expected,
            self.shape()
        )];
        if !self.rounds_short.is_empty() {
            out.push(format!(
                "  rounds with missing games: {}",
                ranges(&self.rounds_short)
            ));
        }
        if !self.players_short.is_empty() {
            let mut named: Vec<String> = self
                .players_short
                .iter()
                .take(NAMED)
                .map(|(name, g)| format!("{name} ({g} of {})", self.per_player))
                .collect();
            if self.players_short.len() > NAMED {
                named.push(format!("… and {} more", self.players_short.len() - NAMED));
            }
            out.push(format!("  players lacking games: {}", named.join(", ")));
        }
        out
    }
}

/// `1, 3-5, 9` for [1, 3, 4, 5, 9] (sorted, distinct).
fn ranges(list: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < list.len() {
        let mut j = i;
        while j + 1 < list.len() && list[j + 1] == list[j] + 1 {
            j += 1;
        }
        parts.push(if j == i {
            list[i].to_string()
        } else {
            format!("{}-{}", list[i], list[j])
        });
        i = j + 1;
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::tournament::model::{Colour, Player, Round, RoundOutcome, RoundResult};

    /// A tournament of `n` players and `rounds` rounds with the given pairings (round, a, b).
    fn with(n: usize, rounds: usize, pairs: &[(usize, usize, usize)]) -> Tournament {
        let mut players: Vec<Player> = (0..n)
            .map(|i| {
                let mut p = Player::new(i as u32 + 1, &format!("P{}", i + 1));
                p.rounds = vec![Round::ABSENT; rounds];
                p
            })
            .collect();
        for &(r, a, b) in pairs {
            let game = |o: usize, colour: Colour| Round {
                opponent: Some(o),
                colour,
                outcome: RoundOutcome::Played(RoundResult::Draw),
            };
            players[a].rounds[r - 1] = game(b, Colour::White);
            players[b].rounds[r - 1] = game(a, Colour::Black);
        }
        Tournament {
            rounds,
            players,
            ..Tournament::default()
        }
    }

    #[test]
    fn a_round_robin_with_games_missing_says_how_many_which_rounds_and_who() {
        // Four players, three rounds: round 2 lacks the game of P3 and P4.
        let t = with(
            4,
            3,
            &[(1, 0, 1), (1, 2, 3), (2, 0, 2), (3, 0, 3), (3, 1, 2)],
        );
        let c = Coverage::of(&t, Kind::RoundRobin);
        assert_eq!((c.games, c.expected), (5, 6));
        assert!(!c.is_complete());
        assert_eq!(c.rounds_short, [2]);
        assert_eq!(
            c.notes(),
            [
                "note: 5 of 6 games of a 4-player round robin are stored; rounds with missing \
                 games are treated as absences",
                "  rounds with missing games: 2",
                "  players lacking games: P2 (2 of 3), P4 (2 of 3)",
            ]
        );
        // Complete: no note.
        let t = with(
            4,
            3,
            &[
                (1, 0, 1),
                (1, 2, 3),
                (2, 0, 2),
                (2, 1, 3),
                (3, 0, 3),
                (3, 1, 2),
            ],
        );
        assert!(Coverage::of(&t, Kind::RoundRobin).notes().is_empty());
    }

    #[test]
    fn one_players_games_are_a_star_not_an_event() {
        let t = with(4, 3, &[(1, 0, 1), (2, 0, 2), (3, 0, 3)]);
        let c = Coverage::of(&t, Kind::Swiss);
        assert_eq!(c.star.as_deref(), Some("P1"));
        assert!(!c.gives_places());
        assert!(
            c.notes()[0].contains("all 3 games are P1's"),
            "{:?}",
            c.notes()
        );
        // A two-player match is not a star.
        let t = with(2, 2, &[(1, 0, 1), (2, 1, 0)]);
        assert_eq!(Coverage::of(&t, Kind::RoundRobin).star, None);
    }

    #[test]
    fn an_odd_swiss_allows_one_bye_each() {
        // Three players, three rounds, one game a round: complete.
        let t = with(3, 3, &[(1, 0, 1), (2, 0, 2), (3, 1, 2)]);
        let c = Coverage::of(&t, Kind::Swiss);
        assert!(c.is_complete() && c.players_short.is_empty(), "{c:?}");
        assert_eq!(ranges(&[1, 3, 4, 5, 9]), "1, 3-5, 9");
    }
}
