//! `arbiter openings --db DB [filters]`: the opening tree of a selection of games (the
//! export's filters): for every line of moves from the standard start, up to `--depth`
//! plies, the games that followed it, White's score, the draw rate, the players' average
//! rating and the performance of the side that played the last move; the position's
//! opening name when it has one (by position). Text table, CSV or JSON.

use super::filter::FilterArgs;
use crate::chess::san::to_san;
use crate::chess::{Move, Position};
use crate::db::encode::decode_moves;
use crate::db::open;
use crate::export::games::games_from;
use crate::identity::openings::Book;
use clap::{Args, ValueEnum};
use rusqlite::params_from_iter;
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::PathBuf;

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeFormat {
    Text,
    Csv,
    Json,
}

#[derive(Args, Debug)]
#[command(after_help = "Examples:
  arbiter openings --db games.sqlite --depth 6
  arbiter openings --db games.sqlite --player 'Carlsen, Magnus' --min-games 5 --format csv
  arbiter openings --db games.sqlite --opening 'Sicilian Defense' --from 2020 --format json")]
pub struct OpeningsArgs {
    #[arg(long, default_value = "arbiter.sqlite")]
    pub db: PathBuf,
    /// Plies of the tree.
    #[arg(long, default_value_t = 8)]
    pub depth: usize,
    /// Lines followed by fewer games are left out.
    #[arg(long, default_value_t = 10)]
    pub min_games: u64,
    #[arg(long, value_enum, default_value = "text")]
    pub format: TreeFormat,
    #[command(flatten)]
    pub select: FilterArgs,
}

/// One line's numbers.
#[derive(Debug, Default, Clone)]
struct Node {
    san: String,
    games: u64,
    /// From White's view: wins, draws, losses.
    wdl: [u64; 3],
    elo_sum: f64,
    elo_n: u64,
    /// Opponents' (of the side that played the last move) rating sum and count, with
    /// that side's score.
    opp_sum: f64,
    opp_n: u64,
    mover_score: f64,
    mover_games: u64,
    name: Option<&'static str>,
}

pub fn run(args: &OpeningsArgs) -> io::Result<i32> {
    let conn = match open(&args.db) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("arbiter: {e}");
            return Ok(2);
        }
    };
    // Statistics count each duplicate group once unless --all-games.
    let filter = args.select.filter(true);
    let (clause, values) = filter.to_sql(crate::db::SCHEMA_VERSION);
    let sql = format!(
        "SELECT g.moves, COALESCE(g.lawful_result, g.result), g.white_elo, g.black_elo \
         FROM {} WHERE g.start_fen IS NULL AND g.variant = 'standard' AND ({clause})",
        games_from(crate::db::SCHEMA_VERSION)
    );
    let err = |e: rusqlite::Error| io::Error::other(format!("{}: {e}", args.db.display()));
    let mut stmt = conn.prepare(&sql).map_err(err)?;
    let mut rows = stmt.query(params_from_iter(values)).map_err(err)?;
    let book = Book::get();
    // Keyed by the line's moves (16-bit codes), so siblings sort together under their parent.
    let mut tree: BTreeMap<Vec<u16>, Node> = BTreeMap::new();
    let mut total = 0u64;
    while let Some(r) = rows.next().map_err(err)? {
        let blob: Vec<u8> = r.get(0).map_err(err)?;
        let result: Option<String> = r.get(1).map_err(err)?;
        let elo: [Option<i64>; 2] = [r.get(2).map_err(err)?, r.get(3).map_err(err)?];
        let Ok(moves) = decode_moves(&Position::new(), &blob) else {
            continue;
        };
        let white = match result.as_deref() {
            Some("1-0") => Some(0),
            Some("1/2-1/2") => Some(1),
            Some("0-1") => Some(2),
            _ => None,
        };
        total += 1;
        add_game(&mut tree, &moves, white, elo, args.depth, book);
    }
    let rows: Vec<(Vec<u16>, Node)> = tree
        .into_iter()
        .filter(|(_, n)| n.games >= args.min_games)
        .collect();
    let mut out = io::stdout().lock();
    write_tree(&mut out, args.format, total, &rows)?;
    Ok(0)
}

fn add_game(
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
        node.games += 1;
        if let Some(w) = white {
            node.wdl[w] += 1;
        }
        for e in elo.iter().flatten() {
            node.elo_sum += *e as f64;
            node.elo_n += 1;
        }
        // The side that played this move: White on even plies (0-based).
        let mover = ply % 2;
        if let (Some(w), Some(opp)) = (white, elo[1 - mover]) {
            let white_score = [1.0, 0.5, 0.0][w];
            node.mover_score += if mover == 0 {
                white_score
            } else {
                1.0 - white_score
            };
            node.mover_games += 1;
            node.opp_sum += opp as f64;
            node.opp_n += 1;
        }
    }
}

