//! The walks of `grep_search`, `glob` and `list_directory` stay beneath the
//! root's handle: a directory swapped for a symlink to outside after the
//! call was checked yields an error or a missing entry, never the outside's
//! names or content.
//!
//! Every test keeps to its own temporary directory: the session root is
//! `TMP/root` and the "outside" is `TMP/outside`, beside it.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolpass_tools::context::InvocationContext;
use toolpass_tools::error_code::ToolErrorCode;
use toolpass_tools::result::ToolResult;
use toolpass_tools::session::{Session, SessionConfig};
use toolpass_tools::tool::{Declared, Invocation, Tool};
use toolpass_tools::tools::{
    glob::GlobTool, grep_search::GrepTool, list_directory::ListDirectoryTool,
};

/// The marker in every outside file's name and content.
const SECRET: &str = "toolpass-outside-secret";

/// A session rooted at `TMP/root` with `TMP/outside` beside it.
struct Fixture {
    _tmp: tempfile::TempDir,
    session: Session,
    outside: PathBuf,
}

/// The tools that walk directories, the ones this file attacks.
fn searching_tools() -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(Declared::<GrepTool>::default()),
        Arc::new(Declared::<GlobTool>::default()),
        Arc::new(Declared::<ListDirectoryTool>::default()),
    ]
}

impl Fixture {
    /// `root/sub/inside.txt` and `outside/toolpass-outside-secret.txt`,
    /// both mentioning `needle`.
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("root");
        let outside = tmp.path().join("outside");
        fs::create_dir_all(root.join("sub")).unwrap();
        fs::create_dir_all(outside.join("deeper")).unwrap();
        fs::write(root.join("sub/inside.txt"), "needle inside\n").unwrap();
        fs::write(
            outside.join(format!("{SECRET}.txt")),
            format!("needle {SECRET}\n"),
        )
        .unwrap();
        fs::write(
            outside.join(format!("deeper/{SECRET}.md")),
            format!("needle {SECRET}\n"),
        )
        .unwrap();
        let session = Session::new(&root, SessionConfig::default(), searching_tools()).unwrap();
        Fixture {
            _tmp: tmp,
            session,
            outside,
        }
    }

    fn root(&self) -> &Path {
        self.session.sandbox().root()
    }

    fn build(&self, tool: &str, args: &Value) -> Box<dyn Invocation> {
        let tool = self.session.registry().get(tool).unwrap();
        match tool.build(args, &self.session) {
            Ok(invocation) => invocation,
            Err(e) => panic!("{args}: {} {}", e.code, e.message),
        }
    }

    /// Replaces `root/sub` by a symlink to the outside directory.
    fn swap_out(&self) {
        let sub = self.root().join("sub");
        fs::remove_dir_all(&sub).unwrap();
        std::os::unix::fs::symlink(&self.outside, &sub).unwrap();
    }
}

/// The three calls, each aimed at `sub` or at the root.
fn calls(fx: &Fixture) -> Vec<(&'static str, Value)> {
    let sub = fx.root().join("sub").to_str().unwrap().to_owned();
    vec![
        ("grep_search", json!({"pattern": "needle", "path": "sub"})),
        ("grep_search", json!({"pattern": "needle"})),
        ("glob", json!({"pattern": "**/*", "path": "sub"})),
        ("glob", json!({"pattern": "**/*"})),
        ("list_directory", json!({"path": sub})),
    ]
}

/// Fails when anything of the outside shows in `result`.
fn assert_confined(tool: &str, result: &ToolResult) {
    let shown = format!(
        "{}\n{:?}\n{:?}",
        result.llm_content, result.result_file_paths, result.error
    );
    assert!(
        !shown.contains(SECRET) && !shown.contains("deeper"),
        "{tool} reached outside:\n{shown}"
    );
}

/// Builds each call of `calls` that `keep` admits while `sub` is a real
/// directory, swaps it out, then runs them: each tool's result.
fn run_after_swap(fx: &Fixture, keep: impl Fn(&Value) -> bool) -> Vec<(&'static str, ToolResult)> {
    let built: Vec<_> = calls(fx)
        .into_iter()
        .filter(|(_, args)| keep(args))
        .map(|(tool, args)| (tool, fx.build(tool, &args)))
        .collect();
    fx.swap_out();
    built
        .into_iter()
        .map(|(tool, invocation)| {
            let result = invocation.execute(&fx.session, &InvocationContext::detached());
            (tool, result.unwrap_or_else(ToolResult::from))
        })
        .collect()
}

#[test]
fn a_directory_swapped_between_check_and_walk_is_not_walked() {
    let fx = Fixture::new();
    for (tool, result) in run_after_swap(&fx, |_| true) {
        assert_confined(tool, &result);
    }
}

#[test]
fn a_swapped_start_directory_is_an_escape() {
    let fx = Fixture::new();
    for (tool, result) in run_after_swap(&fx, |args| args.get("path").is_some()) {
        let code = result.error.as_ref().map(|e| e.code);
        assert_eq!(
            code,
            Some(ToolErrorCode::PathNotInWorkspace),
            "{tool}: {result:?}"
        );
    }
}

/// A swapper thread flips `sub` between a real directory and a symlink to
/// outside while the tools run: a bounded number of calls, bounded time.
#[test]
fn calls_racing_a_swapper_never_show_the_outside() {
    const ROUNDS: usize = 300;
    let fx = Fixture::new();
    let (root, outside) = (fx.root().to_path_buf(), fx.outside.clone());
    let stop = AtomicBool::new(false);
    let calls = calls(&fx);
    let mut refused = 0;
    let start = Instant::now();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let (sub, parked) = (root.join("sub"), root.join("parked"));
            let link = root.join("link");
            std::os::unix::fs::symlink(&outside, &link).unwrap();
            // Two renames, so `sub` is now the directory, now the link, and
            // in between briefly absent.
            while !stop.load(Ordering::Relaxed) {
                let _ = fs::rename(&sub, &parked);
                let _ = fs::rename(&link, &sub);
                std::thread::yield_now();
                let _ = fs::rename(&sub, &link);
                let _ = fs::rename(&parked, &sub);
                std::thread::yield_now();
            }
        });
        for _ in 0..ROUNDS {
            for (tool, args) in &calls {
                let tool_impl = fx.session.registry().get(tool).unwrap();
                // The build refuses the path when it meets the link; the
                // execution, when the link came after the build.
                match tool_impl.build(args, &fx.session) {
                    Ok(invocation) => {
                        let result = invocation
                            .execute(&fx.session, &InvocationContext::detached())
                            .unwrap_or_else(ToolResult::from);
                        assert_confined(tool, &result);
                        refused += usize::from(result.error.is_some());
                    }
                    Err(_) => refused += 1,
                }
            }
        }
        stop.store(true, Ordering::Relaxed);
    });
    // The swapper did race the calls: some met the link.
    assert!(refused > 0, "no call met the swapped-in link");
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
}
