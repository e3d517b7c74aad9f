//! lichess's rules for labelling moves and scoring accuracy, reimplemented from their public
//! description and lila's source (`modules/tree` `Advice.scala` and `WinPercent.scala`,
//! `modules/analyse` `AccuracyPercent.scala`; docs/ANALYSIS.md cites each rule). Pure
//! arithmetic on evaluations: which engine made them, and on which scale, is the caller's
//! business (`search::analysis` maps arbiter's centipawns onto normalised Stockfish's first).

/// An evaluation from one side's point of view, on normalised Stockfish's scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Eval {
    Cp(i32),
    /// `n > 0`: this side mates in n; `n < 0`: it is mated in |n|. `Mate(0)` only after a
    /// move, from the mover's side: the move gave checkmate.
    Mate(i32),
}

impl Eval {
    /// The same evaluation from the other side.
    pub fn flip(self) -> Eval {
        match self {
            Eval::Cp(cp) => Eval::Cp(-cp),
            Eval::Mate(n) => Eval::Mate(-n),
        }
    }

    fn cp(self) -> Option<i32> {
        match self {
            Eval::Cp(cp) => Some(cp),
            Eval::Mate(_) => None,
        }
    }

    fn mate(self) -> Option<i32> {
        match self {
            Eval::Mate(n) => Some(n),
            Eval::Cp(_) => None,
        }
    }

    /// Centipawns for Win%: clamped to ±`CP_CEILING`, a mate counted as ±`CP_CEILING`
    /// (a given mate as a win).
    pub fn ceiled_cp(self) -> i32 {
        match self {
            Eval::Cp(cp) => cp.clamp(-CP_CEILING, CP_CEILING),
            Eval::Mate(n) if n < 0 => -CP_CEILING,
            Eval::Mate(_) => CP_CEILING,
        }
    }
}

/// Centipawns clamp of Win% and what a mate counts as.
pub const CP_CEILING: i32 = 1000;
/// The logistic constant of winning chances (lila pull request 11148).
pub const WC_MULTIPLIER: f64 = 0.003_682_08;
/// Drops of winning chances (−1..1) that make a blunder, a mistake, an inaccuracy: 15, 10 and
/// 5 points of Win%.
pub const WC_DROPS: [(f64, Label); 3] = [
    (0.3, Label::Blunder),
    (0.2, Label::Mistake),
    (0.1, Label::Inaccuracy),
];
/// lichess's evaluation of the start position, where every game's first move is judged from.
pub const INITIAL_CP: i32 = 15;

/// A move's label.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Label {
    Inaccuracy,
    Mistake,
    Blunder,
}

/// Why a move got its label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// The mover's winning chances fell by at least the label's drop.
    Drop,
    /// The move let the opponent force mate ("Checkmate is now unavoidable").
    MateCreated,
    /// The mover had a forced mate and no longer has one ("Lost forced checkmate sequence").
    MateLost,
}

/// Winning chances of a centipawn score, −1..1. Not clamped: labels use the raw centipawns
/// (lila's `CpAdvice`), Win% the ceiled ones.
pub fn winning_chances(cp: i32) -> f64 {
    (2.0 / (1.0 + (-WC_MULTIPLIER * f64::from(cp)).exp()) - 1.0).clamp(-1.0, 1.0)
}

/// Win% of an evaluation: 50 + 50·wc, on centipawns clamped to ±1000, a mate ±1000.
pub fn win_percent(eval: Eval) -> f64 {
    50.0 + 50.0 * winning_chances(eval.ceiled_cp())
}

/// The label lichess gives a move, from the mover's evaluation before it and after it (both
/// from the mover's side). `best_played`: the move is the engine's best move, which is never
/// labelled (lichess sends no variation then, and only moves with one are judged).
pub fn label(before: Eval, after: Eval, best_played: bool) -> Option<(Label, Reason)> {
    if best_played {
        return None;
    }
    cp_label(before, after).or_else(|| mate_label(before, after))
}

