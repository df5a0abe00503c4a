//! `tool_call`: the proxy model's bridge (Qwen Code 0.24.4's `ToolCallTool`,
//! `packages/core/src/tools/tool-call.ts`). The model calls a hidden
//! deferred tool as `tool_call {"name", "arguments"}`; the scheduler
//! unwraps the envelope ([`resolve`]) before anything else, so the target
//! runs under its own kind, permissions and confirmations, never under the
//! bridge's. The bridge's own invocation only runs when something bypassed
//! the scheduler, and then refuses.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::context::InvocationContext;
use crate::error_code::ToolErrorCode;
use crate::kind::Kind;
use crate::registry::Registry;
use crate::result::{Failure, ToolResult};
use crate::tool::{BuildError, DeclarativeTool, Invocation};
use crate::workspace::Workspace;

/// The tool's name.
pub const NAME: &str = "tool_call";

/// What every refusal of the bridge starts with (Qwen's
/// `DEFERRED_TOOL_CALL_REFUSAL_PREFIX`).
pub const REFUSAL_PREFIX: &str = "[tool_call bridge refused] ";

/// `tool_call`.
#[derive(Debug, Default)]
pub struct ToolCallTool;

/// The envelope.
#[derive(Debug, Deserialize)]
pub struct ToolCallParams {
    name: String,
    arguments: Map<String, Value>,
}

impl DeclarativeTool for ToolCallTool {
    const NAME: &'static str = NAME;
    const KIND: Kind = Kind::Other;
    const DECLARATION: &'static str = include_str!("declarations/tool_call.json");
    const ALWAYS_LOAD: bool = true;
    const SEARCH_HINT: Option<&'static str> = Some("deferred bridge invoke execute");
    type Params = ToolCallParams;

    fn validate_values(&self, _: &mut ToolCallParams, _: &Workspace) -> Result<(), BuildError> {
        Ok(())
    }

    fn create_invocation(&self, params: ToolCallParams, _: &Workspace) -> Box<dyn Invocation> {
        Box::new(Unrouted {
            target: params.name,
        })
    }
}

/// A `tool_call` that reached execution without the scheduler unwrapping
/// it.
struct Unrouted {
    target: String,
}

impl Invocation for Unrouted {
    fn description(&self) -> String {
        self.target.clone()
    }

    fn execute(&self, _: &Workspace, _: &InvocationContext) -> Result<ToolResult, Failure> {
        let message = "tool_call must be dispatched through the tool scheduler so the underlying \
                       tool keeps its permissions, hooks, and approvals.";
        Err(Failure::new(ToolErrorCode::ExecutionFailed, message)
            .llm_content(format!("Error: {message}"))
            .display(message))
    }
}

/// The call `tool_call` stands for: the target tool and its arguments.
pub struct Routed {
    /// The target, under its registered name.
    pub name: String,
    /// The arguments for it.
    pub arguments: Value,
}

/// Qwen's `resolveDeferredToolCall`: the target of the envelope `args`,
/// or the refusal the model reads.
///
/// # Errors
/// A failure whose message starts with [`REFUSAL_PREFIX`].
pub fn resolve(
    registry: &Registry,
    args: &Value,
    workspace: &Workspace,
) -> Result<Routed, Failure> {
    let refuse = |code, message: String| Failure::new(code, format!("{REFUSAL_PREFIX}{message}"));
    let bridge: Arc<dyn crate::tool::Tool> = registry.get(NAME).ok_or_else(|| {
        let message = "tool_call is not registered in this session.".to_owned();
        refuse(ToolErrorCode::ToolNotRegistered, message)
    })?;
    // The envelope is checked against the bridge's own schema first.
    bridge
        .build(args, workspace)
        .map_err(|e| refuse(ToolErrorCode::InvalidToolParams, e.message))?;
    let ToolCallParams { name, arguments } = serde_json::from_value(args.clone())
        .map_err(|e| refuse(ToolErrorCode::InvalidToolParams, format!("params {e}")))?;
    let (requested, arguments) = (name.as_str(), Value::Object(arguments));
    // Without case, the last registered spelling winning, as Qwen's loop.
    let lower = requested.to_lowercase();
    let name = registry
        .names()
        .into_iter()
        .rfind(|n| n.to_lowercase() == lower)
        .unwrap_or_else(|| requested.to_owned());
    if name == NAME || name == super::tool_search::NAME {
        let message = format!("tool_call cannot invoke bridge tool \"{name}\".");
        return Err(refuse(ToolErrorCode::InvalidToolParams, message));
    }
    let Some(target) = registry.get(&name) else {
        let remedy = if registry.get(super::tool_search::NAME).is_some() {
            " Run tool_search again to inspect the available tools."
        } else {
            " No deferred-tool discovery is available in this session."
        };
        let message =
            format!("Deferred tool \"{requested}\" is not registered in this session.{remedy}");
        return Err(refuse(ToolErrorCode::ToolNotRegistered, message));
    };
    if !registry.is_deferred_and_hidden(target.name()) {
        let message = format!(
            "Tool \"{}\" is already visible to the model or is not deferred. Call it directly \
             instead of using tool_call.",
            target.name()
        );
        return Err(refuse(ToolErrorCode::InvalidToolParams, message));
    }
    if registry.get(super::tool_search::NAME).is_none() {
        let message = format!(
            "Deferred tool \"{}\" is unreachable in this session: tool_search is not registered, \
             so the ToolSearch + ToolCall bridge is incomplete and deferred tools cannot be \
             invoked via tool_call.",
            target.name()
        );
        return Err(refuse(ToolErrorCode::ExecutionDenied, message));
    }
    Ok(Routed { name, arguments })
}
