//! Steps: what a scenario does, in order, and what it expects at each
//! point.
//!
//! A step is a map with one *kind* key (`call`, `join`, `cancel`, `batch`,
//! `confirm`, `fs`, `fault`, `expect_tools`, `expect_files`, `wait_notice`,
//! `wait_update`, `capture`, `close_session`, `kill_server`,
//! `expect_no_processes`) and the keys that go with that kind, e.g.
//! `call` with `id`, `args`, `expect`, `async`.
//! `level` goes with every kind and overrides the scenario's level for that
//! step, so one scenario can judge bytes at `required` and prose at
//! `recommended`.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use toolpass_protocol::{ConfirmOutcome, FaultPoint};

use crate::expect::Expect;
use crate::files::{FileExpectation, FsAction, RelPath};
use crate::forms::OneOrMany;
use crate::json::{Args, Json};
use crate::level::Level;
use crate::located::Located;
use crate::matcher::{Matcher, Pattern};

/// One step.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// What it does.
    pub kind: StepKind,
    /// The level its expectations are scored at, overriding the
    /// scenario's. Never `pending`.
    pub level: Option<Located<Level>>,
}

/// What a step does.
#[derive(Debug, Clone, PartialEq)]
pub enum StepKind {
    /// `call: <tool>`: one `tools/call`.
    Call(Call),
    /// `join: <call id>`: waits for the answer to an `async` call and
    /// judges it.
    Join(Join),
    /// `cancel: <call id>`: cancels an `async` call in flight
    /// (`notifications/cancelled`), waits for its answer and judges it.
    Cancel(Cancel),
    /// `batch: [calls]`: one `toolpass/batch`; each call has its own
    /// `expect`, judged against its result.
    Batch(Batch),
    /// `confirm: <outcome>`: answers a call that awaits confirmation.
    Confirm(Confirm),
    /// `fs: <action or list>`: the world changes the sandbox behind the
    /// tools' back.
    Fs(Vec<Located<FsAction>>),
    /// `fault: {point, times, skip}`: arms a fault point.
    Fault(Fault),
    /// `expect_tools: {...}`: checks `tools/list`.
    ExpectTools(ExpectTools),
    /// `expect_files: {path: expectation}`: checks the sandbox.
    ExpectFiles(ExpectFiles),
    /// `wait_notice: <matcher>`: a `toolpass/notice` whose text matches
    /// arrives in time.
    WaitNotice(WaitNotice),
    /// `wait_update: <matcher>`: an update (`notifications/progress`) of a
    /// call whose text matches arrives in time.
    WaitUpdate(WaitUpdate),
    /// `capture: {name: regex}`: binds variables from the last Outcome.
    Capture(Capture),
    /// `close_session: {}`: closes the toolpass session, as a user ending
    /// the conversation does. Only checks and `fs` may follow.
    CloseSession,
    /// `kill_server: {}`: `SIGKILL` to the implementation's process group,
    /// as a crash or an impatient user does; nothing it could clean up
    /// after. Only checks and `fs` may follow.
    KillServer,
    /// `expect_no_processes: {}`: no process of the scenario is alive, or
    /// none is within `timeout_ms`.
    ExpectNoProcesses(ExpectNoProcesses),
}

/// An `expect_no_processes` step. A process is the scenario's when its
/// working directory is in the sandbox or its command line names the
/// sandbox, other than the implementation itself: what the scenario's
/// commands started, wherever they went (a new session, a double fork,
/// an empty environment).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExpectNoProcesses {
    /// How long the processes may take to end, in milliseconds; the
    /// runner's default when absent.
    pub timeout_ms: Option<u64>,
}

/// The value of a step kind that takes no arguments: `{}` (or nothing).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NoArguments;

impl Serialize for NoArguments {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serde::ser::SerializeMap::end(serializer.serialize_map(Some(0))?)
    }
}

impl<'de> Deserialize<'de> for NoArguments {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<NoArguments, D::Error> {
        struct Empty;
        impl<'de> Visitor<'de> for Empty {
            type Value = NoArguments;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`{}`: this step takes no arguments")
            }

