//! A batch: the calls a model made in one turn, run as Qwen's
//! `CoreToolScheduler` runs them, then held to the batch budget.
//!
//! Qwen's `partitionToolCalls` splits the calls, in order, into runs: each
//! run of consecutive concurrency-safe calls (kinds Read, Search, Fetch, and
//! a shell command its classifier finds read-only) runs in parallel, at most
//! [`MAX_CONCURRENCY`] at once; every other call runs alone, after the run
//! before it has finished, so a mutator sees every read the model made
//! before it and no read sees a later write. Results come back in the
//! calls' order.
//!
//! A call that must ask the user waits for `confirm` without holding the
//! batch: the calls after it run (Qwen holds the whole batch until every
//! call is answered, which a client of a one-reply batch could not do; the
//! waiting call runs when it is answered, under the prior-read checks of
//! that moment).
//!
//! The batch budget ([`hold_batch`]) then applies to every call that
//! completed, whatever its status, as Qwen's `applyBatchOutputBudget`.

use serde_json::Value;
use toolpass_core::budget::{self, BatchReport, Entry, Part, Planned};
use toolpass_core::shell_read_only::{self, Safety};

use super::{CallOutcome, Scheduled, schedule_one};
use crate::context::InvocationContext;
use crate::kind::Kind;
use crate::output_budget::persist;
use crate::session::Session;
use crate::tools::tool_call;

/// Qwen's default `QWEN_CODE_MAX_TOOL_CONCURRENCY`: parallel calls at once.
pub const MAX_CONCURRENCY: usize = 10;

/// One call of a batch.
#[derive(Debug, Clone)]
pub struct BatchCall {
    /// The tool.
    pub name: String,
    /// Its arguments.
    pub arguments: Value,
    /// Its id, its cancellation and where its updates go.
    pub context: InvocationContext,
}

/// A batch after it ran.
pub struct BatchOutcome {
    /// One per call, in the calls' order.
    pub calls: Vec<Scheduled>,
    /// What the batch budget did; `None` when the session has none.
    pub report: Option<BatchReport>,
}

/// Runs `calls` as one batch in `session` and holds what they return to
/// the session's batch budget.
#[must_use]
pub fn schedule_batch(session: &Session, calls: &[BatchCall]) -> BatchOutcome {
    let mut scheduled: Vec<Option<Scheduled>> = Vec::with_capacity(calls.len());
    scheduled.resize_with(calls.len(), || None);
    let mut start = 0;
    while start < calls.len() {
        let safe = |call: &BatchCall| concurrency_safe(session, &call.name, &call.arguments);
        let Some(first) = calls.get(start) else { break };
        let end = if safe(first) {
            start
                + calls
                    .get(start..)
                    .unwrap_or_default()
                    .iter()
                    .take_while(|c| safe(c))
                    .count()
        } else {
            start + 1
        };
        run_group(session, calls, start..end, &mut scheduled);
        start = end;
    }
    let mut calls_done: Vec<Scheduled> = scheduled
        .into_iter()
        .map(|s| s.unwrap_or_else(unreachable_slot))
        .collect();
    let mut completed: Vec<(&str, &str, &mut CallOutcome)> = Vec::new();
    for (call, answer) in calls.iter().zip(calls_done.iter_mut()) {
        if let Scheduled::Done(outcome) = answer {
            completed.push((call.context.call_id(), call.name.as_str(), outcome));
        }
    }
    let report = hold_batch(session, &mut completed);
    BatchOutcome {
        calls: calls_done,
        report,
    }
}

/// A slot no group filled: cannot happen, as the groups cover every call;
/// answered as an internal error rather than a panic.
fn unreachable_slot() -> Scheduled {
    let failure = crate::result::Failure::new(
        crate::error_code::ToolErrorCode::UnhandledException,
        "the batch lost this call's answer",
    );
    Scheduled::Done(super::settled(failure.into()))
}

/// Runs the calls `range` of `calls`: alone, or in parallel in waves of at
/// most [`MAX_CONCURRENCY`].
fn run_group(
    session: &Session,
    calls: &[BatchCall],
    range: std::ops::Range<usize>,
    scheduled: &mut [Option<Scheduled>],
) {
    let (Some(group), Some(slots)) = (calls.get(range.clone()), scheduled.get_mut(range)) else {
        return;
    };
    if group.len() == 1 {
        if let (Some(call), Some(slot)) = (group.first(), slots.first_mut()) {
            *slot = Some(schedule_one(
                session,
                &call.name,
                &call.arguments,
                &call.context,
            ));
        }
        return;
    }
    for (wave, wave_slots) in group
        .chunks(MAX_CONCURRENCY)
        .zip(slots.chunks_mut(MAX_CONCURRENCY))
    {
        std::thread::scope(|scope| {
            for (call, slot) in wave.iter().zip(wave_slots.iter_mut()) {
                scope.spawn(move || {
                    *slot = Some(schedule_one(
                        session,
                        &call.name,
                        &call.arguments,
                        &call.context,
                    ));
                });
            }
        });
    }
}

