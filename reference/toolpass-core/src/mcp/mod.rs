//! The decisions of Qwen Code's MCP client that need no connection: what an
//! MCP tool is called and how it is shown, which listed tools a server's
//! config lets in, when a call may be replayed after its connection
//! dropped, the wording of the client's errors and progress
//! (`packages/core/src/tools/mcp-tool.ts`, `mcp-client.ts`), the client
//! budget ([`budget`], `mcp-client-manager.ts`) and how a resource read
//! reaches the model ([`resource`], `mcp-resource-content.ts`).

pub mod budget;
pub mod frame;
pub mod resource;

use crate::tool_name::{hash_suffix_name, mcp_qualified_name, middle_cut_name};

/// Qwen's `MAX_RECONNECT_RETRIES`: how many times a call whose connection
/// dropped reconnects before it gives up.
pub const MAX_RECONNECT_RETRIES: u32 = 3;

/// Qwen's `MCP_DEFAULT_TIMEOUT_MSEC`: how long a tool call (and the tool
/// listing) may take when the server's config sets no `timeout`.
pub const DEFAULT_CALL_TIMEOUT_MS: u64 = 10 * 60 * 1000;

/// The TypeScript SDK's `DEFAULT_REQUEST_TIMEOUT_MSEC`: how long
/// `initialize` may take when the config sets no `timeout` (Qwen's
/// `client.connect(transport, {timeout: config.timeout})` passes nothing
/// then, and the SDK's default applies).
pub const DEFAULT_INITIALIZE_TIMEOUT_MS: u64 = 60 * 1000;

/// An MCP tool's own output budget in characters, ten times the global
/// default (Qwen's `DiscoveredMCPTool.maxOutputChars`).
pub const MAX_OUTPUT_CHARS: usize = 500_000;

/// The preview an MCP tool keeps of a text part over [`MAX_OUTPUT_CHARS`]
/// (`truncateTextParts`' `previewChars`).
pub const OUTPUT_PREVIEW_CHARS: usize = 2_000;

/// Qwen's `UNSAFE_REPLAY_ERROR_MESSAGE`: a call whose connection dropped
/// and which cannot be shown safe to run twice.
pub const UNSAFE_REPLAY_MESSAGE: &str = "MCP tool execution may have completed before the \
                                         connection failed. Automatic replay was skipped because \
                                         the call could not be verified as safe to replay. Do \
                                         not retry automatically; verify the outcome before \
                                         trying again.";

/// The title of an MCP tool's confirmation.
pub const CONFIRMATION_TITLE: &str = "Confirm MCP Tool Execution";

/// What discovery refuses a server for: it offered nothing at all.
pub const NOTHING_FOUND: &str = "No prompts, tools, or resources found on the server.";

/// The name tool `tool` of server `server` is declared under (Qwen's
/// `generateValidName("mcp__<server>__<tool>")`).
#[must_use]
pub fn tool_name(server: &str, tool: &str) -> String {
    hash_suffix_name(&mcp_qualified_name(server, tool))
}

/// The other name `disabledTools` and permission rules know the tool by:
/// its name under the rule before 0.24 (Qwen's `permissionAliases`), when
/// that differs.
#[must_use]
pub fn legacy_alias(server: &str, tool: &str) -> Option<String> {
    let legacy = middle_cut_name(&mcp_qualified_name(server, tool));
    (legacy != tool_name(server, tool)).then_some(legacy)
}

/// How a person is shown the tool: `<tool> (<server> MCP Server)`.
#[must_use]
pub fn display_name(server: &str, tool: &str) -> String {
    format!("{tool} ({server} MCP Server)")
}

/// The words `tool_search` matches whole for the tool: `mcp <server>`.
#[must_use]
pub fn search_hint(server: &str) -> String {
    format!("mcp {server}")
}

/// Qwen's `isEnabled`: whether a listed tool is registered, by the
/// server's `excludeTools` (exact names, checked first) and `includeTools`
/// (an exact name, or `name(` followed by anything).
#[must_use]
pub fn is_enabled(tool: &str, include: Option<&[String]>, exclude: &[String]) -> bool {
    if tool.is_empty() || exclude.iter().any(|e| e == tool) {
        return false;
    }
    include.is_none_or(|include| {
        include
            .iter()
            .any(|i| i == tool || i.strip_prefix(tool).is_some_and(|r| r.starts_with('(')))
    })
}

/// The hints of an MCP tool's `annotations` that decide a replay.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Hints {
    /// `readOnlyHint`.
    pub read_only: Option<bool>,
    /// `destructiveHint`.
    pub destructive: Option<bool>,
    /// `idempotentHint`.
    pub idempotent: Option<bool>,
}

/// Qwen's `canSafelyReplay`: only a trusted server's tool that says it is
/// idempotent, or read-only and neither destructive nor non-idempotent, is
/// called again after its connection dropped. `hints` is `None` when the
/// tool has no annotations at all.
#[must_use]
pub fn can_safely_replay(trusted: bool, hints: Option<Hints>) -> bool {
    let Some(hints) = hints else {
        return false;
    };
    if !trusted {
        return false;
    }
    if hints.read_only == Some(true)
        && (hints.destructive == Some(true) || hints.idempotent == Some(false))
    {
        return false;
    }
    hints.idempotent == Some(true) || hints.read_only == Some(true)
}

/// Qwen's `MCP_CONNECTION_ERROR_PATTERNS`: whether an error's message says
/// the connection is gone, so a reconnect may help.
#[must_use]
pub fn is_connection_error(message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    [
        "econnrefused",
        "enotfound",
        "econnreset",
        "etimedout",
        "connection closed",
        "connection lost",
        "not connected",
        "disconnected",
        "transport closed",
    ]
    .iter()
    .any(|pattern| lower.contains(pattern))
}

/// The line a progress notification becomes while the call runs, as Qwen's
/// display renders `mcp_tool_progress`: `◌ [<progress>/<total>] <message>`,
/// `Progress: <progress>` standing in for a missing message.
#[must_use]
pub fn progress_line(progress: f64, total: Option<f64>, message: Option<&str>) -> String {
    let progress = js_number(progress);
    let total = total
        .map(|t| format!("/{}", js_number(t)))
        .unwrap_or_default();
    match message {
        Some(message) => format!("\u{25CC} [{progress}{total}] {message}"),
        None => format!("\u{25CC} [{progress}{total}] Progress: {progress}"),
    }
}

/// A number as JavaScript's `String(n)` writes the values progress takes:
/// a whole number without a fraction.
fn js_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e21 {
        format!("{n:.0}")
    } else {
        n.to_string()
    }
}

/// The display of a call the server answered with `isError` (Qwen's
/// `buildMcpToolError`).
#[must_use]
pub fn tool_error_display(tool: &str) -> String {
    format!("Error: MCP tool '{tool}' reported an error.")
}

/// The message of a call the server answered with `isError`: the call and
/// the response, each as `JSON.stringify` writes it, given here already
/// written.
#[must_use]
pub fn tool_error_message(tool: &str, call_json: &str, response_json: &str) -> String {
    format!(
        "MCP tool '{tool}' reported tool error for function call: {call_json} with response: \
         {response_json}"
    )
}

#[cfg(test)]
mod tests;
