//! The cheap proofs that a side can still mate (`laws::dead::alive`) against the full
//! analysis: never on a side labelled unable to win (D3-Chess's vector, the 74 checked
//! positions), and never on a side of a corpus game's final position that the full analysis
//! proves unable to win. Each final where a class applies must also be alive by the full
//! `deadness`, so that `check`'s verdicts cannot change.

use crate::common;

use arbiter::chess::{Color, Position, SanMode};
use arbiter::game::replay::replay;
use arbiter::laws::dead::{
    Budget, Deadness, Winnability, alive, analyse_side, deadness, deadness_searched,
};
use std::collections::HashSet;
use std::path::Path;

/// (FEN, white can win, black can win) of both labelled sets.
fn labelled(corpus: &Path) -> Vec<(String, bool, bool)> {
    let mut out = Vec::new();
    let d3 = std::fs::read_to_string(corpus.join("unwinnability/d3chess-test-vector.txt")).unwrap();
    for l in d3.lines().filter(|l| !l.starts_with('#') && l.len() > 3) {
        let (label, fen) = l.split_at(2);
        let b = label.as_bytes();
        out.push((fen.trim().to_string(), b[0] == b'W', b[1] == b'B'));
    }
    let t74 = std::fs::read_to_string(corpus.join("unwinnability/dead-positions-74.tsv")).unwrap();
    for l in t74.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let cols: Vec<&str> = l.split('\t').collect();
        out.push((cols[0].to_string(), cols[2] == "yes", cols[3] == "yes"));
    }
    out
}

fn not_over(pos: &Position) -> bool {
    pos.has_legal_moves()
}

#[test]
fn alive_classes_never_claim_a_labelled_unwinnable_side() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let (mut claimed, mut sides) = (0, 0);
    let mut wrong = Vec::new();
    for (fen, w, b) in labelled(&corpus) {
        let Ok(pos) = Position::from_fen(&fen) else {
            continue;
        };
        if !not_over(&pos) {
            continue;
        }
        for (side, can) in [(Color::White, w), (Color::Black, b)] {
            sides += 1;
            if let Some(class) = alive::proof(&pos, side) {
                if !can {
                    wrong.push(format!("{fen}: {side:?} labelled unable to win, {class:?}"));
                }
                claimed += 1;
            }
        }
    }
    eprintln!("labelled sets: {claimed} of {sides} sides settled by a class");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(sides > 3000);
}

fn pgn_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            pgn_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "pgn") {
            out.push(p);
        }
    }
}

/// The final position of every corpus game replayed in full, once each.
fn corpus_finals(corpus: &Path) -> Vec<Position> {
    let mut files = Vec::new();
    for sub in ["games", "pgn-edge-cases", "draw-rules", "analysis"] {
        pgn_files(&corpus.join(sub), &mut files);
    }
    files.sort();
    let mut seen = HashSet::new();
    let mut finals = Vec::new();
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        let (games, _) = arbiter::pgn::parse_all(&bytes);
        for g in &games {
            let r = replay(g, SanMode::Lenient);
            if !r.complete || r.is_rejected() {
                continue;
            }
            let pos = r.final_position();
            if seen.insert(arbiter::chess::fen::write_fen(&pos)) {
                finals.push(pos);
            }
        }
    }
    finals
}

#[test]
fn alive_classes_agree_with_the_full_analysis_on_every_corpus_final() {
    if !crate::common::long() {
        return;
    }
    let Some(corpus) = common::corpus() else {
        return;
    };
    let budget = Budget {
        nodes: 50_000,
        ..Budget::default()
    };
    let finals = corpus_finals(&corpus);
    // Per final: its deadness, whether a class settled it, and the sides each class took.
    let judged: Vec<(Deadness, bool, [usize; 5])> = {
        use rayon::prelude::*;
        finals
            .par_iter()
            .map(|pos| {
                // The fast path (classes at the root and along the cheap line) against the
                // full test, on every final.
                let fast = deadness(pos, budget);
                assert_eq!(
                    fast,
                    deadness_searched(pos, budget),
                    "{}",
                    arbiter::chess::fen::write_fen(pos)
                );
                let mut classes = [0usize; 5];
                if !not_over(pos) {
                    return (fast, false, classes);
                }
                let mut any = false;
                for side in Color::ALL {
                    let Some(class) = alive::proof(pos, side) else {
                        continue;
                    };
                    any = true;
                    classes[match class {
                        alive::AliveClass::PawnlessHeavy => 0,
                        alive::AliveClass::Unlocked => 1,
                        alive::AliveClass::OpenFile => 2,
                        alive::AliveClass::FreePawns => 3,
                        alive::AliveClass::MinorPieces => 4,
                    }] += 1;
                    let full = analyse_side(pos, side, budget);
                    assert!(
                        !matches!(full, Winnability::CannotWin(_)),
                        "{}: {side:?} {class:?} but the analysis proves {full:?}",
                        arbiter::chess::fen::write_fen(pos)
                    );
                }
                if any {
                    assert_eq!(fast, Deadness::Alive);
                }
                (fast, any, classes)
            })
            .collect()
    };
    let mut tally = [0usize; 3];
    let (mut settled, mut pawnless, mut unlocked, mut open_file, mut free_pawns, mut minor) =
        (0, 0, 0, 0, 0, 0);
    for (fast, any, classes) in &judged {
        tally[*fast as usize] += 1;
        settled += usize::from(*any);
        pawnless += classes[0];
        unlocked += classes[1];
        open_file += classes[2];
        free_pawns += classes[3];
        minor += classes[4];
    }
    eprintln!(
        "{} distinct finals ({} dead, {} alive, {} undetermined), {settled} settled by a class \
         at the root ({pawnless} pawnless sides, {unlocked} unlocked sides, {open_file} sides \
         with jammed pawns and an open file, {free_pawns} sides with free pawns and no queen or rook on \
         one side, {minor} sides with minor pieces only)",
        finals.len(),
        tally[Deadness::Dead as usize],
        tally[Deadness::Alive as usize],
        tally[Deadness::Unknown as usize],
    );
    // Measured: the corpus's distinct finals, each decided, and the sides each class took.
    assert_eq!((finals.len(), tally), (296_019, [642, 295_377, 0]));
    assert_eq!(
        (settled, pawnless, unlocked, open_file, free_pawns, minor),
        (159_157, 449, 272_588, 37_388, 6_730, 143)
    );
}
