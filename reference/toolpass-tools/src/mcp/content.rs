//! What an MCP call's answer becomes for the model and for a person
//! (Qwen's `transformMcpContentToParts`, `getDisplayFromParts` and
//! `buildMcpToolError`, `packages/core/src/tools/mcp-tool.ts`).
//!
//! Qwen hands images, audio and embedded blobs to the model as inline data
//! beside the text; the reference's model has no such input, so they reach
//! it as the line Qwen puts before them and the display shows their MIME
//! type, as Qwen's does.

use serde_json::{Map, Value, json};
use toolpass_mcp::CallOutcome;
use toolpass_shell::output::text::strip_ansi;

/// What the model reads when a result has no text part at all (Qwen's
/// `TOOL_SUCCEEDED_OUTPUT`).
const SUCCEEDED: &str = "Tool execution succeeded.";

/// One part of an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Part {
    /// Text the model reads.
    Text(String),
    /// Inline data, shown by its MIME type.
    Media(String),
}

/// Qwen's `transformMcpContentToParts` for tool `tool`'s answer.
pub(crate) fn parts(tool: &str, answer: &CallOutcome) -> Vec<Part> {
    let structured = answer
        .structured
        .as_ref()
        .map(|s| Part::Text(serde_json::to_string(s).unwrap_or_default()));
    let mut parts: Vec<Part> = answer
        .content
        .iter()
        .flat_map(|block| block_parts(tool, block))
        .collect();
    if let Some(structured) = structured
        && !parts.contains(&structured)
    {
        parts.insert(0, structured);
    }
    parts.into_iter().map(without_escapes).collect()
}

/// A text part with its terminal escape sequences removed, as the shell's
/// output is (`strip-ansi`): a server's colours, cursor moves and window
/// titles are for a terminal, and raw they would reach the model and any
/// terminal that shows what the model saw.
fn without_escapes(part: Part) -> Part {
    match part {
        Part::Text(text) => Part::Text(strip_ansi(&text)),
        media @ Part::Media(_) => media,
    }
}

fn block_parts(tool: &str, block: &Value) -> Vec<Part> {
    let text = |key: &str| block.get(key).and_then(Value::as_str).unwrap_or_default();
    match text("type") {
        "text" => vec![Part::Text(text("text").to_owned())],
        kind @ ("image" | "audio") => {
            let mime = text("mimeType");
            vec![
                Part::Text(format!(
                    "[Tool '{tool}' provided the following {kind} data with mime-type: {mime}]"
                )),
                Part::Media(mime.to_owned()),
            ]
        }
        "resource" => {
            let resource = block.get("resource").unwrap_or(&Value::Null);
            let field = |key: &str| {
                resource
                    .get(key)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
            };
            if !field("text").is_empty() {
                vec![Part::Text(field("text").to_owned())]
            } else if !field("blob").is_empty() {
                let mime = match field("mimeType") {
                    "" => "application/octet-stream",
                    mime => mime,
                };
                vec![
                    Part::Text(format!(
                        "[Tool '{tool}' provided the following embedded resource with mime-type: \
                         {mime}]"
                    )),
                    Part::Media(mime.to_owned()),
                ]
            } else {
                Vec::new()
            }
        }
        "resource_link" => {
            let title = match text("title") {
                "" => text("name"),
                title => title,
            };
            vec![Part::Text(format!(
                "Resource Link: {title} at {}",
                text("uri")
            ))]
        }
        _ => Vec::new(),
    }
}

/// The model's text: the text parts joined by lines (Qwen's
/// `convertToFunctionResponse`), or Qwen's marker when there are none.
pub(crate) fn model_text(parts: &[Part]) -> String {
    let texts: Vec<&str> = parts
        .iter()
        .filter_map(|p| match p {
            Part::Text(text) => Some(text.as_str()),
            Part::Media(_) => None,
        })
        .collect();
    if texts.is_empty() {
        SUCCEEDED.to_owned()
    } else {
        texts.join("\n")
    }
}

