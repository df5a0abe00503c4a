//! Gate 1, the persist gate: Qwen's `maybePersistLargeToolResult`
//! (`coreToolScheduler.ts`) and the pure half of
//! `persistAndTruncateToolResult` / `buildStub` / `generatePreview`
//! (`utils/truncation.ts`).
//!
//! The caller's order, as Qwen's:
//!
//! 1. [`persist_gate`] on the result's [`gate_text`]; [`Gate::Pass`] leaves
//!    the result as it is.
//! 2. [`persist_target`]: the file name to write (`<call id>.txt` in the
//!    tool-results directory), or the note a stub carries instead. Count the
//!    bytes against the session only when a write is planned.
//! 3. Write the text (mode 0600). On success, [`persisted_stub`] with
//!    [`PersistTarget::File`]; on failure, Qwen falls back to the per-tool
//!    cut with the session's limits and `keep: both` ([`crate::truncate`]),
//!    and when that writes nothing either, the stub with
//!    [`StubNote::Unavailable`].
//! 4. A result with media parts keeps them after the stub.
//!
//! Qwen does not compare the stub's length with the original's here (that
//! rule is the per-tool cut's): past the gate's threshold the original is
//! always at least 28 001 units at the defaults, the stub about 2 400.

use std::borrow::Cow;

use memchr::memchr;
use memchr::memmem;

use super::{
    GATE_EXEMPT_TOOLS, GATE_HEADROOM, MAX_FILE_SIZE_BYTES, MAX_SESSION_BYTES, PREVIEW_SIZE_CHARS,
};
use super::{per_tool::ContentPart, slice_start, units};

/// What `isAlreadyTruncated` looks for anywhere in a text: the per-tool
/// cut's marker.
pub(super) const TRUNCATED_MARKER: &str = "... [CONTENT TRUNCATED] ...";

/// What `isAlreadyTruncated` looks for at the start: this gate's stub.
pub const PERSISTED_OUTPUT_OPEN: &str = "<persisted-output>";

/// The stub's digest line (`FULL_OUTPUT_DIGEST_LABEL`).
const DIGEST_LABEL: &str = "Full output sha256: ";

/// Why the gate left a result alone, in the order Qwen checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GateSkip {
    /// The tool held its result to budget itself (`outputBudgetApplied`).
    OutputBudgetApplied,
    /// The tool is one of [`GATE_EXEMPT_TOOLS`].
    Exempt,
    /// No text at all (`!text`).
    Empty,
    /// A truncation marker or a persisted stub is already there.
    AlreadyTruncated,
    /// Not longer than the threshold plus [`GATE_HEADROOM`].
    WithinThreshold,
}

/// The gate's decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Gate {
    /// The result goes on as it is.
    Pass(GateSkip),
    /// The text is persisted and replaced by a stub.
    Persist,
}

/// The text the gate measures: Qwen's `extractTextFromPartListUnion`, the
/// result's text, or its parts' texts joined with `\n` (a media part
/// joining as an empty text, so `[text, image]` measures `text` and `\n`).
#[must_use]
pub fn gate_text<'a>(content: &super::Content<'a>) -> Cow<'a, str> {
    match content {
        super::Content::Text(text) => Cow::Borrowed(text),
        super::Content::Parts([ContentPart::Text(text)]) => Cow::Borrowed(text),
        super::Content::Parts(parts) => {
            let mut out = String::new();
            for (i, part) in parts.iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                if let ContentPart::Text(text) = part {
                    out.push_str(text);
                }
            }
            Cow::Owned(out)
        }
    }
}

/// Qwen's `isAlreadyTruncated`: the per-tool cut's marker anywhere, or this
/// gate's stub at the start.
#[must_use]
pub fn is_already_truncated(text: &str) -> bool {
    text.starts_with(PERSISTED_OUTPUT_OPEN)
        || memmem::find(text.as_bytes(), TRUNCATED_MARKER.as_bytes()).is_some()
}

