//! `any_of` end to end against the reference server: a step's `expect` and
//! an `expect_files` entry pass when one alternative holds, and a failure
//! shows every alternative's mismatch.

mod common;

use common::{parts, write};

/// A read of `a.txt`, an edit of it judged by `EXPECT`, then the file judged
/// by `A_TXT`.
const TEMPLATE: &str = r#"title: An edit lands exactly or is refused
spec: edit.apply.exact
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
    let (code, out, err) = parts(common::toolpass(dir.path(), &["run", "--scenarios", "s"]));
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("FAIL misses (required)"), "{out}");
    assert!(!out.contains("FAIL holds"), "{out}");
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
