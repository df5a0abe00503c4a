//! The steps that talk to the tools: `call` (and its `async` form),
//! `join`, `cancel`, `batch`, `confirm`, `fault`, and judging what they
//! answered.

use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use toolpass_protocol::{
    BatchCall, BatchParams, CallContext, CancelledParams, ConfirmParams, FaultParams, Notification,
    OutcomeSummary, ToolsCallParams, method,
};
use toolpass_scenario::{Call, Cancel, Confirm, Fault, Join, RpcError};

use super::super::judge::{Reply, check_json, error_was_due, judge};
use super::super::verdict::{CallTiming, Failure, Observed, Verdict};
use super::{Abort, Player, Running, StepOutcome, abort_verdict, dead, unknown_tool_outcome};
use crate::{CallError, CallErrorKind};

impl Player<'_> {
    pub(super) fn arguments(&self, call: &Call) -> Result<Map<String, Value>, Abort> {
        call.args
            .substitute(&self.vars)
            .map_err(|e| Abort::Scenario(Failure::new("args", e.to_string())))
    }

    pub(super) async fn call(&mut self, call: &Call) -> StepOutcome {
        let arguments = self.arguments(call)?;
        let call_id = self.call_id(call.id.as_deref().map(String::as_str));
        let params = match &self.session {
            // Its id is its progress token: updates name the call.
            Some(session) => ToolsCallParams::new(
                call.tool.value.clone(),
                arguments,
                CallContext {
                    session_id: session.clone(),
                    call_id: call_id.clone(),
                },
            )
            .with_progress_token(call_id.clone()),
            None => ToolsCallParams {
                name: call.tool.value.clone(),
                arguments,
                meta: None,
            },
        };
        if call.run_async {
            let pending = self
                .connection
                .start_request::<method::ToolsCall>(&params)
                .await
                .map_err(|e| dead(&e))?;
            let tool = call.tool.value.clone();
            self.running.insert(call_id, Running { tool, pending });
            return Ok(Vec::new());
        }
        let sent = Instant::now();
        let answer = self
            .connection
            .request_value::<method::ToolsCall>(&params, self.timeout)
            .await;
        let elapsed = sent.elapsed();
        let before = self.observed.len();
        let judged = self
            .settle(&call.tool.value, answer, call.expect.as_ref(), call_id)
            .await;
        if self.observed.len() > before
            && let Some(observed) = self.observed.last_mut()
        {
            observed.timing = Some(CallTiming {
                tool: call.tool.value.clone(),
                elapsed,
            });
        }
        judged
    }

    /// Judges the answer to a `tools/call` of `tool`.
    pub(super) async fn settle(
        &mut self,
        tool: &str,
        answer: Result<Value, CallError>,
        expect: Option<&toolpass_scenario::Expect>,
        call_id: String,
    ) -> StepOutcome {
        if let Some(judged) = expected_error(expect, &answer) {
            return Ok(judged);
        }
        let value = match answer {
            Err(e)
                if self.absent.contains(tool)
                    && matches!(e.kind(), CallErrorKind::ErrorResponse(_)) =>
            {
                unknown_tool_outcome(&e)
            }
            answer => match self.answered(answer, "call")? {
                Ok(value) => value,
                Err(failure) => return Ok(vec![failure]),
            },
        };
        self.judge_reply(value, expect, call_id, method::TOOLS_CALL)
            .await
    }

    pub(super) async fn join(&mut self, join: &Join) -> StepOutcome {
        self.land(&join.call_id, join.timeout_ms, join.expect.as_ref(), None)
            .await
    }

    pub(super) async fn cancel(&mut self, cancel: &Cancel) -> StepOutcome {
        let reason = Some(cancel.reason.clone());
        self.land(
            &cancel.call_id,
            cancel.timeout_ms,
            cancel.expect.as_ref(),
            reason,
        )
        .await
    }

    /// Takes the `async` call `id` out of flight, cancels it when `cancel`
    /// holds a reason (or none), and judges its answer, awaited at most
    /// `timeout_ms` (the runner's timeout when absent).
    async fn land(
        &mut self,
        id: &str,
        timeout_ms: Option<u64>,
        expect: Option<&toolpass_scenario::Expect>,
        cancel: Option<Option<String>>,
    ) -> StepOutcome {
        let running = self.running.remove(id).ok_or_else(|| {
            Abort::Scenario(Failure::new(
                "call",
                format!("no async call `{id}` is in flight"),
            ))
        })?;
        if let Some(reason) = cancel {
            let request_id = running.pending.id().clone();
            self.connection
                .notify(Notification::new::<method::Cancelled>(&CancelledParams {
                    request_id,
                    reason,
                }));
        }
        let limit = timeout_ms.map_or(self.timeout, Duration::from_millis);
        let answer = self.connection.finish_request(running.pending, limit).await;
        self.settle(&running.tool, answer, expect, id.to_owned())
            .await
    }

    /// Sends a request: its result, a failure of the step (a JSON-RPC error
    /// answer) or an abort (a dead connection).
    pub(super) async fn send<M: toolpass_protocol::method::Method>(
        &mut self,
        params: &M::Params,
        what: &str,
    ) -> Result<Result<Value, Failure>, Abort> {
        let answer = self
            .connection
            .request_value::<M>(params, self.timeout)
            .await;
        self.answered(answer, what)
    }

    /// Turns a request's answer into a value, a failure of the step (a
    /// JSON-RPC error answer) or an abort (a dead connection).
    pub(super) fn answered(
        &self,
        answer: Result<Value, CallError>,
        what: &str,
    ) -> Result<Result<Value, Failure>, Abort> {
        match answer {
            Ok(value) => Ok(Ok(value)),
            Err(e) => match abort_verdict(&e) {
                Some(verdict) => Err(Abort::Connection(verdict, Box::new(e))),
                None => Ok(Err(Failure::new(
                    what,
                    format!("answered with a JSON-RPC error instead of a result: {e}"),
                ))),
            },
        }
    }

    pub(super) async fn judge_reply(
        &mut self,
        value: Value,
        expect: Option<&toolpass_scenario::Expect>,
        call_id: String,
        method_name: &str,
    ) -> StepOutcome {
        let summary = match OutcomeSummary::from_value(&value) {
            Ok(summary) => summary,
            Err(e) => {
                let error = self
                    .connection
                    .reject(method_name, e.to_string(), Some(value.to_string()))
                    .await;
                return Err(Abort::Connection(Verdict::ProtocolError, Box::new(error)));
            }
        };
        if summary.status == toolpass_protocol::Status::AwaitingConfirmation {
            self.awaiting.push(call_id);
        }
        self.observed.push(Observed {
            step: self.step,
            batch_call: None,
            summary: summary.clone(),
            timing: None,
        });
        let reply = Reply { value, summary };
        let failures = match expect {
            Some(expect) => judge(expect, &reply, self.context()).map_err(Abort::Scenario)?,
            None => Vec::new(),
        };
        self.last = Some(reply);
        Ok(failures)
    }

    pub(super) async fn batch(&mut self, step: &toolpass_scenario::Batch) -> StepOutcome {
        let calls = &step.calls;
        let session = self.session()?;
        let mut batch = Vec::with_capacity(calls.len());
        for call in calls {
            batch.push(BatchCall {
                call_id: self.call_id(call.id.as_deref().map(String::as_str)),
                name: call.tool.value.clone(),
                arguments: self.arguments(call)?,
            });
        }
        let ids: Vec<String> = batch.iter().map(|c| c.call_id.clone()).collect();
        let params = BatchParams {
            session_id: session,
            calls: batch,
        };
        let sent = Instant::now();
        let value = match self.send::<method::Batch>(&params, "batch").await? {
            Ok(value) => value,
            Err(failure) => return Ok(vec![failure]),
        };
        let elapsed = sent.elapsed();
        let results = match value.get("results").and_then(Value::as_array) {
            Some(results) if results.len() == calls.len() => results.clone(),
            _ => {
                let error = self
                    .connection
                    .reject(
                        method::BATCH,
                        format!(
                            "the result is not {{results: [...]}} with {} Outcomes",
                            calls.len()
                        ),
                        Some(value.to_string()),
                    )
                    .await;
                return Err(Abort::Connection(Verdict::ProtocolError, Box::new(error)));
            }
        };
        let mut failures = Vec::new();
        for (i, ((call, result), id)) in calls.iter().zip(results).zip(ids).enumerate() {
            let judged = self
                .judge_reply(result, call.expect.as_ref(), id, method::BATCH)
                .await?;
            if let Some(observed) = self.observed.last_mut() {
                observed.batch_call = Some(i + 1);
                // The batch is timed as one request, on its first call:
                // `toolpass bench` compares whole batches.
                if i == 0 {
                    observed.timing = Some(CallTiming {
                        tool: method::BATCH.to_owned(),
                        elapsed,
                    });
                }
            }
            failures.extend(judged.into_iter().map(|mut f| {
                f.what = format!("batch[{}].{}", i + 1, f.what);
                f
            }));
        }
        if let Some(expected) = &step.budget {
            // An implementation that gives no account fails here with
            // "budget is absent", as any absent member does.
            let failure = check_json("budget", expected, value.get("budget"), &self.vars)
                .map_err(Abort::Scenario)?;
            failures.extend(failure);
        }
        Ok(failures)
    }

    pub(super) async fn confirm(&mut self, confirm: &Confirm) -> StepOutcome {
        let session = self.session()?;
        let call_id = match &confirm.call_id {
            Some(id) => id.value.clone(),
            None => self.awaiting.last().cloned().ok_or_else(|| {
                Abort::Scenario(Failure::new(
                    "confirm",
                    "no earlier call awaits confirmation, and the step names no call_id",
                ))
            })?,
        };
        self.awaiting.retain(|id| *id != call_id);
        let text = |s: &toolpass_scenario::Located<String>| {
            self.vars
                .substitute(s)
                .map_err(|e| Abort::Scenario(Failure::new("confirm", e.to_string())))
        };
        let modified_content = confirm.modified_content.as_ref().map(text).transpose()?;
        let mut answers = std::collections::BTreeMap::new();
        for (key, answer) in &confirm.answers {
            answers.insert(key.clone(), text(answer)?);
        }
        let params = ConfirmParams {
            session_id: session,
            call_id: call_id.clone(),
            outcome: confirm.outcome,
            modified_content,
            answers,
        };
        let answer = self
            .connection
            .request_value::<method::Confirm>(&params, self.timeout)
            .await;
        if let Some(judged) = expected_error(confirm.expect.as_ref(), &answer) {
            return Ok(judged);
        }
        let value = match self.answered(answer, "confirm")? {
            Ok(value) => value,
            Err(failure) => return Ok(vec![failure]),
        };
        self.judge_reply(value, confirm.expect.as_ref(), call_id, method::CONFIRM)
            .await
    }

    pub(super) async fn fault(&mut self, fault: &Fault) -> StepOutcome {
        let params = FaultParams {
            session_id: self.session()?,
            point: fault.point.value.clone(),
            times: fault.times,
            skip: fault.skip,
        };
        let answer = self.send::<method::Fault>(&params, "fault").await?;
        Ok(answer.err().into_iter().collect())
    }
}

