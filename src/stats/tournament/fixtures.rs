//! The tie-breaks on hand-built fixtures (`testdata/tournaments/`), with the arithmetic from the
//! regulations written next to each expected value, and on two generated tournaments whose
//! expected values are FIDE's reference program's output (TieBreakServer, run once and kept as
//! `.tsv` beside them).

use super::model::Kind;
use super::standings;
use super::tiebreaks::{self, Context, Rules, Spec};
use super::trf;
use super::{Standings, Tournament};

/// The T2 round robin of `shared/ratings` (fixture T2 of its README), read beside the corpus
/// (`ARBITER_CORPUS/../ratings/rr6.trf`) rather than copied into the repository; None, with a
/// SKIPPED line, when ARBITER_CORPUS is unset.
pub(super) fn rr6() -> Option<String> {
    use std::io::Write;
    let Some(dir) = std::env::var_os("ARBITER_CORPUS") else {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: the T2 fixture (shared/ratings/rr6.trf): ARBITER_CORPUS is not set"
        );
        return None;
    };
    let path = std::path::Path::new(&dir).join("../ratings/rr6.trf");
    Some(std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}
const RR5: &str = include_str!("../../../testdata/tournaments/rr5.trf");
const SWISS7: &str = include_str!("../../../testdata/tournaments/swiss7.trf");

fn read(text: &str) -> Tournament {
    trf::read(text).expect("fixture reads").tournament
}

/// Values of one tie-break by start number order (players are listed by start number).
fn values(t: &Tournament, spec: &str, rules: Rules) -> Vec<f64> {
    let spec = Spec::parse(spec).unwrap();
    let ctx = Context {
        t,
        rules,
        kind: t.kind(),
        unrated: None,
    };
    let ranks = vec![1; t.players.len()];
    tiebreaks::compute(&spec, &ctx, &ranks)
        .into_iter()
        .map(|v| v.unwrap_or(f64::NAN))
        .collect()
}

fn standings_of(t: &Tournament, list: &str, rules: Rules) -> Standings {
    standings::compute(t, &Spec::parse_list(list).unwrap(), rules, t.kind(), None)
}

// ---- T2: the six-player round robin of shared/ratings (README fixture T2) ----

#[test]
fn t2_round_robin_sonneborn_berger_and_koya() {
    let Some(rr6) = rr6() else { return };
    let t = read(&rr6);
    assert_eq!(t.kind(), Kind::RoundRobin);
    // SB of player 1: beat 6 (1.0), drew 2 (½·3.0), beat 3 (3.0), lost to 4, beat 5 (2.0):
    // 1.0 + 1.5 + 3.0 + 0 + 2.0 = 7.5.
    assert_eq!(
        values(&t, "SB", Rules::R2026),
        [7.5, 6.75, 6.5, 5.5, 4.75, 2.5]
    );
    // Koya: opponents with at least 50 % (2.5 of 5): players 1, 2, 3, 4. Player 2 scored
    // ½ (1) + ½ (3) + 1 (4) = 2.0 against them.
    assert_eq!(
        values(&t, "KS", Rules::R2026),
        [1.5, 2.0, 1.5, 1.0, 1.5, 0.5]
    );
}

// ---- A Swiss of seven over four rounds with every kind of unplayed round ----
//
// R1: 1-4 1-0, 5-2 ½, 3-6 1-0, 7 PAB (U).
// R2: 1-3 ½, 7-2 0-1, 4-6 forfeit (6, Black, does not come: 4 +, 6 -), 5 zero-point bye (Z).
// R3: 2-1 0-1, 3-4 ½, 5 half-point bye (H), 6 PAB (U), 7 withdrawn (absent R3 and R4).
// R4: 3-1 forfeit (3, White, does not come: 3 -, 1 +), 2-4 1-0, 5-6 0-1.
// Final: 1: 3.5, 2: 2.5, 3: 2.0, 4: 1.5, 5: 1.0, 6: 2.0, 7: 1.0.
//
// Scores lent to opponents (Art. 16.3): a participant's VURs after his last round that was
// not a VUR count as draws. Only player 7 has such rounds (R3, R4 absent after R2):
// 1 + 0 + ½ + ½ = 2.0. Everyone else lends his real score.

