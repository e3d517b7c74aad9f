//! The arbiter's verdict on hand-made games: every finding code and every edition
//! difference, with the ply where each happens.

use crate::common;

use arbiter::chess::san::resolve;
use arbiter::chess::{Move, Position, SanMode};
use arbiter::laws::{
    ClaimWay, Code, Edition, GameInput, GameResult, LawsChoice, TerminationKind, Verdict,
    VerdictOptions, judge, judge_replayed,
};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

fn moves(fen: &str, san: &str) -> (Position, Vec<Move>) {
    let start = Position::from_fen(fen).unwrap();
    let mut pos = start;
    let mut out = Vec::new();
    for tok in san.split_whitespace().filter(|t| !t.ends_with('.')) {
        let m = resolve(&pos, tok, SanMode::Strict)
            .unwrap_or_else(|e| panic!("{tok}: {e}"))
            .mv;
        pos.play_unchecked(m);
        out.push(m);
    }
    (start, out)
}

struct Game<'a> {
    fen: &'a str,
    san: &'a str,
    date: &'a str,
    result: &'a str,
    termination: Option<&'a str>,
    marker: Option<&'a str>,
}

impl Default for Game<'_> {
    fn default() -> Self {
        Game {
            fen: START,
            san: "",
            date: "2020.01.01",
            result: "*",
            termination: None,
            marker: None,
        }
    }
}

fn judge_game(g: &Game<'_>) -> Verdict {
    let (start, mv) = moves(g.fen, g.san);
    let input = GameInput {
        start,
        moves: &mv,
        date: Some(g.date),
        result_tag: Some(g.result),
        termination_tag: g.termination,
        result_marker: g.marker,
    };
    let v = judge(&input, &VerdictOptions::default());
    // The pipeline hands over the final position; the verdict must not depend on it.
    let mut end = start;
    for &m in &mv {
        end.play_unchecked(m);
    }
    assert_eq!(judge_replayed(&input, &end, &VerdictOptions::default()), v);
    v
}

fn codes(v: &Verdict) -> Vec<(&'static str, u32)> {
    v.findings
        .iter()
        .map(|f| (f.code.as_str(), f.ply))
        .collect()
}

fn has(v: &Verdict, code: Code) -> bool {
    v.findings.iter().any(|f| f.code == code)
}

const FOOLS_MATE: &str = "1. f3 e5 2. g4 Qh4#";

#[test]
fn checkmate_ends_the_game_and_a_wrong_result_is_an_error() {
    let v = judge_game(&Game {
        san: FOOLS_MATE,
        result: "0-1",
        ..Game::default()
    });
    assert_eq!(
        v.termination,
        Some((
            TerminationKind::Checkmate {
                winner: arbiter::chess::Color::Black
            },
            4
        ))
    );
    assert_eq!(v.lawful_result, Some(GameResult::BlackWins));
    assert_eq!(codes(&v), vec![("end.checkmate", 4)]);
    let f = &v.findings[0];
    assert_eq!(f.article, Some("5.1.1"));

    let v = judge_game(&Game {
        san: FOOLS_MATE,
        result: "1/2-1/2",
        ..Game::default()
    });
    assert_eq!(
        codes(&v),
        vec![("end.checkmate", 4), ("result.mismatch", 4)]
    );

    let v = judge_game(&Game {
        san: FOOLS_MATE,
        result: "*",
        ..Game::default()
    });
    assert_eq!(
        codes(&v),
        vec![("end.checkmate", 4), ("result.unfinished", 4)]
    );
}

#[test]
fn articles_follow_the_edition() {
    for (date, article) in [
        ("1990.05.05", "11.1"),
        ("1998.05.05", "10.1"),
        ("2005.05.05", "5.1(a)"),
        ("2015.05.05", "5.1.1"),
    ] {
        let v = judge_game(&Game {
            san: FOOLS_MATE,
            result: "0-1",
            date,
            ..Game::default()
        });
        assert_eq!(v.findings[0].article, Some(article), "{date}");
    }
}

