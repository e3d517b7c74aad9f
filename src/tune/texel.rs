//! The Texel fit: the evaluation is linear in its weights once a position's features are
//! counted (`eval::Trace`), so each position becomes a short list of (weight, count) pairs, a
//! phase and a draw divisor. The error is the mean of (result − sigmoid(K·eval))², with
//! sigmoid(x) = 1 / (1 + 10^(−x/400)); K is fitted first with the weights fixed, then the
//! weights by full-batch gradient descent (Adam) with K fixed. Sums run over fixed chunks in a
//! fixed order, so the fit is the same with any number of threads.

use super::data::Sample;
use crate::chess::Color;
use crate::search::eval::{MAX_PHASE, Trace, evaluate_traced, evaluate_with};
use crate::search::weights::{N_PARAMS, S, Weights, at};
use rayon::prelude::*;

/// One position as the linear model sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Entry {
    /// Its features are `feats[start..start + len]`.
    pub start: u32,
    pub len: u32,
    /// The middlegame's share, 0 to 1.
    pub mg: f64,
    /// 1 over the draw divisor (1, ¼ or 1/16).
    pub scale: f64,
    /// +1 with White to move, −1 with Black.
    pub tempo: f64,
    /// The result for White.
    pub result: f64,
}

/// Positions in linear form, evaluated from White's side.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dataset {
    pub entries: Vec<Entry>,
    pub feats: Vec<(u16, f64)>,
}

/// Collects one evaluation's features, merging the two sides' counts of each weight.
#[derive(Default)]
struct Collector {
    feats: Vec<(u16, f64)>,
    phase: i32,
    divisor: i32,
    tempo: f64,
}

impl Trace for Collector {
    fn add(&mut self, param: usize, count: f64) {
        if param == at::TEMPO {
            self.tempo += count;
        } else if count != 0.0 {
            self.feats.push((param as u16, count));
        }
    }

    fn finish(&mut self, phase: i32, divisor: i32) {
        self.phase = phase;
        self.divisor = divisor;
    }
}

const CHUNK: usize = 8192;

impl Dataset {
    /// The samples' features. The draw divisor depends on which side the weights favour, so
    /// it is taken from `w`, the weights the fit starts from.
    pub fn from_samples(samples: &[Sample], w: &Weights) -> Dataset {
        let mut data = Dataset::default();
        let mut c = Collector::default();
        for s in samples {
            c.feats.clear();
            c.tempo = 0.0;
            evaluate_traced(&s.pos, w, &mut c);
            c.feats.sort_by_key(|f| f.0);
            let start = data.feats.len();
            for &(p, n) in &c.feats {
                let merge = data.feats.len() > start && data.feats.last().is_some_and(|l| l.0 == p);
                if merge {
                    data.feats.last_mut().expect("not empty").1 += n;
                } else {
                    data.feats.push((p, n));
                }
            }
            // Equal counts for both sides cancel.
            let mut kept = start;
            for i in start..data.feats.len() {
                if data.feats[i].1 != 0.0 {
                    data.feats[kept] = data.feats[i];
                    kept += 1;
                }
            }
            data.feats.truncate(kept);
            data.entries.push(Entry {
                start: start as u32,
                len: (kept - start) as u32,
                mg: c.phase as f64 / MAX_PHASE as f64,
                scale: 1.0 / c.divisor as f64,
                tempo: c.tempo,
                result: s.result as f64,
            });
        }
        data
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn feats_of(&self, e: &Entry) -> &[(u16, f64)] {
        &self.feats[e.start as usize..(e.start + e.len) as usize]
    }

    /// The linear model's evaluation of entry `e` for White.
    pub fn eval(&self, e: &Entry, w: &[[f64; 2]]) -> f64 {
        let (mut mg, mut eg) = (0.0, 0.0);
        for &(p, n) in self.feats_of(e) {
            mg += n * w[p as usize][0];
            eg += n * w[p as usize][1];
        }
        let t = w[at::TEMPO];
        (mg * e.mg + eg * (1.0 - e.mg)) * e.scale + e.tempo * (t[0] * e.mg + t[1] * (1.0 - e.mg))
    }
}

/// The expected score for an evaluation `v` (centipawns) with scale `k`.
pub fn sigmoid(k: f64, v: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * v / 400.0))
}

/// Weights as floating point pairs, in `Weights::to_flat` order.
pub fn params_of(w: &Weights) -> Vec<[f64; 2]> {
    w.to_flat()
        .iter()
        .map(|s| [s.0 as f64, s.1 as f64])
        .collect()
}

/// The nearest integer weights.
pub fn round(params: &[[f64; 2]]) -> Weights {
    let flat: Vec<S> = params
        .iter()
        .map(|p| S(p[0].round() as i32, p[1].round() as i32))
        .collect();
    Weights::from_flat(&flat).expect("one pair per weight")
}

