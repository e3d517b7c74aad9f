//! How strong a stored analysis is, read from the settings it was stored with
//! (`analysis::settings_json`): which of a game's analyses is the one to read, and whether a
//! new run would add anything. An engine's over arbiter's own search, then a higher budget
//! over a lower one, then a later `analysis_version` over an earlier one.

use serde::Deserialize;
use std::cmp::Ordering;
use std::fmt;

/// The search budget the labels rest on: the engine's limit, or arbiter's deep searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Budget {
    /// A depth limit: not comparable to a node count, so below any of them.
    Depth(u64),
    Nodes(u64),
}

/// The strength of one analysis. Ordered: `a >= b` means `a` is at least as strong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Strength {
    /// The UCI engine's `id name`; `None`: arbiter's own search alone.
    pub engine: Option<String>,
    pub budget: Budget,
    /// `analysis::ANALYSIS_VERSION` of the run (0 where the settings do not say).
    pub version: u32,
}

impl Strength {
    /// The strength of an analysis stored with `settings`. Settings that do not parse (no
    /// arbiter wrote them) are the weakest: arbiter's own search at no budget.
    pub fn of_settings(settings: &str) -> Strength {
        let s: Settings = serde_json::from_str(settings).unwrap_or_default();
        match s.uci_engine {
            Some(e) => Strength {
                budget: match (e.nodes, e.depth) {
                    (Some(n), _) => Budget::Nodes(n),
                    (None, d) => Budget::Depth(d.unwrap_or(0)),
                },
                engine: Some(e.name),
                version: s.analysis_version,
            },
            None => Strength {
                engine: None,
                budget: Budget::Nodes(s.deep_nodes),
                version: s.analysis_version,
            },
        }
    }

    /// Which labels (inaccuracy, mistake, blunder) an analysis stored with `settings` gives
    /// at all: an engine judges all three; arbiter's own search those its settings name
    /// (`analysis::OWN_TIER_LABELS`; all three before that rule was recorded). A kind it
    /// never gives is unknown, not zero.
    pub fn judged_kinds(settings: &str) -> [bool; 3] {
        let s: Settings = serde_json::from_str(settings).unwrap_or_default();
        match (s.uci_engine, s.own_tier_labels) {
            (None, Some(kinds)) => kinds,
            _ => [true; 3],
        }
    }

    /// The name of the engine behind the labels: the UCI engine's, or `arbiter`.
    pub fn engine_name(&self) -> &str {
        self.engine.as_deref().unwrap_or("arbiter")
    }

    fn key(&self) -> (bool, Budget, u32) {
        (self.engine.is_some(), self.budget, self.version)
    }
}

impl Ord for Strength {
    fn cmp(&self, other: &Strength) -> Ordering {
        self.key().cmp(&other.key())
    }
}

impl PartialOrd for Strength {
    fn partial_cmp(&self, other: &Strength) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// `Stockfish 16 at 1000000 nodes a position`, `arbiter's own search at 20000 nodes`.
impl fmt::Display for Strength {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.engine {
            Some(name) => write!(f, "{name}")?,
            None => write!(f, "arbiter's own search")?,
        }
        match self.budget {
            Budget::Nodes(n) => write!(f, " at {n} nodes a position"),
            Budget::Depth(d) => write!(f, " at depth {d}"),
        }
    }
}

/// The fields of the settings JSON that decide the strength.
#[derive(Deserialize, Default)]
struct Settings {
    #[serde(default)]
    analysis_version: u32,
    #[serde(default)]
    deep_nodes: u64,
    uci_engine: Option<EngineSettings>,
    own_tier_labels: Option<[bool; 3]>,
}

#[derive(Deserialize)]
struct EngineSettings {
    name: String,
    nodes: Option<u64>,
    depth: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::analysis::{AnalysisOptions, settings_json};
    use crate::search::{EngineLimit, EngineSpec};

    fn engine(limit: EngineLimit) -> &'static EngineSpec {
        Box::leak(Box::new(EngineSpec {
            path: "/usr/games/stockfish".into(),
            limit,
            threads: 1,
            options: Vec::new(),
            search_timeout: std::time::Duration::from_secs(60),
            sweep_nodes: 20_000,
            refine_nodes: 100_000,
        }))
    }

    fn of(options: AnalysisOptions, name: Option<&str>) -> Strength {
        Strength::of_settings(&settings_json(&options, name))
    }

    #[test]
    fn an_engine_beats_the_own_search_and_a_higher_budget_a_lower_one() {
        let own = of(AnalysisOptions::default(), None);
        let own_deeper = of(
            AnalysisOptions {
                deep_nodes: 50_000,
                ..AnalysisOptions::default()
            },
            None,
        );
        let sf = |limit| {
            of(
                AnalysisOptions {
                    engine: Some(engine(limit)),
                    ..AnalysisOptions::default()
                },
                Some("Stockfish 16"),
            )
        };
        let (small, big) = (
            sf(EngineLimit::Nodes(5_000)),
            sf(EngineLimit::Nodes(1_000_000)),
        );
        let depth = sf(EngineLimit::Depth(18));
        assert_eq!(own.budget, Budget::Nodes(20_000));
        assert_eq!(big.engine.as_deref(), Some("Stockfish 16"));
        assert!(own < own_deeper && own_deeper < small && small < big);
        assert!(own_deeper < depth && depth < small);
        assert_eq!(big.cmp(&big.clone()), Ordering::Equal);
        assert_eq!(big.to_string(), "Stockfish 16 at 1000000 nodes a position");
        assert_eq!(
            own.to_string(),
            "arbiter's own search at 20000 nodes a position"
        );
        assert_eq!(own.engine_name(), "arbiter");
    }

    #[test]
    fn the_own_search_judges_blunders_only_and_an_engine_every_kind() {
        let own = settings_json(&AnalysisOptions::default(), None);
        assert_eq!(Strength::judged_kinds(&own), [false, false, true]);
        let with = AnalysisOptions {
            engine: Some(engine(EngineLimit::Nodes(5_000))),
            ..AnalysisOptions::default()
        };
        assert_eq!(
            Strength::judged_kinds(&settings_json(&with, Some("Stockfish 16"))),
            [true; 3]
        );
        // Before `own_tier_labels` was recorded, the own search gave all three.
        let old = r#"{"analysis_version": 3, "deep_nodes": 20000}"#;
        assert_eq!(Strength::judged_kinds(old), [true; 3]);
    }

    #[test]
    fn an_earlier_analysis_version_is_weaker_and_foreign_settings_weakest() {
        let now = of(AnalysisOptions::default(), None);
        let old = Strength::of_settings(r#"{"analysis_version": 3, "deep_nodes": 20000}"#);
        assert!(old < now);
        let foreign = Strength::of_settings("not json");
        assert!(foreign < old);
        assert_eq!(foreign.budget, Budget::Nodes(0));
    }
}
