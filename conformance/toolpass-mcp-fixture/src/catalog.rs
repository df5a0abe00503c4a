//! What the fixture offers, written as the MCP wire shapes a client lists:
//! tools (with their annotations and input schemas), resources and prompts.
//! Each shape is what a scenario judges a client on, so it is spelled out
//! here as JSON rather than derived.

use rmcp::model::{Prompt, Resource, Tool};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// Tool names, shared by the listing and the dispatch.
pub(crate) mod tool {
    /// Reads a note; `readOnlyHint: true`.
    pub(crate) const READ_NOTE: &str = "read_note";
    /// Writes a note; `readOnlyHint: false`.
    pub(crate) const WRITE_NOTE: &str = "write_note";
    /// Lists the notes; no annotations at all.
    pub(crate) const LIST_NOTES: &str = "list_notes";
    /// 600 000 characters of numbered lines.
    pub(crate) const LARGE_OUTPUT: &str = "large_output";
    /// `notifications/progress` N times, then the answer.
    pub(crate) const REPORT_PROGRESS: &str = "report_progress";
    /// The process exits mid-call.
    pub(crate) const CRASH_SERVER: &str = "crash_server";
    /// Never answers (until the client cancels the call).
    pub(crate) const NEVER_ANSWER: &str = "never_answer";
    /// Its `inputSchema` is not valid JSON Schema.
    pub(crate) const BROKEN_SCHEMA: &str = "broken_schema";
    /// 70 characters: `mcp__<server>__` plus this is over 63 for any server
    /// name, so `generateValidName` must cut the middle to `___`.
    pub(crate) const LONG_NAME: &str =
        "count_every_note_in_the_notes_directory_and_the_bytes_they_hold_in_all";
}

/// Resource URIs.
pub(crate) mod uri {
    /// A text resource.
    pub(crate) const WELCOME: &str = "fixture://text/welcome.txt";
    /// A blob resource: the 256 byte values in order.
    pub(crate) const ALL_BYTES: &str = "fixture://blob/all-bytes.bin";
}

/// Prompt names.
pub(crate) mod prompt {
    /// Takes a required `name` and an optional `focus`.
    pub(crate) const REVIEW_NOTE: &str = "review_note";
    /// Takes no arguments.
    pub(crate) const DAILY_SUMMARY: &str = "daily_summary";
}

/// The text of the welcome resource.
pub(crate) const WELCOME_TEXT: &str =
    "Welcome to the toolpass MCP fixture.\nThis resource is text/plain.\n";

/// Bytes 0 to 255 in order: every value, so a client that decodes the
/// base64 wrongly (or as text) is caught.
pub(crate) fn all_bytes() -> Vec<u8> {
    (0..=u8::MAX).collect()
}

/// The tools, in the order `tools/list` gives them.
pub(crate) fn tools() -> Vec<Tool> {
    let name_only = json!({
        "type": "object",
        "properties": {"name": {"type": "string", "description": "A file name in the notes directory."}},
        "required": ["name"],
        "additionalProperties": false
    });
    let no_arguments = json!({"type": "object", "properties": {}, "additionalProperties": false});
    wire(json!([
        {
            "name": tool::READ_NOTE,
            "description": "Reads a note from the notes directory and returns its text.",
            "inputSchema": name_only,
            "annotations": {"readOnlyHint": true}
        },
        {
            "name": tool::WRITE_NOTE,
            "description": "Writes a note in the notes directory, replacing it if it exists.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "A file name in the notes directory."},
                    "content": {"type": "string", "description": "The note's new text."}
                },
                "required": ["name", "content"],
                "additionalProperties": false
            },
            "annotations": {"readOnlyHint": false, "destructiveHint": true}
        },
        {
            "name": tool::LIST_NOTES,
            "description": "Lists the notes in the notes directory, one name a line, sorted.",
            "inputSchema": no_arguments
        },
        {
            "name": tool::LARGE_OUTPUT,
            "description": "Returns 600000 characters: lines 000001 to 010000, 60 characters each.",
            "inputSchema": no_arguments,
            "annotations": {"readOnlyHint": true}
        },
        {
            "name": tool::REPORT_PROGRESS,
            "description": "Sends one progress notification per step under the call's progressToken, then answers.",
            "inputSchema": {
                "type": "object",
                "properties": {"steps": {"type": "integer", "minimum": 1, "maximum": 100, "description": "How many steps (default 3)."}},
                "additionalProperties": false
            },
            "annotations": {"readOnlyHint": true}
        },
        {
            "name": tool::CRASH_SERVER,
            "description": "Makes the server process exit in the middle of this call, without answering.",
            "inputSchema": no_arguments
        },
        {
            "name": tool::NEVER_ANSWER,
            "description": "Never answers; only a cancellation from the client ends it.",
            "inputSchema": no_arguments,
            "annotations": {"readOnlyHint": true}
        },
        {
            "name": tool::BROKEN_SCHEMA,
            "description": "Echoes its arguments; its inputSchema is not valid JSON Schema.",
            // "strng" is no JSON Schema type. The rest keeps to MCP's Tool
            // shape: the TypeScript SDK (Qwen Code's client) checks
            // `required` is an array of strings and each property an
            // object, and refuses the whole tools/list otherwise.
            "inputSchema": {
                "type": "object",
                "properties": {"query": {"type": "strng"}},
                "required": ["query"]
            }
        },
        {
            "name": tool::LONG_NAME,
            "description": "Counts the notes in the notes directory and the bytes they hold.",
            "inputSchema": no_arguments,
            "annotations": {"readOnlyHint": true}
        }
    ]))
}

/// The resources, in the order `resources/list` gives them.
pub(crate) fn resources() -> Vec<Resource> {
    wire(json!([
        {
            "uri": uri::WELCOME,
            "name": "welcome",
            "description": "A short text resource.",
            "mimeType": "text/plain",
            "size": WELCOME_TEXT.len()
        },
        {
            "uri": uri::ALL_BYTES,
            "name": "all-bytes",
            "description": "The 256 byte values in order, as a base64 blob.",
            "mimeType": "application/octet-stream",
            "size": all_bytes().len()
        }
    ]))
}

/// The prompts, in the order `prompts/list` gives them.
pub(crate) fn prompts() -> Vec<Prompt> {
    wire(json!([
        {
            "name": prompt::REVIEW_NOTE,
            "description": "Asks for a review of one note.",
            "arguments": [
                {"name": "name", "description": "The note to review.", "required": true},
                {"name": "focus", "description": "What the review should look at.", "required": false}
            ]
        },
        {
            "name": prompt::DAILY_SUMMARY,
            "description": "Asks for a summary of today's notes."
        }
    ]))
}

/// A wire shape as the SDK's type. The catalogue is this file's constant
/// JSON, so a shape the SDK refuses is a bug here, caught by every test
/// that lists it.
fn wire<T: DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("the fixture's catalogue is valid MCP")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogue_reads_as_mcp() {
        assert_eq!(tools().len(), 9);
        assert_eq!(resources().len(), 2);
        assert_eq!(prompts().len(), 2);
    }

    #[test]
    fn the_long_name_needs_the_middle_cut_for_any_server_name() {
        // `mcp__` + a one-character server name + `__` + the tool.
        assert!("mcp__x__".len() + tool::LONG_NAME.len() > 63);
        assert!(tool::LONG_NAME.len() <= 128, "MCP's limit on a tool name");
    }
}
