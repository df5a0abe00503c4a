//! A resource read as the model gets it (Qwen's `formatMcpResourceContents`,
//! `packages/core/src/tools/mcp-resource-content.ts`): the text of every
//! content up to 100 000 characters in all, blobs up to 8 000 000 base64
//! characters in all, framed by delimiter lines carrying a nonce (which the
//! caller draws, this module having no randomness), and a summary for the
//! display.
//!
//! Qwen also caps blobs at three times that per turn of the model; a
//! toolpass call is its own turn, so the per-call cap is the one that
//! applies.

use crate::truncate::utf16_prefix;

/// Qwen's `MAX_MCP_RESOURCE_TEXT_CHARS`, in UTF-16 units.
pub const MAX_TEXT_CHARS: usize = 100_000;
/// Qwen's `MAX_MCP_RESOURCE_BLOB_CHARS`: base64 characters.
pub const MAX_BLOB_CHARS: usize = 8_000_000;

/// One content of a `resources/read` answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// Text.
    Text(String),
    /// Bytes as base64, with their MIME type if the server gave one.
    Blob {
        /// The base64 text.
        base64: String,
        /// The MIME type.
        mime_type: Option<String>,
    },
}

/// One part of what the model gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Text the model reads.
    Text(String),
    /// Bytes handed to the model as inline data (Qwen's `inlineData`).
    Blob {
        /// The MIME type (`application/octet-stream` when none was given).
        mime_type: String,
        /// The base64 text.
        base64: String,
    },
}

/// A formatted read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Formatted {
    /// The parts, framed; empty when nothing readable was kept.
    pub parts: Vec<Part>,
    /// Text characters kept.
    pub text_chars: usize,
    /// Blobs kept.
    pub blob_count: usize,
    /// Base64 characters kept.
    pub blob_chars: usize,
    /// Whether anything was cut or left out.
    pub truncated: bool,
}

/// Formats `contents` read from `label` (`<server>:<uri>`), framed with
/// `nonce`.
#[must_use]
pub fn format(contents: &[Content], label: &str, nonce: &str) -> Formatted {
    let mut kept = Vec::new();
    let (mut text_chars, mut blob_chars, mut blob_count) = (0, 0, 0);
    let mut truncated = false;
    for content in contents {
        match content {
            Content::Text(text) => {
                let remaining = MAX_TEXT_CHARS.saturating_sub(text_chars);
                if remaining == 0 {
                    truncated |= !text.is_empty();
                    continue;
                }
                let (piece, length, cut) = utf16_prefix(text, remaining);
                truncated |= cut;
                if length > 0 {
                    kept.push(Part::Text(piece.to_owned()));
                    text_chars += length;
                }
            }
            Content::Blob { base64, mime_type } => {
                if blob_chars + base64.len() > MAX_BLOB_CHARS {
                    truncated = true;
                    continue;
                }
                blob_chars += base64.len();
                blob_count += 1;
                kept.push(Part::Blob {
                    mime_type: mime_type
                        .clone()
                        .unwrap_or_else(|| "application/octet-stream".to_owned()),
                    base64: base64.clone(),
                });
            }
        }
    }
    let parts = if kept.is_empty() {
        kept
    } else {
        let notice = if truncated {
            "\n[Content truncated \u{2014} part of this resource exceeded size limits and was \
             omitted.]"
        } else {
            ""
        };
        let mut parts = vec![Part::Text(format!(
            "\n--- Content from MCP resource {label} [{nonce}] ---\n"
        ))];
        parts.extend(kept);
        parts.push(Part::Text(format!(
            "{notice}\n--- End of MCP resource {label} [{nonce}] ---\n"
        )));
        parts
    };
    Formatted {
        parts,
        text_chars,
        blob_count,
        blob_chars,
        truncated,
    }
}

/// Qwen's `summarizeMcpResource`: what the read brought, for the display.
#[must_use]
pub fn summary(formatted: &Formatted) -> String {
    let mut said = Vec::new();
    if formatted.text_chars > 0 {
        said.push(format!("{} chars", formatted.text_chars));
    }
    if formatted.blob_count > 0 {
        let s = if formatted.blob_count == 1 { "" } else { "s" };
        said.push(format!("{} attachment{s}", formatted.blob_count));
    }
    if !said.is_empty() {
        let cut = if formatted.truncated {
            " (truncated)"
        } else {
            ""
        };
        return format!("Injected {}{cut}", said.join(" + "));
    }
    if formatted.truncated {
        "(content too large \u{2014} skipped)".to_owned()
    } else {
        "(no readable content)".to_owned()
    }
}

/// Qwen's `emptyMcpResourceText`: what the model reads when nothing was
/// kept.
#[must_use]
pub fn empty_text(formatted: &Formatted, label: &str) -> String {
    format!("\n--- MCP resource {label}: {} ---\n", summary(formatted))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_blob_are_framed_and_summarised() {
        let contents = [
            Content::Text("hello\n".to_owned()),
            Content::Blob {
                base64: "AAEC".to_owned(),
                mime_type: None,
            },
        ];
        let formatted = format(&contents, "notes:fixture://x", "abcd1234");
        assert_eq!(
            formatted.parts,
            [
                Part::Text(
                    "\n--- Content from MCP resource notes:fixture://x [abcd1234] ---\n".into()
                ),
                Part::Text("hello\n".into()),
                Part::Blob {
                    mime_type: "application/octet-stream".into(),
                    base64: "AAEC".into()
                },
                Part::Text("\n--- End of MCP resource notes:fixture://x [abcd1234] ---\n".into()),
            ]
        );
        assert_eq!(summary(&formatted), "Injected 6 chars + 1 attachment");
    }

    #[test]
    fn text_past_the_cap_is_cut_and_said_so() {
        let long = "é".repeat(MAX_TEXT_CHARS + 5);
        let contents = [Content::Text(long), Content::Text("more".into())];
        let formatted = format(&contents, "s:u", "n");
        assert!(formatted.truncated);
        assert_eq!(formatted.text_chars, MAX_TEXT_CHARS);
        let Part::Text(last) = formatted.parts.last().unwrap() else {
            panic!("the frame ends in text");
        };
        assert!(last.starts_with("\n[Content truncated"), "{last}");
        assert_eq!(summary(&formatted), "Injected 100000 chars (truncated)");
    }

    #[test]
    fn a_blob_past_the_cap_is_left_out_and_nothing_kept_says_what_happened() {
        let contents = [Content::Blob {
            base64: "A".repeat(MAX_BLOB_CHARS + 1),
            mime_type: Some("image/png".into()),
        }];
        let formatted = format(&contents, "s:u", "n");
        assert!(formatted.parts.is_empty());
        assert_eq!(
            empty_text(&formatted, "s:u"),
            "\n--- MCP resource s:u: (content too large \u{2014} skipped) ---\n"
        );
        let nothing = format(&[], "s:u", "n");
        assert_eq!(summary(&nothing), "(no readable content)");
    }
}