#[test]
fn stalemate_and_decisive_record() {
    // Sam Loyd's ten-move stalemate.
    let san = "1. e3 a5 2. Qh5 Ra6 3. Qxa5 h5 4. h4 Rah6 5. Qxc7 f6 6. Qxd7+ Kf7 \
               7. Qxb7 Qd3 8. Qxb8 Qh7 9. Qxc8 Kg6 10. Qe6";
    let v = judge_game(&Game {
        san,
        result: "1-0",
        ..Game::default()
    });
    assert_eq!(v.termination, Some((TerminationKind::Stalemate, 19)));
    assert_eq!(
        codes(&v),
        vec![("end.stalemate", 19), ("result.mismatch", 19)]
    );
}

#[test]
fn moves_after_the_end_are_reported() {
    // King takes the last rook: K+B v K, dead from 1993 on.
    let fen = "4k3/8/8/8/8/8/4r3/4KB2 w - - 0 1";
    let san = "1. Kxe2 Kd8 2. Bh3";
    let v = judge_game(&Game {
        fen,
        san,
        result: "1/2-1/2",
        ..Game::default()
    });
    assert_eq!(v.termination, Some((TerminationKind::DeadPosition, 1)));
    assert_eq!(
        codes(&v),
        vec![("end.dead-position", 1), ("move.after-end", 2)]
    );
    assert!(v.findings[1].message.starts_with("2 half-move(s)"));
}

#[test]
fn king_and_bishop_against_king_is_dead_from_1993_not_in_1980() {
    // The 1993 text (Art. 19: "took effect from 1 January 1993") lists K+B v K among the
    // endings that end the game (10.4); the 1980 Laws have no such rule.
    let fen = "4k3/8/8/8/8/8/4r3/4KB2 w - - 0 1";
    for (date, dead, article) in [
        ("1985.01.01", false, None),
        ("1992.12.31", false, None),
        ("1993.01.01", true, Some("10.4")),
        ("1995.06.15", true, Some("10.4")),
        ("1998.01.01", true, Some("10.4")),
        ("2005.01.01", true, Some("9.6")),
        ("2020.01.01", true, Some("5.2.2")),
    ] {
        let v = judge_game(&Game {
            fen,
            san: "1. Kxe2",
            result: "1-0",
            date,
            ..Game::default()
        });
        assert_eq!(v.termination.is_some(), dead, "{date}");
        if dead {
            assert!(v.edition >= Edition::Fide1993);
            if date < "2001" {
                assert_eq!(v.edition, Edition::Fide1993, "{date}");
            }
            assert_eq!(v.findings[0].article, article);
            assert!(has(&v, Code::ResultMismatch));
            assert_eq!(v.lawful_result, Some(GameResult::Draw));
        } else {
            assert!(v.findings.is_empty(), "{:?}", v.findings);
        }
    }
}

#[test]
fn knight_against_knight_is_not_dead() {
    // K+N v K+N: either side can be helpmated.
    let v = judge_game(&Game {
        fen: "4k3/8/8/8/8/2n5/8/1N2K2r w - - 0 1",
        san: "1. Kf2 Rh2+ 2. Kg3 Rh1",
        result: "*",
        ..Game::default()
    });
    assert_eq!(v.termination, None);
    assert!(v.findings.is_empty(), "{:?}", v.findings);
}

#[test]
fn a_blocked_pawn_wall_is_dead_from_2001_only() {
    // After Bxd2 only bishops of opposite colours remain, each behind a locked wall.
    let fen = "2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/3q4/2B1K3 w - - 0 1";
    let v = judge_game(&Game {
        fen,
        san: "1. Bxd2 Kd7",
        result: "1-0",
        date: "2002.03.04",
        ..Game::default()
    });
    assert_eq!(v.termination, Some((TerminationKind::DeadPosition, 1)));
    assert_eq!(
        codes(&v),
        vec![
            ("end.dead-position", 1),
            ("move.after-end", 2),
            ("result.mismatch", 1)
        ]
    );
    let v = judge_game(&Game {
        fen,
        san: "1. Bxd2 Kd7",
        result: "1-0",
        date: "1999.03.04",
        ..Game::default()
    });
    assert_eq!(v.termination, None);
    assert!(v.findings.is_empty(), "{:?}", v.findings);
}

