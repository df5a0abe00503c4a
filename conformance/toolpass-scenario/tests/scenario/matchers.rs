//! Each matcher condition, its mismatch, snapshots and JSON subsets.

use serde_json::json;
use toolpass_scenario::{
    Condition, Located, Matcher, Range, StepKind, Vars, json_exact, json_subset, load_dir,
    parse_str,
};

/// A matcher read from YAML, as a scenario's `llm:` would be.
fn matcher(yaml: &str) -> Matcher {
    let text = format!("title: t\nspec: s\nsteps:\n  - call: x\n    expect:\n      llm: {yaml}\n");
    let scenario = parse_str(&text, "m").unwrap();
    let StepKind::Call(call) = &scenario.steps[0].kind else {
        panic!("a call")
    };
    call.expect.clone().unwrap().llm.unwrap()
}

/// `ok`, or the mismatch as `condition: message`.
fn check(yaml: &str, actual: &str) -> String {
    match matcher(yaml)
        .substitute(&Vars::new("/sandbox"))
        .unwrap()
        .check(actual)
    {
        Ok(()) => "ok".to_owned(),
        Err(mismatch) => mismatch.to_string(),
    }
}

#[test]
fn a_plain_string_is_equality() {
    assert_eq!(check("hello", "hello"), "ok");
    assert_eq!(
        check("hello", "hello\n"),
        "equals: differs from the expected text"
    );
    assert_eq!(check("{equals: hello}", "hello"), "ok");
    assert_eq!(check("12", "12"), "ok");
}

#[test]
fn contains_and_not_contains() {
    assert_eq!(check("{contains: [a, b]}", "xaxbx"), "ok");
    assert_eq!(
        check("{contains: [a, b]}", "xax"),
        "contains: does not contain \"b\""
    );
    assert_eq!(check("{contains: a}", "a"), "ok");
    assert_eq!(check("{not_contains: secret}", "public"), "ok");
    assert_eq!(
        check("{not_contains: secret}", "one\ntwo secret"),
        "not_contains: contains \"secret\" (line 2)"
    );
}

#[test]
fn regex_matches_anywhere_unless_anchored() {
    assert_eq!(check(r"{regex: 'l\d+'}", "see l42 here"), "ok");
    assert_eq!(
        check(r"{regex: '^l\d+$'}", "see l42"),
        "regex: does not match the regex \"^l\\\\d+$\""
    );
    assert_eq!(check(r"{regex: '(?m)^b$'}", "a\nb\nc"), "ok");
}

#[test]
fn starts_with_and_ends_with() {
    assert_eq!(check("{starts_with: ab, ends_with: yz}", "abcxyz"), "ok");
    assert_eq!(
        check("{starts_with: b}", "abc"),
        "starts_with: does not start with \"b\""
    );
    assert_eq!(
        check("{ends_with: b}", "abc"),
        "ends_with: does not end with \"b\""
    );
}

#[test]
fn lines_count_as_str_lines_does() {
    assert_eq!(check("{lines: 2}", "a\nb\n"), "ok");
    assert_eq!(check("{lines: 2}", "a\nb"), "ok");
    assert_eq!(check("{lines: 0}", ""), "ok");
    assert_eq!(
        check("{lines: 1}", "a\nb"),
        "lines: has 2 lines, expected exactly 1"
    );
    assert_eq!(
        check("{lines: {min: 3}}", "a"),
        "lines: has 1 lines, expected at least 3"
    );
}

#[test]
fn chars_count_unicode_scalar_values() {
    assert_eq!(check("{chars: {max: 3}}", "héé"), "ok");
    assert_eq!(
        check("{chars: {min: 1, max: 2}}", "abc"),
        "chars: has 3 characters, expected between 1 and 2"
    );
    assert_eq!(
        check("{chars: {max: 5}}", "abcdef"),
        "chars: has 6 characters, expected at most 5"
    );
    assert_eq!(check("{chars: 0}", ""), "ok");
}

#[test]
fn every_condition_of_a_list_must_hold() {
    assert_eq!(check("[abc, {contains: b}]", "abc"), "ok");
    assert_eq!(
        check("[abc, {contains: z}]", "abc"),
        "contains: does not contain \"z\""
    );
    let m = matcher("[abc, {contains: [b, c], lines: 1}]");
    let keys: Vec<&str> = m.conditions().iter().map(Condition::key).collect();
    assert_eq!(keys, ["equals", "contains", "contains", "lines"]);
}

#[test]
fn a_mismatch_carries_expected_and_actual_for_a_diff() {
    let mismatch = Matcher::equals("one\ntwo\n")
        .check("one\nthree\n")
        .unwrap_err();
    assert_eq!(mismatch.condition(), "equals");
    assert_eq!(mismatch.expected(), "one\ntwo\n");
    assert_eq!(mismatch.actual(), "one\nthree\n");
    assert!(mismatch.is_diffable());
    let needle = matcher("{contains: x}").check("abc").unwrap_err();
    assert_eq!((needle.expected(), needle.actual()), ("x", "abc"));
    assert!(!needle.is_diffable());
}

#[test]
fn placeholders_are_substituted_before_checking() {
    assert_eq!(check("\"{root}/a.txt\"", "/sandbox/a.txt"), "ok");
    assert_eq!(check("{contains: \"{{root}}\"}", "literal {root}"), "ok");
    // In a regex, a value is a literal: the dot in the root is not "any
    // character".
    let m = matcher("{regex: '^{root}$'}");
    let m = m.substitute(&Vars::new("/tmp/a.b")).unwrap();
    assert!(m.check("/tmp/a.b").is_ok());
    assert!(m.check("/tmp/aXb").is_err());
}