/// Mean squared error of the model with weights `w` and scale `k`.
pub fn loss(data: &Dataset, w: &[[f64; 2]], k: f64) -> f64 {
    if data.is_empty() {
        return 0.0;
    }
    let parts: Vec<f64> = data
        .entries
        .par_chunks(CHUNK)
        .map(|chunk| {
            chunk
                .iter()
                .map(|e| {
                    let d = e.result - sigmoid(k, data.eval(e, w));
                    d * d
                })
                .sum::<f64>()
        })
        .collect();
    parts.iter().sum::<f64>() / data.len() as f64
}

/// The error and its gradient with respect to every weight.
pub fn gradient(data: &Dataset, w: &[[f64; 2]], k: f64) -> (f64, Vec<[f64; 2]>) {
    let n = data.len().max(1) as f64;
    let parts: Vec<(f64, Vec<[f64; 2]>)> = data
        .entries
        .par_chunks(CHUNK)
        .map(|chunk| {
            let mut g = vec![[0.0; 2]; w.len()];
            let mut l = 0.0;
            for e in chunk {
                let s = sigmoid(k, data.eval(e, w));
                let d = e.result - s;
                l += d * d;
                // d/dv (r − σ(kv))² = −2 (r − σ) σ (1 − σ) k ln10 / 400
                let dv = -2.0 * d * s * (1.0 - s) * k * std::f64::consts::LN_10 / 400.0;
                let (a, b) = (dv * e.mg * e.scale, dv * (1.0 - e.mg) * e.scale);
                for &(p, c) in data.feats_of(e) {
                    let gp = &mut g[p as usize];
                    gp[0] += a * c;
                    gp[1] += b * c;
                }
                g[at::TEMPO][0] += dv * e.tempo * e.mg;
                g[at::TEMPO][1] += dv * e.tempo * (1.0 - e.mg);
            }
            (l, g)
        })
        .collect();
    let mut total = vec![[0.0; 2]; w.len()];
    let mut l = 0.0;
    for (pl, pg) in parts {
        l += pl;
        for (t, x) in total.iter_mut().zip(pg) {
            t[0] += x[0];
            t[1] += x[1];
        }
    }
    for t in &mut total {
        t[0] /= n;
        t[1] /= n;
    }
    (l / n, total)
}

/// The scale K that minimises the error with the weights fixed (golden-section search on
/// 0.05 to 5; the error is unimodal in K).
pub fn fit_k(data: &Dataset, w: &[[f64; 2]]) -> f64 {
    let evals: Vec<(f64, f64)> = data
        .entries
        .iter()
        .map(|e| (data.eval(e, w), e.result))
        .collect();
    fit_k_pairs(&evals)
}

/// The scale K that best predicts each pair's result (second) from its evaluation (first).
pub fn fit_k_pairs(evals: &[(f64, f64)]) -> f64 {
    let err = |k: f64| -> f64 {
        evals
            .iter()
            .map(|&(v, r)| (r - sigmoid(k, v)).powi(2))
            .sum::<f64>()
    };
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let (mut a, mut b) = (0.05, 5.0);
    let mut c = b - g * (b - a);
    let mut d = a + g * (b - a);
    let (mut fc, mut fd) = (err(c), err(d));
    while b - a > 1e-5 {
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - g * (b - a);
            fc = err(c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + g * (b - a);
            fd = err(d);
        }
    }
    (a + b) / 2.0
}

/// The pawn's value in one half of the evaluation (0: middlegame, 1: endgame): its material
/// plus the mean of its table over the 48 squares a pawn can stand on.
pub fn pawn_value(w: &[[f64; 2]], half: usize) -> f64 {
    let table: f64 = (8..56).map(|sq| w[at::PST + sq][half]).sum::<f64>() / 48.0;
    w[at::MATERIAL][half] + table
}

/// Scales every middlegame weight, and apart from them every endgame weight, so that the pawn
/// is worth what it is worth in `reference`. The search's margins (futility, reverse futility,
/// delta pruning, aspiration windows) are in the hand-set pawn's units; the evaluation is
/// linear in each half's weights, so this changes its scale and nothing else. Gives the two
/// factors.
pub fn anchor_pawn(w: &mut [[f64; 2]], reference: &[[f64; 2]]) -> [f64; 2] {
    let f = [0, 1].map(|h| pawn_value(reference, h) / pawn_value(w, h));
    for p in w.iter_mut() {
        p[0] *= f[0];
        p[1] *= f[1];
    }
    f
}

