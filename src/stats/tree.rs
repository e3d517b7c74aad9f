//! The opening tree of a selection (`arbiter openings`): for every line of moves from the
//! standard start, up to a depth, the games that followed it, White's score, the draw rate,
//! the players' average rating and the performance of the side that played the last move,
//! with the position's opening name (by position, `identity::openings`). One pass over the
//! selected games' packed moves; games from another start (Chess960, a FEN) are counted apart.

use crate::chess::san::to_san;
use crate::chess::{Move, Position};
use crate::db::encode::decode_moves;
use crate::db::query::rows::for_each_moves;
use crate::db::query::select::Filter;
use crate::identity::openings::Book;
use crate::laws::GameResult;
use crate::positions::tree::Tally;
use crate::table::{Cell, Column, Kind};
use rusqlite::Connection;
use std::collections::BTreeMap;

/// How siblings (the moves from one position) are ordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TreeOrder {
    /// Most games first.
    #[default]
    Games,
    /// White's score, best first.
    Score,
    /// The moves' order in SAN (alphabetical).
    Move,
}

impl crate::choice::Choice for TreeOrder {
    const ALL: &'static [TreeOrder] = &[TreeOrder::Games, TreeOrder::Score, TreeOrder::Move];

    fn name(self) -> &'static str {
        match self {
            TreeOrder::Games => "games",
            TreeOrder::Score => "score",
            TreeOrder::Move => "move",
        }
    }

    fn help(self) -> &'static str {
        match self {
            TreeOrder::Games => "Most games first",
            TreeOrder::Score => "White's score, best first",
            TreeOrder::Move => "The moves' order in SAN (alphabetical)",
        }
    }
}

/// The tree of a selection.
#[derive(Debug, Default)]
pub struct Tree {
    /// Games the selection holds.
    pub selected: u64,
    /// Of those, games from the standard start (the tree's games).
    pub standard: u64,
    /// Games whose moves could not be decoded (counted, left out).
    pub unreadable: u64,
    /// The lines with at least `min_games` games, parents before children, siblings in the
    /// chosen order.
    pub lines: Vec<(Vec<u16>, Node)>,
    sans: BTreeMap<Vec<u16>, String>,
}

/// The columns of a line in the table formats (CSV, JSON lines, Parquet).
pub const COLUMNS: [Column; 9] = [
    Column {
        name: "line",
        kind: Kind::Text,
        meaning: "the moves from the start, in SAN with move numbers",
    },
    Column {
        name: "ply",
        kind: Kind::Int,
        meaning: "the line's length in half-moves",
    },
    Column {
        name: "move",
        kind: Kind::Text,
        meaning: "the line's last move, in SAN",
    },
    Column {
        name: "games",
        kind: Kind::Int,
        meaning: "games of the selection that followed the line",
    },
    Column {
        name: "white_score",
        kind: Kind::Float,
        meaning: "White's score in those games with a result, in percent",
    },
    Column {
        name: "draw_rate",
        kind: Kind::Float,
        meaning: "draws among those games with a result, in percent",
    },
    Column {
        name: "avg_elo",
        kind: Kind::Float,
        meaning: "the players' average rating (both sides, where given)",
    },
    Column {
        name: "performance",
        kind: Kind::Float,
        meaning: "the performance of the side that played the last move: its opponents' average + 400 (W - L) / N",
    },
    Column {
        name: "opening",
        kind: Kind::Text,
        meaning: "the position's opening name (lichess's CC0 names), if it has one",
    },
];

impl Tree {
    /// Reads the selected games and builds the tree to `depth` plies, keeping lines with at
    /// least `min_games` games.
    pub fn collect(
        conn: &Connection,
        filter: &Filter,
        depth: usize,
        min_games: u64,
        order: TreeOrder,
    ) -> rusqlite::Result<Tree> {
        let book = Book::get();
        // Keyed by the line's moves (16-bit codes), so siblings sort together under their parent.
        let mut all: BTreeMap<Vec<u16>, Node> = BTreeMap::new();
        let mut tree = Tree::default();
        for_each_moves(conn, filter, |g| {
            tree.selected += 1;
            if !g.standard {
                return;
            }
            let Ok(moves) = decode_moves(&Position::new(), g.moves) else {
                tree.unreadable += 1;
                return;
            };
            let white = match g.result.and_then(GameResult::parse) {
                Some(GameResult::WhiteWins) => Some(0),
                Some(GameResult::Draw) => Some(1),
                Some(GameResult::BlackWins) => Some(2),
                _ => None,
            };
            tree.standard += 1;
            add_game(&mut all, &moves, white, g.elo, depth, book);
        })?;
        tree.sans = all
            .iter()
            .map(|(l, n)| (l.clone(), n.san.clone()))
            .collect();
        all.retain(|_, n| n.tally.games >= min_games);
        tree.lines = ordered(all, order);
        Ok(tree)
    }

    /// The line's moves in SAN with move numbers (`1.e4 c5 2.Nf3`).
    pub fn line_text(&self, line: &[u16]) -> String {
        line_text(&self.sans, line)
    }

