//! The scenario format's first example loads into the model it describes and
//! survives a round trip; so does a scenario with every form the format
//! has.

use serde_json::json;
use toolpass_protocol::{ConfirmOutcome, FaultPoint, Feature, Status};
use toolpass_scenario::{
    CaptureSource, Condition, Content, FsAction, Level, Mode, Mtime, Scenario, StepKind, parse_str,
};

/// The scenario format's first example, with one change: it required the feature
/// `edit`, which toolpass/1 does not define; what the example relies on
/// (a stale read being refused) is `prior_read`.
pub(crate) const DESIGN: &str = r#"
title: Straight quotes in old_string match curly quotes on disk
spec: edit.match.fold            # clause in SPEC.md this checks
level: required                  # required | recommended | optional
tags: [edit, fuzzy]
requires: [prior_read]           # features the implementation must advertise
config: {}                       # session config overrides (thresholds, approval...)
files:                           # the sandbox before step 1
  src/a.ts: "const s = “hello”;\n"
  data.bin: {base64: "AAEC"}
  link: {symlink: ../outside}
steps:
  - call: read_file
    args: {file_path: "{root}/src/a.ts"}
  - call: edit
    args:
      file_path: "{root}/src/a.ts"
      old_string: 'const s = "hello";'
      new_string: 'const s = "bye";'
    expect:
      status: success
      llm: {contains: ["has been updated"]}
  - fs: {write: {src/a.ts: "changed behind the tool's back\n"}}   # harness action
  - call: edit
    args: {file_path: "{root}/src/a.ts", old_string: "changed", new_string: "x"}
    expect: {status: error, error: file_changed_since_read}
  - expect_files:
      src/a.ts: "changed behind the tool's back\n"
"#;

/// Every form of the format at least once.
pub(crate) const EVERY_FORM: &str = r##"
title: Every form
spec: format.all
level: recommended
reason: shows the format
tags: [format]
requires: [prior_read, sessions]
config:
  truncateToolOutputThreshold: 100
  approvalMode: default
files:
  a.txt: "x = {{root}}\n"
  bin/run.sh: {text: "#!/bin/sh\n", mode: "755"}
  data.bin: {base64: "AAEC", mode: "0600"}
  link: {symlink: "{root}/a.txt"}
steps:
  - call: read_file
    id: first
    args: {file_path: "{root}/a.txt", limit: 10, nested: [{deep: "{root}"}]}
    expect:
      status: success
      llm:
        - "x = {root}\n"
        - {contains: [x, "="], not_contains: y, regex: '^x = .*$', lines: 1, chars: {min: 1, max: 1000}}
        - {starts_with: x, ends_with: "\n"}
      persisted_output: false
    level: optional
  - batch:
      - call: glob
        args: {pattern: "*.txt"}
        expect: {llm: {snapshot: globbed}}
      - call: grep_search
        args: {pattern: x}
  - call: edit
    id: second
    args: {file_path: "{root}/a.txt", old_string: x, new_string: y}
    expect:
      status: awaiting_confirmation
      confirmation: {type: edit}
  - confirm: modify
    call_id: second
    modified_content: "z\n"
    expect:
      status: success
      display: {type: diff, stat: {addedLines: 1}}
      result_file_paths: [{starts_with: "{root}/"}]
  - fs:
      - {append: {a.txt: "more\n", data.bin: {base64: "AwQ="}}}
      - {delete: old.txt}
      - {delete: [x, y]}
      - {touch: {a.txt: {mtime_offset: -60}, b.txt: {mtime: 1700000000}, c.txt: {}}}
      - {chmod: {bin/run.sh: "700"}}
      - {symlink: {l2: ../outside}}
      - {mkdir: [d/e, f]}
  - fault: {point: write.before_commit, times: 2, skip: 1}
  - expect_tools:
      includes: [read_file]
      excludes: [secret]
      exact: [read_file, edit]
      schema:
        edit: {inputSchema: {required: [file_path]}}
  - call: run_shell_command
    args: {command: "sleep 1 &", is_background: true}
  - capture: {pid: 'PID: (\d+)'}
    level: recommended
  - wait_notice: {contains: "{pid}"}
    kind: background_shell
    timeout_ms: 5000
  - capture: {done: 'exit (\d+)', code: "(\\d+)"}
    from: notice
  - expect_files:
      a.txt: {matches: {contains: "{done}"}, mode: "644"}
      data.bin: {base64: "AAECAwQ="}
      link: {symlink: "{root}/a.txt"}
      gone: {absent: true}
      bin/run.sh: {mode: "700"}
      literal.txt: "{{pid}} stays as written"
    exact: true
"##;

