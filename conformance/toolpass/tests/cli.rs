//! The `toolpass` binary as a user runs it: subcommands, their output on
//! stdout and stderr, and exit codes, on scenario files in temp dirs.

mod common;

use assert_cmd::assert::Assert;
use predicates::prelude::*;
use predicates::str::{contains, ends_with, starts_with};

use common::{stdout, toolpass, write};

#[test]
fn schema_scenario_prints_the_scenario_schema_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let run = toolpass(dir.path(), &["schema", "scenario"]).success();
    let schema: serde_json::Value = serde_json::from_str(&stdout(&run)).unwrap();
    assert_eq!(schema["title"], "toolpass scenario");
}

#[test]
fn schema_protocol_lists_the_files_and_prints_each_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let names = stdout(&toolpass(dir.path(), &["schema", "protocol"]).success());
    assert!(names.lines().any(|l| l == "outcome.json"), "{names}");
    for name in names.lines() {
        let run = toolpass(dir.path(), &["schema", "protocol", name]).success();
        let _: serde_json::Value = serde_json::from_str(&stdout(&run))
            .unwrap_or_else(|e| panic!("{name} is not JSON: {e}"));
    }
}

#[test]
fn schema_protocol_with_an_unknown_name_says_which_exist() {
    let dir = tempfile::tempdir().unwrap();
    toolpass(dir.path(), &["schema", "protocol", "nope"])
        .code(2)
        .stderr(contains("outcome.json"));
}

#[test]
fn run_refuses_a_bad_timeout_and_a_bad_glob_before_starting_anything() {
    let dir = tempfile::tempdir().unwrap();
    toolpass(
        dir.path(),
        &["run", "--timeout", "0", "--impl", "/nonexistent"],
    )
    .code(2)
    .stderr(contains("--timeout must be a positive number"));
    toolpass(
        dir.path(),
        &["run", "--filter", "[", "--impl", "/nonexistent"],
    )
    .code(2)
    .stderr(contains("invalid --filter glob `[`"));
}

#[test]
fn run_with_an_implementation_that_cannot_start_stops_with_one_message() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &[("a.yaml", &scenario("A", "required", "x"))]);
    toolpass(
        dir.path(),
        &[
            "run",
            "--scenarios",
            ".",
            "--impl",
            "/nonexistent/server --stdio",
        ],
    )
    .code(2)
    .stderr(contains("/nonexistent/server"))
    .stdout("");
}

#[test]
fn an_implementation_dying_before_initialize_shows_its_stderr_and_stdout_advice() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &[("a.yaml", &scenario("A", "required", "x"))]);
    let start = |script: &str| {
        let command = format!("sh -c '{script}'");
        toolpass(dir.path(), &["run", "--scenarios", ".", "--impl", &command]).code(2)
    };
    start("echo run just adapter-setup first >&2; exit 1").stderr(
        contains(
            "initialize: the implementation exited before answering (exit status: 1)\n\
             stderr (tail):\n  | run just adapter-setup first\n",
        )
        .and(contains("not JSON").not()),
    );

    start("exit 3").stderr(contains("(exit status: 3)\nstderr: (nothing)\n"));

    start("echo Loading config...; sleep 5").stderr(contains(
        "stdout carried `Loading config...`, which is not JSON: stdout is for protocol \
         messages only; write logs and diagnostics to stderr",
    ));
}

#[test]
fn help_names_every_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let help = stdout(&toolpass(dir.path(), &["--help"]).success());
    for command in ["schema", "validate", "list", "run"] {
        assert!(help.contains(command), "{command} missing from:\n{help}");
    }
}

/// The scenario format's first example, requiring a feature the protocol knows.
const VALID: &str = r#"title: Straight quotes in old_string match curly quotes on disk
spec: edit.fuzzy.fold
level: required
tags: [edit, fuzzy]
requires: [prior_read]
config: {}
files:
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
  - fs: {write: {src/a.ts: "changed behind the tool's back\n"}}
  - call: edit
    args: {file_path: "{root}/src/a.ts", old_string: "changed", new_string: "x"}
    expect: {status: error, error: file_changed_since_read}
  - expect_files:
      src/a.ts: "changed behind the tool's back\n"
