//! `toolpass run` and `toolpass record` as a user runs them, against the
//! reference server (the dev build, handed over with
//! `TOOLPASS_REFERENCE_SERVER` so no test waits for a release build):
//! exit codes, the report, expected failures end to end, `--impl NAME`.

mod common;

use assert_cmd::cargo::cargo_bin_cmd;
use predicates::prelude::*;
use predicates::str::contains;

use common::{server, stdout, toolpass, write};

const PASSES: &str = r#"title: An edit after a full read replaces the bytes
spec: edit.match.exact
files:
  a.txt: "one\ntwo\n"
steps:
  - call: read_file
    args: {file_path: "{root}/a.txt"}
  - call: edit
    args: {file_path: "{root}/a.txt", old_string: two, new_string: "2"}
    expect: {status: success}
  - expect_files: {a.txt: "one\n2\n"}
"#;

/// Wrong on purpose: expects the edit to fail.
const FAILS: &str = r#"title: A wrong expectation
spec: edit.match.exact
files:
  a.txt: "one\n"
steps:
  - call: read_file
    args: {file_path: "{root}/a.txt"}
  - call: edit
    args: {file_path: "{root}/a.txt", old_string: one, new_string: "1"}
    expect: {status: error}
"#;

fn suite(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), files);
    dir
}

#[test]
fn a_passing_suite_exits_0_and_a_required_failure_exits_1_naming_file_and_line() {
    let dir = suite(&[("s/ok.yaml", PASSES)]);
    // serverInfo.description, the configuration the results depend on.
    let description =
        "\ntoolpass: Qwen Code's tool layer in Rust; grep_search follows Qwen's GrepTool";
    toolpass(dir.path(), &["run", "--scenarios", "s"])
        .success()
        .stdout(contains("required 1/1").and(contains("1 scenario: 1 pass in ")))
        .stderr(contains("running against toolpass-reference").and(contains(description)));

    let dir = suite(&[("s/ok.yaml", PASSES), ("s/bad.yaml", FAILS)]);
    toolpass(dir.path(), &["run", "--scenarios", "s"])
        .code(1)
        .stdout(
            contains("FAIL bad (required) s/bad.yaml")
                .and(contains(
                    "step 2 `call edit` at s/bad.yaml:8 (fail, required)",
                ))
                .and(contains("status: expected status error, got success"))
                .and(contains("FAILED:\n  bad: fail at required level")),
        );
}

#[test]
fn expected_failures_fix_then_pass_then_catch_the_stale_entry() {
    let dir = suite(&[("s/ok.yaml", PASSES), ("s/bad.yaml", FAILS)]);
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            "--scenarios",
            "s",
            "--expected-failures",
            "xfail.yaml",
        ];
        args.extend_from_slice(extra);
        toolpass(dir.path(), &args)
    };
    run(&["--fix", "--filter", "bad"])
        .code(2)
        .stderr(contains("--fix rewrites the whole expected-failures file"));

    run(&["--fix"])
        .success()
        .stdout(contains("1 pass, 1 xfail"));
    let written = std::fs::read_to_string(dir.path().join("xfail.yaml")).unwrap();
    assert!(
        written
            .contains("- id: \"bad#2\"\n  message: \"status: expected status error, got success"),
        "{written}"
    );

    run(&[]).success();

    // The implementation "gets fixed": the entry goes stale.
    std::fs::write(dir.path().join("s/bad.yaml"), PASSES).unwrap();
    run(&[]).code(1).stdout(contains(
        "bad: xpass: listed as an expected failure, but it passed",
    ));
}

