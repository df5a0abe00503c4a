//! The pure core of the toolpass reference tool layer.
//!
//! This crate decides *where* an edit lands and *what* a file becomes, and
//! does the arithmetic of output budgets, with no IO at all: no file system,
//! no processes, no network, no environment, no clock, no async and no serde.
//! Inputs are `&str`, `&[u8]` and plain structs; broken input is data (an
//! error value), never a panic. The behaviour is Qwen Code's tool layer
//! (matching, edits, text round trips, truncation), with the differences
//! named in ARCHITECTURE.md.
//!
//! - [`matching`]: find the real on-disk slice an `old_string` refers to
//!   (`findMatchedSlice` / `normalizeEditStrings`).
//! - [`edit`]: turn a request into the new file content or one of the five
//!   edit errors (`calculateEdit`, `applyReplacement`).
//! - [`snippet`]: the "Showing lines a-b of N" excerpt after an edit.
//! - [`text`]: byte-level fidelity: BOM, line endings, legacy encodings.
//! - [`truncate`]: head/tail truncation by characters and lines.
//! - [`budget`]: the three output gates in Qwen's order: a huge result
//!   persisted, the per-tool cut, the batch budget shared out.
//! - [`approval`]: whether a call runs, asks the user or is refused, by
//!   approval mode and tool.
//! - [`sed`]: which `sed -i` commands to run as an edit, and what the file
//!   becomes (GNU sed's semantics, in memory).
//! - [`shell_read_only`]: which shell commands only read, so they may run
//!   without asking.
//! - [`tool_name`]: the name a tool (an MCP server's above all) is declared
//!   under: Qwen's two rules for `[A-Za-z0-9_.-]` and 63 characters.
//! - [`mcp`]: Qwen's MCP client without the connection: tool names and
//!   filters, when a call is replayed, the client budget, resource framing.
//! - [`tool_search`]: deferred tools found by name or keywords: the query,
//!   the scoring and ranking, the `<functions>` answer and the reminder that
//!   lists them.

// Library code must not panic on any input; tests may.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::unreachable,
        clippy::indexing_slicing,
        clippy::string_slice
    )
)]

pub mod approval;
pub mod budget;
pub mod edit;
pub mod fold;
pub mod js_string;
pub mod matching;
pub mod mcp;
pub mod sed;
pub mod shell_read_only;
pub mod snippet;
pub mod text;
pub mod tool_name;
pub mod tool_search;
pub mod truncate;

#[cfg(any(test, feature = "testkit"))]
pub mod testkit;
