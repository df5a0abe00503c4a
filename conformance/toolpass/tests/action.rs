//! The GitHub Action (`action.yml`) cannot run here; its one script can,
//! and `.ci/run` runs it (`scripts/ci-action-check`). What is left is the
//! wiring, checked here: every input the action declares reaches the
//! script, every input the script reads is declared, every output is one
//! the script writes, and the workflows that README, IMPLEMENTING.md and
//! `examples/ci/` give to copy pass only inputs that exist.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn yaml(text: &str, what: &str) -> Value {
    serde_saphyr::from_str(text).unwrap_or_else(|e| panic!("{what} is not YAML: {e}"))
}

fn action() -> Value {
    let text = std::fs::read_to_string(root().join("action.yml")).unwrap();
    yaml(&text, "action.yml")
}

fn script() -> String {
    std::fs::read_to_string(root().join("scripts/ci-action")).unwrap()
}

fn keys(map: &Value) -> BTreeSet<String> {
    map.as_object().expect("a map").keys().cloned().collect()
}

/// `expected-failures` → `INPUT_EXPECTED_FAILURES`.
fn variable(input: &str) -> String {
    format!("INPUT_{}", input.to_uppercase().replace('-', "_"))
}

/// The shell variable names in `text` that start with `prefix` and go on
/// (`INPUT_*` in a comment is no variable).
fn words_starting(text: &str, prefix: &str) -> BTreeSet<String> {
    text.match_indices(prefix)
        .map(|(at, _)| {
            text[at..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect::<String>()
        })
        .filter(|word| word.len() > prefix.len())
        .collect()
}

#[test]
fn every_input_reaches_the_script_and_the_script_reads_only_inputs() {
    let action = action();
    let inputs = keys(&action["inputs"]);
    assert!(inputs.contains("implementation"), "{inputs:?}");
    for input in &inputs {
        let description = action["inputs"][input]["description"].as_str();
        assert!(
            description.is_some_and(|d| !d.is_empty()),
            "input {input} has no description"
        );
    }
    assert_eq!(action["runs"]["using"], "composite");
    let steps = action["runs"]["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 1, "one step: the script");
    let step = &steps[0];
    assert_eq!(step["run"], "\"$GITHUB_ACTION_PATH/scripts/ci-action\"");
    let env = &step["env"];
    for input in &inputs {
        assert_eq!(
            env[variable(input)].as_str(),
            Some(format!("${{{{ inputs.{input} }}}}").as_str()),
            "input {input} is not passed to the script as {}",
            variable(input)
        );
    }
    let passed: BTreeSet<String> = keys(env)
        .into_iter()
        .filter(|k| k.starts_with("INPUT_"))
        .collect();
    let declared: BTreeSet<String> = inputs.iter().map(|i| variable(i)).collect();
    assert_eq!(passed, declared, "the step passes an input not declared");
    let read = words_starting(&script(), "INPUT_");
    assert_eq!(
        read, declared,
        "scripts/ci-action reads inputs action.yml does not declare, or ignores declared ones"
    );
}

#[test]
fn every_output_is_written_by_the_script() {
    let action = action();
    let script = script();
    let written: BTreeSet<String> = script
        .lines()
        .filter_map(|line| line.trim().strip_prefix("output "))
        .filter_map(|rest| rest.split_whitespace().next())
        .map(str::to_owned)
        .collect();
    let outputs = keys(&action["outputs"]);
    assert_eq!(written, outputs);
    for output in &outputs {
        assert_eq!(
            action["outputs"][output]["value"].as_str(),
            Some(format!("${{{{ steps.toolpass.outputs.{output} }}}}").as_str()),
        );
    }
}

#[test]
fn the_script_is_executable() {
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(root().join("scripts/ci-action"))
        .unwrap()
        .permissions()
        .mode();
    assert_ne!(mode & 0o111, 0, "scripts/ci-action must be executable");
}

/// The `with:` of every step that uses the action.
fn uses_of_the_action(workflow: &Value) -> Vec<Value> {
    let mut found = Vec::new();
    for job in workflow["jobs"].as_object().expect("jobs").values() {
        for step in job["steps"].as_array().expect("steps") {
            if step["uses"]
                .as_str()
                .is_some_and(|uses| uses.starts_with("toolpass/toolpass@"))
            {
                found.push(step["with"].clone());
            }
        }
    }
    found
}

#[test]
fn the_workflows_to_copy_pass_only_declared_inputs() {
    let inputs = keys(&action()["inputs"]);
    let example = std::fs::read_to_string(root().join("examples/ci/toolpass.yml")).unwrap();
    let mut workflows = vec![("examples/ci/toolpass.yml".to_owned(), example)];
    // The guides' workflows: their ```yaml blocks that are jobs.
    for guide in ["README.md", "IMPLEMENTING.md"] {
        let text = std::fs::read_to_string(root().join(guide)).unwrap();
        for (n, block) in text.split("```yaml\n").skip(1).enumerate() {
            let block = block.split("```").next().unwrap();
            if block.contains("\njobs:") {
                workflows.push((format!("{guide}'s yaml block {}", n + 1), block.to_owned()));
            }
        }
    }
    assert_eq!(
        workflows.len(),
        3,
        "the example, README's and IMPLEMENTING.md's"
    );
    for (name, text) in &workflows {
        let workflow = yaml(text, name);
        let uses = uses_of_the_action(&workflow);
        assert!(!uses.is_empty(), "{name} does not use the action");
        for with in uses {
            for key in keys(&with) {
                assert!(
                    inputs.contains(&key),
                    "{name} passes `{key}`, no input of action.yml"
                );
            }
        }
    }
}