#[test]
fn swiss7_scores_lent_to_opponents() {
    let t = read(SWISS7);
    let ctx = Context {
        t: &t,
        rules: Rules::R2024,
        kind: Kind::Swiss,
        unrated: None,
    };
    let lent: Vec<f64> = tiebreaks::buchholz::lent_scores(&ctx)
        .into_iter()
        .map(|p| p.as_f64())
        .collect();
    assert_eq!(lent, [3.5, 2.5, 2.0, 1.5, 1.0, 2.0, 2.0]);
}

#[test]
fn swiss7_buchholz_2024_and_2026() {
    let t = read(SWISS7);
    // 2024 (Art. 16.4: an unplayed round's dummy opponent has the player's own score):
    // P1: 4 (1.5) + 3 (2.0) + 2 (2.5) + dummy for the forfeit win 3.5 = 9.5
    // P2: 1.0 + 2.0 + 3.5 + 1.5 = 8.0
    // P3: 2.0 + 3.5 + 1.5 + dummy 2.0 = 9.0
    // P4: 3.5 + dummy 1.5 + 2.0 + 2.5 = 9.5
    // P5: 2.5 + dummy 1.0 (Z) + dummy 1.0 (H) + 2.0 = 6.5
    // P6: 2.0 + dummy 2.0 (forfeit loss) + dummy 2.0 (PAB) + 1.0 = 7.0
    // P7: dummy 1.0 (PAB) + 2.5 + dummy 1.0 + dummy 1.0 = 5.5
    assert_eq!(
        values(&t, "BH", Rules::R2024),
        [9.5, 8.0, 9.0, 9.5, 6.5, 7.0, 5.5]
    );
    // 2026 (Art. 16.4.1/16.4.2): the dummy is capped by the forfeiting opponent's lent score,
    // else by 50 % of the maximum (2.0):
    // P1: R4 dummy min(3.5, lent of 3 = 2.0) = 2.0 → 8.0
    // P6: R2 dummy min(2.0, lent of 4 = 1.5) = 1.5, PAB min(2.0, 2.0) → 6.5
    // P3: R4 min(2.0, lent of 1 = 3.5) = 2.0, unchanged; P4: R2 min(1.5, 2.0), unchanged.
    assert_eq!(
        values(&t, "BH", Rules::R2026),
        [8.0, 8.0, 9.0, 9.5, 6.5, 6.5, 5.5]
    );
}

#[test]
fn swiss7_buchholz_cuts_take_vurs_first() {
    let t = read(SWISS7);
    // BH-C1, 2024. P1 cuts 1.5 → 8.0. P3's least value is 1.5 (a game), but its forfeit loss
    // is a VUR (dummy 2.0) and goes first (Art. 16) → 9.0 − 2.0 = 7.0. P5 cuts the zero-point
    // bye (1.0) → 5.5. P6 cuts the forfeit loss's dummy (2.0), not its 1.0 → 5.0. P7 cuts a
    // withdrawn round (1.0) → 4.5.
    assert_eq!(
        values(&t, "BH-C1", Rules::R2024),
        [8.0, 7.0, 7.0, 8.0, 5.5, 5.0, 4.5]
    );
    assert_eq!(
        values(&t, "BH/C1", Rules::R2026),
        [6.5, 7.0, 7.0, 8.0, 5.5, 5.0, 4.5]
    );
    // Median-1 cuts the least and the most significant: P1 (2024) 9.5 − 1.5 − 3.5 = 4.5.
    assert_eq!(
        values(&t, "BH-M1", Rules::R2024),
        [4.5, 3.5, 3.5, 4.5, 3.0, 3.0, 2.0]
    );
    assert_eq!(
        values(&t, "BH-C2", Rules::R2024),
        [6.0, 5.5, 5.5, 6.0, 4.5, 4.0, 3.5]
    );
}

