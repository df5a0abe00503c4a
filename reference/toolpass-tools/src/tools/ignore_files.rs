//! The ignore files of Qwen Code's `FileDiscoveryService` (default options:
//! `respectGitIgnore`, `respectQwenIgnore`, custom files `.agentignore` and
//! `.aiignore`), as `glob`, `list_directory` and `read_file` consult them.
//!
//! - `.qwenignore`, `.agentignore`, `.aiignore` ([`QwenIgnore`]): read from
//!   the project root only, each file on its own (a `!` in one cannot undo
//!   another); a path is ignored when any one file ignores it. Always
//!   applied.
//! - `.gitignore` ([`GitIgnore`]): only when the project root is inside a git
//!   repository (`isGitRepository`: a `.git` in it or above). Then `.git` is
//!   always ignored, and the patterns of `.git/info/exclude` and of every
//!   `.gitignore` from the root down to the path's directory apply, the
//!   deeper file winning. Once a directory is ignored, everything below it
//!   is, whatever deeper files say (git's rule, and Qwen's, which stops
//!   reading `.gitignore` files there). Outside a repository `.gitignore`
//!   means nothing, to Qwen and so here: a scenario sandbox (no `.git`) lists
//!   gitignored files.
//!
//! Files are read as Qwen reads them: decoded lossily (Node's `utf-8`), split
//! on `\n`, a trailing `\r` dropped, blank lines and `#` comments skipped.
//! They are opened beneath the session root's handle, so an ignore file (or
//! a directory on the way to it) that is a symlink leading outside counts as
//! absent: its text never comes from outside the root.
//! Paths are judged relative to the project root, as Qwen judges them,
//! whatever directory a tool looks at. Pattern semantics are git's, from the
//! `ignore` crate (ripgrep's), where Qwen uses the npm `ignore` package.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use cap_std::fs::Dir;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::sandbox::Sandbox;

/// Qwen's ignore files besides `.gitignore`, in its order.
pub const QWEN_IGNORE_FILES: [&str; 3] = [".qwenignore", ".agentignore", ".aiignore"];

/// Both kinds of rules of one project root, for a walk.
#[derive(Debug)]
pub struct Discovery {
    root: PathBuf,
    qwen: QwenIgnore,
    git: Option<GitIgnore>,
}

impl Discovery {
    /// Loads the rules of the sandbox's root.
    #[must_use]
    pub fn new(sandbox: &Sandbox) -> Self {
        Discovery {
            root: sandbox.root().to_path_buf(),
            qwen: QwenIgnore::load(sandbox),
            git: GitIgnore::load(sandbox),
        }
    }

    /// Whether `path` (absolute, strictly under the root) is ignored by its
    /// own name. A walk prunes directories as it meets them, so their
    /// ancestors are not looked at again here; see
    /// [`Discovery::ignores_dir_or_ancestor`].
    #[must_use]
    pub fn ignores(&self, path: &Path, is_dir: bool) -> bool {
        self.qwen.ignored_by(path, is_dir).is_some()
            || self
                .git
                .as_ref()
                .is_some_and(|git| git.matches(path, is_dir))
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
}

/// `.qwenignore` and its custom siblings at the session root.
#[derive(Debug)]
pub struct QwenIgnore {
    sources: Vec<(&'static str, Gitignore)>,
}

impl QwenIgnore {
    /// Loads the files present at the sandbox's root.
    #[must_use]
    pub fn load(sandbox: &Sandbox) -> Self {
        let root = sandbox.root();
        let sources = QWEN_IGNORE_FILES
            .iter()
            .filter_map(|name| {
                let m = matcher(root, &read_text(sandbox.root_dir(), Path::new(name))?);
                (!m.is_empty()).then_some((*name, m))
            })
            .collect();
        QwenIgnore { sources }
    }

