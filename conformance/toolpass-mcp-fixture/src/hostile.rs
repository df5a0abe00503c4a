//! The shapes of a broken MCP server, chosen on the command line so a
//! scenario's `mcpServers` entry can start each one. None goes through
//! `rmcp`, whose types cannot send what they send: they read stdin line by
//! line until it ends, then exit 0, and never wait on a clock.

use std::io::{BufRead, Write};

use serde_json::{Value, json};

/// Reads every line (the client's `initialize` among them) and answers none:
/// a client must give up on its own timeout rather than hang.
pub(crate) fn never_initialize(input: impl BufRead) -> std::io::Result<()> {
    for line in input.lines() {
        line?;
    }
    Ok(())
}

/// What `--invalid-json` answers every line with.
pub(crate) const NOT_JSON: &str = "this line is not JSON: toolpass-mcp-fixture --invalid-json";

/// Answers every line read (the client's `initialize` first) with a line
/// that is not JSON.
pub(crate) fn invalid_json(input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
    for line in input.lines() {
        line?;
        writeln!(output, "{NOT_JSON}")?;
        output.flush()?;
    }
    Ok(())
}

/// The tools of `--mode bad-schemas`, in listing order: good ones around
/// one without an `inputSchema`, one whose schema is a string, one whose
/// schema is an array, and one nested [`DEEP_LEVELS`] levels deep.
pub(crate) mod bad {
    /// Answers; its schema is good.
    pub(crate) const FIRST: &str = "echo_first";
    /// No `inputSchema` at all.
    pub(crate) const MISSING: &str = "schema_missing";
    /// `"inputSchema": "object"`.
    pub(crate) const STRING: &str = "schema_string";
    /// `"inputSchema": []`.
    pub(crate) const ARRAY: &str = "schema_array";
    /// A schema of `properties` nested thousands of levels.
    pub(crate) const DEEP: &str = "schema_deep";
    /// Answers; its schema is good.
    pub(crate) const LAST: &str = "echo_last";
}

/// How many schemas `schema_deep` nests, one in each one's `properties`:
/// twice as many JSON levels, far past any parser's recursion limit.
pub(crate) const DEEP_LEVELS: usize = 3_000;

/// `{"type":"object","properties":{"x":…}}` nested `levels` times around
/// `{"type":"string"}`, written out without building (or recursing
/// through) a value.
fn deep_schema(levels: usize) -> String {
    let open = r#"{"type":"object","properties":{"x":"#;
    let mut text = open.repeat(levels);
    text.push_str(r#"{"type":"string"}"#);
    text.push_str(&"}}".repeat(levels));
    text
}

/// The `tools/list` result of `--mode bad-schemas`, as JSON text.
fn bad_tools() -> String {
    let good = json!({"type": "object", "properties": {}, "additionalProperties": false});
    let tool = |name: &str, what: &str| json!({"name": name, "description": what});
    let mut first = tool(
        bad::FIRST,
        "Answers with its name; its inputSchema is good.",
    );
    first["inputSchema"] = good.clone();
    let missing = tool(bad::MISSING, "Has no inputSchema.");
    let mut string = tool(bad::STRING, "Its inputSchema is a string.");
    string["inputSchema"] = json!("object");
    let mut array = tool(bad::ARRAY, "Its inputSchema is an array.");
    array["inputSchema"] = json!([]);
    let mut last = tool(bad::LAST, "Answers with its name; its inputSchema is good.");
    last["inputSchema"] = good;
    let mut deep = tool(bad::DEEP, "Its inputSchema nests 3000 levels deep.").to_string();
    deep.pop();
    deep.push_str(&format!(r#","inputSchema":{}}}"#, deep_schema(DEEP_LEVELS)));
    format!(r#"{{"tools":[{first},{missing},{string},{array},{deep},{last}]}}"#)
}

/// The answer to one request of `--mode bad-schemas`, as JSON text.
fn bad_schemas_answer(request: &Value) -> Option<String> {
    let id = request.get("id")?;
    let method = request.get("method").and_then(Value::as_str).unwrap_or("");
    let result = match method {
        "initialize" => json!({
            "protocolVersion": request.pointer("/params/protocolVersion").cloned().unwrap_or(json!("2025-06-18")),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "toolpass-mcp-fixture --mode bad-schemas", "version": env!("CARGO_PKG_VERSION")}
        }),
        "ping" => json!({}),
        "tools/list" => {
            return Some(format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{}}}"#,
                bad_tools()
            ));
        }
        "tools/call" => {
            let name = request
                .pointer("/params/name")
                .and_then(Value::as_str)
                .unwrap_or("");
            if ![bad::FIRST, bad::LAST].contains(&name) {
                return Some(json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": format!("no callable tool {name:?}")}}).to_string());
            }
            json!({"content": [{"type": "text", "text": format!("{name} answered")}]})
        }
        other => {
            return Some(json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": format!("method {other:?} not found")}}).to_string());
        }
    };
    Some(json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string())
}

/// Serves `initialize`, `ping`, `tools/list` (the tools of [`bad`]) and
/// `tools/call` (of the good ones) by hand, one answer a line; ignores
/// notifications and lines that are not JSON.
pub(crate) fn bad_schemas(input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
    for line in input.lines() {
        let Ok(request) = serde_json::from_str::<Value>(&line?) else {
            continue;
        };
        if let Some(answer) = bad_schemas_answer(&request) {
            writeln!(output, "{answer}")?;
            output.flush()?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_initialize_reads_to_the_end_of_its_input() {
        let input = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\"}\nmore\n";
        let mut reader = std::io::Cursor::new(input);
        never_initialize(&mut reader).unwrap();
        assert_eq!(reader.position(), input.len() as u64);
    }

    #[test]
    fn invalid_json_answers_each_line_with_one_that_does_not_parse() {
        let mut out = Vec::new();
        invalid_json("one\ntwo\n".as_bytes(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.lines().count(), 2);
        for line in text.lines() {
            assert!(
                serde_json::from_str::<serde_json::Value>(line).is_err(),
                "{line}"
            );
        }
    }

    #[test]
    fn bad_schemas_lists_six_tools_and_answers_the_good_ones() {
        let input = concat!(
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo_last"}}"#,
            "\n",
        );
        let mut out = Vec::new();
        bad_schemas(input.as_bytes(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].contains("\"protocolVersion\":\"2025-11-25\""));
        // Too deep for serde_json: counted by hand.
        assert!(serde_json::from_str::<Value>(lines[1]).is_err());
        assert_eq!(lines[1].matches("\"name\":").count(), 6);
        assert!(
            lines[1].contains(&"{\"type\":\"object\",\"properties\":{\"x\":".repeat(DEEP_LEVELS))
        );
        assert!(lines[2].contains("echo_last answered"));
    }
}