"#;

/// A level that does not exist, on line 3.
const BROKEN: &str = "title: Broken level\nspec: edit.x\nlevel: mandatory\nsteps:\n  - call: read_file\n    args: {file_path: \"{root}/a\"}\n";

#[test]
fn validate_counts_the_scenarios_of_a_good_directory() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("s/edit/fuzzy/curly-quotes.yaml", VALID),
            ("s/read/plain.yaml", VALID),
        ],
    );
    toolpass(dir.path(), &["validate", "--scenarios", "s"])
        .success()
        .stdout("2 scenarios OK\n");
}

#[test]
fn validate_prints_path_line_column_and_exits_1_on_a_broken_scenario() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("good/edit/curly.yaml", VALID),
            ("bad/edit/broken.yaml", BROKEN),
        ],
    );
    toolpass(
        dir.path(),
        &["validate", "--scenarios", "good", "--scenarios", "bad"],
    )
    .code(1)
    .stderr(
        "bad/edit/broken.yaml:3:8: unknown variant `mandatory`, expected one of required, \
         recommended, optional, pending\n",
    )
    .stdout("");
}

#[test]
fn validate_refuses_one_id_in_two_directories() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &[("a/x.yaml", VALID), ("b/x.yaml", VALID)]);
    toolpass(
        dir.path(),
        &["validate", "--scenarios", "a", "--scenarios", "b"],
    )
    .code(1)
    .stderr(contains("the id `x` is also the scenario"));
}

#[test]
fn validate_reads_the_builtin_suite_by_default() {
    let dir = tempfile::tempdir().unwrap();
    toolpass(dir.path(), &["validate"])
        .success()
        .stdout(ends_with(" scenarios OK\n"));
}

/// A small valid scenario with the given title, level and tags.
fn scenario(title: &str, level: &str, tags: &str) -> String {
    let reason = if level == "pending" {
        "reason: the reference cannot pass it yet\n"
    } else {
        ""
    };
    // Each level cites a clause of the strength it follows from.
    let spec = match level {
        "required" => "read.paging",
        "recommended" => "read.line-display",
        _ => "ls.listing",
    };
    format!(
        "title: {title}\nspec: {spec}\nlevel: {level}\n{reason}tags: [{tags}]\nsteps:\n  \
         - call: read_file\n    args: {{file_path: \"{{root}}/a\"}}\n"
    )
}

/// Lists the scenarios of a fixed suite with `filters`; the ids printed.
fn list(filters: &[&str]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            (
                "s/edit/fuzzy/curly.yaml",
                &scenario("Curly", "required", "edit, fuzzy"),
            ),
            (
                "s/edit/exact.yaml",
                &scenario("Exact", "recommended", "edit"),
            ),
            ("s/grep/basic.yaml", &scenario("Grep", "optional", "search")),
            ("s/read/later.yaml", &scenario("Later", "pending", "fuzzy")),
        ],
    );
    let mut args = vec!["list", "--scenarios", "s"];
    args.extend_from_slice(filters);
    stdout(&toolpass(dir.path(), &args).success())
        .lines()
        .map(|l| l.split("  ").next().unwrap().to_owned())
        .collect()
}

#[test]
fn list_prints_id_level_and_title_sorted_by_id() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("s/read/plain.yaml", &scenario("Plain", "optional", "")),
            ("s/edit/fuzzy/curly-quotes.yaml", VALID),
        ],
    );
    toolpass(dir.path(), &["list", "--scenarios", "s"])
        .success()
        .stdout(
            "edit/fuzzy/curly-quotes  required  Straight quotes in old_string match curly quotes \
             on disk\nread/plain  optional  Plain\n",
        );
}

#[test]
fn list_without_filters_lists_everything() {
    assert_eq!(
        list(&[]),
        ["edit/exact", "edit/fuzzy/curly", "grep/basic", "read/later"]
    );
}

#[test]
fn list_filter_globs_ids_with_star_within_a_segment() {
    assert_eq!(list(&["--filter", "edit/*"]), ["edit/exact"]);
    assert_eq!(
        list(&["--filter", "edit/**"]),
        ["edit/exact", "edit/fuzzy/curly"]
    );
    assert_eq!(
        list(&["--filter", "grep/*", "--filter", "*/fuzzy/*"]),
        ["edit/fuzzy/curly", "grep/basic"]
    );
}

