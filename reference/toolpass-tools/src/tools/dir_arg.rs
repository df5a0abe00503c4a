//! The `path` argument of `grep_search` and `glob`: Qwen's
//! `resolveAndValidatePath(config, path)` for a directory, inside the
//! sandbox.
//!
//! Qwen trims and shell-unescapes the argument, resolves it against the
//! project root with `path.resolve` (lexically: `..` is folded before any
//! symlink is looked at, `~` is the home directory) and `stat`s it, failing
//! with `Path does not exist: ABS` or `Path is not a directory: ABS`. Paths
//! outside the workspace are allowed there after a prompt; here they are
//! refused with `path_not_in_workspace`, judged both lexically and on the
//! real path the kernel would walk.

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use crate::errno::{fs_error_message, node_errno};
use crate::prior_read::escaped;
use crate::sandbox::{PathErrorKind, is_escape};
use crate::tool::BuildError;
use crate::workspace::Workspace;

use super::path_arg::unescape_path;
use crate::error_code::ToolErrorCode;

/// A validated directory to search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchDir {
    /// The argument as Qwen keeps it (trimmed, unescaped), when one was
    /// given; `None` means the workspace root.
    pub shown: Option<String>,
    /// The absolute path, resolved lexically like Node's `path.resolve`:
    /// what Qwen prints and searches from.
    pub path: PathBuf,
}

/// Normalizes and validates `raw`, Qwen's `validateToolParamValues` step
/// for `path`. A missing, empty or blank argument is the workspace root.
///
/// # Errors
/// `invalid_tool_params` with Qwen's message for a path that does not
/// exist or is not a directory; `path_not_in_workspace` for one outside the
/// session root.
pub fn resolve_dir(raw: Option<&str>, workspace: &Workspace) -> Result<SearchDir, BuildError> {
    let root = workspace.sandbox().root();
    let Some(arg) = raw
        .filter(|r| !r.is_empty())
        .map(|r| unescape_path(r.trim()))
    else {
        return Ok(SearchDir::root(root));
    };
    if arg.is_empty() {
        // Qwen resolves "" to the root, then treats the falsy path as absent.
        return Ok(SearchDir::root(root));
    }
    let outside = |message: String| BuildError {
        code: ToolErrorCode::PathNotInWorkspace,
        message,
    };
    if arg == "~" || arg.starts_with("~/") {
        return Err(outside(format!(
            "Path {arg} resolves outside the workspace; only paths inside the session root are allowed."
        )));
    }
    let path = resolve_lexically(root, &arg);
    let shown_abs = path.to_string_lossy().into_owned();
    if !path.starts_with(root) {
        return Err(outside(format!(
            "Path {arg} resolves outside the workspace; only paths inside the session root are allowed."
        )));
    }
    let located = match workspace.sandbox().locate(&arg) {
        Ok(located) => Some(located),
        Err(e) => match e.kind() {
            PathErrorKind::OutsideWorkspace => return Err(outside(e.to_string())),
            PathErrorKind::SymlinkLoop => {
                return Err(BuildError::invalid(format!(
                    "ELOOP: too many symbolic links encountered, stat '{shown_abs}'"
                )));
            }
            // Reported by the stat below, as Qwen reports it.
            PathErrorKind::Io(_) => None,
        },
    };
    // Beneath the root's handle; only a path the sandbox could not resolve
    // (a component it may not inspect) is stat'ed by name, for Qwen's words.
    let meta = match &located {
        Some(located) => located.stat(),
        None => fs::metadata(&path),
    };
    match meta {
        Ok(meta) if meta.is_dir() => Ok(SearchDir {
            shown: Some(arg),
            path,
        }),
        Ok(_) => Err(BuildError::invalid(format!(
            "Path is not a directory: {shown_abs}"
        ))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(BuildError::invalid(format!(
            "Path does not exist: {shown_abs}"
        ))),
        Err(e) if is_escape(&e) => Err(outside(escaped(&shown_abs).raw_message)),
        Err(e) => Err(BuildError::invalid(node_stat_error(&e, &shown_abs))),
    }
}

impl SearchDir {
    /// The workspace root, the directory searched when no `path` is given.
    #[must_use]
    pub fn root(root: &Path) -> Self {
        SearchDir {
            shown: None,
            path: root.to_path_buf(),
        }
    }
}

/// Node's `path.resolve(root, arg)`: `.` and `..` folded by name, no
/// trailing slash.
#[must_use]
pub fn resolve_lexically(root: &Path, arg: &str) -> PathBuf {
    let mut out = PathBuf::from("/");
    for component in root.join(arg).components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => out.push(name),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}

/// How Node words a failed `statSync`: `EACCES: permission denied, stat
/// '/p'` (the error's own text for one Node does not name).
fn node_stat_error(error: &io::Error, path: &str) -> String {
    match node_errno(error) {
        Some(_) => fs_error_message(error, "stat", path),
        None => error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_like_node_path_resolve() {
        let root = Path::new("/r");
        assert_eq!(resolve_lexically(root, "src/"), Path::new("/r/src"));
        assert_eq!(resolve_lexically(root, "./a/../b"), Path::new("/r/b"));
        assert_eq!(resolve_lexically(root, "/abs/x"), Path::new("/abs/x"));
        assert_eq!(resolve_lexically(root, "../.."), Path::new("/"));
    }
}
