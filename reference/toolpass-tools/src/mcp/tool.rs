//! An MCP server's tool as the registry holds it (Qwen's
//! `DiscoveredMCPTool` and its invocation, `packages/core/src/tools/
//! mcp-tool.ts`): declared as `mcp__<server>__<tool>` made valid, of kind
//! Read when the server marks it `readOnlyHint: true` and Other otherwise,
//! always deferred, found by `tool_search` through its `mcp <server>` hint.
//!
//! A call asks first unless the server is trusted; progress notifications
//! reach the client as updates; an `isError` answer is an
//! `mcp_tool_error`; a text part over 500 000 characters is cut to a
//! preview with the rest spilled. When the connection drops under a call
//! the server is reconnected (up to three times), and the call replayed
//! only when Qwen's `canSafelyReplay` allows it.
//!
//! An `inputSchema` that is not valid JSON Schema is Qwen's case too: the
//! tool is registered and declared as listed, and its arguments go to the
//! server unchecked (Qwen's `SchemaValidator.validate` skips a schema it
//! cannot compile).

use std::sync::{Arc, OnceLock, Weak};

use serde_json::{Map, Value};
use toolpass_core::approval::Permission;
use toolpass_core::mcp::{self as rules, Hints};
use toolpass_core::truncate::{Keep, Limits};
use toolpass_mcp::{Abort, CallError, CallOutcome, Connection, ListedTool, Progress};

use super::McpServers;
use super::content::{self, Part};
use crate::confirmation::Confirmation;
use crate::context::InvocationContext;
use crate::error_code::ToolErrorCode;
use crate::faults::FaultPoint;
use crate::kind::Kind;
use crate::output_budget;
use crate::result::{Budget, Display, Failure, ToolResult};
use crate::tool::{BuildError, Invocation, Tool, violations};
use crate::workspace::Workspace;

/// What a tool and each of its calls know of where they come from.
#[derive(Clone)]
struct Origin {
    server: String,
    /// The tool's name on the server.
    server_tool: String,
    /// The declared name.
    name: String,
    display_name: String,
    trust: bool,
    servers: Weak<McpServers>,
}

/// An MCP server's tool.
pub struct DiscoveredMcpTool {
    origin: Origin,
    description: String,
    schema: Value,
    kind: Kind,
    hint: String,
    alias: Option<String>,
    annotations: Option<Hints>,
    connection: Arc<Connection>,
    /// The compiled schema; `None` when it does not compile.
    validator: OnceLock<Option<jsonschema::Validator>>,
}

impl DiscoveredMcpTool {
    /// Tool `listed` of server `server`, called through `connection`;
    /// `servers` reconnects it when the connection drops.
    #[must_use]
    pub fn new(
        server: &str,
        listed: ListedTool,
        trust: bool,
        connection: Arc<Connection>,
        servers: Weak<McpServers>,
    ) -> Self {
        let read_only = listed.annotations.and_then(|a| a.read_only) == Some(true);
        DiscoveredMcpTool {
            origin: Origin {
                server: server.to_owned(),
                name: rules::tool_name(server, &listed.name),
                display_name: rules::display_name(server, &listed.name),
                server_tool: listed.name.clone(),
                trust,
                servers,
            },
            description: listed.description,
            schema: listed.input_schema,
            kind: if read_only { Kind::Read } else { Kind::Other },
            hint: rules::search_hint(server),
            alias: rules::legacy_alias(server, &listed.name),
            annotations: listed.annotations,
            connection,
            validator: OnceLock::new(),
        }
    }

    fn validator(&self) -> Option<&jsonschema::Validator> {
        self.validator
            .get_or_init(|| match jsonschema::validator_for(&self.schema) {
                Ok(validator) => Some(validator),
                Err(e) => {
                    tracing::warn!(
                        tool = self.origin.name,
                        "Failed to compile schema: {e}. Skipping parameter validation."
                    );
                    None
                }
            })
            .as_ref()
    }
}

