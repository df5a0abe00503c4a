//! What Qwen's `CoreToolScheduler` does around one call, minus the model
//! loop: find the tool, build the invocation (a build failure is the bare
//! message, as `createErrorResponse` sends it), decide by the approval mode
//! whether it runs, asks the user or is refused ([`toolpass_core::approval`]),
//! run it (a failure reaches the model as its error message, as Qwen's
//! scheduler sends it), replace an empty output with Qwen's "completed with
//! no output" marker, and hold the output to its budget ([`budget`]).
//!
//! A call that asks is returned as [`Pending`]: it holds no lock and no
//! file, only the invocation and the question. [`confirm`] carries out the
//! user's answer; the invocation then prepares itself again from the file
//! as it is by then, so every prior-read check runs after the confirmation
//! too.
//!
//! Cancellation is checked where Qwen's scheduler checks its abort signal:
//! before the tool starts, and once it returns. The `call.park` fault point
//! parks a call when it starts executing until it is cancelled.

mod batch;
mod lookup;

pub use batch::{BatchCall, BatchOutcome, MAX_CONCURRENCY, hold_batch, schedule_batch};
pub use toolpass_core::budget::BatchReport;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Map, Value};
use toolpass_core::approval::{self, ApprovalMode, Gate, PlanShell};

use crate::confirmation::{Answer, Confirmation};
use crate::context::InvocationContext;
use crate::error_code::ToolErrorCode;
use crate::faults::{FaultPoint, RENDEZVOUS_WAIT};
use crate::output_budget::{self, persist};
use crate::result::{Budget, Display, Failure, FileDiff, ToolResult};
use crate::session::Session;
use crate::tool::{Invocation, Tool};
use crate::tools::tool_call;

/// The update a call parked by `call.park` sends when it parks.
pub const PARKED: &str = "call.park: parked until cancelled";

/// Qwen's reason for a call the user declined (`handleConfirmationResponse`).
const DECLINED: &str = "User did not allow tool call";
/// Qwen's reason for a call cancelled before it started.
const CANCELLED_BEFORE_EXECUTION: &str = "Tool call cancelled before execution.";
/// Qwen's reason for a call cancelled while it ran
/// (`TOOL_CANCELLED_BEFORE_COMPLETION_MESSAGE`).
const CANCELLED_BEFORE_COMPLETION: &str = "User intentionally cancelled this tool call. Stop and \
                                           await further instructions; do not retry or work \
                                           around it.";
/// Qwen's reason for a call whose tool finished before it noticed the
/// cancellation (`TOOL_CANCELLED_AFTER_COMPLETION_MESSAGE`).
const CANCELLED_AFTER_COMPLETION: &str = "The tool had already completed; its output was \
                                          discarded. User intentionally cancelled. Stop and \
                                          await further instructions; do not retry.";

/// One call's result, with where its full output went when it was cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallOutcome {
    /// What the tool produced, after the scheduler's treatment.
    pub result: ToolResult,
    /// The spill file holding the untruncated output.
    pub persisted_output_path: Option<PathBuf>,
    /// A gate cut or replaced the text (with or without a file): the batch
    /// budget then saves nothing more of it (Qwen's decided
    /// `persistedOutputFiles`).
    pub cut: bool,
    /// The call was cancelled: declined by the user, or cancelled by the
    /// client. `result` says what the model is told.
    pub cancelled: bool,
}

/// Qwen's refusal of a writing shell command in plan mode
/// (`WRITE_BLOCK_MESSAGE`, `plan-mode-shell-policy.ts`).
const PLAN_SHELL_WRITE_BLOCKED: &str = "Plan mode blocked this shell command because it was \
                                        classified as state-modifying. Do not retry it through \
                                        wrappers or obfuscation; continue read-only \
                                        investigation and include the action in the plan.";
