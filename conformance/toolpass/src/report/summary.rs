//! The tallies of a run: scenarios per verdict, and each level scored on
//! its own, so a recommended prose check never hides (or causes) a required
//! failure.

use std::collections::BTreeMap;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Serialize;
use toolpass_scenario::Level;

use crate::run::skip::{self, SkipGroup};
use crate::run::{ScenarioResult, Verdict};

/// One level's score: scenarios with steps at that level, and how many of
/// those had all of them pass.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Score {
    /// Scenarios whose steps at this level all passed.
    pub passed: usize,
    /// Scenarios with steps at this level (skipped and pending ones aside).
    pub total: usize,
}

/// What a run adds up to.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Scenario results per verdict.
    pub verdicts: BTreeMap<Verdict, usize>,
    /// Each level's score.
    pub levels: BTreeMap<Level, Score>,
    /// Pending scenarios (run, not scored).
    pub pending: usize,
    /// Wall time of the whole run.
    #[serde(serialize_with = "seconds")]
    pub duration: Duration,
    /// Why the run fails, one line each; empty when it passes.
    pub problems: Vec<String>,
    /// How many of `problems`, from the first, are not one result's own
    /// failure: expected-failure entries that fail differently, were
    /// skipped or name no scenario, and nondeterministic repetitions.
    pub other_problems: usize,
    /// The skipped results grouped by cause, largest group first.
    pub skips: Vec<SkipGroup>,
    /// Distinct scenarios: the results over the runs of each (`--repeat`).
    pub scenarios: usize,
    /// How many times each scenario ran (1 without `--repeat`).
    pub runs: u32,
}

impl Summary {
    /// Tallies `results`; `problems` are the run's other reasons to fail
    /// (stale expected-failure entries, nondeterminism).
    pub fn new(
        results: &[ScenarioResult],
        duration: Duration,
        mut problems: Vec<String>,
    ) -> Summary {
        let other_problems = problems.len();
        let mut verdicts = BTreeMap::new();
        let mut levels: BTreeMap<Level, Score> = BTreeMap::new();
        let mut pending = 0;
        for result in results {
            *verdicts.entry(result.verdict).or_default() += 1;
            if result.level == Level::Pending {
                pending += 1;
                continue;
            }
            if result.verdict == Verdict::Skip {
                continue;
            }
            for (level, passed) in level_scores(result) {
                let score = levels.entry(level).or_default();
                score.total += 1;
                score.passed += usize::from(passed);
            }
            if let Some(problem) = run_failure(result) {
                problems.push(problem);
            }
        }
        let skips = skip::group(
            results
                .iter()
                .filter(|r| r.verdict == Verdict::Skip)
                .map(|r| r.reason.as_deref().unwrap_or("no reason given")),
        );
        let runs = results
            .iter()
            .map(|r| r.repetition)
            .max()
            .unwrap_or(1)
            .max(1);
        let scenarios = results
            .iter()
            .map(|r| r.id.as_str())
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        Summary {
            verdicts,
            levels,
            pending,
            duration,
            problems,
            other_problems,
            skips,
            scenarios,
            runs,
        }
    }

    /// Whether the run passes: no required failure, no xpass, no other
    /// problem.
    pub fn passed(&self) -> bool {
        self.problems.is_empty()
    }

    /// How many results had this verdict.
    pub fn count(&self, verdict: Verdict) -> usize {
        self.verdicts.get(&verdict).copied().unwrap_or(0)
    }
}

/// Each level the scenario has steps at (its own level when no step ran),
/// and whether all of those steps passed.
fn level_scores(result: &ScenarioResult) -> BTreeMap<Level, bool> {
    let mut scores = BTreeMap::new();
    for step in &result.steps {
        let passed = scores.entry(step.level).or_insert(true);
        *passed &= step.verdict == Verdict::Pass;
    }
    if scores.is_empty() || result.steps.is_empty() {
        scores.insert(result.level, !result.verdict.is_failure());
    }
    if result.verdict == Verdict::Xfail {
        // An expected failure is still a failure of its level's score; it
        // only stops failing the run.
        if let Some(level) = result.failed_level() {
            scores.insert(level, false);
        }
    }
    scores
}

/// Why this result fails the run, if it does: a required-level failure, or
/// an xpass.
pub(crate) fn run_failure(result: &ScenarioResult) -> Option<String> {
    match result.verdict {
        Verdict::Xpass => Some(format!(
            "{}: xpass: listed as an expected failure, but it passed; remove the entry",
            result.id
        )),
        verdict if verdict.is_failure() && result.failed_level() == Some(Level::Required) => Some(
            format!("{}: {} at required level", result.id, verdict.as_str()),
        ),
        _ => None,
    }
}

fn seconds<S: serde::Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_f64(duration.as_secs_f64())
}