#[test]
fn impl_name_runs_an_adapter_and_an_unknown_name_lists_the_adapters() {
    let dir = suite(&[("s/ok.yaml", PASSES)]);
    let adapter = dir.path().join("adapters/reference-again");
    std::fs::create_dir_all(&adapter).unwrap();
    let run = adapter.join("run");
    std::fs::write(&run, format!("#!/bin/sh\nexec '{}' \"$@\"\n", server())).unwrap();
    std::fs::set_permissions(&run, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    // Not `common::toolpass`: no reference server is handed over, the
    // adapter is the only way to it.
    let with_adapters = |args: &[&str]| {
        cargo_bin_cmd!("toolpass")
            .args(args)
            .current_dir(dir.path())
            .env("TOOLPASS_ADAPTERS", dir.path().join("adapters"))
            .assert()
    };
    with_adapters(&["run", "--scenarios", "s", "--impl", "reference-again"])
        .success()
        .stderr(contains("adapters/reference-again/run"));
    // The first word names the adapter; the rest are its arguments, here
    // the reference's plain-MCP mode on the scenario's own root.
    with_adapters(&[
        "run",
        "--scenarios",
        "s",
        "--impl",
        "reference-again --mcp --root {root}",
    ])
    .success()
    .stdout(contains("1 scenario: 1 pass"));
    with_adapters(&["run", "--scenarios", "s", "--impl", "no-such-peer"])
        .code(2)
        .stderr(
            contains("no adapter `no-such-peer` under")
                .and(contains("(adapters: reference-again)")),
        );
}

#[test]
fn record_writes_expectations_that_the_next_run_passes() {
    let unexpected = PASSES
        .replace("    expect: {status: success}\n", "")
        .replace("  - expect_files: {a.txt: \"one\\n2\\n\"}\n", "");
    let dir = suite(&[("s/rec.yaml", &unexpected)]);
    toolpass(dir.path(), &["record", "s/rec.yaml"])
        .success()
        .stdout(contains(
            "2 expectations recorded, and the final sandbox as an expect_files step; \
             the scenario's verdict: pass\n",
        ));
    let recorded = std::fs::read_to_string(dir.path().join("s/rec.yaml")).unwrap();
    assert!(
        recorded.contains(
            "    expect:  # recorded: review against the specification\n      status: success\n"
        ),
        "{recorded}"
    );
    assert!(
        recorded.contains("      \"a.txt\": \"one\\n2\\n\"\n    exact: true\n"),
        "{recorded}"
    );
    toolpass(dir.path(), &["run", "--scenarios", "s"]).success();
}

#[test]
fn a_run_that_selects_nothing_is_an_error_not_a_pass() {
    let dir = suite(&[("s/ok.yaml", PASSES)]);
    toolpass(
        dir.path(),
        &["run", "--scenarios", "s", "--filter", "nope/**"],
    )
    .code(2)
    .stderr(contains("nothing to run: no scenario matches"));
}

#[test]
fn keep_leaves_each_sandbox_and_prints_where() {
    let dir = suite(&[("s/ok.yaml", PASSES)]);
    let out = stdout(&toolpass(dir.path(), &["run", "--scenarios", "s", "--keep"]).success());
    let line = out
        .lines()
        .find(|l| l.starts_with("  ok  "))
        .unwrap_or_else(|| panic!("no kept sandbox line: {out}"));
    let kept = std::path::PathBuf::from(line.trim_start_matches("  ok  "));
    assert_eq!(
        std::fs::read_to_string(kept.join("a.txt")).unwrap(),
        "one\n2\n"
    );
    // The root's parent is the scenario's private directory, with
    // `outside/` beside the root: the whole of it is the kept sandbox.
    let private = kept.parent().unwrap();
    assert!(private.join("outside").is_dir(), "{}", private.display());
    std::fs::remove_dir_all(private).unwrap();
}

#[test]
fn a_plain_mcp_server_runs_the_call_only_scenarios_and_skips_the_rest() {
    // The reference in its pure-MCP mode: no toolpass capability, started
    // once per scenario on the scenario's root.
    let dir = tempfile::tempdir().unwrap();
    let plain = format!("'{}' --mcp --root {{root}}", server());
    let out = stdout(
        &toolpass(
            dir.path(),
            &["run", "--impl", &plain, "--jobs", "2", "--jsonl", "r.jsonl"],
        )
        .success(),
    );
    let summary = out
        .lines()
        .rev()
        .find(|l| l.contains("scenarios:"))
        .unwrap();
    // "230 scenarios: 157 pass, 2 fail, 71 skip in 1.68 s"
    let words: Vec<&str> = summary.split_whitespace().collect();
    let count = |verdict: &str| -> usize {
        words
            .windows(2)
            .find(|w| w[1].trim_end_matches(',') == verdict)
            .map_or(0, |w| w[0].parse().unwrap())
    };
    assert!(count("pass") > 100, "{summary}");
    assert!(count("skip") > 0, "{summary}");
    let report = std::fs::read_to_string(dir.path().join("r.jsonl")).unwrap();
    assert!(
        report
            .contains("the implementation is a plain MCP server (tools/list and tools/call only)"),
        "no skip names the plain MCP server"
    );
}

#[test]
fn a_scenario_calling_a_tool_the_implementation_does_not_declare_is_skipped() {
    let undeclared = "title: t\nspec: mcp.unknown-tool\nsteps:\n  - call: read_file\n    args: {file_path: \"{root}/a\"}\n  - call: toolpass_never_declared\n    args: {}\n";
    // Saying the tool must not be declared makes calling it the point.
    let deliberate = "title: t\nspec: mcp.unknown-tool\nsteps:\n  - expect_tools: {excludes: [toolpass_never_declared]}\n  - call: toolpass_never_declared\n    args: {}\n    expect: {status: error}\n";
    let dir = suite(&[("s/skipped.yaml", undeclared), ("s/runs.yaml", deliberate)]);
    toolpass(
        dir.path(),
        &["run", "--scenarios", "s", "--jsonl", "r.jsonl"],
    )
    .success()
    .stdout(contains("2 scenarios: 1 pass, 1 skip"));
    let report = std::fs::read_to_string(dir.path().join("r.jsonl")).unwrap();
    assert!(
        report.contains(
            "calls toolpass_never_declared, which the implementation does not declare (tools/list)"
        ),
        "{report}"
    );
}
