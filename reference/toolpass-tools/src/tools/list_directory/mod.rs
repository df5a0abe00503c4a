//! `list_directory`: Qwen Code's `LSTool` (`packages/core/src/tools/ls.ts`,
//! 0.24.4), which 0.24.4 ships but does not register by default.
//!
//! The entries of one directory, directories first and then by
//! `localeCompare`, at most 100 (or the session's line limit), with the
//! entries that `.gitignore` (in a git repository) or `.qwenignore` hide
//! counted at the end, and the `ignore` globs matched against names.
//!
//! Qwen passes the entries to its ignore filters without a trailing `/`, so
//! directory-only patterns (`build/`) do not hide directories from the
//! listing; that is kept, so both list the same entries.
//!
//! The directory is read through a handle opened beneath the root's
//! ([`walk::open_start`]), so one swapped for a symlink to outside after the
//! check is refused as an escape instead of listed. Entries are typed from
//! the directory entry; a symlink is followed beneath the root's handle, so
//! one leading outside is left out like a dangling one.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;

use super::collate::locale_cmp;
use super::ignore_files::{GitIgnore, QwenIgnore};
use super::node::{fs_error_message, make_relative, shorten_path};
use super::path_arg::{resolve_in_sandbox, unescape_path};
use super::walk::{self, StartError, open_start};
use crate::context::InvocationContext;
use crate::error_code::ToolErrorCode;
use crate::fileio::stat;
use crate::kind::Kind;
use crate::prior_read::escaped;
use crate::result::{Display, Failure, ToolResult};
use crate::sandbox::is_escape;
use crate::tool::{BuildError, DeclarativeTool, Invocation};
use crate::workspace::Workspace;

/// The tool's name.
pub const NAME: &str = "list_directory";

/// Qwen's `MAX_ENTRY_COUNT`.
const MAX_ENTRY_COUNT: usize = 100;

/// The `list_directory` tool.
#[derive(Debug, Default)]
pub struct ListDirectoryTool;

/// `file_filtering_options`.
#[derive(Debug, Default, Deserialize)]
pub struct FilteringOptions {
    respect_git_ignore: Option<bool>,
    respect_qwen_ignore: Option<bool>,
}

/// The arguments.
#[derive(Debug, Deserialize)]
pub struct ListDirectoryParams {
    path: String,
    #[serde(default)]
    ignore: Option<Vec<String>>,
    #[serde(default)]
    file_filtering_options: Option<FilteringOptions>,
    #[serde(skip)]
    resolved: PathBuf,
}

impl DeclarativeTool for ListDirectoryTool {
    const NAME: &'static str = NAME;
    const KIND: Kind = Kind::Search;
    const DECLARATION: &'static str = include_str!("../declarations/list_directory.json");
    type Params = ListDirectoryParams;

    fn validate_values(
        &self,
        params: &mut ListDirectoryParams,
        workspace: &Workspace,
    ) -> Result<(), BuildError> {
        params.path = unescape_path(params.path.trim());
        if !params.path.starts_with('/') {
            return Err(BuildError::invalid(format!(
                "Path must be absolute: {}",
                params.path
            )));
        }
        params.resolved = resolve_in_sandbox(workspace, &params.path)?;
        Ok(())
    }

    fn create_invocation(
        &self,
        params: ListDirectoryParams,
        workspace: &Workspace,
    ) -> Box<dyn Invocation> {
        Box::new(ListDirectoryInvocation {
            params,
            root: workspace.sandbox().root().to_string_lossy().into_owned(),
        })
    }
}

struct ListDirectoryInvocation {
    params: ListDirectoryParams,
    /// The session root, for the description.
    root: String,
}

/// One listed entry.
struct Entry {
    name: String,
    is_dir: bool,
}

impl Invocation for ListDirectoryInvocation {
    fn description(&self) -> String {
        shorten_path(&make_relative(&self.params.path, &self.root))
    }

    fn locations(&self) -> Vec<PathBuf> {
        vec![self.params.resolved.clone()]
    }

