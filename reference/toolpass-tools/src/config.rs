//! A session's settings, and the defaults they take from Qwen Code.

use std::collections::BTreeMap;
use std::path::PathBuf;

/// The approval modes, from the core where the decision lives.
pub use toolpass_core::approval::ApprovalMode;
/// The deferred-tool models, from the core where the reminder lives.
pub use toolpass_core::tool_search::reminder::DeferredModel;

/// Qwen's `DEFAULT_TRUNCATE_TOOL_OUTPUT_THRESHOLD`.
pub const DEFAULT_TRUNCATE_THRESHOLD: usize = 25_000;
/// Qwen's `DEFAULT_TRUNCATE_TOOL_OUTPUT_LINES`.
pub const DEFAULT_TRUNCATE_LINES: usize = 1_000;

/// Qwen's `DEFAULT_TOOL_OUTPUT_BATCH_BUDGET`: what the texts of one batch
/// may total.
pub const DEFAULT_BATCH_BUDGET: usize = toolpass_core::budget::DEFAULT_BATCH_BUDGET;

/// Qwen's `DEFAULT_SHELL_OUTPUT_THRESHOLD`: `run_shell_command`'s budget
/// when the session sets no threshold of its own.
pub const DEFAULT_SHELL_OUTPUT_THRESHOLD: usize = 30_000;

/// The largest file `edit` and `write_file` read or write whole: 64 MiB.
/// Beyond Qwen (which has no cap and holds a file several times over while
/// editing it), so one call cannot exhaust the server's memory.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 64 << 20;

/// Per-session settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionConfig {
    /// Characters above which a result is truncated.
    pub truncate_threshold: usize,
    /// Lines above which a result is truncated.
    pub truncate_lines: usize,
    /// UTF-16 units the texts of one batch may total (Qwen's
    /// `toolOutputBatchBudget`); 0: no budget.
    pub batch_budget: usize,
    /// `run_shell_command`'s budget in characters: Qwen's
    /// `getShellOutputThreshold`, the session's threshold when it sets one,
    /// else [`DEFAULT_SHELL_OUTPUT_THRESHOLD`].
    pub shell_output_threshold: usize,
    /// Tools that must not be registered.
    pub disabled_tools: Vec<String>,
    /// The largest file `edit` and `write_file` read or write
    /// (`file_too_large` above it).
    pub max_file_bytes: u64,
    /// Which calls ask the user first. YOLO when the session names none:
    /// a session replays calls the model made, as a headless run with
    /// nobody to ask would carry them out (SPEC.md `confirm.default-mode`).
    pub approval_mode: ApprovalMode,
    /// How a deferred tool is reached once `tool_search` found it. Proxy
    /// when the session names none: what published Qwen Code does.
    pub deferred_model: DeferredModel,
    /// Whether someone can answer a question (Qwen's `canCollectAnswers`):
    /// a session that names an approval mode has a user behind it; one
    /// that names none replays a headless run, where `ask_user_question`
    /// is told it cannot ask (SPEC.md `collab.ask.headless`).
    pub interactive: bool,
    /// The MCP servers to connect, by server name (Qwen's `mcpServers`).
    pub mcp_servers: BTreeMap<String, McpServerSettings>,
}

/// One MCP server of the session: a program started over stdio, as Qwen
/// Code's `MCPServerConfig` describes one.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct McpServerSettings {
    /// The program.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables set for it on top of the server process's environment.
    pub env: BTreeMap<String, String>,
    /// Its working directory, relative to the session root; the root when
    /// `None`.
    pub cwd: Option<PathBuf>,
    /// Milliseconds `initialize`, a listing or a call may take.
    pub timeout_ms: Option<u64>,
    /// Its tools run without asking.
    pub trust: bool,
    /// Only these of its tools are registered.
    pub include_tools: Option<Vec<String>>,
    /// These of its tools are not.
    pub exclude_tools: Vec<String>,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            truncate_threshold: DEFAULT_TRUNCATE_THRESHOLD,
            truncate_lines: DEFAULT_TRUNCATE_LINES,
            batch_budget: DEFAULT_BATCH_BUDGET,
            shell_output_threshold: DEFAULT_SHELL_OUTPUT_THRESHOLD,
            disabled_tools: Vec::new(),
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            approval_mode: ApprovalMode::Yolo,
            deferred_model: DeferredModel::Proxy,
            mcp_servers: BTreeMap::new(),
            interactive: false,
        }
    }
}