/// Qwen's reason for an answer other than "proceed once" to an unknown
/// shell command in plan mode (`STALE_APPROVAL_MESSAGE`).
const PLAN_SHELL_ONCE_ONLY: &str = "Plan-mode shell approval is no longer valid because the \
                                    mode, permission policy, or exact invocation changed. Submit \
                                    a new tool call.";

/// A call waiting for the user's answer. Holds no lock and no open file.
pub struct Pending {
    tool: Arc<dyn Tool>,
    invocation: Box<dyn Invocation>,
    confirmation: Confirmation,
    /// What the auto-mode classifier would be shown of the call.
    classifier_input: Map<String, Value>,
    /// Only "proceed once" runs it: an unknown shell command in plan mode.
    once_only: bool,
}

/// Where [`schedule`] left a call.
pub enum Scheduled {
    /// It ran, failed, or was refused.
    Done(CallOutcome),
    /// It waits for the user's answer ([`confirm`]).
    Awaiting(Pending),
}

impl Pending {
    /// What the user is asked.
    #[must_use]
    pub fn confirmation(&self) -> &Confirmation {
        &self.confirmation
    }

    /// What Qwen's auto-mode classifier would be shown of the call
    /// ([`Tool::classifier_input`]; through `tool_call`, the target's
    /// wrapped as Qwen's `ToolCallTool` wraps it).
    #[must_use]
    pub fn classifier_input(&self) -> &Map<String, Value> {
        &self.classifier_input
    }
}

/// Runs the tool `name` with `arguments` in `session`, or stops where the
/// approval mode says the user must be asked. A call on its own is a batch
/// of one: its result is held to the batch budget too, as Qwen's scheduler
/// holds every completed batch.
#[must_use]
pub fn schedule(
    session: &Session,
    name: &str,
    arguments: &Value,
    context: &InvocationContext,
) -> Scheduled {
    let mut scheduled = schedule_one(session, name, arguments, context);
    if let Scheduled::Done(outcome) = &mut scheduled {
        hold_batch(session, &mut [(context.call_id(), name, outcome)]);
    }
    scheduled
}