struct Figures {
    white_score: Option<f64>,
    draw_rate: Option<f64>,
    avg_elo: Option<f64>,
    performance: Option<f64>,
}

fn figures(n: &Node) -> Figures {
    let decided = n.wdl.iter().sum::<u64>();
    let pct = |x: f64| (decided > 0).then(|| 100.0 * x / decided as f64);
    Figures {
        white_score: pct(n.wdl[0] as f64 + 0.5 * n.wdl[1] as f64),
        draw_rate: pct(n.wdl[1] as f64),
        avg_elo: (n.elo_n > 0).then(|| n.elo_sum / n.elo_n as f64),
        // The linear performance: opponents' average + 400 (W - L) / N.
        performance: (n.mover_games > 0).then(|| {
            let g = n.mover_games as f64;
            n.opp_sum / n.opp_n as f64 + 400.0 * (2.0 * n.mover_score - g) / g
        }),
    }
}

fn line_text(rows: &BTreeMap<Vec<u16>, String>, line: &[u16]) -> String {
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

fn write_tree(
    out: &mut impl Write,
    format: TreeFormat,
    total: u64,
    rows: &[(Vec<u16>, Node)],
) -> io::Result<()> {
    let sans: BTreeMap<Vec<u16>, String> = rows
        .iter()
        .map(|(l, n)| (l.clone(), n.san.clone()))
        .collect();
    let opt = |v: Option<f64>, digits: usize| v.map_or(String::new(), |v| format!("{v:.digits$}"));
    match format {
        TreeFormat::Text => {
            writeln!(out, "{total} games")?;
            writeln!(
                out,
                "{:<40} {:>7} {:>7} {:>6} {:>6} {:>6}  name",
                "line", "games", "White%", "draw%", "elo", "perf"
            )?;
            for (line, n) in rows {
                let f = figures(n);
                let indent = "  ".repeat(line.len() - 1);
                let mv = if line.len() % 2 == 1 {
                    format!("{indent}{}. {}", line.len().div_ceil(2), n.san)
                } else {
                    format!("{indent}{}... {}", line.len() / 2, n.san)
                };
                writeln!(
                    out,
                    "{mv:<40} {:>7} {:>7} {:>6} {:>6} {:>6}  {}",
                    n.games,
                    opt(f.white_score, 1),
                    opt(f.draw_rate, 1),
                    opt(f.avg_elo, 0),
                    opt(f.performance, 0),
                    n.name.unwrap_or("")
                )?;
            }
        }
        TreeFormat::Csv => {
            let mut w = csv::Writer::from_writer(out);
            w.write_record([
                "line",
                "ply",
                "move",
                "games",
                "white_score",
                "draw_rate",
                "avg_elo",
                "performance",
                "opening",
            ])
            .map_err(io::Error::other)?;
            for (line, n) in rows {
                let f = figures(n);
                w.write_record([
                    line_text(&sans, line),
                    line.len().to_string(),
                    n.san.clone(),
                    n.games.to_string(),
                    opt(f.white_score, 2),
                    opt(f.draw_rate, 2),
                    opt(f.avg_elo, 1),
                    opt(f.performance, 1),
                    n.name.unwrap_or("").to_owned(),
                ])
                .map_err(io::Error::other)?;
            }
            w.flush()?;
        }
        TreeFormat::Json => {
            let nodes: Vec<serde_json::Value> = rows
                .iter()
                .map(|(line, n)| {
                    let f = figures(n);
                    serde_json::json!({
                        "line": line_text(&sans, line), "ply": line.len(), "move": n.san,
                        "games": n.games, "white_score": f.white_score, "draw_rate": f.draw_rate,
                        "avg_elo": f.avg_elo, "performance": f.performance, "opening": n.name,
                    })
                })
                .collect();
            let v = serde_json::json!({ "games": total, "lines": nodes });
            writeln!(
                out,
                "{}",
                serde_json::to_string_pretty(&v).map_err(io::Error::other)?
            )?;
        }
    }
    Ok(())
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
        assert_eq!((e4.games, e4.wdl), (2, [1, 1, 0]));
        let f = figures(e4);
        assert_eq!(f.white_score, Some(75.0));
        assert_eq!(f.draw_rate, Some(50.0));
        assert_eq!(f.avg_elo, Some(2500.0));
        // White scored 1.5/2 against 2400 and 2500: 2450 + 400 * (3 - 2) / 2.
        assert_eq!(f.performance, Some(2650.0));
        assert_eq!(e4.name, Some("King's Pawn Game"));
        let c5 = &tree[&moves("e4 c5")
            .iter()
            .map(|m| m.to_u16())
            .collect::<Vec<_>>()];
        // Black lost against 2600: 2600 - 400.
        assert_eq!(figures(c5).performance, Some(2200.0));
        assert_eq!(c5.name, Some("Sicilian Defense"));
    }
}
