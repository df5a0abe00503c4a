//! Gate 2, the per-tool cut: Qwen's `truncateLlmContent` and the limits
//! `CoreToolScheduler` hands it. The cut's arithmetic is
//! [`crate::truncate`]; this module says which limits apply and which text
//! is cut, so a scheduler does:
//!
//! 1. `let limits = tool_limits(session, tool.max_output_chars, tool.truncate_keep)`.
//! 2. [`llm_text`]: the empty-output marker, a result already cut (left as
//!    it is), or the text to cut with the number of media parts to keep.
//! 3. `truncate(&text, &limits)` and its wrapped message, spilling `text`
//!    whole; a result with parts becomes the message followed by its media.
//!
//! Qwen catches a throw here and keeps the result as it was ("TRUNCATION
//! failed"); the pure cut cannot throw, so only the caller's write can fail,
//! and [`crate::truncate::Truncation::unsaved_message`] is Qwen's answer to
//! that.

use std::borrow::Cow;

use crate::fold::is_js_whitespace;
use crate::truncate::{Keep, Limits, TOOL_OUTPUT_TRUNCATED_PREFIX};

/// A tool's result as the scheduler holds it: Qwen's `PartListUnion`, a
/// string or parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Content<'a> {
    /// A plain string.
    Text(&'a str),
    /// Parts: texts and media.
    Parts(&'a [ContentPart<'a>]),
}

/// One part of a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentPart<'a> {
    /// A part with `text`.
    Text(&'a str),
    /// A part without text (inline data, a file reference): never cut,
    /// never measured.
    Media,
}

/// The session's limits (`truncateToolOutputThreshold`,
/// `truncateToolOutputLines`); 0 is Qwen's "not positive", which its config
/// reads as infinite.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SessionLimits {
    /// Characters (UTF-16 units); Qwen's default is 25 000.
    pub threshold: usize,
    /// Lines; Qwen's default is 1 000.
    pub lines: usize,
}

impl Default for SessionLimits {
    fn default() -> Self {
        Self {
            threshold: crate::truncate::DEFAULT_THRESHOLD,
            lines: crate::truncate::DEFAULT_LINES,
        }
    }
}

/// The limits `CoreToolScheduler` gives `truncateLlmContent`: a tool with
/// `maxOutputChars` is cut at that many units with no line cap (0 disables
/// the cut, as `threshold <= 0` does); any other at the session's limits.
/// `keep` is the tool's `truncateKeep`, `both` when it has none; the preview
/// is as long as the threshold.
#[must_use]
pub fn tool_limits(
    session: SessionLimits,
    max_output_chars: Option<usize>,
    keep: Option<Keep>,
) -> Limits {
    let infinite = |n: usize| if n == 0 { usize::MAX } else { n };
    let (threshold, lines) = match max_output_chars {
        Some(max) => (max, None),
        None => (
            infinite(session.threshold),
            (session.lines != 0).then_some(session.lines),
        ),
    };
    Limits {
        threshold,
        lines,
        keep: keep.unwrap_or_default(),
        preview_chars: None,
    }
}

/// What `truncateLlmContent` makes of a result before it cuts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LlmText<'a> {
    /// Only whitespace and no media: Qwen's `(<tool> completed with no
    /// output)`, which replaces the result.
    NoOutput(String),
    /// A text (a text part) already starts with
    /// [`TOOL_OUTPUT_TRUNCATED_PREFIX`]: left as it is.
    AlreadyTruncated,
    /// The text to hold to the limits: the string, or the text parts joined
    /// with `\n`; `media` parts follow it when it is cut.
    Cut {
        /// What is measured, cut and spilled.
        text: Cow<'a, str>,
        /// Media parts kept after the cut text.
        media: usize,
    },
}

/// Qwen's `truncateLlmContent` up to the cut, for `tool_name`'s result.
#[must_use]
pub fn llm_text<'a>(tool_name: &str, content: Content<'a>) -> LlmText<'a> {
    let no_output = || LlmText::NoOutput(format!("({tool_name} completed with no output)"));
    match content {
        Content::Text(text) => {
            if is_blank(text) {
                no_output()
            } else if text.starts_with(TOOL_OUTPUT_TRUNCATED_PREFIX) {
                LlmText::AlreadyTruncated
            } else {
                LlmText::Cut {
                    text: Cow::Borrowed(text),
                    media: 0,
                }
            }
        }
        Content::Parts(parts) => {
            let texts = || {
                parts.iter().filter_map(|p| match p {
                    ContentPart::Text(t) => Some(*t),
                    ContentPart::Media => None,
                })
            };
            let media = parts.len() - texts().count();
            let combined: Cow<'a, str> = match parts {
                [ContentPart::Text(only)] => Cow::Borrowed(only),
                _ => Cow::Owned(texts().collect::<Vec<_>>().join("\n")),
            };
            if is_blank(&combined) && media == 0 {
                no_output()
            } else if texts().any(|t| t.starts_with(TOOL_OUTPUT_TRUNCATED_PREFIX)) {
                LlmText::AlreadyTruncated
            } else {
                LlmText::Cut {
                    text: combined,
                    media,
                }
            }
        }
    }
}

/// `text.trim() === ""` with JavaScript's whitespace set.
fn is_blank(text: &str) -> bool {
    text.chars().all(is_js_whitespace)
}
