//! Error codes, features, fault points, tool kinds and protocol versions:
//! their strings round-trip, and unknown strings are kept or refused as
//! designed.

use std::collections::BTreeSet;

use serde_json::json;
use toolpass_protocol::{
    Dialect, ErrorCode, ErrorKind, FaultParams, FaultPoint, Feature, Implementation,
    InitializeResult, Outcome, OutcomeSummary, PROTOCOL_VERSION, ProtocolVersion, ToolKind,
    ToolpassCapability,
};

#[test]
fn error_codes_round_trip_and_are_snake_case() {
    let mut seen = BTreeSet::new();
    for &code in ErrorCode::ALL {
        let text = code.as_str();
        assert_eq!(ErrorCode::parse(text), Some(code));
        assert_eq!(code.to_string(), text);
        assert!(
            text.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
            "{text} is not snake_case"
        );
        assert!(seen.insert(text), "{text} is listed twice");
    }
    assert_eq!(ErrorCode::parse("EDIT_NO_CHANGE"), None);
    assert_eq!(ErrorCode::parse("peer_specific_failure"), None);
}

#[test]
fn the_codes_the_design_names_are_listed() {
    for text in [
        "edit_no_occurrence_found",
        "edit_expected_occurrence_mismatch",
        "edit_no_change",
        "attempt_to_create_existing_file",
        "file_not_found",
        "edit_requires_prior_read",
        "file_changed_since_read",
        "target_is_directory",
        "invalid_tool_params",
        "tool_not_registered",
        "path_not_in_workspace",
        "shell_execute_error",
        "prior_read_verification_failed",
        "target_not_regular_file",
    ] {
        assert!(ErrorCode::parse(text).is_some(), "{text} is missing");
    }
}

#[test]
fn a_peer_specific_code_is_refused_by_name_but_summarised() {
    let mut value = serde_json::to_value(Outcome::error(ErrorCode::Unknown, "boom")).unwrap();
    value["_meta"]["toolpass"]["error"]["code"] = json!("opencode_patch_rejected");
    // A typed reader refuses it, naming the code and the allowed ones ...
    let refused = serde_json::from_value::<Outcome>(value.clone()).unwrap_err();
    let words = refused.to_string();
    assert!(
        words.starts_with("\"opencode_patch_rejected\" is not a canonical error code"),
        "{words}"
    );
    for code in ErrorCode::ALL {
        assert!(words.contains(code.as_str()), "{words} omits {code}");
    }
    // ... while the runner's summary keeps it, so a judge can report it
    // instead of dropping the whole reply.
    let summary = OutcomeSummary::from_value(&value).unwrap();
    assert_eq!(
        summary.error_code.as_deref(),
        Some("opencode_patch_rejected")
    );
}

#[test]
fn every_code_has_a_one_line_description() {
    for &code in ErrorCode::ALL {
        let description = code.description();
        assert!(
            description.len() > 10 && description.ends_with('.') && !description.contains('\n'),
            "{code}: {description:?}"
        );
    }
    assert_eq!(
        ErrorCode::EditRequiresPriorRead.description(),
        "The file was not read as text in this session before a mutation (or cannot be \
         mutated as text at all)."
    );
}

#[test]
fn features_round_trip() {
    for feature in Feature::KNOWN {
        let text = feature.to_string();
        assert_eq!(&Feature::parse(&text), feature);
        assert!(feature.is_known());
        let json = serde_json::to_value(feature).unwrap();
        assert_eq!(json, json!(text));
        assert_eq!(&serde_json::from_value::<Feature>(json).unwrap(), feature);
    }
    assert_eq!(
        Feature::KNOWN.len(),
        16 + FaultPoint::KNOWN.len(),
        "one fault feature per point"
    );
}

#[test]
fn unknown_features_are_kept() {
    for text in ["teleport", "fault:", "FAULT:fs.stat", ""] {
        let feature = Feature::parse(text);
        assert_eq!(feature, Feature::Unknown(text.into()));
        assert_eq!(feature.to_string(), text);
    }
    let feature = Feature::parse("fault:disk.full");
    assert_eq!(
        feature,
        Feature::Fault(FaultPoint::Unknown("disk.full".into()))
    );
    assert!(!feature.is_known());
    assert_eq!(feature.to_string(), "fault:disk.full");
}

#[test]
fn an_unknown_fault_point_reaches_the_server() {
    // So that the server can answer -32601 (unsupported) instead of -32602.
    let params: FaultParams =
        serde_json::from_value(json!({"sessionId": "s1", "point": "gpu.melt"})).unwrap();
    assert_eq!(params.point, FaultPoint::Unknown("gpu.melt".into()));
    assert_eq!(params.times, 1);
    for point in FaultPoint::KNOWN {
        assert_eq!(&FaultPoint::parse(point.as_str()), point);
    }
}