    /// The file that ignores `path` (absolute, under the root), if any.
    #[must_use]
    pub fn ignored_by(&self, path: &Path, is_dir: bool) -> Option<&'static str> {
        self.sources
            .iter()
            .find(|(_, m)| {
                path.starts_with(m.path())
                    && path != m.path()
                    && m.matched_path_or_any_parents(path, is_dir).is_ignore()
            })
            .map(|(name, _)| *name)
    }
}

/// The `.gitignore` rules of a project root in a git repository.
#[derive(Debug)]
pub struct GitIgnore {
    root: PathBuf,
    /// The root's handle, beneath which the files are read.
    root_dir: Arc<Dir>,
    /// `.git` and `.git/info/exclude`, rooted at the project root.
    global: Gitignore,
    /// Each directory's own `.gitignore`, loaded on first use.
    per_dir: Mutex<HashMap<PathBuf, Option<Arc<Gitignore>>>>,
}

impl GitIgnore {
    /// The rules of the sandbox's root, or `None` when the root is not in a
    /// git repository. (Whether one is asks about `.git` above the root
    /// too, as Qwen's `isGitRepository` does; only existence, no content.)
    #[must_use]
    pub fn load(sandbox: &Sandbox) -> Option<Self> {
        let root = sandbox.root();
        if !root.ancestors().any(|a| a.join(".git").exists()) {
            return None;
        }
        let root_dir = Arc::new(sandbox.root_dir().try_clone().ok()?);
        let exclude = read_text(&root_dir, Path::new(".git/info/exclude")).unwrap_or_default();
        Some(GitIgnore {
            root: root.to_path_buf(),
            root_dir,
            global: matcher(root, &format!(".git\n{exclude}")),
            per_dir: Mutex::default(),
        })
    }

    /// Whether `path` (absolute, under the root) is git-ignored, itself or
    /// through an ignored directory above it.
    #[must_use]
    pub fn is_ignored(&self, path: &Path, is_dir: bool) -> bool {
        self.matches(path, is_dir)
            || path
                .ancestors()
                .skip(1)
                .take_while(|a| *a != self.root && a.starts_with(&self.root))
                .any(|a| self.matches(a, true))
    }

    /// Whether the patterns match `path` itself: the deepest `.gitignore`
    /// that says anything about it decides, then `.git/info/exclude`.
    fn matches(&self, path: &Path, is_dir: bool) -> bool {
        if path == self.root || !path.starts_with(&self.root) {
            return false;
        }
        let Some(parent) = path.parent() else {
            return false;
        };
        for dir in parent.ancestors().take_while(|a| a.starts_with(&self.root)) {
            if let Some(gi) = self.gitignore_of(dir) {
                let m = gi.matched(path, is_dir);
                if m.is_ignore() {
                    return true;
                }
                if m.is_whitelist() {
                    return false;
                }
            }
        }
        self.global.matched(path, is_dir).is_ignore()
    }

    fn gitignore_of(&self, dir: &Path) -> Option<Arc<Gitignore>> {
        let mut cache = self.per_dir.lock().unwrap_or_else(PoisonError::into_inner);
        cache
            .entry(dir.to_path_buf())
            .or_insert_with(|| {
                let rel = dir.strip_prefix(&self.root).ok()?.join(".gitignore");
                let gi = matcher(dir, &read_text(&self.root_dir, &rel)?);
                (!gi.is_empty()).then(|| Arc::new(gi))
            })
            .clone()
    }
}

/// An ignore file's text, decoded as Node's `readFileSync(path, 'utf-8')`
/// decodes it: invalid bytes become U+FFFD and the rest still counts.
fn read_text(root_dir: &Dir, rel: &Path) -> Option<String> {
    read_beneath(root_dir, rel).map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
}

/// The bytes of the file at `rel` beneath `root_dir`: symlinks are followed
/// while they stay beneath it. `None` when it is missing, unreadable or
/// leads outside.
#[must_use]
pub fn read_beneath(root_dir: &Dir, rel: &Path) -> Option<Vec<u8>> {
    let mut file = root_dir.open(rel).ok()?.into_std();
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// A gitignore matcher rooted at `dir` from the lines of `text`, read the
/// way Qwen reads them.
fn matcher(dir: &Path, text: &str) -> Gitignore {
    let mut builder = GitignoreBuilder::new(dir);
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        // A bad pattern only loses itself, as the npm package skips what it
        // cannot compile.
        let _ = builder.add_line(None, line);
    }
    builder.build().unwrap_or_else(|_| Gitignore::empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::fs;

    #[test]
    fn qwen_ignore_files_name_themselves() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join(".qwenignore"), "secret.txt\n").unwrap();
        fs::write(root.join(".aiignore"), "*.key\r\n# comment\n").unwrap();
        let q = QwenIgnore::load(&Sandbox::new(root).unwrap());
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
        assert!(GitIgnore::load(&Sandbox::new(root).unwrap()).is_none());
        fs::create_dir(root.join(".git")).unwrap();
        let g = GitIgnore::load(&Sandbox::new(root).unwrap()).unwrap();
        assert!(g.is_ignored(&root.join("sub/x.log"), false));
        assert!(!g.is_ignored(&root.join("sub/keep.log"), false));
        assert!(g.is_ignored(&root.join(".git"), true));
    }

