//! Sessions: `toolpass/session.open` with its config, and
//! `toolpass/session.close`.
//!
//! The config is the one strict shape in the protocol: an unknown key is
//! rejected (-32602, naming the key) instead of ignored, because an ignored
//! threshold or approval mode makes a scenario pass without testing what it
//! says it tests. Other params accept members they do not know, so a newer
//! runner can add optional ones.

use std::collections::BTreeMap;
use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A session's id, minted by the implementation.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(transparent)]
pub struct SessionId(pub String);

/// `toolpass/session.open` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionOpenParams {
    /// The sandbox directory, absolute. Tools refuse paths outside it.
    pub root: String,
    /// Overrides of the implementation's defaults; `{}` keeps them all.
    #[serde(default)]
    pub config: SessionConfig,
}

/// `toolpass/session.open` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionOpenResult {
    /// The new session.
    pub session_id: SessionId,
}

/// Session config: each member overrides one default. The names of the
/// budgets are Qwen Code's settings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionConfig {
    /// Characters of one tool result above which it is truncated and the
    /// full text spilled to a file (Qwen's default 25000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncate_tool_output_threshold: Option<u64>,
    /// Lines of one tool result kept when it is truncated (Qwen's default
    /// 1000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncate_tool_output_lines: Option<u64>,
    /// Characters all results of one batch may total before the largest are
    /// offloaded to files (Qwen's default 200000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_output_batch_budget: Option<u64>,
    /// Which calls need confirmation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_mode: Option<ApprovalMode>,
    /// Tools removed from the registry, by name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disabled_tools: Vec<String>,
    /// How a deferred tool is reached once `tool_search` found it: the
    /// implementation's own model when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deferred_tools: Option<DeferredToolsModel>,
    /// MCP servers to connect, by server name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub mcp_servers: BTreeMap<String, McpServerConfig>,
    /// Environment variables for the processes the tools start.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
}

/// The two models of deferred tools Qwen Code has had.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum DeferredToolsModel {
    /// `tool_search` reveals what it returns: the tools join the
    /// declaration list and are called directly (Qwen before 0.24.4).
    #[serde(rename = "reveal")]
    Reveal,
    /// `tool_search` only shows schemas; hidden tools are called through
    /// `tool_call` and the declaration list never changes (Qwen 0.24.4).
    #[serde(rename = "proxy")]
    Proxy,
}

/// Qwen Code's approval modes, with Qwen's spelling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum ApprovalMode {
    /// Read-only: tools that change anything are refused.
    #[serde(rename = "plan")]
    Plan,
    /// Edits and commands ask for confirmation.
    #[serde(rename = "default")]
    Default,
    /// Edits run without asking; commands still ask.
    #[serde(rename = "auto-edit")]
    AutoEdit,
    /// Nothing asks.
    #[serde(rename = "yolo")]
    Yolo,
}

/// An MCP server started over stdio, as in Qwen Code's `mcpServers`
/// settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct McpServerConfig {
    /// The program to run.
    pub command: String,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Extra environment variables.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// Its working directory; the session root when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Milliseconds a call may take.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
    /// Whether its tools skip confirmation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trust: Option<bool>,
    /// Only these of its tools are registered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_tools: Option<Vec<String>>,
    /// These of its tools are not registered.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude_tools: Vec<String>,
}

/// `toolpass/session.close` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionCloseParams {
    /// The session to end.
    pub session_id: SessionId,
}

/// The `{}` result of methods that only succeed or fail.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EmptyResult {}

impl SessionOpenParams {
    /// A session on `root` with the default config.
    pub fn new(root: impl Into<String>) -> SessionOpenParams {
        SessionOpenParams {
            root: root.into(),
            config: SessionConfig::default(),
        }
    }
}

impl SessionId {
    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<&str> for SessionId {
    fn from(id: &str) -> SessionId {
        SessionId(id.to_owned())
    }
}

impl From<String> for SessionId {
    fn from(id: String) -> SessionId {
        SessionId(id)
    }
}

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
