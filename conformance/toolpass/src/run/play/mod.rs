//! Playing one scenario on one connection: open a session on the sandbox,
//! carry out each step in order, judge it, and stop at the first step the
//! implementation could not answer. The steps themselves are in [`calls`]
//! (what talks to the tools), [`checks`] (what only looks) and [`ending`]
//! (what ends the session or the server and judges what is left).

mod calls;
mod checks;
mod ending;
mod tools;

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use serde_json::Value;
use toolpass_protocol::{Dialect, SessionCloseParams, SessionId, SessionOpenParams, method};
use toolpass_scenario::{Scenario, Step, StepKind, Vars};

use super::judge::{Context, Reply};
use super::sandbox::Sandbox;
use super::verdict::{Failure, Observed, StepResult, Verdict};
use super::waits::Backlog;
use crate::{CallError, CallErrorKind, Connection, PendingReply};

/// How long a `wait_notice` or `wait_update` waits when the step does not
/// say.
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
        backlog: Backlog::default(),
        running: BTreeMap::new(),
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
    /// Notifications read and not yet waited for.
    backlog: Backlog,
    /// `async` calls sent and not yet joined or cancelled, by call id.
    running: BTreeMap<String, Running>,
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

/// An `async` call in flight.
struct Running {
    tool: String,
    pending: PendingReply,
}

impl Player<'_> {
    async fn step(&mut self, step: &Step) -> StepOutcome {
        match &step.kind {
            StepKind::Call(call) => self.call(call).await,
            StepKind::Join(join) => self.join(join).await,
            StepKind::Cancel(cancel) => self.cancel(cancel).await,
            StepKind::Batch(batch) => self.batch(batch).await,
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
            StepKind::WaitUpdate(wait) => self.wait_update(wait).await,
            StepKind::Capture(capture) => self.capture(capture),
            StepKind::CloseSession => self.close_session().await,
            StepKind::KillServer => self.kill_server().await,
            StepKind::ExpectNoProcesses(expect) => self.expect_no_processes(expect).await,
        }
    }

    fn call_id(&mut self, id: Option<&str>) -> String {
        self.calls += 1;
        id.map_or_else(|| format!("call-{}", self.calls), str::to_owned)
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

/// The abort for a request that could not even be sent: the connection is
/// dead.
fn dead(error: &CallError) -> Abort {
    let verdict = abort_verdict(error).unwrap_or(Verdict::Crash);
    Abort::Connection(verdict, Box::new(error.clone()))
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
        StepKind::Call(call) if call.run_async => format!("call {} (async)", call.tool.value),
        StepKind::Call(call) => format!("call {}", call.tool.value),
        StepKind::Batch(batch) => format!("batch ({} calls)", batch.calls.len()),
        StepKind::Confirm(confirm) => format!("confirm {:?}", confirm.outcome),
        StepKind::Join(join) => format!("join {}", join.call_id.value),
        StepKind::Cancel(cancel) => format!("cancel {}", cancel.call_id.value),
        _ => step.kind_name().to_owned(),
    }
}
