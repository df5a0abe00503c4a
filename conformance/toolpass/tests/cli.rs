//! The `toolpass` binary as a user runs it: subcommands, their output on
//! stdout and stderr, and exit codes, on scenario files in temp dirs.

use std::path::Path;
use std::process::{Command, Output};

/// Runs the built binary with `args` in `cwd`.
fn toolpass(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolpass"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("the toolpass binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("stderr is UTF-8")
}

#[test]
fn schema_scenario_prints_the_scenario_schema_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let output = toolpass(dir.path(), &["schema", "scenario"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let schema: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(schema["title"], "toolpass scenario");
}

#[test]
fn schema_protocol_lists_the_files_and_prints_each_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let output = toolpass(dir.path(), &["schema", "protocol"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let names = stdout(&output);
    assert!(names.lines().any(|l| l == "outcome.json"), "{names}");
    for name in names.lines() {
        let output = toolpass(dir.path(), &["schema", "protocol", name]);
        assert!(output.status.success(), "{name}: {}", stderr(&output));
        let _: serde_json::Value = serde_json::from_str(&stdout(&output))
            .unwrap_or_else(|e| panic!("{name} is not JSON: {e}"));
    }
}

#[test]
fn schema_protocol_with_an_unknown_name_says_which_exist() {
    let dir = tempfile::tempdir().unwrap();
    let output = toolpass(dir.path(), &["schema", "protocol", "nope"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("outcome.json"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn run_refuses_a_bad_timeout_and_a_bad_glob_before_starting_anything() {
    let dir = tempfile::tempdir().unwrap();
    let output = toolpass(
        dir.path(),
        &["run", "--timeout", "0", "--impl", "/nonexistent"],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("--timeout must be a positive number"),
        "{}",
        stderr(&output)
    );
    let output = toolpass(
        dir.path(),
        &["run", "--filter", "[", "--impl", "/nonexistent"],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("invalid --filter glob `[`"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn run_with_an_implementation_that_cannot_start_stops_with_one_message() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &[("a.yaml", &scenario("A", "required", "x"))]);
    let output = toolpass(
        dir.path(),
        &[
            "run",
            "--scenarios",
            ".",
            "--impl",
            "/nonexistent/server --stdio",
        ],
    );
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("/nonexistent/server"),
        "{}",
        stderr(&output)
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn help_names_every_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let output = toolpass(dir.path(), &["--help"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let help = stdout(&output);
    for command in ["schema", "validate", "list", "run"] {
        assert!(help.contains(command), "{command} missing from:\n{help}");
    }
}

/// The example of DESIGN.md §4, requiring a feature the protocol knows.
const VALID: &str = r#"title: Straight quotes in old_string match curly quotes on disk
spec: edit.match.fold
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

/// Writes `files` (path under `dir` → text), creating directories.
fn write(dir: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

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
    let output = toolpass(dir.path(), &["validate", "--scenarios", "s"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "2 scenarios OK\n");
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
    let output = toolpass(
        dir.path(),
        &["validate", "--scenarios", "good", "--scenarios", "bad"],
    );
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        "bad/edit/broken.yaml:3:8: unknown variant `mandatory`, expected one of required, \
         recommended, optional, pending\n"
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn validate_refuses_one_id_in_two_directories() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &[("a/x.yaml", VALID), ("b/x.yaml", VALID)]);
    let output = toolpass(
        dir.path(),
        &["validate", "--scenarios", "a", "--scenarios", "b"],
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("the id `x` is also the scenario"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn validate_reads_the_builtin_suite_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let output = toolpass(dir.path(), &["validate"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).ends_with(" scenarios OK\n"),
        "{}",
        stdout(&output)
    );
}

/// A small valid scenario with the given title, level and tags.
fn scenario(title: &str, level: &str, tags: &str) -> String {
    let reason = if level == "pending" {
        "reason: the reference cannot pass it yet\n"
    } else {
        ""
    };
    format!(
        "title: {title}\nspec: x.y\nlevel: {level}\n{reason}tags: [{tags}]\nsteps:\n  \
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
    let output = toolpass(dir.path(), &args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    stdout(&output)
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
    let output = toolpass(dir.path(), &["list", "--scenarios", "s"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "edit/fuzzy/curly-quotes  required  Straight quotes in old_string match curly quotes \
         on disk\nread/plain  optional  Plain\n"
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
    let output = toolpass(dir.path(), &["list", "--filter", "["]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("invalid --filter glob `[`"),
        "{}",
        stderr(&output)
    );
    let output = toolpass(dir.path(), &["list", "--level", "mandatory"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn list_reports_a_broken_scenario_like_validate() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &[("s/edit/broken.yaml", BROKEN)]);
    let output = toolpass(dir.path(), &["list", "--scenarios", "s"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).starts_with("s/edit/broken.yaml:3:8: "),
        "{}",
        stderr(&output)
    );
}
