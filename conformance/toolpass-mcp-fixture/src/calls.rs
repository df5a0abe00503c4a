//! What each tool of [`crate::catalog`] does: its arguments read as its
//! type, then its work, answered as text or as a tool error.

use std::io::Write as _;

use rmcp::model::{PingRequest, ProgressNotificationParam, ProtocolVersion, ServerRequest};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServiceError};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::catalog::tool;
use crate::large::large_output;
use crate::notes::Notes;

/// The exit status of a `crash_server` call, distinct from a clean exit (0)
/// and from a refused command line (clap's 2).
pub(crate) const CRASH_STATUS: i32 = 3;

/// Steps `report_progress` takes when not told.
const DEFAULT_STEPS: u32 = 3;

/// Carries out one tool call; `Err` is a call that could not run (bad
/// arguments, a note that cannot be read), told to the model as a tool
/// error.
pub(crate) async fn run(
    notes: &Notes,
    name: &str,
    arguments: Map<String, Value>,
    context: &RequestContext<RoleServer>,
) -> Result<String, String> {
    match name {
        tool::READ_NOTE => {
            let NameArgs { name } = parse(tool::READ_NOTE, arguments)?;
            notes.read(&name)
        }
        tool::WRITE_NOTE => {
            let WriteArgs { name, content } = parse(tool::WRITE_NOTE, arguments)?;
            notes.write(&name, &content)
        }
        tool::LIST_NOTES => {
            let NoArgs {} = parse(tool::LIST_NOTES, arguments)?;
            Ok(notes.names()?.iter().map(|n| format!("{n}\n")).collect())
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
            let tally = notes.tally()?;
            Ok(format!("{} notes, {} bytes", tally.notes, tally.bytes))
        }
        // `call_tool` answers an unknown name before it gets here.
        other => Err(format!("unknown tool {other:?}")),
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
/// written before the next, then a `ping` to the client, answered before
/// the call is: every step reaches the client's progress handler before
/// the result does, with no timing involved.
///
/// Why the ping: the TypeScript SDK (Qwen Code's and Gemini CLI's MCP
/// client) hands a notification to its handler a microtask after reading
/// it but settles a response at once, dropping the call's progress handler
/// then; progress read in the same chunk as the answer is lost. The pong
/// comes only after the client has dispatched what it read before the ping.
/// Protocol 2026-07-28 forbids server-to-client requests, so there the
/// answer follows the last step directly.
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
    let failed = |what: &str, e: ServiceError| format!("{}: {what}: {e}", tool::REPORT_PROGRESS);
    for step in 1..=steps {
        let update = ProgressNotificationParam::new(token.clone(), f64::from(step))
            .with_total(f64::from(steps))
            .with_message(format!("step {step} of {steps}"));
        context
            .peer
            .notify_progress(update)
            .await
            .map_err(|e| failed("send progress", e))?;
    }
    let may_ask = context
        .peer
        .peer_info()
        .is_some_and(|client| client.protocol_version < ProtocolVersion::V_2026_07_28);
    if may_ask {
        context
            .peer
            .send_request(ServerRequest::PingRequest(PingRequest::default()))
            .await
            .map_err(|e| failed("ping the client after the last step", e))?;
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