#[test]
fn substituting_an_unbound_variable_is_an_error() {
    let m = Matcher::new(vec![Condition::Contains(Located::unknown("{pid}".into()))]);
    let error = m.substitute(&Vars::new("/s")).unwrap_err();
    assert_eq!(
        error.kind(),
        toolpass_scenario::ErrorKind::UndefinedVariable
    );
    assert_eq!(
        error.to_string(),
        "substitute `{pid}`: no variable `pid` is bound"
    );
}

#[test]
fn range_bounds() {
    assert!(Range::exactly(3).contains(3));
    assert!(!Range::exactly(3).contains(4));
    let open = Range {
        min: None,
        max: Some(2),
    };
    assert!(open.contains(0) && open.contains(2) && !open.contains(3));
}

#[test]
fn json_exact_refuses_a_member_it_does_not_name() {
    let actual = json!({"command": "ls", "cwd": "/r", "token": "secret"});
    assert!(
        json_exact(
            &json!({"cwd": "/r", "token": "secret", "command": "ls"}),
            &actual
        )
        .is_ok()
    );
    let extra = json_exact(&json!({"command": "ls", "cwd": "/r"}), &actual).unwrap_err();
    assert_eq!(extra.message(), "at /token: a member not expected");
    // `{}` holds of an empty object only: the fail-closed classifier input.
    assert!(json_exact(&json!({}), &json!({})).is_ok());
    assert!(json_exact(&json!({}), &actual).is_err());
    assert!(json_exact(&json!({}), &json!(null)).is_err());
}

#[test]
fn json_subset_ignores_what_it_does_not_name() {
    let actual = json!({
        "name": "edit",
        "description": "long text",
        "inputSchema": {"type": "object", "required": ["file_path", "old_string"]},
    });
    assert!(json_subset(&json!({"name": "edit"}), &actual).is_ok());
    assert!(
        json_subset(
            &json!({"inputSchema": {"required": ["file_path", "old_string"]}}),
            &actual
        )
        .is_ok()
    );
    let wrong = json_subset(
        &json!({"inputSchema": {"required": ["file_path"]}}),
        &actual,
    )
    .unwrap_err();
    assert_eq!(
        wrong.message(),
        "at /inputSchema/required: expected 1 items, found 2"
    );
    let missing = json_subset(&json!({"inputSchema": {"title": "x"}}), &actual).unwrap_err();
    assert_eq!(
        missing.message(),
        "at /inputSchema/title: the member is missing"
    );
    let differs = json_subset(&json!({"name": "write"}), &actual).unwrap_err();
    assert_eq!(
        differs.message(),
        "at /name: expected \"write\", found \"edit\""
    );
    // The actual side of the diff keeps only what the expectation names.
    assert_eq!(differs.actual(), "{\n  \"name\": \"edit\"\n}");
    assert!(json_subset(&json!({"n": 1}), &json!({"n": 1.0})).is_ok());
}

const SNAPSHOTS: &str = "title: t\nspec: s\nsteps:\n  - call: read_file\n    expect: {llm: {snapshot: true}}\n  - call: glob\n    expect: {llm: {snapshot: listing}}\n";

#[test]
fn snapshots_are_read_next_to_the_scenario_and_blessed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("read")).unwrap();
    std::fs::write(dir.path().join("read/snap.yaml"), SNAPSHOTS).unwrap();
    std::fs::write(dir.path().join("read/snap.listing.snap"), "{root}/a.txt\n").unwrap();

    let scenario = load_dir(dir.path()).unwrap().remove(0);
    let llm = |i: usize| {
        let StepKind::Call(call) = &scenario.steps[i].kind else {
            panic!()
        };
        call.expect.clone().unwrap().llm.unwrap()
    };
    let vars = Vars::new("/tmp/sandbox-1");

    // The named snapshot exists; the root is written `{root}` in it.
    let listing = llm(1).substitute(&vars).unwrap();
    assert!(listing.check("/tmp/sandbox-1/a.txt\n").is_ok());
    let mismatch = listing.check("/tmp/sandbox-1/b.txt\n").unwrap_err();
    assert_eq!(mismatch.expected(), "{root}/a.txt\n");
    assert_eq!(mismatch.actual(), "{root}/b.txt\n");
    assert!(mismatch.message().starts_with("differs from the snapshot "));

    // `snapshot: true` is named after the step; it has no file yet.
    let first = llm(0).substitute(&vars).unwrap();
    let mismatch = first.check("content of /tmp/sandbox-1/x").unwrap_err();
    assert!(
        mismatch
            .message()
            .starts_with("has no snapshot yet: bless to write ")
    );
    assert!(mismatch.message().ends_with("read/snap.1.snap"));
    assert_eq!(first.bless("content of /tmp/sandbox-1/x").unwrap(), 1);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("read/snap.1.snap")).unwrap(),
        "content of {root}/x"
    );
    // Blessing a match writes nothing.
    assert_eq!(listing.bless("/tmp/sandbox-1/a.txt\n").unwrap(), 0);

    // Loaded again, the blessed snapshot passes on another sandbox.
    let scenario = load_dir(dir.path()).unwrap().remove(0);
    let StepKind::Call(call) = &scenario.steps[0].kind else {
        panic!()
    };
    let first = call.expect.clone().unwrap().llm.unwrap();
    let first = first.substitute(&Vars::new("/elsewhere")).unwrap();
    assert!(first.check("content of /elsewhere/x").is_ok());
}

#[test]
fn a_snapshot_without_a_file_cannot_be_blessed() {
    let m = matcher("{snapshot: out}")
        .substitute(&Vars::new("/s"))
        .unwrap();
    let error = m.bless("x").unwrap_err();
    assert_eq!(error.kind(), toolpass_scenario::ErrorKind::NoSnapshotFile);
}