const SHUFFLE: &str = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. Nf3 Nf6 6. Ng1 Ng8 \
                       7. Nf3 Nf6 8. Ng1 Ng8 9. Nf3";

#[test]
fn threefold_claim_both_ways_and_fivefold_from_2014() {
    let v = judge_game(&Game {
        san: SHUFFLE,
        result: "1/2-1/2",
        date: "2015.01.01",
        ..Game::default()
    });
    // At ply 7 Black can write down Ng8, which makes the start position's third appearance.
    let claim = v.first_threefold_claim.unwrap();
    assert_eq!(claim.ply, 7);
    assert!(matches!(claim.way, ClaimWay::IntendedMove(_)));
    // The start position appears for the fifth time at ply 16.
    assert_eq!(v.termination, Some((TerminationKind::Fivefold, 16)));
    assert_eq!(
        codes(&v),
        vec![
            ("end.fivefold", 16),
            ("move.after-end", 17),
            ("claim.threefold", 7)
        ]
    );
    assert_eq!(v.findings[0].article, Some("9.6.1"));

    let v = judge_game(&Game {
        san: SHUFFLE,
        result: "1/2-1/2",
        date: "2010.01.01",
        ..Game::default()
    });
    assert_eq!(v.termination, None);
    assert_eq!(codes(&v), vec![("claim.threefold", 7)]);
    assert_eq!(v.findings[0].article, Some("9.2"));
}

#[test]
fn lost_castling_rights_make_positions_different() {
    // Art. 9.2.2.2: the first Ra1/Ra8 position still had castling rights.
    let v = judge_game(&Game {
        fen: "r3k3/8/8/8/8/8/8/R3K3 w Qq - 0 1",
        san: "1. Ra2 Ra7 2. Ra1 Ra8 3. Ra2 Ra7 4. Ra1 Ra8 5. Ra2 Ra7 6. Ra1",
        ..Game::default()
    });
    let claim = v.first_threefold_claim.unwrap();
    assert_eq!(claim.ply, 9, "{claim:?}");
}

#[test]
fn en_passant_rights_make_positions_different() {
    // Art. 9.2.2.1: after a2-a4 the pawn could be taken en passant; later it cannot.
    let (start, mv) = moves(
        "4k3/8/8/8/1p6/8/P7/4K3 w - - 0 1",
        "1. a4 Kd8 2. Kd1 Ke8 3. Ke1",
    );
    let mut pos = start;
    let mut keys = vec![pos.repetition_key()];
    for m in mv {
        pos.play_unchecked(m);
        keys.push(pos.repetition_key());
    }
    assert_ne!(keys[1], keys[5]);
}

#[test]
fn seventy_five_moves_end_the_game_from_2014_and_mate_takes_precedence() {
    let fen = "7k/1r6/8/8/8/8/6R1/K7 w - - 146 100";
    let san = "1. Rg3 Rb6 2. Rg2 Rb7";
    let v = judge_game(&Game {
        fen,
        san,
        result: "1/2-1/2",
        ..Game::default()
    });
    assert_eq!(v.termination, Some((TerminationKind::SeventyFiveMoves, 4)));
    assert_eq!(v.first_fifty_claim.map(|c| c.ply), Some(0));
    assert_eq!(codes(&v), vec![("end.seventy-five", 4), ("claim.fifty", 0)]);
    let v = judge_game(&Game {
        fen,
        san,
        result: "1/2-1/2",
        date: "2013.01.01",
        ..Game::default()
    });
    assert_eq!(v.termination, None);

    // The 150th half-move mates: the mate stands (Art. 9.6.2).
    let v = judge_game(&Game {
        fen: "6k1/5ppp/8/8/8/8/8/K2R4 w - - 149 100",
        san: "1. Rd8#",
        result: "1-0",
        ..Game::default()
    });
    assert!(matches!(
        v.termination,
        Some((TerminationKind::Checkmate { .. }, 1))
    ));
}