/// [`schedule`] without the batch budget: a call of a batch.
fn schedule_one(
    session: &Session,
    name: &str,
    arguments: &Value,
    context: &InvocationContext,
) -> Scheduled {
    // A `tool_call` is the call it carries: the target runs under its own
    // rules, as if the model had called it.
    let routed;
    let routed_through_tool_call = name == tool_call::NAME;
    let (name, arguments) = if routed_through_tool_call {
        match tool_call::resolve(session.registry(), arguments, session) {
            Ok(target) => {
                routed = target;
                (routed.name.as_str(), &routed.arguments)
            }
            Err(refusal) => return Scheduled::Done(settled(refusal.into())),
        }
    } else {
        (name, arguments)
    };
    let Some(tool) = session.registry().get(name) else {
        let message = lookup::tool_not_found_message(session, name);
        let failure = Failure::new(ToolErrorCode::ToolNotRegistered, &message)
            .error_display(&message)
            .into();
        return Scheduled::Done(settled(failure));
    };
    tracing::debug!(tool = name, "call");
    let invocation = match tool.build(arguments, session) {
        Ok(invocation) => invocation,
        Err(error) => {
            let failure = Err(error.into());
            return Scheduled::Done(finish(session, tool.as_ref(), failure, context));
        }
    };
    let mode = session.approval_mode();
    let plan_shell = (mode == ApprovalMode::Plan)
        .then(|| invocation.plan_mode_safety())
        .flatten()
        .map(approval::plan_shell);
    if plan_shell == Some(PlanShell::Blocked) {
        return Scheduled::Done(refused(
            Failure::new(ToolErrorCode::ExecutionDenied, PLAN_SHELL_WRITE_BLOCKED)
                .display(PLAN_SHELL_WRITE_BLOCKED),
        ));
    }
    let once_only = plan_shell == Some(PlanShell::AskOnce);
    let interactive = invocation.requires_user_interaction(session);
    let gate = if once_only {
        Gate::NeedsDetails
    } else if interactive {
        approval::before_details_interactive(invocation.default_permission())
    } else {
        approval::before_details(invocation.default_permission(), mode)
    };
    match gate {
        Gate::Run => return Scheduled::Done(run(session, tool.as_ref(), &*invocation, context)),
        Gate::Denied => {
            let message =
                format!("Tool \"{name}\" is denied: the tool's default permission is 'deny'.");
            return Scheduled::Done(refused(Failure::new(
                ToolErrorCode::ExecutionDenied,
                message,
            )));
        }
        Gate::NeedsDetails | Gate::Ask | Gate::PlanBlocked => {}
    }
    // Qwen prepares the question before it looks at plan mode: a call that
    // would fail anyway fails with its own error, in every mode.
    let confirmation = match invocation.confirmation(session) {
        Ok(confirmation) => confirmation,
        Err(failure) => {
            return Scheduled::Done(finish(session, tool.as_ref(), Err(failure), context));
        }
    };
    // A shell command plan mode judged by its safety is asked, never
    // refused as a kind (Qwen skips `isPlanModeBlocked` for it).
    let gate = if plan_shell.is_some() {
        Gate::Ask
    } else {
        approval::after_details(confirmation.kind(), mode)
    };
    match gate {
        Gate::Run => Scheduled::Done(run(session, tool.as_ref(), &*invocation, context)),
        Gate::PlanBlocked => Scheduled::Done(refused(plan_blocked(name))),
        Gate::Ask | Gate::NeedsDetails | Gate::Denied => {
            let mut classifier_input = tool.classifier_input(arguments, session);
            if routed_through_tool_call {
                classifier_input = through_tool_call(tool.name(), classifier_input);
            }
            Scheduled::Awaiting(Pending {
                tool,
                invocation,
                confirmation,
                classifier_input,
                once_only,
            })
        }
    }
}

/// Carries out the user's `answer` to a call that was waiting for it; its
/// result is held to the batch budget as a batch of one.
#[must_use]
pub fn confirm(
    session: &Session,
    pending: Pending,
    answer: Answer,
    context: &InvocationContext,
) -> CallOutcome {
    let name = pending.tool.name().to_owned();
    let mut outcome = confirm_one(session, pending, answer, context);
    hold_batch(session, &mut [(context.call_id(), &name, &mut outcome)]);
    outcome
}

fn confirm_one(
    session: &Session,
    pending: Pending,
    answer: Answer,
    context: &InvocationContext,
) -> CallOutcome {
    let Pending {
        tool,
        invocation,
        confirmation,
        once_only,
        ..
    } = pending;
    // Qwen's `onConfirm` for questions takes "proceed" as answered, with
    // whatever answers came (none, here). A modify of anything but an
    // edit's proposal cancels: running the original command or MCP call
    // (as Qwen does) would report success for what the user rewrote. The
    // server refuses it before this.
    let answer = match (answer, &confirmation) {
        (Answer::ProceedOnce | Answer::ProceedAlways, Confirmation::AskUserQuestion { .. }) => {
            Answer::Answers(BTreeMap::new())
        }
        (Answer::Modify(_), c) if !matches!(c, Confirmation::Edit(_)) => Answer::Cancel,
        (answer, _) => answer,
    };
    if once_only && !matches!(answer, Answer::ProceedOnce | Answer::Cancel) {
        return cancelled(
            PLAN_SHELL_ONCE_ONLY,
            Display::Text(PLAN_SHELL_ONCE_ONLY.to_owned()),
        );
    }
    match answer {
        Answer::Cancel => {
            // Qwen keeps the proposed diff on screen for a declined edit.
            let display = match &confirmation {
                Confirmation::Edit(asked) => Display::Diff(Box::new(FileDiff::new(
                    &asked.file_path,
                    asked.original.clone().unwrap_or_default(),
                    asked.proposed.clone(),
                ))),
                Confirmation::Info { prompt, .. } => Display::Text(prompt.clone()),
                Confirmation::Exec { command, .. } => Display::Text(command.clone()),
                Confirmation::Mcp {
                    tool_display_name, ..
                } => Display::Text(tool_display_name.clone()),
                Confirmation::AskUserQuestion { title, .. } => Display::Text(title.clone()),
            };
            cancelled(DECLINED, display)
        }
        Answer::ProceedOnce => run(session, tool.as_ref(), &*invocation, context),
        Answer::ProceedAlways => {
            if let Some(mode) = approval::mode_after_proceed_always(confirmation.kind()) {
                session.set_approval_mode(mode);
            }
            invocation.proceed_always(session);
            run(session, tool.as_ref(), &*invocation, context)
        }
        Answer::Modify(content) => {
            let modified = match &confirmation {
                Confirmation::Edit(asked) => invocation.modified(asked, content),
                _ => None,
            };
            let invocation = modified.unwrap_or(invocation);
            run(session, tool.as_ref(), &*invocation, context)
        }
        Answer::Answers(answers) => {
            let answered = invocation.answered(answers);
            let invocation = answered.unwrap_or(invocation);
            run(session, tool.as_ref(), &*invocation, context)
        }
    }
}