            fn visit_unit<E: de::Error>(self) -> Result<NoArguments, E> {
                Ok(NoArguments)
            }

            fn visit_none<E: de::Error>(self) -> Result<NoArguments, E> {
                Ok(NoArguments)
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<NoArguments, A::Error> {
                match map.next_key::<String>()? {
                    None => Ok(NoArguments),
                    Some(key) => Err(de::Error::custom(format!(
                        "`{key}`: this step takes no arguments inside its `{{}}`"
                    ))),
                }
            }
        }
        deserializer.deserialize_any(Empty)
    }
}

impl JsonSchema for NoArguments {
    fn schema_name() -> Cow<'static, str> {
        "NoArguments".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "No arguments: `{}`.",
            "type": ["object", "null"],
            "additionalProperties": false,
        })
    }
}

/// A `toolpass/batch` step.
#[derive(Debug, Clone, PartialEq)]
pub struct Batch {
    /// The calls, in the model's order.
    pub calls: Vec<Located<Call>>,
    /// `budget: {...}`: a JSON subset of the result's `budget` (the batch
    /// budget's account: `budget`, `before`, `after`, `reduced`).
    pub budget: Option<Json>,
}

/// A tool call, on its own or in a batch.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "BatchCall")]
pub struct Call {
    /// The tool's name.
    #[serde(rename = "call")]
    pub tool: Located<String>,
    /// The call's id, for a later `confirm` to name; the runner makes one
    /// up when absent. Unique in the scenario.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Located<String>>,
    /// The arguments; strings are templates.
    #[serde(default)]
    pub args: Args,
    /// What the Outcome must be; nothing is checked when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Expect>,
    /// Sent without waiting for the answer, which a later `join` or
    /// `cancel` step waits for and judges; the steps between run while the
    /// call is in flight. Needs an `id`; not in a batch.
    #[serde(default, rename = "async", skip_serializing_if = "is_false")]
    pub run_async: bool,
}

fn is_false(flag: &bool) -> bool {
    !*flag
}

/// A `join` step: the answer to an `async` call.
#[derive(Debug, Clone, PartialEq)]
pub struct Join {
    /// The call, by its `id`.
    pub call_id: Located<String>,
    /// What its Outcome must be.
    pub expect: Option<Expect>,
    /// How long to wait for the answer, in milliseconds; the runner's
    /// request timeout when absent.
    pub timeout_ms: Option<u64>,
}

/// A `cancel` step: `notifications/cancelled` for an `async` call, then
/// its answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Cancel {
    /// The call, by its `id`.
    pub call_id: Located<String>,
    /// The `reason` sent with the cancellation.
    pub reason: Option<String>,
    /// What its Outcome must be (`{status: cancelled}` for a call that
    /// could not have finished).
    pub expect: Option<Expect>,
    /// How long to wait for the answer, in milliseconds; the runner's
    /// request timeout when absent.
    pub timeout_ms: Option<u64>,
}

/// A `wait_update` step.
#[derive(Debug, Clone, PartialEq)]
pub struct WaitUpdate {
    /// A matcher on the update's text (`message`).
    pub matcher: Matcher,
    /// Only updates of this call count (its `progressToken` is its id);
    /// any call's when absent.
    pub call_id: Option<Located<String>>,
    /// How long to wait, in milliseconds; the runner's default when absent.
    pub timeout_ms: Option<u64>,
}

/// A `confirm` step: the user's answer to a call awaiting confirmation.
#[derive(Debug, Clone, PartialEq)]
pub struct Confirm {
    /// The answer.
    pub outcome: ConfirmOutcome,
    /// The call answered, by its `id`; the latest call awaiting
    /// confirmation when absent.
    pub call_id: Option<Located<String>>,
    /// With `modify`: the content the user edited the proposal into.
    pub modified_content: Option<Located<String>>,
    /// Answers to an `ask_user_question` confirmation, by question key.
    pub answers: BTreeMap<String, Located<String>>,
    /// What the resulting Outcome must be.
    pub expect: Option<Expect>,
}

