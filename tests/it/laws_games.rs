//! The Laws on real games read through the PGN reader: the 713 engine games of
//! `draw-rules/sunfish-3fold.pgn` all end in a threefold repetition, and every TCEC game whose
//! TerminationDetails names a 3-fold repetition is claimable as one under Art. 9.2.

use crate::common;
use common::corpus;

use arbiter::chess::SanMode;
use arbiter::game::replay;
use arbiter::laws::{Verdict, VerdictOptions, judge};
use arbiter::pgn::{Game, parse_all};
use arbiter::pipeline::work::verdict_input;
use std::path::PathBuf;

fn games(path: PathBuf) -> Vec<Game> {
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parse_all(&bytes).0
}

/// Replays and judges a game; also returns how often its final position occurred.
fn verdict(game: &Game) -> (Verdict, usize, usize) {
    let r = replay(game, SanMode::Lenient);
    assert!(
        r.complete && !r.is_rejected(),
        "game {}: {:?}",
        game.game_number,
        r.findings
    );
    let mut pos = r.start;
    let mut keys = vec![pos.repetition_key()];
    for &m in &r.moves {
        pos.play_unchecked(m);
        keys.push(pos.repetition_key());
    }
    let last = *keys.last().unwrap();
    let occurrences = keys.iter().filter(|&&k| k == last).count();
    let input = verdict_input(game, &r);
    (
        judge(&input, &VerdictOptions::default()),
        occurrences,
        r.moves.len(),
    )
}

#[test]
fn sunfish_threefold_games_all_end_in_a_claimable_repetition() {
    let Some(dir) = corpus() else { return };
    let all = games(dir.join("draw-rules/sunfish-3fold.pgn"));
    assert_eq!(all.len(), 713);
    let mut claimable = 0;
    for game in &all {
        let (v, occurrences, plies) = verdict(game);
        assert!(
            occurrences >= 3,
            "game {}: final position seen {occurrences} times",
            game.game_number
        );
        let claim = v
            .first_threefold_claim
            .unwrap_or_else(|| panic!("game {}: no threefold claim", game.game_number));
        assert!(claim.ply as usize <= plies, "game {}", game.game_number);
        assert!(
            !v.findings
                .iter()
                .any(|f| f.code.as_str() == "result.mismatch"),
            "game {}",
            game.game_number
        );
        claimable += 1;
    }
    assert_eq!(claimable, 713);
}

#[test]
fn tcec_threefold_terminations_agree_with_the_verdict() {
    let Some(dir) = corpus() else { return };
    let mut checked = 0;
    for season in 4..=7 {
        let name = match season {
            4 => "TCEC_Season_4_-_Superfinal.pgn",
            5 => "TCEC_Season_5_-_Superfinal.pgn",
            6 => "TCEC_Season_6_-_Superfinal.pgn",
            _ => "TCEC_Season_7_-_Superfinal.pgn",
        };
        for game in games(dir.join("games/engine-tcec").join(name)) {
            let (v, occurrences, _) = verdict(&game);
            // No game of these matches contradicts the Laws' automatic endings.
            assert!(
                !v.findings
                    .iter()
                    .any(|f| f.code.as_str() == "result.mismatch"),
                "{name} game {}: {:?}",
                game.game_number,
                v.findings
            );
            if game.tag("TerminationDetails") == Some("3-fold repetition") {
                assert!(occurrences >= 3, "{name} game {}", game.game_number);
                assert!(
                    v.first_threefold_claim.is_some(),
                    "{name} game {}",
                    game.game_number
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 34);
}
