//! `glob`: Qwen Code's `GlobTool` (`packages/core/src/tools/glob.ts`,
//! 0.24.4).
//!
//! Walks the directory (the workspace root, or `path`) without following
//! symlinks, leaves out what [`ignore_files`](super::ignore_files) ignores,
//! and lists every non-directory whose path matches the [`pattern`]. Qwen's
//! `sortFileEntries` orders the list: files modified within the last 24 hours
//! first, newest first, then the rest by `localeCompare` of the absolute path
//! ([`collate`](super::collate)). At most 100 paths are shown (fewer if the
//! session's line threshold is lower), and the walk stops after 1 000
//! matches, as Qwen's does, saying "at least".
//!
//! The walk ([`walk::walk_sorted`]) happens beneath directory handles, so a
//! directory swapped for a symlink to outside is never walked into. It is
//! sequential and sorted by file name, so which 1 000 files a
//! huge match keeps is deterministic (Qwen keeps the first 1 000 its
//! directory reads happen to return). Ties in modification time keep that
//! walk order, as Qwen's stable sort keeps its stream order.
//!
//! The declaration is Qwen Code's, Apache-2.0, copied verbatim.

pub mod pattern;

use std::cmp::Ordering;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Deserialize;

use self::pattern::Pattern;
use super::collate::locale_cmp;
use super::dir_arg::{SearchDir, resolve_dir};
use super::ignore_files::Discovery;
use super::walk::{self, StartError, Step, open_start};
use crate::context::InvocationContext;
use crate::kind::Kind;
use crate::result::{Display, Failure, ToolResult};
use crate::sandbox::Sandbox;
use crate::tool::{BuildError, DeclarativeTool, Invocation};
use crate::workspace::Workspace;

/// The tool's name.
pub const NAME: &str = "glob";

/// Qwen's `MAX_FILE_COUNT`: paths shown at most.
pub const MAX_FILE_COUNT: usize = 100;

/// Qwen's `MAX_GLOB_COLLECTED_ENTRIES`: matches collected before the walk
/// stops.
pub const MAX_COLLECTED: usize = MAX_FILE_COUNT * 10;

/// Qwen's recency window: a day, in nanoseconds.
pub const RECENT_NS: i128 = 24 * 60 * 60 * 1_000_000_000;

/// The `glob` tool.
#[derive(Debug, Default)]
pub struct GlobTool;

/// The arguments.
#[derive(Debug, Deserialize)]
pub struct GlobParams {
    pattern: String,
    #[serde(default)]
    path: Option<String>,
    #[serde(skip)]
    dir: Option<SearchDir>,
}

impl DeclarativeTool for GlobTool {
    const NAME: &'static str = NAME;
    const KIND: Kind = Kind::Search;
    const DECLARATION: &'static str = include_str!("declarations/glob.json");
    type Params = GlobParams;

    fn validate_values(
        &self,
        params: &mut GlobParams,
        workspace: &Workspace,
    ) -> Result<(), BuildError> {
        if params.pattern.trim().is_empty() {
            return Err(BuildError::invalid(
                "The 'pattern' parameter cannot be empty.",
            ));
        }
        params.dir = Some(resolve_dir(params.path.as_deref(), workspace)?);
        Ok(())
    }

    fn create_invocation(&self, params: GlobParams, workspace: &Workspace) -> Box<dyn Invocation> {
        let dir = params
            .dir
            .clone()
            .unwrap_or_else(|| SearchDir::root(workspace.sandbox().root()));
        Box::new(GlobInvocation { params, dir })
    }
}

struct GlobInvocation {
    params: GlobParams,
    dir: SearchDir,
}

/// One match: its absolute path and modification time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The path, as the searched directory joined with the relative path.
    pub path: PathBuf,
    /// Nanoseconds since the epoch (of the link itself for a symlink); 0
    /// when unknown, as Qwen's `mtimeMs ?? 0`.
    pub mtime_ns: i128,
}

impl Invocation for GlobInvocation {
    /// Qwen's `getDescription`: `'PATTERN'`, plus ` in PATH` for a path.
    fn description(&self) -> String {
        let mut description = format!("'{}'", self.params.pattern);
        if let Some(shown) = &self.dir.shown {
            description.push_str(&format!(" in {shown}"));
        }
        description
    }

