//! toolpass's wire types as the MCP SDK's: what a `tools/list` or a
//! `tools/call` answer carries is built once, by `convert` as toolpass/1
//! has it (the Outcome with its `_meta.toolpass`, the descriptor with its
//! kind), and handed to the SDK here, so the plain MCP mode answers exactly
//! what the toolpass mode does.

use std::sync::OnceLock;

use rmcp::model::{CallToolResult, ContentBlock, MetaObject, ProtocolVersion, Tool};
use serde_json::Value;
use toolpass_protocol::{Content, MCP_LATEST, MCP_VERSIONS, Outcome, ToolDescriptor};

/// The MCP versions this server speaks, newest first: the protocol
/// crate's, the same as the toolpass mode's.
pub(crate) fn supported_versions() -> &'static [ProtocolVersion] {
    static SUPPORTED: OnceLock<Vec<ProtocolVersion>> = OnceLock::new();
    SUPPORTED.get_or_init(|| MCP_VERSIONS.iter().map(|v| version(v)).collect())
}

/// The version a client that asked for another one is answered with.
pub(crate) fn latest_version() -> ProtocolVersion {
    version(MCP_LATEST)
}

/// The SDK's value for `version`: its own constant when it knows the
/// version, which its comparisons use.
fn version(version: &str) -> ProtocolVersion {
    serde_json::from_value(Value::String(version.to_owned()))
        .unwrap_or_else(|e| unreachable!("any string is a protocol version: {e}"))
}

/// A `tools/call` answer: the Outcome's content, `isError` and `_meta`.
pub(crate) fn call_result(outcome: Outcome) -> CallToolResult {
    let content = outcome
        .content
        .into_iter()
        .map(|block| match block {
            Content::Text { text } => ContentBlock::text(text),
        })
        .collect();
    let mut result = if outcome.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    result.meta = match serde_json::to_value(&outcome.meta) {
        Ok(Value::Object(meta)) => Some(MetaObject::from(meta)),
        // An Outcome's `_meta` is a struct, which serializes to an object.
        Ok(other) => unreachable!("an Outcome's _meta serialized to {other}"),
        Err(e) => {
            tracing::error!("an Outcome's _meta could not be serialized: {e}");
            None
        }
    };
    result
}

/// A `tools/list` entry.
pub(crate) fn tool(descriptor: ToolDescriptor) -> Tool {
    // The same JSON both ways: a descriptor is MCP's Tool with toolpass's
    // `_meta`, which the SDK keeps.
    let json = serde_json::to_value(&descriptor)
        .unwrap_or_else(|e| unreachable!("a tool descriptor serializes: {e}"));
    serde_json::from_value(json)
        .unwrap_or_else(|e| unreachable!("a tool descriptor is an MCP Tool: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolpass_protocol::ErrorCode;

    #[test]
    fn the_versions_are_the_protocol_crates_and_the_sdk_knows_them() {
        let supported: Vec<String> = supported_versions()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(supported, MCP_VERSIONS);
        assert!(supported_versions().contains(&ProtocolVersion::V_2025_11_25));
        assert!(supported_versions().contains(&ProtocolVersion::V_2025_06_18));
        assert_eq!(latest_version(), ProtocolVersion::V_2025_11_25);
    }

    #[test]
    fn an_outcome_keeps_its_text_its_flag_and_its_toolpass_meta() {
        let outcome = Outcome::error(ErrorCode::FileNotFound, "File not found: /r/a.txt")
            .with_error_message("no such file");
        let expected = serde_json::to_value(&outcome).unwrap();
        let result = serde_json::to_value(call_result(outcome)).unwrap();
        assert_eq!(result["content"], expected["content"]);
        assert_eq!(result["isError"], true);
        assert_eq!(result["_meta"], expected["_meta"]);
        assert_eq!(
            result["_meta"]["toolpass"]["error"]["code"],
            "file_not_found"
        );
    }
}