#[test]
fn swiss7_sonneborn_berger_2024_and_2026() {
    let t = read(SWISS7);
    // SB = Σ (opponent's or dummy's score × own points of the round).
    // P1: 1.5·1 + 2.0·½ + 2.5·1 + dummy 3.5·1 (forfeit win) = 8.5; 2026 dummy 2.0 → 7.0.
    // P3: 2.0·1 + 3.5·½ + 1.5·½ + dummy·0 = 4.5.
    // P5: 2.5·½ + dummy·0 (Z) + 1.0·½ (H) + 0 = 1.75.
    // P6: 0 + 0 + dummy 2.0·1 (PAB) + 1.0·1 = 3.0.
    assert_eq!(
        values(&t, "SB", Rules::R2024),
        [8.5, 4.0, 4.5, 2.5, 1.75, 3.0, 1.0]
    );
    assert_eq!(
        values(&t, "SB", Rules::R2026),
        [7.0, 4.0, 4.5, 2.5, 1.75, 3.0, 1.0]
    );
    // SB-C1 removes the round against the lowest-scored opponent: P1 (2024) the 1.5 of R1
    // → 7.0; P3's VUR (worth 0) goes first → 4.5 stays.
    assert_eq!(
        values(&t, "SB-C1", Rules::R2024),
        [7.0, 3.5, 3.75, 1.0, 1.75, 2.0, 1.0]
    );
}

#[test]
fn swiss7_fore_buchholz_and_average_of_opponents_buchholz() {
    let t = read(SWISS7);
    // FB: everybody's last round, when it had an opponent, becomes a draw (Art. 8.2). Lent
    // scores: 1: 3.0, 2: 2.0, 3: 2.5, 4: 2.0, 5: 1.5, 6: 1.5, 7: 2.0 (no round 4). P1's last
    // round counts as played: 2.0 + 2.5 + 2.0 + 2.5 = 9.0.
    assert_eq!(
        values(&t, "FB", Rules::R2024),
        [9.0, 8.5, 9.5, 9.5, 6.5, 7.0, 5.0]
    );
    // AOB: P1's games (the forfeit left out) were against 4, 3, 2: (9.5 + 9.0 + 8.0) / 3.
    assert_eq!(
        values(&t, "AOB", Rules::R2024),
        [8.83, 7.75, 8.67, 8.83, 7.5, 7.75, 8.0]
    );
}

#[test]
fn swiss7_counts_and_progressive() {
    let t = read(SWISS7);
    // WIN counts the forfeit win (P1, P4) and the PAB (P6, P7); WON only games.
    assert_eq!(
        values(&t, "WIN", Rules::R2024),
        [3., 2., 1., 1., 0., 2., 1.]
    );
    assert_eq!(
        values(&t, "WON", Rules::R2024),
        [2., 2., 1., 0., 0., 1., 0.]
    );
    assert_eq!(
        values(&t, "BPG", Rules::R2024),
        [1., 2., 1., 3., 0., 2., 0.]
    );
    assert_eq!(
        values(&t, "BWG", Rules::R2024),
        [1., 1., 0., 0., 0., 1., 0.]
    );
    // GE: rounds less the VURs (H, Z, forfeit losses, absences).
    assert_eq!(values(&t, "GE", Rules::R2024), [4., 4., 3., 4., 2., 3., 2.]);
    assert_eq!(
        values(&t, "REP", Rules::R2024),
        [4., 4., 3., 4., 2., 3., 2.]
    );
    // PS of P1: 1 + 1.5 + 2.5 + 3.5 = 8.5; PS-C1 drops the first round's 1 → 7.5.
    assert_eq!(
        values(&t, "PS", Rules::R2024),
        [8.5, 6.0, 6.5, 4.0, 3.0, 3.0, 4.0]
    );
    assert_eq!(
        values(&t, "PS-C1", Rules::R2024),
        [7.5, 5.5, 5.5, 4.0, 2.5, 3.0, 3.0]
    );
}

