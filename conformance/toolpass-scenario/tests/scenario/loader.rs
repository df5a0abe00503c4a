//! Loader errors: `path:line:column: message` for every problem of every
//! file.

use toolpass_protocol::Feature;
use toolpass_scenario::{load_dir, parse_str};

/// The loader's report on `yaml`, or `ok`.
fn check(yaml: &str) -> String {
    match parse_str(yaml, "area/bad") {
        Ok(_) => "ok".to_owned(),
        Err(errors) => errors.to_string(),
    }
}

/// Each bad file with its line numbers, and what the loader says.
fn catalogue(cases: &[(&str, &str)]) -> String {
    let mut out = String::new();
    for (what, yaml) in cases {
        out.push_str(&format!("── {what}\n"));
        for (i, line) in yaml.lines().enumerate() {
            out.push_str(&format!("{:>3} | {line}\n", i + 1));
        }
        out.push_str(&check(yaml));
        out.push_str("\n\n");
    }
    out
}

const HEAD: &str = "title: t\nspec: s\n";

fn with_head(rest: &str) -> String {
    format!("{HEAD}{rest}")
}

#[test]
fn bad_files() {
    let cases: Vec<(&str, String)> = vec![
        (
            "unknown top-level key",
            with_head("levl: required\nsteps: [{call: x}]\n"),
        ),
        ("missing spec", "title: t\nsteps: [{call: x}]\n".into()),
        (
            "wrong type",
            "title: [a, b]\nspec: s\nsteps: [{call: x}]\n".into(),
        ),
        (
            "unknown step kind",
            with_head("steps:\n  - call: x\n  - run: ls\n"),
        ),
        (
            "step without a kind",
            with_head("steps:\n  - call: x\n  - level: optional\n"),
        ),
        (
            "typo in a call step",
            with_head("steps:\n  - call: x\n    arg: {a: 1}\n"),
        ),
        (
            "args not a map",
            with_head("steps:\n  - call: x\n    args: [a]\n"),
        ),
        (
            "a repeat past the cap",
            with_head("files:\n  big.txt: {text: \"xy\", repeat: 100000000}\nsteps: [{call: x}]\n"),
        ),
        (
            "a repeat without text",
            with_head("files:\n  big.txt: {base64: \"AA==\", repeat: 2}\nsteps: [{call: x}]\n"),
        ),
        (
            "a batch budget with an unknown member",
            with_head("steps:\n  - batch: [{call: x}]\n    budget: {reduce: 1}\n"),
        ),
        (
            "negative timeout",
            with_head("steps:\n  - wait_notice: done\n    timeout_ms: -1\n"),
        ),
        (
            "YAML 1.1 boolean",
            with_head("steps:\n  - call: x\n    expect: {persisted_output: yes}\n"),
        ),
        (
            "two kinds in a step",
            with_head("steps:\n  - call: x\n    fs: {delete: a}\n"),
        ),
        (
            "key of another kind",
            with_head("steps:\n  - fs: {delete: a}\n    args: {}\n"),
        ),
        (
            "unknown expect key",
            with_head("steps:\n  - call: x\n    expect: {stauts: success}\n"),
        ),
        (
            "unknown status",
            with_head("steps:\n  - call: x\n    expect: {status: ok}\n"),
        ),
        (
            "matcher with no known key",
            with_head("steps:\n  - call: x\n    expect:\n      llm: {contain: a}\n"),
        ),
        (
            "empty matcher",
            with_head("steps:\n  - call: x\n    expect:\n      llm: {}\n"),
        ),
        (
            "regex that does not compile",
            with_head(
                "steps:\n  - call: x\n    expect:\n      llm:\n        - {regex: '(unclosed'}\n        - {regex: 'a{2,1}'}\n",
            ),
        ),
        (
            "unknown features",
            with_head("requires: [prior-read, edit]\nsteps: [{call: x}]\n"),
        ),
        (
            "undefined placeholder",
            with_head(
                "steps:\n  - call: x\n    args: {a: \"{root}/{dir}\", b: [\"{{ok}}\"]}\n  - capture: {pid: 'PID (\\d+)'}\n  - call: y\n    args: {a: \"{pid}\"}\n    expect: {llm: \"{pid} {nope}\"}\n",
            ),
        ),
        (
            "capture uses its own variable",
            with_head("steps:\n  - capture: {a: \"{a}(x)\"}\n"),
        ),
        (
            "pending without a reason",
            "title: t\nspec: s\nlevel: pending\nsteps: [{call: x}]\n".into(),
        ),
        (
            "pending step",
            with_head("steps:\n  - call: x\n    level: pending\n"),
        ),
        (
            "numeric mode",
            with_head("files:\n  a.sh: {text: x, mode: 0o755}\nsteps: [{call: x}]\n"),
        ),
        (
            "bad mode string",
            with_head("files:\n  a.sh: {text: x, mode: \"rwx\"}\nsteps: [{call: x}]\n"),
        ),
        (
            "two contents",
            with_head("files:\n  a: {text: x, symlink: y}\nsteps: [{call: x}]\n"),
        ),
        (
            "bad base64",
            with_head("files:\n  a: {base64: \"!!\"}\nsteps: [{call: x}]\n"),
        ),
        (
            "bad paths",
            with_head(
                "files:\n  /etc/passwd: x\n  a/../b: x\n  \"{outside}/../x\": x\nsteps: [{call: x}]\n",
            ),
        ),
        (
            "paths a peer would follow onto the machine",
            with_head(
                "files:\n  l: {symlink: /etc/passwd}\n  \"{outside}/ok\": x\nsteps:\n  - call: read_file\n    args: {file_path: /etc/passwd, nested: [\"{root}/../../x\"]}\n  - call: read_file\n    args: {file_path: \"{outside}/ok\", also: \"{root}/../outside/ok\"}\n",
            ),
        ),
        (
            "relative paths that climb out, resolved where they stand",
            with_head(
                "files:\n  lnk: {symlink: \"../../x\"}\n  ok: {symlink: ../outside/y}\n  sub/lnk: {symlink: \"../../../x\"}\n  sub/ok: {symlink: ../..}\n  \"{outside}/a/lnk\": {symlink: \"../../../x\"}\nsteps:\n  - call: read_file\n    args: {file_path: \"../../../etc\", dir: \"a/../../..\", fine: \"..\", text: \"a/b/../../c\"}\n  - fs: {symlink: {d/l: \"../../../y\", d/ok: \"../../outside\"}}\n",
            ),
        ),
        (
            "links that climb out together, each staying alone",
            with_head(
                "files:\n  a: {symlink: ../outside}\n  b: {symlink: a/../..}\n  c: {symlink: ..}\n  l1: {symlink: l2}\n  l2: {symlink: l1}\nsteps:\n  - call: read_file\n    args: {file_path: \"{root}/c/../etc\", ok: \"{root}/a/x\", loop: \"{root}/l1/x\"}\n  - fs: {symlink: {d: b}}\n",
            ),
        ),
        (
            "unknown error code",
            with_head("steps:\n  - call: x\n    expect: {error: file_changed_since_reed}\n"),
        ),
        (
            "unknown fault point",
            with_head("steps:\n  - fault: {point: fs.stats}\n"),
        ),
        (
            "a call after the session is closed, and a close after a kill",
            with_head(
                "steps:\n  - call: x\n    id: a\n    async: true\n  - close_session: {}\n  - call: y\n  - kill_server: {}\n  - expect_no_processes: {}\n    timeout_ms: 100\n  - close_session: {}\n  - expect_files: {a: x}\n",
            ),
        ),
        (
            "arguments to a step that takes none",
            with_head("steps:\n  - call: x\n  - kill_server: {signal: TERM}\n"),
        ),
        (
            "a key of another kind on expect_no_processes",
            with_head("steps:\n  - call: x\n  - expect_no_processes: {}\n    kind: shell\n"),
        ),
        (
            "unknown fs action",
            with_head("steps:\n  - fs: {remove: a}\n"),
        ),
        (
            "confirm of an unknown call",
            with_head(
                "steps:\n  - call: x\n    id: one\n  - confirm: proceed_once\n    call_id: two\n",
            ),
        ),
        (
            "absent with content",
            with_head("steps:\n  - expect_files:\n      a: {absent: true, text: x}\n"),
        ),
        (
            "duplicate snapshot",
            with_head(
                "steps:\n  - call: x\n    expect: {llm: {snapshot: out}}\n  - call: y\n    expect: {llm: {snapshot: out}}\n",
            ),
        ),
        ("no steps", with_head("steps: []\n")),
        ("empty capture", with_head("steps:\n  - capture: {}\n")),
        ("not YAML", with_head("steps: [\n")),
        (
            "duplicate key",
            with_head("title: again\nsteps: [{call: x}]\n"),
        ),
    ];
    let cases: Vec<(&str, &str)> = cases.iter().map(|(w, y)| (*w, y.as_str())).collect();
    insta::assert_snapshot!(catalogue(&cases));
}