#[derive(Clone, Copy, Debug)]
pub struct FitOptions {
    pub epochs: usize,
    /// Adam's step size, in centipawns.
    pub rate: f64,
    /// Ridge penalty toward the start: `l2 · Σ ((w − start) / 100)²` is added to the error, so
    /// a weight moves a pawn from where it started only if that buys `l2` of error.
    pub l2: f64,
}

impl Default for FitOptions {
    fn default() -> FitOptions {
        FitOptions {
            epochs: 2000,
            rate: 1.0,
            l2: 0.0,
        }
    }
}

/// Fits every weight by Adam on the full batch, starting from `start` (and, with `l2`, held
/// near it); `progress` sees each epoch's error (without the penalty) before its step.
pub fn fit(
    data: &Dataset,
    start: &[[f64; 2]],
    k: f64,
    opts: &FitOptions,
    mut progress: impl FnMut(usize, f64),
) -> Vec<[f64; 2]> {
    let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-8);
    let mut w = start.to_vec();
    let mut m = vec![[0.0; 2]; w.len()];
    let mut v = vec![[0.0; 2]; w.len()];
    for epoch in 0..opts.epochs {
        let (l, mut g) = gradient(data, &w, k);
        progress(epoch, l);
        if opts.l2 > 0.0 {
            for ((gi, wi), si) in g.iter_mut().zip(&w).zip(start) {
                for j in 0..2 {
                    gi[j] += 2.0 * opts.l2 * (wi[j] - si[j]) / 1e4;
                }
            }
        }
        let t = (epoch + 1) as i32;
        let (c1, c2) = (1.0 - b1.powi(t), 1.0 - b2.powi(t));
        for i in 0..w.len() {
            for j in 0..2 {
                m[i][j] = b1 * m[i][j] + (1.0 - b1) * g[i][j];
                v[i][j] = b2 * v[i][j] + (1.0 - b2) * g[i][j] * g[i][j];
                w[i][j] -= opts.rate * (m[i][j] / c1) / ((v[i][j] / c2).sqrt() + eps);
            }
        }
    }
    w
}

/// The engine's own (integer) evaluation with weights `w` of each sample, for White, with the
/// sample's label.
pub fn engine_evals(samples: &[Sample], w: &Weights) -> Vec<(f64, f64)> {
    samples
        .par_iter()
        .map(|s| {
            let v = evaluate_with(&s.pos, w) as f64;
            let v = if s.pos.turn() == Color::White { v } else { -v };
            (v, s.result as f64)
        })
        .collect()
}

/// The error of the engine's own (integer) evaluation with weights `w` on the samples.
pub fn engine_loss(samples: &[Sample], w: &Weights, k: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let parts: Vec<f64> = samples
        .par_chunks(CHUNK)
        .map(|chunk| {
            chunk
                .iter()
                .map(|s| {
                    let v = evaluate_with(&s.pos, w) as f64;
                    let v = if s.pos.turn() == Color::White { v } else { -v };
                    (s.result as f64 - sigmoid(k, v)).powi(2)
                })
                .sum::<f64>()
        })
        .collect();
    parts.iter().sum::<f64>() / samples.len() as f64
}

