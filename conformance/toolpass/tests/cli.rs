//! The `toolpass` binary as a user runs it: subcommands, their output on
//! stdout and stderr, and exit codes, on scenario files in temp dirs.

use std::path::Path;
use std::process::{Command, Output};

/// Runs the built binary with `args` in `cwd`.
fn toolpass(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolpass"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("the toolpass binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("stderr is UTF-8")
}

#[test]
fn schema_scenario_prints_the_scenario_schema_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let output = toolpass(dir.path(), &["schema", "scenario"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let schema: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(schema["title"], "toolpass scenario");
}

#[test]
fn schema_protocol_lists_the_files_and_prints_each_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let output = toolpass(dir.path(), &["schema", "protocol"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let names = stdout(&output);
    assert!(names.lines().any(|l| l == "outcome.json"), "{names}");
    for name in names.lines() {
        let output = toolpass(dir.path(), &["schema", "protocol", name]);
        assert!(output.status.success(), "{name}: {}", stderr(&output));
        let _: serde_json::Value = serde_json::from_str(&stdout(&output))
            .unwrap_or_else(|e| panic!("{name} is not JSON: {e}"));
    }
}

#[test]
fn schema_protocol_with_an_unknown_name_says_which_exist() {
    let dir = tempfile::tempdir().unwrap();
    let output = toolpass(dir.path(), &["schema", "protocol", "nope"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("outcome.json"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn run_refuses_until_the_runner_exists() {
    let dir = tempfile::tempdir().unwrap();
    let output = toolpass(dir.path(), &["run"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("not implemented yet: the runner lands with issue 5"),
        "{}",
        stderr(&output)
    );
    assert!(output.stdout.is_empty());
}
