//! The fixture every tool test starts from: a [`Sandbox`], a session rooted
//! in a fresh temporary directory, with the few things the tests do to it
//! (lay out files, record reads as `read_file` records them, call tools as
//! the scheduler calls them) and the accessors they read results with.

// Each test binary compiles this module and uses only part of it.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use toolpass_tools::context::InvocationContext;
use toolpass_tools::error_code::ToolErrorCode;
use toolpass_tools::located::Located;
use toolpass_tools::read_cache::ReadKind;
use toolpass_tools::result::{Display, Failure, ToolResult};
use toolpass_tools::session::{Session, SessionConfig};
use toolpass_tools::tool::{BuildError, Invocation, Tool};

/// A read of a whole text file.
pub(crate) const FULL_TEXT: ReadKind = ReadKind {
    full: true,
    cacheable: true,
};

/// A read of part of a text file (`offset` / `limit`).
pub(crate) const PARTIAL_TEXT: ReadKind = ReadKind {
    full: false,
    cacheable: true,
};

/// A session over a temporary directory that lives as long as it does.
pub(crate) struct Sandbox {
    _dir: tempfile::TempDir,
    pub(crate) session: Session,
}

impl Sandbox {
    /// A sandbox with the default session settings.
    pub(crate) fn new() -> Self {
        Self::with_config(SessionConfig::default())
    }

    /// A sandbox with `config`.
    pub(crate) fn with_config(config: SessionConfig) -> Self {
        // The root is one level down, so a test has room beside it (an
        // "outside") that is still inside its own temporary directory.
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("root")).unwrap();
        let session = Session::new(
            &dir.path().join("root"),
            config,
            toolpass_tools::tools::all(),
        )
        .unwrap();
        Sandbox { _dir: dir, session }
    }

    /// A second session over the root of another sandbox, as another
    /// server would open it (the other sandbox keeps the directory).
    pub(crate) fn at(root: &Path) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let session =
            Session::new(root, SessionConfig::default(), toolpass_tools::tools::all()).unwrap();
        Sandbox { _dir: dir, session }
    }

    /// A directory beside the root, for files the tools must not reach.
    pub(crate) fn outside(&self) -> PathBuf {
        let outside = self.root().parent().unwrap().join("outside");
        fs::create_dir_all(&outside).unwrap();
        outside
    }

    /// The session root, resolved as the tools see it.
    pub(crate) fn root(&self) -> &Path {
        self.session.sandbox().root()
    }

    /// The absolute path of `rel`.
    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }

    /// `rel` located in the session's sandbox, as the tools hold it.
    pub(crate) fn located(&self, rel: &str) -> Located {
        self.session.sandbox().locate(rel).unwrap()
    }

    /// The absolute path of `rel` as the model passes it.
    pub(crate) fn arg(&self, rel: &str) -> String {
        self.path(rel).to_str().unwrap().to_owned()
    }

    /// Writes `rel`, making its directories, behind the tools' back.
    pub(crate) fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, bytes).unwrap();
        path
    }

    /// The bytes of `rel` on disk.
    pub(crate) fn bytes(&self, rel: &str) -> Vec<u8> {
        fs::read(self.path(rel)).unwrap()
    }

    /// Makes the root a git work tree, as Qwen's `isGitRepository` sees one.
    pub(crate) fn git_init(&self) {
        fs::create_dir_all(self.path(".git")).unwrap();
    }

    /// Records a read of `rel` straight into the read cache, the way the
    /// `read_file` tool records one, so a test needs no other tool.
    pub(crate) fn record_read(&self, rel: &str, kind: ReadKind) {
        let path = self.path(rel);
        let meta = fs::metadata(&path).unwrap();
        self.session.read_cache().record_read(&path, &meta, kind);
    }

    /// Builds the registered tool `name` with `args`.
    pub(crate) fn build(
        &self,
        name: &str,
        args: &Value,
    ) -> Result<Box<dyn Invocation>, BuildError> {
        self.session
            .registry()
            .get(name)
            .unwrap()
            .build(args, &self.session)
    }

    /// Calls the registered tool `name` as the scheduler does: a build error
    /// is the result the model sees.
    pub(crate) fn call(&self, name: &str, args: Value) -> ToolResult {
        self.call_tool(self.session.registry().get(name).unwrap().as_ref(), args)
    }

    /// [`Sandbox::call`] for a tool the session does not register.
    pub(crate) fn call_tool(&self, tool: &dyn Tool, args: Value) -> ToolResult {
        match tool.build(&args, &self.session) {
            Ok(invocation) => invocation.execute(&self.session, &InvocationContext::detached()),
            Err(e) => Err(Failure::from(e)),
        }
        .unwrap_or_else(ToolResult::from)
    }

    /// Runs the registered tool `name`, whose build must succeed.
    pub(crate) fn execute(&self, name: &str, args: Value) -> ToolResult {
        match self.build(name, &args) {
            Ok(invocation) => invocation
                .execute(&self.session, &InvocationContext::detached())
                .unwrap_or_else(ToolResult::from),
            Err(e) => panic!("{} {}", e.code, e.message),
        }
    }

    /// The build error of the registered tool `name`, whose build must fail.
    pub(crate) fn build_error(&self, name: &str, args: Value) -> BuildError {
        match self.build(name, &args) {
            Ok(_) => panic!("built: {args}"),
            Err(e) => e,
        }
    }

    /// The model's text with the sandbox root replaced by `[ROOT]`.
    pub(crate) fn text(&self, result: &ToolResult) -> String {
        self.masked(&result.llm_content)
    }

    /// `text` with the sandbox root replaced by `[ROOT]`, so expectations
    /// do not depend on where the temporary directory is.
    pub(crate) fn masked(&self, text: &str) -> String {
        text.replace(self.root().to_str().unwrap(), "[ROOT]")
    }
}

/// The error code of `result`, if it failed.
pub(crate) fn code(result: &ToolResult) -> Option<ToolErrorCode> {
    result.error.as_ref().map(|e| e.code)
}

/// The model's text of a result that must have succeeded.
pub(crate) fn ok(result: &ToolResult) -> &str {
    assert!(result.error.is_none(), "unexpected error: {result:?}");
    &result.llm_content
}

/// The text a person is shown, for a tool that shows no diff.
pub(crate) fn display(result: &ToolResult) -> &str {
    match &result.display {
        Display::Text(t) => t,
        Display::Diff(_) => panic!("a diff where a text was expected"),
        Display::Todos(_) => panic!("a todo list where a text was expected"),
    }
}
