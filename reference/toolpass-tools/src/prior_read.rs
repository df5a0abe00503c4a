//! Read-before-write: Qwen Code's `checkPriorRead`
//! (`packages/core/src/tools/priorReadEnforcement.ts`, 0.24), which decides
//! whether a mutating tool may touch an existing file. It returns a decision
//! rather than an error so each caller can route it into its own shape.
//!
//! The decision table:
//!
//! | stat | cache | decision |
//! |---|---|---|
//! | ENOENT, not expecting the file | — | ok (a new file) |
//! | ENOENT, expecting the file | — | `file_changed_since_read` (it vanished) |
//! | any other error | — | `prior_read_verification_failed` (fail closed) |
//! | a directory | — | `target_is_directory` |
//! | FIFO, socket, device | — | `edit_requires_prior_read` |
//! | regular file | fresh, read, text | ok (any read counts, partial too) |
//! | regular file | stale | `file_changed_since_read` |
//! | regular file | unknown inode, but this path was read (replaced) | `file_changed_since_read` |
//! | regular file | inode 0 | `prior_read_verification_failed` |
//! | regular file | fresh, not text | `edit_requires_prior_read` (re-reading won't help) |
//! | regular file | unknown | `edit_requires_prior_read` |
//!
//! `notebook_edit` shares the stat and the cache lookup ([`observe`]) and
//! decides by its own table (`notebook`).

use std::fs::Metadata;
use std::io;

use crate::error_code::ToolErrorCode;
use crate::faults::Faults;
use crate::fileio::{errno_name, stat};
use crate::located::Located;
use crate::read_cache::{CacheState, FileReadCache};
use crate::result::Failure;
use crate::sandbox::is_escape;

mod notebook;
pub(crate) use notebook::changed_since_read as notebook_changed_since_read;

const READ_FILE: &str = "read_file";
const NOTEBOOK_EDIT: &str = "notebook_edit";

/// Which tool asks, for the wording.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    /// The edit tool ("editing").
    Editing,
    /// The write tool ("overwriting").
    Overwriting,
    /// `notebook_edit`, whose check is Qwen's `checkPriorNotebookRead`.
    NotebookEditing,
}

impl Verb {
    pub(crate) fn ing(self) -> &'static str {
        match self {
            Verb::Editing | Verb::NotebookEditing => "editing",
            Verb::Overwriting => "overwriting",
        }
    }

    fn bare(self) -> &'static str {
        match self {
            Verb::Editing | Verb::NotebookEditing => "edit",
            Verb::Overwriting => "overwrite",
        }
    }
}

/// A refusal, with Qwen's code and both texts.
///
/// Converts into the [`Failure`] Qwen's `execute` returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The canonical error code.
    pub code: ToolErrorCode,
    /// The text for the model.
    pub raw_message: String,
    /// The short text for a person.
    pub display_message: String,
}

impl From<Refusal> for Failure {
    fn from(r: Refusal) -> Self {
        Failure::new(r.code, r.raw_message).error_display(&r.display_message)
    }
}

/// Qwen's refusal for a file whose mtime or size moved since the model read
/// it. The atomic write uses it too, when the file changes after the last
/// check.
#[must_use]
pub fn changed_since_read(shown: &str, verb: Verb) -> Refusal {
    Refusal {
        code: ToolErrorCode::FileChangedSinceRead,
        raw_message: format!(
            "File {shown} has been modified since you last read it (mtime or size changed). \
             Re-read it with the {READ_FILE} tool before {} it to ensure your changes are based \
             on current content.",
            verb.ing()
        ),
        display_message: format!("file changed since last read; re-run {READ_FILE} first."),
    }
}

