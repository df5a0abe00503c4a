//! The Outcome constructors, and the summary the runner reads from any
//! `tools/call` reply, toolpass or plain MCP.

use serde_json::{Value, json};
use toolpass_protocol::{
    Confirmation, Content, ErrorCode, ErrorKind, Outcome, OutcomeSummary, ResultDisplay, Status,
};

/// The summary of `reply`, or the error's message.
fn check(reply: Value) -> Result<OutcomeSummary, String> {
    OutcomeSummary::from_value(&reply).map_err(|error| {
        assert_eq!(error.kind(), ErrorKind::InvalidOutcome);
        error.to_string()
    })
}

fn summary_of(outcome: &Outcome) -> OutcomeSummary {
    check(serde_json::to_value(outcome).unwrap()).unwrap()
}

#[test]
fn success_puts_the_model_text_in_the_content() {
    let outcome = Outcome::success(
        "Read 3 lines.",
        Some(ResultDisplay::Text {
            text: "a.ts".into(),
        }),
    );
    assert!(!outcome.is_error);
    assert_eq!(
        outcome.content,
        vec![Content::Text {
            text: "Read 3 lines.".into()
        }]
    );
    assert_eq!(outcome.status(), Status::Success);
    let summary = summary_of(&outcome);
    assert_eq!(
        (
            summary.status,
            summary.llm_content.as_str(),
            summary.toolpass
        ),
        (Status::Success, "Read 3 lines.", true)
    );
    assert_eq!(summary.error_code, None);
}

#[test]
fn error_carries_the_canonical_code() {
    let outcome = Outcome::error(ErrorCode::FileNotFound, "File not found: /sandbox/b.ts")
        .with_error_message("ENOENT: no such file");
    assert!(outcome.is_error);
    let error = outcome.toolpass().error.clone().unwrap();
    assert_eq!(error.code, ErrorCode::FileNotFound);
    assert_eq!(error.message, "ENOENT: no such file");
    let summary = summary_of(&outcome);
    assert_eq!(summary.status, Status::Error);
    assert_eq!(summary.llm_content, "File not found: /sandbox/b.ts");
    assert_eq!(summary.error_code.as_deref(), Some("file_not_found"));
    assert_eq!(
        summary.error_message.as_deref(),
        Some("ENOENT: no such file")
    );
    // Without the builder, the model's text is the message.
    let plain = Outcome::error(ErrorCode::EditNoChange, "No changes to apply.");
    assert_eq!(
        plain.toolpass().error.as_ref().unwrap().message,
        "No changes to apply."
    );
}

#[test]
fn awaiting_confirmation_shows_the_model_nothing_yet() {
    let outcome = Outcome::awaiting_confirmation(Confirmation::Info {
        title: "Confirm Web Fetch".into(),
        prompt: "Fetch https://example.com".into(),
        urls: vec!["https://example.com".into()],
    });
    assert!(!outcome.is_error);
    assert!(outcome.content.is_empty());
    assert_eq!(outcome.llm_content(), "");
    let confirmation = outcome.toolpass().confirmation.as_ref().unwrap();
    assert_eq!(confirmation.title(), "Confirm Web Fetch");
    assert_eq!(summary_of(&outcome).status, Status::AwaitingConfirmation);
}

#[test]
fn cancelled_is_an_error_to_mcp() {
    let outcome = Outcome::cancelled("The user cancelled the edit.");
    assert!(outcome.is_error);
    assert_eq!(outcome.toolpass().error, None);
    assert_eq!(summary_of(&outcome).status, Status::Cancelled);
}

#[test]
fn builders_set_the_spill_paths() {
    let outcome = Outcome::success("truncated", None)
        .with_persisted_output_path("/tmp/shell_ab.output")
        .with_result_file_paths(vec!["/tmp/a".into(), "/tmp/b".into()])
        .with_error_message("ignored: there is no error");
    let meta = outcome.toolpass();
    assert_eq!(
        meta.persisted_output_path.as_deref(),
        Some("/tmp/shell_ab.output")
    );
    assert_eq!(meta.result_file_paths, ["/tmp/a", "/tmp/b"]);
    assert_eq!(meta.error, None);
    let value = serde_json::to_value(&outcome).unwrap();
    assert_eq!(
        value["_meta"]["toolpass"]["persistedOutputPath"],
        "/tmp/shell_ab.output"
    );
    assert_eq!(
        value["_meta"]["toolpass"]["resultFilePaths"],
        json!(["/tmp/a", "/tmp/b"])
    );
}

#[test]
fn a_plain_mcp_reply_is_summarized_from_its_content() {
    let summary = check(json!({
        "content": [
            {"type": "text", "text": "first"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "text", "text": "second"}
        ]
    }))
    .unwrap();
    assert_eq!(summary.status, Status::Success);
    assert_eq!(summary.llm_content, "first\nsecond");
    assert!(!summary.toolpass && !summary.is_error);

    let failed = check(json!({
        "content": [{"type": "text", "text": "no such file"}],
        "isError": true,
        "_meta": {"other.vendor/trace": "x"}
    }))
    .unwrap();
    assert_eq!(failed.status, Status::Error);
    assert_eq!(failed.error_code, None);
    assert!(failed.is_error);
}

#[test]
fn a_malformed_reply_is_refused_with_a_reason() {
    let cases = [
        (json!("text"), "the result is not an object"),
        (json!({}), "no \"content\" array"),
        (json!({"content": {}}), "no \"content\" array"),
        (
            json!({"content": [], "isError": "yes"}),
            "\"isError\" is not a boolean",
        ),
        (
            json!({"content": [], "_meta": {"toolpass": {"llmContent": ""}}}),
            "_meta.toolpass has no \"status\"",
        ),
        (
            json!({"content": [], "_meta": {"toolpass": {"status": "exploded", "llmContent": ""}}}),
            "_meta.toolpass.status is not a known status",
        ),
        (
            json!({"content": [], "_meta": {"toolpass": {"status": "success"}}}),
            "no string \"llmContent\"",
        ),
    ];
    for (reply, reason) in cases {
        let message = check(reply.clone()).unwrap_err();
        assert!(
            message.contains(reason),
            "{reply}: {message:?} lacks {reason:?}"
        );
    }
}

#[test]
fn a_typed_outcome_needs_its_toolpass_meta() {
    // A plain MCP reply is read through OutcomeSummary, not as an Outcome.
    let plain = json!({"content": [{"type": "text", "text": "hi"}]});
    let error = serde_json::from_value::<Outcome>(plain).unwrap_err();
    assert!(error.to_string().contains("_meta"), "{error}");
}