/// The judgement of an answer the step expects may be a JSON-RPC error
/// (`expect: {rpc_error: CODE}`, or an `rpc_error` alternative of
/// `any_of`); `None` when it expects only Outcomes, when it may take an
/// Outcome and got one, or when the connection died (which aborts as
/// usual).
fn expected_error(
    expect: Option<&toolpass_scenario::Expect>,
    answer: &Result<Value, CallError>,
) -> Option<Vec<Failure>> {
    let expect = expect?;
    let errors: Vec<RpcError> = expect
        .rpc_error
        .into_iter()
        .chain(
            expect
                .any_of
                .iter()
                .filter_map(|alternative| alternative.rpc_error),
        )
        .collect();
    if errors.is_empty() {
        return None;
    }
    let wanted = errors
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" or ");
    match answer {
        Ok(_) if expect.any_of.iter().any(|a| a.rpc_error.is_none()) => None,
        Ok(value) => Some(vec![Failure::diff(
            "rpc_error",
            error_was_due(&wanted),
            wanted,
            value.to_string(),
        )]),
        Err(e) => match e.kind() {
            CallErrorKind::ErrorResponse(error) if errors.iter().any(|r| r.matches(error.code)) => {
                Some(Vec::new())
            }
            CallErrorKind::ErrorResponse(error) => Some(vec![Failure::diff(
                "rpc_error",
                "answered with another JSON-RPC error",
                wanted,
                format!("{} {}", error.code, error.message),
            )]),
            _ => None,
        },
    }
}
