//! The fixture as an `rmcp` server handler: what each tool, resource and
//! prompt of [`crate::catalog`] does when a client asks for it.

use std::io::Write as _;

use base64::Engine as _;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, Implementation, ListPromptsResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, PromptMessage,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ResourceContents, Role,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::catalog::{self, prompt, tool, uri};
use crate::large::large_output;
use crate::notes::Notes;

/// The exit status of a `crash_server` call, distinct from a clean exit (0)
/// and from a refused command line (clap's 2).
pub(crate) const CRASH_STATUS: i32 = 3;

/// Steps `report_progress` takes when not told.
const DEFAULT_STEPS: u32 = 3;

/// The server: the notes directory it was given, nothing else. Every answer
/// is a function of the request and that directory.
#[derive(Debug)]
pub(crate) struct Fixture {
    notes: Notes,
}

impl Fixture {
    pub(crate) fn new(notes: Notes) -> Self {
        Self { notes }
    }

    /// Carries out one tool call; `Err` is a call that could not run (bad
    /// arguments, a note that cannot be read), told to the model as a tool
    /// error.
    async fn run(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        context: &RequestContext<RoleServer>,
    ) -> Result<String, String> {
        match name {
            tool::READ_NOTE => {
                let NameArgs { name } = parse(tool::READ_NOTE, arguments)?;
                self.notes.read(&name)
            }
            tool::WRITE_NOTE => {
                let WriteArgs { name, content } = parse(tool::WRITE_NOTE, arguments)?;
                self.notes.write(&name, &content)
            }
            tool::LIST_NOTES => {
                let NoArgs {} = parse(tool::LIST_NOTES, arguments)?;
                Ok(self
                    .notes
                    .names()?
                    .iter()
                    .map(|n| format!("{n}\n"))
                    .collect())
            }
            tool::LARGE_OUTPUT => {
                let NoArgs {} = parse(tool::LARGE_OUTPUT, arguments)?;
                Ok(large_output())
            }
            tool::REPORT_PROGRESS => {
                let ProgressArgs { steps } = parse(tool::REPORT_PROGRESS, arguments)?;
                report_progress(steps.unwrap_or(DEFAULT_STEPS), context).await
            }
            tool::CRASH_SERVER => crash(),
            tool::NEVER_ANSWER => {
                // Only the client's `notifications/cancelled` (or the end of
                // the connection) ends this wait: no timer, so a client's
                // timeout is the only thing a test of it measures.
                context.ct.cancelled().await;
                Err(format!("{}: cancelled by the client", tool::NEVER_ANSWER))
            }
            tool::BROKEN_SCHEMA => Ok(Value::Object(arguments).to_string()),
            tool::LONG_NAME => {
                let NoArgs {} = parse(tool::LONG_NAME, arguments)?;
                let tally = self.notes.tally()?;
                Ok(format!("{} notes, {} bytes", tally.notes, tally.bytes))
            }
            // `call_tool` answers an unknown name before it gets here.
            other => Err(format!("unknown tool {other:?}")),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NameArgs {
    name: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WriteArgs {
    name: String,
    content: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoArgs {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProgressArgs {
    steps: Option<u32>,
}

/// A tool's arguments as its type, or an error naming the tool and what is
/// wrong (serde names the field).
fn parse<T: DeserializeOwned>(tool: &str, arguments: Map<String, Value>) -> Result<T, String> {
    serde_json::from_value(Value::Object(arguments))
        .map_err(|e| format!("{tool}: invalid arguments: {e}"))
}

/// One `notifications/progress` per step under the request's token, each
/// sent (written to the transport) before the next, then the answer: the
/// client sees every step before the result, with no timing involved.
async fn report_progress(
    steps: u32,
    context: &RequestContext<RoleServer>,
) -> Result<String, String> {
    if !(1..=100).contains(&steps) {
        return Err(format!(
            "{}: steps must be between 1 and 100, got {steps}",
            tool::REPORT_PROGRESS
        ));
    }
    let Some(token) = context.meta.get_progress_token() else {
        return Ok(format!(
            "completed {steps} steps; the request had no progressToken, so no progress was sent"
        ));
    };
    for step in 1..=steps {
        let update = ProgressNotificationParam::new(token.clone(), f64::from(step))
            .with_total(f64::from(steps))
            .with_message(format!("step {step} of {steps}"));
        context
            .peer
            .notify_progress(update)
            .await
            .map_err(|e| format!("{}: send progress: {e}", tool::REPORT_PROGRESS))?;
    }
    Ok(format!("completed {steps} steps"))
}

/// Ends the process in the middle of the call: the client's request stays
/// unanswered and its transport closes, as when a real server dies.
fn crash() -> ! {
    // Nothing useful can be done if stderr is gone; the exit is the point.
    let _ = writeln!(
        std::io::stderr(),
        "toolpass-mcp-fixture: {} called: exiting with status {CRASH_STATUS} without answering",
        tool::CRASH_SERVER
    );
    std::process::exit(CRASH_STATUS)
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
        Ok(ListToolsResult::with_all_items(catalog::tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if !catalog::tools().iter().any(|t| t.name == request.name) {
            return Err(McpError::invalid_params(
                format!("unknown tool {:?}", request.name),
                None,
            ));
        }
        let arguments = request.arguments.unwrap_or_default();
        let result = match self.run(&request.name, arguments, &context).await {
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
