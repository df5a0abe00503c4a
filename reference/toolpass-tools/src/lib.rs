//! The reference tool layer: Qwen Code's tools, done right, over the pure
//! decisions of `toolpass-core`.
//!
//! - [`tool`]: the Tool / Invocation split; [`registry`]: what the model sees.
//! - [`result`]: a call's result and [`result::Failure`], the one way to
//!   build a failure; [`error_code`]: the codes a failure carries.
//! - [`workspace`]: what the tools act on (sandbox root, read cache,
//!   faults, spill directory); [`session`]: a workspace and its tools;
//!   [`config`]: the session's settings.
//! - [`sandbox`]: path resolution that refuses escapes (beyond Qwen).
//! - [`located`]: a checked path and the IO beneath its handle.
//! - [`read_cache`] and [`prior_read`]: read-before-write.
//! - [`errno`]: Node's names for OS errors, from one table.
//! - [`fileio`] and [`faults`]: stat and atomic writes with fault points.
//! - [`spill`]: the session's spill directory, made lazily, stale ones removed;
//!   [`output_budget`]: results over budget cut and spilled there.
//! - [`scheduler`]: one call as Qwen's scheduler runs it (lookup, build,
//!   the approval decision, execute, cancellation, the empty-output marker
//!   and the output budget); [`confirmation`]: what the user is asked and
//!   can answer; [`context`]: what a running invocation reaches besides its
//!   workspace (cancellation, live output, notices).
//! - [`mcp`]: a session's MCP servers and their tools (Qwen's MCP client).
//! - [`tools`]: `read_file`, `write_file`, `edit`, `notebook_edit`, `list_directory`, `glob`,
//!   `grep_search`, `run_shell_command`, `task_stop`; [`shells`]: a
//!   session's background shells and the programs it allowed.
//!
//! Nothing here derives `Serialize`: the server converts at its edge into the
//! wire types of `toolpass-protocol`.

pub mod classifier;
pub mod config;
pub mod confirmation;
pub mod context;
pub mod errno;
pub mod error_code;
#[cfg(test)]
mod fake_tool;
pub mod faults;
pub mod fileio;
pub mod kind;
pub mod located;
pub mod mcp;
pub mod output_budget;
pub mod prior_read;
pub mod read_cache;
pub mod registry;
pub mod result;
pub mod sandbox;
pub mod scheduler;
pub mod session;
pub mod shells;
pub mod spill;
pub mod spill_budget;
pub mod tool;
pub mod tools;
pub mod workspace;
