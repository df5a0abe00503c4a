//! `toolpass diff`: what changed between two runs, read back from their
//! `--jsonl` reports ([`crate::report::read`]), keyed by scenario id and
//! repetition, with the steps keyed by `id#index` underneath.
//!
//! Each scenario present in both runs falls into at most one verdict
//! category ([`Kind`]), and separately may be [`Kind::Slower`] or
//! [`Kind::Faster`]:
//!
//! - **newly failing**: pass, xfail or skip before, a failure verdict (fail,
//!   xpass, error, timeout, crash, protocol_error) after; or the same
//!   failure verdict with a step that newly fails. The one regression: it
//!   alone makes `toolpass diff` exit 1.
//! - **newly passing**: anything else before, pass after (a fix, or a
//!   scenario no longer skipped); or the same failure verdict with a step
//!   that newly passes (and none newly failing).
//! - **verdict changed**: any other change of verdict (fail → crash,
//!   pass → skip, fail → xfail).
//! - **message changed**: the same verdict, but the first `what: message`
//!   (or the reason of a skip or error) differs, or a step's does.
//! - **removed** / **added**: the id is in one run only.
//!
//! Only repetition 1 is compared, unless both runs repeated the scenario:
//! then every repetition both have. Timings are compared only where the
//! verdict is unchanged and steps ran (see [`Thresholds`]).

mod text;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use serde::Serialize;
use toolpass_protocol::{PROTOCOL_MAJOR, ProtocolVersion};

pub use text::{render, summary};

use crate::report::read::ReadReport;
use crate::report::{ImplementationInfo, headline};
use crate::run::{ScenarioResult, StepResult, Verdict};

/// When a timing counts as changed: durations under 1 ms count as 1 ms (so
/// sub-millisecond noise never shows), and `|after − before|` must exceed
/// both `min_ms` and `(ratio − 1) × the shorter one`. With the defaults (50
/// ms, 2.0) a change is over 50 ms *and* one run took more than twice as
/// long as the other.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Thresholds {
    /// The least change that counts, in milliseconds.
    pub min_ms: f64,
    /// The least ratio of the longer to the shorter duration that counts.
    pub ratio: f64,
}

impl Default for Thresholds {
    fn default() -> Thresholds {
        Thresholds {
            min_ms: 50.0,
            ratio: 2.0,
        }
    }
}

impl Thresholds {
    /// Whether going from `before` to `after` is a change worth a line.
    pub fn changed(&self, before: Duration, after: Duration) -> bool {
        let (a, b) = (millis(before).max(1.0), millis(after).max(1.0));
        (b - a).abs() > self.min_ms.max((self.ratio - 1.0) * a.min(b))
    }
}

/// What changed between two runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diff {
    /// The earlier run.
    pub before: Run,
    /// The later run.
    pub after: Run,
    /// What the reader should know before trusting the comparison (another
    /// protocol major, another runner version, repetitions not compared).
    pub notes: Vec<String>,
    /// The rule timings were compared with.
    pub thresholds: Thresholds,
    /// Scenario results present in both runs and compared.
    pub compared: usize,
    /// Every change, grouped by kind in the order of [`Kind::ALL`], then by
    /// scenario id and repetition.
    pub changes: Vec<Change>,
    /// Changes per kind, every kind present.
    pub counts: BTreeMap<Kind, usize>,
    /// Whether anything is newly failing (`toolpass diff` exits 1).
    pub regression: bool,
}

/// One of the two runs, as its header and footer describe it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Run {
    /// The report file.
    pub file: String,
    /// The runner's version.
    pub toolpass: String,
    /// The protocol it spoke.
    pub protocol: String,
    /// The implementation under test.
    pub implementation: ImplementationInfo,
    /// When it started, RFC 3339.
    pub started: String,
    /// Scenario results in the report.
    pub results: usize,
    /// Whether the run passed.
    pub passed: bool,
    /// Wall time of the whole run in milliseconds.
    pub duration_ms: f64,
}

/// What kind of change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Did not fail before, fails now (a regression).
    NewlyFailing,
    /// Failed before, passes now.
    NewlyPassing,
    /// Another change of verdict.
    VerdictChanged,
    /// The same verdict with another first failure message.
    MessageChanged,
    /// Only in the earlier run.
    Removed,
    /// Only in the later run.
    Added,
    /// Took longer beyond the thresholds.
    Slower,
    /// Took less time beyond the thresholds.
    Faster,
}

impl Kind {
    /// Every kind, in the order the changes are listed.
    pub const ALL: [Kind; 8] = [
        Kind::NewlyFailing,
        Kind::NewlyPassing,
        Kind::VerdictChanged,
        Kind::MessageChanged,
        Kind::Removed,
        Kind::Added,
        Kind::Slower,
        Kind::Faster,
    ];

    /// Its name in the text output.
    pub fn title(self) -> &'static str {
        match self {
            Kind::NewlyFailing => "newly failing",
            Kind::NewlyPassing => "newly passing",
            Kind::VerdictChanged => "verdict changed",
            Kind::MessageChanged => "message changed",
            Kind::Removed => "removed",
            Kind::Added => "added",
            Kind::Slower => "slower",
            Kind::Faster => "faster",
        }
    }
}

