//! `grep_search`: Qwen Code's `GrepTool` (`packages/core/src/tools/grep.ts`,
//! 0.24.4), the implementation Qwen registers when no working ripgrep is
//! found, which is what an install with `--ignore-scripts` gets (the
//! vendored `rg` is then not executable) on a machine without `rg` on PATH.
//!
//! - [`search`]: which files and lines match, with the walk and the regex
//!   engine of ripgrep's crates standing in for Qwen's `git grep` / `grep -r`.
//! - [`render`]: Qwen's output: `File: REL` blocks of `L<n>: <trimmed line>`
//!   under a `Found N matches` header, its line cap (`limit`, at most the
//!   session's line threshold) and character budget (the session's
//!   threshold, 25 000 by default), all measured in UTF-16 units as
//!   JavaScript measures them. The tool's `maxOutputChars` (20 000) is a
//!   further cut the scheduler applies to the whole result
//!   ([`Tool::max_output_chars`](crate::tool::Tool::max_output_chars)).
//! - Matched files count as partial, cacheable reads (Qwen's
//!   `recordGrepResultFileReads`), except notebooks.
//!
//! The declaration is Qwen Code's, Apache-2.0, copied verbatim.

pub mod fnmatch;
pub mod git_rules;
pub mod regex_error;
pub mod render;
pub mod search;

use std::path::{Path, PathBuf};

use serde::Deserialize;

use self::render::{Budget, render};
use self::search::{Search, Strategy};
use super::dir_arg::{SearchDir, resolve_dir};
use crate::context::InvocationContext;
use crate::error_code::ToolErrorCode;
use crate::kind::Kind;
use crate::read_cache::ReadKind;
use crate::result::{Display, Failure, ToolResult};
use crate::tool::{BuildError, DeclarativeTool, Invocation};
use crate::workspace::Workspace;

/// The tool's name.
pub const NAME: &str = "grep_search";

/// Qwen's `GrepTool.maxOutputChars`: the scheduler's budget for this tool.
pub const MAX_OUTPUT_CHARS: usize = 20_000;

/// The `grep_search` tool.
#[derive(Debug, Default)]
pub struct GrepTool;

/// The arguments.
#[derive(Debug, Deserialize)]
pub struct GrepParams {
    pattern: String,
    #[serde(default)]
    glob: Option<String>,
    #[serde(default)]
    path: Option<String>,
    /// A JSON number: the schema's `integer` admits `2.0`.
    #[serde(default)]
    limit: Option<f64>,
    #[serde(skip)]
    dir: Option<SearchDir>,
}

impl DeclarativeTool for GrepTool {
    const NAME: &'static str = NAME;
    const KIND: Kind = Kind::Search;
    const DECLARATION: &'static str = include_str!("declarations/grep_search.json");
    type Params = GrepParams;

    /// Qwen's order: `limit`, then the pattern, then the path.
    fn validate_values(
        &self,
        params: &mut GrepParams,
        workspace: &Workspace,
    ) -> Result<(), BuildError> {
        if params
            .limit
            .is_some_and(|l| l.fract() != 0.0 || l <= 0.0 || !l.is_finite())
        {
            return Err(BuildError::invalid("limit must be a positive integer"));
        }
        // The strategy decides case sensitivity only, never validity.
        Search::new(&params.pattern, None, Strategy::SystemGrep)
            .map_err(|e| BuildError::invalid(e.message()))?;
        params.dir = Some(resolve_dir(params.path.as_deref(), workspace)?);
        Ok(())
    }

    fn create_invocation(&self, params: GrepParams, workspace: &Workspace) -> Box<dyn Invocation> {
        let root = workspace.sandbox().root();
        let dir = params.dir.clone().unwrap_or_else(|| SearchDir::root(root));
        let glob = params.glob.as_deref().filter(|g| !g.is_empty());
        let search = Search::new(&params.pattern, glob, Strategy::for_dir(&dir.path));
        Box::new(GrepInvocation {
            display_path: display_path(root, &dir.path),
            params,
            dir,
            search,
        })
    }

    fn max_output_chars(&self, _workspace: &Workspace) -> Option<usize> {
        Some(MAX_OUTPUT_CHARS)
    }
}

