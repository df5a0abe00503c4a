//! Session config is strict: an unknown key is refused with a message that
//! names it, because an ignored key would let a scenario pass without testing
//! what it says.

use serde_json::{Value, json};
use toolpass_protocol::method::{self, Method};
use toolpass_protocol::{ApprovalMode, Request, RequestId, ResponseError, SessionConfig};

/// Opens a session with `config`; the error message when the server would
/// refuse it.
fn check(config: Value) -> Result<SessionConfig, String> {
    let request = Request {
        id: RequestId::Number(2),
        method: method::SessionOpen::NAME.into(),
        params: Some(json!({"root": "/sandbox/tp-1", "config": config})),
    };
    match request.params::<method::SessionOpen>() {
        Ok(params) => Ok(params.config),
        Err(error) => {
            assert_eq!(error.code, ResponseError::INVALID_PARAMS);
            Err(error.message)
        }
    }
}

#[test]
fn an_empty_config_keeps_every_default() {
    assert_eq!(check(json!({})), Ok(SessionConfig::default()));
    // `config` itself may be left out.
    let request = Request {
        id: RequestId::Number(1),
        method: method::SESSION_OPEN.into(),
        params: Some(json!({"root": "/sandbox/tp-1"})),
    };
    assert_eq!(
        request.params::<method::SessionOpen>().unwrap().config,
        SessionConfig::default()
    );
}

#[test]
fn known_keys_are_read() {
    let config = check(json!({
        "truncateToolOutputThreshold": 500,
        "truncateToolOutputLines": 20,
        "toolOutputBatchBudget": 2000,
        "approvalMode": "auto-edit",
        "disabledTools": ["web_fetch"],
        "mcpServers": {"fixture": {"command": "toolpass", "args": ["mcp-fixture"]}},
        "env": {"LANG": "C"},
    }))
    .unwrap();
    assert_eq!(config.truncate_tool_output_threshold, Some(500));
    assert_eq!(config.approval_mode, Some(ApprovalMode::AutoEdit));
    assert_eq!(config.mcp_servers["fixture"].args, ["mcp-fixture"]);
}

#[test]
fn an_unknown_key_is_refused_by_name() {
    let message = check(json!({"truncateThreshold": 10})).unwrap_err();
    assert!(
        message.contains("unknown field `truncateThreshold`"),
        "{message}"
    );
    assert!(
        message.starts_with("invalid params for toolpass/session.open"),
        "{message}"
    );
    // The message lists what is allowed, so the fix is obvious.
    assert!(message.contains("truncateToolOutputThreshold"), "{message}");
}

#[test]
fn a_snake_case_key_is_refused() {
    // The wire is camelCase; the Rust spelling must not slip through.
    let message = check(json!({"approval_mode": "yolo"})).unwrap_err();
    assert!(
        message.contains("unknown field `approval_mode`"),
        "{message}"
    );
}

#[test]
fn an_unknown_key_in_an_mcp_server_is_refused_by_name() {
    let message =
        check(json!({"mcpServers": {"fixture": {"command": "x", "argz": []}}})).unwrap_err();
    assert!(message.contains("unknown field `argz`"), "{message}");
}

#[test]
fn an_unknown_approval_mode_is_refused_by_value() {
    let message = check(json!({"approvalMode": "autoEdit"})).unwrap_err();
    assert!(message.contains("unknown variant `autoEdit`"), "{message}");
}