/// One change to one scenario result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    /// What kind.
    pub kind: Kind,
    /// The scenario's id.
    pub scenario: String,
    /// Which repetition, from 1.
    pub repetition: u32,
    /// Whether both runs repeated the scenario, so the repetition is part
    /// of its name.
    pub repeated: bool,
    /// The result in the earlier run; absent for an added scenario.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<State>,
    /// The result in the later run; absent for a removed scenario.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<State>,
    /// The steps (`id#index`) behind the change: for a verdict or message
    /// change the steps in both runs whose verdict or first message
    /// differs; for a timing change the step whose time changed most.
    pub steps: Vec<StepChange>,
}

impl Change {
    /// The scenario's id, with the repetition when both runs repeated it.
    pub fn name(&self) -> String {
        if self.repeated {
            format!("{} (repetition {})", self.scenario, self.repetition)
        } else {
            self.scenario.clone()
        }
    }
}

/// A scenario's or a step's result in one run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct State {
    /// How it ended.
    pub verdict: Verdict,
    /// Its first `what: message`, or why it was skipped or could not run;
    /// absent when it passed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Wall time in milliseconds.
    pub duration_ms: f64,
}

/// One step of a changed scenario, in both runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepChange {
    /// Its number in the scenario: the `#N` of its key.
    pub index: usize,
    /// Its kind and subject in the later run, e.g. `call edit`.
    pub label: String,
    /// Its label in the earlier run, when that differs (the scenario file
    /// changed between the runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label_before: Option<String>,
    /// How it ran before.
    pub before: State,
    /// How it ran after.
    pub after: State,
}

impl StepChange {
    fn newly_failing(&self) -> bool {
        !self.before.verdict.is_failure() && self.after.verdict.is_failure()
    }

    fn newly_passing(&self) -> bool {
        self.before.verdict.is_failure() && self.after.verdict == Verdict::Pass
    }
}

/// Compares the run `before` with the run `after`.
pub fn compare(before: &ReadReport, after: &ReadReport, thresholds: Thresholds) -> Diff {
    let (old, new) = (by_id(&before.results), by_id(&after.results));
    let mut changes = Vec::new();
    let mut compared = 0;
    let mut one_sided_repeats = false;
    let ids: BTreeSet<&str> = old.keys().chain(new.keys()).copied().collect();
    for id in ids {
        let (a, b) = match (old.get(id), new.get(id)) {
            (Some(a), Some(b)) => (a, b),
            (Some(a), None) => {
                let removed = a.values().next().copied();
                changes.extend(removed.map(|r| one_sided(Kind::Removed, r, Some(state(r)), None)));
                continue;
            }
            (None, Some(b)) => {
                let added = b.values().next().copied();
                changes.extend(added.map(|r| one_sided(Kind::Added, r, None, Some(state(r)))));
                continue;
            }
            (None, None) => continue,
        };
        let repeated = a.len() > 1 && b.len() > 1;
        one_sided_repeats |= (a.len() > 1) != (b.len() > 1);
        let pairs = a.iter().filter_map(|(r, x)| Some((*x, *b.get(r)?)));
        for (x, y) in pairs.take(if repeated { usize::MAX } else { 1 }) {
            compared += 1;
            changes.extend(compare_results(x, y, repeated, thresholds));
        }
    }
    changes.sort_by(|x, y| {
        (x.kind, &x.scenario, x.repetition).cmp(&(y.kind, &y.scenario, y.repetition))
    });
    let counts: BTreeMap<Kind, usize> = Kind::ALL
        .iter()
        .map(|&kind| (kind, changes.iter().filter(|c| c.kind == kind).count()))
        .collect();
    let (before, after) = (run(before), run(after));
    let mut notes = notes(&before, &after);
    if one_sided_repeats {
        notes.push("only one run repeated scenarios: repetition 1 alone is compared".into());
    }
    Diff {
        regression: counts[&Kind::NewlyFailing] > 0,
        before,
        after,
        notes,
        thresholds,
        compared,
        changes,
        counts,
    }
}

/// The results by id, then repetition.
fn by_id(results: &[ScenarioResult]) -> BTreeMap<&str, BTreeMap<u32, &ScenarioResult>> {
    let mut map: BTreeMap<&str, BTreeMap<u32, &ScenarioResult>> = BTreeMap::new();
    for result in results {
        map.entry(&result.id)
            .or_default()
            .insert(result.repetition, result);
    }
    map
}

fn one_sided(
    kind: Kind,
    result: &ScenarioResult,
    before: Option<State>,
    after: Option<State>,
) -> Change {
    Change {
        kind,
        scenario: result.id.clone(),
        repetition: result.repetition,
        repeated: false,
        before,
        after,
        steps: Vec::new(),
    }
}