/// A `fault` step.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Fault {
    /// Where to fail (`fs.stat`, `write.before_commit`, ...).
    #[schemars(with = "String")]
    pub point: Located<FaultPoint>,
    /// How many operations at the point fail.
    #[serde(default = "one")]
    pub times: u32,
    /// How many operations at the point pass first.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub skip: u32,
}

fn one() -> u32 {
    1
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// An `expect_tools` step: what `tools/list` shows the model now.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpectTools {
    /// Tools that must be declared.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub includes: Vec<Located<String>>,
    /// Tools that must not be declared.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub excludes: Vec<Located<String>>,
    /// The declared tools are exactly these, in this order: the order is
    /// the model's (Qwen sorts its declarations by name with
    /// `localeCompare`), so it is judged too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact: Option<Vec<Located<String>>>,
    /// Tool name → a JSON subset of its declaration
    /// (`{name, description, inputSchema, _meta}`); the tool must be
    /// declared.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub schema: BTreeMap<String, Json>,
    /// The deferred tools the model knows by name only
    /// (`_meta.toolpass.deferredTools`), judged with `includes`, `excludes`
    /// and `exact` as the declared ones are. Nothing else goes inside.
    /// Implies `deferred_tools`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deferred: Option<Box<ExpectTools>>,
    /// A matcher on the deferred-tools reminder
    /// (`_meta.toolpass.deferredReminder`), the text the model reads; a
    /// reminder not sent is matched as the empty text (`reminder: ""`).
    /// Implies `deferred_tools`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reminder: Option<Matcher>,
}

impl ExpectTools {
    /// Whether the step judges the deferred tools or their reminder.
    pub fn judges_deferred(&self) -> bool {
        self.deferred.is_some() || self.reminder.is_some()
    }

    /// Whether it judges names only (`includes`, `excludes`, `exact`),
    /// which is all `deferred:` may hold.
    pub fn names_only(&self) -> bool {
        self.schema.is_empty() && !self.judges_deferred()
    }

    /// Whether it judges any name.
    pub fn judges_names(&self) -> bool {
        !self.includes.is_empty() || !self.excludes.is_empty() || self.exact.is_some()
    }
}

/// An `expect_files` step.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExpectFiles {
    /// Path → what it holds.
    pub files: BTreeMap<RelPath, FileExpectation>,
    /// When true, no other file or symlink may exist in the sandbox
    /// (directories are not counted).
    pub exact: bool,
}

/// A `wait_notice` step.
#[derive(Debug, Clone, PartialEq)]
pub struct WaitNotice {
    /// A matcher on the notice's text.
    pub matcher: Matcher,
    /// Only notices of this `kind` count (e.g. `background_shell`).
    pub kind: Option<String>,
    /// How long to wait, in milliseconds; the runner's default when absent.
    pub timeout_ms: Option<u64>,
}

/// A `capture` step: each variable is bound to the first group of its
/// regex (the whole match when it has no group) in the source text.
#[derive(Debug, Clone, PartialEq)]
pub struct Capture {
    /// Variable name → regex (placeholders substituted as escaped literals).
    pub vars: BTreeMap<Located<String>, Pattern>,
    /// The text searched.
    pub from: CaptureSource,
}

/// Where a `capture` looks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CaptureSource {
    /// The last Outcome's `llmContent`.
    #[default]
    Llm,
    /// The last Outcome's `error.message`.
    ErrorMessage,
    /// The last Outcome's `persistedOutputPath`.
    PersistedOutput,
    /// The text of the last notice a `wait_notice` matched.
    Notice,
}

/// The step kinds' keys, and the keys that go with each (`level` goes with
/// all).
pub(crate) const KINDS: &[(&str, &[&str])] = &[
    ("call", &["id", "args", "expect", "async"]),
    ("join", &["expect", "timeout_ms"]),
    ("cancel", &["reason", "expect", "timeout_ms"]),
    ("batch", &["budget"]),
    (
        "confirm",
        &["call_id", "modified_content", "answers", "expect"],
    ),
    ("fs", &[]),
    ("fault", &[]),
    ("expect_tools", &[]),
    ("expect_files", &["exact"]),
    ("wait_notice", &["kind", "timeout_ms"]),
    ("wait_update", &["call_id", "timeout_ms"]),
    ("capture", &["from"]),
    ("close_session", &[]),
    ("kill_server", &[]),
    ("expect_no_processes", &["timeout_ms"]),
];

