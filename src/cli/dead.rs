//! `arbiter dead FEN [--budget N]`: can each side still checkmate? Prints per side the
//! verdict and how it was reached (with a mating line in SAN where a side can win, cut to
//! the shortest line through the positions the search found: `dead::shorten`).
//! `arbiter dead --suite FILE [--budget N]` checks a label file (`laws::dead::suite`) and
//! exits 1 on any disagreement.
//! `arbiter dead --positions FILE [--budget N]` runs the deadness test that the Laws
//! verdict applies to every game's final position over a file of FENs (one a line, no
//! labels) and prints how many are alive, dead and undetermined, with the time per position.

use super::error::{AppError, Outcome, PathContext, Result};
use crate::chess::lines::suite_lines;
use crate::chess::san::to_san;
use crate::chess::{Color, Move, Position};
use crate::laws::dead::shorten::shorten;
use crate::laws::dead::suite::{self, Event};
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
    #[arg(long, aliases = ["nodes", "dead-budget"], default_value_t = Budget::default().nodes)]
    pub budget: u64,
    /// A label file: each line `WB`, `W-`, `-B` or `--`, a space and a FEN; or tab-separated
    /// `fen`, `dead`, `white_can_win`, `black_can_win` (yes/no), after a header line.
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

pub fn run(args: &DeadArgs) -> Result {
    let budget = Budget {
        nodes: args.budget,
        ..Budget::default()
    };
    let mut out = io::stdout().lock();
    if let Some(path) = &args.suite {
        let text = std::fs::read_to_string(path).with_path(path)?;
        return run_suite(&mut out, &text, path, budget, args.list);
    }
    if let Some(path) = &args.positions {
        let text = std::fs::read_to_string(path).with_path(path)?;
        return run_positions(&mut out, &text, path, budget, args.list);
    }
    let Some(fen) = &args.fen else {
        return Err(AppError::usage("dead needs a FEN or --suite FILE"));
    };
    let pos = Position::from_fen(fen)?;
    let u = analyse(&pos, budget);
    for color in Color::ALL {
        let name = color_name(color);
        match u.side(color) {
            Winnability::CannotWin(proof) => writeln!(out, "{name}: cannot win ({proof})")?,
            Winnability::CanWin { line, .. } if line.is_empty() => writeln!(
                out,
                "{name}: has checkmated: the game is over (2017 Art. 5.1.1)"
            )?,
            Winnability::CanWin { line, nodes } => {
                // The search's line proves the point; the shortest line through its
                // positions reads better (the exhaustive walk's can run to many thousands
                // of plies).
                let short = shorten(&pos, color, line);
                let plies = short.len();
                let found = if plies < line.len() {
                    format!("{plies} plies, shortened from {}", line.len())
                } else {
                    format!("{plies} plies")
                };
                writeln!(
                    out,
                    "{name}: can win (helpmate found in {nodes} nodes; {found}): {}",
                    san_line(&pos, &short)
                )?
            }
            Winnability::Unknown { nodes } => writeln!(
                out,
                "{name}: unknown (no mate and no proof within {nodes} nodes)"
            )?,
        }
    }
    let verdict = match u.deadness() {
        _ if pos.is_checkmate() => "checkmate (2017 Art. 5.1.1)",
        _ if pos.is_stalemate() => "stalemate (2017 Art. 5.2.1)",
        Deadness::Dead => "dead: neither side can checkmate (2017 Art. 5.2.2)",
        Deadness::Alive => "not dead",
        Deadness::Unknown => "undetermined",
    };
    writeln!(out, "position: {verdict}")?;
    Ok(Outcome::Success)
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

fn run_suite(
    out: &mut impl Write,
    text: &str,
    path: &std::path::Path,
    budget: Budget,
    list: bool,
) -> Result {
    let start = Instant::now();
    let mut written = Ok(());
    let place = path.display();
    let tally = suite::check(text, budget, |event| {
        if written.is_err() {
            return;
        }
        written = match event {
            Event::Malformed { line, why } => writeln!(out, "{place}:{line}: skipped: {why}"),
            Event::Illegal { line, error } => writeln!(out, "{place}:{line}: skipped: {error}"),
            Event::Wrong {
                line,
                color,
                can_win,
                fen,
            } => {
                let said = if can_win { "can" } else { "cannot" };
                let name = color_name(color);
                writeln!(out, "FAIL {place}:{line}: {name} {said} win: {fen}")
            }
            Event::Undetermined { line, fen } if list => {
                writeln!(out, "undetermined {place}:{line}: {fen}")
            }
            Event::Undetermined { .. } => Ok(()),
        };
    });
    written?;
    let secs = start.elapsed().as_secs_f64();
    let total = tally.positions();
    eprintln!(
        "{total} positions in {secs:.2} s ({:.0} µs per position)",
        secs * 1e6 / total.max(1) as f64
    );
    writeln!(
        out,
        "{} passed, {} failed, {} undetermined, {} skipped",
        tally.passed,
        tally.failed,
        tally.undetermined,
        tally.malformed + tally.illegal
    )?;
    // A malformed line fails the run; a position that cannot arise only is skipped.
    Ok(Outcome::from(tally.ok()))
}

/// Deadness of every FEN in `text`; the positions are parsed first so that only the
/// analysis is timed.
fn run_positions(
    out: &mut impl Write,
    text: &str,
    path: &std::path::Path,
    budget: Budget,
    list: bool,
) -> Result {
    let mut positions = Vec::new();
    let mut bad = 0u64;
    for (n, line) in suite_lines(text) {
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
    Ok(Outcome::from(bad == 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tab_separated_suite_runs() {
        let text = "fen\tdead\twhite_can_win\tblack_can_win\n\
                    8/8/4k3/8/8/3K4/8/8 w - - 0 1\tyes\tno\tno\n\
                    8/8/4k3/8/8/3K4/8/7R w - - 0 1\tno\tyes\tno\n\
                    8/8/4k3/8/8/3K4/8/7R w - - 0 1\tyes\tno\tno\n\
                    8/8/4k3/8/8/3K4/8/7R w - - 0 1\tyes\tyes\tno\n";
        let mut out = Vec::new();
        let path = std::path::Path::new("t.tsv");
        let code = run_suite(&mut out, text, path, Budget::default(), false).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert_eq!(code, Outcome::Failed, "{out}");
        assert!(out.contains("FAIL t.tsv:4: White can win"), "{out}");
        assert!(
            out.contains("t.tsv:5: skipped: bad label: dead must be yes"),
            "{out}"
        );
        assert!(
            out.ends_with("2 passed, 1 failed, 0 undetermined, 1 skipped\n"),
            "{out}"
        );
    }

    #[test]
    fn a_position_that_cannot_arise_is_skipped_without_failing_the_suite() {
        // Nine white queens beside all eight pawns: the FEN reader refuses it as illegal.
        let text = "fen\tdead\twhite_can_win\tblack_can_win\n\
                    8/8/4k3/8/8/3K4/8/8 w - - 0 1\tyes\tno\tno\n\
                    QQQQQQQQ/PPPPPPPP/4k3/8/8/3K4/8/Q7 w - - 0 1\tno\tyes\tno\n";
        let mut out = Vec::new();
        let path = std::path::Path::new("t.tsv");
        let code = run_suite(&mut out, text, path, Budget::default(), false).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("t.tsv:3: skipped: "), "{out}");
        assert!(
            out.ends_with("1 passed, 0 failed, 0 undetermined, 1 skipped\n"),
            "{out}"
        );
        assert_eq!(code, Outcome::Success, "{out}");
    }
}