/// Writes `files` (path, text) under a new temporary directory.
fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

/// The loader's report on a directory, with the directory written `<dir>`.
fn check_dir(dir: &tempfile::TempDir) -> String {
    match load_dir(dir.path()) {
        Ok(scenarios) => scenarios
            .iter()
            .map(|s| s.id.clone())
            .collect::<Vec<_>>()
            .join("\n"),
        Err(errors) => errors
            .to_string()
            .replace(&dir.path().display().to_string(), "<dir>"),
    }
}

const GOOD: &str = "title: t\nspec: s\nsteps: [{call: x}]\n";

#[test]
fn load_dir_reports_every_problem_of_every_file_before_anything_runs() {
    let dir = tree(&[
        ("ok.yaml", GOOD),
        (
            "edit/two.yaml",
            "title: t\nspec: s\nrequires: [edt]\nsteps:\n  - call: x\n    expect: {llm: {regex: '('}}\n",
        ),
        ("read/one.yaml", "title: t\nspec: s\nsteps:\n  - cal: x\n"),
        ("old.yml", GOOD),
        ("ok.stale.snap", "text"),
        ("notes.md", "# not a scenario"),
        ("data.json", "{}"),
    ]);
    assert_eq!(
        check_dir(&dir),
        "<dir>/edit/two.yaml:3:12: unknown feature `edt`: known features are sessions, \
         prior_read, fault:declarations.update, fault:write.before_commit, fault:fs.stat, \
         fault:mcp.disconnect, fault:call.park, fault:call.rendezvous, confirm, cancel, updates, batch, notices, \
         deferred_tools, deferred_tools:reveal, deferred_tools:proxy, mcp, background_shell, \
         shell_pty, spill_files, collab_tools, classifier_input\n\
         <dir>/edit/two.yaml:6:27: the regex \"(\" does not compile: unclosed group\n\
         <dir>/ok.stale.snap: no scenario uses this snapshot: delete it, or name it in a \
         `snapshot:` matcher\n\
         <dir>/old.yml: scenario files end in .yaml: rename it, or it would never run\n\
         <dir>/read/one.yaml:4:5: unknown step kind `cal` (did you mean `call`?): a step is \
         one of call, join, cancel, batch, confirm, fs, fault, expect_tools, expect_files, \
         wait_notice, wait_update, capture, close_session, kill_server, expect_no_processes"
    );
}