#[test]
fn the_design_example_loads_into_its_model() {
    let s = parse_str(DESIGN, "edit/fuzzy/curly-quotes").unwrap();
    assert_eq!(s.id, "edit/fuzzy/curly-quotes");
    assert_eq!(
        s.title.as_str(),
        "Straight quotes in old_string match curly quotes on disk"
    );
    assert_eq!(s.spec[0].as_str(), "edit.match.fold");
    assert_eq!(s.level.value, Level::Required);
    assert_eq!(s.tags, ["edit", "fuzzy"]);
    assert_eq!(s.requires[0].value, Feature::PriorRead);
    assert_eq!(
        s.features().into_iter().collect::<Vec<_>>(),
        [Feature::Sessions, Feature::PriorRead]
    );
    let files: Vec<(&str, &Content)> = s
        .files
        .iter()
        .map(|(path, entry)| (path.as_str(), &entry.content))
        .collect();
    assert!(matches!(files[0], ("data.bin", Content::Bytes(b)) if b == &[0, 1, 2]));
    assert!(matches!(files[1], ("link", Content::Symlink(t)) if t.as_str() == "../outside"));
    assert!(
        matches!(files[2], ("src/a.ts", Content::Text(t)) if t.as_str() == "const s = “hello”;\n")
    );

    assert_eq!(s.steps.len(), 5);
    let StepKind::Call(edit) = &s.steps[1].kind else {
        panic!("step 2 is a call")
    };
    assert_eq!(edit.tool.as_str(), "edit");
    assert_eq!(
        edit.args.value(),
        &json!({
            "file_path": "{root}/src/a.ts",
            "old_string": "const s = \"hello\";",
            "new_string": "const s = \"bye\";",
        })
    );
    let expect = edit.expect.as_ref().unwrap();
    assert_eq!(expect.status, Some(Status::Success));
    let llm = expect.llm.as_ref().unwrap();
    assert!(
        matches!(&llm.conditions()[0], Condition::Contains(t) if t.as_str() == "has been updated")
    );
    assert!(llm.check("The file has been updated.").is_ok());

    let StepKind::Fs(actions) = &s.steps[2].kind else {
        panic!("step 3 is fs")
    };
    let FsAction::Write(written) = &actions[0].value else {
        panic!("a write")
    };
    assert_eq!(written.keys().next().unwrap().as_str(), "src/a.ts");

    let StepKind::Call(stale) = &s.steps[3].kind else {
        panic!("step 4 is a call")
    };
    let expect = stale.expect.as_ref().unwrap();
    assert_eq!(expect.status, Some(Status::Error));
    assert_eq!(
        expect.error.as_deref().map(String::as_str),
        Some("file_changed_since_read")
    );
    assert_eq!(s.step_level(&s.steps[3]), Level::Required);

    let StepKind::ExpectFiles(check) = &s.steps[4].kind else {
        panic!("step 5 is expect_files")
    };
    assert!(!check.exact);
    assert_eq!(check.files.len(), 1);
}

#[test]
fn positions_point_at_what_was_written() {
    let s = parse_str(DESIGN, "design").unwrap();
    // Line 1 of the constant is empty: `title:` is on line 2.
    assert_eq!((s.title.pos.line, s.title.pos.column), (2, 8));
    let step = &s.steps[1];
    assert_eq!((step.pos.line, step.pos.column), (15, 5));
    let StepKind::Call(call) = &step.kind else {
        panic!()
    };
    let strings: Vec<(u32, &str)> = call
        .args
        .as_json()
        .strings()
        .map(|s| (s.pos.line, s.value))
        .collect();
    assert_eq!(
        strings,
        [
            (17, "{root}/src/a.ts"),
            (18, "const s = \"hello\";"),
            (19, "const s = \"bye\";")
        ]
    );
}

/// Written back as JSON (which is YAML) and read again, a scenario is the
/// same scenario.
fn round_trip(scenario: &Scenario) {
    let json = serde_json::to_string_pretty(scenario).unwrap();
    let again = parse_str(&json, &scenario.id).unwrap();
    assert_eq!(&again, scenario, "{json}");
    let from_json: Scenario = serde_json::from_str(&json).unwrap();
    assert_eq!(
        serde_json::to_value(&from_json).unwrap(),
        serde_json::to_value(scenario).unwrap()
    );
}

#[test]
fn the_design_example_round_trips() {
    round_trip(&parse_str(DESIGN, "design").unwrap());
}

#[test]
fn every_form_loads_and_round_trips() {
    let s = parse_str(EVERY_FORM, "every-form").unwrap();
    round_trip(&s);

    assert_eq!(s.level.value, Level::Recommended);
    assert_eq!(s.config.truncate_tool_output_threshold, Some(100));
    let run = s
        .files
        .iter()
        .find(|(p, _)| p.as_str() == "bin/run.sh")
        .unwrap()
        .1;
    assert_eq!(run.mode, Some(Mode(0o755)));
    assert_eq!(s.step_level(&s.steps[0]), Level::Optional);
    assert_eq!(s.step_level(&s.steps[1]), Level::Recommended);

    let kinds: Vec<&str> = s.steps.iter().map(|step| step.kind_name()).collect();
    assert_eq!(
        kinds,
        [
            "call",
            "batch",
            "call",
            "confirm",
            "fs",
            "fault",
            "expect_tools",
            "call",
            "capture",
            "wait_notice",
            "capture",
            "expect_files"
        ]
    );
    let StepKind::Confirm(confirm) = &s.steps[3].kind else {
        panic!()
    };
    assert_eq!(confirm.outcome, ConfirmOutcome::Modify);
    let StepKind::Fs(actions) = &s.steps[4].kind else {
        panic!()
    };
    assert_eq!(actions.len(), 7);
    let FsAction::Touch(touches) = &actions[3].value else {
        panic!()
    };
    let mtimes: Vec<Option<Mtime>> = touches.values().map(|t| t.mtime).collect();
    assert_eq!(
        mtimes,
        [
            Some(Mtime::FromNow(-60)),
            Some(Mtime::At(1_700_000_000)),
            None
        ]
    );
    let StepKind::Fault(fault) = &s.steps[5].kind else {
        panic!()
    };
    assert_eq!(
        (fault.point.value.clone(), fault.times, fault.skip),
        (FaultPoint::WriteBeforeCommit, 2, 1)
    );
    let StepKind::Capture(capture) = &s.steps[10].kind else {
        panic!()
    };
    assert_eq!(capture.from, CaptureSource::Notice);
    assert_eq!(capture.vars.len(), 2);
    let features: Vec<String> = s.features().iter().map(ToString::to_string).collect();
    assert_eq!(
        features,
        [
            "sessions",
            "prior_read",
            "fault:write.before_commit",
            "confirm",
            "batch",
            "notices"
        ]
    );
}
