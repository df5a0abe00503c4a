//! Tool declarations and calls: `tools/list`, `tools/call`, `toolpass/batch`,
//! `toolpass/confirm` and `toolpass/fault`.
//!
//! `tools/list` and `tools/call` are MCP's shapes, with toolpass's additions
//! under `_meta.toolpass`, so a plain MCP server's answers read as well
//! (without the additions).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::feature::FaultPoint;
use crate::notice::ProgressToken;
use crate::outcome::Outcome;
use crate::session::SessionId;
use crate::strings::open_vocabulary;

/// `tools/list` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolsListParams {
    /// The session whose declarations to list; absent for a plain MCP server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<SessionId>,
    /// MCP's pagination cursor, from the previous page's `nextCursor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// `tools/list` result: exactly what the model would be shown now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolsListResult {
    /// The declarations, in the order the model would see them.
    pub tools: Vec<ToolDescriptor>,
    /// MCP's cursor for the next page; toolpass implementations send one
    /// page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// toolpass's additions: what the model is told of the tools it is not
    /// shown. Absent from a plain MCP server.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ToolsListMeta>,
}

/// A `_meta` that carries toolpass's member `T` (other members are
/// dropped): a declaration's, a `tools/list` result's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
// A missing member is `None`: no `T: Default` needed, which serde's
// inferred bound for a defaulted field would ask.
#[serde(bound(deserialize = "T: Deserialize<'de>"))]
#[schemars(rename = "ToolpassMetaOf{T}")]
pub struct ToolpassMeta<T> {
    /// toolpass's member.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub toolpass: Option<T>,
}

/// Empty, whatever `T` (a derived `Default` would ask `T: Default`).
impl<T> Default for ToolpassMeta<T> {
    fn default() -> Self {
        ToolpassMeta { toolpass: None }
    }
}

/// A `tools/list` result's `_meta`.
pub type ToolsListMeta = ToolpassMeta<ToolsListExtra>;

/// `_meta.toolpass` of a `tools/list` result: the deferred tools the model
/// knows by name only. A scenario cannot see a system reminder any other
/// way, and a runner must not take a deferred tool for a missing one.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolsListExtra {
    /// The deferred tools not declared now (not revealed), by name, sorted
    /// as Qwen Code sorts them (`localeCompare`). They can be found with
    /// `tool_search` and are no missing tools.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deferred_tools: Vec<String>,
    /// The system reminder that announces them to the model, exactly as
    /// the model would read it (Qwen Code's `buildDeferredToolsReminder`);
    /// absent when none is sent: no hidden deferred tool, or the session
    /// lacks `tool_search` (or, in the proxy model, `tool_call`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deferred_reminder: Option<String>,
}

impl ToolsListResult {
    /// The deferred tools hidden now, when the implementation said.
    pub fn deferred_tools(&self) -> &[String] {
        self.extra().map_or(&[], |t| &t.deferred_tools)
    }

    /// The deferred-tools reminder, when one is sent.
    pub fn deferred_reminder(&self) -> Option<&str> {
        self.extra()?.deferred_reminder.as_deref()
    }

    fn extra(&self) -> Option<&ToolsListExtra> {
        self.meta.as_ref()?.toolpass.as_ref()
    }
}

/// One tool declaration: MCP's `Tool` plus `_meta.toolpass`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolDescriptor {
    /// The name the model calls it by.
    pub name: String,
    /// What the model is told about it. Optional in MCP; empty when absent.
    #[serde(default)]
    pub description: String,
    /// The JSON Schema of its arguments.
    pub input_schema: Map<String, Value>,
    /// toolpass's additions; absent from a plain MCP server.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ToolDescriptorMeta>,
}

/// A tool declaration's `_meta`.
pub type ToolDescriptorMeta = ToolpassMeta<ToolMeta>;

/// `_meta.toolpass` of a tool declaration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolMeta {
    /// What the tool does, as Qwen Code's `Kind`.
    pub kind: ToolKind,
    /// Whether the tool is deferred: declared only after `tool_search`
    /// reveals it. A deferred tool appears in `tools/list` once revealed.
    #[serde(default)]
    pub deferred: bool,
    /// Whether the tool is always declared, even when deferral is on.
    #[serde(default)]
    pub always_load: bool,
}

open_vocabulary! {
    /// Qwen Code's tool `Kind`: decides confirmation and which tools may run
    /// concurrently.
    pub enum ToolKind {
        /// Reads files or data.
        Read => "read",
        /// Changes files.
        Edit => "edit",
        /// Deletes files.
        Delete => "delete",
        /// Moves or renames files.
        Move => "move",
        /// Searches files or the workspace.
        Search => "search",
        /// Runs commands.
        Execute => "execute",
        /// Reasons or plans without side effects (e.g. todo_write).
        Think => "think",
        /// Fetches from the network or an MCP resource.
        Fetch => "fetch",
        /// Anything else.
        Other => "other",
    }
}