#[test]
fn swiss7_rating_based() {
    let t = read(SWISS7);
    // Only games over the board: P1 met 4 (2050), 3 (2100), 2 (2150): ARO 2100; 2½ of 3
    // → p = 0.83 → dp 273 → TPR 2373.
    assert_eq!(
        values(&t, "ARO", Rules::R2024),
        [2100., 2038., 2067., 2150., 2050., 2050., 2150.]
    );
    assert_eq!(
        values(&t, "TPR", Rules::R2024),
        [2373., 2133., 2192., 1877., 1857., 2050., 1350.]
    );
    assert_eq!(
        values(&t, "PTP", Rules::R2024),
        [2379., 2134., 2196., 1872., 1844., 2047., 1350.]
    );
    assert_eq!(
        values(&t, "APRO", Rules::R2024),
        [2067., 1864., 2100., 2233., 2092., 2025., 2133.]
    );
    assert_eq!(
        values(&t, "APPO", Rules::R2024),
        [2067., 1861., 2099., 2236., 2091., 2020., 2134.]
    );
    // ARO-C1 drops the lowest-rated opponent: P1 (2100 + 2150) / 2 = 2125.
    assert_eq!(values(&t, "ARO-C1", Rules::R2024)[0], 2125.);
}

#[test]
fn swiss7_direct_encounter_and_standings() {
    let t = read(SWISS7);
    // Tied on 2.0: players 3 and 6; 3 beat 6 in round 1. Tied on 1.0: 5 and 7, who never
    // met: 0 each (Art. 6.2: neither can be separated).
    let s = standings_of(&t, "DE", Rules::R2024);
    let de: Vec<(u32, Option<f64>)> = s
        .rows
        .iter()
        .map(|r| (t.players[r.player].sno, r.values[0]))
        .collect();
    assert_eq!(
        de,
        [
            (1, Some(0.)),
            (2, Some(0.)),
            (3, Some(1.)),
            (6, Some(2.)),
            (4, Some(0.)),
            (5, Some(0.)),
            (7, Some(0.))
        ]
    );
    assert_eq!(
        s.rows.iter().map(|r| r.rank).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5, 6, 6]
    );
    // With BH-C1 first, 5 and 7 are separated: 5.5 against 4.5.
    let s = standings_of(&t, "BH-C1,BH,DE", Rules::R2024);
    assert_eq!(
        s.rows.iter().map(|r| r.rank).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5, 6, 7]
    );
}

// ---- A round robin of five (a bye each round) with a forfeit ----
//
// R1: 2-5 1-0, 3-4 ½ (1 bye). R2: 5-3 0-1, 1-2 ½ (4 bye). R3: 3-1 0-1, 4-5 forfeit, 5 does
// not come (2 bye). R4: 1-4 1-0, 2-3 ½ (5 bye). R5: 4-2 0-1, 5-1 ½ (3 bye).
// Final: 1: 3.0, 2: 3.0, 3: 2.0, 4: 1.5, 5: 0.5.

#[test]
fn rr5_forfeit_counts_as_played_and_byes_count_nothing() {
    let t = read(RR5);
    assert_eq!(t.kind(), Kind::RoundRobin);
    // SB of P4: drew 3 (½·2.0), beat 5 by forfeit (counts as played, Art. 16: 0.5), lost
    // to 1 and 2: 1.0 + 0.5 = 1.5. P1: ½·3.0 + 2.0 + 1.5 + ½·0.5 = 5.25.
    assert_eq!(values(&t, "SB", Rules::R2024), [5.25, 4.5, 2.75, 1.5, 1.5]);
    // BH: in a round robin the bye round counts nothing; P1 met 2, 3, 4, 5: 3 + 2 + 1.5 + 0.5.
    assert_eq!(values(&t, "BH", Rules::R2026), [7.0, 7.0, 8.0, 8.5, 9.5]);
    // Koya: five players, a bye each: 4 games, 50 % = 2.0: opponents 1, 2, 3 qualify.
    assert_eq!(values(&t, "KS", Rules::R2024), [1.5, 1.0, 0.5, 0.5, 0.5]);
    // 1 and 2 drew: DE cannot separate them.
    let s = standings_of(&t, "DE,SB,WIN,KS", Rules::R2024);
    assert_eq!(s.rows[0].values[0], Some(0.));
    assert_eq!(t.players[s.rows[0].player].sno, 1);
    // No dummy opponents in a round robin: the 2024 and 2026 texts agree.
    assert_eq!(
        values(&t, "SB", Rules::R2026),
        values(&t, "SB", Rules::R2024)
    );
}

