//! One session: a [`Workspace`] and the tools registered for it. A server
//! may hold many.
//!
//! The session does not choose its tools: whoever opens it (the server)
//! hands it the list, and the session registers them minus the ones its
//! config disables.

use std::io;
use std::ops::{Deref, DerefMut};
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use toolpass_core::approval::ApprovalMode;
use toolpass_core::mcp::budget::{BUDGET_VAR, BudgetSettings, MODE_VAR};

/// The settings travel with the session; they live in `config` so the
/// workspace can hold them without reaching back into this module.
pub use crate::config::SessionConfig;
use crate::mcp::McpServers;
use crate::registry::Registry;
use crate::tool::{Declared, Tool};
use crate::tools::deferred::reveal_without_bridge;
use crate::tools::read_mcp_resource::ReadMcpResourceTool;
use crate::workspace::Workspace;

/// A session.
pub struct Session {
    workspace: Workspace,
    registry: Arc<Registry>,
    /// The approval mode now: the config's at first, changed by a "proceed
    /// always" the user gives an edit (Qwen's `setApprovalMode`).
    approval_mode: Mutex<ApprovalMode>,
    /// Its MCP servers, once [`Session::start_mcp`] has run.
    mcp: OnceLock<Arc<McpServers>>,
}

impl Session {
    /// A session rooted at `root` (an existing directory) with `tools`, minus
    /// the ones `config` disables.
    ///
    /// # Errors
    /// When `root` cannot be resolved.
    pub fn new(
        root: &Path,
        config: SessionConfig,
        tools: impl IntoIterator<Item = Arc<dyn Tool>>,
    ) -> io::Result<Self> {
        let registry = Arc::new(Registry::new(config.disabled_tools.iter().cloned()));
        for tool in tools {
            registry.register(tool);
        }
        Ok(Session {
            approval_mode: Mutex::new(config.approval_mode),
            workspace: Workspace::new(root, config)?,
            registry,
            mcp: OnceLock::new(),
        })
    }

    /// The approval mode now.
    #[must_use]
    pub fn approval_mode(&self) -> ApprovalMode {
        *self
            .approval_mode
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Changes the approval mode for the rest of the session.
    pub fn set_approval_mode(&self, mode: ApprovalMode) {
        *self
            .approval_mode
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = mode;
    }

    /// The tools.
    #[must_use]
    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// Connects the config's MCP servers and registers their tools, and
    /// `read_mcp_resource`, which Qwen 0.24.4 registers in every session
    /// (with no server, every read names the server as not configured)
    /// (Qwen's `discoverAllMcpTools` at start). Without the deferred-tool
    /// bridge, the deferred tools are then revealed
    /// ([`reveal_without_bridge`]). The client budget comes from this
    /// process's `QWEN_SERVE_MCP_CLIENT_BUDGET` and
    /// `QWEN_SERVE_MCP_BUDGET_MODE`. A server that cannot be connected is
    /// left out and named in the returned failures; a second call does
    /// nothing.
    pub fn start_mcp(&self) -> Vec<String> {
        let settings = &self.config().mcp_servers;
        if self.mcp.get().is_some() {
            return Vec::new();
        }
        let var = |name| std::env::var(name).ok();
        let budget =
            BudgetSettings::from_vars(var(BUDGET_VAR).as_deref(), var(MODE_VAR).as_deref());
        for problem in &budget.problems {
            tracing::warn!("{problem}");
        }
        let root = self.sandbox().root().to_owned();
        let servers = McpServers::new(&root, settings.clone(), &self.registry, &budget);
        let servers = Arc::clone(self.mcp.get_or_init(|| servers));
        let failures = servers.connect_all();
        let reader = Declared::new(ReadMcpResourceTool::new(Arc::downgrade(&servers)));
        self.registry.register(Arc::new(reader));
        reveal_without_bridge(&self.registry, self.config().deferred_model);
        failures
    }

    /// Its MCP servers, if it has any.
    #[must_use]
    pub fn mcp(&self) -> Option<&Arc<McpServers>> {
        self.mcp.get()
    }

    /// Shuts its MCP servers down and waits for them to exit.
    pub fn stop_mcp(&self) {
        if let Some(servers) = self.mcp.get() {
            servers.shutdown();
        }
    }
}

/// A session is its workspace to everything but the scheduler: the tools
/// take `&Workspace`, and `&session` is one.
impl Deref for Session {
    type Target = Workspace;

    fn deref(&self) -> &Workspace {
        &self.workspace
    }
}

impl DerefMut for Session {
    fn deref_mut(&mut self) -> &mut Workspace {
        &mut self.workspace
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(session: &Session) -> Vec<String> {
        let declarations = session.registry().declarations();
        declarations
            .tools
            .iter()
            .map(|t| t.name().to_owned())
            .collect()
    }

    #[test]
    fn a_session_registers_the_tools_it_is_handed_minus_the_disabled_ones() {
        let dir = tempfile::tempdir().unwrap();
        let config = SessionConfig {
            disabled_tools: vec!["glob".to_owned(), "no_such_tool".to_owned()],
            ..SessionConfig::default()
        };
        let session = Session::new(dir.path(), config, crate::tools::all()).unwrap();
        assert_eq!(
            names(&session),
            [
                "ask_user_question",
                "edit",
                "grep_search",
                "list_directory",
                "notebook_edit",
                "read_file",
                "run_shell_command",
                "task_create",
                "todo_write",
                "write_file"
            ]
        );
        // Registered all the same: deferred, so hidden until revealed.
        let hidden = session.registry().hidden_deferred();
        let hidden: Vec<&str> = hidden.iter().map(|t| t.name()).collect();
        assert_eq!(hidden, ["send_message", "task_stop"]);
        let bare = Session::new(dir.path(), SessionConfig::default(), Vec::new()).unwrap();
        assert!(names(&bare).is_empty());
        // The workspace is there whatever the tools.
        assert_eq!(bare.sandbox().root(), session.sandbox().root());
    }
}