    /// One line's cells in `COLUMNS`' order.
    pub fn cells<'a>(&self, line: &[u16], n: &'a Node) -> Vec<Cell<'a>> {
        let t = &n.tally;
        let round = |v: Option<f64>, digits: i32| {
            v.map_or(Cell::Null, |v| {
                let p = 10f64.powi(digits);
                Cell::Float((v * p).round() / p)
            })
        };
        vec![
            Cell::Text(self.line_text(line).into()),
            Cell::Int(line.len() as i64),
            Cell::text(&n.san),
            Cell::Int(t.games as i64),
            round(t.white_score(), 2),
            round(t.draw_rate(), 2),
            round(t.avg_elo_both(), 1),
            round(t.performance(), 1),
            Cell::opt_text(n.name),
        ]
    }
}

/// Parents before their children, siblings in `order`.
fn ordered(all: BTreeMap<Vec<u16>, Node>, order: TreeOrder) -> Vec<(Vec<u16>, Node)> {
    let mut children: BTreeMap<Vec<u16>, Vec<(Vec<u16>, Node)>> = BTreeMap::new();
    for (line, node) in all {
        let parent = line[..line.len() - 1].to_vec();
        children.entry(parent).or_default().push((line, node));
    }
    let key = |n: &Node| n.tally.white_score().unwrap_or(-1.0);
    for list in children.values_mut() {
        match order {
            TreeOrder::Games => list.sort_by(|a, b| {
                b.1.tally
                    .games
                    .cmp(&a.1.tally.games)
                    .then(a.1.san.cmp(&b.1.san))
            }),
            TreeOrder::Score => list.sort_by(|a, b| {
                key(&b.1)
                    .total_cmp(&key(&a.1))
                    .then(b.1.tally.games.cmp(&a.1.tally.games))
            }),
            TreeOrder::Move => list.sort_by(|a, b| a.1.san.cmp(&b.1.san)),
        }
    }
    let mut out = Vec::new();
    let mut stack: Vec<(Vec<u16>, Node)> = children.remove(&Vec::new()).unwrap_or_default();
    stack.reverse();
    while let Some((line, node)) = stack.pop() {
        if let Some(mut kids) = children.remove(&line) {
            kids.reverse();
            stack.extend(kids);
        }
        out.push((line, node));
    }
    out
}

/// One line: its last move, its games' figures (the one tally, `positions::tree::Tally`)
/// and the position's opening name.
#[derive(Debug, Default, Clone)]
pub struct Node {
    pub san: String,
    pub tally: Tally,
    pub name: Option<&'static str>,
}

pub fn add_game(
    tree: &mut BTreeMap<Vec<u16>, Node>,
    moves: &[Move],
    white: Option<usize>,
    elo: [Option<i64>; 2],
    depth: usize,
    book: &Book,
) {
    let mut pos = Position::new();
    let mut line = Vec::new();
    for (ply, &m) in moves.iter().take(depth).enumerate() {
        let san = to_san(&pos, m);
        pos.play_unchecked(m);
        line.push(m.to_u16());
        let node = tree.entry(line.clone()).or_insert_with(|| Node {
            san: san.as_str().to_owned(),
            name: book.lookup(pos.repetition_key()).map(|n| n.name),
            ..Node::default()
        });
        // The side that played this move: White on even plies (0-based).
        node.tally.add(ply % 2, white, elo);
    }
}

pub fn line_text(rows: &BTreeMap<Vec<u16>, String>, line: &[u16]) -> String {
    let mut parts = Vec::new();
    for i in 1..=line.len() {
        let san = rows.get(&line[..i]).cloned().unwrap_or_default();
        if i % 2 == 1 {
            parts.push(format!("{}.{san}", i.div_ceil(2)));
        } else {
            parts.push(san);
        }
    }
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::san::{SanMode, play_san};

    fn moves(line: &str) -> Vec<Move> {
        let mut pos = Position::new();
        line.split_whitespace()
            .map(|t| play_san(&mut pos, t, SanMode::Strict).unwrap().mv)
            .collect()
    }

    #[test]
    fn tree_counts_scores_and_performance() {
        let mut tree = BTreeMap::new();
        let book = Book::get();
        add_game(
            &mut tree,
            &moves("e4 c5 Nf3"),
            Some(0),
            [Some(2600), Some(2400)],
            2,
            book,
        );
        add_game(
            &mut tree,
            &moves("e4 e5"),
            Some(1),
            [Some(2500), Some(2500)],
            2,
            book,
        );
        add_game(&mut tree, &moves("d4 d5"), None, [None, None], 2, book);
        assert_eq!(tree.len(), 5);
        let e4 = &tree[&moves("e4").iter().map(|m| m.to_u16()).collect::<Vec<_>>()];
        let f = &e4.tally;
        assert_eq!((f.games, f.wdl), (2, [1, 1, 0]));
        assert_eq!(f.white_score(), Some(75.0));
        assert_eq!(f.draw_rate(), Some(50.0));
        assert_eq!(f.avg_elo_both(), Some(2500.0));
        // White scored 1.5/2 against 2400 and 2500: 2450 + 400 * (3 - 2) / 2.
        assert_eq!(f.performance(), Some(2650.0));
        assert_eq!(e4.name, Some("King's Pawn Game"));
        let c5 = &tree[&moves("e4 c5")
            .iter()
            .map(|m| m.to_u16())
            .collect::<Vec<_>>()];
        // Black lost against 2600: 2600 - 400.
        assert_eq!(c5.tally.performance(), Some(2200.0));
        assert_eq!(c5.name, Some("Sicilian Defense"));
    }
}