// ---- Generated tournaments checked against FIDE's reference program ----

/// Compares every column of a TieBreakServer table (`StartNo Rank PTS tb…`, tab separated)
/// with ours; its `-0` means no value.
fn check_against_reference(trf_text: &str, tsv: &str, rules: Rules) {
    let t = read(trf_text);
    let mut lines = tsv.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let names: Vec<String> = header[3..]
        .iter()
        .map(|h| {
            // TieBreakServer's `BH/C1/V2024` is our `BH/C1` under --rules 2024.
            h.split('/')
                .filter(|part| !part.starts_with('V'))
                .collect::<Vec<_>>()
                .join("/")
        })
        .collect();
    let specs: Vec<Spec> = names.iter().map(|n| Spec::parse(n).unwrap()).collect();
    // FB is last in the reference's list: it changes state that later tie-breaks read.
    let s = standings::compute(&t, &specs, rules, t.kind(), None);
    let mut checked = 0;
    for line in lines {
        let cells: Vec<&str> = line.split('\t').collect();
        let sno: u32 = cells[0].parse().unwrap();
        let row = s
            .rows
            .iter()
            .find(|r| t.players[r.player].sno == sno)
            .unwrap();
        assert_eq!(row.rank.to_string(), cells[1], "rank of {sno}");
        assert_eq!(row.points.as_f64(), cells[2].parse::<f64>().unwrap());
        for (k, cell) in cells[3..].iter().enumerate() {
            let expected = if *cell == "-0" {
                None
            } else {
                Some(cell.parse::<f64>().unwrap())
            };
            assert_eq!(row.values[k], expected, "{} of {sno}", names[k]);
            checked += 1;
        }
    }
    assert!(checked > 100);
}

#[test]
fn generated_swiss_matches_the_reference_program() {
    let trf_text = include_str!("../../../testdata/tournaments/generated_swiss24.trf");
    check_against_reference(
        trf_text,
        include_str!("../../../testdata/tournaments/generated_swiss24.tbs2024.tsv"),
        Rules::R2024,
    );
    check_against_reference(
        trf_text,
        include_str!("../../../testdata/tournaments/generated_swiss24.tbs2026.tsv"),
        Rules::R2026,
    );
}

#[test]
fn generated_round_robin_matches_the_reference_program() {
    let trf_text = include_str!("../../../testdata/tournaments/generated_rr9.trf");
    check_against_reference(
        trf_text,
        include_str!("../../../testdata/tournaments/generated_rr9.tbs2024.tsv"),
        Rules::R2024,
    );
    check_against_reference(
        trf_text,
        include_str!("../../../testdata/tournaments/generated_rr9.tbs2026.tsv"),
        Rules::R2026,
    );
}

#[test]
fn every_fixture_reads_back_from_what_we_write() {
    for text in [
        RR5,
        SWISS7,
        include_str!("../../../testdata/tournaments/generated_swiss24.trf"),
    ] {
        let first = read(text);
        let written = trf::write(&first, None);
        let second = read(&written);
        assert_eq!(first.players.len(), second.players.len());
        for (a, b) in first.players.iter().zip(&second.players) {
            assert_eq!(
                (a.sno, &a.name, a.rating, &a.rounds),
                (b.sno, &b.name, b.rating, &b.rounds)
            );
        }
        assert_eq!(trf::write(&second, None), written);
        let specs = tiebreaks::registry::default_list(first.kind() == Kind::RoundRobin);
        let s1 = standings::compute(&first, &specs, Rules::R2026, first.kind(), None);
        let s2 = standings::compute(&second, &specs, Rules::R2026, second.kind(), None);
        assert_eq!(s1.rows, s2.rows);
    }
}
