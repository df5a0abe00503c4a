//! A bench against a saved [`Baseline`]: each implementation's per-tool
//! ratio to the control ([`super::PairedRatio`]), now and then.
//!
//! A figure regresses when its ratio grew by more than the limit. It is
//! unstable (neither a pass nor a failure) when its per-round ratios spread
//! more than the limit, in this run or in the baseline's: such a change
//! cannot be told from noise, and the table says so rather than guess.
//! One exception: when this run's lowest round is beyond the limit over
//! the baseline's highest, every round saw the regression, and noise
//! cannot explain it away. A figure with fewer than
//! [`super::MIN_PAIRS_PER_ROUND`] calls in a round, now or then, does not gate
//! at all: its verdict is `few calls`, whatever its ratio did.

use serde::Serialize;

use super::baseline::Baseline;
use super::{Bench, PairedRatio};

/// What a comparison found.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// The baseline file, as given.
    pub baseline: String,
    /// The largest growth of a ratio that passes, as a fraction (0.25).
    pub max_regression: f64,
    /// One per implementation other than the control, and tool.
    pub rows: Vec<Row>,
}

/// One figure against its baseline.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// The implementation's name.
    pub implementation: String,
    /// The tool, or `all tools`.
    pub tool: String,
    /// Its ratio to the control in the baseline.
    pub baseline_ratio: Option<f64>,
    /// Its ratio to the control now.
    pub ratio: Option<f64>,
    /// `ratio / baseline_ratio - 1`: +0.3 is 30% slower relative to the
    /// control.
    pub change: Option<f64>,
    /// The larger spread of the per-round ratios ([`super::RatioRange`]),
    /// this run's or the baseline's.
    pub spread: Option<f64>,
    /// What it means.
    pub verdict: Verdict,
}

/// A figure's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Within the limit.
    Pass,
    /// Slower, relative to the control, by more than the limit.
    Regression,
    /// Too noisy within this run to tell.
    Unstable,
    /// Too few calls in a round, now or in the baseline, for a median
    /// that one slow call cannot move: reported, never gated.
    FewCalls,
    /// Not in the baseline (a tool or scenario added since).
    New,
    /// In the baseline but not measured now (a filter, or a step that no
    /// longer passes in both).
    Missing,
}

impl Verdict {
    /// How the tables spell it.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Regression => "REGRESSION",
            Verdict::Unstable => "unstable",
            Verdict::FewCalls => "few calls",
            Verdict::New => "new",
            Verdict::Missing => "missing",
        }
    }
}

impl Comparison {
    /// Whether any figure regressed: the exit code's question.
    pub fn failed(&self) -> bool {
        self.count(Verdict::Regression) > 0
    }

    /// How many figures have `verdict`.
    pub fn count(&self, verdict: Verdict) -> usize {
        self.rows.iter().filter(|r| r.verdict == verdict).count()
    }
}

/// Compares `bench` with `baseline` (read from `path`, named in the
/// result); an error when they did not bench the same implementations.
pub fn compare(
    bench: &Bench,
    baseline: &Baseline,
    path: &str,
    max_regression: f64,
) -> Result<Comparison, String> {
    baseline
        .check_matches(bench)
        .map_err(|e| format!("{path}: {e}"))?;
    let mut rows = Vec::new();
    for (index, timed) in bench.implementations.iter().enumerate().skip(1) {
        let mut tools: Vec<&str> = bench.tools.iter().map(|r| r.tool.as_str()).collect();
        for figure in &baseline.implementations[index].tools {
            if !tools.contains(&figure.tool.as_str()) {
                tools.push(&figure.tool);
            }
        }
        for tool in tools {
            let cell = bench
                .tools
                .iter()
                .find(|r| r.tool == tool)
                .and_then(|r| r.cells.get(index)?.as_ref());
            let now = cell.and_then(|c| c.paired);
            let then = baseline.figure(index, tool).and_then(|f| f.ratio);
            let Some(verdict) = judge(then.as_ref(), now.as_ref(), max_regression) else {
                continue;
            };
            let spread = larger_spread(now.as_ref(), then.as_ref());
            let (then, now) = (then.map(|p| p.ratio), now.map(|p| p.ratio));
            rows.push(Row {
                implementation: timed.name.clone(),
                tool: tool.to_owned(),
                baseline_ratio: then,
                ratio: now,
                change: then.zip(now).map(|(then, now)| now / then - 1.0),
                spread,
                verdict,
            });
        }
    }
    Ok(Comparison {
        baseline: path.to_owned(),
        max_regression,
        rows,
    })
}

/// The verdict on a figure's ratio `then` (the baseline's) and `now`;
/// `None` when neither has one (a tool the control never called), which
/// is nothing to report.
pub(crate) fn judge(
    then: Option<&PairedRatio>,
    now: Option<&PairedRatio>,
    limit: f64,
) -> Option<Verdict> {
    let (then, now) = match (then, now) {
        (None, None) => return None,
        (Some(_), None) => return Some(Verdict::Missing),
        (None, Some(_)) => return Some(Verdict::New),
        (Some(then), Some(now)) => (then, now),
    };
    if now.too_few_calls() || then.too_few_calls() {
        return Some(Verdict::FewCalls);
    }
    let grew = |now: f64, then: f64| then > 0.0 && now / then - 1.0 > limit;
    // Every round now beyond every round then: no noise on either side
    // explains that away.
    let lowest_now = now.rounds.map_or(now.ratio, |r| r.min);
    let highest_then = then.rounds.map_or(then.ratio, |r| r.max);
    Some(if grew(lowest_now, highest_then) {
        Verdict::Regression
    } else if larger_spread(Some(now), Some(then)).unwrap_or(0.0) > limit {
        // Either side too noisy: a baseline saved in a disturbed run is as
        // unsure as a disturbed comparison.
        Verdict::Unstable
    } else if grew(now.ratio, then.ratio) {
        Verdict::Regression
    } else {
        Verdict::Pass
    })
}

/// The larger of two figures' round spreads; `None` when neither has one
/// (no figure, or a single round).
fn larger_spread(a: Option<&PairedRatio>, b: Option<&PairedRatio>) -> Option<f64> {
    [a, b]
        .into_iter()
        .filter_map(|figure| figure?.rounds.map(|r| r.spread))
        .reduce(f64::max)
}
