//! The reference's MCP client (Qwen Code's `McpClient`,
//! `packages/core/src/tools/mcp-client.ts`): one stdio MCP server per
//! [`Connection`], started with its command, arguments, environment and
//! working directory, initialized within a timeout, then listed
//! ([`Connection::list`]), called ([`Connection::call_tool`], with progress
//! and cancellation) and read ([`Connection::read_resource`]).
//!
//! IO only. Every decision about what the connection's answers mean (names,
//! filters, replays, wording) is `toolpass_core::mcp`'s; the tool layer
//! puts the two together. Each connection runs on its own current-thread
//! tokio runtime on its own thread, so the API is synchronous, a slow
//! server holds up only its own calls, and dropping a connection never
//! blocks: its thread closes the server's stdin, waits for it to exit
//! (SIGTERM, then SIGKILL, as the SDK's graceful shutdown does) and ends.

mod connection;
mod handler;
mod schema;
#[cfg(any(test, feature = "testkit"))]
pub mod testkit;
mod transport;

pub use connection::{
    Abort, CallError, CallOutcome, ConnectError, Connection, ListedPrompt, ListedTool, Listing,
    ServerSpec,
};
pub use handler::Progress;