#[test]
fn ids_are_paths_without_yaml_and_readme_is_a_scenario() {
    let dir = tree(&[
        ("edit/fuzzy/curly-quotes.yaml", GOOD),
        ("README.yaml", GOOD),
        ("README.md", "# docs"),
        (".hidden/skipped.yaml", "not: [a scenario"),
        ("edit/.swap.yaml", "not: [a scenario"),
    ]);
    assert_eq!(check_dir(&dir), "README\nedit/fuzzy/curly-quotes");
    let scenarios = load_dir(dir.path()).unwrap();
    assert_eq!(
        scenarios[1].path.as_deref(),
        Some(dir.path().join("edit/fuzzy/curly-quotes.yaml").as_path())
    );
}

#[test]
fn a_missing_directory_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope");
    let errors = load_dir(&missing).unwrap_err();
    assert_eq!(errors.errors().len(), 1);
    assert!(
        errors.errors()[0]
            .message()
            .starts_with("cannot read the directory")
    );
}

#[test]
fn a_broken_scenario_does_not_also_orphan_its_snapshots() {
    let dir = tree(&[
        ("a.yaml", "title: t\nspec: s\nsteps: [{cal: x}]\n"),
        ("a.1.snap", "text"),
    ]);
    let report = check_dir(&dir);
    assert_eq!(report.lines().count(), 1, "{report}");
    assert!(report.starts_with("<dir>/a.yaml:3:9: unknown step kind `cal`"));
}

#[test]
fn load_errors_carry_path_position_and_message() {
    let errors = parse_str(
        "title: t\nspec: s\nlevel: pending\nsteps: [{call: x}]\n",
        "p",
    )
    .unwrap_err();
    let [error] = errors.errors() else {
        panic!("one error")
    };
    assert_eq!(error.path(), std::path::Path::new("p.yaml"));
    assert_eq!((error.pos().line, error.pos().column), (3, 8));
    assert!(
        error
            .message()
            .starts_with("a pending scenario needs a `reason`")
    );
}