struct GrepInvocation {
    params: GrepParams,
    dir: SearchDir,
    display_path: String,
    /// Validated at build time; kept as a result because a pattern can
    /// still be too large for the engine once compiled case-insensitively.
    search: Result<Search, regex_error::PatternError>,
}

impl Invocation for GrepInvocation {
    /// Qwen's `getDescription`: `'PATTERN' in PATH (filter: 'GLOB')`.
    fn description(&self) -> String {
        let mut description = format!("'{}' in {}", self.params.pattern, self.display_path);
        if let Some(glob) = self.params.glob.as_deref().filter(|g| !g.is_empty()) {
            description.push_str(&format!(" (filter: '{glob}')"));
        }
        description
    }

    fn execute(
        &self,
        workspace: &Workspace,
        _context: &InvocationContext,
    ) -> Result<ToolResult, Failure> {
        let search = self.search.as_ref().map_err(|e| {
            Failure::new(
                ToolErrorCode::GrepExecutionError,
                format!("Error during grep search operation: {e}"),
            )
            .error_display(e.message())
        })?;
        let files = match search.run(workspace.sandbox(), &self.dir.path) {
            Ok(files) => files,
            Err(e) => match e.into_failure() {
                Ok(escaped) => return Err(escaped),
                Err(_) => Vec::new(),
            },
        };
        let location = match &self.dir.shown {
            Some(path) => format!("in path \"{path}\""),
            None => "in the workspace directory".to_owned(),
        };
        let config = workspace.config();
        let lines = match self.params.limit {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            Some(limit) if limit < config.truncate_lines as f64 => limit as usize,
            _ => config.truncate_lines,
        };
        let rendered = render(
            &self.params.pattern,
            &location,
            self.params.glob.as_deref(),
            &files,
            Budget {
                chars: config.truncate_threshold,
                lines,
            },
        );
        record_reads(workspace, &rendered.visible);
        Ok(
            ToolResult::new(rendered.llm_content, Display::Text(rendered.display))
                .with_paths(rendered.visible),
        )
    }
}

/// Qwen's `recordGrepResultFileReads`: every shown file that is still a
/// regular file counts as read in part; a notebook's read is not
/// cacheable, so it never satisfies a later prior-read check.
fn record_reads(workspace: &Workspace, paths: &[PathBuf]) {
    let mut cache = workspace.read_cache();
    for path in paths {
        // Beneath the root's handle: a directory swapped out since the
        // search must not lend an outside file's fingerprint to this path.
        let Some(meta) = workspace
            .sandbox()
            .locate(&path.to_string_lossy())
            .ok()
            .and_then(|located| located.stat().ok())
        else {
            continue;
        };
        if meta.is_file() {
            let cacheable = !extension(path).eq_ignore_ascii_case(".ipynb");
            cache.record_read(
                path,
                &meta,
                ReadKind {
                    full: false,
                    cacheable,
                },
            );
        }
    }
}

/// Node's `path.extname`: from the last `.` of the base name, unless the
/// name starts with its only dot.
fn extension(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    match name.rfind('.') {
        Some(dot) if dot > 0 => name.get(dot..).unwrap_or_default().to_owned(),
        _ => String::new(),
    }
}

/// Qwen's `formatDisplayPath` for a path inside the root: relative, or `.`.
fn display_path(root: &Path, path: &Path) -> String {
    match path.strip_prefix(root) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_owned(),
        Ok(rel) => rel.to_string_lossy().into_owned(),
        Err(_) => path.to_string_lossy().into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::Declared;

    #[test]
    fn declaration_parses_and_is_qwens() {
        let tool = Declared::<GrepTool>::default();
        let schema = &tool.declaration().schema;
        assert_eq!(schema["required"], serde_json::json!(["pattern"]));
        assert_eq!(schema["properties"]["limit"]["minimum"], 1);
        assert!(
            tool.declaration()
                .description
                .contains("Case-insensitive by default")
        );
    }

    #[test]
    fn extensions_like_node() {
        for (path, ext) in [
            ("a/b.IPYNB", ".IPYNB"),
            ("a/.ipynb", ""),
            ("a/x.tar.gz", ".gz"),
            ("a/x", ""),
        ] {
            assert_eq!(extension(Path::new(path)), ext, "{path}");
        }
    }
}