/// The refusal of a path that led outside the sandbox when it was used,
/// though it was inside when it was checked: a directory on the way was
/// swapped for a symlink in between.
#[must_use]
pub fn escaped(shown: &str) -> Refusal {
    Refusal {
        code: ToolErrorCode::PathNotInWorkspace,
        raw_message: format!(
            "Path {shown} now resolves outside the workspace (a directory on the way was replaced \
             by a symbolic link); only paths inside the session root are allowed."
        ),
        display_message: "path leads outside the workspace.".to_owned(),
    }
}

/// The outcome of [`check_prior_read`]: `Ok(Some(meta))` for a regular file
/// that may be mutated, `Ok(None)` for a path that does not exist (and may be
/// created), or the refusal.
pub type Decision = Result<Option<Metadata>, Refusal>;

/// What the stat and the read cache say of a path, before any tool words
/// its verdict: the part of the check every mutating tool shares.
pub(crate) enum Observed<'a> {
    /// No file there.
    Missing,
    /// The stat failed otherwise (fail closed).
    StatFailed(io::Error),
    /// The path led outside the sandbox when it was used.
    Escaped,
    /// A directory.
    Directory,
    /// A FIFO, socket or device.
    Special,
    /// A regular file, and what the cache knows of it.
    File(Metadata, CacheState<'a>),
}

/// Stats `target` and looks it up in `cache`.
pub(crate) fn observe<'a>(
    cache: &'a FileReadCache,
    faults: &Faults,
    target: &Located,
) -> Observed<'a> {
    let path = target.path();
    let meta = match stat(faults, target) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Observed::Missing,
        Err(e) if is_escape(&e) => return Observed::Escaped,
        Err(e) => return Observed::StatFailed(e),
    };
    if meta.is_dir() {
        return Observed::Directory;
    }
    if !meta.is_file() {
        return Observed::Special;
    }
    // An entry recorded under another path is another file that got the
    // same inode number after the first was deleted (inodes are reused
    // quickly, on tmpfs at once): it says nothing about this file.
    let state = match cache.check(&meta) {
        CacheState::Fresh(entry) | CacheState::Stale(entry) if entry.path != path => {
            CacheState::Unknown
        }
        state => state,
    };
    // A file replaced at a path that was read (deleted and re-created, or
    // renamed over) has changed since the read. Qwen, keyed by inode only,
    // says "stale" when the new file happens to reuse the inode number and
    // "never read" otherwise; here the answer does not depend on the
    // allocator.
    let state = match state {
        CacheState::Unknown => cache
            .replaced(path, &meta)
            .map_or(CacheState::Unknown, CacheState::Stale),
        state => state,
    };
    Observed::File(meta, state)
}