#[test]
fn list_tag_takes_scenarios_with_any_given_tag() {
    assert_eq!(
        list(&["--tag", "fuzzy"]),
        ["edit/fuzzy/curly", "read/later"]
    );
    assert_eq!(
        list(&["--tag", "search", "--tag", "edit"]),
        ["edit/exact", "edit/fuzzy/curly", "grep/basic"]
    );
}

#[test]
fn list_level_takes_scenarios_of_that_level() {
    assert_eq!(list(&["--level", "required"]), ["edit/fuzzy/curly"]);
    assert_eq!(list(&["--level", "pending"]), ["read/later"]);
}

#[test]
fn list_area_is_the_first_id_segment() {
    assert_eq!(
        list(&["--area", "edit"]),
        ["edit/exact", "edit/fuzzy/curly"]
    );
    assert_eq!(list(&["--area", "fuzzy"]), Vec::<String>::new());
}

#[test]
fn list_filters_combine_as_and() {
    assert_eq!(
        list(&["--area", "edit", "--tag", "fuzzy", "--level", "required"]),
        ["edit/fuzzy/curly"]
    );
    assert_eq!(
        list(&["--area", "read", "--level", "required"]),
        Vec::<String>::new()
    );
}

#[test]
fn list_refuses_a_bad_glob_and_an_unknown_level() {
    let dir = tempfile::tempdir().unwrap();
    toolpass(dir.path(), &["list", "--filter", "["])
        .code(2)
        .stderr(contains("invalid --filter glob `[`"));
    toolpass(dir.path(), &["list", "--level", "mandatory"]).code(2);
}

#[test]
fn list_reports_a_broken_scenario_like_validate_but_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &[("s/edit/broken.yaml", BROKEN)]);
    // `validate` checks the files (1 = they fail); `list` only needs them.
    toolpass(dir.path(), &["list", "--scenarios", "s"])
        .code(2)
        .stderr(starts_with("s/edit/broken.yaml:3:8: "));
}

#[test]
fn run_exits_2_when_the_runner_cannot_work_not_1_like_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[("s/edit/broken.yaml", BROKEN), ("good/a.yaml", VALID)],
    );

    toolpass(dir.path(), &["run", "--scenarios", "s"])
        .code(2)
        .stderr(starts_with("s/edit/broken.yaml:3:8: "));

    for command in ["run", "validate", "list"] {
        toolpass(dir.path(), &[command, "--scenarios", "nowhere"])
            .code(2)
            .stderr("toolpass: --scenarios nowhere: no such directory\n");
    }

    let with_list = |file: &str| {
        let args = ["run", "--scenarios", "good", "--expected-failures", file];
        toolpass(dir.path(), &args).code(2)
    };
    with_list("missing.yaml").stderr(
        "missing.yaml: no such expected-failures file (add --fix to create it from this run)\n",
    );
    write(dir.path(), &[("broken-xfail.yaml", "- id: [x]\n")]);
    with_list("broken-xfail.yaml").stderr(starts_with("broken-xfail.yaml:1:"));
}

#[test]
fn schema_report_prints_the_committed_report_schema() {
    let dir = tempfile::tempdir().unwrap();
    let committed = concat!(env!("CARGO_MANIFEST_DIR"), "/schema/report.jsonl.json");
    toolpass(dir.path(), &["schema", "report"])
        .success()
        .stdout(std::fs::read_to_string(committed).unwrap());
}

#[test]
fn run_refuses_two_reports_on_stdout_before_starting_anything() {
    let dir = tempfile::tempdir().unwrap();
    toolpass(
        dir.path(),
        &[
            "run",
            "--jsonl",
            "-",
            "--markdown",
            "-",
            "--impl",
            "/nonexistent",
        ],
    )
    .code(2)
    .stderr(contains(
        "only one of --jsonl, --junit and --markdown can be `-`",
    ));
}

