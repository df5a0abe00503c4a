//! `send_message`: Qwen Code's `SendMessageTool` (`packages/core/src/tools/
//! send-message.ts`, 0.24.4). The message becomes a new instruction for a
//! teammate, a background agent or another session, run with full tool
//! access: a privileged sink, so it asks (default permission `ask`) and
//! the classifier sees the recipient and the whole message. Its
//! confirmation is the base class's (`Confirm SendMessage`, the call's
//! description).
//!
//! The reference has no agent team, no background agents (its background
//! shells are another registry, as in Qwen) and no cross-session
//! messaging, so an approved call answers as Qwen does without them.
//! Deferred and not always loaded, as Qwen's constructor says: the model
//! finds it with `tool_search`, and `tools/list` names it among the
//! deferred tools.

use serde::Deserialize;
use serde_json::{Map, Value};
use toolpass_core::approval::Permission;

use super::node::utf16_prefix;
use crate::classifier;
use crate::confirmation::Confirmation;
use crate::context::InvocationContext;
use crate::error_code::ToolErrorCode;
use crate::kind::Kind;
use crate::result::{Failure, ToolResult};
use crate::tool::{BuildError, DeclarativeTool, Invocation};
use crate::workspace::Workspace;

/// The tool's name.
pub const NAME: &str = "send_message";

/// `send_message`.
#[derive(Debug, Default)]
pub struct SendMessageTool;

/// The arguments.
#[derive(Debug, Deserialize)]
pub struct SendMessageParams {
    #[serde(default)]
    to: Option<String>,
    #[serde(default)]
    task_id: Option<String>,
    message: String,
    #[serde(default)]
    summary: Option<String>,
}

/// A member JavaScript would take as true: present and not empty.
fn given(value: Option<&String>) -> Option<&str> {
    value.map(String::as_str).filter(|s| !s.is_empty())
}

impl DeclarativeTool for SendMessageTool {
    const NAME: &'static str = NAME;
    const KIND: Kind = Kind::Other;
    const DECLARATION: &'static str = include_str!("declarations/send_message.json");
    const SHOULD_DEFER: bool = true;
    const SEARCH_HINT: Option<&'static str> =
        Some("send message task teammate team communicate notify");
    type Params = SendMessageParams;

    fn validate_values(
        &self,
        params: &mut SendMessageParams,
        _workspace: &Workspace,
    ) -> Result<(), BuildError> {
        if given(params.to.as_ref()).is_some() && given(params.task_id.as_ref()).is_some() {
            return Err(BuildError::invalid(
                "Only one of \"to\" or \"task_id\" may be provided.",
            ));
        }
        Ok(())
    }

    fn create_invocation(
        &self,
        params: SendMessageParams,
        _workspace: &Workspace,
    ) -> Box<dyn Invocation> {
        Box::new(SendMessageInvocation { params })
    }

    /// Qwen's `toAutoClassifierInput`: the routing fields and the message
    /// verbatim.
    fn classifier_input(&self, args: &Value, _workspace: &Workspace) -> Map<String, Value> {
        classifier::object([
            ("to", classifier::member(args, "to")),
            ("task_id", classifier::member(args, "task_id")),
            ("message", classifier::member(args, "message")),
        ])
    }
}

struct SendMessageInvocation {
    params: SendMessageParams,
}

impl Invocation for SendMessageInvocation {
    /// Qwen's `getDescription`, which its confirmation shows.
    fn description(&self) -> String {
        let p = &self.params;
        if let Some(task_id) = given(p.task_id.as_ref()) {
            return format!("Send message to task {task_id}");
        }
        let preview = p
            .summary
            .clone()
            .unwrap_or_else(|| utf16_prefix(&p.message, 50).to_owned());
        // JavaScript interpolates a missing `to` as "undefined".
        let to = p.to.as_deref().unwrap_or("undefined");
        format!("Send to {to}: {preview}")
    }

    fn default_permission(&self) -> Permission {
        Permission::Ask
    }

    /// The base class's question, titled `Confirm ` and the invocation's
    /// class name (`SendMessageInvocation` less `Invocation`).
    fn confirmation(&self, _workspace: &Workspace) -> Result<Confirmation, Failure> {
        Ok(Confirmation::Info {
            title: "Confirm SendMessage".to_owned(),
            prompt: self.description(),
        })
    }

    fn execute(
        &self,
        _workspace: &Workspace,
        _context: &InvocationContext,
    ) -> Result<ToolResult, Failure> {
        let p = &self.params;
        if let Some(task_id) = given(p.task_id.as_ref()) {
            return Err(Failure::new(
                ToolErrorCode::SendMessageNotFound,
                format!("Task not found: {task_id}"),
            )
            .llm_content(format!(
                "Error: No background task found with ID \"{task_id}\"."
            ))
            .display("Task not found."));
        }
        let to = p.to.as_deref().map(str::trim).unwrap_or_default();
        let message = match to {
            "" => "Recipient \"to\" is required.".to_owned(),
            "*" => "No active team to broadcast to. Broadcasting to other Qwen Code sessions is \
                    not supported — address each session by name from list_agents."
                .to_owned(),
            to => format!(
                "No active team and no task_id, and cross-session messaging is not active in \
                 this session (agents.crossSessionMessaging is off, or its inbox did not \
                 start), so \"{to}\" cannot be another session. Create a team, or pass \
                 `task_id` to message a background task."
            ),
        };
        Err(Failure::new(ToolErrorCode::Unknown, message.clone()).display(message))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn invocation(to: Option<&str>, task_id: Option<&str>, message: &str) -> SendMessageInvocation {
        SendMessageInvocation {
            params: SendMessageParams {
                to: to.map(str::to_owned),
                task_id: task_id.map(str::to_owned),
                message: message.to_owned(),
                summary: None,
            },
        }
    }

    #[test]
    fn the_description_previews_50_units_of_the_message() {
        let long = "m".repeat(80);
        assert_eq!(
            invocation(Some("alice"), None, &long).description(),
            format!("Send to alice: {}", "m".repeat(50))
        );
        assert_eq!(
            invocation(None, Some("bg_1"), "x").description(),
            "Send message to task bg_1"
        );
    }
}