impl Tool for DiscoveredMcpTool {
    fn name(&self) -> &str {
        &self.origin.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameter_schema(&self) -> &Value {
        &self.schema
    }

    fn kind(&self) -> Kind {
        self.kind
    }

    fn should_defer(&self) -> bool {
        true
    }

    fn search_hint(&self) -> Option<&str> {
        Some(&self.hint)
    }

    fn mcp_server(&self) -> Option<&str> {
        Some(&self.origin.server)
    }

    fn permission_aliases(&self) -> Vec<String> {
        self.alias.iter().cloned().collect()
    }

    fn max_output_chars(&self, _workspace: &Workspace) -> Option<usize> {
        Some(rules::MAX_OUTPUT_CHARS)
    }

    fn build(
        &self,
        args: &Value,
        _workspace: &Workspace,
    ) -> Result<Box<dyn Invocation>, BuildError> {
        let Value::Object(arguments) = args else {
            return Err(BuildError::invalid("Value of params must be an object"));
        };
        if let Some(validator) = self.validator() {
            violations(validator, args).map_err(BuildError::invalid)?;
        }
        Ok(Box::new(McpInvocation {
            origin: self.origin.clone(),
            arguments: arguments.clone(),
            connection: Arc::clone(&self.connection),
            annotations: self.annotations,
        }))
    }
}

/// One call of an MCP tool.
struct McpInvocation {
    origin: Origin,
    arguments: Map<String, Value>,
    connection: Arc<Connection>,
    annotations: Option<Hints>,
}

impl Invocation for McpInvocation {
    fn description(&self) -> String {
        Value::Object(self.arguments.clone()).to_string()
    }

    fn default_permission(&self) -> Permission {
        if self.origin.trust {
            Permission::Allow
        } else {
            Permission::Ask
        }
    }

    fn confirmation(&self, _workspace: &Workspace) -> Result<Confirmation, Failure> {
        Ok(Confirmation::Mcp {
            title: rules::CONFIRMATION_TITLE.to_owned(),
            server_name: self.origin.server.clone(),
            tool_name: self.origin.server_tool.clone(),
            tool_display_name: self.origin.display_name.clone(),
        })
    }

    fn execute(
        &self,
        workspace: &Workspace,
        context: &InvocationContext,
    ) -> Result<ToolResult, Failure> {
        self.attempt(workspace, context, &self.connection, self.annotations, 0)
    }
}

impl McpInvocation {
    /// One try of the call on `connection`, the `retry`th.
    fn attempt(
        &self,
        workspace: &Workspace,
        context: &InvocationContext,
        connection: &Arc<Connection>,
        hints: Option<Hints>,
        retry: u32,
    ) -> Result<ToolResult, Failure> {
        if workspace.faults().fire(FaultPoint::McpDisconnect) {
            tracing::info!(
                server = self.origin.server,
                "mcp.disconnect: dropping the connection"
            );
            connection.shutdown();
        }
        let abort = Abort::default();
        let stop = abort.clone();
        let _listening = context.cancellation.on_request(move || stop.abort());
        let watcher = context.clone();
        let progress = Arc::new(move |p: Progress| {
            watcher.update(&rules::progress_line(
                p.progress,
                p.total,
                p.message.as_deref(),
            ));
        });
        let answer = connection.call_tool(
            &self.origin.server_tool,
            self.arguments.clone(),
            progress,
            &abort,
        );
        match answer {
            Ok(answer) if answer.is_error => Ok(self.tool_error(&answer)),
            Ok(answer) => Ok(self.success(workspace, &answer)),
            // The scheduler sees the cancellation and says so.
            Err(CallError::Aborted) => Err(failure(&CallError::Aborted)),
            Err(error @ CallError::Timeout(_)) if !connection.is_closed() => Err(Failure::new(
                ToolErrorCode::ExecutionTimeout,
                error.to_string(),
            )),
            Err(error) => self.after_failure(workspace, context, connection, &error, hints, retry),
        }
    }

