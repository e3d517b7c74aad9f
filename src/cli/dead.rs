//! `arbiter dead FEN [--budget N]`: can each side still checkmate? Prints per side the
//! verdict and how it was reached (with a mating line in SAN where a side can win).
//! `arbiter dead --suite FILE [--budget N]` checks a CHA-style label file (`WB`, `W-`,
//! `-B`, `--` then a FEN; `#` lines are comments) and exits 1 on any disagreement.
//! `arbiter dead --positions FILE [--budget N]` runs the deadness test that the Laws
//! verdict applies to every game's final position over a file of FENs (one a line, no
//! labels) and prints how many are alive, dead and undetermined, with the time per position.

use crate::chess::san::to_san;
use crate::chess::{Color, Move, Position};
use crate::laws::dead::{Budget, Deadness, Winnability, analyse, deadness};
use clap::Args;
use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct DeadArgs {
    /// Position in FEN (quote it); omitted with --suite or --positions.
    #[arg(required_unless_present_any = ["suite", "positions"])]
    pub fen: Option<String>,
    /// Nodes each side's search may visit before answering "unknown".
    #[arg(long, alias = "nodes", default_value_t = Budget::default().nodes)]
    pub budget: u64,
    /// A label file: each line `WB`, `W-`, `-B` or `--`, a space and a FEN.
    #[arg(long, conflicts_with = "fen")]
    pub suite: Option<PathBuf>,
    /// A file of FENs, one a line: counts of alive, dead and undetermined positions (the
    /// deadness test the Laws verdict runs on each game's final position) and time taken.
    #[arg(long, conflicts_with_all = ["fen", "suite"])]
    pub positions: Option<PathBuf>,
    /// With --positions: also print each dead and each undetermined position; with
    /// --suite: each undetermined one.
    #[arg(long)]
    pub list: bool,
}

pub fn run(args: &DeadArgs) -> io::Result<i32> {
    let budget = Budget {
        nodes: args.budget,
        ..Budget::default()
    };
    let mut out = io::stdout().lock();
    if let Some(path) = &args.suite {
        let text = std::fs::read_to_string(path)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        return run_suite(&mut out, &text, path, budget, args.list);
    }
    if let Some(path) = &args.positions {
        let text = std::fs::read_to_string(path)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        return run_positions(&mut out, &text, path, budget, args.list);
    }
    let Some(fen) = &args.fen else {
        eprintln!("arbiter: dead needs a FEN or --suite FILE");
        return Ok(2);
    };
    let pos = match Position::from_fen(fen) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("arbiter: {e}");
            return Ok(2);
        }
    };
    let u = analyse(&pos, budget);
    for color in Color::ALL {
        let name = color_name(color);
        match u.side(color) {
            Winnability::CannotWin(proof) => writeln!(out, "{name}: cannot win ({proof})")?,
            Winnability::CanWin { line, nodes } => writeln!(
                out,
                "{name}: can win (helpmate found in {nodes} nodes): {}",
                san_line(&pos, line)
            )?,
            Winnability::Unknown { nodes } => writeln!(
                out,
                "{name}: unknown (no mate and no proof within {nodes} nodes)"
            )?,
        }
    }
    let verdict = match u.deadness() {
        Deadness::Dead => "dead: neither side can checkmate (2017 Art. 5.2.2)",
        Deadness::Alive => "not dead",
        Deadness::Unknown => "undetermined",
    };
    writeln!(out, "position: {verdict}")?;
    Ok(0)
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// `1. Kb2 Kd7 2. ...` from the position's move number and side to move.
pub fn san_line(pos: &Position, line: &[Move]) -> String {
    let mut p = *pos;
    let mut s = String::new();
    for (i, &m) in line.iter().enumerate() {
        if !s.is_empty() {
            s.push(' ');
        }
        if p.turn() == Color::White {
            s.push_str(&format!("{}. ", p.fullmove_number()));
        } else if i == 0 {
            s.push_str(&format!("{}... ", p.fullmove_number()));
        }
        s.push_str(to_san(&p, m).as_str());
        p.play_unchecked(m);
    }
    s
}