/// Qwen's `ToolCallTool.toAutoClassifierInput`: the target's name, with its
/// projection as `arguments` unless it forwards nothing.
fn through_tool_call(target: &str, input: Map<String, Value>) -> Map<String, Value> {
    let mut wrapped = Map::new();
    wrapped.insert("name".to_owned(), Value::from(target));
    if !input.is_empty() {
        wrapped.insert("arguments".to_owned(), Value::Object(input));
    }
    wrapped
}

/// Runs `name` as a call the user approves once if asked: for callers
/// outside a server (tests, benches), with nobody watching.
#[must_use]
pub fn execute_call(session: &Session, name: &str, arguments: &Value) -> CallOutcome {
    let context = InvocationContext::detached();
    match schedule(session, name, arguments, &context) {
        Scheduled::Done(outcome) => outcome,
        Scheduled::Awaiting(pending) => confirm(session, pending, Answer::ProceedOnce, &context),
    }
}

/// Executes an approved invocation, minding cancellation.
fn run(
    session: &Session,
    tool: &dyn Tool,
    invocation: &dyn Invocation,
    context: &InvocationContext,
) -> CallOutcome {
    if context.cancellation.is_requested() {
        return cancelled(
            CANCELLED_BEFORE_EXECUTION,
            Display::Text(CANCELLED_BEFORE_EXECUTION.to_owned()),
        );
    }
    if session.faults().fire(FaultPoint::CallPark) {
        context.update(PARKED);
        // Ends when the client cancels the call or can no longer do so.
        let _ended = context.cancellation.wait_for_client();
        return cancelled(
            CANCELLED_BEFORE_COMPLETION,
            Display::Text(PARKED.to_owned()),
        );
    }
    if session.faults().fire(FaultPoint::CallRendezvous)
        && let Err(missed) = session.faults().meet(RENDEZVOUS_WAIT)
    {
        let failure = Failure::new(ToolErrorCode::ExecutionFailed, missed.message());
        return finish(session, tool, Err(failure), context);
    }
    let result = invocation.execute(session, context);
    if context.cancellation.is_requested() {
        return cancelled(
            CANCELLED_AFTER_COMPLETION,
            Display::Text(CANCELLED_AFTER_COMPLETION.to_owned()),
        );
    }
    finish(session, tool, result, context)
}

