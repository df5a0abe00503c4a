//! Models of the single-result gates: the persist decision, the stub and
//! its preview, and `truncateLlmContent` up to the cut.

use super::{slice_start_without_broken_surrogate, string, utf16};
use crate::budget::per_tool::{Content, ContentPart, LlmText};
use crate::budget::persist::{Gate, GateSkip, PersistTarget};
use crate::fold::is_js_whitespace;
use crate::truncate::TOOL_OUTPUT_TRUNCATED_PREFIX;

/// `maybePersistLargeToolResult`'s decision, transcribed. `threshold` 0 is
/// infinite, as Qwen's config reads a threshold that is not positive.
#[must_use]
pub fn model_persist_gate(
    tool: &str,
    text: &str,
    output_budget_applied: bool,
    threshold: usize,
) -> Gate {
    if output_budget_applied {
        return Gate::Pass(GateSkip::OutputBudgetApplied);
    }
    if ["exec", "read_file", "read_mcp_resource", "enter_plan_mode"].contains(&tool) {
        return Gate::Pass(GateSkip::Exempt);
    }
    if text.is_empty() {
        return Gate::Pass(GateSkip::Empty);
    }
    if text.contains("... [CONTENT TRUNCATED] ...") || text.starts_with("<persisted-output>") {
        return Gate::Pass(GateSkip::AlreadyTruncated);
    }
    let gate = if threshold == 0 {
        f64::INFINITY
    } else {
        threshold as f64 + 3000.0
    };
    if utf16(text).len() as f64 <= gate {
        return Gate::Pass(GateSkip::WithinThreshold);
    }
    Gate::Persist
}

/// `generatePreview`, transcribed (with the crate's surrogate rule).
#[must_use]
pub fn model_preview(content: &str) -> String {
    let units = utf16(content);
    let text = if units.len() <= 2000 {
        units
    } else {
        let slice = slice_start_without_broken_surrogate(&units, 2000);
        let last_newline = slice.iter().rposition(|&u| u == 0x0A);
        let mut kept = match last_newline {
            Some(i) if i > 0 => slice[..i].to_vec(),
            _ => slice.to_vec(),
        };
        kept.extend(utf16("\n..."));
        kept
    };
    let mut text = string(&text);
    // The regexes' `m.slice(1, -1)`, written out.
    for (tag, escaped) in [
        ("</persisted-output>", "&lt;/persisted-output&gt;"),
        ("<persisted-output>", "&lt;persisted-output&gt;"),
        ("</system-reminder>", "&lt;/system-reminder&gt;"),
        ("<system-reminder>", "&lt;system-reminder&gt;"),
    ] {
        text = text.replace(tag, escaped);
    }
    text
}

/// `buildStub`, transcribed.
#[must_use]
pub fn model_stub(content: &str, sha256_hex: &str, target: PersistTarget<'_>) -> String {
    let preview = model_preview(content);
    let size_kb = (content.len() as f64 / 1024.0 + 0.5).floor() as u64;
    match target {
        PersistTarget::File(path) => format!(
            "<persisted-output>\nOutput too large ({size_kb} KB). Full output saved to: {path}\nFull output sha256: {sha256_hex}\nNote: this file may be cleaned up after 24 hours.\nTo read the complete output, use the read_file tool with the absolute file path above.\n\nPreview (up to 2000 chars):\n{preview}\n</persisted-output>"
        ),
        PersistTarget::Note(note) => format!(
            "Output too large ({size_kb} KB). {}\nFull output sha256: {sha256_hex}\n\nPreview (up to 2000 chars):\n{preview}",
            note.text()
        ),
    }
}

/// `truncateLlmContent` up to the cut, transcribed.
#[must_use]
pub fn model_llm_text<'a>(tool_name: &str, content: Content<'a>) -> LlmText<'a> {
    let blank = |s: &str| s.chars().all(is_js_whitespace);
    match content {
        Content::Text(text) => {
            if blank(text) {
                return LlmText::NoOutput(format!("({tool_name} completed with no output)"));
            }
            if text.starts_with(TOOL_OUTPUT_TRUNCATED_PREFIX) {
                return LlmText::AlreadyTruncated;
            }
            LlmText::Cut {
                text: text.into(),
                media: 0,
            }
        }
        Content::Parts(parts) => {
            let text_parts: Vec<&str> = parts
                .iter()
                .filter_map(|p| {
                    if let ContentPart::Text(t) = p {
                        Some(*t)
                    } else {
                        None
                    }
                })
                .collect();
            let media = parts.len() - text_parts.len();
            let combined = text_parts.join("\n");
            if blank(&combined) && media == 0 {
                return LlmText::NoOutput(format!("({tool_name} completed with no output)"));
            }
            if text_parts
                .iter()
                .any(|t| t.starts_with(TOOL_OUTPUT_TRUNCATED_PREFIX))
            {
                return LlmText::AlreadyTruncated;
            }
            LlmText::Cut {
                text: combined.into(),
                media,
            }
        }
    }
}