/// A step as written: every key of every kind. Read by hand (below), so
/// that an unknown key is named with the keys its step kind takes.
#[derive(Default, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawStep {
    /// A `tools/call` of this tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    call: Option<Located<String>>,
    /// With `call`: the call's id, for a `confirm` to name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    id: Option<Located<String>>,
    /// With `call`: the arguments; strings are templates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    args: Option<Args>,
    /// With `call`, `join`, `cancel` or `confirm`: what the Outcome must be.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    expect: Option<Expect>,
    /// With `call`: send it without waiting; a later `join` or `cancel`
    /// judges its answer.
    #[serde(default, rename = "async", skip_serializing_if = "Option::is_none")]
    run_async: Option<bool>,
    /// Waits for the answer to the `async` call with this id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    join: Option<Located<String>>,
    /// Cancels the `async` call with this id and waits for its answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cancel: Option<Located<String>>,
    /// With `cancel`: the reason sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    /// A `toolpass/batch` of these calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    batch: Option<Vec<Located<Call>>>,
    /// With `batch`: a JSON subset of the batch budget's account
    /// (`{budget, before, after, reduced}`, UTF-16 units).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    budget: Option<Json>,
    /// Answers a call awaiting confirmation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    confirm: Option<ConfirmOutcome>,
    /// With `confirm`: the `id` of the call answered (the latest awaiting
    /// call when absent); with `wait_update`: the call whose updates count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    call_id: Option<Located<String>>,
    /// With `confirm: modify`: the content the user edited the proposal
    /// into.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    modified_content: Option<Located<String>>,
    /// With `confirm`: answers to an `ask_user_question`, by key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    answers: Option<BTreeMap<String, Located<String>>>,
    /// Changes the sandbox behind the tools' back: one action or a list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    fs: Option<OneOrMany<FsAction>>,
    /// Arms a fault point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    fault: Option<Fault>,
    /// Checks the declarations `tools/list` shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    expect_tools: Option<ExpectTools>,
    /// Checks the sandbox: path → expectation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    expect_files: Option<BTreeMap<RelPath, FileExpectation>>,
    /// With `expect_files`: no other file may exist.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    exact: Option<bool>,
    /// Waits for a `toolpass/notice` whose text matches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    wait_notice: Option<Matcher>,
    /// With `wait_notice`: only notices of this kind count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    kind: Option<String>,
    /// Waits for an update (`notifications/progress`) whose text matches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    wait_update: Option<Matcher>,
    /// With `wait_notice`, `wait_update`, `join`, `cancel` or
    /// `expect_no_processes`: milliseconds to wait.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    timeout_ms: Option<u64>,
    /// Binds variables: name → regex over the last Outcome.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    capture: Option<BTreeMap<Located<String>, Located<String>>>,
    /// With `capture`: the text searched (default `llm`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    from: Option<CaptureSource>,
    /// Closes the toolpass session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    close_session: Option<NoArguments>,
    /// Kills the implementation's process group with `SIGKILL`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    kill_server: Option<NoArguments>,
    /// No process of the scenario is alive (within `timeout_ms`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    expect_no_processes: Option<NoArguments>,
    /// The level this step is scored at (not `pending`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    level: Option<Located<Level>>,
}

