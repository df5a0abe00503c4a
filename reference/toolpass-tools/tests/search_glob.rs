//! `glob` end to end on a real sandbox: Qwen 0.24.4's ordering (recent
//! first, newest first, then `localeCompare`), its 100-path cap and
//! 1 000-match walk limit with their texts, what it ignores with and without
//! a git repository, and its errors.

mod common;

use std::fs::File;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};
use toolpass_tools::result::ToolResult;
use toolpass_tools::session::SessionConfig;

use common::{Sandbox, code, display};
use toolpass_tools::error_code::ToolErrorCode;

/// Writes `rel` and sets its modification time `ago` before now.
fn write_aged(sb: &Sandbox, rel: &str, ago: Duration) -> PathBuf {
    let path = sb.write(rel, "x\n");
    let file = File::options().write(true).open(&path).unwrap();
    file.set_modified(SystemTime::now() - ago).unwrap();
    path
}

/// The listed paths, relative to the root.
fn listed(sb: &Sandbox, result: &ToolResult) -> Vec<String> {
    result
        .result_file_paths
        .iter()
        .map(|p| {
            p.strip_prefix(sb.root())
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect()
}

const HOUR: Duration = Duration::from_secs(3_600);
const DAY: Duration = Duration::from_secs(86_400);

#[test]
fn recent_files_come_first_newest_first_then_the_rest_by_locale() {
    // The old names are those of the Qwen probe, whose order this is.
    let sb = Sandbox::new();
    for name in [
        "b.txt", "B.txt", "a_b.txt", "a-b.txt", "a.b.txt", "ab.txt", "Ab.txt", "a/b.txt", "a1.txt",
        "a10.txt", "a9.txt", "x y.txt", "_x.txt", "~x.txt", "z.txt", "Z/a.txt", "é.txt", "e.txt",
        "f.txt",
    ] {
        write_aged(&sb, name, 2 * DAY);
    }
    write_aged(&sb, "older-recent.txt", 20 * HOUR);
    write_aged(&sb, "newest.txt", Duration::from_secs(60));
    write_aged(&sb, "new.txt", HOUR);
    let result = sb.call("glob", json!({"pattern": "**/*"}));
    insta::assert_snapshot!(sb.text(&result), @r#"
    Found 22 file(s) matching "**/*" in the workspace directory, sorted by modification time (newest first):
    ---
    [ROOT]/newest.txt
    [ROOT]/new.txt
    [ROOT]/older-recent.txt
    [ROOT]/_x.txt
    [ROOT]/~x.txt
    [ROOT]/a_b.txt
    [ROOT]/a-b.txt
    [ROOT]/a.b.txt
    [ROOT]/a/b.txt
    [ROOT]/a1.txt
    [ROOT]/a10.txt
    [ROOT]/a9.txt
    [ROOT]/ab.txt
    [ROOT]/Ab.txt
    [ROOT]/b.txt
    [ROOT]/B.txt
    [ROOT]/e.txt
    [ROOT]/é.txt
    [ROOT]/f.txt
    [ROOT]/x y.txt
    [ROOT]/z.txt
    [ROOT]/Z/a.txt
    "#);
    assert_eq!(display(&result), "Found 22 matching file(s)");
    assert_eq!(
        listed(&sb, &result)[..3],
        ["newest.txt", "new.txt", "older-recent.txt"]
    );
}

#[test]
fn more_than_a_hundred_files_are_cut_with_qwens_marker() {
    let sb = Sandbox::new();
    for i in 0..150 {
        write_aged(&sb, &format!("f{i:03}.rs"), 2 * DAY);
    }
    let result = sb.call("glob", json!({"pattern": "*.rs"}));
    assert_eq!(result.result_file_paths.len(), 100);
    assert!(
        result
            .llm_content
            .starts_with("Found 150 file(s) matching \"*.rs\"")
    );
    assert!(
        result
            .llm_content
            .ends_with("/f099.rs\n---\n[50 files truncated] ..."),
        "{}",
        result.llm_content
    );
    assert_eq!(display(&result), "Found 150 matching file(s) (truncated)");
    let one_over = Sandbox::new();
    for i in 0..101 {
        write_aged(&one_over, &format!("f{i:03}.rs"), 2 * DAY);
    }
    let result = one_over.call("glob", json!({"pattern": "*.rs"}));
    assert!(
        result
            .llm_content
            .ends_with("\n---\n[1 file truncated] ...")
    );
}

#[test]
fn the_session_line_threshold_lowers_the_cap() {
    let sb = Sandbox::with_config(SessionConfig {
        truncate_lines: 3,
        ..SessionConfig::default()
    });
    for i in 0..5 {
        sb.write(&format!("f{i}.rs"), "");
    }
    let result = sb.call("glob", json!({"pattern": "*.rs"}));
    assert_eq!(result.result_file_paths.len(), 3);
    assert!(result.llm_content.ends_with("[2 files truncated] ..."));
}

#[test]
fn the_walk_stops_after_a_thousand_matches_and_says_at_least() {
    let sb = Sandbox::new();
    for i in 0..1_000 {
        sb.write(&format!("d/f{i:04}.rs"), "");
    }
    let exactly = sb.call("glob", json!({"pattern": "**/*.rs"}));
    assert!(
        exactly
            .llm_content
            .starts_with("Found 1000 file(s) matching \"**/*.rs\" in the workspace directory")
    );
    assert!(
        exactly
            .llm_content
            .ends_with("\n---\n[900 files truncated] ...")
    );
    sb.write("d/f1000.rs", "");
    let over = sb.call("glob", json!({"pattern": "**/*.rs"}));
    assert!(over.llm_content.starts_with("Found at least 1000 file(s) matching \"**/*.rs\" in the workspace directory, sorted by modification time (newest first):\n---\n"));
    assert!(over.llm_content.ends_with(
        "\n---\n[Results truncated after scanning 1000 matching files. Narrow the pattern or path.]"
    ));
    assert_eq!(
        display(&over),
        "Found at least 1000 matching file(s) (truncated)"
    );
    assert_eq!(over.result_file_paths.len(), 100);
}

#[test]
fn without_git_only_qwen_ignore_files_hide_anything() {
    // Qwen 0.24.4: node_modules and gitignored files are listed, .qwenignore'd ones not.
    let sb = Sandbox::new();
    sb.write(".qwenignore", "secret/\n*.log\n");
    sb.write(".aiignore", "ai.txt\n");
    sb.write(".gitignore", "ignored.txt\n");
    for rel in [
        "secret/s.txt",
        "app.log",
        "ai.txt",
        "ignored.txt",
        "node_modules/x.js",
        ".hidden/h.txt",
        "a.txt",
    ] {
        sb.write(rel, "");
    }
    let mut rels = listed(&sb, &sb.call("glob", json!({"pattern": "**/*"})));
    rels.sort();
    assert_eq!(
        rels,
        [
            ".aiignore",
            ".gitignore",
            ".hidden/h.txt",
            ".qwenignore",
            "a.txt",
            "ignored.txt",
            "node_modules/x.js"
        ]
    );
}

#[test]
fn in_a_git_repository_gitignore_and_git_are_respected_too() {
    let sb = Sandbox::new();
    sb.git_init();
    sb.write(".git/HEAD", "ref: refs/heads/main\n");
    sb.write(".gitignore", "ign/\n*.tmp\n");
    sb.write("src/.gitignore", "local.txt\n");
    sb.write(".qwenignore", "q.txt\n");
    for rel in [
        "ign/x.txt",
        "a.tmp",
        "src/local.txt",
        "src/main.rs",
        "q.txt",
        "top.rs",
        "local.txt",
    ] {
        sb.write(rel, "");
    }
    let mut rels = listed(&sb, &sb.call("glob", json!({"pattern": "**/*"})));
    rels.sort();
    assert_eq!(
        rels,
        [
            ".gitignore",
            ".qwenignore",
            "local.txt",
            "src/.gitignore",
            "src/main.rs",
            "top.rs"
        ]
    );
    // Searching inside an ignored directory finds nothing, as Qwen checks parents.
    let inside = sb.call("glob", json!({"pattern": "*", "path": "ign"}));
    assert!(
        inside
            .llm_content
            .starts_with("No files found matching pattern \"*\" within ")
    );
}

#[test]
fn patterns_are_case_insensitive_match_dot_files_and_list_symlinks_unfollowed() {
    let sb = Sandbox::new();
    sb.write("Upper.TXT", "");
    sb.write(".hidden.txt", "");
    sb.write("target/in.txt", "");
    std::os::unix::fs::symlink("target", sb.root().join("dirlink")).unwrap();
    std::os::unix::fs::symlink("nowhere", sb.root().join("dangling.txt")).unwrap();
    let mut rels = listed(&sb, &sb.call("glob", json!({"pattern": "*.txt"})));
    rels.sort();
    assert_eq!(rels, [".hidden.txt", "Upper.TXT", "dangling.txt"]);
    let mut all = listed(&sb, &sb.call("glob", json!({"pattern": "**/*"})));
    all.sort();
    assert_eq!(
        all,
        [
            ".hidden.txt",
            "Upper.TXT",
            "dangling.txt",
            "dirlink",
            "target/in.txt"
        ]
    );
}

#[test]
fn a_pattern_naming_an_existing_file_is_taken_literally() {
    let sb = Sandbox::new();
    sb.write("[id].ts", "");
    sb.write("i.ts", "");
    assert_eq!(
        listed(&sb, &sb.call("glob", json!({"pattern": "[id].ts"}))),
        ["[id].ts"]
    );
}

#[test]
fn a_path_narrows_the_search_and_is_named_absolute() {
    let sb = Sandbox::new();
    sb.write("sub/dir/deep.txt", "");
    sb.write("top.txt", "");
    let result = sb.call("glob", json!({"pattern": "**/*", "path": "sub"}));
    assert_eq!(
        sb.text(&result),
        "Found 1 file(s) matching \"**/*\" within [ROOT]/sub, sorted by modification time (newest first):\n---\n[ROOT]/sub/dir/deep.txt"
    );
    let none = sb.call("glob", json!({"pattern": "*.zzz", "path": "sub/"}));
    assert_eq!(
        sb.text(&none),
        "No files found matching pattern \"*.zzz\" within [ROOT]/sub"
    );
    assert_eq!(display(&none), "No files found");
    assert!(none.result_file_paths.is_empty());
    let root = sb.call("glob", json!({"pattern": "*.zzz"}));
    assert_eq!(
        root.llm_content,
        "No files found matching pattern \"*.zzz\" in the workspace directory"
    );
}

#[test]
fn bad_arguments_are_refused_like_qwen_and_escapes_like_the_sandbox() {
    let sb = Sandbox::new();
    sb.write("b.txt", "");
    // The reason as Qwen words it, after the build-error prefix.
    let refusal = |args: Value| {
        let result = sb.call("glob", args);
        let message = result.error.clone().unwrap().message;
        let reason = message.rsplit("Reason: ").next().unwrap().to_owned();
        (code(&result), sb.masked(&reason))
    };
    assert_eq!(
        refusal(json!({"pattern": "  "})),
        (
            Some(ToolErrorCode::InvalidToolParams),
            "The 'pattern' parameter cannot be empty.".to_owned()
        )
    );
    let (c, m) = refusal(json!({"pattern": "*", "path": "nope"}));
    assert_eq!(
        (c, m.as_str()),
        (
            Some(ToolErrorCode::InvalidToolParams),
            "Path does not exist: [ROOT]/nope"
        )
    );
    let (c, m) = refusal(json!({"pattern": "*", "path": "b.txt"}));
    assert_eq!(
        (c, m.as_str()),
        (
            Some(ToolErrorCode::InvalidToolParams),
            "Path is not a directory: [ROOT]/b.txt"
        )
    );
    for path in ["..", "/etc", "~"] {
        assert_eq!(
            refusal(json!({"pattern": "*", "path": path})).0,
            Some(ToolErrorCode::PathNotInWorkspace),
            "{path}"
        );
    }
}
