//! Reports of a run. Every report is rendered from the same [`Report`]: the
//! results ([`crate::run::ScenarioResult`]), their [`Summary`] and the
//! [`RunInfo`] that says what ran against what, so they never disagree.
//!
//! - [`text`]: the human report on the terminal, with coloured diffs.
//! - [`jsonl`]: one JSON object per line, for tools (schema committed).
//! - [`junit`]: JUnit XML, for CI test tabs.
//! - [`markdown`]: a summary for a CI step summary page.
//!
//! [`read`] reads a `--jsonl` report back, for `toolpass diff`.

mod info;
pub mod jsonl;
pub mod junit;
pub mod markdown;
pub mod read;
mod summary;
pub mod text;

#[cfg(test)]
pub(crate) mod fixture;
#[cfg(test)]
mod hostile;
#[cfg(test)]
mod wording;

pub use info::{
    Filters, ImplementationInfo, RunInfo, Settings, SuiteProfile, parse_rfc3339, rfc3339,
};
pub(crate) use summary::run_failure;
pub use summary::{Score, Summary};

use crate::run::{Failure, ScenarioResult, StepResult, Verdict};

/// Everything a report renders.
#[derive(Debug, Clone, Copy)]
pub struct Report<'a> {
    /// What ran against what, and how.
    pub info: &'a RunInfo,
    /// The results, sorted by id and repetition.
    pub results: &'a [ScenarioResult],
    /// Their tallies.
    pub summary: &'a Summary,
}

/// `file:line` of a step.
fn location(result: &ScenarioResult, step: &StepResult) -> String {
    format!("{}:{}", text::file_name(result), step.line)
}

/// The area of a scenario: the first segment of its id.
fn area(id: &str) -> &str {
    id.split('/').next().unwrap_or(id)
}

/// The first step that did not pass, and its first failure when it has one.
fn first_failure(result: &ScenarioResult) -> Option<(&StepResult, Option<&Failure>)> {
    let step = result.failed_steps().next()?;
    Some((step, step.failures.first()))
}

/// One line saying why the scenario did not pass: its first failure's
/// headline, else the first line of its reason; empty for a pass.
pub(crate) fn headline(result: &ScenarioResult) -> String {
    if result.verdict == Verdict::Xpass {
        return "xpass: listed as an expected failure, but it passed".into();
    }
    if let Some((_, Some(failure))) = first_failure(result) {
        return failure.headline();
    }
    let reason = result.reason.as_deref().unwrap_or_default();
    if let Some(line) = reason.lines().next().filter(|l| !l.is_empty()) {
        return line.to_owned();
    }
    match first_failure(result) {
        Some((step, _)) => format!(
            "step {} `{}`: {}",
            step.index,
            step.label,
            step.verdict.as_str()
        ),
        None => String::new(),
    }
}

/// The name of one result among several repetitions: the id, with the
/// repetition when the run repeated scenarios.
fn result_name(result: &ScenarioResult, repeated: bool) -> String {
    if repeated {
        format!("{} (repetition {})", result.id, result.repetition)
    } else {
        result.id.clone()
    }
}

/// Whether any scenario ran more than once.
fn repeated(results: &[ScenarioResult]) -> bool {
    results.iter().any(|r| r.repetition > 1)
}