impl RawStep {
    /// The keys present, in `KINDS` order for the kinds.
    fn present(&self) -> Vec<&'static str> {
        let keys: [(&'static str, bool); 29] = [
            ("call", self.call.is_some()),
            ("join", self.join.is_some()),
            ("cancel", self.cancel.is_some()),
            ("batch", self.batch.is_some()),
            ("confirm", self.confirm.is_some()),
            ("fs", self.fs.is_some()),
            ("fault", self.fault.is_some()),
            ("expect_tools", self.expect_tools.is_some()),
            ("expect_files", self.expect_files.is_some()),
            ("wait_notice", self.wait_notice.is_some()),
            ("wait_update", self.wait_update.is_some()),
            ("capture", self.capture.is_some()),
            ("close_session", self.close_session.is_some()),
            ("kill_server", self.kill_server.is_some()),
            ("expect_no_processes", self.expect_no_processes.is_some()),
            ("id", self.id.is_some()),
            ("args", self.args.is_some()),
            ("expect", self.expect.is_some()),
            ("async", self.run_async.is_some()),
            ("reason", self.reason.is_some()),
            ("call_id", self.call_id.is_some()),
            ("modified_content", self.modified_content.is_some()),
            ("answers", self.answers.is_some()),
            ("exact", self.exact.is_some()),
            ("kind", self.kind.is_some()),
            ("timeout_ms", self.timeout_ms.is_some()),
            ("from", self.from.is_some()),
            ("budget", self.budget.is_some()),
            ("level", self.level.is_some()),
        ];
        keys.into_iter()
            .filter_map(|(key, present)| present.then_some(key))
            .collect()
    }

    fn into_step(self) -> Result<Step, String> {
        let present = self.present();
        let kinds: Vec<&str> = present
            .iter()
            .copied()
            .filter(|key| KINDS.iter().any(|(kind, _)| kind == key))
            .collect();
        let kind = match kinds.as_slice() {
            [kind] => *kind,
            [] => {
                let names: Vec<&str> = KINDS.iter().map(|(kind, _)| *kind).collect();
                return Err(format!("a step needs one of {}", names.join(", ")));
            }
            [first, second, ..] => {
                return Err(format!(
                    "a step does one thing, but this one has `{first}` and `{second}`: \
                     split it in two"
                ));
            }
        };
        let allowed = KINDS
            .iter()
            .find(|(k, _)| *k == kind)
            .map_or(&[][..], |(_, allowed)| allowed);
        if let Some(extra) = present
            .iter()
            .find(|key| **key != kind && **key != "level" && !allowed.contains(key))
        {
            let owner = KINDS
                .iter()
                .filter(|(_, keys)| keys.contains(extra))
                .map(|(k, _)| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(" or ");
            return Err(format!("`{extra}` goes with {owner}, not with `{kind}`"));
        }
        let level = self.level;
        let kind = match kind {
            "call" => StepKind::Call(Call {
                tool: self.call.unwrap_or_default(),
                id: self.id,
                args: self.args.unwrap_or_default(),
                expect: self.expect,
                run_async: self.run_async.unwrap_or(false),
            }),
            "join" => StepKind::Join(Join {
                call_id: self.join.unwrap_or_default(),
                expect: self.expect,
                timeout_ms: self.timeout_ms,
            }),
            "cancel" => StepKind::Cancel(Cancel {
                call_id: self.cancel.unwrap_or_default(),
                reason: self.reason,
                expect: self.expect,
                timeout_ms: self.timeout_ms,
            }),
            "batch" => StepKind::Batch(Batch {
                calls: self.batch.unwrap_or_default(),
                budget: self.budget,
            }),
            "confirm" => StepKind::Confirm(Confirm {
                outcome: self.confirm.unwrap_or(ConfirmOutcome::ProceedOnce),
                call_id: self.call_id,
                modified_content: self.modified_content,
                answers: self.answers.unwrap_or_default(),
                expect: self.expect,
            }),
            "fs" => StepKind::Fs(self.fs.map(|fs| fs.0).unwrap_or_default()),
            "fault" => match self.fault {
                Some(fault) => StepKind::Fault(fault),
                None => return Err("a fault step needs a point".into()),
            },
            "expect_tools" => StepKind::ExpectTools(self.expect_tools.unwrap_or_default()),
            "expect_files" => StepKind::ExpectFiles(ExpectFiles {
                files: self.expect_files.unwrap_or_default(),
                exact: self.exact.unwrap_or(false),
            }),
            "wait_notice" => StepKind::WaitNotice(WaitNotice {
                matcher: self.wait_notice.unwrap_or_else(|| Matcher::new(Vec::new())),
                kind: self.kind,
                timeout_ms: self.timeout_ms,
            }),
            "wait_update" => StepKind::WaitUpdate(WaitUpdate {
                matcher: self.wait_update.unwrap_or_else(|| Matcher::new(Vec::new())),
                call_id: self.call_id,
                timeout_ms: self.timeout_ms,
            }),
            "close_session" => StepKind::CloseSession,
            "kill_server" => StepKind::KillServer,
            "expect_no_processes" => StepKind::ExpectNoProcesses(ExpectNoProcesses {
                timeout_ms: self.timeout_ms,
            }),
            _ => StepKind::Capture(Capture {
                vars: self
                    .capture
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(name, regex)| (name, Pattern::new(regex)))
                    .collect(),
                from: self.from.unwrap_or_default(),
            }),
        };
        Ok(Step { kind, level })
    }