    fn execute(
        &self,
        workspace: &Workspace,
        _context: &InvocationContext,
    ) -> Result<ToolResult, Failure> {
        let pattern = &self.params.pattern;
        let location = match self.dir.shown {
            Some(_) => format!("within {}", self.dir.path.display()),
            None => "in the workspace directory".to_owned(),
        };
        let (mut entries, hit_limit) = match collect(workspace.sandbox(), &self.dir.path, pattern) {
            Ok(found) => found,
            Err(e) => match e.into_failure() {
                Ok(escaped) => return Err(escaped),
                Err(_) => (Vec::new(), false),
            },
        };
        if entries.is_empty() {
            return Ok(ToolResult::new(
                format!("No files found matching pattern \"{pattern}\" {location}"),
                Display::Text("No files found".to_owned()),
            ));
        }
        sort_entries(&mut entries, now_ns());

        let total = entries.len();
        let limit = MAX_FILE_COUNT.min(workspace.config().truncate_lines);
        let truncated = hit_limit || total > limit;
        entries.truncate(limit);
        let paths: Vec<PathBuf> = entries.into_iter().map(|e| e.path).collect();
        let list = paths
            .iter()
            .map(|p| p.to_string_lossy())
            .collect::<Vec<_>>()
            .join("\n");
        let found = if hit_limit { "Found at least" } else { "Found" };
        let mut text = format!(
            "{found} {total} file(s) matching \"{pattern}\" {location}, sorted by modification time (newest first):\n---\n{list}"
        );
        if hit_limit {
            text.push_str(&format!(
                "\n---\n[Results truncated after scanning {total} matching files. Narrow the pattern or path.]"
            ));
        } else if truncated {
            let omitted = total - limit;
            let term = if omitted == 1 { "file" } else { "files" };
            text.push_str(&format!("\n---\n[{omitted} {term} truncated] ..."));
        }
        let display = format!(
            "{found} {total} matching file(s){}",
            if truncated { " (truncated)" } else { "" }
        );
        Ok(ToolResult::new(text, Display::Text(display)).with_paths(paths))
    }
}

/// The matches under `dir` in walk order, and whether the walk stopped at
/// [`MAX_COLLECTED`].
///
/// # Errors
/// When `dir` cannot be opened beneath the root: an escape, or an IO error.
pub fn collect(
    sandbox: &Sandbox,
    dir: &Path,
    pattern: &str,
) -> Result<(Vec<Entry>, bool), StartError> {
    let discovery = Discovery::new(sandbox);
    if discovery.ignores_dir_or_ancestor(dir) {
        return Ok((Vec::new(), false));
    }
    let start = open_start(sandbox, dir)?;
    let pattern = Pattern::new(pattern, dir, |rel| start.exists(sandbox.root_dir(), rel));
    let mut entries = Vec::new();
    let mut hit_limit = false;
    walk::walk_sorted(start.dir, pattern.max_depth(), |entry| {
        // Paths are judged as the absolute path `dir` joined with the
        // entry's, as Qwen and the ignore rules judge them.
        let path = dir.join(entry.rel());
        if discovery.ignores(&path, entry.is_dir()) {
            return Step::Skip;
        }
        if entry.is_dir() || !pattern.matches(&entry.rel().to_string_lossy(), &path) {
            return Step::Continue;
        }
        if entries.len() >= MAX_COLLECTED {
            hit_limit = true;
            return Step::Stop;
        }
        let mtime_ns = entry
            .symlink_metadata()
            .ok()
            .and_then(|m| m.modified().ok())
            .map_or(0, |t| system_time_ns(t.into_std()));
        entries.push(Entry { path, mtime_ns });
        Step::Continue
    });
    Ok((entries, hit_limit))
}

/// Qwen's `sortFileEntries`, a stable sort: recent files (modified less than
/// a day before `now_ns`, or in the future) first, newest first; then the
/// rest by `localeCompare` of their paths.
pub fn sort_entries(entries: &mut [Entry], now_ns: i128) {
    let recent = |e: &Entry| now_ns - e.mtime_ns < RECENT_NS;
    entries.sort_by(|a, b| match (recent(a), recent(b)) {
        (true, true) => b.mtime_ns.cmp(&a.mtime_ns),
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (false, false) => {
            let (a, b) = (a.path.to_string_lossy(), b.path.to_string_lossy());
            // Where `localeCompare` says 0, Qwen keeps its stream order;
            // byte order keeps ours independent of the walk.
            locale_cmp(&a, &b).then_with(|| a.cmp(&b))
        }
    });
}

fn now_ns() -> i128 {
    system_time_ns(SystemTime::now())
}

fn system_time_ns(t: SystemTime) -> i128 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => i128::try_from(d.as_nanos()).unwrap_or(i128::MAX),
        Err(e) => -i128::try_from(e.duration().as_nanos()).unwrap_or(i128::MAX),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::Declared;

    #[test]
    fn declaration_parses_and_is_qwens() {
        let tool = Declared::<GlobTool>::default();
        assert_eq!(
            tool.declaration().schema["required"],
            serde_json::json!(["pattern"])
        );
        assert!(
            tool.declaration()
                .description
                .starts_with("Fast file pattern matching tool")
        );
    }

    #[test]
    fn recent_first_newest_first_then_by_locale() {
        let day = RECENT_NS;
        let now = 100 * day;
        let e = |p: &str, t: i128| Entry {
            path: PathBuf::from(p),
            mtime_ns: t,
        };
        let mut entries = vec![
            e("/r/b", now - 3 * day),
            e("/r/new", now - 10),
            e("/r/A", now - 2 * day),
            e("/r/future", now + day),
            e("/r/newer", now - 5),
            e("/r/edge", now - day),
        ];
        sort_entries(&mut entries, now);
        let order: Vec<_> = entries.iter().map(|e| e.path.to_str().unwrap()).collect();
        assert_eq!(
            order,
            ["/r/future", "/r/newer", "/r/new", "/r/A", "/r/b", "/r/edge"]
        );
    }
}