/// `tools/call` params: MCP's `CallToolRequest` params plus
/// `_meta.toolpass`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolsCallParams {
    /// The tool to call.
    pub name: String,
    /// Its arguments, as the model wrote them.
    #[serde(default)]
    pub arguments: Map<String, Value>,
    /// toolpass's additions; absent when calling a plain MCP server.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<CallMeta>,
}

/// A call's `_meta`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallMeta {
    /// toolpass's member; other members are dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub toolpass: Option<CallContext>,
    /// MCP's token for `notifications/progress` about this call: with one,
    /// an implementation offering `updates` sends what the tool streams
    /// while it runs; without one, it sends none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress_token: Option<ProgressToken>,
}

/// `_meta.toolpass` of a call: which session, and the call's id within it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallContext {
    /// The session the call runs in.
    pub session_id: SessionId,
    /// The call's id, unique in the session; `toolpass/confirm` names it.
    pub call_id: String,
}

/// `toolpass/batch` params: calls the model made in one turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BatchParams {
    /// The session the calls run in.
    pub session_id: SessionId,
    /// The calls, in the model's order.
    pub calls: Vec<BatchCall>,
}

/// One call of a batch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BatchCall {
    /// The call's id, unique in the session.
    pub call_id: String,
    /// The tool to call.
    pub name: String,
    /// Its arguments.
    #[serde(default)]
    pub arguments: Map<String, Value>,
}

/// `toolpass/batch` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BatchResult {
    /// One Outcome per call, in the calls' order, after the batch budget.
    pub results: Vec<Outcome>,
    /// What the batch budget did, when the implementation says: absent
    /// when it does not, or when the session has no budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<BatchBudget>,
}

/// The batch budget's account of one batch (Qwen Code's log line `Tool
/// response budget (<budget> chars): reduced <reduced> result(s) from
/// <before> to <after> chars.`). Lengths are UTF-16 code units over the
/// texts of the calls that completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BatchBudget {
    /// The session's `toolOutputBatchBudget`.
    pub budget: u64,
    /// The batch's text before the budget.
    pub before: u64,
    /// The batch's text after it; never over `budget`.
    pub after: u64,
    /// Calls whose text was cut.
    pub reduced: u64,
}

/// `toolpass/confirm` params: the user's answer to an
/// `awaiting_confirmation` Outcome. A `callId` that names no call awaiting
/// confirmation in the session is a protocol fault: -32602, naming it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConfirmParams {
    /// The session of the waiting call.
    pub session_id: SessionId,
    /// The waiting call.
    pub call_id: String,
    /// The answer.
    pub outcome: ConfirmOutcome,
    /// With `modify`: the content the user edited the proposal into.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modified_content: Option<String>,
    /// With an `ask_user_question` confirmation: the answers, by question
    /// key, as Qwen Code passes them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub answers: BTreeMap<String, String>,
}

/// The user's answer to a confirmation, as Qwen Code's
/// `ToolConfirmationOutcome`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ConfirmOutcome {
    /// Run this call.
    ProceedOnce,
    /// Run this call and do not ask again for the same kind of call.
    ProceedAlways,
    /// Do not run it.
    Cancel,
    /// Run it with the user's modification (`modifiedContent`).
    Modify,
}

/// `toolpass/fault` params. An implementation answers -32601 for a point it
/// does not support.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FaultParams {
    /// The session the fault applies to.
    pub session_id: SessionId,
    /// Where to fail.
    pub point: FaultPoint,
    /// How many of the next operations at the point fail.
    #[serde(default = "one")]
    pub times: u32,
    /// How many operations at the point pass before the failures start, so
    /// a scenario can aim at the second or third stat of one edit (its
    /// after-read and before-write checks). Default 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub skip: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn one() -> u32 {
    1
}

impl ToolsCallParams {
    /// A call in a session.
    pub fn new(
        name: impl Into<String>,
        arguments: Map<String, Value>,
        context: CallContext,
    ) -> ToolsCallParams {
        ToolsCallParams {
            name: name.into(),
            arguments,
            meta: Some(CallMeta {
                toolpass: Some(context),
                progress_token: None,
            }),
        }
    }

    /// The session and call id, when the caller sent them.
    pub fn context(&self) -> Option<&CallContext> {
        self.meta.as_ref()?.toolpass.as_ref()
    }

    /// The call with MCP's `progressToken`, asking for updates while it
    /// runs.
    #[must_use]
    pub fn with_progress_token(mut self, token: impl Into<ProgressToken>) -> ToolsCallParams {
        self.meta
            .get_or_insert_with(CallMeta::default)
            .progress_token = Some(token.into());
        self
    }

    /// The `progressToken` the caller sent, if any.
    pub fn progress_token(&self) -> Option<&ProgressToken> {
        self.meta.as_ref()?.progress_token.as_ref()
    }
}

impl ToolDescriptor {
    /// toolpass's additions, when the server sent them.
    pub fn toolpass(&self) -> Option<&ToolMeta> {
        self.meta.as_ref()?.toolpass.as_ref()
    }
}