/// Qwen's `isToolCallConcurrencySafe`: the tool's kind is Read, Search or
/// Fetch, or it runs a shell command the classifier finds read-only. A call
/// through `tool_call` is judged by the tool it carries; an unknown tool is
/// not safe (it fails alone, in its place).
fn concurrency_safe(session: &Session, name: &str, arguments: &Value) -> bool {
    let (name, arguments) = if name == tool_call::NAME {
        let target = arguments.get("name").and_then(Value::as_str);
        let inner = arguments.get("arguments").unwrap_or(&Value::Null);
        match target {
            Some(target) => (target, inner),
            None => return false,
        }
    } else {
        (name, arguments)
    };
    let Some(tool) = session.registry().get(name) else {
        return false;
    };
    match tool.kind() {
        Kind::Execute => arguments
            .get("command")
            .and_then(Value::as_str)
            .is_some_and(|command| shell_read_only::classify(command).safety == Safety::ReadOnly),
        kind => kind.is_concurrency_safe(),
    }
}

/// Gate 3: holds the completed calls of a batch, `(call id, tool, outcome)`,
/// to the session's batch budget (Qwen's `finalizeToolResponses`). Each
/// call's text is its response's `output` (a success) or `error` (any other
/// status). `None` when the session has no budget.
pub fn hold_batch(
    session: &Session,
    completed: &mut [(&str, &str, &mut CallOutcome)],
) -> Option<BatchReport> {
    let budget = session.config().batch_budget;
    if budget == 0 {
        return None;
    }
    let finalized = {
        let parts: Vec<[Part<'_>; 1]> = completed
            .iter()
            .map(|(_, _, outcome)| [part(outcome)])
            .collect();
        let files: Vec<Vec<&str>> = completed
            .iter()
            .map(|(_, _, outcome)| {
                outcome
                    .persisted_output_path
                    .as_deref()
                    .and_then(std::path::Path::to_str)
                    .into_iter()
                    .collect()
            })
            .collect();
        let entries: Vec<Entry<'_>> = completed
            .iter()
            .zip(&parts)
            .zip(&files)
            .map(|(((call_id, tool, outcome), parts), files)| Entry {
                call_id,
                tool_name: tool,
                parts,
                persisted: outcome.cut.then_some(files.as_slice()),
            })
            .collect();
        let plan = match budget::plan_batch(&entries, budget) {
            Planned::Cut(plan) => plan,
            Planned::Whole { units } => {
                return Some(BatchReport {
                    budget,
                    before: units,
                    after: units,
                    reduced: 0,
                });
            }
            Planned::Unlimited => return None,
        };
        let written: Vec<Option<String>> = plan
            .spills()
            .iter()
            .map(
                |spill| match persist::save(session, &spill.call_id, &spill.text) {
                    Ok(path) => Some(path.display().to_string()),
                    Err(unsaved) => {
                        tracing::warn!(
                            "the batch budget could not save {}: {unsaved:?}",
                            spill.call_id
                        );
                        None
                    }
                },
            )
            .collect();
        plan.finish(&written)
    };
    for replacement in finalized.replacements {
        if let Some((_, _, outcome)) = completed.get_mut(replacement.entry) {
            outcome.result.llm_content = replacement.text;
            outcome.cut = true;
        }
    }
    for (entry, files) in finalized.persisted.iter().enumerate() {
        let first = files.as_ref().and_then(|f| f.first());
        if let (Some((_, _, outcome)), Some(path)) = (completed.get_mut(entry), first) {
            outcome.persisted_output_path = Some(path.into());
        }
    }
    let report = finalized.report;
    if report.reduced > 0 {
        tracing::info!("{}", report.message());
    }
    Some(report)
}

/// The response part Qwen's finalizer reads for `outcome`: its text as the
/// `output` of a success, the `error` of anything else.
fn part(outcome: &CallOutcome) -> Part<'_> {
    let text = outcome.result.llm_content.as_str();
    if outcome.result.is_error() || outcome.cancelled {
        Part {
            error: Some(text),
            ..Part::default()
        }
    } else {
        Part {
            output: Some(text),
            ..Part::default()
        }
    }
}

impl std::fmt::Debug for BatchOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchOutcome")
            .field("calls", &self.calls.len())
            .field("report", &self.report)
            .finish()
    }
}
