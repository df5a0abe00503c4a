//! `list_directory` end to end. Expected texts were taken from Qwen Code
//! 0.24.4's `LSTool` run on the same trees.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use toolpass_tools::faults::FaultPoint;
use toolpass_tools::result::ToolResult;
use toolpass_tools::session::{Session, SessionConfig};
use toolpass_tools::tool::BuildError;

struct Sandbox {
    _dir: tempfile::TempDir,
    session: Session,
}

impl Sandbox {
    fn new(files: &[(&str, &str)]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let session = Session::new(dir.path(), SessionConfig::default()).unwrap();
        let sb = Sandbox { _dir: dir, session };
        for (name, content) in files {
            let path = sb.path(name);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, content).unwrap();
        }
        sb
    }

    fn root(&self) -> &Path {
        self.session.sandbox().root()
    }

    fn path(&self, name: &str) -> PathBuf {
        self.root().join(name)
    }

    fn arg(&self, name: &str) -> String {
        self.path(name).to_str().unwrap().to_owned()
    }

    fn build(&self, args: &Value) -> Result<ToolResult, BuildError> {
        let tool = self.session.registry().get("list_directory").unwrap();
        Ok(tool.build(args, &self.session)?.execute(&self.session))
    }

    /// The listing with the root shown as `{root}`.
    fn list(&self, args: Value) -> String {
        let result = self.build(&args).unwrap();
        assert!(result.error.is_none(), "{result:?}");
        result
            .llm_content
            .replace(self.root().to_str().unwrap(), "{root}")
    }
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
    let sb = Sandbox::new(TREE);
    // `build/` does not hide the directory: Qwen hands the filters paths
    // without a trailing slash.
    insta::assert_snapshot!(sb.list(json!({"path": sb.arg("")})), @r"
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
    let sb = Sandbox::new(TREE);
    let root = sb.root().to_str().unwrap().to_owned();
    assert_eq!(
        sb.list(json!({"path": root, "ignore": ["*.md", "a?b"]})),
        "Listed 7 item(s) in {root}:\n---\n[DIR] build\n[DIR] src\n[DIR] Zeta\n.gitignore\n.hidden\n.qwenignore\nkeep.log\n\n(2 git-ignored, 1 qwen-ignored)"
    );
    assert_eq!(
        sb.list(json!({"path": root, "file_filtering_options": {"respect_git_ignore": false, "respect_qwen_ignore": false}})),
        "Listed 13 item(s) in {root}:\n---\n[DIR] .git\n[DIR] build\n[DIR] src\n[DIR] Zeta\n.gitignore\n.hidden\n.qwenignore\na_b\na-b\nA.md\nb.txt\ndebug.log\nkeep.log"
    );
}

#[test]
fn gitignore_needs_a_repository() {
    let sb = Sandbox::new(&[(".gitignore", "*.log\n"), ("a.log", "")]);
    assert_eq!(
        sb.list(json!({"path": sb.root()})),
        "Listed 2 item(s) in {root}:\n---\n.gitignore\na.log"
    );
}

#[test]
fn more_than_a_hundred_entries_are_cut() {
    let names: Vec<String> = (1..=105).map(|i| format!("many/f{i}")).collect();
    let files: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), "")).collect();
    let sb = Sandbox::new(&files);
    let listing = sb.list(json!({"path": sb.arg("many")}));
    assert!(listing.starts_with("Listed 105 item(s) in {root}/many:\n---\nf1\nf10\nf100\nf101\n"));
    assert!(listing.ends_with("\nf93\nf94\n---\n[5 items truncated] ..."));
}

#[test]
fn empty_missing_and_non_directories() {
    let sb = Sandbox::new(&[("b.txt", "")]);
    fs::create_dir(sb.path("empty")).unwrap();
    assert_eq!(
        sb.list(json!({"path": sb.arg("empty")})),
        "Directory {root}/empty is empty."
    );
    let missing = sb.build(&json!({"path": sb.arg("nope")})).unwrap();
    let error = missing.error.unwrap();
    assert_eq!(error.code, "ls_execution_error");
    assert_eq!(
        error.message,
        format!(
            "Error listing directory: ENOENT: no such file or directory, stat '{}'",
            sb.arg("nope")
        )
    );
    let file = sb.build(&json!({"path": sb.arg("b.txt")})).unwrap();
    let error = file.error.unwrap();
    assert_eq!(error.code, "path_is_not_a_directory");
    assert_eq!(
        error.message,
        format!("Error: Path is not a directory: {}", sb.arg("b.txt"))
    );
    sb.session.faults().arm(FaultPoint::FsStat, 1);
    let faulted = sb.build(&json!({"path": sb.arg("empty")})).unwrap();
    assert_eq!(faulted.error.unwrap().code, "ls_execution_error");
}

#[test]
fn relative_and_outside_paths_are_refused() {
    let sb = Sandbox::new(&[]);
    let error = sb.build(&json!({"path": "rel"})).unwrap_err();
    assert_eq!(
        (error.code, error.message.as_str()),
        ("invalid_tool_params", "Path must be absolute: rel")
    );
    let error = sb.build(&json!({"path": "/"})).unwrap_err();
    assert_eq!(error.code, "path_not_in_workspace");
}
