//! The tools of `--mode oversized-result` and `--mode escapes`, each one
//! tool on top of the usual catalogue: a way a server's answer can harm a
//! client that takes it as it comes.

use rmcp::model::Tool;
use serde_json::json;

/// The tool of `--mode oversized-result`.
pub(crate) const OVERSIZED_RESULT: &str = "oversized_result";
/// The tool of `--mode escapes`.
pub(crate) const ESCAPE_SEQUENCES: &str = "escape_sequences";

/// Characters of `oversized_result`'s text: 17 MiB, one more than the MCP
/// SDKs' 16 MiB message limit, so its message is over it whatever else
/// the message holds.
pub(crate) const OVERSIZED_CHARS: usize = 17 * 1024 * 1024;

/// What `escape_sequences` answers: words between terminal control
/// sequences (SGR colours, a cursor move, a line erase, an OSC window
/// title ended by BEL and one ended by ST, a bare BEL), each of which a
/// terminal acts on and a model should never see.
pub(crate) const ESCAPED_TEXT: &str = "\u{1b}[31mred\u{1b}[0m plain \u{1b}[2K\u{1b}[1;1Hmoved \
     \u{1b}]0;spoofed title\u{7}titled \u{1b}]2;second title\u{1b}\\done\u{7}\n";

/// The extra tool's declaration, `name` described by `description`.
fn tool(name: &str, description: &str) -> Tool {
    serde_json::from_value(json!({
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false},
        "annotations": {"readOnlyHint": true}
    }))
    .expect("the extra tool is valid MCP")
}

/// `oversized_result`'s declaration.
pub(crate) fn oversized_tool() -> Tool {
    tool(
        OVERSIZED_RESULT,
        "Answers with 17 MiB of text, over the MCP message limit.",
    )
}

/// `escape_sequences`' declaration.
pub(crate) fn escapes_tool() -> Tool {
    tool(
        ESCAPE_SEQUENCES,
        "Answers with words between terminal escape sequences.",
    )
}

/// `oversized_result`'s text: `x` repeated, ending in a newline.
pub(crate) fn oversized_text() -> String {
    let mut text = "x".repeat(OVERSIZED_CHARS - 1);
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oversized_text_is_over_sixteen_mib() {
        assert!(oversized_text().len() > 16 * 1024 * 1024);
        assert_eq!(oversized_text().len(), OVERSIZED_CHARS);
    }

    #[test]
    fn the_escaped_text_holds_escapes_and_words() {
        assert_eq!(ESCAPED_TEXT.matches('\u{1b}').count(), 7);
        for word in ["red", "plain", "moved", "titled", "done"] {
            assert!(ESCAPED_TEXT.contains(word), "{word}");
        }
        let _ = oversized_tool();
        let _ = escapes_tool();
    }
}
