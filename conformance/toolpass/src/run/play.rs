//! Playing one scenario on one connection: open a session on the sandbox,
//! carry out each step in order, judge it, and stop at the first step the
//! implementation could not answer.

use std::cell::Cell;
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use toolpass_protocol::method::NOTICE;
use toolpass_protocol::{
    BatchCall, BatchParams, CallContext, ConfirmParams, Dialect, FaultParams, NoticeParams,
    OutcomeSummary, SessionCloseParams, SessionId, SessionOpenParams, ToolsCallParams,
    ToolsListParams, method,
};
use toolpass_scenario::{
    Call, Capture, CaptureSource, Confirm, ExpectFiles, ExpectTools, Fault, Scenario, Step,
    StepKind, Vars, WaitNotice,
};

use super::judge::{Context, Reply, check_json, judge};
use super::sandbox::Sandbox;
use super::verdict::{Failure, StepResult, Verdict};
use crate::{CallError, CallErrorKind, Connection};

/// How long a `wait_notice` waits when the step does not say.
const NOTICE_TIMEOUT: Duration = Duration::from_secs(10);

/// Why a scenario stopped before its last step: the connection is dead
/// (restart it) or the session could not be opened.
#[derive(Debug)]
pub(crate) struct Stopped {
    pub(crate) verdict: Verdict,
    pub(crate) reason: String,
}

/// What playing a scenario gave.
#[derive(Debug, Default)]
pub(crate) struct Played {
    /// The steps that ran.
    pub(crate) steps: Vec<StepResult>,
    /// Why it stopped early, if it did.
    pub(crate) stopped: Option<Stopped>,
    /// Snapshots rewritten in bless mode.
    pub(crate) blessed: usize,
    /// Every Outcome received, for `toolpass record`.
    pub(crate) observed: Vec<Observed>,
}

/// Plays `scenario` in `sandbox`.
pub(crate) async fn play(
    connection: &mut Connection,
    scenario: &Scenario,
    sandbox: &Sandbox,
    config: &super::RunConfig,
) -> Played {
    let root = sandbox.root().to_string_lossy().into_owned();
    let mut player = Player {
        vars: Vars::new(root.clone()),
        connection,
        sandbox,
        session: None,
        timeout: config.timeout,
        last: None,
        last_notice: None,
        awaiting: Vec::new(),
        calls: 0,
        bless: config.bless,
        blessed: Cell::new(0),
        step: 0,
        observed: Vec::new(),
        absent: absent_tools(scenario),
    };
    let (steps, stopped) = player.play(scenario, root).await;
    Played {
        steps,
        stopped,
        blessed: player.blessed.get(),
        observed: player.observed,
    }
}

impl Player<'_> {
    async fn play(
        &mut self,
        scenario: &Scenario,
        root: String,
    ) -> (Vec<StepResult>, Option<Stopped>) {
        if let Err(failure) = self.sandbox.write(&scenario.files, &self.vars) {
            return (Vec::new(), Some(stopped(Verdict::Error, &failure)));
        }
        if matches!(self.connection.peer().dialect(), Dialect::Toolpass(_)) {
            let params = SessionOpenParams {
                root,
                config: scenario.config.clone(),
            };
            match self
                .connection
                .request::<method::SessionOpen>(&params, self.timeout)
                .await
            {
                Ok(opened) => self.session = Some(opened.session_id),
                Err(e) => {
                    let verdict = abort_verdict(&e).unwrap_or(Verdict::Error);
                    let reason = format!("could not open a session: {e}{}", tail_note(&e));
                    return (Vec::new(), Some(Stopped { verdict, reason }));
                }
            }
        }
        if let Some(reason) = self.undeclared(scenario).await {
            self.close().await;
            let verdict = Verdict::Skip;
            return (Vec::new(), Some(Stopped { verdict, reason }));
        }
        let mut results = Vec::new();
        for (i, step) in scenario.steps.iter().enumerate() {
            let started = Instant::now();
            self.step = i + 1;
            let outcome = self.step(step).await;
            let (verdict, failures, stderr_tail) = match outcome {
                Ok(failures) if failures.is_empty() => (Verdict::Pass, failures, String::new()),
                Ok(failures) => (Verdict::Fail, failures, String::new()),
                Err(Abort::Scenario(failure)) => (Verdict::Error, vec![failure], String::new()),
                Err(Abort::Connection(verdict, e)) => (
                    verdict,
                    vec![Failure::new(step.kind_name(), e.to_string())],
                    e.stderr_tail().to_owned(),
                ),
            };
            results.push(StepResult {
                index: i + 1,
                line: step.pos.line,
                label: label(step),
                level: scenario.step_level(step),
                verdict,
                failures,
                stderr_tail,
                duration: started.elapsed(),
            });
            if verdict.is_abort() {
                let reason = format!("step {} ({}) could not complete", i + 1, label(step));
                return (results, Some(Stopped { verdict, reason }));
            }
        }
        self.close().await;
        (results, None)
    }
}