    #[test]
    fn qwen_ignore_files_apply_without_git_and_gitignore_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        fs::write(root.join(".qwenignore"), "secret/\n*.log\n").unwrap();
        fs::write(root.join(".gitignore"), "*.txt\n").unwrap();
        let d = Discovery::new(&Sandbox::new(&root).unwrap());
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
        let d = Discovery::new(&Sandbox::new(&root).unwrap());
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

    // The three below were checked against Qwen 0.24.4's
    // `FileDiscoveryService` on the same trees; each is where one of the two
    // copies this module replaced (list_directory's, glob's) differed.

    #[test]
    fn a_re_included_directory_does_not_re_include_what_a_shallower_file_ignores() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        fs::create_dir_all(root.join(".git")).unwrap();
        fs::create_dir_all(root.join("sub/keep")).unwrap();
        fs::write(root.join(".gitignore"), "*.log\n").unwrap();
        fs::write(root.join("sub/.gitignore"), "!keep/\n").unwrap();
        let g = GitIgnore::load(&Sandbox::new(&root).unwrap()).unwrap();
        assert!(g.is_ignored(&root.join("sub/keep/a.log"), false));
        assert!(!g.is_ignored(&root.join("sub/keep/a.txt"), false));
    }

    #[test]
    fn nothing_below_an_ignored_directory_can_be_re_included() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        fs::create_dir_all(root.join(".git")).unwrap();
        fs::create_dir_all(root.join("build/keep")).unwrap();
        fs::write(
            root.join(".gitignore"),
            "build/\n!build/keep/\n!build/a.txt\n",
        )
        .unwrap();
        let g = GitIgnore::load(&Sandbox::new(&root).unwrap()).unwrap();
        assert!(g.is_ignored(&root.join("build/a.txt"), false));
        assert!(g.is_ignored(&root.join("build/keep/x.txt"), false));
        assert!(
            Discovery::new(&Sandbox::new(&root).unwrap())
                .ignores_dir_or_ancestor(&root.join("build/keep"))
        );
    }

    #[test]
    fn an_ignore_file_that_is_not_utf8_still_counts() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join(".qwenignore"), b"secret\xff\n*.log\n").unwrap();
        let q = QwenIgnore::load(&Sandbox::new(root).unwrap());
        assert_eq!(
            q.ignored_by(&root.join("a.log"), false),
            Some(".qwenignore")
        );
        assert_eq!(q.ignored_by(&root.join("b.txt"), false), None);
    }

    #[test]
    fn an_ignore_file_leading_outside_counts_as_absent() {
        let tmp = tempfile::tempdir().unwrap();
        let (root, outside) = (tmp.path().join("root"), tmp.path().join("outside"));
        fs::create_dir_all(root.join(".git")).unwrap();
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("rules"), "*.txt\n").unwrap();
        std::os::unix::fs::symlink(outside.join("rules"), root.join(".qwenignore")).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("sub")).unwrap();
        fs::write(outside.join(".gitignore"), "*.md\n").unwrap();
        let d = Discovery::new(&Sandbox::new(&root).unwrap());
        assert!(!d.ignores(&root.join("a.txt"), false));
        assert!(!d.ignores(&root.join("sub/a.md"), false));
    }
}