#[test]
fn tool_kinds_round_trip() {
    for kind in ToolKind::KNOWN {
        assert_eq!(&ToolKind::parse(kind.as_str()), kind);
    }
    // Qwen's own "other" is a known kind; an unheard-of kind is kept.
    assert_eq!(ToolKind::parse("other"), ToolKind::Other);
    let kind: ToolKind = serde_json::from_value(json!("communicate")).unwrap();
    assert_eq!(kind, ToolKind::Unknown("communicate".into()));
    assert_eq!(serde_json::to_value(&kind).unwrap(), json!("communicate"));
}

#[test]
fn versions_parse_only_toolpass_majors() {
    assert_eq!(
        ProtocolVersion::parse(PROTOCOL_VERSION),
        Some(ProtocolVersion::CURRENT)
    );
    assert_eq!(
        ProtocolVersion::parse("toolpass/12").map(|v| v.major()),
        Some(12)
    );
    assert_eq!(
        ProtocolVersion::parse("toolpass/0").map(|v| v.major()),
        Some(0)
    );
    for text in [
        "toolpass/",
        "toolpass/01",
        "toolpass/+1",
        "toolpass/1.0",
        "toolpass/ 1",
        "Toolpass/1",
        "2025-06-18",
        "toolpass/99999999999",
    ] {
        assert_eq!(ProtocolVersion::parse(text), None, "{text}");
    }
    assert_eq!(ProtocolVersion::CURRENT.to_string(), "toolpass/1");
}

#[test]
fn another_major_version_is_refused_clearly() {
    assert!(ProtocolVersion::check("toolpass/1").is_ok());
    let newer = ProtocolVersion::check("toolpass/2").unwrap_err();
    assert_eq!(newer.kind(), ErrorKind::UnsupportedVersion);
    assert_eq!(
        newer.to_string(),
        "the peer speaks toolpass/2, but this side speaks toolpass/1: major versions \
         differ, so the wire shapes may too (upgrade this side, or use a build of the \
         peer that speaks toolpass/1)"
    );
    let older = ProtocolVersion::check("toolpass/0").unwrap_err();
    assert!(older.to_string().contains("upgrade the peer"), "{older}");
    let mcp = ProtocolVersion::check("2025-06-18").unwrap_err();
    assert_eq!(
        mcp.to_string(),
        "the peer speaks \"2025-06-18\", not toolpass: this side speaks toolpass/1"
    );
}

fn answer(protocol_version: &str, toolpass: Option<ToolpassCapability>) -> InitializeResult {
    let mut result = InitializeResult::new(Implementation::new("peer", "1.0"), Vec::new());
    result.protocol_version = protocol_version.into();
    result.capabilities.toolpass = toolpass;
    result
}

#[test]
fn the_initialize_answer_decides_the_dialect() {
    let v1 = ToolpassCapability::new(vec![Feature::Sessions]);
    // The capability is authoritative: an MCP SDK may answer its own version.
    let sdk = answer("2025-06-18", Some(v1.clone()));
    assert_eq!(sdk.dialect().unwrap(), Dialect::Toolpass(&v1));
    let native = answer("toolpass/1", Some(v1.clone()));
    assert!(matches!(native.dialect().unwrap(), Dialect::Toolpass(_)));
    let plain = answer("2025-06-18", None);
    assert_eq!(plain.dialect().unwrap(), Dialect::PlainMcp("2025-06-18"));

    let mut v2 = v1.clone();
    v2.version = 2;
    for refused in [
        answer("toolpass/1", Some(v2.clone())),
        answer("2025-06-18", Some(v2)),
        answer("toolpass/2", Some(v1)),
        answer("toolpass/2", None),
    ] {
        let error = refused.dialect().unwrap_err();
        assert_eq!(error.kind(), ErrorKind::UnsupportedVersion);
        assert!(error.to_string().contains("toolpass/2"), "{error}");
    }
}

#[test]
fn a_plain_mcp_initialize_answer_reads() {
    // What an MCP SDK server answers: other capabilities, no toolpass, a
    // website under MCP's name.
    let result: InitializeResult = serde_json::from_value(json!({
        "protocolVersion": "2025-11-25",
        "serverInfo": {"name": "fs", "version": "2.0.0", "websiteUrl": "https://example.com", "title": "FS"},
        "capabilities": {"tools": {"listChanged": true}, "resources": {"subscribe": true}, "logging": {}},
        "instructions": "Use the fs tools."
    }))
    .unwrap();
    assert_eq!(result.dialect().unwrap(), Dialect::PlainMcp("2025-11-25"));
    assert_eq!(
        result.server_info.website_url.as_deref(),
        Some("https://example.com")
    );
    assert_eq!(result.capabilities.tools.unwrap().list_changed, Some(true));
}

#[test]
fn the_design_drafts_homepage_is_read_as_website_url() {
    let info: Implementation = serde_json::from_value(
        json!({"name": "toolpass-reference", "version": "0.1.0", "homepage": "https://example.com"}),
    )
    .unwrap();
    assert_eq!(info.website_url.as_deref(), Some("https://example.com"));
    assert_eq!(
        serde_json::to_value(&info).unwrap()["websiteUrl"],
        "https://example.com"
    );
}