/// The lines of a position file that carry one: 1-based line number and trimmed text;
/// blank lines and `#` comments are skipped.
fn content_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(n, line)| (n + 1, line.trim()))
        .filter(|(_, line)| !line.is_empty() && !line.starts_with('#'))
}

fn run_suite(
    out: &mut impl Write,
    text: &str,
    path: &std::path::Path,
    budget: Budget,
    list: bool,
) -> io::Result<i32> {
    let (mut passed, mut failed, mut unknown, mut bad) = (0u64, 0u64, 0u64, 0u64);
    let start = Instant::now();
    for (n, line) in content_lines(text) {
        let (label, fen) = line.split_at(line.len().min(2));
        let label = label.as_bytes();
        let pos = match (label, Position::from_fen(fen.trim())) {
            ([w @ (b'W' | b'-'), b @ (b'B' | b'-')], Ok(p)) => (p, *w == b'W', *b == b'B'),
            (_, Err(e)) => {
                writeln!(out, "{}:{}: skipped: {e}", path.display(), n)?;
                bad += 1;
                continue;
            }
            _ => {
                writeln!(out, "{}:{}: skipped: bad label", path.display(), n)?;
                bad += 1;
                continue;
            }
        };
        let (pos, white, black) = pos;
        let u = analyse(&pos, budget);
        let mut ok = true;
        let mut undetermined = false;
        for (color, expected) in [(Color::White, white), (Color::Black, black)] {
            match (expected, u.side(color)) {
                (_, Winnability::Unknown { .. }) => undetermined = true,
                (true, Winnability::CanWin { .. }) | (false, Winnability::CannotWin(_)) => {}
                (_, got) => {
                    ok = false;
                    let said = if got.can_win() { "can" } else { "cannot" };
                    writeln!(
                        out,
                        "FAIL {}:{}: {} {said} win: {}",
                        path.display(),
                        n,
                        color_name(color),
                        fen.trim()
                    )?;
                }
            }
        }
        if !ok {
            failed += 1;
        } else if undetermined {
            unknown += 1;
            if list {
                writeln!(out, "undetermined {}:{}: {}", path.display(), n, fen.trim())?;
            }
        } else {
            passed += 1;
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let total = passed + failed + unknown;
    eprintln!(
        "{total} positions in {secs:.2} s ({:.0} µs per position)",
        secs * 1e6 / total.max(1) as f64
    );
    writeln!(
        out,
        "{passed} passed, {failed} failed, {unknown} undetermined, {bad} skipped"
    )?;
    Ok(if failed > 0 { 1 } else { 0 })
}

/// Deadness of every FEN in `text`; the positions are parsed first so that only the
/// analysis is timed.
fn run_positions(
    out: &mut impl Write,
    text: &str,
    path: &std::path::Path,
    budget: Budget,
    list: bool,
) -> io::Result<i32> {
    let mut positions = Vec::new();
    let mut bad = 0u64;
    for (n, line) in content_lines(text) {
        match Position::from_fen(line) {
            Ok(p) => positions.push(p),
            Err(e) => {
                writeln!(out, "{}:{}: skipped: {e}", path.display(), n)?;
                bad += 1;
            }
        }
    }
    let start = Instant::now();
    let verdicts: Vec<Deadness> = positions.iter().map(|p| deadness(p, budget)).collect();
    let secs = start.elapsed().as_secs_f64();
    let (mut alive, mut dead, mut unknown) = (0u64, 0u64, 0u64);
    for (p, v) in positions.iter().zip(&verdicts) {
        match v {
            Deadness::Alive => alive += 1,
            Deadness::Dead => dead += 1,
            Deadness::Unknown => unknown += 1,
        }
        if list && *v != Deadness::Alive {
            let tag = if *v == Deadness::Dead {
                "dead"
            } else {
                "undetermined"
            };
            writeln!(out, "{tag} {}", crate::chess::fen::write_fen(p))?;
        }
    }
    let total = positions.len();
    writeln!(
        out,
        "{total} positions: {alive} alive, {dead} dead, {unknown} undetermined, {bad} skipped"
    )?;
    writeln!(
        out,
        "{secs:.3} s ({:.2} µs per position)",
        secs * 1e6 / total.max(1) as f64
    )?;
    Ok(0)
}