fn cp_label(before: Eval, after: Eval) -> Option<(Label, Reason)> {
    let (b, a) = (before.cp()?, after.cp()?);
    let drop = winning_chances(b) - winning_chances(a);
    WC_DROPS
        .iter()
        .find(|(d, _)| *d <= drop)
        .map(|&(_, l)| (l, Reason::Drop))
}

fn mate_label(before: Eval, after: Eval) -> Option<(Label, Reason)> {
    let (pm, nm) = (before.mate(), after.mate());
    // Centipawns of a mate are 0 here, as in lila (`.so(_.centipawns)`).
    let (prev_cp, next_cp) = (before.cp().unwrap_or(0), after.cp().unwrap_or(0));
    let reason = match (pm, nm) {
        (None, Some(n)) if n < 0 => Reason::MateCreated,
        (Some(p), None) if p > 0 => Reason::MateLost,
        (Some(p), Some(n)) if p > 0 && n < 0 => Reason::MateLost,
        _ => return None,
    };
    let label = match reason {
        Reason::MateCreated if prev_cp < -999 => Label::Inaccuracy,
        Reason::MateCreated if prev_cp < -700 => Label::Mistake,
        Reason::MateLost if next_cp > 999 => Label::Inaccuracy,
        Reason::MateLost if next_cp > 700 => Label::Mistake,
        _ => Label::Blunder,
    };
    Some((label, reason))
}

/// Accuracy of one move from the mover's Win% before and after it: 100 when nothing was lost,
/// else 103.1668·e^(−0.04354·loss) − 3.1669 + 1 (lila's "uncertainty bonus"), in 0..100.
pub fn move_accuracy(win_before: f64, win_after: f64) -> f64 {
    if win_after >= win_before {
        return 100.0;
    }
    let loss = win_before - win_after;
    (103.166_810_071_164_9 * (-0.043_544_153_867_539_51 * loss).exp() - 3.166_924_740_191_411 + 1.0)
        .clamp(0.0, 100.0)
}

/// Game accuracy of White and Black: per side, the mean of the volatility-weighted mean and
/// the harmonic mean of its move accuracies. `white_cp` holds White's ceiled centipawns of
/// every position, start first (lichess starts from `INITIAL_CP`); `white_first` says who made
/// the first move. A move's weight is the population standard deviation of Win% over a
/// window of positions (size moves/10 in 2..8; the first moves reuse the opening window),
/// clamped to 0.5..12; the harmonic mean reads accuracies below 1 as 1. `None` for a side
/// without a move.
pub fn game_accuracy(white_cp: &[i32], white_first: bool) -> [Option<f64>; 2] {
    game_accuracy_of(white_cp, white_first, |_| true)
}

/// `game_accuracy` over the moves `counted` accepts (by 0-based move index), each weighted by
/// its window in the whole game: a phase's accuracy (`search::phase`).
pub fn game_accuracy_of(
    white_cp: &[i32],
    white_first: bool,
    counted: impl Fn(usize) -> bool,
) -> [Option<f64>; 2] {
    let win: Vec<f64> = white_cp
        .iter()
        .map(|&cp| win_percent(Eval::Cp(cp)))
        .collect();
    let n_moves = win.len().saturating_sub(1);
    if n_moves == 0 {
        return [None, None];
    }
    let window = (n_moves / 10).clamp(2, 8);
    let first = &win[..window.min(win.len())];
    let repeats = window.min(win.len()) - 2;
    let sliding: Vec<&[f64]> = if win.len() >= window {
        win.windows(window).collect()
    } else {
        vec![&win[..]]
    };
    let weights = std::iter::repeat_n(first, repeats)
        .chain(sliding)
        .map(|xs| std_dev(xs).clamp(0.5, 12.0));
    // Per side: Σ accuracy·weight, Σ weight, Σ 1/max(1, accuracy), count.
    let mut sums = [[0.0f64; 3]; 2];
    let mut counts = [0usize; 2];
    for (i, (pair, weight)) in win.windows(2).zip(weights).enumerate() {
        if !counted(i) {
            continue;
        }
        let white_moves = (i % 2 == 0) == white_first;
        let (side, before, after) = if white_moves {
            (0, pair[0], pair[1])
        } else {
            (1, 100.0 - pair[0], 100.0 - pair[1])
        };
        let accuracy = move_accuracy(before, after);
        sums[side][0] += accuracy * weight;
        sums[side][1] += weight;
        sums[side][2] += 1.0 / accuracy.max(1.0);
        counts[side] += 1;
    }
    [0, 1].map(|side| {
        let [weighted, weight, inverse] = sums[side];
        (counts[side] > 0 && weight > 0.0)
            .then(|| (weighted / weight + counts[side] as f64 / inverse) / 2.0)
    })
}

