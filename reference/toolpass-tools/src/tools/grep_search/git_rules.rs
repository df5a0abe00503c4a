//! The ignore rules of [`Strategy::GitGrep`](super::search::Strategy): what
//! ripgrep's `ignore` walk (`git_ignore`, `git_exclude`, `require_git`,
//! `parents`), which this replaces, applied, with the files read beneath the
//! session root's handle instead of by path.
//!
//! Each directory is a [`Level`] over its parent's: its `.gitignore`, its
//! `.git/info/exclude` when it holds a `.git` directory, and whether it holds
//! a `.git` at all. The chain starts with the ancestors of the searched
//! directory's real path (their rules see real paths, as `ignore`'s
//! "absolute parents" do). A path is judged by the nearest `.gitignore`
//! that says anything about it, then the nearest exclude file, looking no
//! further up than the first directory holding a `.git`; nothing applies
//! unless some directory of the chain holds one.
//!
//! Ancestors above the session root are asked only whether they hold a
//! `.git` (as [`Strategy::for_dir`](super::search::Strategy::for_dir)
//! asks); their files are not read, so a repository whose top lies above
//! the root contributes no rules from outside it. Neither is a `.git` file
//! (a linked work tree) followed to its repository's exclude file.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use cap_std::fs::Dir;
use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::tools::ignore_files::read_beneath;
use crate::tools::walk::Entry;

/// One directory's rules, over its parent's.
#[derive(Debug)]
pub struct Level {
    gitignore: Gitignore,
    exclude: Gitignore,
    has_git: bool,
    /// Whether this directory or one above holds a `.git`.
    any_git: bool,
    /// An ancestor of the searched directory: its rules see real paths.
    ancestor: bool,
    parent: Option<Arc<Level>>,
}

impl Level {
    /// Whether the rules ignore the entry at `path` (the searched directory
    /// as given, joined with the entry's relative path) whose real path is
    /// `real`.
    #[must_use]
    pub fn ignores(&self, path: &Path, real: &Path, is_dir: bool) -> bool {
        if !self.any_git {
            return false;
        }
        let (mut ignore, mut exclude) = (Match::None, Match::None);
        let mut level = Some(self);
        while let Some(l) = level {
            let p = if l.ancestor { real } else { path };
            if ignore.is_none() {
                ignore = l.gitignore.matched(p, is_dir);
            }
            if exclude.is_none() {
                exclude = l.exclude.matched(p, is_dir);
            }
            // Rules above a repository's top do not reach into it.
            if l.has_git {
                break;
            }
            level = l.parent.as_deref();
        }
        ignore.or(exclude).is_ignore()
    }
}

/// Where the rules of one search are read from.
#[derive(Debug)]
pub struct Rules<'a> {
    /// The session root and its handle.
    pub root: &'a Path,
    /// The handle of the session root.
    pub root_dir: &'a Dir,
    /// The searched directory as given (what the walk's paths start with).
    pub dir: &'a Path,
    /// Its real path.
    pub real: &'a Path,
    /// Its real path relative to the root; `None` outside it.
    pub rel: Option<&'a Path>,
}

impl Rules<'_> {
    /// The level of the searched directory, over its ancestors'.
    #[must_use]
    pub fn start(&self, entries: &[Entry]) -> Level {
        let mut chain: Option<Arc<Level>> = None;
        let ancestors: Vec<&Path> = self.real.ancestors().skip(1).collect();
        for ancestor in ancestors.into_iter().rev() {
            let level = match ancestor.strip_prefix(self.root) {
                Ok(rel) => self.read(ancestor, Some(rel), chain, true, |_| true),
                Err(_) => {
                    let has_git = ancestor.join(".git").exists();
                    leaf(chain, has_git, true)
                }
            };
            chain = Some(Arc::new(level));
        }
        self.child(chain, Path::new(""), entries)
    }

    /// The level of the directory at `rel` below the searched one, whose
    /// entries are `entries`, over `parent`'s.
    #[must_use]
    pub fn child(&self, parent: Option<Arc<Level>>, rel: &Path, entries: &[Entry]) -> Level {
        let beneath = self.rel.map(|base| base.join(rel));
        // As `ignore` does, only names the listing holds are looked at.
        let listed = |name: &str| entries.iter().any(|e| e.name() == name);
        // The start's rules are rooted at the directory as given, without
        // the trailing `/` a join with "" would add.
        let path = if rel.as_os_str().is_empty() {
            self.dir.to_path_buf()
        } else {
            self.dir.join(rel)
        };
        self.read(&path, beneath.as_deref(), parent, false, listed)
    }

    /// The rules of the directory at `path`, reached at `rel` beneath the
    /// root's handle (nothing is read without one).
    fn read(
        &self,
        path: &Path,
        rel: Option<&Path>,
        parent: Option<Arc<Level>>,
        ancestor: bool,
        listed: impl Fn(&str) -> bool,
    ) -> Level {
        let Some(rel) = rel else {
            return leaf(parent, false, ancestor);
        };
        let file = |name: &str| {
            read_beneath(self.root_dir, &rel.join(name))
                .map_or_else(Gitignore::empty, |bytes| ripgrep_matcher(path, &bytes))
        };
        let git = listed(".git")
            .then(|| self.root_dir.metadata(rel.join(".git")).ok())
            .flatten();
        let mut level = leaf(parent, git.is_some(), ancestor);
        if listed(".gitignore") {
            level.gitignore = file(".gitignore");
        }
        if git.is_some_and(|m| m.is_dir()) {
            level.exclude = file(".git/info/exclude");
        }
        level
    }
}

/// A level with no rules of its own.
fn leaf(parent: Option<Arc<Level>>, has_git: bool, ancestor: bool) -> Level {
    Level {
        gitignore: Gitignore::empty(),
        exclude: Gitignore::empty(),
        has_git,
        any_git: has_git || parent.as_ref().is_some_and(|p| p.any_git),
        ancestor,
        parent,
    }
}

/// A matcher rooted at `dir` from an ignore file's bytes, read as `ignore`'s
/// `GitignoreBuilder::add` reads a file: lines split on `\n` (a `\r` before
/// it dropped), a leading BOM dropped, a line that is not UTF-8 skipped.
fn ripgrep_matcher(dir: &Path, bytes: &[u8]) -> Gitignore {
    let mut builder = GitignoreBuilder::new(dir);
    for (i, line) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
        let line = match line.strip_suffix(b"\n") {
            Some(line) => line.strip_suffix(b"\r").unwrap_or(line),
            None => line,
        };
        let Ok(mut line) = std::str::from_utf8(line) else {
            continue;
        };
        if i == 0 {
            line = line.trim_start_matches('\u{feff}');
        }
        // A bad pattern only loses itself, as `ignore` goes on after one.
        let _ = builder.add_line(Some(PathBuf::from(dir)), line);
    }
    builder.build().unwrap_or_else(|_| Gitignore::empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_read_as_ignore_reads_them() {
        let m = ripgrep_matcher(
            Path::new("/r"),
            b"\xef\xbb\xbfa.txt\r\nb\xff.txt\n# c\nd.txt\r",
        );
        let ignored = |p: &str| m.matched(Path::new(p), false).is_ignore();
        assert!(ignored("/r/a.txt"));
        assert!(!ignored("/r/# c"));
        // A last line without a newline keeps its `\r`.
        assert!(!ignored("/r/d.txt"));
        assert!(ignored("/r/d.txt\r"));
    }
}
