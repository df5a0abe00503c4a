//! The `file_path` argument as Qwen's file tools take it: trimmed,
//! shell-escapes removed (`my\ file.txt` → `my file.txt`, Qwen's
//! `unescapePath`), non-empty and absolute; and, beyond Qwen, resolved
//! inside the session's sandbox.

use std::path::PathBuf;

use crate::error_code::ToolErrorCode;
use crate::located::Located;
use crate::tool::BuildError;
use crate::workspace::Workspace;

/// Characters Qwen's `SHELL_SPECIAL_CHARS` lets a backslash escape.
const SHELL_SPECIALS: &str = " \t()[]{};|*?$`'\"#&<>!~,";

/// Qwen's `unescapePath`: drops a backslash before a shell special
/// character; any other backslash stays.
#[must_use]
pub fn unescape_path(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(&next) = chars.peek()
            && SHELL_SPECIALS.contains(next)
        {
            continue;
        }
        out.push(c);
    }
    out
}

/// Qwen's `validateToolParamValues` for a `file_path`: normalizes it in
/// place and checks it is non-empty and absolute.
///
/// # Errors
/// Qwen's messages: "The 'file_path' parameter must be non-empty." and
/// "File path must be absolute: ...".
pub fn normalize_file_path(file_path: &mut String) -> Result<(), BuildError> {
    *file_path = unescape_path(file_path.trim());
    if file_path.is_empty() {
        return Err(BuildError::invalid(
            "The 'file_path' parameter must be non-empty.",
        ));
    }
    if !file_path.starts_with('/') {
        return Err(BuildError::invalid(format!(
            "File path must be absolute: {file_path}"
        )));
    }
    Ok(())
}

/// The real path of `path` (absolute, normalized) under the session's
/// sandbox.
///
/// # Errors
/// The sandbox's refusal (outside the root, a symlink loop, ...), with its
/// own code and message.
pub fn resolve_in_sandbox(workspace: &Workspace, path: &str) -> Result<PathBuf, BuildError> {
    locate(workspace, path).map(|located| located.path().to_owned())
}

/// [`resolve_in_sandbox`] for a path a tool will write: the session's
/// spill directory is readable, never writable.
///
/// # Errors
/// As [`resolve_in_sandbox`], and `path_not_in_workspace` for a path in a
/// read-only area.
pub fn resolve_for_write(workspace: &Workspace, path: &str) -> Result<PathBuf, BuildError> {
    let located = locate(workspace, path)?;
    if !located.is_writable() {
        return Err(BuildError {
            code: ToolErrorCode::PathNotInWorkspace,
            message: format!(
                "Path {path} is in the workspace's spill directory, which tools may read but not \
                 write; only paths inside the workspace root can be written."
            ),
        });
    }
    Ok(located.path().to_owned())
}

fn locate(workspace: &Workspace, path: &str) -> Result<Located, BuildError> {
    workspace.sandbox().locate(path).map_err(|e| BuildError {
        code: e.code(),
        message: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unescapes_shell_specials_and_keeps_other_backslashes() {
        // upstream: edit.test.ts "should unescape shell-escaped spaces in file_path",
        // "should unescape multiple shell-escaped characters", "should preserve literal backslashes"
        assert_eq!(unescape_path(r"/r/my\ file.txt"), "/r/my file.txt");
        assert_eq!(
            unescape_path(r"/r/project\ \(v2\)\ \&\ more.txt"),
            "/r/project (v2) & more.txt"
        );
        assert_eq!(
            unescape_path(r"/r/path\\with\\slashes.txt"),
            r"/r/path\\with\\slashes.txt"
        );
    }

    #[test]
    fn relative_and_empty_paths_are_refused_with_qwens_messages() {
        let mut p = "relative.txt".to_owned();
        assert_eq!(
            normalize_file_path(&mut p).unwrap_err().message,
            "File path must be absolute: relative.txt"
        );
        let mut p = "   ".to_owned();
        assert_eq!(
            normalize_file_path(&mut p).unwrap_err().message,
            "The 'file_path' parameter must be non-empty."
        );
        let mut p = "  /a/b  ".to_owned();
        normalize_file_path(&mut p).unwrap();
        assert_eq!(p, "/a/b");
    }
}