/// Whether the result of `tool` (its canonical name) with gate text `text`
/// is persisted. `threshold` is the session's
/// `truncateToolOutputThreshold`; 0 is Qwen's "not positive", an infinite
/// threshold, so nothing is persisted.
#[must_use]
pub fn persist_gate(tool: &str, text: &str, output_budget_applied: bool, threshold: usize) -> Gate {
    if output_budget_applied {
        return Gate::Pass(GateSkip::OutputBudgetApplied);
    }
    if GATE_EXEMPT_TOOLS.contains(&tool) {
        return Gate::Pass(GateSkip::Exempt);
    }
    if text.is_empty() {
        return Gate::Pass(GateSkip::Empty);
    }
    if is_already_truncated(text) {
        return Gate::Pass(GateSkip::AlreadyTruncated);
    }
    if within_gate(text, threshold) {
        return Gate::Pass(GateSkip::WithinThreshold);
    }
    Gate::Persist
}

/// Whether a failure's message is persisted: Qwen's error gate
/// (`coreToolScheduler.ts`, after a failed call). Only `exec` is exempt
/// there, and a message the tool already bounded (`bounded`: it held its
/// output to budget and the message is that output) passes.
#[must_use]
pub fn error_gate(tool: &str, message: &str, bounded: bool, threshold: usize) -> Gate {
    if tool == "exec" {
        return Gate::Pass(GateSkip::Exempt);
    }
    if bounded {
        return Gate::Pass(GateSkip::OutputBudgetApplied);
    }
    if is_already_truncated(message) {
        return Gate::Pass(GateSkip::AlreadyTruncated);
    }
    if within_gate(message, threshold) {
        return Gate::Pass(GateSkip::WithinThreshold);
    }
    Gate::Persist
}

/// Not longer than `threshold` plus [`GATE_HEADROOM`]; a threshold of 0
/// (Qwen's "not positive") is infinite.
fn within_gate(text: &str, threshold: usize) -> bool {
    let gate = if threshold == 0 {
        usize::MAX
    } else {
        threshold.saturating_add(GATE_HEADROOM)
    };
    // A UTF-16 length never exceeds the UTF-8 length, so a short text is not
    // counted.
    text.len() <= gate || units(text) <= gate
}

/// Why a stub names no file: the note Qwen puts where the path would be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StubNote {
    /// Over [`MAX_FILE_SIZE_BYTES`].
    FileTooLarge,
    /// The session's [`MAX_SESSION_BYTES`] would be passed.
    SessionBudgetExhausted,
    /// The call id gives no file name ([`normalize_call_id`]).
    InvalidCallId,
    /// The write and the fallback cut both failed.
    Unavailable,
}

impl StubNote {
    /// Qwen's wording.
    #[must_use]
    pub const fn text(self) -> &'static str {
        match self {
            Self::FileTooLarge => "(file too large to persist)",
            Self::SessionBudgetExhausted => "(session disk budget exhausted)",
            Self::InvalidCallId => "(invalid callId)",
            Self::Unavailable => "(disk persistence unavailable)",
        }
    }
}

/// Where a persisted result goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PersistTarget<'a> {
    /// Written to this absolute path.
    File(&'a str),
    /// Not written, for this reason.
    Note(StubNote),
}

/// The checks `persistAndTruncateToolResult` makes before writing, in its
/// order: the file's size, the session's budget (`session_bytes` already
/// persisted), the call id. `Ok` is the file name (`<safe call id>.txt`);
/// the caller then adds `byte_size` to the session's count.
pub fn persist_target(
    call_id: &str,
    byte_size: u64,
    session_bytes: u64,
) -> Result<String, StubNote> {
    if byte_size > MAX_FILE_SIZE_BYTES {
        return Err(StubNote::FileTooLarge);
    }
    if session_bytes.saturating_add(byte_size) > MAX_SESSION_BYTES {
        return Err(StubNote::SessionBudgetExhausted);
    }
    let id = normalize_call_id(call_id).ok_or(StubNote::InvalidCallId)?;
    Ok(format!("{id}.txt"))
}