fn stopped(verdict: Verdict, failure: &Failure) -> Stopped {
    Stopped {
        verdict,
        reason: failure.headline(),
    }
}

/// Why a step stopped the scenario.
enum Abort {
    /// The scenario cannot go on (a placeholder with no value, a sandbox
    /// action that failed): the runner's or the scenario's fault.
    Scenario(Failure),
    /// The connection died: the implementation's fault.
    Connection(Verdict, Box<CallError>),
}

type StepOutcome = Result<Vec<Failure>, Abort>;

struct Player<'a> {
    connection: &'a mut Connection,
    sandbox: &'a Sandbox,
    session: Option<SessionId>,
    vars: Vars,
    timeout: Duration,
    /// The last Outcome, for `capture`.
    last: Option<Reply>,
    /// The text of the last notice a `wait_notice` matched.
    last_notice: Option<String>,
    /// Calls answered `awaiting_confirmation`, oldest first.
    awaiting: Vec<String>,
    /// Calls made, to mint ids.
    calls: usize,
    /// Whether snapshots that differ are rewritten (`--bless`).
    bless: bool,
    /// Snapshots rewritten so far.
    blessed: Cell<usize>,
    /// The step being played, from 1.
    step: usize,
    /// Every Outcome received so far.
    observed: Vec<Observed>,
    /// The tools the scenario says the implementation lacks (disabled, or
    /// excluded by an `expect_tools`): a call to one may be answered with a
    /// JSON-RPC error, as MCP's own example answers an unknown tool.
    absent: BTreeSet<String>,
}

/// An Outcome as received at a step, for `toolpass record` and
/// `toolpass bench`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observed {
    /// The step, from 1.
    pub step: usize,
    /// The call within a batch step, from 1.
    pub batch_call: Option<usize>,
    /// What the runner read of the Outcome.
    pub summary: OutcomeSummary,
    /// For a `call` step: the tool and the `tools/call` round trip, request
    /// written to answer read (judging not included).
    pub timing: Option<CallTiming>,
}

/// One `tools/call` as `toolpass bench` times it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallTiming {
    /// The tool called.
    pub tool: String,
    /// Request written to answer read.
    pub elapsed: Duration,
}

