//! The fixture as an `rmcp` server handler: the listings of
//! [`crate::catalog`], tool calls handed to [`crate::calls`], and what each
//! resource and prompt holds.

use base64::Engine as _;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, Implementation, ListPromptsResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, PromptMessage, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, ResourceContents, Role, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{Map, Value};

use crate::calls;
use crate::catalog::{self, prompt, uri};
use crate::extras;
use crate::notes::Notes;

/// The server: the notes directory it was given, nothing else. Every answer
/// is a function of the request and that directory.
#[derive(Debug)]
pub(crate) struct Fixture {
    notes: Notes,
    mode: Mode,
}

/// What the fixture offers besides its usual catalogue: each a way a
/// server can overwhelm a client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Mode {
    /// The usual catalogue only.
    Plain,
    /// Ten thousand more tools ([`crate::many`]).
    ManyTools,
    /// A tool answering over the MCP message limit ([`crate::extras`]).
    OversizedResult,
    /// A tool answering with terminal escape sequences.
    Escapes,
    /// Tools whose `inputSchema` is missing, not an object or thousands of
    /// levels deep, among good ones; served by hand, as the SDK cannot
    /// send such tools ([`crate::hostile::bad_schemas`]).
    BadSchemas,
}

impl Fixture {
    pub(crate) fn new(notes: Notes, mode: Mode) -> Self {
        Self { notes, mode }
    }

    /// The tools this fixture lists, in order.
    fn tools(&self) -> Vec<rmcp::model::Tool> {
        let mut tools = catalog::tools();
        match self.mode {
            Mode::ManyTools => tools.extend(crate::many::tools()),
            Mode::OversizedResult => tools.push(extras::oversized_tool()),
            Mode::Escapes => tools.push(extras::escapes_tool()),
            Mode::Plain | Mode::BadSchemas => {}
        }
        tools
    }

    /// The answer of a tool of the mode, or `None` when `name` is none.
    fn mode_call(&self, name: &str) -> Option<String> {
        match self.mode {
            Mode::ManyTools => crate::many::call(name),
            Mode::OversizedResult => {
                (name == extras::OVERSIZED_RESULT).then(extras::oversized_text)
            }
            Mode::Escapes => {
                (name == extras::ESCAPE_SEQUENCES).then(|| extras::ESCAPED_TEXT.to_owned())
            }
            Mode::Plain | Mode::BadSchemas => None,
        }
    }
}

impl ServerHandler for Fixture {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_prompts()
                .build(),
        )
        .with_server_info(Implementation::new(
            env!("CARGO_PKG_NAME"),
            env!("CARGO_PKG_VERSION"),
        ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if let Some(text) = self.mode_call(&request.name) {
            return Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into());
        }
        if !catalog::tools().iter().any(|t| t.name == request.name) {
            return Err(McpError::invalid_params(
                format!("unknown tool {:?}", request.name),
                None,
            ));
        }
        let arguments = request.arguments.unwrap_or_default();
        let result = match calls::run(&self.notes, &request.name, arguments, &context).await {
            Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Err(text) => CallToolResult::error(vec![ContentBlock::text(text)]),
        };
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        Ok(ListResourcesResult::with_all_items(catalog::resources()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let contents = match request.uri.as_str() {
            uri::WELCOME => ResourceContents::text(catalog::WELCOME_TEXT, uri::WELCOME),
            uri::ALL_BYTES => ResourceContents::blob(
                base64::engine::general_purpose::STANDARD.encode(catalog::all_bytes()),
                uri::ALL_BYTES,
            )
            .with_mime_type("application/octet-stream"),
            other => {
                return Err(McpError::resource_not_found(
                    format!(
                        "no resource {other:?}: the fixture has {} and {}",
                        uri::WELCOME,
                        uri::ALL_BYTES
                    ),
                    None,
                ));
            }
        };
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        Ok(ListPromptsResult::with_all_items(catalog::prompts()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let arguments = request.arguments.unwrap_or_default();
        let text = match request.name.as_str() {
            prompt::REVIEW_NOTE => {
                let name = prompt_argument(&arguments, "name")?.ok_or_else(|| {
                    McpError::invalid_params(
                        format!(
                            "prompt {}: the argument \"name\" is required",
                            prompt::REVIEW_NOTE
                        ),
                        None,
                    )
                })?;
                match prompt_argument(&arguments, "focus")? {
                    Some(focus) => format!("Review the note {name:?}, looking at {focus}."),
                    None => format!("Review the note {name:?}."),
                }
            }
            prompt::DAILY_SUMMARY => "Summarize today's notes in three lines.".to_owned(),
            other => {
                return Err(McpError::invalid_params(
                    format!(
                        "unknown prompt {other:?}: the fixture has {} and {}",
                        prompt::REVIEW_NOTE,
                        prompt::DAILY_SUMMARY
                    ),
                    None,
                ));
            }
        };
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]).into())
    }
}

/// A prompt argument, which MCP says is a string.
fn prompt_argument<'a>(
    arguments: &'a Map<String, Value>,
    name: &str,
) -> Result<Option<&'a str>, McpError> {
    match arguments.get(name) {
        None => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(other) => Err(McpError::invalid_params(
            format!("prompt argument {name:?} must be a string, got {other}"),
            None,
        )),
    }
}
