//! The directory walks of `glob`, `grep_search` and `list_directory`,
//! carried out beneath directory handles rather than by path.
//!
//! A path is checked once, when the call is built; walking it again by name
//! later would follow whatever symlink a process swapped in meanwhile. So a
//! walk starts from a handle of the start directory, opened beneath the
//! session root's handle ([`open_start`]), and every directory below is
//! opened relative to its parent's handle without following a symlink
//! (`open_dir_nofollow`). Entry types come from the directory entry (or an
//! `lstat` relative to the parent's handle) and files are opened relative
//! to the parent's handle with `O_NOFOLLOW` ([`Entry::open_file`]). A
//! directory swapped for a symlink between being listed and being opened
//! fails to open and is left out: at worst an entry goes missing, the
//! outside is never read.
//!
//! Symlinks met in a walk are listed as what they are and never followed,
//! as the `ignore` walks this replaces (`follow_links(false)`) did.
//!
//! Two shapes: [`walk_sorted`], sequential, depth first, each directory's
//! entries by name bytes (the order `glob`'s limit depends on), and
//! [`walk_parallel`], a queue of entries shared by one worker per core
//! (`grep_search`, whose results are sorted afterwards).

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use cap_fs_ext::{DirExt, FollowSymlinks, OpenOptionsFollowExt};
use cap_std::fs::{Dir, FileType, Metadata, OpenOptions, OpenOptionsExt};
use rustix::fs::OFlags;

use crate::error_code::ToolErrorCode;
use crate::located::flags;
use crate::result::Failure;
use crate::sandbox::{PathError, PathErrorKind, Sandbox, is_escape};

/// The most walker threads, as `ignore`'s parallel walker caps them.
const MAX_THREADS: usize = 12;

/// The start of a walk: the directory's handle and where it is.
#[derive(Debug)]
pub struct Start {
    /// The start directory, opened beneath the root's handle.
    pub dir: Dir,
    /// Its real path relative to the root (`.` for the root), for reaching
    /// things beneath the root's handle by name; `None` in an admitted
    /// area outside the root.
    pub rel: Option<PathBuf>,
    /// Its real absolute path.
    pub real: PathBuf,
}

/// Why a walk could not start.
#[derive(Debug)]
pub enum StartError {
    /// The path leads outside the root now (a symlink swapped in since the
    /// call was checked); the message is the sandbox's.
    Escape(String),
    /// The directory could not be opened (gone, not a directory, no
    /// permission).
    Io(io::Error),
}

impl Start {
    /// Whether `rel` (relative to the start) exists, symlinks followed while
    /// they stay beneath the root (beneath the start in an admitted area).
    #[must_use]
    pub fn exists(&self, root_dir: &Dir, rel: &Path) -> bool {
        match &self.rel {
            Some(base) => root_dir.metadata(base.join(rel)).is_ok(),
            None => self.dir.metadata(rel).is_ok(),
        }
    }
}

impl StartError {
    /// The failure of a call whose walk would have led outside, or the IO
    /// error of a directory that could not be opened (which the searches
    /// report as finding nothing, as the `ignore` walks did).
    ///
    /// # Errors
    /// The IO error.
    pub fn into_failure(self) -> Result<Failure, io::Error> {
        match self {
            StartError::Escape(message) => {
                Ok(Failure::new(ToolErrorCode::PathNotInWorkspace, &message)
                    .error_display(&message))
            }
            StartError::Io(e) => Err(e),
        }
    }
}

/// Opens the directory at `path` (absolute, or relative to the root) for a
/// walk: resolved again to word a refusal, then opened beneath the root's
/// handle, so a symlink swapped in at any moment cannot lead out.
///
/// # Errors
/// [`StartError::Escape`] when the path now leads outside the root,
/// [`StartError::Io`] when the directory cannot be opened.
pub fn open_start(sandbox: &Sandbox, path: &Path) -> Result<Start, StartError> {
    let shown = path.to_string_lossy();
    let outside = || PathError::new(PathErrorKind::OutsideWorkspace, &shown).to_string();
    let located = sandbox.locate(&shown).map_err(|e| match e.kind() {
        PathErrorKind::OutsideWorkspace => StartError::Escape(outside()),
        PathErrorKind::SymlinkLoop | PathErrorKind::Io(_) => {
            StartError::Io(io::Error::other(e.to_string()))
        }
    })?;
    // Only the root is writable; the other areas (the session's spill
    // directory) are admitted for reading and have no path under the root.
    let rel = located.is_writable().then(|| located.rel().to_path_buf());
    match located.base().open_dir(located.rel()) {
        Ok(dir) => Ok(Start {
            dir,
            rel,
            real: located.path().to_path_buf(),
        }),
        Err(e) if is_escape(&e) => Err(StartError::Escape(outside())),
        Err(e) => Err(StartError::Io(e)),
    }
}