/// Qwen's `getDisplayFromParts`: texts, and `[<mime>]` for media.
pub(crate) fn display(parts: &[Part]) -> String {
    parts
        .iter()
        .map(|p| match p {
            Part::Text(text) => text.clone(),
            Part::Media(mime) => format!("[{mime}]"),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `JSON.stringify` of the function call Qwen's error message names:
/// `{"name":…,"args":…}`.
pub(crate) fn call_json(tool: &str, arguments: &Map<String, Value>) -> String {
    json!({"name": tool, "args": arguments}).to_string()
}

/// `JSON.stringify` of Qwen's `wrapMcpCallToolResultAsParts` for an
/// `isError` answer: the result as the SDK parsed it (its keys in the
/// schema's order) under `error`, and its content again beside it.
pub(crate) fn error_response_json(tool: &str, answer: &CallOutcome) -> String {
    let mut result = Map::new();
    result.insert("content".to_owned(), Value::Array(answer.content.clone()));
    if let Some(structured) = &answer.structured {
        result.insert("structuredContent".to_owned(), structured.clone());
    }
    result.insert("isError".to_owned(), Value::Bool(true));
    json!([{
        "functionResponse": {
            "name": tool,
            "response": {"error": result, "content": answer.content}
        }
    }])
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(content: Value, structured: Option<Value>) -> CallOutcome {
        CallOutcome {
            content: content.as_array().cloned().unwrap_or_default(),
            structured,
            is_error: false,
        }
    }

    #[test]
    fn escape_sequences_are_stripped_from_every_text_part() {
        let got = parts(
            "t",
            &answer(
                json!([
                    {"type": "text", "text": "\u{1b}[31mred\u{1b}[0m \u{1b}]0;title\u{7}x"},
                    {"type": "resource", "resource": {"uri": "u", "text": "\u{1b}[2Kinline"}}
                ]),
                None,
            ),
        );
        assert_eq!(
            got,
            vec![
                Part::Text("red x".to_owned()),
                Part::Text("inline".to_owned())
            ]
        );
    }

    #[test]
    fn each_kind_of_block_becomes_qwens_parts() {
        let got = parts(
            "t",
            &answer(
                json!([
                    {"type": "text", "text": "one"},
                    {"type": "image", "data": "AA==", "mimeType": "image/png"},
                    {"type": "resource", "resource": {"uri": "u", "text": "inline"}},
                    {"type": "resource", "resource": {"uri": "u", "blob": "AA=="}},
                    {"type": "resource_link", "uri": "file:///x", "name": "x"},
                    {"type": "other"}
                ]),
                None,
            ),
        );
        assert_eq!(
            display(&got),
            "one\n[Tool 't' provided the following image data with mime-type: image/png]\n\
             [image/png]\ninline\n[Tool 't' provided the following embedded resource with \
             mime-type: application/octet-stream]\n[application/octet-stream]\nResource Link: x \
             at file:///x"
        );
        assert!(!model_text(&got).contains("[image/png]"));
    }

    #[test]
    fn structured_content_leads_unless_a_text_block_repeats_it() {
        let structured = json!({"n": 1});
        let got = parts(
            "t",
            &answer(
                json!([{"type": "text", "text": "x"}]),
                Some(structured.clone()),
            ),
        );
        assert_eq!(model_text(&got), "{\"n\":1}\nx");
        let repeated = parts(
            "t",
            &answer(
                json!([{"type": "text", "text": "{\"n\":1}"}]),
                Some(structured),
            ),
        );
        assert_eq!(model_text(&repeated), "{\"n\":1}");
        assert_eq!(model_text(&parts("t", &answer(json!([]), None))), SUCCEEDED);
    }

    #[test]
    fn an_error_names_the_call_and_the_answer_as_qwen_stringifies_them() {
        let mut failed = answer(json!([{"type": "text", "text": "no"}]), None);
        failed.is_error = true;
        let args = json!({"name": "b"}).as_object().cloned().unwrap();
        assert_eq!(
            call_json("read_note", &args),
            r#"{"name":"read_note","args":{"name":"b"}}"#
        );
        assert_eq!(
            error_response_json("read_note", &failed),
            r#"[{"functionResponse":{"name":"read_note","response":{"error":{"content":[{"type":"text","text":"no"}],"isError":true},"content":[{"type":"text","text":"no"}]}}}]"#
        );
    }
}