impl Player<'_> {
    async fn step(&mut self, step: &Step) -> StepOutcome {
        match &step.kind {
            StepKind::Call(call) => self.call(call).await,
            StepKind::Batch(calls) => self.batch(calls).await,
            StepKind::Confirm(confirm) => self.confirm(confirm).await,
            StepKind::Fs(actions) => {
                for action in actions {
                    self.sandbox
                        .apply(action, &self.vars)
                        .map_err(Abort::Scenario)?;
                }
                Ok(Vec::new())
            }
            StepKind::Fault(fault) => self.fault(fault).await,
            StepKind::ExpectTools(expect) => self.expect_tools(expect).await,
            StepKind::ExpectFiles(expect) => self.expect_files(expect),
            StepKind::WaitNotice(wait) => self.wait_notice(wait).await,
            StepKind::Capture(capture) => self.capture(capture),
        }
    }

    fn call_id(&mut self, id: Option<&str>) -> String {
        self.calls += 1;
        id.map_or_else(|| format!("call-{}", self.calls), str::to_owned)
    }

    fn arguments(&self, call: &Call) -> Result<Map<String, Value>, Abort> {
        call.args
            .substitute(&self.vars)
            .map_err(|e| Abort::Scenario(Failure::new("args", e.to_string())))
    }

    async fn call(&mut self, call: &Call) -> StepOutcome {
        let arguments = self.arguments(call)?;
        let call_id = self.call_id(call.id.as_deref().map(String::as_str));
        let params = match &self.session {
            Some(session) => ToolsCallParams::new(
                call.tool.value.clone(),
                arguments,
                CallContext {
                    session_id: session.clone(),
                    call_id: call_id.clone(),
                },
            ),
            None => ToolsCallParams {
                name: call.tool.value.clone(),
                arguments,
                meta: None,
            },
        };
        let sent = Instant::now();
        let answer = self
            .connection
            .request_value::<method::ToolsCall>(&params, self.timeout)
            .await;
        let value = match answer {
            Err(e)
                if self.absent.contains(&call.tool.value)
                    && matches!(e.kind(), CallErrorKind::ErrorResponse(_)) =>
            {
                unknown_tool_outcome(&e)
            }
            answer => match self.answered(answer, "call")? {
                Ok(value) => value,
                Err(failure) => return Ok(vec![failure]),
            },
        };
        let elapsed = sent.elapsed();
        let before = self.observed.len();
        let judged = self
            .judge_reply(value, call.expect.as_ref(), call_id, method::TOOLS_CALL)
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

    /// Sends a request: its result, a failure of the step (a JSON-RPC error
    /// answer) or an abort (a dead connection).
    async fn send<M: toolpass_protocol::method::Method>(
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
    fn answered(
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

    async fn judge_reply(
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

    async fn batch(&mut self, calls: &[toolpass_scenario::Located<Call>]) -> StepOutcome {
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
        let value = match self.send::<method::Batch>(&params, "batch").await? {
            Ok(value) => value,
            Err(failure) => return Ok(vec![failure]),
        };
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
            }
            failures.extend(judged.into_iter().map(|mut f| {
                f.what = format!("batch[{}].{}", i + 1, f.what);
                f
            }));
        }
        Ok(failures)
    }

    async fn confirm(&mut self, confirm: &Confirm) -> StepOutcome {
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
        let value = match self.send::<method::Confirm>(&params, "confirm").await? {
            Ok(value) => value,
            Err(failure) => return Ok(vec![failure]),
        };
        self.judge_reply(value, confirm.expect.as_ref(), call_id, method::CONFIRM)
            .await
    }

    async fn fault(&mut self, fault: &Fault) -> StepOutcome {
        let params = FaultParams {
            session_id: self.session()?,
            point: fault.point.value.clone(),
            times: fault.times,
            skip: fault.skip,
        };
        let answer = self.send::<method::Fault>(&params, "fault").await?;
        Ok(answer.err().into_iter().collect())
    }

    async fn expect_tools(&mut self, expect: &ExpectTools) -> StepOutcome {
        let tools = self.list_tools().await?;
        let tools = match tools {
            Ok(tools) => tools,
            Err(failure) => return Ok(vec![failure]),
        };
        let name = |tool: &Value| tool.get("name").and_then(Value::as_str).map(str::to_owned);
        let names: Vec<String> = tools.iter().filter_map(name).collect();
        let mut failures = Vec::new();
        let listing = names.join("\n");
        for wanted in &expect.includes {
            if !names.contains(&wanted.value) {
                failures.push(Failure::new(
                    "tools",
                    format!(
                        "{} is not declared (declared: {})",
                        wanted.value,
                        names.join(", ")
                    ),
                ));
            }
        }
        for unwanted in &expect.excludes {
            if names.contains(&unwanted.value) {
                failures.push(Failure::new(
                    "tools",
                    format!("{} is declared, and should not be", unwanted.value),
                ));
            }
        }
        if let Some(exact) = &expect.exact {
            let mut expected: Vec<String> = exact.iter().map(|n| n.value.clone()).collect();
            expected.sort();
            let mut actual = names.clone();
            actual.sort();
            if expected != actual {
                failures.push(Failure::diff(
                    "tools",
                    "the declared tools are not exactly the expected ones",
                    expected.join("\n"),
                    actual.join("\n"),
                ));
            }
        }
        for (tool, subset) in &expect.schema {
            let declared = tools.iter().find(|t| name(t).as_deref() == Some(tool));
            match declared {
                None => failures.push(Failure::new(
                    format!("tools[{tool}]"),
                    format!("{tool} is not declared (declared: {listing})"),
                )),
                Some(declared) => failures.extend(
                    check_json(
                        &format!("tools[{tool}]"),
                        subset,
                        Some(declared),
                        &self.vars,
                    )
                    .map_err(Abort::Scenario)?,
                ),
            }
        }
        Ok(failures)
    }

    /// Why the scenario is skipped, if it calls a tool the implementation
    /// does not declare in this session: a tool layer that offers no
    /// `list_directory` (or only `edit`) cannot be judged on it. A list that
    /// cannot be read skips nothing; the steps will say what is wrong.
    async fn undeclared(&mut self, scenario: &Scenario) -> Option<String> {
        let called = scenario.called_tools();
        if called.is_empty() {
            return None;
        }
        let declared = match self.list_tools().await {
            Ok(Ok(declared)) => declared,
            _ => return None,
        };
        let names: Vec<&str> = declared
            .iter()
            .filter_map(|d| d.get("name").and_then(Value::as_str))
            .collect();
        let missing: Vec<&str> = called.into_iter().filter(|t| !names.contains(t)).collect();
        (!missing.is_empty()).then(|| {
            super::skip::Skip::Undeclared(missing.into_iter().map(str::to_owned).collect())
                .to_string()
        })
    }

    /// Every declaration, following MCP's pagination cursor.
    async fn list_tools(&mut self) -> Result<Result<Vec<Value>, Failure>, Abort> {
        let mut tools = Vec::new();
        let mut cursor = None;
        loop {
            let params = ToolsListParams {
                session_id: self.session.clone(),
                cursor: cursor.take(),
            };
            let page = match self.send::<method::ToolsList>(&params, "tools").await? {
                Ok(page) => page,
                Err(failure) => return Ok(Err(failure)),
            };
            let Some(listed) = page.get("tools").and_then(Value::as_array) else {
                let error = self
                    .connection
                    .reject(
                        method::TOOLS_LIST,
                        "the result has no tools array",
                        Some(page.to_string()),
                    )
                    .await;
                return Err(Abort::Connection(Verdict::ProtocolError, Box::new(error)));
            };
            tools.extend(listed.iter().cloned());
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) if tools.len() < 10_000 => cursor = Some(next.to_owned()),
                _ => return Ok(Ok(tools)),
            }
        }
    }

    fn expect_files(&self, expect: &ExpectFiles) -> StepOutcome {
        let mut failures: Vec<Failure> = expect
            .files
            .iter()
            .flat_map(|(rel, expected)| self.sandbox.check(rel, expected, self.context()))
            .collect();
        if expect.exact {
            let entries = self.sandbox.entries().map_err(|e| {
                Abort::Scenario(Failure::new(
                    "files",
                    format!("could not list the sandbox: {e}"),
                ))
            })?;
            let extra: Vec<&String> = entries
                .iter()
                .filter(|path| !expect.files.keys().any(|rel| rel.value == **path))
                .collect();
            if !extra.is_empty() {
                failures.push(Failure::new(
                    "files",
                    format!(
                        "exact: the sandbox also holds {}",
                        extra
                            .iter()
                            .map(|p| p.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
        }
        Ok(failures)
    }

    async fn wait_notice(&mut self, wait: &WaitNotice) -> StepOutcome {
        let matcher = wait
            .matcher
            .substitute(&self.vars)
            .map_err(|e| Abort::Scenario(Failure::new("notice", e.to_string())))?;
        let limit = wait
            .timeout_ms
            .map_or(NOTICE_TIMEOUT, Duration::from_millis);
        let deadline = Instant::now() + limit;
        let mut seen = Vec::new();
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            let Some(notification) = self.connection.next_notification(left).await else {
                break;
            };
            if notification.method != NOTICE {
                continue;
            }
            let Some(notice) = notification
                .params
                .and_then(|p| serde_json::from_value::<NoticeParams>(p).ok())
            else {
                continue;
            };
            if wait.kind.as_ref().is_some_and(|kind| *kind != notice.kind) {
                continue;
            }
            if matcher.check(&notice.text).is_ok() {
                self.last_notice = Some(notice.text);
                return Ok(Vec::new());
            }
            seen.push(notice.text);
        }
        Ok(vec![Failure::diff(
            "notice",
            format!("no matching notice arrived within {limit:?}"),
            format!("{matcher:?}"),
            seen.join("\n---\n"),
        )])
    }

    fn capture(&mut self, capture: &Capture) -> StepOutcome {
        let source = match capture.from {
            CaptureSource::Llm => self.last.as_ref().map(|r| r.summary.llm_content.clone()),
            CaptureSource::ErrorMessage => self
                .last
                .as_ref()
                .and_then(|r| r.summary.error_message.clone()),
            CaptureSource::PersistedOutput => self
                .last
                .as_ref()
                .and_then(|r| r.persisted_output().map(str::to_owned)),
            CaptureSource::Notice => self.last_notice.clone(),
        };
        let Some(text) = source else {
            return Ok(vec![Failure::new(
                "capture",
                format!("there is no {:?} to capture from", capture.from),
            )]);
        };
        let mut failures = Vec::new();
        for (name, pattern) in &capture.vars {
            let pattern = pattern
                .substitute(&self.vars)
                .map_err(|e| Abort::Scenario(Failure::new("capture", e.to_string())))?;
            match pattern.capture(&text) {
                Some(value) => self.vars.set(name.value.clone(), value),
                None => failures.push(Failure::diff(
                    format!("capture[{}]", name.value),
                    "the regex does not match",
                    pattern.source().value.clone(),
                    text.clone(),
                )),
            }
        }
        Ok(failures)
    }

    fn context(&self) -> Context<'_> {
        Context {
            vars: &self.vars,
            blessed: self.bless.then_some(&self.blessed),
        }
    }

    fn session(&self) -> Result<SessionId, Abort> {
        self.session.clone().ok_or_else(|| {
            Abort::Scenario(Failure::new(
                "session",
                "this step needs a toolpass session; the implementation is a plain MCP server",
            ))
        })
    }

    /// Closes the session; a failure here judges nothing, and a dead
    /// connection is noticed by the next scenario.
    async fn close(&mut self) {
        if let Some(session_id) = self.session.take() {
            let params = SessionCloseParams { session_id };
            let _ignored = self
                .connection
                .request::<method::SessionClose>(&params, self.timeout)
                .await;
        }
    }
}

/// The tools a scenario says the implementation lacks: the session's
/// `disabled_tools` and every `expect_tools` exclusion.
fn absent_tools(scenario: &Scenario) -> BTreeSet<String> {
    let mut absent: BTreeSet<String> = scenario.config.disabled_tools.iter().cloned().collect();
    for step in &scenario.steps {
        if let StepKind::ExpectTools(expect) = &step.kind {
            absent.extend(expect.excludes.iter().map(|t| t.value.clone()));
        }
    }
    absent
}

/// A JSON-RPC error answering a call to a tool the implementation lacks,
/// read as the error result an MCP client shows the model: MCP lists an
/// unknown tool among the protocol errors (its example answers -32602,
/// "Unknown tool: ..."), and Qwen's own answer is an error result naming
/// the tool. Either way the model learns the name was wrong.
fn unknown_tool_outcome(error: &CallError) -> Value {
    let text = match error.kind() {
        CallErrorKind::ErrorResponse(error) => error.message.as_str(),
        _ => "",
    };
    serde_json::json!({
        "content": [{"type": "text", "text": text}],
        "isError": true,
    })
}

/// The verdict for a request that killed the connection; `None` for a
/// JSON-RPC error answer, which leaves it usable.
fn abort_verdict(error: &CallError) -> Option<Verdict> {
    match error.kind() {
        CallErrorKind::Timeout { .. } => Some(Verdict::Timeout),
        CallErrorKind::Crash { .. } => Some(Verdict::Crash),
        CallErrorKind::ProtocolError { .. } => Some(Verdict::ProtocolError),
        CallErrorKind::ErrorResponse(_) => None,
    }
}

fn tail_note(error: &CallError) -> String {
    let tail = error.stderr_tail().trim_end();
    if tail.is_empty() {
        String::new()
    } else {
        format!("\nstderr:\n{tail}")
    }
}

/// `call edit`, `batch (3 calls)`, `expect_files`, ...
fn label(step: &Step) -> String {
    match &step.kind {
        StepKind::Call(call) => format!("call {}", call.tool.value),
        StepKind::Batch(calls) => format!("batch ({} calls)", calls.len()),
        StepKind::Confirm(confirm) => format!("confirm {:?}", confirm.outcome),
        _ => step.kind_name().to_owned(),
    }
}
