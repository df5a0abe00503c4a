//! `task_stop`: Qwen Code's `TaskStopTool` (`packages/core/src/tools/
//! task-stop.ts`, 0.24.4) for background shells, the only tasks this layer
//! has. Deferred and not always loaded, as Qwen's constructor says
//! (`shouldDefer: true`, `alwaysLoad: false`, hint `task stop cancel kill
//! background`): the model finds it with `tool_search`, and `tools/list`
//! names it among the deferred tools. Callable by name either way, as the
//! registry holds it whether declared or not.
//!
//! A running shell is asked to stop and the call answers at once; the
//! shell's whole family is then ended (its group, its descendants, every
//! process carrying its mark: beyond Qwen, which signals the group only)
//! and the cancelled notice follows. A shell that already ended is refused
//! and left as it is.

use serde::Deserialize;
use toolpass_shell::background::notice::StopError;

use crate::context::InvocationContext;
use crate::error_code::ToolErrorCode;
use crate::kind::Kind;
use crate::result::{Display, Failure, ToolResult};
use crate::tool::{BuildError, DeclarativeTool, Invocation};
use crate::workspace::Workspace;

/// The tool's name.
pub const NAME: &str = "task_stop";

/// `task_stop`.
#[derive(Debug, Default)]
pub struct TaskStopTool;

/// The arguments.
#[derive(Debug, Deserialize)]
pub struct TaskStopParams {
    task_id: String,
}

impl DeclarativeTool for TaskStopTool {
    const NAME: &'static str = NAME;
    const KIND: Kind = Kind::Other;
    const DECLARATION: &'static str = include_str!("declarations/task_stop.json");
    const SHOULD_DEFER: bool = true;
    const SEARCH_HINT: Option<&'static str> = Some("task stop cancel kill background");
    type Params = TaskStopParams;

    fn validate_values(
        &self,
        _params: &mut TaskStopParams,
        _workspace: &Workspace,
    ) -> Result<(), BuildError> {
        Ok(())
    }

    fn create_invocation(
        &self,
        params: TaskStopParams,
        _workspace: &Workspace,
    ) -> Box<dyn Invocation> {
        Box::new(TaskStopInvocation { params })
    }
}

struct TaskStopInvocation {
    params: TaskStopParams,
}

impl Invocation for TaskStopInvocation {
    fn description(&self) -> String {
        format!("Stop task {}", self.params.task_id)
    }

    fn execute(
        &self,
        workspace: &Workspace,
        _context: &InvocationContext,
    ) -> Result<ToolResult, Failure> {
        let reply = workspace.shells().stop(&self.params.task_id);
        match reply.error {
            None => Ok(ToolResult::new(
                reply.model_text,
                Display::Text(reply.display),
            )),
            Some((error, message)) => {
                let code = match error {
                    StopError::NotFound => ToolErrorCode::TaskStopNotFound,
                    StopError::NotRunning => ToolErrorCode::TaskStopNotRunning,
                };
                Err(Failure::new(code, message)
                    .llm_content(reply.model_text)
                    .display(reply.display))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::{Declared, Tool};

    #[test]
    fn declared_deferred_with_qwens_schema() {
        let tool = Declared::<TaskStopTool>::default();
        assert!(tool.should_defer());
        assert!(!tool.always_load(), "hidden until tool_search finds it");
        assert_eq!(tool.search_hint(), Some("task stop cancel kill background"));
        assert_eq!(tool.kind(), Kind::Other);
        assert_eq!(
            tool.parameter_schema()["required"],
            serde_json::json!(["task_id"])
        );
    }
}