/// One entry met in a walk.
#[derive(Debug)]
pub struct Entry {
    parent: Arc<Dir>,
    name: OsString,
    rel: PathBuf,
    file_type: FileType,
    depth: usize,
}

impl Entry {
    /// The entry's name in its directory.
    #[must_use]
    pub fn name(&self) -> &OsStr {
        &self.name
    }

    /// The path relative to the start directory.
    #[must_use]
    pub fn rel(&self) -> &Path {
        &self.rel
    }

    /// The entry's own type: a symlink is a symlink.
    #[must_use]
    pub fn file_type(&self) -> FileType {
        self.file_type
    }

    /// Whether the entry itself is a directory (a symlink to one is not).
    #[must_use]
    pub fn is_dir(&self) -> bool {
        self.file_type.is_dir()
    }

    /// 1 for the start directory's own entries.
    #[must_use]
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// `lstat` of the entry, relative to its directory's handle.
    ///
    /// # Errors
    /// The OS error (the entry may be gone).
    pub fn symlink_metadata(&self) -> io::Result<Metadata> {
        self.parent.symlink_metadata(&self.name)
    }

    /// Opens the entry for reading relative to its directory's handle,
    /// refusing a symlink (one swapped in since the listing) and not
    /// waiting on a FIFO swapped in; callers check the descriptor's own
    /// metadata for what it is.
    ///
    /// # Errors
    /// The OS error: `ELOOP` for a symlink, for one.
    pub fn open_file(&self) -> io::Result<File> {
        let mut options = OpenOptions::new();
        options
            .read(true)
            .follow(FollowSymlinks::No)
            .custom_flags(flags(OFlags::NONBLOCK));
        Ok(self.parent.open_with(&self.name, &options)?.into_std())
    }

    /// Opens the entry as a directory relative to its directory's handle,
    /// refusing a symlink.
    fn open_dir(&self) -> io::Result<Dir> {
        self.parent.open_dir_nofollow(&self.name)
    }
}

/// The entries of `dir` in the order the directory yields them; those that
/// cannot be read are left out, as the `ignore` walks left them out.
///
/// # Errors
/// When the directory cannot be listed.
pub fn read_dir(dir: &Arc<Dir>, rel: &Path, depth: usize) -> io::Result<Vec<Entry>> {
    let mut entries = Vec::new();
    for entry in dir.entries()? {
        let Ok(entry) = entry else { continue };
        let Ok(file_type) = entry.file_type() else {
            continue;
        };
        let name = entry.file_name();
        entries.push(Entry {
            parent: Arc::clone(dir),
            rel: rel.join(&name),
            name,
            file_type,
            depth,
        });
    }
    Ok(entries)
}

/// What a visitor says about an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Go on; for a directory, walk into it.
    Continue,
    /// Leave the entry out; for a directory, do not walk into it.
    Skip,
    /// End the walk.
    Stop,
}

/// Walks below `start` depth first, each directory's entries sorted by
/// their names' bytes and a directory's contents right after it (the
/// pre-order of `walkdir`, which `ignore`'s sorted walk used), entries no
/// deeper than `max_depth`. `visit` sees every entry; directories it lets
/// through are walked into. Directories that cannot be opened or listed
/// are left out.
pub fn walk_sorted(start: Dir, max_depth: Option<usize>, mut visit: impl FnMut(&Entry) -> Step) {
    let sorted = |dir: Dir, rel: &Path, depth| {
        read_dir(&Arc::new(dir), rel, depth).map(|mut entries| {
            entries.sort_unstable_by(|a, b| a.name.cmp(&b.name));
            entries.into_iter()
        })
    };
    let mut stack = Vec::new();
    if max_depth != Some(0)
        && let Ok(entries) = sorted(start, Path::new(""), 1)
    {
        stack.push(entries);
    }
    while let Some(top) = stack.last_mut() {
        let Some(entry) = top.next() else {
            stack.pop();
            continue;
        };
        match visit(&entry) {
            Step::Stop => return,
            Step::Skip => continue,
            Step::Continue => {}
        }
        if entry.is_dir()
            && max_depth.is_none_or(|max| entry.depth < max)
            && let Ok(children) = entry
                .open_dir()
                .and_then(|dir| sorted(dir, &entry.rel, entry.depth + 1))
        {
            stack.push(children);
        }
    }
}

