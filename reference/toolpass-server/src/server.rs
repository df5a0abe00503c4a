//! The request handler: one `Server` holds every session of the process and
//! answers one message at a time.
//!
//! Protocol faults (unknown method, bad params, unknown session) are JSON-RPC
//! errors; a tool that fails is a successful reply whose Outcome says so.

use std::collections::HashMap;
use std::io::{self, Write};
use std::path::Path;

use serde_json::Value;
use toolpass_protocol::method::{self, Method};
use toolpass_protocol::{
    EmptyResult, Feature, Implementation, InitializeResult, Message, Outcome, Request, RequestId,
    Response, ResponseError, ServerCapabilities, SessionId, SessionOpenResult, ToolpassCapability,
    ToolsCapability, ToolsListResult, write_message, write_result,
};
use toolpass_tools::faults::FaultPoint;
use toolpass_tools::session::{Session, SessionConfig};

use crate::convert;

/// The name the server gives itself in `initialize`.
const SERVER_NAME: &str = "toolpass-reference";

/// What the reference is, for `serverInfo.description`: where Qwen Code has
/// two behaviours (SPEC.md `grep.backend`), which one it follows.
const DESCRIPTION: &str = "Qwen Code's tool layer in Rust; grep_search follows Qwen's GrepTool \
                           (git grep in a repository, grep -r outside)";

/// Whether to speak toolpass or to pose as a plain MCP server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// toolpass/1: sessions, features, fault points.
    Toolpass,
    /// A plain MCP stdio server: no toolpass capability, one implicit session.
    Mcp,
}

/// An answer to write: a message, or a call's Outcome written straight to
/// the output ([`write_result`]) so that a result carrying whole files (an
/// edit's diff holds the old and the new text) is never copied into a
/// `Value` first.
pub(crate) enum Reply {
    /// Any other answer.
    Message(Message),
    /// The success response to `tools/call` request `id`.
    Call(RequestId, Box<Outcome>),
}

impl Reply {
    /// Writes the reply as one line.
    pub(crate) fn write(&self, output: &mut dyn Write) -> io::Result<()> {
        match self {
            Reply::Message(message) => write_message(output, message),
            Reply::Call(id, outcome) => write_result::<method::ToolsCall>(output, id, outcome),
        }
    }
}

/// Every session of this process.
pub(crate) struct Server {
    mode: Mode,
    sessions: HashMap<String, Session>,
    /// The session calls without `_meta.toolpass.sessionId` run in (the
    /// `--root` of a plain MCP launch).
    implicit: Option<String>,
    opened: u64,
}

impl Server {
    /// A server with no sessions.
    #[must_use]
    pub(crate) fn new(mode: Mode) -> Self {
        Server {
            mode,
            sessions: HashMap::new(),
            implicit: None,
            opened: 0,
        }
    }

    /// Opens the implicit session at `root`, for clients that never send
    /// `toolpass/session.open`.
    ///
    /// # Errors
    /// When `root` is not a directory that can be resolved.
    pub(crate) fn open_implicit(&mut self, root: &Path) -> std::io::Result<()> {
        let id = self.open(root, SessionConfig::default())?;
        self.implicit = Some(id);
        Ok(())
    }

    fn open(&mut self, root: &Path, config: SessionConfig) -> std::io::Result<String> {
        // The server chooses a session's tools: every file tool of the
        // tool layer (the session drops the ones its config disables).
        let session = Session::new(root, config, toolpass_tools::tools::all())?;
        self.opened += 1;
        let id = format!("s{}", self.opened);
        self.sessions.insert(id.clone(), session);
        Ok(id)
    }

    /// Answers one message; notifications and stray responses get no answer.
    pub(crate) fn handle(&mut self, message: Message) -> Option<Reply> {
        match message {
            Message::Request(mut request) if request.method == method::TOOLS_CALL => {
                Some(match self.tools_call(&mut request) {
                    Ok(outcome) => Reply::Call(request.id, Box::new(outcome)),
                    Err(error) => Reply::Message(Message::Response(Response {
                        id: Some(request.id),
                        result: Err(error),
                    })),
                })
            }
            Message::Request(request) => {
                Some(Reply::Message(Message::Response(self.respond(&request))))
            }
            Message::Notification(_) | Message::Response(_) => None,
        }
    }

    fn respond(&mut self, request: &Request) -> Response {
        let id = request.id.clone();
        let answer = match request.method.as_str() {
            method::INITIALIZE => self.initialize(request),
            method::SESSION_OPEN => self.session_open(request),
            method::SESSION_CLOSE => self.session_close(request),
            method::TOOLS_LIST => self.tools_list(request),
            method::FAULT => self.fault(request),
            other => Err(ResponseError::method_not_found(other)),
        };
        Response {
            id: Some(id),
            result: answer,
        }
    }