/// Average centipawn loss of White and Black, as lila's `AccuracyCP` computes it: per move of
/// the side, how far its centipawns fell (both positions ceiled to ±`CP_CEILING`, a mate
/// counted as ±`CP_CEILING`), at least 0; the mean over the side's moves whose two positions
/// are evaluated, rounded. `white_cp` holds White's centipawns of every position, start first
/// (`None`: not evaluated); `white_first` says who made the first move. `None` for a side
/// without an evaluated move.
pub fn acpl(white_cp: &[Option<i32>], white_first: bool) -> [Option<u32>; 2] {
    acpl_of(white_cp, white_first, |_| true)
}

/// `acpl` over the moves `counted` accepts (by 0-based move index): a phase's.
pub fn acpl_of(
    white_cp: &[Option<i32>],
    white_first: bool,
    counted: impl Fn(usize) -> bool,
) -> [Option<u32>; 2] {
    let mut sums = [(0i64, 0i64); 2];
    for (i, pair) in white_cp.windows(2).enumerate() {
        let (true, Some(before), Some(after)) = (counted(i), pair[0], pair[1]) else {
            continue;
        };
        let [before, after] = [before, after].map(|cp| cp.clamp(-CP_CEILING, CP_CEILING));
        let white_moves = (i % 2 == 0) == white_first;
        let (side, loss) = if white_moves {
            (0, before - after)
        } else {
            (1, after - before)
        };
        sums[side].0 += i64::from(loss.max(0));
        sums[side].1 += 1;
    }
    sums.map(|(loss, moves)| (moves > 0).then(|| (loss as f64 / moves as f64).round() as u32))
}

/// White's centipawns of every position of a game of `plies` plies from its stored
/// evaluations (`evaluations`: ply, White's score; `Mate(0)` a checkmate on the board,
/// against the side to move), as lichess's ACPL reads them: a mate is ±`CP_CEILING`, and a
/// game from the standard start begins at `INITIAL_CP`; `None` where a position was not
/// evaluated.
pub fn stored_curve(
    evals: impl IntoIterator<Item = (u32, super::Score)>,
    plies: usize,
    white_first: bool,
    standard_start: bool,
) -> Vec<Option<i32>> {
    use super::Score;
    let mut curve = vec![None; plies + 1];
    for (ply, score) in evals {
        let white_to_move = (ply % 2 == 0) == white_first;
        let cp = match score {
            Score::Cp(cp) => cp,
            Score::Mate(0) if white_to_move => -CP_CEILING,
            Score::Mate(n) if n < 0 => -CP_CEILING,
            Score::Mate(_) => CP_CEILING,
        };
        if let Some(slot) = curve.get_mut(ply as usize) {
            *slot = Some(cp);
        }
    }
    if standard_start && curve[0].is_some() {
        curve[0] = Some(INITIAL_CP);
    }
    curve
}

/// `acpl` of a game from its stored evaluations (`stored_curve`). The export's
/// `white_acpl`/`black_acpl` and the players' summaries both read it.
pub fn stored_acpl(
    evals: impl IntoIterator<Item = (u32, super::Score)>,
    plies: usize,
    white_first: bool,
    standard_start: bool,
) -> [Option<u32>; 2] {
    acpl(
        &stored_curve(evals, plies, white_first, standard_start),
        white_first,
    )
}

/// A game's accuracy as it is shown and exported: one decimal. A player's mean accuracy is
/// the mean of these, so it equals the mean of the exported column.
pub fn shown_accuracy(accuracy: f64) -> f64 {
    (accuracy * 10.0).round() / 10.0
}

