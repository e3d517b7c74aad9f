//! `--tree` and `--reverse-tree`: from the games that reached a position, the moves played
//! next (games, White's score, draws, average ratings, the mover's performance) and the move
//! orders that led there (with counts). Fed one matched game at a time.

use crate::chess::san::to_san;
use crate::chess::{Move, Position};
use std::collections::BTreeMap;

/// The figures of the games that played one move: how many, White's wins, draws and
/// losses, the players' ratings and the mover's performance. The one tally of the opening
/// tree (`stats::tree`, `arbiter openings`) and of `search --tree`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tally {
    pub games: u64,
    /// White's wins, draws, losses among finished games.
    pub wdl: [u64; 3],
    elo: [(f64, u64); 2],
    /// The mover's opponents' ratings and the mover's score, for the performance.
    opp: (f64, u64),
    mover_score: f64,
    mover_games: u64,
}

impl Tally {
    /// Counts a game in which `mover` (0: White, 1: Black) played the move; `white` is 0, 1, 2
    /// for 1-0, ½-½, 0-1.
    pub fn add(&mut self, mover: usize, white: Option<usize>, elo: [Option<i64>; 2]) {
        self.games += 1;
        if let Some(w) = white {
            self.wdl[w] += 1;
        }
        for (side, e) in elo.iter().enumerate() {
            if let Some(e) = e {
                self.elo[side].0 += *e as f64;
                self.elo[side].1 += 1;
            }
        }
        if let (Some(w), Some(opp)) = (white, elo[1 - mover]) {
            let white_score = [1.0, 0.5, 0.0][w];
            self.mover_score += if mover == 0 {
                white_score
            } else {
                1.0 - white_score
            };
            self.mover_games += 1;
            self.opp.0 += opp as f64;
            self.opp.1 += 1;
        }
    }

    /// White's score in percent over the finished games.
    pub fn white_score(&self) -> Option<f64> {
        let n = self.wdl.iter().sum::<u64>();
        (n > 0).then(|| 100.0 * (self.wdl[0] as f64 + 0.5 * self.wdl[1] as f64) / n as f64)
    }
    /// Draws in percent of the finished games.
    pub fn draw_rate(&self) -> Option<f64> {
        let n = self.wdl.iter().sum::<u64>();
        (n > 0).then(|| 100.0 * self.wdl[1] as f64 / n as f64)
    }
    /// White's (0) or Black's (1) average rating.
    pub fn avg_elo(&self, side: usize) -> Option<f64> {
        let (s, n) = self.elo[side];
        (n > 0).then(|| s / n as f64)
    }
    /// Both players' average rating, over every rating given.
    pub fn avg_elo_both(&self) -> Option<f64> {
        let (s, n) = (self.elo[0].0 + self.elo[1].0, self.elo[0].1 + self.elo[1].1);
        (n > 0).then(|| s / n as f64)
    }
    /// The linear performance of the side that plays this move: opponents' average +
    /// 400 (W − L) / N, over its games with a result and a rated opponent.
    pub fn performance(&self) -> Option<f64> {
        (self.mover_games > 0).then(|| {
            let g = self.mover_games as f64;
            self.opp.0 / self.opp.1 as f64 + 400.0 * (2.0 * self.mover_score - g) / g
        })
    }
}

/// One next move and its games' figures.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Branch {
    pub san: String,
    pub tally: Tally,
}

/// The trees of one position.
#[derive(Debug, Default)]
pub struct Trees {
    /// Next move (16-bit code) → figures; a game that ends at the position counts under "".
    pub next: BTreeMap<u16, Branch>,
    /// Move orders (SAN, space-separated) → games.
    pub orders: BTreeMap<String, u64>,
}

impl Trees {
    /// Adds a game that matched at `ply`; `white` is 0, 1, 2 for 1-0, ½-½, 0-1.
    pub fn add(
        &mut self,
        start: &Position,
        moves: &[Move],
        ply: usize,
        white: Option<usize>,
        elo: [Option<i64>; 2],
        reverse: bool,
    ) {
        let mut pos = *start;
        let mut order = String::new();
        for &m in &moves[..ply.min(moves.len())] {
            if reverse {
                if !order.is_empty() {
                    order.push(' ');
                }
                order.push_str(to_san(&pos, m).as_str());
            }
            pos.play_unchecked(m);
        }
        if reverse {
            *self.orders.entry(order).or_default() += 1;
        }
        if let Some(&m) = moves.get(ply) {
            self.add_next(&pos, m, white, elo);
        }
    }

    /// Adds a game that played `m` from `pos` (the matched position), without its moves:
    /// `search --tree` from the key index.
    pub fn add_next(
        &mut self,
        pos: &Position,
        m: Move,
        white: Option<usize>,
        elo: [Option<i64>; 2],
    ) {
        self.next
            .entry(m.to_u16())
            .or_insert_with(|| Branch {
                san: to_san(pos, m).as_str().to_owned(),
                ..Branch::default()
            })
            .tally
            .add(pos.turn().index(), white, elo);
    }

    /// Next moves, most played first.
    pub fn branches(&self) -> Vec<&Branch> {
        let mut v: Vec<&Branch> = self.next.values().collect();
        v.sort_by(|a, b| b.tally.games.cmp(&a.tally.games).then(a.san.cmp(&b.san)));
        v
    }

    /// Move orders, most frequent first.
    pub fn move_orders(&self) -> Vec<(&str, u64)> {
        let mut v: Vec<(&str, u64)> = self.orders.iter().map(|(k, &n)| (k.as_str(), n)).collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::SanMode;

    #[test]
    fn next_moves_and_move_orders() {
        let game = |sans: &str| {
            let mut pos = Position::new();
            sans.split_whitespace()
                .map(|t| {
                    crate::chess::san::play_san(&mut pos, t, SanMode::Strict)
                        .unwrap()
                        .mv
                })
                .collect::<Vec<_>>()
        };
        let mut t = Trees::default();
        let s = Position::new();
        t.add(
            &s,
            &game("e4 e5 Nf3 Nf6 Nxe5"),
            4,
            Some(0),
            [Some(2600), Some(2500)],
            true,
        );
        t.add(
            &s,
            &game("Nf3 Nf6 e4 e5 Nc3"),
            4,
            Some(1),
            [Some(2400), Some(2500)],
            true,
        );
        t.add(
            &s,
            &game("e4 e5 Nf3 Nf6 Nxe5"),
            4,
            Some(2),
            [Some(2600), None],
            true,
        );
        let b = t.branches();
        assert_eq!(b[0].san, "Nxe5");
        assert_eq!(b[0].tally.games, 2);
        assert_eq!(b[0].tally.white_score(), Some(50.0));
        assert_eq!(b[0].tally.avg_elo(0), Some(2600.0));
        // White played Nxe5: one game against 2500 with a win → 2500 + 400; the loss came
        // against no rating, so it is left out of the performance.
        assert_eq!(b[0].tally.performance(), Some(2900.0));
        assert_eq!(b[1].tally.draw_rate(), Some(100.0));
        assert_eq!(
            t.move_orders(),
            [("e4 e5 Nf3 Nf6", 2), ("Nf3 Nf6 e4 e5", 1)]
        );
    }
}
