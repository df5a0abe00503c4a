//! `--mode many-tools`: ten thousand numbered tools on top of the usual
//! catalogue, as a server generated from a large API might list. Listed in
//! full, their names and descriptions alone are some 400 000 characters:
//! what a client must not put whole into every prompt.

use rmcp::model::Tool;
use serde_json::json;

/// How many numbered tools there are.
pub(crate) const COUNT: usize = 10_000;

/// `tool_00001` to `tool_10000`.
fn name(number: usize) -> String {
    format!("tool_{number:05}")
}

/// The numbered tools, in order. Each takes no arguments.
pub(crate) fn tools() -> Vec<Tool> {
    (1..=COUNT)
        .map(|number| {
            serde_json::from_value(json!({
                "name": name(number),
                "description": format!("Numbered tool {number:05} of {COUNT}; answers with its number."),
                "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false},
                "annotations": {"readOnlyHint": true}
            }))
            .expect("a numbered tool is valid MCP")
        })
        .collect()
}

/// The answer of numbered tool `tool`, or `None` when it is none of them.
pub(crate) fn call(tool: &str) -> Option<String> {
    let number: usize = tool.strip_prefix("tool_")?.parse().ok()?;
    (1..=COUNT)
        .contains(&number)
        .then(|| format!("numbered tool {number:05} answered"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn there_are_ten_thousand_and_each_answers_with_its_number() {
        let tools = tools();
        assert_eq!(tools.len(), COUNT);
        assert_eq!(tools[9_998].name, "tool_09999");
        assert_eq!(
            call("tool_09999").as_deref(),
            Some("numbered tool 09999 answered")
        );
        assert_eq!(call("tool_10001"), None);
        assert_eq!(call("read_note"), None);
    }
}