/// Qwen's `normalizeToolResultCallId`: Node's POSIX `path.basename` (the
/// last segment, trailing slashes ignored) with NUL bytes made `_`; `None`
/// for an empty name, `.` or `..`.
#[must_use]
pub fn normalize_call_id(call_id: &str) -> Option<String> {
    let trimmed = call_id.trim_end_matches('/');
    let base = trimmed.rsplit('/').next().unwrap_or_default();
    let safe = base.replace('\0', "_");
    (!safe.is_empty() && safe != "." && safe != "..").then_some(safe)
}

/// Qwen's `buildStub`. `head` is the result's text, or a prefix of it
/// longer than [`PREVIEW_SIZE_CHARS`] units (a caller streaming a huge
/// result keeps only that much, 6 001 bytes suffice); `byte_size` is the
/// whole text's UTF-8 length and `sha256_hex` its digest, both the caller's
/// (computed as it writes).
#[must_use]
pub fn persisted_stub(
    head: &str,
    byte_size: u64,
    sha256_hex: &str,
    target: PersistTarget<'_>,
) -> String {
    let preview = preview(head);
    // `Math.round(byteSize / 1024)`: halves round up.
    let size_kb = byte_size.saturating_add(512) / 1024;
    match target {
        PersistTarget::File(path) => format!(
            "{PERSISTED_OUTPUT_OPEN}\nOutput too large ({size_kb} KB). Full output saved to: {path}\n\
             {DIGEST_LABEL}{sha256_hex}\nNote: this file may be cleaned up after 24 hours.\n\
             To read the complete output, use the read_file tool with the absolute file path \
             above.\n\nPreview (up to {PREVIEW_SIZE_CHARS} chars):\n{preview}\n</persisted-output>"
        ),
        PersistTarget::Note(note) => format!(
            "Output too large ({size_kb} KB). {}\n{DIGEST_LABEL}{sha256_hex}\n\n\
             Preview (up to {PREVIEW_SIZE_CHARS} chars):\n{preview}",
            note.text()
        ),
    }
}

/// Qwen's `generatePreview`: the first 2 000 units cut back to the last
/// newline (when one is past the first unit) and followed by `\n...`, with
/// the stub's own tags and `<system-reminder>` escaped so a preview can
/// neither close the stub nor open a reminder.
#[must_use]
pub fn preview(content: &str) -> String {
    let slice = slice_start(content, PREVIEW_SIZE_CHARS);
    let text: Cow<'_, str> = if slice.len() == content.len() {
        Cow::Borrowed(content)
    } else {
        let kept = match memchr::memrchr(b'\n', slice.as_bytes()) {
            Some(newline) if newline > 0 => slice.get(..newline).unwrap_or(slice),
            _ => slice,
        };
        Cow::Owned(format!("{kept}\n..."))
    };
    escape_tags(&text)
}

/// The tags `generatePreview` escapes: `<\/?persisted-output>` and
/// `<\/?system-reminder>` become `&lt;…&gt;`.
fn escape_tags(text: &str) -> String {
    const NAMES: [&str; 2] = ["persisted-output>", "system-reminder>"];
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(lt) = memchr(b'<', rest.as_bytes()) {
        let (before, at) = rest.split_at(lt);
        out.push_str(before);
        let after = at.get(1..).unwrap_or_default();
        let (slash, name_at) = match after.strip_prefix('/') {
            Some(tail) => ("/", tail),
            None => ("", after),
        };
        match NAMES.iter().find(|name| name_at.starts_with(*name)) {
            Some(name) => {
                let bare = name.strip_suffix('>').unwrap_or(name);
                out.push_str("&lt;");
                out.push_str(slash);
                out.push_str(bare);
                out.push_str("&gt;");
                rest = name_at.get(name.len()..).unwrap_or_default();
            }
            None => {
                out.push('<');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}
