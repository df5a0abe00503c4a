//! `grep_search` end to end on a real sandbox: Qwen 0.24.4's output for the
//! strategy a scenario sandbox gets (`grep -r`: no `.git`) and for a git
//! work tree (`git grep`), its caps and budget, the reads it records, and
//! its errors. Expectations quoted as "Qwen" were produced by running the
//! published package on the same files.

mod common;

use std::fs;

use serde_json::{Value, json};
use toolpass_tools::prior_read::{Verb, check_prior_read};
use toolpass_tools::session::SessionConfig;
use toolpass_tools::tools::grep_search::MAX_OUTPUT_CHARS;

use common::{Sandbox, code, display};
use toolpass_tools::error_code::ToolErrorCode;

/// Whether a mutating tool would now be let through for `rel`.
fn may_edit(sb: &Sandbox, rel: &str) -> Result<(), ToolErrorCode> {
    let path = sb.located(rel);
    check_prior_read(
        &sb.session.read_cache(),
        sb.session.faults(),
        &path,
        rel,
        Verb::Editing,
        false,
    )
    .map(|_| ())
    .map_err(|r| r.code)
}

/// The files of the Qwen probe: the same names and bytes.
fn probe_sandbox() -> Sandbox {
    let sb = Sandbox::new();
    sb.write("a.txt", "Hello World\nhello again\n  indented Hello  \n");
    sb.write("src/b.rs", "fn main() { println!(\"HELLO\"); }\n");
    sb.write(".gitignore", "ignored.txt\n");
    sb.write("ignored.txt", "hello ignored\n");
    sb.write("node_modules/x.js", "hello nm\n");
    sb.write(".hidden/h.txt", "hello hidden\n");
    sb.write("bin.dat", b"hello\0\0\0world");
    sb
}

