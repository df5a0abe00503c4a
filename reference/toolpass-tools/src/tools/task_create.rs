//! `task_create`: Qwen Code's `TaskCreateTool` (`packages/core/src/tools/
//! task-create.ts`, 0.24.4). A task's description becomes the prompt an
//! idle teammate claims and runs with full tool access, so Qwen treats the
//! tool as a privileged sink: it asks (default permission `ask`, not the
//! base class's `allow`), and its confirmation shows the description itself
//! (up to 2 000 characters), not a one-line summary.
//!
//! The reference has no agent team, so an approved call answers as Qwen
//! does without one: `No active team. Create a team first.`

use serde::Deserialize;
use serde_json::{Map, Value};
use toolpass_core::approval::Permission;

use super::node::{utf16_len, utf16_prefix};
use crate::classifier;
use crate::confirmation::Confirmation;
use crate::context::InvocationContext;
use crate::error_code::ToolErrorCode;
use crate::kind::Kind;
use crate::result::{Failure, ToolResult};
use crate::tool::{BuildError, DeclarativeTool, Invocation};
use crate::workspace::Workspace;

/// The tool's name.
pub const NAME: &str = "task_create";

/// Qwen's `CONFIRMATION_DESCRIPTION_LIMIT`, in UTF-16 units.
const SHOWN_UNITS: usize = 2_000;

/// What an approved call answers without a team.
pub const NO_TEAM: &str = "No active team. Create a team first.";

/// `task_create`.
#[derive(Debug, Default)]
pub struct TaskCreateTool;

/// The arguments.
#[derive(Debug, Deserialize)]
pub struct TaskCreateParams {
    subject: String,
    description: String,
}

impl DeclarativeTool for TaskCreateTool {
    const NAME: &'static str = NAME;
    const KIND: Kind = Kind::Other;
    const DECLARATION: &'static str = include_str!("declarations/task_create.json");
    type Params = TaskCreateParams;

    fn validate_values(
        &self,
        _params: &mut TaskCreateParams,
        _workspace: &Workspace,
    ) -> Result<(), BuildError> {
        Ok(())
    }

    fn create_invocation(
        &self,
        params: TaskCreateParams,
        _workspace: &Workspace,
    ) -> Box<dyn Invocation> {
        Box::new(TaskCreateInvocation { params })
    }

    /// Qwen's `toAutoClassifierInput`: the subject and the whole
    /// description, the instruction the classifier must judge.
    fn classifier_input(&self, args: &Value, _workspace: &Workspace) -> Map<String, Value> {
        classifier::object([
            ("subject", classifier::member(args, "subject")),
            ("description", classifier::member(args, "description")),
        ])
    }
}

struct TaskCreateInvocation {
    params: TaskCreateParams,
}

/// Qwen's `truncateForConfirmation`: the first 2 000 units, and how many
/// more there were.
fn shown(description: &str) -> String {
    let total = utf16_len(description);
    if total <= SHOWN_UNITS {
        return description.to_owned();
    }
    let head = utf16_prefix(description, SHOWN_UNITS);
    format!("{head}\n… ({} more characters)", total - SHOWN_UNITS)
}

impl Invocation for TaskCreateInvocation {
    fn description(&self) -> String {
        format!("Create task: {}", self.params.subject)
    }

    fn default_permission(&self) -> Permission {
        Permission::Ask
    }

    fn confirmation(&self, _workspace: &Workspace) -> Result<Confirmation, Failure> {
        Ok(Confirmation::Info {
            title: "Confirm TaskCreate".to_owned(),
            prompt: format!(
                "{}\n\n{}",
                self.description(),
                shown(&self.params.description)
            ),
        })
    }

    fn execute(
        &self,
        _workspace: &Workspace,
        _context: &InvocationContext,
    ) -> Result<ToolResult, Failure> {
        Err(Failure::new(ToolErrorCode::Unknown, NO_TEAM).display(NO_TEAM))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_confirmation_shows_up_to_2000_units_and_counts_the_rest() {
        let short = "x".repeat(2_000);
        assert_eq!(shown(&short), short);
        let long = format!("{}{}", "é".repeat(2_000), "😀".repeat(3));
        assert_eq!(
            shown(&long),
            format!("{}\n… (6 more characters)", "é".repeat(2_000))
        );
    }
}
