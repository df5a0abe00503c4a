//! `list_directory` end to end. Expected texts were taken from Qwen Code
//! 0.24.4's `LSTool` run on the same trees.

mod common;

use std::fs;

use serde_json::{Value, json};
use toolpass_tools::faults::FaultPoint;

use common::Sandbox;
use toolpass_tools::error_code::ToolErrorCode;

/// A sandbox holding `files` (name, content).
fn sandbox(files: &[(&str, &str)]) -> Sandbox {
    let sb = Sandbox::new();
    for (name, content) in files {
        sb.write(name, content);
    }
    sb
}

/// The listing with the root shown as `{root}`.
fn list(sb: &Sandbox, args: Value) -> String {
    let result = sb.execute("list_directory", args);
    assert!(result.error.is_none(), "{result:?}");
    result
        .llm_content
        .replace(sb.root().to_str().unwrap(), "{root}")
}

const TREE: &[(&str, &str)] = &[
    ("b.txt", ""),
    ("A.md", ""),
    ("a_b", ""),
    ("a-b", ""),
    ("src/x", ""),
    ("Zeta/y", ""),
    (".hidden", ""),
    ("build/o", ""),
    ("debug.log", ""),
    ("keep.log", ""),
    (".gitignore", "*.log\n!keep.log\nbuild/\n"),
    (".qwenignore", "b.txt\n"),
    (".git/HEAD", "x"),
];

#[test]
fn directories_first_then_locale_order_with_ignored_counts() {
    let sb = sandbox(TREE);
    // `build/` does not hide the directory: Qwen hands the filters paths
    // without a trailing slash.
    insta::assert_snapshot!(list(&sb, json!({"path": sb.arg("")})), @r"
    Listed 10 item(s) in {root}/:
    ---
    [DIR] build
    [DIR] src
    [DIR] Zeta
    .gitignore
    .hidden
    .qwenignore
    a_b
    a-b
    A.md
    keep.log

    (2 git-ignored, 1 qwen-ignored)
    ");
}

#[test]
fn ignore_globs_and_filtering_options() {
    let sb = sandbox(TREE);
    let root = sb.root().to_str().unwrap().to_owned();
    assert_eq!(
        list(&sb, json!({"path": root, "ignore": ["*.md", "a?b"]})),
        "Listed 7 item(s) in {root}:\n---\n[DIR] build\n[DIR] src\n[DIR] Zeta\n.gitignore\n.hidden\n.qwenignore\nkeep.log\n\n(2 git-ignored, 1 qwen-ignored)"
    );
    assert_eq!(
        list(
            &sb,
            json!({"path": root, "file_filtering_options": {"respect_git_ignore": false, "respect_qwen_ignore": false}})
        ),
        "Listed 13 item(s) in {root}:\n---\n[DIR] .git\n[DIR] build\n[DIR] src\n[DIR] Zeta\n.gitignore\n.hidden\n.qwenignore\na_b\na-b\nA.md\nb.txt\ndebug.log\nkeep.log"
    );
}

#[test]
fn gitignore_needs_a_repository() {
    let sb = sandbox(&[(".gitignore", "*.log\n"), ("a.log", "")]);
    assert_eq!(
        list(&sb, json!({"path": sb.root()})),
        "Listed 2 item(s) in {root}:\n---\n.gitignore\na.log"
    );
}

#[test]
fn more_than_a_hundred_entries_are_cut() {
    let names: Vec<String> = (1..=105).map(|i| format!("many/f{i}")).collect();
    let files: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), "")).collect();
    let sb = sandbox(&files);
    let listing = list(&sb, json!({"path": sb.arg("many")}));
    assert!(listing.starts_with("Listed 105 item(s) in {root}/many:\n---\nf1\nf10\nf100\nf101\n"));
    assert!(listing.ends_with("\nf93\nf94\n---\n[5 items truncated] ..."));
}

#[test]
fn empty_missing_and_non_directories() {
    let sb = sandbox(&[("b.txt", "")]);
    fs::create_dir(sb.path("empty")).unwrap();
    assert_eq!(
        list(&sb, json!({"path": sb.arg("empty")})),
        "Directory {root}/empty is empty."
    );
    let missing = sb.execute("list_directory", json!({"path": sb.arg("nope")}));
    let error = missing.error.unwrap();
    assert_eq!(error.code, ToolErrorCode::LsExecutionError);
    assert_eq!(
        error.message,
        format!(
            "Error listing directory: ENOENT: no such file or directory, stat '{}'",
            sb.arg("nope")
        )
    );
    let file = sb.execute("list_directory", json!({"path": sb.arg("b.txt")}));
    let error = file.error.unwrap();
    assert_eq!(error.code, ToolErrorCode::PathIsNotADirectory);
    assert_eq!(
        error.message,
        format!("Error: Path is not a directory: {}", sb.arg("b.txt"))
    );
    sb.session.faults().arm(FaultPoint::FsStat, 1);
    let faulted = sb.execute("list_directory", json!({"path": sb.arg("empty")}));
    assert_eq!(faulted.error.unwrap().code, ToolErrorCode::LsExecutionError);
}

#[test]
fn relative_and_outside_paths_are_refused() {
    let sb = sandbox(&[]);
    let error = sb.build_error("list_directory", json!({"path": "rel"}));
    assert_eq!(
        (error.code, error.message.as_str()),
        (
            ToolErrorCode::InvalidToolParams,
            "Path must be absolute: rel"
        )
    );
    let error = sb.build_error("list_directory", json!({"path": "/"}));
    assert_eq!(error.code, ToolErrorCode::PathNotInWorkspace);
}
