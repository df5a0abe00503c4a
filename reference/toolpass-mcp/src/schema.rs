//! Which listed tools the client can offer, judged on their `inputSchema`
//! before the SDK reads them: one unusable tool is refused alone rather
//! than failing the server's whole listing.

use serde_json::Value;

/// The deepest `inputSchema` a tool may have. Real schemas nest a few
/// levels; past this a schema is an attack on whatever walks it (the
/// validators, the declaration's writer, the model's API).
pub(crate) const MAX_SCHEMA_DEPTH: usize = 64;

/// How deep `value`'s arrays and objects nest (0 for a scalar), counted
/// with a stack of its own rather than the thread's.
#[must_use]
pub(crate) fn depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((value, above)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(map) => Box::new(map.values()),
            _ => continue,
        };
        deepest = deepest.max(above + 1);
        stack.extend(children.map(|child| (child, above + 1)));
    }
    deepest
}

/// Why a listed tool cannot be offered, judged on its `inputSchema`: MCP
/// requires one, an object, and the client bounds how deep it nests.
/// `None` when it can be.
#[must_use]
pub(crate) fn schema_problem(tool: &Value) -> Option<String> {
    match tool.get("inputSchema") {
        None => Some("it has no inputSchema".to_owned()),
        Some(Value::Object(_)) => {
            let depth = depth(&tool["inputSchema"]);
            (depth > MAX_SCHEMA_DEPTH).then(|| {
                format!("its inputSchema nests {depth} levels deep, over {MAX_SCHEMA_DEPTH}")
            })
        }
        Some(other) => Some(format!(
            "its inputSchema is {}, not an object",
            json_kind(other)
        )),
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn schema_problems() {
        let ok = json!({"name": "t", "inputSchema": {"type": "object"}});
        assert_eq!(schema_problem(&ok), None);
        let missing = json!({"name": "t"});
        assert!(schema_problem(&missing).unwrap().contains("no inputSchema"));
        let string = json!({"name": "t", "inputSchema": "object"});
        assert!(
            schema_problem(&string)
                .unwrap()
                .contains("a string, not an object")
        );
        let mut schema = json!({"type": "string"});
        for _ in 0..MAX_SCHEMA_DEPTH {
            schema = json!({"type": "object", "properties": {"x": schema}});
        }
        let deep = json!({"name": "t", "inputSchema": schema});
        assert!(schema_problem(&deep).unwrap().contains("levels deep"));
    }

    #[test]
    fn depth_is_counted_without_recursion() {
        let mut value = json!(1);
        for _ in 0..100_000 {
            value = Value::Array(vec![value]);
        }
        assert_eq!(depth(&value), 100_000);
        // Dropped without recursion too: serde_json's Value drop recurses.
        let mut stack = vec![value];
        while let Some(Value::Array(items)) = stack.pop() {
            stack.extend(items);
        }
    }
}
