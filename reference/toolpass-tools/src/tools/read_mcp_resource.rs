//! `read_mcp_resource`: Qwen Code's `ReadMcpResourceTool`
//! (`packages/core/src/tools/read-mcp-resource.ts`, 0.24.4). Reads one
//! resource of one of the session's MCP servers and frames it for the
//! model (`toolpass_core::mcp::resource`: text capped at 100 000
//! characters, blobs at 8 000 000 base64 characters, both said so when
//! cut). Registered only in a session with MCP servers; deferred; asks
//! first unless the server is trusted.
//!
//! A blob reaches Qwen's model as inline data beside the framed text; the
//! reference's model has no such input, so the model reads the frame and
//! the display counts the attachment.

use std::sync::Weak;

use serde::Deserialize;
use toolpass_core::approval::Permission;
use toolpass_core::mcp::resource::{self, Content, Part};
use toolpass_shell::output::text::strip_ansi;

use crate::confirmation::Confirmation;
use crate::context::InvocationContext;
use crate::error_code::ToolErrorCode;
use crate::kind::Kind;
use crate::mcp::McpServers;
use crate::result::{Display, Failure, ToolResult};
use crate::tool::{BuildError, DeclarativeTool, Invocation};
use crate::workspace::Workspace;

/// The tool's name.
pub const NAME: &str = "read_mcp_resource";

/// The tool, for the session whose servers `servers` are.
pub struct ReadMcpResourceTool {
    servers: Weak<McpServers>,
}

impl ReadMcpResourceTool {
    /// The tool reading from `servers`.
    #[must_use]
    pub fn new(servers: Weak<McpServers>) -> Self {
        ReadMcpResourceTool { servers }
    }
}

/// The arguments.
#[derive(Debug, Deserialize)]
pub struct Params {
    server_name: String,
    uri: String,
}

impl DeclarativeTool for ReadMcpResourceTool {
    const NAME: &'static str = NAME;
    const KIND: Kind = Kind::Fetch;
    const DECLARATION: &'static str = include_str!("declarations/read_mcp_resource.json");
    const SHOULD_DEFER: bool = true;
    const SEARCH_HINT: Option<&'static str> = Some("mcp resource read uri server fetch");
    type Params = Params;

    fn validate_values(&self, _: &mut Params, _: &Workspace) -> Result<(), BuildError> {
        Ok(())
    }

    fn create_invocation(&self, params: Params, _: &Workspace) -> Box<dyn Invocation> {
        Box::new(ReadMcpResource {
            params,
            servers: self.servers.clone(),
        })
    }

    /// Exempt from the scheduler's cut, as Qwen's is: the frame is already
    /// within its caps, and a cut could slice it mid-content.
    fn max_output_chars(&self, _: &Workspace) -> Option<usize> {
        Some(usize::MAX)
    }
}

struct ReadMcpResource {
    params: Params,
    servers: Weak<McpServers>,
}

impl ReadMcpResource {
    fn label(&self) -> String {
        format!("{}:{}", self.params.server_name, self.params.uri)
    }
}

impl Invocation for ReadMcpResource {
    fn description(&self) -> String {
        self.label()
    }

    fn default_permission(&self) -> Permission {
        let servers = self.servers.upgrade();
        let settings = servers
            .as_ref()
            .and_then(|s| s.settings(&self.params.server_name).cloned());
        if settings.is_some_and(|s| s.trust) {
            Permission::Allow
        } else {
            Permission::Ask
        }
    }

    fn confirmation(&self, _: &Workspace) -> Result<Confirmation, Failure> {
        Ok(Confirmation::Info {
            title: "Confirm MCP Resource Read".to_owned(),
            prompt: format!(
                "Read resource {} from MCP server \"{}\"",
                self.params.uri, self.params.server_name
            ),
        })
    }

    fn execute(&self, _: &Workspace, _: &InvocationContext) -> Result<ToolResult, Failure> {
        let server = &self.params.server_name;
        let thrown = |message: String| Failure::new(ToolErrorCode::UnhandledException, message);
        let servers = self
            .servers
            .upgrade()
            .ok_or_else(|| thrown("the session has ended".to_owned()))?;
        if servers.settings(server).is_none() {
            return Err(thrown(format!("MCP server '{server}' is not configured.")));
        }
        let connection = match servers.connection(server) {
            Some(connection) if !connection.is_closed() => connection,
            // Qwen connects a configured server that is not connected.
            _ => {
                servers.reconnect(server).map_err(thrown)?;
                servers
                    .connection(server)
                    .ok_or_else(|| thrown(format!("MCP server '{server}' is not connected.")))?
            }
        };
        let contents = connection
            .read_resource(&self.params.uri)
            .map_err(|e| thrown(e.to_string()))?;
        // As an MCP tool's text: no terminal escape sequence reaches the model.
        let contents: Vec<Content> = contents
            .into_iter()
            .map(|content| match content {
                Content::Text(text) => Content::Text(strip_ansi(&text)),
                blob @ Content::Blob { .. } => blob,
            })
            .collect();
        let label = self.label();
        let formatted = resource::format(&contents, &label, &nonce());
        let texts: Vec<&str> = formatted
            .parts
            .iter()
            .filter_map(|p| match p {
                Part::Text(text) => Some(text.as_str()),
                Part::Blob { .. } => None,
            })
            .collect();
        let llm = if formatted.parts.is_empty() {
            resource::empty_text(&formatted, &label)
        } else {
            texts.join("\n")
        };
        let display = format!(
            "Read resource {label} \u{2014} {}",
            resource::summary(&formatted)
        );
        Ok(ToolResult::new(llm, Display::Text(display)))
    }
}

/// Eight hex digits that differ from read to read (Qwen's
/// `randomUUID().slice(0, 8)`): a resource cannot forge the end of its own
/// frame without knowing them.
fn nonce() -> String {
    use std::hash::{BuildHasher as _, Hasher as _};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(u64::from(std::process::id()));
    format!("{:08x}", hasher.finish() as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::Declared;

    #[test]
    fn declaration_parses() {
        let tool = Declared::new(ReadMcpResourceTool::new(Weak::new()));
        assert_eq!(tool.declaration().name, NAME);
        assert!(tool.declaration().should_defer);
        assert_ne!(nonce(), nonce(), "each read draws its own nonce");
        assert_eq!(nonce().len(), 8);
    }
}