#[test]
fn a_pending_scenario_with_a_reason_loads() {
    let s = parse_str(
        "title: t\nspec: s\nlevel: pending\nreason: the reference lacks it\nsteps: [{call: x}]\n",
        "p",
    )
    .unwrap();
    assert_eq!(s.level.value, toolpass_scenario::Level::Pending);
}

#[test]
fn called_tools_are_the_calls_less_the_excluded_and_disabled_ones() {
    let scenario = parse_str(
        "title: t\nspec: s\nconfig: {disabledTools: [glob]}\nsteps:\n  - call: read_file\n  - call: glob\n  - expect_tools: {excludes: [nope]}\n  - call: nope\n  - batch:\n      - call: edit\n",
        "area/ok",
    )
    .unwrap();
    let called: Vec<&str> = scenario.called_tools().into_iter().collect();
    assert_eq!(called, ["edit", "read_file"]);
    let deferred = parse_str(
        "title: t\nspec: s\nrequires: [deferred_tools]\nsteps:\n  - call: hidden_tool\n",
        "area/deferred",
    )
    .unwrap();
    // The runner looks a deferred tool up among the deferred names the
    // implementation lists, so it is a called tool like any other.
    let called: Vec<&str> = deferred.called_tools().into_iter().collect();
    assert_eq!(called, ["hidden_tool"]);
}

#[test]
fn judging_the_deferred_tools_implies_the_feature_and_is_validated() {
    let yaml = "title: t\nspec: s\nsteps:\n  - expect_tools:\n      deferred: {exact: [b, a]}\n      reminder: {contains: tool_search}\n";
    let scenario = parse_str(yaml, "area/ok").unwrap();
    let features = scenario.features();
    assert!(features.contains(&Feature::DeferredTools), "{features:?}");
    let report = check(
        "title: t\nspec: s\nsteps:\n  - expect_tools:\n      deferred: {includes: [a], excludes: [a]}\n  - expect_tools:\n      deferred: {}\n  - expect_tools:\n      deferred: {includes: [a], reminder: x}\n",
    );
    assert!(
        report.contains("`a` is both included and excluded"),
        "{report}"
    );
    // Nothing at all, and a reminder inside `deferred:`, are refused.
    let refused = "deferred takes includes, excludes or exact, and only those";
    assert_eq!(report.matches(refused).count(), 2, "{report}");
}

#[test]
fn every_schema_problem_of_a_file_is_reported_each_at_its_position() {
    // Three problems serde alone would stop at the first of: an unknown
    // top-level key, a typo in one step, a wrong type in another; and a
    // validation problem above them all (an unknown feature).
    let yaml = "title: t\nspec: s\nrequires: [prior_reed]\nlevl: required\nsteps:\n  - call: read_file\n    arg: {a: 1}\n  - call: edit\n    expect: {status: success}\n  - call: glob\n    args: [a]\n";
    let report = check(yaml);
    let lines: Vec<&str> = report.lines().collect();
    assert_eq!(lines.len(), 4, "{report}");
    assert!(
        lines[0].starts_with("area/bad.yaml:3:12: unknown feature `prior_reed`"),
        "{report}"
    );
    assert!(
        lines[1].starts_with("area/bad.yaml:4:1: unknown key `levl`"),
        "{report}"
    );
    assert_eq!(
        &lines[2..],
        [
            "area/bad.yaml:6:5: unknown key `arg` in a `call` step (did you mean `args`?): it \
             takes id, args, expect, async, level",
            "area/bad.yaml:11:11: args must be a mapping of argument names to values",
        ],
        "{report}"
    );
}

#[test]
fn a_yaml_syntax_error_stays_one_problem() {
    let report = check("title: t\nspec: s\nsteps:\n  - call: [x\n  levl: 1\n");
    assert_eq!(report.lines().count(), 1, "{report}");
}

#[test]
fn blanking_a_step_that_defines_a_capture_reports_nothing_it_caused() {
    // The broken first step defines nothing the reader could still see, so
    // the second step's `{path}` would look undefined: that is not reported.
    let yaml = "title: t\nspec: s\nsteps:\n  - capture: {from: llm, regex: \"(?P<path>.*)\"}\n    bogus: 1\n  - call: read_file\n    args: {file_path: \"{path}\"}\n";
    let report = check(yaml);
    assert_eq!(report.lines().count(), 1, "{report}");
    assert!(
        report.starts_with("area/bad.yaml:4:5: unknown key `bogus` in a `capture` step"),
        "{report}"
    );
}
