//! The steps of calls in flight: `call` with `async: true`, `join`,
//! `cancel` and `wait_update`, what they imply and what the loader refuses.

use toolpass_protocol::Feature;
use toolpass_scenario::{StepKind, parse_str};

const HEAD: &str = "title: t\nspec: s\n";

/// The loader's problems with `steps`, one per line, or `ok`.
fn check(steps: &str) -> String {
    match parse_str(&format!("{HEAD}steps:\n{steps}"), "area/flight") {
        Ok(_) => "ok".to_owned(),
        Err(errors) => errors.to_string(),
    }
}

#[test]
fn an_async_call_is_joined_or_cancelled_and_implies_what_it_uses() {
    let yaml = format!(
        "{HEAD}steps:\n\
         \x20 - call: read_file\n    id: slow\n    async: true\n    args: {{file_path: a}}\n\
         \x20 - wait_update: {{contains: parked}}\n    call_id: slow\n    timeout_ms: 500\n\
         \x20 - cancel: slow\n    reason: too slow\n    expect: {{status: cancelled}}\n\
         \x20 - call: read_file\n    id: next\n    async: true\n\
         \x20 - join: next\n    expect: {{status: success}}\n"
    );
    let scenario = parse_str(&yaml, "area/flight").unwrap();
    let kinds: Vec<&str> = scenario.steps.iter().map(|s| s.kind_name()).collect();
    assert_eq!(kinds, ["call", "wait_update", "cancel", "call", "join"]);
    let StepKind::Call(call) = &scenario.steps[0].kind else {
        panic!("a call");
    };
    assert!(call.run_async);
    let StepKind::Cancel(cancel) = &scenario.steps[2].kind else {
        panic!("a cancel");
    };
    assert_eq!(cancel.reason.as_deref(), Some("too slow"));
    let features = scenario.features();
    assert!(features.contains(&Feature::Cancel));
    assert!(features.contains(&Feature::Updates));
    assert!(features.contains(&Feature::Sessions));
}

#[test]
fn an_async_call_needs_an_id_and_is_judged_where_it_is_joined() {
    let problems = check("  - call: x\n    async: true\n    expect: {status: success}\n");
    assert!(
        problems.contains("an async call needs an `id`"),
        "{problems}"
    );
    assert!(
        problems.contains("put `expect` on its `join` or `cancel` step"),
        "{problems}"
    );
}

#[test]
fn an_async_call_never_joined_is_named_at_its_id() {
    let problems = check("  - call: x\n    id: lost\n    async: true\n");
    assert_eq!(
        problems,
        "area/flight.yaml:5:9: the async call `lost` is never joined: end it with a \
         `join: lost` or `cancel: lost` step"
    );
}

#[test]
fn join_and_cancel_name_a_call_in_flight() {
    // A call that was not async, one joined twice, one never made.
    let problems = check(
        "  - call: x\n    id: sync\n  - join: sync\n\
         \x20 - call: x\n    id: twice\n    async: true\n  - join: twice\n  - cancel: twice\n\
         \x20 - cancel: nobody\n",
    );
    let lines: Vec<&str> = problems.lines().collect();
    assert_eq!(lines.len(), 3, "{problems}");
    assert!(lines[0].contains("`join: sync` names a call that is not in flight"));
    assert!(lines[1].contains("`cancel: twice` names a call that is not in flight"));
    assert!(lines[2].contains("unknown async call `nobody`"));
}

#[test]
fn a_batch_call_cannot_be_async_and_a_wait_update_names_an_earlier_call() {
    let problems = check(
        "  - batch:\n      - {call: x, id: b, async: true}\n\
         \x20 - wait_update: {contains: x}\n    call_id: later\n    timeout_ms: 0\n",
    );
    assert!(
        problems.contains("a call of a batch cannot be async"),
        "{problems}"
    );
    assert!(
        problems.contains("no earlier call has the id `later`"),
        "{problems}"
    );
    assert!(
        problems.contains("a timeout of 0 ms waits for nothing"),
        "{problems}"
    );
}

#[test]
fn an_rpc_error_expectation_goes_alone() {
    assert_eq!(
        check(
            "  - call: x\n    id: a\n  - confirm: cancel\n    call_id: a\n    expect: {rpc_error: -32602}\n"
        ),
        "ok"
    );
    let problems = check(
        "  - call: x\n    id: a\n  - confirm: cancel\n    call_id: a\n    expect: {rpc_error: -32602, status: cancelled}\n",
    );
    assert!(problems.contains("`rpc_error` goes alone"), "{problems}");
}

#[test]
fn an_rpc_error_of_any_code_may_be_one_alternative_among_outcomes() {
    assert_eq!(
        check(
            "  - call: x\n    id: a\n  - confirm: modify\n    call_id: a\n    modified_content: y\n    \
             expect: {any_of: [{rpc_error: any}, {status: cancelled}]}\n"
        ),
        "ok"
    );
    let problems = check(
        "  - call: x\n    id: a\n  - confirm: cancel\n    call_id: a\n    expect: {rpc_error: anything}\n",
    );
    assert!(
        problems
            .contains("bad rpc_error \"anything\": a JSON-RPC error code such as -32602, or `any`"),
        "{problems}"
    );
}
