//! The search core of `grep_search`: a parallel walk beneath directory
//! handles ([`walk_parallel`]) and a line-oriented search with
//! `grep-searcher` + `grep-regex` of each file opened relative to its
//! directory's handle, shaped like the strategy Qwen's
//! `GrepTool.performGrepSearch` would pick for the directory.
//!
//! Qwen shells out. In a git work tree it runs `git grep --untracked -n -z -E
//! --ignore-case`; elsewhere (every scenario sandbox) `grep -r -n -H -E
//! --null --exclude-dir=node_modules,.git,bower_components,.svn,.hg
//! [--include=GLOB]`. The two differ in what they search and how, and
//! [`Strategy`] carries each difference:
//!
//! | | [`Strategy::GitGrep`] | [`Strategy::SystemGrep`] |
//! |---|---|---|
//! | case | insensitive | **sensitive** (Qwen passes no `-i`) |
//! | skipped | `.gitignore`, `.git/info/exclude`, `.git/` ([`git_rules`](super::git_rules)) | directories named in Qwen's core excludes |
//! | `glob` | a git pathspec: `*` crosses `/`, a directory name matches what is under it | `--include`: matched against the base name only, so a glob with `/` (or `{a,b}`, which `fnmatch` does not expand) matches nothing |
//! | a matched line that is not UTF-8 | shown, lossily decoded | dropped (GNU grep in a UTF-8 locale) |
//!
//! A NUL byte makes a file binary, and binary files show no lines, but each
//! tool only looks where it looks: GNU grep checks each 96 KiB read, so the
//! lines of the reads before the one with the NUL are still printed; git
//! checks the first 8 000 bytes only. Both are reproduced from the offset of
//! the first NUL. Neither follows symlinks met in the walk. Neither
//! applies `.qwenignore` (Qwen's grep does not). Results come back sorted by
//! path bytes, which is git's order; GNU grep's order is the directory's,
//! which no file system promises.

use std::fs::File;
use std::io::{self, Seek};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkMatch};

use super::fnmatch::fnmatch;
use super::git_rules::{Level as GitLevel, Rules};
use super::regex_error::{self, PatternError};
use crate::sandbox::Sandbox;
use crate::tools::walk::{Entry, StartError, Step, Visitor, open_start, walk_parallel};

/// GNU grep's read size: a NUL hides the lines from the read it is in on.
const GNU_GREP_READ: u64 = 96 * 1024;

/// How much of a file git inspects for a NUL (`buffer_is_binary`).
const GIT_BINARY_PROBE: u64 = 8_000;

/// Directories `grep -r` is told to skip: the single-name entries of Qwen's
/// `FileExclusions.getGlobExcludes()` (`COMMON_IGNORE_PATTERNS`).
pub const EXCLUDED_DIRS: [&str; 5] = ["node_modules", ".git", "bower_components", ".svn", ".hg"];

/// Which of Qwen's shell strategies the search reproduces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// `git grep --untracked`, chosen inside a git work tree.
    GitGrep,
    /// `grep -r`, chosen everywhere else.
    SystemGrep,
}

impl Strategy {
    /// Qwen's choice for `dir`: `isGitRepository`, i.e. a `.git` entry in
    /// `dir` or any ancestor. (Qwen also asks whether `git` is installed; this
    /// reference assumes it is.)
    #[must_use]
    pub fn for_dir(dir: &Path) -> Self {
        if dir.ancestors().any(|a| a.join(".git").exists()) {
            Strategy::GitGrep
        } else {
            Strategy::SystemGrep
        }
    }
}

/// One matched line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// 1-based line number.
    pub line_number: u64,
    /// The line without its terminator or a trailing `\r`, decoded as UTF-8
    /// (lossily under [`Strategy::GitGrep`]).
    pub line: String,
}

/// The matched lines of one file, in line order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileHits {
    /// The path relative to the searched directory, `/`-separated.
    pub rel: String,
    /// The path as found: the searched directory joined with `rel`.
    pub path: PathBuf,
    /// The matched lines.
    pub hits: Vec<Hit>,
}

/// A compiled search: pattern, filter and strategy.
#[derive(Debug, Clone)]
pub struct Search {
    matcher: RegexMatcher,
    glob: Option<String>,
    strategy: Strategy,
}