#[test]
fn without_git_the_search_is_grep_r_case_sensitive_and_gitignore_blind() {
    // Qwen 0.24.4 on these files (its order is the directory's; ours is by path):
    // hidden and gitignored files are searched, node_modules and the binary are not,
    // and "Hello"/"HELLO" do not match "hello".
    let sb = probe_sandbox();
    let result = sb.call("grep_search", json!({"pattern": "hello"}));
    assert_eq!(code(&result), None);
    insta::assert_snapshot!(sb.text(&result), @r#"
    Found 3 matches for pattern "hello" in the workspace directory:
    ---
    File: .hidden/h.txt
    L1: hello hidden
    ---
    File: a.txt
    L2: hello again
    ---
    File: ignored.txt
    L1: hello ignored
    ---
    "#);
    assert_eq!(display(&result), "Found 3 matches");
    assert_eq!(
        result.result_file_paths,
        [".hidden/h.txt", "a.txt", "ignored.txt"].map(|r| sb.root().join(r))
    );
}

#[test]
fn in_a_git_work_tree_the_search_is_git_grep_case_insensitive_and_gitignore_aware() {
    let sb = probe_sandbox();
    sb.git_init();
    sb.write(".git/config", "hello from git internals\n");
    let result = sb.call("grep_search", json!({"pattern": "hello"}));
    insta::assert_snapshot!(sb.text(&result), @r#"
    Found 6 matches for pattern "hello" in the workspace directory:
    ---
    File: .hidden/h.txt
    L1: hello hidden
    ---
    File: a.txt
    L1: Hello World
    L2: hello again
    L3: indented Hello
    ---
    File: node_modules/x.js
    L1: hello nm
    ---
    File: src/b.rs
    L1: fn main() { println!("HELLO"); }
    ---
    "#);
}

#[test]
fn qwen_ignore_files_do_not_hide_anything_from_grep() {
    // Qwen's GrepTool (unlike its glob and its ripgrep tool) never reads .qwenignore.
    let sb = Sandbox::new();
    sb.write(".qwenignore", "secret/\n");
    sb.write("secret/s.txt", "hello secret\n");
    let result = sb.call("grep_search", json!({"pattern": "hello"}));
    assert!(
        result.llm_content.contains("File: secret/s.txt"),
        "{}",
        result.llm_content
    );
}

#[test]
fn binary_files_are_skipped_and_undecodable_lines_dropped_like_gnu_grep() {
    // Qwen (GNU grep 3.8, C.UTF-8): nul.txt contributes nothing; latin.txt shows
    // lines 1 and 3, not the Latin-1 line 2.
    let sb = Sandbox::new();
    sb.write("nul.txt", b"hello first\n\x00 hello after nul\n");
    sb.write("latin.txt", b"hello ok\nhello caf\xe9\nhello later\n");
    let result = sb.call("grep_search", json!({"pattern": "hello"}));
    insta::assert_snapshot!(sb.text(&result), @r#"
    Found 2 matches for pattern "hello" in the workspace directory:
    ---
    File: latin.txt
    L1: hello ok
    L3: hello later
    ---
    "#);
}

#[test]
fn a_late_nul_hides_only_what_each_tool_would_hide() {
    // Counts measured with GNU grep 3.8 (`grep -n`, reads of 96 KiB: lines of the
    // reads before the NUL's are printed) and git 2.x (`git grep`: a NUL after the
    // first 8 000 bytes does not make a file binary).
    let cases: [(&str, Vec<u8>, usize, usize); 4] = [
        (
            "early.txt",
            [
                b"hello\n".repeat(10),
                b"\x00\n".to_vec(),
                b"hello\n".repeat(10),
            ]
            .concat(),
            0,
            0,
        ),
        (
            "mid.txt",
            [b"hello\n".repeat(5_000), b"\x00\n".to_vec()].concat(),
            0,
            5_000,
        ),
        (
            "late.txt",
            [b"hello\n".repeat(40_000), b"\x00\n".to_vec()].concat(),
            32_768,
            40_000,
        ),
        (
            "odd.txt",
            [b"hello world!!\n".repeat(10_000), b"\x00\n".to_vec()].concat(),
            7_021,
            10_000,
        ),
    ];
    for git in [false, true] {
        let sb = Sandbox::new();
        if git {
            sb.git_init();
        }
        for (name, bytes, grep_hits, git_hits) in &cases {
            sb.write(name, bytes);
            let result = sb.call(
                "grep_search",
                json!({"pattern": "hello", "path": ".", "limit": 100_000}),
            );
            let expected = if git { git_hits } else { grep_hits };
            let lines = result
                .llm_content
                .lines()
                .filter(|l| l.starts_with('L'))
                .count();
            // Qwen's own 1 000-line threshold caps what is listed, not what is found.
            let found = if *expected == 0 {
                "No matches found".to_owned()
            } else {
                format!("Found {expected} matches")
            };
            assert!(
                result.llm_content.starts_with(&found),
                "{name} git={git}: {}",
                &result.llm_content[..80.min(result.llm_content.len())]
            );
            assert_eq!(lines, (*expected).min(1_000), "{name} git={git}");
            fs::remove_file(sb.root().join(name)).unwrap();
        }
    }
}

#[test]
fn in_a_git_work_tree_undecodable_lines_are_shown_lossily() {
    let sb = Sandbox::new();
    sb.git_init();
    sb.write("latin.txt", b"hello ok\nhello caf\xe9\n");
    let result = sb.call("grep_search", json!({"pattern": "hello"}));
    assert!(
        result.llm_content.contains("L2: hello caf\u{fffd}"),
        "{}",
        result.llm_content
    );
}

#[test]
fn lines_are_trimmed_as_javascript_trims_and_crlf_is_dropped() {
    let sb = Sandbox::new();
    sb.write("bom.txt", "\u{feff}hello bom  \n");
    sb.write("crlf.txt", "hello crlf\r\nworld\r\n");
    sb.write("sp.txt", "\u{a0} hello nbsp \u{85}\n");
    let result = sb.call("grep_search", json!({"pattern": "hello"}));
    assert!(
        result
            .llm_content
            .contains("File: bom.txt\nL1: hello bom\n")
    );
    assert!(
        result
            .llm_content
            .contains("File: crlf.txt\nL1: hello crlf\n")
    );
    assert!(
        result
            .llm_content
            .contains("File: sp.txt\nL1: hello nbsp \u{85}\n")
    );
}

#[test]
fn array_index_file_names_come_first_as_in_a_javascript_object() {
    let sb = Sandbox::new();
    for name in ["123", ".dot", "5", "a.txt", "05"] {
        sb.write(name, "hello\n");
    }
    let result = sb.call("grep_search", json!({"pattern": "hello"}));
    let files: Vec<&str> = result
        .llm_content
        .lines()
        .filter_map(|l| l.strip_prefix("File: "))
        .collect();
    assert_eq!(files, ["5", "123", ".dot", "05", "a.txt"]);
}

#[test]
fn the_glob_filter_is_grep_include_on_base_names_without_git() {
    // Qwen: "*.txt" finds .txt files at any depth, "**/*.txt" finds nothing, and
    // "*.{ts,tsx}" (the declaration's own example) finds nothing either.
    let sb = Sandbox::new();
    sb.write("a.txt", "hello\n");
    sb.write("sub/dir/deep.txt", "hello\n");
    sb.write("x.ts", "hello\n");
    let files = |glob: &str| {
        sb.call("grep_search", json!({"pattern": "hello", "glob": glob}))
            .result_file_paths
    };
    assert_eq!(
        files("*.txt"),
        [sb.root().join("a.txt"), sb.root().join("sub/dir/deep.txt")]
    );
    assert!(files("**/*.txt").is_empty());
    assert!(files("*.{ts,tsx}").is_empty());
    let none = sb.call(
        "grep_search",
        json!({"pattern": "hello", "glob": "**/*.txt"}),
    );
    assert_eq!(
        none.llm_content,
        "No matches found for pattern \"hello\" in the workspace directory (filter: \"**/*.txt\")."
    );
    assert_eq!(display(&none), "No matches found");
}

#[test]
fn the_glob_filter_is_a_git_pathspec_in_a_git_work_tree() {
    // Qwen (git grep -- GLOB): "*.rs" crosses directories, "**/*.rs" needs one,
    // a directory name selects what is under it.
    let sb = Sandbox::new();
    sb.git_init();
    sb.write("top.rs", "hello\n");
    sb.write("src/main.rs", "hello\n");
    sb.write("src/deep/x.rs", "hello\n");
    let rels = |glob: &str| -> Vec<String> {
        sb.call("grep_search", json!({"pattern": "hello", "glob": glob}))
            .result_file_paths
            .iter()
            .map(|p| {
                p.strip_prefix(sb.root())
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect()
    };
    assert_eq!(rels("*.rs"), ["src/deep/x.rs", "src/main.rs", "top.rs"]);
    assert_eq!(rels("**/*.rs"), ["src/deep/x.rs", "src/main.rs"]);
    assert_eq!(rels("src"), ["src/deep/x.rs", "src/main.rs"]);
}

#[test]
fn a_path_searches_below_it_and_names_files_relative_to_it() {
    let sb = Sandbox::new();
    sb.write("sub/dir/deep.txt", "hello deep\n");
    sb.write("top.txt", "hello top\n");
    let result = sb.call("grep_search", json!({"pattern": "hello", "path": "sub"}));
    assert_eq!(
        result.llm_content,
        "Found 1 match for pattern \"hello\" in path \"sub\":\n---\nFile: dir/deep.txt\nL1: hello deep\n---"
    );
    assert_eq!(
        result.result_file_paths,
        [sb.root().join("sub/dir/deep.txt")]
    );
    let none = sb.call("grep_search", json!({"pattern": "zzz", "path": "sub/"}));
    assert_eq!(
        none.llm_content,
        "No matches found for pattern \"zzz\" in path \"sub/\"."
    );
}

#[test]
fn limit_cuts_the_listing_like_qwen() {
    // Qwen's text for `limit: 2`: the cut marker follows the last "---" after a space.
    let sb = Sandbox::new();
    for name in ["a.txt", "b.txt", "c.txt"] {
        sb.write(name, "hello 1\nhello 2\n");
    }
    let result = sb.call("grep_search", json!({"pattern": "hello", "limit": 3}));
    insta::assert_snapshot!(result.llm_content, @r#"
    Found 6 matches for pattern "hello" in the workspace directory:
    ---
    File: a.txt
    L1: hello 1
    L2: hello 2
    ---
    File: b.txt
    L1: hello 1
    ---
     [3 lines truncated] ...
    "#);
    assert_eq!(display(&result), "Found 6 matches (truncated)");
    assert_eq!(
        result.result_file_paths,
        [sb.root().join("a.txt"), sb.root().join("b.txt")]
    );
    // A limit of 2.0 is an integer to JSON Schema and to Qwen.
    assert_eq!(
        code(&sb.call("grep_search", json!({"pattern": "hello", "limit": 2.0}))),
        None
    );
    assert_eq!(
        code(&sb.call("grep_search", json!({"pattern": "hello", "limit": 0}))),
        Some(ToolErrorCode::InvalidToolParams)
    );
}

#[test]
fn the_session_line_threshold_caps_the_listing() {
    let sb = Sandbox::new();
    sb.write("many.txt", "hit\n".repeat(1_005));
    let result = sb.call("grep_search", json!({"pattern": "hit"}));
    assert!(result.llm_content.starts_with("Found 1005 matches"));
    assert!(
        result
            .llm_content
            .ends_with("L1000: hit\n---\n [5 lines truncated] ...")
    );
    let limited = sb.call("grep_search", json!({"pattern": "hit", "limit": 5000}));
    assert_eq!(limited.llm_content, result.llm_content);
}

#[test]
fn the_character_budget_is_qwens_and_the_tool_budget_is_left_to_the_scheduler() {
    // 40 files of 10 lines of 100 characters: about 43 000 characters of listing.
    let sb = Sandbox::new();
    let line = format!("needle {}\n", "x".repeat(93));
    for i in 0..40 {
        sb.write(&format!("f{i:02}.txt"), line.repeat(10));
    }
    let result = sb.call("grep_search", json!({"pattern": "needle"}));
    let text = &result.llm_content;
    let header = "Found 400 matches for pattern \"needle\" in the workspace directory:\n---\n";
    let listing = text.strip_prefix(header).unwrap();
    let (listing, marker) = listing.rsplit_once(" [").unwrap();
    // 25 000 characters of listing, the last line cut, then "...".
    assert_eq!(listing.chars().count(), 25_000 + 3);
    assert!(listing.ends_with("..."));
    // Each file takes 14 + 9 * 105 + 106 + 4 = 1069 characters; 23 files fit
    // (24 587), then "File: f23.txt", three lines and 84 characters of the fourth:
    // 234 lines counted as shown. Qwen 0.24.4 says the same on these files.
    assert_eq!(marker, "166 lines truncated] ...");
    assert_eq!(result.result_file_paths.len(), 24);
    assert_eq!(display(&result), "Found 400 matches (truncated)");
    // The result is still over the tool's own 20 000: the scheduler's generic
    // truncation (toolpass_core::truncate) applies on top, as in Qwen.
    let tool = sb.session.registry().get("grep_search").unwrap();
    assert_eq!(tool.max_output_chars(&sb.session), Some(MAX_OUTPUT_CHARS));
    let limits = toolpass_core::truncate::Limits {
        threshold: MAX_OUTPUT_CHARS,
        lines: None,
        ..Default::default()
    };
    assert!(toolpass_core::truncate::truncate(text, &limits).is_some());
}

#[test]
fn a_smaller_session_threshold_shrinks_the_budget() {
    let sb = Sandbox::with_config(SessionConfig {
        truncate_threshold: 30,
        ..SessionConfig::default()
    });
    sb.write("a.txt", "hello one\nhello two\nhello three\n");
    let result = sb.call("grep_search", json!({"pattern": "hello"}));
    assert_eq!(
        result.llm_content,
        "Found 3 matches for pattern \"hello\" in the workspace directory:\n---\nFile: a.txt\nL1: hello one\nL2: ... [1 line truncated] ..."
    );
}

#[test]
fn a_hit_counts_as_a_partial_read_so_an_edit_may_follow() {
    let sb = Sandbox::new();
    sb.write("a.txt", "hello\n");
    sb.write("other.txt", "nothing here\n");
    assert_eq!(
        may_edit(&sb, "a.txt"),
        Err(ToolErrorCode::EditRequiresPriorRead)
    );
    sb.call("grep_search", json!({"pattern": "hello"}));
    assert_eq!(may_edit(&sb, "a.txt"), Ok(()));
    assert_eq!(
        may_edit(&sb, "other.txt"),
        Err(ToolErrorCode::EditRequiresPriorRead)
    );
    // Partial: the read cache entry does not claim the whole file was seen.
    let meta = fs::metadata(sb.root().join("a.txt")).unwrap();
    let cache = sb.session.read_cache();
    let toolpass_tools::read_cache::CacheState::Fresh(entry) = cache.check(&meta) else {
        panic!("a.txt not recorded")
    };
    assert!(!entry.last_read_was_full && entry.last_read_cacheable);
}

#[test]
fn a_notebook_hit_is_recorded_but_does_not_allow_an_edit() {
    let sb = Sandbox::new();
    sb.write("nb.ipynb", "{\"cells\": [\"hello\"]}\n");
    sb.write("NB2.IPYNB", "hello\n");
    sb.call("grep_search", json!({"pattern": "hello"}));
    assert_eq!(
        may_edit(&sb, "nb.ipynb"),
        Err(ToolErrorCode::EditRequiresPriorRead)
    );
    assert_eq!(
        may_edit(&sb, "NB2.IPYNB"),
        Err(ToolErrorCode::EditRequiresPriorRead)
    );
}

#[test]
fn files_cut_from_the_listing_are_not_recorded_as_read() {
    let sb = Sandbox::new();
    sb.write("a.txt", "hello\n");
    sb.write("b.txt", "hello\n");
    let result = sb.call("grep_search", json!({"pattern": "hello", "limit": 1}));
    assert_eq!(result.result_file_paths, [sb.root().join("a.txt")]);
    assert_eq!(may_edit(&sb, "a.txt"), Ok(()));
    assert_eq!(
        may_edit(&sb, "b.txt"),
        Err(ToolErrorCode::EditRequiresPriorRead)
    );
}

#[test]
fn invalid_patterns_are_refused_with_qwens_code_and_text() {
    let sb = Sandbox::new();
    for (pattern, reason) in [
        ("(", "/(/: Unterminated group"),
        ("[a-", "/[a-/: Unterminated character class"),
        ("*abc", "/*abc/: Nothing to repeat"),
        ("(?i)HELLO", "/(?i)HELLO/: Invalid group"),
    ] {
        let result = sb.call("grep_search", json!({ "pattern": pattern }));
        assert_eq!(code(&result), Some(ToolErrorCode::InvalidToolParams));
        let message = &result.error.as_ref().unwrap().message;
        let qwen = format!(
            "Invalid regular expression pattern: {pattern}. Error: Invalid regular expression: {reason}"
        );
        assert!(message.contains(&qwen), "{message}");
    }
}

#[test]
fn bad_paths_are_refused_like_qwen_and_escapes_like_the_sandbox() {
    let sb = Sandbox::new();
    sb.write("b.txt", "hello\n");
    let message = |args: Value| {
        let result = sb.call("grep_search", args);
        (code(&result), sb.masked(&result.error.unwrap().message))
    };
    let (c, m) = message(json!({"pattern": "hello", "path": "nope"}));
    assert_eq!(c, Some(ToolErrorCode::InvalidToolParams));
    assert!(m.contains("Path does not exist: [ROOT]/nope"), "{m}");
    let (c, m) = message(json!({"pattern": "hello", "path": "b.txt"}));
    assert_eq!(c, Some(ToolErrorCode::InvalidToolParams));
    assert!(m.contains("Path is not a directory: [ROOT]/b.txt"), "{m}");
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), sb.root().join("out")).unwrap();
    for path in ["../", "/etc", "out", "~", "~/x", "sub/../../x"] {
        let (c, _) = message(json!({"pattern": "hello", "path": path}));
        assert_eq!(c, Some(ToolErrorCode::PathNotInWorkspace), "{path}");
    }
}

#[test]
fn shell_escapes_and_blank_paths_are_normalized_like_qwen() {
    let sb = Sandbox::new();
    sb.write("my dir/a.txt", "hello\n");
    let result = sb.call(
        "grep_search",
        json!({"pattern": "hello", "path": " my\\ dir "}),
    );
    assert!(
        result.llm_content.contains("in path \"my dir\":"),
        "{}",
        result.llm_content
    );
    let blank = sb.call("grep_search", json!({"pattern": "hello", "path": "   "}));
    assert!(blank.llm_content.contains("in the workspace directory:"));
}
