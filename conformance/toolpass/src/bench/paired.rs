//! The bench gate's ratio: each call over the first implementation's
//! call of the same scenario step in the same round, the median of those,
//! and how far the rounds' own medians spread.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{Sample, percentile};

/// The fewest calls a round must pair with the control's for the figure
/// to gate. Below it one slow call moves the round's median: on this
/// machine a tool called twice a round (`list_directory` over the safety
/// profile) gave 6 false regressions in 10 comparisons of the reference
/// with itself, while tools called 60 times a round gave none.
pub const MIN_PAIRS_PER_ROUND: usize = 10;

/// A figure's paired ratio and how far it moved from round to round.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PairedRatio {
    /// The median of the per-call ratios, all rounds together.
    pub ratio: f64,
    /// The per-call ratios it is the median of.
    pub pairs: usize,
    /// The fewest of those in one round: a figure needs
    /// [`MIN_PAIRS_PER_ROUND`] in every round to gate.
    pub fewest_in_a_round: usize,
    /// The lowest and highest of the rounds' own medians; `None` with one
    /// round.
    pub rounds: Option<RatioRange>,
}

/// How a figure's per-round ratios spread.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RatioRange {
    /// The lowest round's ratio.
    pub min: f64,
    /// The highest round's ratio.
    pub max: f64,
    /// `(p75 - p25) / median` of the rounds' ratios (nearest rank): the
    /// middle half from five rounds on, so that one round another process
    /// disturbed does not make the figure unstable; the whole range with
    /// two or three.
    pub spread: f64,
}

impl PairedRatio {
    /// Whether a round paired fewer than [`MIN_PAIRS_PER_ROUND`] calls:
    /// such a figure is reported, never judged.
    pub fn too_few_calls(&self) -> bool {
        self.fewest_in_a_round < MIN_PAIRS_PER_ROUND
    }
}

/// The [`PairedRatio`] of `mine` to `first`.
pub(super) fn paired_ratio(mine: &[&Sample], first: &[&Sample]) -> Option<PairedRatio> {
    let control: BTreeMap<(&(String, usize), u32), Duration> = first
        .iter()
        .filter(|s| s.passed)
        .map(|s| ((&s.key, s.round), s.elapsed))
        .collect();
    let mut all = Vec::new();
    let mut by_round: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
    for sample in mine.iter().filter(|s| s.passed) {
        let Some(theirs) = control.get(&(&sample.key, sample.round)) else {
            continue;
        };
        if theirs.is_zero() {
            continue;
        }
        let ratio = sample.elapsed.as_secs_f64() / theirs.as_secs_f64();
        all.push(ratio);
        by_round.entry(sample.round).or_default().push(ratio);
    }
    if all.is_empty() {
        return None;
    }
    let fewest_in_a_round = by_round.values().map(Vec::len).min().unwrap_or(0);
    let mut medians: Vec<f64> = by_round.into_values().map(|mut r| median(&mut r)).collect();
    let rounds = (medians.len() >= 2).then(|| {
        let middle = median(&mut medians);
        let quartiles = percentile(&medians, 75.0) - percentile(&medians, 25.0);
        RatioRange {
            min: medians[0],
            max: medians[medians.len() - 1],
            spread: if middle > 0.0 {
                quartiles / middle
            } else {
                0.0
            },
        }
    });
    Some(PairedRatio {
        pairs: all.len(),
        fewest_in_a_round,
        ratio: median(&mut all),
        rounds,
    })
}

/// The nearest-rank median, sorting `values`.
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    percentile(values, 50.0)
}
