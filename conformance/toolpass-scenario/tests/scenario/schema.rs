//! The committed `schema/scenario.json` matches the Rust types (`BLESS=1`
//! rewrites it), and it accepts what the loader accepts and refuses what
//! the types refuse.

use std::fs;
use std::path::PathBuf;

use serde_json::{Value, json};
use toolpass_scenario::{parse_str, scenario_schema, scenario_schema_value};

fn schema_file() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schema/scenario.json")
}

#[test]
fn the_committed_schema_matches_the_types() {
    let generated = scenario_schema();
    if std::env::var_os("BLESS").is_some_and(|v| !v.is_empty() && v != "0") {
        fs::create_dir_all(schema_file().parent().unwrap()).unwrap();
        fs::write(schema_file(), &generated).unwrap();
        return;
    }
    let committed = fs::read_to_string(schema_file()).unwrap_or_default();
    assert!(
        committed == generated,
        "schema/scenario.json has drifted from the Rust types: \
         run `BLESS=1 cargo test -p toolpass-scenario` to update"
    );
}

/// The validation errors of `instance` against the committed schema.
fn validate(instance: &Value) -> Vec<String> {
    let text = fs::read_to_string(schema_file()).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    validator
        .iter_errors(instance)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

#[test]
fn the_schema_accepts_a_loaded_scenario_written_back() {
    let scenario = parse_str(crate::design_example::EVERY_FORM, "every-form").unwrap();
    let instance = serde_json::to_value(&scenario).unwrap();
    let errors = validate(&instance);
    assert!(errors.is_empty(), "{errors:#?}\n{instance:#}");
}

#[test]
fn the_schema_accepts_the_design_example_as_written() {
    let yaml: Value = yaml_as_json(crate::design_example::DESIGN);
    let errors = validate(&yaml);
    assert!(errors.is_empty(), "{errors:#?}");
}

/// A YAML text as JSON, as an editor's YAML language server would see it.
fn yaml_as_json(text: &str) -> Value {
    let scenario = parse_str(text, "design").unwrap();
    serde_json::to_value(scenario).unwrap()
}

#[test]
fn the_schema_refuses_what_the_types_refuse() {
    let valid = json!({
        "title": "t", "spec": "s",
        "steps": [{"call": "read_file", "args": {"file_path": "{root}/a"}}],
    });
    assert!(validate(&valid).is_empty(), "{:?}", validate(&valid));
    let cases = [
        ("a missing spec", json!({"title": "t", "steps": []})),
        (
            "an unknown top-level key",
            json!({"title": "t", "spec": "s", "steps": [], "levl": "required"}),
        ),
        (
            "an unknown level",
            json!({"title": "t", "spec": "s", "steps": [], "level": "mandatory"}),
        ),
        (
            "a step with two kinds",
            json!({"title": "t", "spec": "s", "steps": [{"call": "x", "fs": {"delete": "a"}}]}),
        ),
        (
            "args on an fs step",
            json!({"title": "t", "spec": "s", "steps": [{"fs": {"delete": "a"}, "args": {}}]}),
        ),
        (
            "an unknown step kind",
            json!({"title": "t", "spec": "s", "steps": [{"run": "x"}]}),
        ),
        (
            "a matcher with no condition",
            json!({"title": "t", "spec": "s", "steps": [{"call": "x", "expect": {"llm": {}}}]}),
        ),
        (
            "a numeric mode",
            json!({"title": "t", "spec": "s", "files": {"a": {"text": "x", "mode": 493}},
                   "steps": [{"call": "x"}]}),
        ),
        (
            "an unknown fs action",
            json!({"title": "t", "spec": "s", "steps": [{"fs": {"remove": "a"}}]}),
        ),
        (
            "an unknown session config key",
            json!({"title": "t", "spec": "s", "config": {"threshold": 1}, "steps": [{"call": "x"}]}),
        ),
    ];
    for (what, instance) in cases {
        assert!(!validate(&instance).is_empty(), "the schema accepts {what}");
    }
}

#[test]
fn the_schema_is_draft_2020_12_with_a_title() {
    let schema = scenario_schema_value();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(schema["title"], "toolpass scenario");
}