#[test]
fn fifty_move_claim_by_written_move_from_2001_only() {
    let fen = "7k/1r6/8/8/8/8/6R1/K7 w - - 99 100";
    let v = judge_game(&Game {
        fen,
        san: "1. Rg3 Rb6",
        date: "2003.01.01",
        ..Game::default()
    });
    let c = v.first_fifty_claim.unwrap();
    assert_eq!(c.ply, 0);
    assert!(matches!(c.way, ClaimWay::IntendedMove(_)));
    let v = judge_game(&Game {
        fen,
        san: "1. Rg3 Rb6",
        date: "1998.01.01",
        ..Game::default()
    });
    let c = v.first_fifty_claim.unwrap();
    assert_eq!((c.ply, c.way), (1, ClaimWay::Present));
    assert_eq!(v.findings[0].article, Some("10.12"));
}

#[test]
fn two_knights_against_pawn_get_a_hundred_moves_in_1980() {
    let fen = "8/8/8/8/3p4/3N4/k7/2K1N3 w - - 120 1";
    let v = judge_game(&Game {
        fen,
        date: "1985.01.01",
        ..Game::default()
    });
    assert_eq!(v.first_fifty_claim, None);
    // The 1993 text (10.12) has no such extension: fifty moves, unless the organisers
    // announced more.
    for date in ["1995.01.01", "2005.01.01"] {
        let v = judge_game(&Game {
            fen,
            date,
            ..Game::default()
        });
        assert_eq!(v.first_fifty_claim.map(|c| c.ply), Some(0), "{date}");
    }
}

#[test]
fn flag_fall_with_a_bare_king_is_a_draw_from_1993() {
    // 1993 Art. 10.5 and 10.14: the opponent of a bare king who oversteps the time draws;
    // under the 1980 Laws (17.1) the loss on time stands.
    let fen = "4k3/8/8/8/8/8/8/R3K3 b - - 0 1";
    for (date, draw, article) in [
        ("1985.01.01", false, None),
        ("1992.12.31", false, None),
        ("1995.06.15", true, Some("10.5, 10.14")),
        ("1998.01.01", true, Some("10.5, 10.14")),
        ("2002.01.01", true, Some("6.9")),
    ] {
        let v = judge_game(&Game {
            fen,
            san: "1... Kd7",
            result: "0-1",
            termination: Some("Time forfeit"),
            date,
            ..Game::default()
        });
        assert_eq!(has(&v, Code::ResultFlagUnwinnable), draw, "{date}");
        if draw {
            assert_eq!(v.lawful_result, Some(GameResult::Draw));
            assert_eq!(v.findings[0].article, article);
        } else {
            assert_eq!(v.lawful_result, Some(GameResult::BlackWins));
        }
    }
}

#[test]
fn flag_fall_knight_against_queen_is_a_draw_from_2001_only() {
    // Black wins on time with K+N against K+Q: a lone knight cannot mate against queens.
    let fen = "4k3/8/8/8/8/5n2/8/Q3K3 w - - 0 1";
    let v = judge_game(&Game {
        fen,
        san: "1. Kd1",
        result: "0-1",
        termination: Some("White lost on time"),
        date: "2016.01.01",
        ..Game::default()
    });
    assert_eq!(codes(&v), vec![("result.flag-unwinnable", 1)]);
    assert_eq!(v.lawful_result, Some(GameResult::Draw));
    let v = judge_game(&Game {
        fen,
        san: "1. Kd1",
        result: "0-1",
        termination: Some("White lost on time"),
        date: "1998.01.01",
        ..Game::default()
    });
    assert!(v.findings.is_empty());
    // White winning on time with the queen stands.
    let v = judge_game(&Game {
        fen,
        san: "1. Kd1",
        result: "1-0",
        termination: Some("Time forfeit"),
        ..Game::default()
    });
    assert!(v.findings.is_empty());
    assert_eq!(v.lawful_result, Some(GameResult::WhiteWins));
}

