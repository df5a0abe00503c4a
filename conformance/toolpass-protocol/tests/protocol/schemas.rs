//! The committed schemas under `schemas/` match the Rust types; `BLESS=1`
//! rewrites them.

use std::collections::BTreeSet;
use std::fs;
use std::path::PathBuf;

use toolpass_protocol::schemas;

const BLESS_HINT: &str = "run `BLESS=1 cargo test -p toolpass-protocol` to update";

fn schema_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schemas")
}

fn render(schema: &serde_json::Value) -> String {
    let mut text = serde_json::to_string_pretty(schema).unwrap();
    text.push('\n');
    text
}

fn committed_files() -> BTreeSet<String> {
    let Ok(entries) = fs::read_dir(schema_dir()) else {
        return BTreeSet::new();
    };
    entries
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".json"))
        .collect()
}

#[test]
fn committed_schemas_match_the_types() {
    let dir = schema_dir();
    let generated = schemas();
    let bless = std::env::var_os("BLESS").is_some_and(|v| !v.is_empty() && v != "0");
    let expected: BTreeSet<String> = generated.iter().map(|f| f.file_name.clone()).collect();
    if bless {
        fs::create_dir_all(&dir).unwrap();
        for stale in committed_files().difference(&expected) {
            fs::remove_file(dir.join(stale)).unwrap();
        }
        for file in &generated {
            fs::write(dir.join(&file.file_name), render(&file.schema)).unwrap();
        }
        return;
    }
    let mut problems = Vec::new();
    for file in &generated {
        match fs::read_to_string(dir.join(&file.file_name)) {
            Ok(text) if text == render(&file.schema) => {}
            Ok(_) => problems.push(format!("{} differs from the Rust types", file.file_name)),
            Err(_) => problems.push(format!("{} is missing", file.file_name)),
        }
    }
    for stale in committed_files().difference(&expected) {
        problems.push(format!("{stale} is committed but no type generates it"));
    }
    assert!(
        problems.is_empty(),
        "schemas/ has drifted from the Rust types:\n  {}\n{BLESS_HINT}",
        problems.join("\n  ")
    );
}

#[test]
fn every_method_has_its_schemas() {
    let names: BTreeSet<String> = schemas().into_iter().map(|f| f.file_name).collect();
    for method in [
        "initialize",
        "toolpass.session.open",
        "tools.list",
        "tools.call",
        "toolpass.batch",
        "toolpass.confirm",
        "toolpass.fault",
        "toolpass.session.close",
    ] {
        for part in ["params", "result"] {
            let name = format!("{method}.{part}.json");
            assert!(names.contains(&name), "no schema {name}");
        }
    }
    for notification in ["toolpass.notice", "notifications.message"] {
        assert!(names.contains(&format!("{notification}.params.json")));
    }
    assert!(names.contains("outcome.json"));
}

/// Validates `instance` against the generated schema `file_name`; the
/// validation errors, empty when valid.
fn validate(file_name: &str, instance: &serde_json::Value) -> Vec<String> {
    let file = schemas()
        .into_iter()
        .find(|f| f.file_name == file_name)
        .unwrap_or_else(|| panic!("no schema {file_name}"));
    let validator = jsonschema::validator_for(&file.schema).unwrap();
    validator
        .iter_errors(instance)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

#[test]
fn the_design_exchange_matches_the_schemas() {
    use serde_json::json;
    let cases = [
        (
            "initialize.params.json",
            json!({"protocolVersion":"toolpass/1","clientInfo":{"name":"toolpass","version":"0.1.0"},"capabilities":{}}),
        ),
        (
            "initialize.result.json",
            json!({"protocolVersion":"toolpass/1","serverInfo":{"name":"toolpass-reference","version":"0.1.0"},"capabilities":{"tools":{},"toolpass":{"version":1,"features":["sessions","prior_read","fault:fs.stat","fault:write.before_commit"]}}}),
        ),
        (
            "toolpass.session.open.params.json",
            json!({"root":"/sandbox/tp-1a2b","config":{}}),
        ),
        (
            "toolpass.session.open.result.json",
            json!({"sessionId":"s1"}),
        ),
        (
            "tools.call.params.json",
            json!({"name":"edit","arguments":{"file_path":"/sandbox/tp-1a2b/a.ts","old_string":"x","new_string":"y"},"_meta":{"toolpass":{"sessionId":"s1","callId":"c1"}}}),
        ),
        (
            "tools.call.result.json",
            json!({"content":[{"type":"text","text":"File /sandbox/tp-1a2b/a.ts has not been read ..."}],"isError":true,"_meta":{"toolpass":{"status":"error","llmContent":"File /sandbox/tp-1a2b/a.ts has not been read ...","error":{"code":"edit_requires_prior_read","message":"..."}}}}),
        ),
        ("toolpass.fault.result.json", json!({})),
    ];
    for (file_name, instance) in cases {
        let errors = validate(file_name, &instance);
        assert!(errors.is_empty(), "{file_name}: {errors:?}");
    }
}

#[test]
fn the_schemas_refuse_what_the_types_refuse() {
    use serde_json::json;
    let cases = [
        (
            "toolpass.session.open.params.json",
            json!({"root": "/s", "config": {"truncateThreshold": 1}}),
        ),
        (
            "tools.call.result.json",
            json!({"content": [], "isError": false}),
        ),
        (
            "tools.call.result.json",
            json!({"content": [], "_meta": {"toolpass": {"status": "done", "llmContent": ""}}}),
        ),
        ("toolpass.fault.params.json", json!({"point": "fs.stat"})),
        // The error code is an enum: a peer's own code is refused.
        (
            "tools.call.result.json",
            json!({"content": [], "isError": true, "_meta": {"toolpass": {"status": "error",
                "llmContent": "", "error": {"code": "patch_rejected", "message": ""}}}}),
        ),
    ];
    for (file_name, instance) in cases {
        assert!(
            !validate(file_name, &instance).is_empty(),
            "{file_name} accepts {instance}"
        );
    }
}
