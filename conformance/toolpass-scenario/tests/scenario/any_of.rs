//! `any_of` in `expect_files` and in a step's `expect`: what it reads
//! into, and the forms it refuses, each at its place.

use toolpass_protocol::Status;
use toolpass_scenario::{Content, StepKind, parse_str};

fn check(steps: &str) -> Result<toolpass_scenario::Scenario, String> {
    parse_str(&format!("title: t\nspec: s\nsteps:\n{steps}"), "a").map_err(|e| e.to_string())
}

#[test]
fn a_file_expectation_reads_its_alternatives() {
    let scenario = check(
        "  - expect_files:\n      a.txt: {any_of: [\"one\\n\", {base64: AQI=}, {absent: true}, {matches: {contains: x}, mode: \"600\"}]}\n",
    )
    .unwrap();
    let StepKind::ExpectFiles(files) = &scenario.steps[0].kind else {
        panic!("an expect_files step")
    };
    let expectation = files.files.values().next().unwrap();
    assert_eq!(expectation.any_of.len(), 4);
    assert!(expectation.content.is_none() && !expectation.absent);
    assert!(matches!(&expectation.any_of[0].content, Some(Content::Text(t)) if t.value == "one\n"));
    assert!(matches!(&expectation.any_of[1].content, Some(Content::Bytes(b)) if b == &[1, 2]));
    assert!(expectation.any_of[2].absent);
    assert!(expectation.any_of[3].matches.is_some() && expectation.any_of[3].mode.is_some());
}

#[test]
fn a_step_expectation_reads_its_alternatives() {
    let scenario = check(
        "  - call: edit\n    expect: {any_of: [{status: success}, {status: error, error: edit_no_occurrence_found}]}\n",
    )
    .unwrap();
    let StepKind::Call(call) = &scenario.steps[0].kind else {
        panic!("a call")
    };
    let expect = call.expect.as_ref().unwrap();
    let statuses: Vec<Option<Status>> = expect.any_of.iter().map(|e| e.status).collect();
    assert_eq!(statuses, [Some(Status::Success), Some(Status::Error)]);
    assert!(expect.status.is_none());
}

#[test]
fn wrong_forms_are_refused_where_written() {
    let cases = [
        (
            "  - expect_files:\n      a.txt: {any_of: [x, y], mode: \"600\"}\n",
            "a.yaml:5:14: `any_of` goes alone: put the other keys inside each alternative",
        ),
        (
            "  - expect_files:\n      a.txt: {any_of: [x]}\n",
            "a.yaml:5:14: `any_of` needs two alternatives or more",
        ),
        (
            "  - expect_files:\n      a.txt: {any_of: [x, {any_of: [y, z]}]}\n",
            "a.yaml:5:14: an `any_of` alternative cannot be an `any_of`",
        ),
        (
            "  - expect_files:\n      a.txt: {any_of: [x, {absent: true, text: y}]}\n",
            "a.yaml:5:",
        ),
        (
            "  - expect_files:\n      a.txt: {any_of: [x, {matches: {snapshot: true}}]}\n",
            "a.yaml:5:7: no snapshot inside `any_of`",
        ),
        (
            "  - call: edit\n    expect: {status: error, any_of: [{status: success}, {status: error}]}\n",
            "a.yaml:4:11: `any_of` is the only key of its `expect`",
        ),
        (
            "  - call: edit\n    expect: {any_of: [{status: success}]}\n",
            "a.yaml:4:11: `any_of` needs two alternatives or more",
        ),
        (
            "  - call: edit\n    expect: {any_of: [{status: success}, {any_of: [{status: error}, {}]}]}\n",
            "a.yaml:4:11: an `any_of` alternative cannot be an `any_of`",
        ),
        (
            "  - call: edit\n    expect: {any_of: [{status: success}, {error: no_such_code}]}\n",
            "a.yaml:5:50: unknown error code `no_such_code`",
        ),
        (
            "  - call: edit\n    expect: {any_of: [{status: success}, {llm: {snapshot: true}}]}\n",
            "a.yaml:4:11: no snapshot inside `any_of`",
        ),
    ];
    for (steps, expected) in cases {
        let error = check(steps).map(|_| ()).unwrap_err();
        assert!(error.starts_with(expected), "{steps}\n{error}");
    }
}