#[test]
/// The disagreement is the reader's `pgn.result-mismatch` (one code for one fact); the Laws
/// judge the tag and say nothing more about it.
fn result_tag_and_marker_disagree_is_not_reported_twice() {
    let v = judge_game(&Game {
        san: "1. e4 e5",
        result: "1-0",
        marker: Some("0-1"),
        ..Game::default()
    });
    assert_eq!(codes(&v), vec![]);
    assert_eq!(v.recorded_result, Some(GameResult::WhiteWins));
}

#[test]
fn undated_games_use_the_newest_edition_and_say_so() {
    let (start, mv) = moves(START, FOOLS_MATE);
    let input = GameInput {
        start,
        moves: &mv,
        date: Some("????.??.??"),
        result_tag: Some("0-1"),
        termination_tag: None,
        result_marker: None,
    };
    let v = judge(&input, &VerdictOptions::default());
    assert!(v.undated);
    assert_eq!(v.edition, Edition::Fide2014);
    assert_eq!(codes(&v), vec![("laws.undated", 0), ("end.checkmate", 4)]);
    let forced = VerdictOptions {
        laws: LawsChoice::Fixed(Edition::Fide1980),
        ..VerdictOptions::default()
    };
    let v = judge(&input, &forced);
    assert!(!v.undated);
    assert_eq!(v.findings[0].article, Some("11.1"));
}

/// Real games with many repetitions (the sunfish threefold file and the TCEC superfinals):
/// the cheap key walk gives `Position::repetition_key` and the move count on every ply, and
/// the verdict is the same whether or not the caller hands over the final position.
#[test]
fn key_walk_follows_full_positions_on_corpus_games() {
    use arbiter::chess::zobrist::en_passant_key;
    use arbiter::game::keys::Keys;
    let Some(dir) = common::corpus() else {
        return;
    };
    let mut files = vec![dir.join("draw-rules/sunfish-3fold.pgn")];
    for season in 4..=7 {
        files.push(
            dir.join("games/engine-tcec")
                .join(format!("TCEC_Season_{season}_-_Superfinal.pgn")),
        );
    }
    let mut plies = 0;
    let mut ep_plies = 0;
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        for game in arbiter::pgn::parse_all(&bytes).0 {
            let r = arbiter::game::replay(&game, SanMode::Lenient);
            assert!(r.complete, "{}: game {}", path.display(), game.game_number);
            let mut pos = r.start;
            let mut keys = Keys::new(&pos);
            for &m in &r.moves {
                let zeroing = pos.is_zeroing(m);
                pos.play_unchecked(m);
                assert_eq!(keys.play(m), zeroing);
                assert_eq!(keys.halfmove_clock(), pos.halfmove_clock());
                assert_eq!(keys.turn(), pos.turn());
                let exact = pos.repetition_key();
                if keys.ep_pending() {
                    ep_plies += 1;
                    let ep = pos.ep_square().expect("an en passant square");
                    assert!(
                        [
                            keys.plain_key(),
                            keys.plain_key() ^ en_passant_key(ep.file())
                        ]
                        .contains(&exact)
                    );
                } else {
                    assert_eq!(keys.plain_key(), exact, "game {}", game.game_number);
                }
                plies += 1;
            }
            assert_eq!(pos, r.final_position());
            let input = arbiter::pipeline::work::verdict_input(&game, &r);
            let options = VerdictOptions::default();
            assert_eq!(
                judge_replayed(&input, &r.final_position(), &options),
                judge(&input, &options),
                "game {}",
                game.game_number
            );
        }
    }
    assert!(plies > 80_000, "{plies} plies");
    assert!(ep_plies > 0);
}
