//! Output budgets: the arithmetic of the three gates Qwen Code 0.24.4's
//! `CoreToolScheduler` puts between a tool's output and the model, in its
//! order, without the file writes.
//!
//! 1. [`persist`]: the persist gate (`maybePersistLargeToolResult`). A
//!    result longer than the session's threshold plus [`GATE_HEADROOM`] is
//!    saved whole and replaced by a `<persisted-output>` stub with a
//!    2 000-character preview (`persistAndTruncateToolResult`, `buildStub`).
//! 2. [`per_tool`]: the per-tool cut (`truncateLlmContent`): the tool's
//!    `maxOutputChars` and `truncateKeep`, or the session's characters and
//!    lines; the cut itself is [`crate::truncate`].
//! 3. [`batch`]: the batch budget (`finalizeToolResponses` in
//!    `tool-response-finalizer.ts`): when a batch's text is over
//!    `toolOutputBatchBudget`, the budget is shared out (`allocateTextBudget`:
//!    the short results whole, the long ones an equal share), the results
//!    cut are saved whole, and each cut text becomes a header naming the
//!    saved file and a head/tail preview (`fitText`).
//!
//! The caller owns every write: each gate returns what must be spilled (the
//! text, the file name Qwen derives) and takes back what the write gave
//! (the path, or nothing), then words the result.
//!
//! # Units
//!
//! Every length is JavaScript's `.length`: UTF-16 code units, counted over
//! UTF-8 without decoding ([`crate::truncate`]'s counter). Every cut falls on
//! a char boundary: where JavaScript's `slice` would keep half of a
//! surrogate pair, the cut keeps the shorter side, which is what Qwen's own
//! `sliceStartWithoutBrokenSurrogate` / `sliceEndWithoutBrokenSurrogate` do
//! in the batch gate. A lone surrogate cannot reach these functions: a
//! `&str` cannot hold one, `serde_json` refuses JSON text carrying one
//! (`"\ud800"`), and a lenient decoder gives U+FFFD, one unit and three
//! bytes, as JavaScript counts the lone surrogate (one unit) and as Node
//! writes it to a file (the same three bytes).

pub mod batch;
pub mod per_tool;
pub mod persist;

#[cfg(test)]
mod tests;

pub use batch::{
    BatchPlan, BatchReport, Entry, Field, Finalized, Part, Planned, Replacement, plan_batch,
};
pub use per_tool::{Content, ContentPart, LlmText, SessionLimits, llm_text, tool_limits};
pub use persist::{
    Gate, GateSkip, PersistTarget, StubNote, error_gate, gate_text, is_already_truncated,
    persist_gate, persist_target, persisted_stub,
};

/// What Qwen adds to the session's threshold before a single result is
/// persisted (`GATE_HEADROOM`): the per-tool cut handles the results just
/// over the threshold, the gate only the far larger ones.
pub const GATE_HEADROOM: usize = 3_000;

/// Qwen's `DEFAULT_TOOL_OUTPUT_BATCH_BUDGET`, in UTF-16 units.
pub const DEFAULT_BATCH_BUDGET: usize = 200_000;

/// Qwen's `PREVIEW_SIZE_CHARS`: the persisted stub's preview.
pub const PREVIEW_SIZE_CHARS: usize = 2_000;

/// Qwen's `MAX_FILE_SIZE_BYTES`: a larger result is not written; its stub
/// says so.
pub const MAX_FILE_SIZE_BYTES: u64 = 50 * 1024 * 1024;

/// Qwen's `MAX_SESSION_BYTES`: what one session may persist in all.
pub const MAX_SESSION_BYTES: u64 = 500 * 1024 * 1024;

/// Qwen's `GATE_EXEMPT_TOOLS` (canonical names): tools that bound their own
/// output (`read_file` pages, `read_mcp_resource` caps) or whose output is
/// the session's control flow (`exec`, `enter_plan_mode`).
pub const GATE_EXEMPT_TOOLS: [&str; 4] =
    ["exec", "read_file", "read_mcp_resource", "enter_plan_mode"];

/// UTF-16 length of `text`.
pub fn units(text: &str) -> usize {
    crate::truncate::measure::units(text.as_bytes())
}

/// JavaScript's `text.slice(0, max)` that never keeps half a surrogate pair.
pub(crate) fn slice_start(text: &str, max_units: usize) -> &str {
    let (end, _) = crate::truncate::measure::prefix_within(text.as_bytes(), max_units);
    text.get(..end).unwrap_or(text)
}

/// JavaScript's `text.slice(-max)` (`slice(len - max)`) that never keeps
/// half a surrogate pair.
pub(crate) fn slice_end(text: &str, max_units: usize) -> &str {
    let (start, _) = crate::truncate::measure::suffix_within(text.as_bytes(), max_units);
    text.get(start..).unwrap_or_default()
}