    fn from_step(step: &Step) -> RawStep {
        let mut raw = RawStep {
            level: step.level.clone(),
            ..RawStep::default()
        };
        match &step.kind {
            StepKind::Call(call) => {
                raw.call = Some(call.tool.clone());
                raw.id = call.id.clone();
                raw.args = Some(call.args.clone());
                raw.expect = call.expect.clone();
                raw.run_async = call.run_async.then_some(true);
            }
            StepKind::Join(join) => {
                raw.join = Some(join.call_id.clone());
                raw.expect = join.expect.clone();
                raw.timeout_ms = join.timeout_ms;
            }
            StepKind::Cancel(cancel) => {
                raw.cancel = Some(cancel.call_id.clone());
                raw.reason = cancel.reason.clone();
                raw.expect = cancel.expect.clone();
                raw.timeout_ms = cancel.timeout_ms;
            }
            StepKind::Batch(batch) => {
                raw.batch = Some(batch.calls.clone());
                raw.budget = batch.budget.clone();
            }
            StepKind::Confirm(confirm) => {
                raw.confirm = Some(confirm.outcome);
                raw.call_id = confirm.call_id.clone();
                raw.modified_content = confirm.modified_content.clone();
                raw.answers = (!confirm.answers.is_empty()).then(|| confirm.answers.clone());
                raw.expect = confirm.expect.clone();
            }
            StepKind::Fs(actions) => raw.fs = Some(OneOrMany(actions.clone())),
            StepKind::Fault(fault) => raw.fault = Some(fault.clone()),
            StepKind::ExpectTools(tools) => raw.expect_tools = Some(tools.clone()),
            StepKind::ExpectFiles(files) => {
                raw.expect_files = Some(files.files.clone());
                raw.exact = files.exact.then_some(true);
            }
            StepKind::WaitNotice(wait) => {
                raw.wait_notice = Some(wait.matcher.clone());
                raw.kind = wait.kind.clone();
                raw.timeout_ms = wait.timeout_ms;
            }
            StepKind::WaitUpdate(wait) => {
                raw.wait_update = Some(wait.matcher.clone());
                raw.call_id = wait.call_id.clone();
                raw.timeout_ms = wait.timeout_ms;
            }
            StepKind::Capture(capture) => {
                raw.capture = Some(
                    capture
                        .vars
                        .iter()
                        .map(|(name, pattern)| (name.clone(), pattern.source().clone()))
                        .collect(),
                );
                raw.from = (capture.from != CaptureSource::Llm).then_some(capture.from);
            }
            StepKind::CloseSession => raw.close_session = Some(NoArguments),
            StepKind::KillServer => raw.kill_server = Some(NoArguments),
            StepKind::ExpectNoProcesses(expect) => {
                raw.expect_no_processes = Some(NoArguments);
                raw.timeout_ms = expect.timeout_ms;
            }
        }
        raw
    }
}

impl<'de> Deserialize<'de> for RawStep {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<RawStep, D::Error> {
        deserializer.deserialize_map(RawStepVisitor)
    }
}

struct RawStepVisitor;