fn std_dev(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6
    }

    #[test]
    fn win_percent_matches_hand_computed_values() {
        assert!(close(win_percent(Eval::Cp(0)), 50.0));
        // 50 + 50·(2/(1+e^−0.368208) − 1) = 59.1022…
        assert!((win_percent(Eval::Cp(100)) - 59.102_2).abs() < 1e-3);
        assert!(close(
            win_percent(Eval::Cp(-100)),
            100.0 - win_percent(Eval::Cp(100))
        ));
        // The clamp: 1000 and 5000 centipawns, and a mate, are the same Win%.
        let top = win_percent(Eval::Cp(1000));
        assert!((top - 97.5447).abs() < 1e-3, "{top}");
        assert!(close(win_percent(Eval::Cp(5000)), top));
        assert!(close(win_percent(Eval::Mate(7)), top));
        assert!(close(win_percent(Eval::Mate(0)), top));
        assert!(close(win_percent(Eval::Mate(-1)), 100.0 - top));
    }

    #[test]
    fn drops_of_15_10_and_5_points_make_the_labels() {
        // 0 → −100 cp: Win% 50 → 40.9, a drop of 9.1 points: an inaccuracy.
        assert_eq!(
            label(Eval::Cp(0), Eval::Cp(-100), false),
            Some((Label::Inaccuracy, Reason::Drop))
        );
        // 0 → −111: 10.08 points, a mistake (−110: 9.99, still an inaccuracy); 0 → −170:
        // 15.2, a blunder.
        assert_eq!(
            label(Eval::Cp(0), Eval::Cp(-110), false),
            Some((Label::Inaccuracy, Reason::Drop))
        );
        assert_eq!(
            label(Eval::Cp(0), Eval::Cp(-111), false),
            Some((Label::Mistake, Reason::Drop))
        );
        assert_eq!(
            label(Eval::Cp(0), Eval::Cp(-170), false),
            Some((Label::Blunder, Reason::Drop))
        );
        // 0 → −54: 4.95 points, nothing.
        assert_eq!(label(Eval::Cp(0), Eval::Cp(-54), false), None);
        assert_eq!(
            label(Eval::Cp(0), Eval::Cp(-55), false),
            Some((Label::Inaccuracy, Reason::Drop))
        );
    }

    #[test]
    fn the_best_move_is_never_labelled_whatever_the_drop() {
        assert_eq!(label(Eval::Cp(300), Eval::Cp(-900), true), None);
        assert_eq!(label(Eval::Mate(2), Eval::Mate(-3), true), None);
    }

    #[test]
    fn labels_use_raw_centipawns_but_win_percent_the_clamped_ones() {
        // 2000 → 1200 cp: both beyond the clamp, so no Win% is lost…
        assert!(close(
            win_percent(Eval::Cp(2000)),
            win_percent(Eval::Cp(1200))
        ));
        // …but the raw winning chances lose 0.023, no label either. 3000 → 590 loses 0.204
        // raw (a mistake), where clamped centipawns would lose 0.155 (an inaccuracy).
        assert_eq!(label(Eval::Cp(2000), Eval::Cp(1200), false), None);
        assert_eq!(
            label(Eval::Cp(3000), Eval::Cp(590), false),
            Some((Label::Mistake, Reason::Drop))
        );
    }

    #[test]
    fn allowing_a_mate_is_labelled_by_how_lost_the_mover_already_was() {
        let created = |cp| label(Eval::Cp(cp), Eval::Mate(-4), false);
        assert_eq!(created(50), Some((Label::Blunder, Reason::MateCreated)));
        assert_eq!(created(-701), Some((Label::Mistake, Reason::MateCreated)));
        assert_eq!(
            created(-1000),
            Some((Label::Inaccuracy, Reason::MateCreated))
        );
        // Already being mated: a longer mate is no new label.
        assert_eq!(label(Eval::Mate(-3), Eval::Mate(-2), false), None);
    }

    #[test]
    fn losing_a_forced_mate_is_labelled_by_what_is_left() {
        let lost = |after| label(Eval::Mate(3), after, false);
        assert_eq!(
            lost(Eval::Cp(1200)),
            Some((Label::Inaccuracy, Reason::MateLost))
        );
        assert_eq!(
            lost(Eval::Cp(800)),
            Some((Label::Mistake, Reason::MateLost))
        );
        assert_eq!(
            lost(Eval::Cp(100)),
            Some((Label::Blunder, Reason::MateLost))
        );
        // Turning a mate for into a mate against: a blunder.
        assert_eq!(
            lost(Eval::Mate(-1)),
            Some((Label::Blunder, Reason::MateLost))
        );
        // A slower mate, or the mate given, is no label.
        assert_eq!(lost(Eval::Mate(5)), None);
        assert_eq!(lost(Eval::Mate(0)), None);
    }

    #[test]
    fn finding_a_mate_is_no_label() {
        assert_eq!(label(Eval::Cp(-50), Eval::Mate(2), false), None);
        assert_eq!(label(Eval::Cp(300), Eval::Mate(0), false), None);
    }

    #[test]
    fn move_accuracy_matches_hand_computed_values() {
        assert!(close(move_accuracy(60.0, 60.0), 100.0));
        assert!(close(move_accuracy(40.0, 55.0), 100.0));
        // A 10-point loss: 103.16681·e^−0.4354415 − 3.16692 + 1 = 64.580
        let ten = move_accuracy(60.0, 50.0);
        assert!((ten - 64.580).abs() < 0.001, "{ten}");
        // The clamp at 0: a 100-point loss gives −1.8 before clamping.
        assert!(close(move_accuracy(100.0, 0.0), 0.0));
        // A tiny loss: the bonus would pass 100; clamped.
        assert!(close(move_accuracy(50.0, 49.99), 100.0));
    }

    #[test]
    fn game_accuracy_of_a_hand_computed_game() {
        // Four moves, all evaluations level except a White blunder at move 3.
        let cps = [15, 15, 15, -300, -300];
        let [w, b] = game_accuracy(&cps, true);
        let (w, b) = (w.unwrap(), b.unwrap());
        assert!(close(b, 100.0), "{b}");
        // White: moves of accuracy 100 and a (Win% 51.38 → 24.88) loss.
        let bad = move_accuracy(win_percent(Eval::Cp(15)), win_percent(Eval::Cp(-300)));
        assert!(bad < 35.0 && bad > 30.0, "{bad}");
        // Window 2; the weights are the standard deviations of the position pairs.
        let wins: Vec<f64> = cps.iter().map(|&c| win_percent(Eval::Cp(c))).collect();
        let weights: Vec<f64> = wins
            .windows(2)
            .map(|p| std_dev(p).clamp(0.5, 12.0))
            .collect();
        let weighted = (100.0 * weights[0] + bad * weights[2]) / (weights[0] + weights[2]);
        let harmonic = 2.0 / (1.0 / 100.0 + 1.0 / bad);
        assert!(close(w, (weighted + harmonic) / 2.0), "{w}");
        assert_eq!(game_accuracy(&[15], true), [None, None]);
        assert!(game_accuracy(&[15, 15], false)[0].is_none());
    }

    #[test]
    fn average_centipawn_loss_of_a_hand_computed_game() {
        // +15 (lichess's start), 1. e4 → +30, 1... e5 → +80 (Black loses 50), 2. Nf3 → −1200
        // (White loses 80 + 1000, ceiled: 1080), 2... Qxe4 → −1100 (Black gains: 0), 3. d4,
        // not evaluated after: not counted.
        let curve = [Some(15), Some(30), Some(80), Some(-1200), Some(-1100), None];
        // White: losses 0 (15 → 30) and 1080: mean 540. Black: 50 and 0: mean 25.
        assert_eq!(acpl(&curve, true), [Some(540), Some(25)]);
        // Black moving first: the first move is Black's.
        assert_eq!(acpl(&curve[..2], false), [None, Some(15)]);
        assert_eq!(acpl(&[Some(0)], true), [None, None]);
        // Rounded: White loses 1 and 2 → 1.5 → 2.
        assert_eq!(
            acpl(&[Some(0), Some(-1), Some(-1), Some(-3)], true),
            [Some(2), Some(0)]
        );
    }
}
