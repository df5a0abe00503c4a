//! One session: a [`Workspace`] and the tools registered for it. A server
//! may hold many.
//!
//! The session does not choose its tools: whoever opens it (the server)
//! hands it the list, and the session registers them minus the ones its
//! config disables.

use std::io;
use std::ops::{Deref, DerefMut};
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use toolpass_core::approval::ApprovalMode;

/// The settings travel with the session; they live in `config` so the
/// workspace can hold them without reaching back into this module.
pub use crate::config::SessionConfig;
use crate::registry::Registry;
use crate::tool::Tool;
use crate::workspace::Workspace;

/// A session.
pub struct Session {
    workspace: Workspace,
    registry: Arc<Registry>,
    /// The approval mode now: the config's at first, changed by a "proceed
    /// always" the user gives an edit (Qwen's `setApprovalMode`).
    approval_mode: Mutex<ApprovalMode>,
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
                "read_file",
                "run_shell_command",
                "send_message",
                "task_create",
                "task_stop",
                "todo_write",
                "write_file"
            ]
        );
        let bare = Session::new(dir.path(), SessionConfig::default(), Vec::new()).unwrap();
        assert!(names(&bare).is_empty());
        // The workspace is there whatever the tools.
        assert_eq!(bare.sandbox().root(), session.sandbox().root());
    }
}