/// What [`walk_parallel`] asks of its user.
pub trait Visitor: Sync {
    /// What a directory carries for its entries (the ignore rules in force
    /// there).
    type Level: Send + Sync;
    /// What each worker thread keeps (its searchers).
    type Worker;

    /// A worker's state.
    fn worker(&self) -> Self::Worker;

    /// The level of a directory about to be visited, from its parent's
    /// (`None` for the start directory) and its entries.
    fn enter(&self, parent: Option<&Self::Level>, rel: &Path, entries: &[Entry]) -> Self::Level;

    /// Handles one entry; for a directory, [`Step::Continue`] walks into
    /// it. [`Step::Stop`] is taken as [`Step::Skip`].
    fn visit(&self, worker: &mut Self::Worker, level: &Self::Level, entry: &Entry) -> Step;
}

/// An entry waiting to be visited, with the level of its directory. Files
/// are queued one by one, as `ignore`'s parallel walker queued them, so a
/// directory of many large files is searched by every worker.
struct Job<L> {
    entry: Entry,
    level: Arc<L>,
}

/// The queue and the number of workers busy with a job.
struct Queue<L> {
    state: Mutex<(Vec<Job<L>>, usize)>,
    changed: Condvar,
}

impl<L> Queue<L> {
    /// The next job, or `None` when none is left and no busy worker can
    /// add one.
    fn take(&self) -> Option<Job<L>> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            // Last in, first out: depth first, so the directories whose
            // entries wait (each holding its descriptor) stay few.
            if let Some(job) = state.0.pop() {
                state.1 += 1;
                return Some(job);
            }
            if state.1 == 0 {
                self.changed.notify_all();
                return None;
            }
            state = self
                .changed
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Queues what a job produced and marks the job done, in one step so
    /// no worker sees the queue empty and nobody busy in between.
    fn finish(&self, jobs: Vec<Job<L>>) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.0.extend(jobs);
        state.1 -= 1;
        self.changed.notify_all();
    }
}

/// Walks below `start` with one worker per core (at most 12), sharing a
/// queue of entries: each worker takes one, hands it to the visitor and,
/// for a directory the visitor lets through, opens it (refusing a symlink
/// swapped in since it was listed), lists it and queues its entries. The
/// order of visits is unspecified.
pub fn walk_parallel<V: Visitor>(start: Dir, visitor: &V) {
    let start = Arc::new(start);
    let Ok(entries) = read_dir(&start, Path::new(""), 1) else {
        return;
    };
    let level = Arc::new(visitor.enter(None, Path::new(""), &entries));
    let queue = Queue {
        state: Mutex::new((jobs(entries, &level), 0)),
        changed: Condvar::new(),
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(MAX_THREADS);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let mut worker = visitor.worker();
                while let Some(job) = queue.take() {
                    queue.finish(run(visitor, &mut worker, &job));
                }
            });
        }
    });
}

/// Visits one entry; for a directory let through, the jobs of its entries.
fn run<V: Visitor>(visitor: &V, worker: &mut V::Worker, job: &Job<V::Level>) -> Vec<Job<V::Level>> {
    let entry = &job.entry;
    if visitor.visit(worker, &job.level, entry) != Step::Continue || !entry.is_dir() {
        return Vec::new();
    }
    let Ok(dir) = entry.open_dir() else {
        return Vec::new();
    };
    let Ok(entries) = read_dir(&Arc::new(dir), &entry.rel, entry.depth + 1) else {
        return Vec::new();
    };
    let level = Arc::new(visitor.enter(Some(&job.level), &entry.rel, &entries));
    jobs(entries, &level)
}