    fn initialize(&self, request: &Request) -> Result<Value, ResponseError> {
        let params = request.params::<method::Initialize>()?;
        // An MCP client gets the MCP version it asked for (or the newest
        // this server supports); another toolpass major is refused.
        let negotiated =
            toolpass_protocol::negotiate(&params.protocol_version, self.mode == Mode::Toolpass)?;
        let toolpass = (self.mode == Mode::Toolpass).then(|| {
            // The scheduler spills large outputs to files (persistedOutputPath).
            let mut features = vec![Feature::Sessions, Feature::PriorRead, Feature::SpillFiles];
            features.extend(
                FaultPoint::ALL
                    .iter()
                    .map(|p| Feature::parse(&format!("fault:{}", p.as_str()))),
            );
            ToolpassCapability::new(features)
        });
        encode::<method::Initialize>(&InitializeResult {
            protocol_version: negotiated.protocol_version().to_owned(),
            server_info: Implementation {
                name: SERVER_NAME.to_owned(),
                version: env!("CARGO_PKG_VERSION").to_owned(),
                website_url: None,
                // The run's header prints it: the configuration results
                // depend on, as an adapter states its peer's.
                description: Some(DESCRIPTION.to_owned()),
            },
            capabilities: ServerCapabilities {
                tools: Some(ToolsCapability::default()),
                logging: None,
                toolpass,
            },
            instructions: None,
        })
    }

    fn session_open(&mut self, request: &Request) -> Result<Value, ResponseError> {
        let params = request.params::<method::SessionOpen>()?;
        let root = Path::new(&params.root);
        if !root.is_absolute() || !root.is_dir() {
            return Err(ResponseError::invalid_params(
                method::SESSION_OPEN,
                format!(
                    "root {} is not an absolute path to a directory",
                    params.root
                ),
            ));
        }
        let id = self
            .open(root, convert::session_config(&params.config))
            .map_err(|e| {
                ResponseError::invalid_params(
                    method::SESSION_OPEN,
                    format!("root {}: {e}", params.root),
                )
            })?;
        encode::<method::SessionOpen>(&SessionOpenResult {
            session_id: SessionId(id),
        })
    }

    fn session_close(&mut self, request: &Request) -> Result<Value, ResponseError> {
        let params = request.params::<method::SessionClose>()?;
        self.sessions
            .remove(params.session_id.as_str())
            .ok_or_else(|| ResponseError::unknown_session(params.session_id.as_str()))?;
        encode::<method::SessionClose>(&EmptyResult {})
    }

    /// The session a request names, or the implicit one when it names none.
    fn session(&mut self, named: Option<&SessionId>) -> Result<&mut Session, ResponseError> {
        let id = match named {
            Some(id) => id.as_str().to_owned(),
            None => self.implicit.clone().ok_or_else(|| {
                ResponseError::invalid_params(
                    "tools",
                    "no sessionId: open a session with toolpass/session.open, or start the server with --root",
                )
            })?,
        };
        self.sessions
            .get_mut(&id)
            .ok_or_else(|| ResponseError::unknown_session(&id))
    }

    fn tools_list(&mut self, request: &Request) -> Result<Value, ResponseError> {
        let params = request.params::<method::ToolsList>()?;
        let session = self.session(params.session_id.as_ref())?;
        let tools = session
            .registry()
            .declarations()
            .map(|t| convert::descriptor(t.as_ref()))
            .collect();
        encode::<method::ToolsList>(&ToolsListResult {
            tools,
            next_cursor: None,
        })
    }

    fn tools_call(&mut self, request: &mut Request) -> Result<Outcome, ResponseError> {
        let params = request.take_params::<method::ToolsCall>()?;
        let context = params.meta.as_ref().and_then(|m| m.toolpass.as_ref());
        let session = self.session(context.map(|c| &c.session_id))?;
        // Moved, not cloned: the arguments may carry a whole file.
        let arguments = Value::Object(params.arguments);
        Ok(call(session, &params.name, &arguments))
    }

    fn fault(&mut self, request: &Request) -> Result<Value, ResponseError> {
        let params = request.params::<method::Fault>()?;
        let point = FaultPoint::parse(params.point.as_str())
            .ok_or_else(|| ResponseError::unsupported_fault_point(params.point.as_str()))?;
        let session = self.session(Some(&params.session_id))?;
        session.faults().arm_after(point, params.skip, params.times);
        encode::<method::Fault>(&EmptyResult {})
    }
}

/// Runs one tool call in `session` and converts the result for the wire.
fn call(session: &Session, name: &str, arguments: &Value) -> Outcome {
    convert::outcome(toolpass_tools::scheduler::execute_call(
        session, name, arguments,
    ))
}

fn encode<M: Method>(result: &M::Result) -> Result<Value, ResponseError> {
    serde_json::to_value(result).map_err(ResponseError::internal)
}

/// The reply to a line that could not be read as a message.
#[must_use]
pub(crate) fn unreadable(error: ResponseError) -> Reply {
    Reply::Message(Message::Response(Response {
        id: None::<RequestId>,
        result: Err(error),
    }))
}
