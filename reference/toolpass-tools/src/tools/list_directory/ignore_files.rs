//! The ignore files Qwen Code's `FileDiscoveryService` honours, as
//! `list_directory` and `read_file` consult them:
//!
//! - `.qwenignore`, `.agentignore`, `.aiignore` at the session root
//!   (`QwenIgnoreParser`): a path is ignored when any one file ignores it;
//! - `.gitignore` files from the root down to a directory, plus `.git` and
//!   `.git/info/exclude` (`GitIgnoreParser`), only when the root is inside a
//!   git repository; deeper files win, and once a directory is ignored the
//!   files below it are not read (git's rule).
//!
//! Pattern semantics are git's, from the `ignore` crate (ripgrep's), where
//! Qwen uses the npm `ignore` package.

use std::fs;
use std::path::{Path, PathBuf};

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// The Qwen ignore files, in Qwen's order.
const QWEN_IGNORE_FILES: [&str; 3] = [".qwenignore", ".agentignore", ".aiignore"];

/// Builds a matcher rooted at `root` from pattern lines the way Qwen reads
/// them: `\r` stripped, blank lines and `#` comments skipped.
fn matcher(root: &Path, lines: &[String]) -> Option<Gitignore> {
    let mut builder = GitignoreBuilder::new(root);
    for line in lines {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        // A pattern the crate cannot parse is skipped, as the npm package
        // skips what it cannot compile.
        let _ = builder.add_line(None, line);
    }
    builder.build().ok()
}

fn read_lines(path: &Path) -> Option<Vec<String>> {
    let bytes = fs::read(path).ok()?;
    Some(
        String::from_utf8_lossy(&bytes)
            .split('\n')
            .map(str::to_owned)
            .collect(),
    )
}

fn ignores(matcher: &Gitignore, path: &Path, is_dir: bool) -> Match<()> {
    if !path.starts_with(matcher.path()) || path == matcher.path() {
        return Match::None;
    }
    matcher
        .matched_path_or_any_parents(path, is_dir)
        .map(|_| ())
}

/// `.qwenignore` and its custom siblings at the session root.
pub(crate) struct QwenIgnore {
    sources: Vec<(&'static str, Gitignore)>,
}

impl QwenIgnore {
    /// Loads the files present under `root`.
    pub(crate) fn load(root: &Path) -> Self {
        let sources = QWEN_IGNORE_FILES
            .iter()
            .filter_map(|name| {
                let lines = read_lines(&root.join(name))?;
                let m = matcher(root, &lines)?;
                (!m.is_empty()).then_some((*name, m))
            })
            .collect();
        QwenIgnore { sources }
    }

    /// The file that ignores `path` (absolute, under the root), if any.
    pub(crate) fn ignored_by(&self, path: &Path, is_dir: bool) -> Option<&'static str> {
        self.sources
            .iter()
            .find(|(_, m)| ignores(m, path, is_dir).is_ignore())
            .map(|(name, _)| *name)
    }
}

/// The `.gitignore` chain for one directory.
pub(crate) struct GitIgnore {
    /// Root level first (`.git`, `info/exclude`, the root `.gitignore`).
    levels: Vec<Gitignore>,
}

impl GitIgnore {
    /// The chain from `root` down to `dir`, or `None` when `root` is not in
    /// a git repository (Qwen's `isGitRepository`: a `.git` in it or above).
    pub(crate) fn for_dir(root: &Path, dir: &Path) -> Option<Self> {
        if !root.ancestors().any(|a| a.join(".git").exists()) {
            return None;
        }
        let mut root_lines = vec![".git".to_owned()];
        root_lines.extend(read_lines(&root.join(".git/info/exclude")).unwrap_or_default());
        let mut levels: Vec<Gitignore> = Vec::new();
        let mut chain: Vec<PathBuf> = vec![root.to_path_buf()];
        if let Ok(rest) = dir.strip_prefix(root) {
            let mut current = root.to_path_buf();
            for part in rest.components() {
                current.push(part);
                chain.push(current.clone());
            }
        }
        for (i, level) in chain.iter().enumerate() {
            if i > 0 && Self::ignored_in(&levels, level, true) {
                break;
            }
            let mut lines = if i == 0 {
                std::mem::take(&mut root_lines)
            } else {
                Vec::new()
            };
            lines.extend(read_lines(&level.join(".gitignore")).unwrap_or_default());
            if let Some(m) = matcher(level, &lines) {
                levels.push(m);
            }
        }
        Some(GitIgnore { levels })
    }

    fn ignored_in(levels: &[Gitignore], path: &Path, is_dir: bool) -> bool {
        levels
            .iter()
            .rev()
            .map(|m| ignores(m, path, is_dir))
            .find(|m| !m.is_none())
            .is_some_and(|m| m.is_ignore())
    }

    /// Whether `path` (absolute, under the root) is git-ignored.
    pub(crate) fn is_ignored(&self, path: &Path, is_dir: bool) -> bool {
        Self::ignored_in(&self.levels, path, is_dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qwen_ignore_files_name_themselves() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join(".qwenignore"), "secret.txt\n").unwrap();
        fs::write(root.join(".aiignore"), "*.key\r\n# comment\n").unwrap();
        let q = QwenIgnore::load(root);
        assert_eq!(
            q.ignored_by(&root.join("secret.txt"), false),
            Some(".qwenignore")
        );
        assert_eq!(
            q.ignored_by(&root.join("a/b.key"), false),
            Some(".aiignore")
        );
        assert_eq!(q.ignored_by(&root.join("a.txt"), false), None);
    }

    #[test]
    fn git_ignore_applies_only_in_a_repository_and_deeper_files_win() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("sub")).unwrap();
        fs::write(root.join(".gitignore"), "*.log\n").unwrap();
        fs::write(root.join("sub/.gitignore"), "!keep.log\n").unwrap();
        assert!(GitIgnore::for_dir(root, &root.join("sub")).is_none());
        fs::create_dir(root.join(".git")).unwrap();
        let g = GitIgnore::for_dir(root, &root.join("sub")).unwrap();
        assert!(g.is_ignored(&root.join("sub/x.log"), false));
        assert!(!g.is_ignored(&root.join("sub/keep.log"), false));
        assert!(g.is_ignored(&root.join(".git"), true));
    }
}