impl Search {
    /// Compiles `pattern` (Rust `regex` syntax) for `strategy`, with the
    /// optional `glob` file filter.
    ///
    /// # Errors
    /// A [`PatternError`] worded as Qwen words an invalid pattern.
    pub fn new(
        pattern: &str,
        glob: Option<&str>,
        strategy: Strategy,
    ) -> Result<Self, PatternError> {
        regex_error::check_js_groups(pattern)?;
        let matcher = RegexMatcherBuilder::new()
            .case_insensitive(strategy == Strategy::GitGrep)
            .multi_line(true)
            .line_terminator(Some(b'\n'))
            .build(pattern)
            .map_err(|e| regex_error::from_rust(pattern, &e))?;
        Ok(Search {
            matcher,
            glob: glob.filter(|g| !g.is_empty()).map(str::to_owned),
            strategy,
        })
    }

    /// The strategy this search reproduces.
    #[must_use]
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// Searches every file under `dir` (absolute, inside the sandbox's
    /// root) on all cores and returns the files with at least one matched
    /// line, sorted by `rel`'s bytes. Unreadable files and directories are
    /// skipped, as `grep -r` skips them (Qwen drops "Permission denied" from
    /// its stderr).
    ///
    /// # Errors
    /// When `dir` cannot be opened beneath the root: an escape, or an IO
    /// error.
    pub fn run(&self, sandbox: &Sandbox, dir: &Path) -> Result<Vec<FileHits>, StartError> {
        let start = open_start(sandbox, dir)?;
        let walk = GrepWalk {
            search: self,
            dir,
            rules: Rules {
                root: sandbox.root(),
                root_dir: sandbox.root_dir(),
                dir,
                real: &start.real,
                rel: start.rel.as_deref(),
            },
            found: Mutex::default(),
        };
        walk_parallel(start.dir, &walk);
        let mut found = walk
            .found
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        found.sort_unstable_by(|a, b| a.rel.cmp(&b.rel));
        Ok(found)
    }

    /// Whether the walk leaves out the directory `entry`.
    fn skips_dir(&self, entry: &Entry) -> bool {
        match self.strategy {
            Strategy::GitGrep => entry.name() == ".git",
            Strategy::SystemGrep => EXCLUDED_DIRS.iter().any(|d| entry.name() == *d),
        }
    }

    fn search_entry(
        &self,
        searchers: &mut Searchers,
        path: &Path,
        entry: &Entry,
    ) -> Option<FileHits> {
        // Regular files only: grep -r skips devices, FIFOs and the symlinks
        // it meets while recursing.
        if !entry.file_type().is_file() {
            return None;
        }
        let rel = entry.rel().to_string_lossy().into_owned();
        if let Some(glob) = &self.glob
            && !self.glob_selects(glob, &rel, entry)
        {
            return None;
        }
        // An unreadable file is skipped like grep skips it; so is one that
        // is no longer a regular file (a symlink or FIFO swapped in).
        let file = entry.open_file().ok()?;
        if !file.metadata().ok()?.is_file() {
            return None;
        }
        let lossy = self.strategy == Strategy::GitGrep;
        let mut sink = Collect::new(lossy);
        searchers
            .quit_at_nul
            .search_file(&self.matcher, &file, &mut sink)
            .ok()?;
        // `quit_at_nul` drops whole buffers of its own size, so what the
        // strategy would still show is found again without detection.
        let mut text_search = |mut file: &File| {
            file.rewind()?;
            let mut sink = Collect::new(lossy);
            searchers
                .text
                .search_file(&self.matcher, file, &mut sink)
                .map(|()| sink.hits)
        };
        let hits = match (sink.nul_at, self.strategy) {
            (None, _) => sink.hits,
            (Some(nul), Strategy::SystemGrep) => {
                let shown_until = nul / GNU_GREP_READ * GNU_GREP_READ;
                if shown_until == 0 {
                    return None;
                }
                let mut hits = text_search(&file).ok()?;
                hits.retain(|h| h.end <= shown_until);
                hits
            }
            (Some(nul), Strategy::GitGrep) if nul < GIT_BINARY_PROBE => return None,
            // Text to git: all of it is searched, NULs and all.
            (Some(_), Strategy::GitGrep) => text_search(&file).ok()?,
        };
        if hits.is_empty() {
            return None;
        }
        Some(FileHits {
            rel,
            path: path.to_path_buf(),
            hits: hits.into_iter().map(|h| h.hit).collect(),
        })
    }

