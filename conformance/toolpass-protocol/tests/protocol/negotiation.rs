//! Version negotiation, the server's side: MCP's rule for MCP versions,
//! toolpass/1 for a toolpass client, and a refusal naming what is supported
//! for another toolpass major.

use serde_json::json;
use toolpass_protocol::{MCP_LATEST, MCP_VERSIONS, Negotiated, ResponseError, negotiate};

#[test]
fn a_supported_mcp_version_is_answered_with_itself_in_both_modes() {
    for toolpass in [true, false] {
        for version in MCP_VERSIONS {
            assert_eq!(negotiate(version, toolpass), Ok(Negotiated::Mcp(version)));
        }
    }
    assert_eq!(
        negotiate("2025-06-18", false).unwrap().protocol_version(),
        "2025-06-18"
    );
}

#[test]
fn an_unsupported_mcp_version_is_answered_with_the_newest_supported() {
    for requested in ["2024-11-05", "2025-03-26", "2099-01-01", "1.0.0"] {
        assert_eq!(negotiate(requested, false), Ok(Negotiated::Mcp(MCP_LATEST)));
        assert_eq!(negotiate(requested, true), Ok(Negotiated::Mcp(MCP_LATEST)));
    }
}

#[test]
fn toolpass_1_is_toolpass_for_a_toolpass_server_and_mcp_for_a_plain_one() {
    assert_eq!(negotiate("toolpass/1", true), Ok(Negotiated::Toolpass));
    assert_eq!(
        negotiate("toolpass/1", true).unwrap().protocol_version(),
        "toolpass/1"
    );
    // A plain MCP server does not know toolpass: it answers its newest MCP
    // version, and the runner reads it as a plain MCP server.
    assert_eq!(
        negotiate("toolpass/1", false),
        Ok(Negotiated::Mcp(MCP_LATEST))
    );
}

#[test]
fn another_toolpass_major_is_refused_naming_the_supported_versions() {
    let refusal = negotiate("toolpass/9", true).unwrap_err();
    assert_eq!(refusal.code, ResponseError::INVALID_PARAMS);
    assert_eq!(
        refusal.message,
        "unsupported protocol version \"toolpass/9\": this server supports toolpass/1, \
         2025-11-25, 2025-06-18"
    );
    assert_eq!(
        refusal.data,
        Some(json!({
            "supported": ["toolpass/1", "2025-11-25", "2025-06-18"],
            "requested": "toolpass/9"
        }))
    );
    let plain = negotiate("toolpass/0", false).unwrap_err();
    assert_eq!(
        plain.data,
        Some(json!({"supported": ["2025-11-25", "2025-06-18"], "requested": "toolpass/0"}))
    );
}