const _: () = assert!(N_PARAMS < u16::MAX as usize);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Position;
    use crate::search::weights::CLASSIC;

    /// Positions whose only feature is one pawn of material, in the middlegame.
    fn one_feature(results: &[f64]) -> Dataset {
        let mut d = Dataset::default();
        for &r in results {
            d.entries.push(Entry {
                start: d.feats.len() as u32,
                len: 1,
                mg: 1.0,
                scale: 1.0,
                tempo: 0.0,
                result: r,
            });
            d.feats.push((at::MATERIAL as u16, 1.0));
        }
        d
    }

    fn zero() -> Vec<[f64; 2]> {
        vec![[0.0; 2]; N_PARAMS]
    }

    #[test]
    fn the_fit_finds_the_known_optimum() {
        // Three wins and a loss from the same evaluation: the best prediction is 0.75, so
        // the weight is 400·log10(3)/K and the error there is the results' variance, 3/16.
        let data = one_feature(&[1.0, 1.0, 1.0, 0.0]);
        let k = 1.3;
        let w = fit(
            &data,
            &zero(),
            k,
            &FitOptions {
                epochs: 3000,
                rate: 2.0,
                l2: 0.0,
            },
            |_, _| {},
        );
        let best = 400.0 * 3f64.log10() / k;
        assert!(
            (w[at::MATERIAL][0] - best).abs() < 0.5,
            "{:?}",
            w[at::MATERIAL]
        );
        // The endgame half never counts in a pure middlegame.
        assert_eq!(w[at::MATERIAL][1], 0.0);
        assert!((loss(&data, &w, k) - 0.1875).abs() < 1e-6);
    }

    #[test]
    fn the_ridge_penalty_holds_weights_near_the_start() {
        // With the penalty, the optimum solves 2·l2·w/1e4 = −dMSE/dw: between the start (0)
        // and the unpenalised optimum.
        let data = one_feature(&[1.0, 1.0, 1.0, 0.0]);
        let k = 1.3;
        let opts = FitOptions {
            epochs: 3000,
            rate: 2.0,
            l2: 0.05,
        };
        let w = fit(&data, &zero(), k, &opts, |_, _| {});
        let free = 400.0 * 3f64.log10() / k;
        let x = w[at::MATERIAL][0];
        assert!(x > 1.0 && x < free - 1.0, "{x}");
        let (_, g) = gradient(&data, &w, k);
        let balance = g[at::MATERIAL][0] + 2.0 * opts.l2 * x / 1e4;
        assert!(balance.abs() < 1e-6, "{balance}");
    }

    #[test]
    fn the_gradient_is_the_slope_of_the_error() {
        let data = one_feature(&[1.0, 0.5, 0.0, 1.0]);
        let mut w = zero();
        w[at::MATERIAL][0] = 40.0;
        let k = 1.1;
        let (l, g) = gradient(&data, &w, k);
        assert!((l - loss(&data, &w, k)).abs() < 1e-12);
        let h = 1e-4;
        let mut up = w.clone();
        up[at::MATERIAL][0] += h;
        let mut down = w.clone();
        down[at::MATERIAL][0] -= h;
        let slope = (loss(&data, &up, k) - loss(&data, &down, k)) / (2.0 * h);
        assert!(
            (g[at::MATERIAL][0] - slope).abs() < 1e-9,
            "{} vs {slope}",
            g[at::MATERIAL][0]
        );
        assert!(g[at::MATERIAL][0] < 0.0, "the results want more than 40 cp");
    }

    #[test]
    fn the_pawn_anchor_undoes_a_change_of_scale() {
        let reference = params_of(&CLASSIC);
        let mut w: Vec<[f64; 2]> = reference.iter().map(|p| [2.0 * p[0], 0.8 * p[1]]).collect();
        let f = anchor_pawn(&mut w, &reference);
        assert!(
            (f[0] - 0.5).abs() < 1e-12 && (f[1] - 1.25).abs() < 1e-12,
            "{f:?}"
        );
        for (a, b) in w.iter().zip(&reference) {
            assert!((a[0] - b[0]).abs() < 1e-9 && (a[1] - b[1]).abs() < 1e-9);
        }
        // The hand-set pawn: 90 + its table's mean in the middlegame, 120 + 15 in the endgame.
        let eg_table = (3.0 + 8.0 + 15.0 + 25.0 + 40.0) * 8.0 / 48.0;
        assert!((pawn_value(&reference, 1) - (120.0 + eg_table)).abs() < 1e-9);
        assert!(pawn_value(&reference, 0) > 90.0);
    }

    #[test]
    fn k_is_recovered_from_results_it_generated() {
        let mut d = Dataset::default();
        for i in -20..=20 {
            let v = i as f64 * 25.0;
            d.entries.push(Entry {
                start: d.feats.len() as u32,
                len: 1,
                mg: 1.0,
                scale: 1.0,
                tempo: 0.0,
                result: sigmoid(0.8, v),
            });
            d.feats.push((at::MATERIAL as u16, i as f64));
        }
        let mut w = zero();
        w[at::MATERIAL][0] = 25.0;
        assert!((fit_k(&d, &w) - 0.8).abs() < 1e-3);
    }

    #[test]
    fn the_linear_model_is_the_engine_evaluation() {
        let fens = [
            crate::chess::START_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 b - - 0 10",
            "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
            "8/7p/5k2/5p2/p1p2P2/Pr1pPK2/1P1R3P/8 b - - 0 1",
            "4k3/8/8/8/8/8/8/3NKB2 w - - 0 1",
            "6k1/5ppp/8/8/8/8/1Q3PPP/2r3K1 w - - 0 1",
        ];
        let samples: Vec<Sample> = fens
            .iter()
            .map(|f| Sample {
                pos: Position::from_fen(f).unwrap(),
                result: 0.5,
                game: 0,
            })
            .collect();
        let data = Dataset::from_samples(&samples, &CLASSIC);
        let w = params_of(&CLASSIC);
        for (s, e) in samples.iter().zip(&data.entries) {
            let v = evaluate_with(&s.pos, &CLASSIC) as f64;
            let white = if s.pos.turn() == Color::White { v } else { -v };
            // The engine rounds toward zero twice (blend, draw divisor).
            assert!((data.eval(e, &w) - white).abs() <= 2.0, "{:?}", s.pos);
        }
    }
}