    fn glob_selects(&self, glob: &str, rel: &str, entry: &Entry) -> bool {
        match self.strategy {
            Strategy::SystemGrep => fnmatch(glob.as_bytes(), entry.name().as_encoded_bytes()),
            Strategy::GitGrep => pathspec_matches(glob, rel),
        }
    }
}

/// One search's walk: the rules it applies and the files it found.
struct GrepWalk<'a> {
    search: &'a Search,
    /// The searched directory as given: found paths start with it.
    dir: &'a Path,
    rules: Rules<'a>,
    found: Mutex<Vec<FileHits>>,
}

impl Visitor for GrepWalk<'_> {
    /// The git rules in force, under [`Strategy::GitGrep`] only.
    type Level = Option<Arc<GitLevel>>;
    type Worker = Searchers;

    fn worker(&self) -> Searchers {
        Searchers::new()
    }

    fn enter(&self, parent: Option<&Self::Level>, rel: &Path, entries: &[Entry]) -> Self::Level {
        if self.search.strategy != Strategy::GitGrep {
            return None;
        }
        Some(Arc::new(match parent {
            None => self.rules.start(entries),
            Some(parent) => self.rules.child(parent.clone(), rel, entries),
        }))
    }

    fn visit(&self, searchers: &mut Searchers, level: &Self::Level, entry: &Entry) -> Step {
        if entry.is_dir() && self.search.skips_dir(entry) {
            return Step::Skip;
        }
        let path = self.dir.join(entry.rel());
        if let Some(level) = level
            && level.ignores(&path, &self.rules.real.join(entry.rel()), entry.is_dir())
        {
            return Step::Skip;
        }
        if let Some(hits) = self.search.search_entry(searchers, &path, entry) {
            self.found
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(hits);
        }
        Step::Continue
    }
}

/// A git pathspec without magic, as `git grep -- SPEC` applies it relative to
/// the directory searched: a wildcard match where `*` also crosses `/`, or a
/// literal leading directory.
#[must_use]
pub fn pathspec_matches(spec: &str, rel: &str) -> bool {
    let spec = spec.trim_start_matches("./");
    let spec = spec.strip_suffix('/').unwrap_or(spec);
    if spec.is_empty() || spec == "." {
        return true;
    }
    rel == spec
        || rel
            .strip_prefix(spec)
            .is_some_and(|rest| rest.starts_with('/'))
        || fnmatch(spec.as_bytes(), rel.as_bytes())
}

/// The searchers of one walker thread: line numbers, no memory maps.
struct Searchers {
    /// Stops at the first NUL byte and reports its offset.
    quit_at_nul: Searcher,
    /// No binary detection, for a file git deems text despite a NUL.
    text: Searcher,
}

impl Searchers {
    fn new() -> Self {
        let build = |binary| {
            SearcherBuilder::new()
                .line_number(true)
                .binary_detection(binary)
                .build()
        };
        Searchers {
            quit_at_nul: build(BinaryDetection::quit(0)),
            text: build(BinaryDetection::none()),
        }
    }
}

/// A hit and the offset just past its line.
struct Located {
    hit: Hit,
    end: u64,
}

/// Collects one file's matched lines.
struct Collect {
    hits: Vec<Located>,
    nul_at: Option<u64>,
    lossy: bool,
}

impl Collect {
    fn new(lossy: bool) -> Self {
        Collect {
            hits: Vec::new(),
            nul_at: None,
            lossy,
        }
    }
}

impl Sink for Collect {
    type Error = io::Error;

    fn matched(&mut self, _searcher: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, io::Error> {
        let mut bytes = mat.bytes();
        let end = mat.absolute_byte_offset() + bytes.len() as u64;
        bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        let line = if self.lossy {
            String::from_utf8_lossy(bytes).into_owned()
        } else {
            match std::str::from_utf8(bytes) {
                Ok(line) => line.to_owned(),
                // GNU grep in a UTF-8 locale does not print a matched line
                // with an encoding error (it notes "binary file matches" on
                // stderr instead) and goes on with the next one.
                Err(_) => return Ok(true),
            }
        };
        self.hits.push(Located {
            hit: Hit {
                line_number: mat.line_number().unwrap_or(0),
                line,
            },
            end,
        });
        Ok(true)
    }

    fn binary_data(&mut self, _searcher: &Searcher, offset: u64) -> Result<bool, io::Error> {
        // From here on git grep and grep print "Binary file ... matches"
        // instead of lines (which Qwen's parser drops); what came before is
        // settled by the strategy's rule once the offset is known.
        self.nul_at = Some(offset);
        Ok(false)
    }
}