    /// Qwen's `handleReconnectOnError`.
    fn after_failure(
        &self,
        workspace: &Workspace,
        context: &InvocationContext,
        connection: &Connection,
        error: &CallError,
        hints: Option<Hints>,
        retry: u32,
    ) -> Result<ToolResult, Failure> {
        let message = error.to_string();
        let dropped = connection.is_closed() || rules::is_connection_error(&message);
        let servers = self.origin.servers.upgrade();
        let (Some(servers), true, false) = (servers, dropped, context.cancellation.is_requested())
        else {
            return Err(failure(error));
        };
        let server = &self.origin.server;
        if !rules::can_safely_replay(self.origin.trust, hints) {
            if let Err(e) = servers.reconnect(server) {
                tracing::error!("Failed to reconnect MCP server '{server}': {e}");
            }
            return Err(unsafe_replay());
        }
        if retry >= rules::MAX_RECONNECT_RETRIES {
            tracing::error!(
                "Max reconnection attempts ({}) reached for MCP server '{server}'",
                rules::MAX_RECONNECT_RETRIES
            );
            return Err(failure(error));
        }
        tracing::info!(
            "Reconnection attempt {}/{} for MCP server '{server}'",
            retry + 1,
            rules::MAX_RECONNECT_RETRIES
        );
        if let Err(e) = servers.reconnect(server) {
            tracing::error!("Failed to reconnect MCP server '{server}': {e}");
            return Err(failure(error));
        }
        let Some((connection, hints)) = servers.tool_of(server, &self.origin.server_tool) else {
            return Err(failure(error));
        };
        if !rules::can_safely_replay(self.origin.trust, hints) {
            return Err(unsafe_replay());
        }
        self.attempt(workspace, context, &connection, hints, retry + 1)
    }

    /// Qwen's `buildMcpToolError`.
    fn tool_error(&self, answer: &CallOutcome) -> ToolResult {
        let tool = &self.origin.server_tool;
        let message = rules::tool_error_message(
            tool,
            &content::call_json(tool, &self.arguments),
            &content::error_response_json(tool, answer),
        );
        Failure::new(ToolErrorCode::McpToolError, message)
            .display(rules::tool_error_display(tool))
            .into()
    }

    /// The answer for the model, each text part over the tool's budget cut
    /// to a preview and spilled (Qwen's `truncateTextParts`).
    fn success(&self, workspace: &Workspace, answer: &CallOutcome) -> ToolResult {
        let parts = content::parts(&self.origin.server_tool, answer);
        let limits = Limits {
            threshold: rules::MAX_OUTPUT_CHARS,
            lines: None,
            keep: Keep::Both,
            preview_chars: Some(rules::OUTPUT_PREVIEW_CHARS),
        };
        let mut held = parts.clone();
        let (mut spilled, mut cut) = (Vec::new(), false);
        for part in &mut held {
            if let Part::Text(text) = part {
                let before = text.len();
                spilled.extend(output_budget::hold(
                    workspace,
                    &self.origin.name,
                    &limits,
                    text,
                ));
                cut |= text.len() != before;
            }
        }
        let mut display = content::display(&parts);
        if !spilled.is_empty() {
            display.push_str("\nOutput too long and was saved to:");
            for path in &spilled {
                display.push_str(&format!("\n- {}", path.display()));
            }
        }
        let mut result = ToolResult::new(content::model_text(&held), Display::Text(display));
        if cut {
            result.budget = Budget::Applied(spilled.into_iter().next());
        }
        result
    }
}

/// A call that failed without an answer: Qwen's scheduler reports what an
/// MCP tool throws as `mcp_tool_error` with the error's message.
fn failure(error: &CallError) -> Failure {
    Failure::new(ToolErrorCode::McpToolError, error.to_string())
}

fn unsafe_replay() -> Failure {
    Failure::new(ToolErrorCode::McpToolError, rules::UNSAFE_REPLAY_MESSAGE)
}
