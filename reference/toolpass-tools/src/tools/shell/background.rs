//! A background command's launch: Qwen's
//! `ShellToolInvocation.executeBackground`. The command starts in the
//! session's registry (on pipes, with no timeout), the call is answered at
//! once with Qwen's launch text, and the shell's end reaches the notice
//! sink of this call ([`crate::shells`]).

use toolpass_shell::{Request, RunError};

use crate::context::InvocationContext;
use crate::error_code::ToolErrorCode;
use crate::result::{Display, Failure, ToolResult};
use crate::workspace::Workspace;

/// Starts `request` in the background.
pub(super) fn launch(
    workspace: &Workspace,
    context: &InvocationContext,
    request: &Request,
) -> Result<ToolResult, Failure> {
    let failed = |message: String| Failure::new(ToolErrorCode::ShellExecuteError, message);
    let dir = workspace.background_dir().map_err(|e| {
        failed(format!(
            "Could not make the directory for background shell output: {e}"
        ))
    })?;
    let launch = workspace
        .shells()
        .start(&dir, request, context.notices())
        .map_err(|e| match e {
            // The model's call, not the machine, is what must change.
            RunError::TooManyShells { .. } => {
                Failure::new(ToolErrorCode::InvalidToolParams, e.to_string())
            }
            e => failed(e.to_string()),
        })?;
    Ok(ToolResult::new(
        launch.model_text,
        Display::Text(launch.display),
    ))
}
