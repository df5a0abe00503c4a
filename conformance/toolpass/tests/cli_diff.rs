//! `toolpass diff` as a user runs it: two `--jsonl` reports written to a
//! temp dir, the text and JSON it prints, its exit codes, and the
//! `file:line:` error a broken report gets.

mod common;

use std::path::Path;

use assert_cmd::assert::Assert;
use predicates::prelude::*;
use predicates::str::{contains, ends_with, starts_with};
use serde_json::{Value, json};

use common::{stdout, toolpass};

/// One scenario result: its id, its verdict, and its steps' verdicts with
/// the first failure's message, if any.
type Result<'a> = (&'a str, &'a str, &'a [(&'a str, Option<&'a str>)]);

/// A report as `toolpass run --jsonl` writes it.
fn report(results: &[Result<'_>]) -> String {
    let mut lines = vec![json!({
        "type": "header", "toolpass": "0.1.0", "protocol": "toolpass/1",
        "implementation": {"name": "toolpass-reference", "version": "0.1.0", "command": "srv"},
        "started": "2026-12-02T17:51:50Z", "config": {},
    })];
    for (id, verdict, steps) in results {
        for (i, (step, message)) in steps.iter().enumerate() {
            let failures: Vec<Value> = message
                .iter()
                .map(|m| json!({"what": "llm", "message": m}))
                .collect();
            lines.push(json!({
                "type": "step", "scenario": id, "repetition": 1, "index": i + 1, "line": 5,
                "label": "call edit", "level": "required", "verdict": step,
                "failures": failures, "duration_ms": 2.5,
            }));
        }
        lines.push(json!({
            "type": "scenario", "id": id, "title": "t", "spec": "edit", "level": "required",
            "tags": [], "verdict": verdict, "repetition": 1, "duration_ms": 9.0,
        }));
    }
    lines.push(json!({
        "type": "footer", "passed": true, "scenarios": results.len(), "verdicts": {},
        "levels": {}, "pending": 0, "problems": [], "duration_ms": 20.0,
    }));
    lines.iter().map(|line| format!("{line}\n")).collect()
}

const BEFORE: &[Result<'_>] = &[
    ("edit/a", "pass", &[("pass", None)]),
    (
        "edit/b",
        "fail",
        &[("fail", Some("does not contain \"x\""))],
    ),
];

/// Writes `before` and `after` and runs `toolpass diff` on them with
/// `flags`, to its end.
fn diff(dir: &Path, before: &str, after: &str, flags: &[&str]) -> Assert {
    std::fs::write(dir.join("before.jsonl"), before).unwrap();
    std::fs::write(dir.join("after.jsonl"), after).unwrap();
    let mut args = vec!["diff", "before.jsonl", "after.jsonl"];
    args.extend_from_slice(flags);
    toolpass(dir, &args)
}

#[test]
fn the_same_run_twice_exits_0_with_no_changes() {
    let dir = tempfile::tempdir().unwrap();
    diff(dir.path(), &report(BEFORE), &report(BEFORE), &[])
        .success()
        .stdout(
            ends_with("\nno regression: no changes; 2 scenario results compared\n").and(
                starts_with(
                    "before before.jsonl: toolpass-reference 0.1.0, runner 0.1.0 (toolpass/1)",
                ),
            ),
        );
}

#[test]
fn a_newly_failing_scenario_exits_1_and_is_listed_first() {
    let dir = tempfile::tempdir().unwrap();
    let after: &[Result<'_>] = &[
        ("edit/a", "fail", &[("fail", Some("empty"))]),
        ("edit/b", "pass", &[("pass", None)]),
        ("edit/c", "pass", &[]),
    ];
    let run = diff(dir.path(), &report(BEFORE), &report(after), &[])
        .code(1)
        // No colours off a terminal.
        .stdout(contains("\x1b").not());
    let text = stdout(&run);
    let body = text.split_once("\n\n").unwrap().1;
    assert_eq!(
        body,
        "\
newly failing (1)
  edit/a: pass → fail
    #1 `call edit`: pass → fail
      + llm: empty

newly passing (1)
  edit/b: fail → pass
    #1 `call edit`: fail → pass
      - llm: does not contain \"x\"

added (1)
  edit/c (pass)

regression: 1 newly failing, 1 newly passing, 1 added; 2 scenario results compared
"
    );
}

#[test]
fn json_is_one_object_with_the_changes_and_the_same_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let after: &[Result<'_>] = &[("edit/a", "skip", &[])];
    // pass → skip is no regression.
    let run = diff(dir.path(), &report(BEFORE), &report(after), &["--json"]).success();
    let diff: Value = serde_json::from_str(&stdout(&run)).unwrap();
    assert_eq!(diff["regression"], false);
    assert_eq!(diff["compared"], 1);
    assert_eq!(diff["counts"]["verdict_changed"], 1);
    assert_eq!(diff["counts"]["removed"], 1);
    let kinds: Vec<&str> = diff["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["verdict_changed", "removed"]);
    assert_eq!(diff["changes"][1]["scenario"], "edit/b");
    assert_eq!(
        diff["changes"][1]["before"]["message"],
        "llm: does not contain \"x\""
    );
    assert_eq!(diff["after"]["file"], "after.jsonl");
}

#[test]
fn a_broken_report_exits_2_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let good = report(BEFORE);
    let unknown = good.replacen(r#""type":"step""#, r#""type":"summary""#, 1);
    diff(dir.path(), &good, &unknown, &[])
        .code(2)
        .stderr(contains("after.jsonl:2: unknown line type `summary`"));
    let cut = &good[..good.len() - 10];
    diff(dir.path(), cut, &good, &[])
        .code(2)
        .stderr(contains("before.jsonl:6: the last line is cut short"));
    diff(dir.path(), &good, &good, &["--time-ratio", "0.5"])
        .code(2)
        .stderr(contains("--time-ratio must be"));
}