/// The scheduler's treatment of what the tool returned.
fn finish(
    session: &Session,
    tool: &dyn Tool,
    result: Result<ToolResult, Failure>,
    context: &InvocationContext,
) -> CallOutcome {
    let mut result = result.unwrap_or_else(ToolResult::from);
    // Qwen's scheduler answers a failed call with the error's message, not
    // the tool's llmContent (`createErrorResponse(new Error(
    // toolResult.error.message))` in coreToolScheduler.ts): that message is
    // what the model reads.
    // A timeout is the exception: the model gets the tool's text, with the
    // output before the timeout (Qwen's `isTimeout` branch).
    if let Some(failure) = &result.error
        && failure.code != ToolErrorCode::ExecutionTimeout
        && failure.message != result.llm_content
    {
        result.llm_content = failure.message.clone();
    }
    // Qwen's `truncateLlmContent`: the model is never handed an empty
    // result, which it could mistake for a lost one.
    if !result.is_error() && result.llm_content.trim().is_empty() {
        result.llm_content = format!("({} completed with no output)", tool.name());
    }
    let (persisted_output_path, cut) = match result.budget.take() {
        // The tool held its own output to budget (Qwen's
        // `outputBudgetApplied`), failure or not: no gate looks again.
        Budget::Applied(spilled) => {
            let cut = spilled.is_some();
            (spilled, cut)
        }
        Budget::Scheduler => hold(session, tool, &mut result, context.call_id()),
    };
    CallOutcome {
        result,
        persisted_output_path,
        cut,
        cancelled: false,
    }
}

/// The first two gates, in Qwen's order: the persist gate (a failure's
/// message has its own, exempting only `exec`), then, for a success, the
/// tool's limits. Returns the file written and whether the text changed.
fn hold(
    session: &Session,
    tool: &dyn Tool,
    result: &mut ToolResult,
    call_id: &str,
) -> (Option<PathBuf>, bool) {
    let text = &result.llm_content;
    let persisted = if result.is_error() {
        persist::gate_failure(session, call_id, tool.name(), text, false)
    } else {
        persist::gate_result(session, call_id, tool.name(), text, false)
    };
    if let Some(persisted) = persisted {
        result.llm_content = persisted.text;
        return (persisted.file, true);
    }
    if result.is_error() {
        return (None, false);
    }
    let before = result.llm_content.len();
    let limits = output_budget::scheduler_limits(session, tool);
    let spilled = output_budget::hold(session, tool.name(), &limits, &mut result.llm_content);
    let cut = spilled.is_some() || result.llm_content.len() != before;
    (spilled, cut)
}

/// A call refused before it ran: the message is what the model reads.
fn refused(failure: Failure) -> CallOutcome {
    settled(ToolResult::from(failure))
}

pub(super) fn settled(result: ToolResult) -> CallOutcome {
    CallOutcome {
        result,
        persisted_output_path: None,
        cut: false,
        cancelled: false,
    }
}

/// A cancelled call: Qwen's `[Operation Cancelled] Reason: ...`.
fn cancelled(reason: &str, display: Display) -> CallOutcome {
    CallOutcome {
        result: ToolResult::new(format!("[Operation Cancelled] Reason: {reason}"), display),
        persisted_output_path: None,
        cut: false,
        cancelled: true,
    }
}

/// Qwen's refusal of a call that would change something in plan mode, as a
/// top-level session words it (`coreToolScheduler.ts`).
fn plan_blocked(name: &str) -> Failure {
    Failure::new(
        ToolErrorCode::ExecutionDenied,
        format!(
            "Tool blocked by plan mode: \"{name}\" is not a read-only tool. Only read-only tools \
             (read_file, grep_search, glob, web_fetch, etc.) are allowed in plan mode. Do NOT \
             retry this tool. Pivot to read-only alternatives to gather the information you \
             need, then call exit_plan_mode with a plan that covers this tool's purpose."
        ),
    )
    .display("Plan mode blocked a non-read-only tool call.")
}
#[cfg(test)]
mod batch_tests;
#[cfg(test)]
mod deferred_tests;

#[cfg(test)]
mod tests;