/// Qwen's `checkPriorRead` for the sandboxed path `target`, shown to the model as
/// `shown`. `expect_existing` is set on the last check of an in-place edit:
/// a file that vanished must not fall through to "create". For
/// [`Verb::NotebookEditing`] it is `checkPriorNotebookRead`, whose rules and
/// words are its own (`notebook`).
///
/// # Errors
/// The [`Refusal`] when the mutation must not proceed.
pub fn check_prior_read(
    cache: &FileReadCache,
    faults: &Faults,
    target: &Located,
    shown: &str,
    verb: Verb,
    expect_existing: bool,
) -> Decision {
    let observed = observe(cache, faults, target);
    if verb == Verb::NotebookEditing {
        return notebook::decide(observed, shown, expect_existing);
    }
    let refuse = |code, raw_message: String, display_message: String| {
        Err(Refusal {
            code,
            raw_message,
            display_message,
        })
    };
    let (meta, state) = match observed {
        Observed::File(meta, state) => (meta, state),
        Observed::Missing if expect_existing => {
            return refuse(
                ToolErrorCode::FileChangedSinceRead,
                format!(
                    "File {shown} disappeared after the model read it (stat now returns ENOENT). \
                     Re-read with the {READ_FILE} tool \u{2014} the path may have been deleted or \
                     moved \u{2014} before retrying {} it.",
                    verb.ing()
                ),
                format!("file disappeared after last read; re-run {READ_FILE} first."),
            );
        }
        Observed::Missing => return Ok(None),
        Observed::Escaped => return Err(escaped(shown)),
        Observed::StatFailed(e) => {
            return refuse(
                ToolErrorCode::PriorReadVerificationFailed,
                format!(
                    "Could not stat {shown} to verify prior read ({}). Re-read with the {READ_FILE} \
                     tool, then retry {} it.",
                    errno_name(&e),
                    verb.ing()
                ),
                format!(
                    "cannot verify prior read of {shown}; re-run {READ_FILE} before {} this file.",
                    verb.ing()
                ),
            );
        }
        Observed::Directory => {
            return refuse(
                ToolErrorCode::TargetIsDirectory,
                format!(
                    "{shown} is a directory. The Edit / WriteFile tools only operate on regular files. \
                     Use a different mechanism (e.g. the shell tool) if you need to {} the contents of \
                     this directory.",
                    verb.bare()
                ),
                format!("path is a directory; cannot {} via this tool.", verb.bare()),
            );
        }
        Observed::Special => {
            return refuse(
                ToolErrorCode::EditRequiresPriorRead,
                format!(
                    "{shown} is a FIFO / socket / character or block device. The Edit / WriteFile tools \
                     only operate on regular files; the {READ_FILE} tool also rejects these targets. Use \
                     a different mechanism (e.g. shell tool with the appropriate command) if you need to \
                     {} this path.",
                    verb.bare()
                ),
                format!("special file; cannot {} via this tool.", verb.bare()),
            );
        }
    };
    match state {
        CacheState::Fresh(entry) if entry.last_read_at.is_some() && entry.last_read_cacheable => {
            Ok(Some(meta))
        }
        CacheState::Stale(_) => Err(changed_since_read(shown, verb)),
        CacheState::Unverifiable => refuse(
            ToolErrorCode::PriorReadVerificationFailed,
            format!(
                "File {shown} is on a filesystem that does not provide a verifiable inode identity \
                 (ino=0), so the {} tool cannot safely confirm a prior read. Use a different \
                 mechanism (for example, the shell tool) to {} this file.",
                verb.bare(),
                verb.bare()
            ),
            format!(
                "cannot verify prior read of {shown}; use a different mechanism to {} it.",
                verb.bare()
            ),
        ),
        CacheState::Fresh(entry) if entry.last_read_at.is_some() => refuse(
            ToolErrorCode::EditRequiresPriorRead,
            format!(
                "File {shown} is a binary / image / audio / video / PDF / notebook payload that the \
                 {READ_FILE} tool returns as a structured value rather than as plain text. The Edit / \
                 WriteFile tools cannot mutate that payload safely \u{2014} re-reading it would not \
                 change this. If this is a Jupyter notebook (.ipynb), use the {NOTEBOOK_EDIT} tool \
                 for cell-level edits after reading it. For other non-text files, use a different \
                 mechanism (e.g. shell tool with an appropriate writer) if you need to {} it.",
                verb.bare()
            ),
            format!("non-text payload; cannot {} via this tool.", verb.bare()),
        ),
        CacheState::Fresh(_) | CacheState::Unknown => {
            let guidance = match verb {
                Verb::Editing | Verb::NotebookEditing => format!(
                    "(a partial read with offset / limit is fine \u{2014} you only need to have seen \
                     the bytes you intend to {})",
                    verb.bare()
                ),
                Verb::Overwriting => {
                    "(read the full file \u{2014} overwriting replaces every byte, so \
                                      any unseen bytes would be discarded)"
                        .to_owned()
                }
            };
            refuse(
                ToolErrorCode::EditRequiresPriorRead,
                format!(
                    "File {shown} has not been read in this session. Use the {READ_FILE} tool first \
                     to load the current content {guidance} before {} it.",
                    verb.ing()
                ),
                format!("{READ_FILE} required before {} this file.", verb.ing()),
            )
        }
    }
}