/// The changes between two results of one scenario and repetition: at
/// most one of verdict or message, and at most one of timing.
fn compare_results(
    a: &ScenarioResult,
    b: &ScenarioResult,
    repeated: bool,
    thresholds: Thresholds,
) -> Vec<Change> {
    let change = |kind: Kind, steps: Vec<StepChange>| Change {
        kind,
        scenario: a.id.clone(),
        repetition: a.repetition,
        repeated,
        before: Some(state(a)),
        after: Some(state(b)),
        steps,
    };
    let steps = step_changes(a, b);
    let same = a.verdict == b.verdict;
    let failing = same && a.verdict.is_failure();
    let kind = if !same && !a.verdict.is_failure() && b.verdict.is_failure() {
        Some(Kind::NewlyFailing)
    } else if !same && b.verdict == Verdict::Pass {
        Some(Kind::NewlyPassing)
    } else if !same {
        Some(Kind::VerdictChanged)
    } else if failing && steps.iter().any(StepChange::newly_failing) {
        Some(Kind::NewlyFailing)
    } else if failing && steps.iter().any(StepChange::newly_passing) {
        Some(Kind::NewlyPassing)
    } else if !steps.is_empty() || message(a) != message(b) {
        Some(Kind::MessageChanged)
    } else {
        None
    };
    let mut changes: Vec<Change> = kind.map(|kind| change(kind, steps)).into_iter().collect();
    let timed = !a.steps.is_empty() && !b.steps.is_empty();
    if same && timed && thresholds.changed(a.duration, b.duration) {
        let kind = if b.duration > a.duration {
            Kind::Slower
        } else {
            Kind::Faster
        };
        let most = paired_steps(a, b)
            .max_by(|(x, y), (v, w)| delta(x, y).total_cmp(&delta(v, w)))
            .map(|(x, y)| step_change(x, y));
        changes.push(change(kind, most.into_iter().collect()));
    }
    changes
}

/// The steps with the same index in both results.
fn paired_steps<'a>(
    a: &'a ScenarioResult,
    b: &'a ScenarioResult,
) -> impl Iterator<Item = (&'a StepResult, &'a StepResult)> {
    a.steps
        .iter()
        .filter_map(|x| Some((x, b.steps.iter().find(|y| y.index == x.index)?)))
}

/// The steps in both results whose verdict or first message differs.
fn step_changes(a: &ScenarioResult, b: &ScenarioResult) -> Vec<StepChange> {
    paired_steps(a, b)
        .filter(|(x, y)| x.verdict != y.verdict || step_message(x) != step_message(y))
        .map(|(x, y)| step_change(x, y))
        .collect()
}

fn step_change(a: &StepResult, b: &StepResult) -> StepChange {
    let step_state = |step: &StepResult| State {
        verdict: step.verdict,
        message: step_message(step),
        duration_ms: millis(step.duration),
    };
    StepChange {
        index: b.index,
        label: b.label.clone(),
        label_before: Some(a.label.clone()).filter(|l| *l != b.label),
        before: step_state(a),
        after: step_state(b),
    }
}

/// How much a step's time changed, in milliseconds.
fn delta(a: &StepResult, b: &StepResult) -> f64 {
    (millis(b.duration) - millis(a.duration)).abs()
}

fn step_message(step: &StepResult) -> Option<String> {
    step.failures.first().map(|f| f.headline())
}

fn message(result: &ScenarioResult) -> Option<String> {
    Some(headline(result)).filter(|m| !m.is_empty())
}

fn state(result: &ScenarioResult) -> State {
    State {
        verdict: result.verdict,
        message: message(result),
        duration_ms: millis(result.duration),
    }
}

fn millis(duration: Duration) -> f64 {
    duration.as_micros() as f64 / 1000.0
}

fn run(report: &ReadReport) -> Run {
    Run {
        file: report.file.clone(),
        toolpass: report.header.toolpass.clone(),
        protocol: report.header.protocol.clone(),
        implementation: report.header.implementation.clone(),
        started: report.header.started.clone(),
        results: report.results.len(),
        passed: report.passed,
        duration_ms: millis(report.duration),
    }
}

/// What differs between the runs' headers that the reader should know.
fn notes(before: &Run, after: &Run) -> Vec<String> {
    let mut notes = Vec::new();
    if before.protocol != after.protocol {
        notes.push(format!(
            "the runs speak different protocol versions ({} → {}): compared all the same, but \
             a change may come from the protocol",
            before.protocol, after.protocol
        ));
    }
    for side in [before, after] {
        let major = ProtocolVersion::parse(&side.protocol).map(ProtocolVersion::major);
        if major != Some(PROTOCOL_MAJOR) {
            notes.push(format!(
                "{} was written for {}; this runner reads toolpass/{PROTOCOL_MAJOR} reports",
                side.file, side.protocol
            ));
        }
    }
    if before.toolpass != after.toolpass {
        notes.push(format!(
            "the runner's version changed ({} → {})",
            before.toolpass, after.toolpass
        ));
    }
    notes
}

#[cfg(test)]
mod tests;
