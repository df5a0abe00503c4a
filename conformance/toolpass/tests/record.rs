//! `toolpass record`'s text edits: expectations land inside the right
//! step with the step's indentation, comments and layout survive, flow
//! steps and batches are left alone with a note, and the result loads.

use std::time::Duration;

use toolpass::record::record;
use toolpass::run::{Observed, SandboxFile, ScenarioResult, Verdict};
use toolpass_protocol::{OutcomeSummary, Status};
use toolpass_scenario::{Level, StepKind, parse_str};

const SCENARIO: &str = r#"title: t
spec: s
steps:
  # a comment that stays
  - call: read_file
    args:
      file_path: "{root}/a.txt"

      # the blank line above stays inside the step
  - call: edit
    args: {file_path: "{root}/a.txt", old_string: a, new_string: b}
    expect: {status: success}
  - {call: glob, args: {pattern: "*"}}
  - call: edit
    args: {file_path: "{root}/a.txt", old_string: zz, new_string: b}
"#;

fn observed(step: usize, status: Status, code: Option<&str>, llm: &str) -> Observed {
    Observed {
        step,
        batch_call: None,
        summary: OutcomeSummary {
            status,
            llm_content: llm.into(),
            error_code: code.map(str::to_owned),
            error_message: None,
            is_error: status == Status::Error,
            toolpass: true,
        },
        timing: None,
    }
}

fn result() -> ScenarioResult {
    ScenarioResult {
        id: "r".into(),
        path: None,
        title: "t".into(),
        spec: "s".into(),
        level: Level::Required,
        tags: vec![],
        verdict: Verdict::Pass,
        reason: None,
        steps: vec![],
        repetition: 1,
        duration: Duration::ZERO,
        blessed: 0,
        observed: vec![
            observed(1, Status::Success, None, "a\n"),
            observed(2, Status::Success, None, "updated"),
            observed(3, Status::Success, None, "a.txt"),
            observed(
                4,
                Status::Error,
                Some("edit_no_occurrence_found"),
                "Failed to edit\nmore",
            ),
        ],
        sandbox_after: Some(vec![
            ("a.txt".into(), SandboxFile::Text("b {{x}}\n".into())),
            ("bin".into(), SandboxFile::Bytes(vec![0xff, 0])),
            ("link".into(), SandboxFile::Symlink("{root}/a.txt".into())),
        ]),
        kept_sandbox: None,
    }
}

#[test]
fn expectations_go_inside_their_steps_and_the_file_still_loads() {
    let scenario = parse_str(SCENARIO, "r").unwrap();
    let recorded = record(SCENARIO, &scenario, &result());
    insta::assert_snapshot!(recorded.text);
    assert_eq!(recorded.expectations, 2);
    assert!(recorded.files_step);
    assert_eq!(recorded.notes.len(), 1);
    assert!(
        recorded.notes[0].starts_with("step 3: written in flow style"),
        "{:?}",
        recorded.notes
    );

    let again = parse_str(&recorded.text, "r").unwrap();
    let StepKind::Call(first) = &again.steps[0].kind else {
        panic!()
    };
    assert_eq!(first.expect.as_ref().unwrap().status, Some(Status::Success));
    let StepKind::Call(last) = &again.steps[3].kind else {
        panic!()
    };
    let expect = last.expect.as_ref().unwrap();
    assert_eq!(
        expect.error.as_ref().unwrap().value,
        "edit_no_occurrence_found"
    );
    let StepKind::ExpectFiles(files) = &again.steps[4].kind else {
        panic!()
    };
    assert!(files.exact);
    assert_eq!(files.files.len(), 3);
}

#[test]
fn a_second_record_changes_nothing() {
    let scenario = parse_str(SCENARIO, "r").unwrap();
    let once = record(SCENARIO, &scenario, &result()).text;
    let scenario = parse_str(&once, "r").unwrap();
    let twice = record(&once, &scenario, &result());
    assert_eq!(twice.text, once);
    assert_eq!(twice.expectations, 0);
}

#[test]
fn an_async_call_is_left_with_a_note_naming_where_it_is_judged() {
    let text = "title: t\nspec: s\nsteps:\n  - call: read_file\n    id: slow\n    async: true\n  - join: slow\n";
    let scenario = parse_str(text, "r").unwrap();
    let mut result = result();
    // Its Outcome arrives at the join, step 2.
    result.observed = vec![observed(2, Status::Success, None, "a\n")];
    result.sandbox_after = None;
    let recorded = record(text, &scenario, &result);
    assert_eq!(recorded.expectations, 0);
    assert_eq!(recorded.text, text);
    assert!(
        recorded.notes[0].starts_with("step 1: an async call is judged at its join or cancel step"),
        "{:?}",
        recorded.notes
    );
}