    fn execute(
        &self,
        workspace: &Workspace,
        _context: &InvocationContext,
    ) -> Result<ToolResult, Failure> {
        let shown = &self.params.path;
        let dir = &self.params.resolved;
        // Located again: what was inside when the call was built may lead
        // outside now.
        let located = match workspace.sandbox().locate(&dir.to_string_lossy()) {
            Ok(located) => located,
            Err(e) => {
                let message = e.to_string();
                return Err(Failure::new(e.code(), &message).error_display(&message));
            }
        };
        let meta = match stat(workspace.faults(), &located) {
            Ok(meta) => meta,
            Err(e) if is_escape(&e) => return Err(escaped(shown).into()),
            Err(e) => return Err(ls_failure(&fs_error_message(&e, "stat", shown))),
        };
        if !meta.is_dir() {
            return Err(Failure::new(
                ToolErrorCode::PathIsNotADirectory,
                format!("Error: Path is not a directory: {shown}"),
            )
            .error_display("Path is not a directory."));
        }
        let start = match open_start(workspace.sandbox(), dir).map_err(StartError::into_failure) {
            Ok(start) => start,
            Err(Ok(escaped)) => return Err(escaped),
            Err(Err(e)) => return Err(ls_failure(&fs_error_message(&e, "scandir", shown))),
        };
        // In the order the directory yields them (Node's `readdir` order,
        // which the stable sort keeps for names that compare equal).
        let listed = Arc::new(start.dir);
        let names = walk::read_dir(&listed, Path::new(""), 1)
            .map_err(|e| ls_failure(&fs_error_message(&e, "scandir", shown)))?;
        if names.is_empty() {
            return Ok(ToolResult::new(
                format!("Directory {shown} is empty."),
                Display::Text("Directory is empty.".to_owned()),
            ));
        }

        let sandbox = workspace.sandbox();
        let options = self.params.file_filtering_options.as_ref();
        let git = options
            .and_then(|o| o.respect_git_ignore)
            .unwrap_or(true)
            .then(|| GitIgnore::load(sandbox))
            .flatten();
        let qwen = options
            .and_then(|o| o.respect_qwen_ignore)
            .unwrap_or(true)
            .then(|| QwenIgnore::load(sandbox));
        let (mut git_ignored, mut qwen_ignored) = (0usize, 0usize);
        let mut entries: Vec<Entry> = Vec::new();
        for entry in names {
            let name = entry.name().to_string_lossy().into_owned();
            let path = dir.join(&name);
            // As in Qwen, the filters see the path without a trailing
            // slash, whatever the entry is.
            if git.as_ref().is_some_and(|g| g.is_ignored(&path, false)) {
                git_ignored += 1;
                continue;
            }
            if qwen
                .as_ref()
                .is_some_and(|q| q.ignored_by(&path, false).is_some())
            {
                qwen_ignored += 1;
                continue;
            }
            if self
                .params
                .ignore
                .as_deref()
                .is_some_and(|patterns| patterns.iter().any(|p| glob_matches(p, &name)))
            {
                continue;
            }
            // An entry that cannot be stat'ed (a dangling link, or one
            // leading outside) is left out, as Qwen leaves out a dangling one.
            let is_dir = if entry.file_type().is_symlink() {
                let followed = match &start.rel {
                    Some(rel) => sandbox.root_dir().metadata(rel.join(entry.rel())),
                    None => listed.metadata(entry.rel()),
                };
                followed.map(|meta| meta.is_dir())
            } else {
                Ok(entry.is_dir())
            };
            if let Ok(is_dir) = is_dir {
                entries.push(Entry { name, is_dir });
            }
        }
        entries.sort_by(|a, b| {
            b.is_dir
                .cmp(&a.is_dir)
                .then_with(|| locale_cmp(&a.name, &b.name))
        });

        let total = entries.len();
        let limit = MAX_ENTRY_COUNT.min(session_line_limit(workspace));
        let truncated = total > limit;
        let listing: Vec<String> = entries
            .iter()
            .take(limit)
            .map(|e| format!("{}{}", if e.is_dir { "[DIR] " } else { "" }, e.name))
            .collect();
        let mut message = format!(
            "Listed {total} item(s) in {shown}:\n---\n{}",
            listing.join("\n")
        );
        if truncated {
            let omitted = total - limit;
            let term = if omitted == 1 { "item" } else { "items" };
            message.push_str(&format!("\n---\n[{omitted} {term} truncated] ..."));
        }
        let mut ignored: Vec<String> = Vec::new();
        if git_ignored > 0 {
            ignored.push(format!("{git_ignored} git-ignored"));
        }
        if qwen_ignored > 0 {
            ignored.push(format!("{qwen_ignored} qwen-ignored"));
        }
        let mut display = format!("Listed {total} item(s)");
        if !ignored.is_empty() {
            message.push_str(&format!("\n\n({})", ignored.join(", ")));
            display.push_str(&format!(" ({})", ignored.join(", ")));
        }
        if truncated {
            display.push_str(" (truncated)");
        }
        Ok(ToolResult::new(message, Display::Text(display)))
    }
}

/// The session's line limit; 0 means none (Qwen's non-positive setting).
fn session_line_limit(workspace: &Workspace) -> usize {
    match workspace.config().truncate_lines {
        0 => usize::MAX,
        n => n,
    }
}

/// Qwen's `errorResult` for a listing that failed: the model and the error
/// see the same text, a person a short one.
fn ls_failure(reason: &str) -> Failure {
    Failure::new(
        ToolErrorCode::LsExecutionError,
        format!("Error listing directory: {reason}"),
    )
    .error_display("Failed to list directory.")
}

/// `shouldIgnore`'s glob: `*` any run of characters, `?` one character,
/// everything else literal, matched against the whole name. Like the
/// JavaScript regex Qwen builds, neither wildcard matches a line break.
fn glob_matches(pattern: &str, name: &str) -> bool {
    fn is_line_break(c: char) -> bool {
        matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
    }
    fn go(p: &[char], n: &[char]) -> bool {
        match p.split_first() {
            None => n.is_empty(),
            Some(('*', rest)) => {
                // Try the shortest run first; the run stops at a line break.
                let mut i = 0;
                loop {
                    if go(rest, &n[i..]) {
                        return true;
                    }
                    if i == n.len() || is_line_break(n[i]) {
                        return false;
                    }
                    i += 1;
                }
            }
            Some(('?', rest)) => n
                .split_first()
                .is_some_and(|(c, n)| !is_line_break(*c) && go(rest, n)),
            Some((c, rest)) => n.split_first().is_some_and(|(d, n)| c == d && go(rest, n)),
        }
    }
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    go(&p, &n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::Declared;

    #[test]
    fn globs_match_whole_names() {
        assert!(glob_matches("*.log", "a.log"));
        assert!(!glob_matches("*.log", "a.log.1"));
        assert!(glob_matches("a?c", "abc"));
        assert!(glob_matches("a.c", "a.c"));
        assert!(!glob_matches("a.c", "abc"));
        assert!(glob_matches("[x]", "[x]"));
        assert!(glob_matches("*", ""));
    }

    #[test]
    fn declaration_parses() {
        let tool = Declared::<ListDirectoryTool>::default();
        assert_eq!(
            tool.declaration().schema["required"],
            serde_json::json!(["path"])
        );
    }
}