/// A required scenario reading `a.txt` ("hello") and expecting `word` in
/// what the model sees.
fn reads(word: &str) -> String {
    format!(
        "title: Reads a file\nspec: read.paging\nlevel: required\nfiles:\n  a.txt: \"hello\\n\"\n\
         steps:\n  - call: read_file\n    args: {{file_path: \"{{root}}/a.txt\"}}\n    \
         expect:\n      status: success\n      llm: {{contains: [\"{word}\"]}}\n"
    )
}

/// Runs `toolpass run --scenarios s ARGS` against the reference server
/// (its dev build) on one passing and one failing required scenario.
fn run_two(args: &[&str]) -> (tempfile::TempDir, Assert) {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("s/read/passes.yaml", &reads("hello")),
            ("s/read/fails.yaml", &reads("goodbye")),
        ],
    );
    let mut full = vec!["run", "--scenarios", "s", "--jobs", "1"];
    full.extend_from_slice(args);
    let run = toolpass(dir.path(), &full);
    (dir, run)
}

#[test]
fn run_writes_every_report_at_once_and_they_agree() {
    let (dir, run) = run_two(&["--jsonl", "a", "--junit", "b", "--markdown", "c"]);
    run.code(1).stdout(
        contains("FAIL read/fails (required) s/read/fails.yaml")
            .and(contains("at s/read/fails.yaml:7")),
    );
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();

    let schema: serde_json::Value = serde_json::from_str(&read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/schema/report.jsonl.json"
    )))
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let lines: Vec<serde_json::Value> = read("a")
        .lines()
        .map(|line| {
            let value = serde_json::from_str(line).unwrap();
            assert!(validator.is_valid(&value), "not valid: {line}");
            value
        })
        .collect();
    let kinds: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["header", "step", "scenario", "step", "scenario", "footer"]
    );
    assert_eq!(lines[0]["implementation"]["name"], "toolpass-reference");
    assert_eq!(lines[0]["protocol"], "toolpass/1");
    let footer = &lines[5];
    assert_eq!(
        (
            &footer["passed"],
            &footer["verdicts"]["pass"],
            &footer["verdicts"]["fail"]
        ),
        (&false.into(), &1.into(), &1.into())
    );

    let junit = read("b");
    assert!(junit.contains(r#"<testsuite name="read" "#), "{junit}");
    assert!(
        junit.contains(r#"tests="2" failures="1" errors="0" skipped="0""#),
        "{junit}"
    );
    assert_eq!(junit.matches("<testcase ").count(), 2, "{junit}");
    assert_eq!(junit.matches("<failure ").count(), 1, "{junit}");

    let markdown = read("c");
    assert!(
        markdown.starts_with("## toolpass: toolpass-reference "),
        "{markdown}"
    );
    assert!(markdown.contains("❌ FAILED"), "{markdown}");
    assert!(markdown.contains("| required | 1 | 2 |"), "{markdown}");
    assert!(
        markdown.contains("| pass | 1 |\n| fail | 1 |"),
        "{markdown}"
    );
    assert!(
        markdown.contains("| `read/fails` | required | fail |"),
        "{markdown}"
    );
    assert!(markdown.contains("`s/read/fails.yaml:7`"), "{markdown}");
}

#[test]
fn run_with_jsonl_on_stdout_moves_the_text_report_to_stderr() {
    let (_dir, run) = run_two(&["--jsonl", "-", "--filter", "read/passes"]);
    let run = run.success().stderr(ends_with("ok\n"));
    let lines: Vec<serde_json::Value> = stdout(&run)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[3]["passed"], true);
}

#[test]
fn run_refuses_a_report_in_a_missing_directory_before_running() {
    let (_dir, run) = run_two(&["--junit", "missing/b.xml", "--markdown", "c.md"]);
    run.code(2).stdout("").stderr(contains(
        "cannot write the JUnit report to missing/b.xml: its directory does not exist",
    ));
}

#[test]
fn run_names_a_report_it_cannot_write_after_the_text_report() {
    // A directory where the file should go: only writing finds out.
    let (dir, run) = run_two(&["--junit", ".", "--markdown", "c.md"]);
    run.code(2)
        .stdout(contains("FAILED:"))
        .stderr(contains("failed to write the JUnit report to .: "));
    assert!(dir.path().join("c.md").is_file());
}