fn jobs<L>(entries: Vec<Entry>, level: &Arc<L>) -> Vec<Job<L>> {
    entries
        .into_iter()
        .map(|entry| Job {
            entry,
            level: Arc::clone(level),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::fs;

    /// `TMP/root` with `a/x`, `a/b/y`, `c`, and `TMP/outside/secret`.
    fn tree() -> (tempfile::TempDir, Sandbox, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("root");
        let outside = tmp.path().join("outside");
        fs::create_dir_all(root.join("a/b")).unwrap();
        fs::create_dir_all(&outside).unwrap();
        fs::write(root.join("a/x"), "x").unwrap();
        fs::write(root.join("a/b/y"), "y").unwrap();
        fs::write(root.join("c"), "c").unwrap();
        fs::write(outside.join("secret"), "s").unwrap();
        let sandbox = Sandbox::new(&root).unwrap();
        (tmp, sandbox, outside)
    }

    fn rels(sandbox: &Sandbox, max_depth: Option<usize>) -> Vec<String> {
        let start = open_start(sandbox, sandbox.root()).unwrap();
        let mut seen = Vec::new();
        walk_sorted(start.dir, max_depth, |e| {
            seen.push(e.rel().to_string_lossy().into_owned());
            Step::Continue
        });
        seen
    }

    #[test]
    fn the_sorted_walk_is_depth_first_by_name_and_bounded() {
        let (_tmp, sandbox, _) = tree();
        assert_eq!(rels(&sandbox, None), ["a", "a/b", "a/b/y", "a/x", "c"]);
        assert_eq!(rels(&sandbox, Some(1)), ["a", "c"]);
        assert_eq!(rels(&sandbox, Some(0)), Vec::<String>::new());
    }

    /// The seam a path walk has: a directory listed as one, then swapped
    /// for a symlink to outside before it is opened. The swap happens in
    /// the visitor, right before the walk opens the directory.
    #[test]
    fn a_directory_swapped_after_listing_is_not_entered() {
        let (_tmp, sandbox, outside) = tree();
        let root = sandbox.root().to_path_buf();
        let start = open_start(&sandbox, &root).unwrap();
        let mut seen = Vec::new();
        walk_sorted(start.dir, None, |e| {
            if e.rel() == Path::new("a") {
                fs::rename(root.join("a"), root.join("parked")).unwrap();
                std::os::unix::fs::symlink(&outside, root.join("a")).unwrap();
            }
            seen.push(e.rel().to_string_lossy().into_owned());
            Step::Continue
        });
        assert_eq!(seen, ["a", "c"]);
    }

    /// The same seam for a file: a regular file when listed, a symlink to
    /// outside when opened.
    #[test]
    fn a_file_swapped_after_listing_is_not_opened() {
        let (_tmp, sandbox, outside) = tree();
        let start = open_start(&sandbox, &sandbox.root().join("a")).unwrap();
        let mut opened = Vec::new();
        walk_sorted(start.dir, Some(1), |e| {
            if e.rel() == Path::new("x") {
                let x = sandbox.root().join("a/x");
                fs::remove_file(&x).unwrap();
                std::os::unix::fs::symlink(outside.join("secret"), &x).unwrap();
                opened.push(e.open_file().map(|_| ()).map_err(|e| e.kind()));
            }
            Step::Continue
        });
        assert_eq!(opened.len(), 1);
        assert!(opened[0].is_err(), "{opened:?}");
    }

    #[test]
    fn a_start_swapped_for_a_symlink_to_outside_is_an_escape() {
        let (_tmp, sandbox, outside) = tree();
        fs::rename(sandbox.root().join("a"), sandbox.root().join("parked")).unwrap();
        std::os::unix::fs::symlink(&outside, sandbox.root().join("a")).unwrap();
        let start = open_start(&sandbox, &sandbox.root().join("a"));
        assert!(matches!(start, Err(StartError::Escape(_))), "{start:?}");
        let gone = open_start(&sandbox, &sandbox.root().join("gone"));
        assert!(matches!(gone, Err(StartError::Io(_))), "{gone:?}");
    }

    struct Names(Mutex<Vec<String>>);

    impl Visitor for Names {
        type Level = usize;
        type Worker = ();
        fn worker(&self) {}
        fn enter(&self, parent: Option<&usize>, _rel: &Path, _entries: &[Entry]) -> usize {
            parent.map_or(0, |p| p + 1)
        }
        fn visit(&self, _worker: &mut (), level: &usize, entry: &Entry) -> Step {
            assert_eq!(*level + 1, entry.depth());
            self.0
                .lock()
                .unwrap()
                .push(entry.rel().to_string_lossy().into_owned());
            Step::Continue
        }
    }

    #[test]
    fn the_parallel_walk_visits_everything_once() {
        let (_tmp, sandbox, outside) = tree();
        std::os::unix::fs::symlink(&outside, sandbox.root().join("a/out")).unwrap();
        let names = Names(Mutex::default());
        walk_parallel(open_start(&sandbox, sandbox.root()).unwrap().dir, &names);
        let mut seen = names.0.into_inner().unwrap();
        seen.sort();
        assert_eq!(seen, ["a", "a/b", "a/b/y", "a/out", "a/x", "c"]);
    }
}
