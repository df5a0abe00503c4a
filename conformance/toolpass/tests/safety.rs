//! The safety profile's machinery end to end against the reference server:
//! `any_of` (a step's `expect` and an `expect_files` entry pass when one
//! alternative holds, and a failure shows every alternative's mismatch) and
//! `--profile safety` (only scenarios tagged `safety`, said in the header,
//! the summary and the JSONL header).

mod common;

use predicates::prelude::*;
use predicates::str::contains;

use common::{stdout, toolpass, write};

/// A read of `a.txt`, an edit of it judged by `EXPECT`, then the file judged
/// by `A_TXT`.
const TEMPLATE: &str = r#"title: An edit lands exactly or is refused
spec: edit.match.exact
files: {a.txt: "one\n"}
steps:
  - {call: read_file, args: {file_path: "{root}/a.txt"}}
  - call: edit
    args: {file_path: "{root}/a.txt", old_string: one, new_string: "1"}
    expect: EXPECT
  - expect_files:
      a.txt: A_TXT
"#;

fn scenario(expect: &str, a_txt: &str) -> String {
    TEMPLATE.replace("EXPECT", expect).replace("A_TXT", a_txt)
}

#[test]
fn one_alternative_holding_passes_and_none_holding_shows_each() {
    let holds = scenario(
        "{any_of: [{status: error}, {status: success}]}",
        r#"{any_of: ["one\n", "1\n"]}"#,
    );
    let misses = scenario(
        r#"{any_of: [{status: error, error: edit_no_occurrence_found}, {status: success, llm: {contains: "no such words"}}]}"#,
        r#"{any_of: ["one\n", {absent: true}]}"#,
    );
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[("s/holds.yaml", &holds), ("s/misses.yaml", &misses)],
    );
    let run = toolpass(dir.path(), &["run", "--scenarios", "s"])
        .code(1)
        .stdout(contains("FAIL misses (required)").and(contains("FAIL holds").not()));
    let out = stdout(&run);
    for line in [
        "expect: none of the 2 alternatives of `any_of` holds",
        "any_of[1] status: expected status error, got success",
        "any_of[2] llm: contains: does not contain \"no such words\"",
        "files[a.txt]: none of the 2 alternatives of `any_of` holds",
        "any_of[1] files[a.txt]: the bytes on disk differ",
        "any_of[2] files[a.txt]: it should be absent, but a file is there",
    ] {
        assert!(out.contains(line), "missing {line:?} in\n{out}");
    }
}

#[test]
fn the_safety_profile_runs_only_safety_scenarios_and_says_so() {
    let holds = scenario("{status: success}", r#""1\n""#);
    let safety = holds.replace("steps:", "tags: [edit, safety]\nsteps:");
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[("s/plain.yaml", &holds), ("s/guarded.yaml", &safety)],
    );
    let run = |args: &[&str]| toolpass(dir.path(), args);

    run(&[
        "run",
        "--scenarios",
        "s",
        "--profile",
        "safety",
        "--jsonl",
        "r.jsonl",
    ])
    .success()
    .stderr(contains("toolpass: profile safety: 1 scenario\n"))
    .stdout(contains("profile safety: required 1/1\n1 scenario: 1 pass"));
    let header = std::fs::read_to_string(dir.path().join("r.jsonl")).unwrap();
    let header = header.lines().next().unwrap();
    assert!(header.contains(r#""profile":"safety""#), "{header}");

    run(&["run", "--scenarios", "s"])
        .success()
        .stderr(contains("toolpass: profile full: 2 scenarios"))
        .stdout(contains("profile full: required 2/2"));

    let out = stdout(&run(&["list", "--scenarios", "s", "--profile", "safety"]).success());
    assert_eq!(
        out.lines()
            .map(|l| l.split("  ").next().unwrap())
            .collect::<Vec<_>>(),
        ["guarded"]
    );
}
