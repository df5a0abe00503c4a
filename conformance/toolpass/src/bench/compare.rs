//! A bench against a saved [`Baseline`]: each implementation's per-tool
//! ratio to the control ([`super::PairedRatio`]), now and then.
//!
//! A figure regresses when its ratio grew by more than the limit. It is
//! unstable (neither a pass nor a failure) when its per-round ratios spread
//! more than the limit within this run: the run cannot tell such a change
//! from noise, and says so rather than guess. One exception: when even
//! the lowest round's ratio is beyond the limit, every round saw the
//! regression, and noise cannot explain it away.

use serde::Serialize;

use super::Bench;
use super::baseline::Baseline;

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
    /// The spread of this run's per-round ratios, `(max - min) / median`.
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
            let paired = cell.and_then(|c| c.paired);
            let now = paired.map(|p| p.ratio);
            let then = baseline
                .figure(index, tool)
                .and_then(|f| f.ratio)
                .map(|p| p.ratio);
            let range = paired.and_then(|p| p.rounds);
            let Some(verdict) = judge(then, now, range.map(|r| (r.min, r.spread)), max_regression)
            else {
                continue;
            };
            rows.push(Row {
                implementation: timed.name.clone(),
                tool: tool.to_owned(),
                baseline_ratio: then,
                ratio: now,
                change: then.zip(now).map(|(then, now)| now / then - 1.0),
                spread: range.map(|r| r.spread),
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

/// The verdict on a ratio `then` and `now`, given this run's lowest round
/// ratio and spread; `None` when neither run has a ratio (a tool the
/// control never called), which is nothing to report.
pub(crate) fn judge(
    then: Option<f64>,
    now: Option<f64>,
    rounds: Option<(f64, f64)>,
    limit: f64,
) -> Option<Verdict> {
    let (then, now) = match (then, now) {
        (None, None) => return None,
        (Some(_), None) => return Some(Verdict::Missing),
        (None, Some(_)) => return Some(Verdict::New),
        (Some(then), Some(now)) => (then, now),
    };
    let beyond = |ratio: f64| then > 0.0 && ratio / then - 1.0 > limit;
    Some(match rounds {
        Some((lowest, _)) if beyond(lowest) => Verdict::Regression,
        Some((_, spread)) if spread > limit => Verdict::Unstable,
        _ if beyond(now) => Verdict::Regression,
        _ => Verdict::Pass,
    })
}
