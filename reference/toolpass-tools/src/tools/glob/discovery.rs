//! Which paths `glob` leaves out: Qwen's `FileDiscoveryService` with its
//! default options (`respectGitIgnore`, `respectQwenIgnore`, custom files
//! `.agentignore` and `.aiignore`).
//!
//! - `.qwenignore`, `.agentignore`, `.aiignore`: read from the project root
//!   only, gitignore syntax, each file on its own (a `!` in one cannot undo
//!   another). Always applied.
//! - `.gitignore`: only when the project root is inside a git repository
//!   (`isGitRepository`). Then `.git` is always ignored, and the patterns of
//!   `.git/info/exclude` and of every `.gitignore` from the root down to the
//!   file's directory apply, the deeper file winning. Outside a repository
//!   `.gitignore` means nothing, to Qwen and so here: a scenario sandbox
//!   (no `.git`) lists gitignored files.
//!
//! Paths are judged relative to the project root, as Qwen judges them,
//! whatever directory the glob searches.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// Qwen's ignore files besides `.gitignore`, in its order.
pub const QWEN_IGNORE_FILES: [&str; 3] = [".qwenignore", ".agentignore", ".aiignore"];

/// The ignore rules of one project root.
#[derive(Debug)]
pub struct Discovery {
    root: PathBuf,
    qwen: Vec<Gitignore>,
    git: Option<GitRules>,
}

#[derive(Debug)]
struct GitRules {
    /// `.git` and `.git/info/exclude`, rooted at the project root.
    global: Gitignore,
    /// Each directory's own `.gitignore`, loaded on first use.
    per_dir: Mutex<HashMap<PathBuf, Option<Arc<Gitignore>>>>,
}

impl Discovery {
    /// Loads the rules of `root`.
    #[must_use]
    pub fn new(root: &Path) -> Self {
        let qwen = QWEN_IGNORE_FILES
            .iter()
            .filter_map(|name| {
                let text = fs::read_to_string(root.join(name)).ok()?;
                let gi = build(root, &text);
                (!gi.is_empty()).then_some(gi)
            })
            .collect();
        let in_repo = root.ancestors().any(|a| a.join(".git").exists());
        let git = in_repo.then(|| {
            let exclude = fs::read_to_string(root.join(".git/info/exclude")).unwrap_or_default();
            GitRules {
                global: build(root, &format!(".git\n{exclude}")),
                per_dir: Mutex::default(),
            }
        });
        Discovery {
            root: root.to_path_buf(),
            qwen,
            git,
        }
    }

    /// Whether `path` (absolute, strictly under the root) is ignored.
    /// Directories are pruned as they are met, so their own ancestors are
    /// not looked at again here; see [`Discovery::ignores_dir_or_ancestor`].
    #[must_use]
    pub fn ignores(&self, path: &Path, is_dir: bool) -> bool {
        if path == self.root || !path.starts_with(&self.root) {
            return false;
        }
        if self
            .qwen
            .iter()
            .any(|gi| gi.matched_path_or_any_parents(path, is_dir).is_ignore())
        {
            return true;
        }
        self.git
            .as_ref()
            .is_some_and(|git| self.git_ignores(git, path, is_dir))
    }

    /// Whether `dir` or a directory between it and the root is ignored,
    /// which hides everything below `dir` (Qwen's `ignore` checks the
    /// parents of every path).
    #[must_use]
    pub fn ignores_dir_or_ancestor(&self, dir: &Path) -> bool {
        dir.ancestors()
            .take_while(|a| *a != self.root)
            .any(|a| self.ignores(a, true))
    }

    fn git_ignores(&self, git: &GitRules, path: &Path, is_dir: bool) -> bool {
        let Some(parent) = path.parent() else {
            return false;
        };
        for dir in parent.ancestors().take_while(|a| a.starts_with(&self.root)) {
            if let Some(gi) = self.gitignore_of(git, dir) {
                let m = gi.matched(path, is_dir);
                if m.is_ignore() {
                    return true;
                }
                if m.is_whitelist() {
                    return false;
                }
            }
        }
        git.global.matched(path, is_dir).is_ignore()
    }

    fn gitignore_of(&self, git: &GitRules, dir: &Path) -> Option<Arc<Gitignore>> {
        let mut cache = git.per_dir.lock().unwrap_or_else(PoisonError::into_inner);
        cache
            .entry(dir.to_path_buf())
            .or_insert_with(|| {
                let text = fs::read_to_string(dir.join(".gitignore")).ok()?;
                let gi = build(dir, &text);
                (!gi.is_empty()).then(|| Arc::new(gi))
            })
            .clone()
    }
}

/// A gitignore matcher rooted at `dir` from the lines of `text`, read the
/// way Qwen reads them: split on `\n`, a trailing `\r` dropped, blank lines
/// and `#` comments skipped. A line the matcher cannot parse is skipped.
fn build(dir: &Path, text: &str) -> Gitignore {
    let mut builder = GitignoreBuilder::new(dir);
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        // A bad pattern only loses itself, as in Qwen's `ignore` package.
        let _ = builder.add_line(None, line);
    }
    builder.build().unwrap_or_else(|_| Gitignore::empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qwen_ignore_files_apply_without_git_and_gitignore_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        fs::write(root.join(".qwenignore"), "secret/\n*.log\n").unwrap();
        fs::write(root.join(".gitignore"), "*.txt\n").unwrap();
        let d = Discovery::new(&root);
        assert!(d.ignores(&root.join("secret"), true));
        assert!(d.ignores(&root.join("secret/a.rs"), false));
        assert!(d.ignores(&root.join("x/app.log"), false));
        assert!(!d.ignores(&root.join("a.txt"), false));
    }

    #[test]
    fn nested_gitignores_apply_in_a_repository_the_deeper_winning() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        fs::create_dir_all(root.join(".git/info")).unwrap();
        fs::create_dir_all(root.join("sub")).unwrap();
        fs::write(root.join(".git/info/exclude"), "*.bak\n").unwrap();
        fs::write(root.join(".gitignore"), "*.tmp\nbuild/\n").unwrap();
        fs::write(root.join("sub/.gitignore"), "!keep.tmp\nlocal.txt\n").unwrap();
        let d = Discovery::new(&root);
        assert!(d.ignores(&root.join("a.tmp"), false));
        assert!(d.ignores(&root.join("sub/a.tmp"), false));
        assert!(!d.ignores(&root.join("sub/keep.tmp"), false));
        assert!(d.ignores(&root.join("sub/local.txt"), false));
        assert!(!d.ignores(&root.join("local.txt"), false));
        assert!(d.ignores(&root.join("x.bak"), false));
        assert!(d.ignores(&root.join(".git"), true));
        assert!(d.ignores(&root.join("build"), true));
        assert!(d.ignores_dir_or_ancestor(&root.join("build/deep")));
    }
}