impl<'de> Visitor<'de> for RawStepVisitor {
    type Value = RawStep;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a step: a map with one of call, join, cancel, batch, confirm, fs, ...")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawStep, A::Error> {
        let mut raw = RawStep::default();
        let mut step_kind: Option<&'static str> = None;
        while let Some(key) = map.next_key::<String>()? {
            if step_kind.is_none() {
                step_kind = KINDS.iter().map(|(k, _)| *k).find(|k| *k == key);
            }
            macro_rules! fields {
                ($($name:ident),*) => {
                    match key.as_str() {
                        $(stringify!($name) => raw.$name = Some(map.next_value()?),)*
                                // A Rust keyword: the field has another name.
                        "async" => raw.run_async = Some(map.next_value()?),
                        _ => return Err(de::Error::custom(unknown_key(&key, step_kind))),
                    }
                };
            }
            fields!(
                call,
                id,
                args,
                expect,
                join,
                cancel,
                reason,
                batch,
                confirm,
                call_id,
                modified_content,
                answers,
                fs,
                fault,
                expect_tools,
                expect_files,
                exact,
                wait_notice,
                kind,
                timeout_ms,
                wait_update,
                capture,
                from,
                budget,
                close_session,
                kill_server,
                expect_no_processes,
                level
            );
        }
        Ok(raw)
    }
}

/// The message for an unknown key in a step whose kind key, if any came
/// first, is `kind`.
fn unknown_key(key: &str, kind: Option<&str>) -> String {
    let kinds: Vec<&str> = KINDS.iter().map(|(k, _)| *k).collect();
    match kind.and_then(|kind| KINDS.iter().find(|(k, _)| *k == kind)) {
        Some((kind, keys)) => {
            let mut allowed: Vec<&str> = keys.to_vec();
            allowed.push("level");
            let hint = crate::suggest::did_you_mean(key, allowed.iter().copied());
            format!(
                "unknown key `{key}` in a `{kind}` step{hint}: it takes {}",
                allowed.join(", ")
            )
        }
        None => {
            let hint = crate::suggest::did_you_mean(key, kinds.iter().copied());
            format!(
                "unknown step kind `{key}`{hint}: a step is one of {}",
                kinds.join(", ")
            )
        }
    }
}

impl<'de> Deserialize<'de> for Step {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Step, D::Error> {
        RawStep::deserialize(deserializer)?
            .into_step()
            .map_err(serde::de::Error::custom)
    }
}

impl Serialize for Step {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RawStep::from_step(self).serialize(serializer)
    }
}

/// The schema of a step: one branch per kind, each with the kind's key
/// required and only the keys that go with it allowed.
impl JsonSchema for Step {
    fn schema_name() -> Cow<'static, str> {
        "Step".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let raw = RawStep::json_schema(generator);
        let properties = raw
            .get("properties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let branches: Vec<Value> = KINDS
            .iter()
            .map(|(kind, keys)| {
                let branch: serde_json::Map<String, Value> = properties
                    .iter()
                    .filter(|(key, _)| {
                        key == kind || *key == "level" || keys.contains(&key.as_str())
                    })
                    .map(|(key, schema)| (key.clone(), schema.clone()))
                    .collect();
                serde_json::json!({
                    "type": "object",
                    "properties": branch,
                    "required": [kind],
                    "additionalProperties": false,
                })
            })
            .collect();
        json_schema!({
            "description": "One step: a map with one kind key and the keys that go with it.",
            "oneOf": branches,
        })
    }
}

impl Step {
    /// The step's kind key (`call`, `batch`, ...).
    pub fn kind_name(&self) -> &'static str {
        match self.kind {
            StepKind::Call(_) => "call",
            StepKind::Join(_) => "join",
            StepKind::Cancel(_) => "cancel",
            StepKind::Batch(_) => "batch",
            StepKind::Confirm(_) => "confirm",
            StepKind::Fs(_) => "fs",
            StepKind::Fault(_) => "fault",
            StepKind::ExpectTools(_) => "expect_tools",
            StepKind::ExpectFiles(_) => "expect_files",
            StepKind::WaitNotice(_) => "wait_notice",
            StepKind::WaitUpdate(_) => "wait_update",
            StepKind::Capture(_) => "capture",
            StepKind::CloseSession => "close_session",
            StepKind::KillServer => "kill_server",
            StepKind::ExpectNoProcesses(_) => "expect_no_processes",
        }
    }
}
