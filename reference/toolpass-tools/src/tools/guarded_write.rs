//! The write path `edit` and `write_file` share: the prior-read checks of
//! `prior_read` around reading the current content, and the commit (the last
//! check, encoding in the file's own encoding, the parents, the atomic write
//! guarded by the last fingerprint, recording the write).
//!
//! It returns what happened, never a text: each tool words its failures the
//! way its Qwen counterpart does, and the two differ.

use std::fmt;
use std::io::{self, Read};
use std::path::Path;

use toolpass_core::text::{self, Decoded, TextEncoding, TextError};

use super::node::{make_relative, shorten_path};
use crate::confirmation::EditConfirmation;
use crate::error_code::ToolErrorCode;
use crate::fileio::{Fingerprint, Precondition, WriteError, write_atomic};
use crate::located::Located;
use crate::prior_read::{Decision, Refusal, Verb, check_prior_read, escaped};
use crate::result::FileDiff;
use crate::sandbox::is_escape;
use crate::workspace::Workspace;

/// One file a tool is about to mutate.
pub(crate) struct GuardedWrite<'a> {
    workspace: &'a Workspace,
    target: Located,
    shown: &'a str,
    verb: Verb,
    recorded: Recorded,
}

/// How the read cache records a successful write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Recorded {
    /// As a full text read: the model wrote the bytes (`edit`, `write_file`).
    Text,
    /// As a full read of a structured file, which the text tools still
    /// refuse (Qwen's `recordWrite(..., {cacheable: false})`).
    Structured,
    /// Not at all, and earlier reads forgotten: what the model saw no longer
    /// describes the file (Qwen's `invalidate`).
    Forgotten,
}

/// Why the current content could not be read.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// Opening or reading failed.
    Io(io::Error),
    /// The path led outside the sandbox when it was opened.
    Refused(Refusal),
    /// The path is not a regular file any more (a FIFO, a device, ...).
    NotRegular(String),
    /// The bytes do not decode to text that writes back unchanged.
    Decode(TextError),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io(e) => e.fmt(f),
            ReadError::Refused(r) => r.raw_message.fmt(f),
            ReadError::NotRegular(path) => write!(f, "{path} is not a regular file"),
            ReadError::Decode(e) => e.fmt(f),
        }
    }
}

/// Why the commit did not happen. The file keeps its bytes in every case.
#[derive(Debug)]
pub(crate) enum CommitError {
    /// The last prior-read check refused.
    Refused(Refusal),
    /// The file's encoding cannot represent the new text.
    Encode(TextError),
    /// The file changed (or appeared) between the last check and the rename.
    Changed,
    /// Creating the parents or writing failed.
    Io(io::Error),
}

impl<'a> GuardedWrite<'a> {
    /// The path `resolved` (checked when the call was built) of `session`,
    /// shown to the model as `shown`, mutated by the tool `verb` names.
    ///
    /// It is located again now: the call may run long after it was built,
    /// and what was inside then may lead outside now.
    pub(crate) fn new(
        workspace: &'a Workspace,
        resolved: &Path,
        shown: &'a str,
        verb: Verb,
    ) -> Result<Self, Refusal> {
        let target = workspace
            .sandbox()
            .locate(&resolved.to_string_lossy())
            .map_err(|_| escaped(shown))?;
        Ok(GuardedWrite {
            workspace,
            target,
            shown,
            verb,
            recorded: Recorded::Text,
        })
    }

    /// How the commit will record the write (the text tools' way unless
    /// set).
    pub(crate) fn record_as(&mut self, recorded: Recorded) {
        self.recorded = recorded;
    }

    /// Qwen's `checkPriorRead` for this file.
    pub(crate) fn check(&self, expect_existing: bool) -> Decision {
        check_prior_read(
            &self.workspace.read_cache(),
            self.workspace.faults(),
            &self.target,
            self.shown,
            self.verb,
            expect_existing,
        )
    }

    /// Refuses a file of `size` bytes above the session's cap.
    fn within_cap(&self, size: u64) -> Result<(), Refusal> {
        let cap = self.workspace.config().max_file_bytes;
        if size <= cap {
            return Ok(());
        }
        let message = format!(
            "File {} is {size} bytes, above the {cap}-byte limit for {} a file whole; use a \
             different mechanism (e.g. the shell tool) for files this large.",
            self.shown,
            self.verb.ing()
        );
        Err(Refusal {
            code: ToolErrorCode::FileTooLarge,
            raw_message: message,
            display_message: format!("file too large ({size} bytes > {cap})."),
        })
    }

    /// Reads and decodes the current content, never blocking on a FIFO.
    pub(crate) fn read_current(&self) -> Result<Decoded, ReadError> {
        let mut file = self.target.open_read().map_err(|e| {
            if is_escape(&e) {
                ReadError::Refused(escaped(self.shown))
            } else {
                ReadError::Io(e)
            }
        })?;
        let meta = file.metadata().map_err(ReadError::Io)?;
        self.within_cap(meta.len()).map_err(ReadError::Refused)?;
        if !meta.is_file() {
            return Err(ReadError::NotRegular(
                self.target.path().display().to_string(),
            ));
        }
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        file.read_to_end(&mut bytes).map_err(ReadError::Io)?;
        text::decode(&bytes).map_err(ReadError::Decode)
    }

    /// The last check (`expect_existing` unless creating), then `content`
    /// encoded as `current` was (UTF-8 without a BOM for a new file),
    /// written atomically and recorded as this session's write.
    /// `create_parents` follows the Qwen tool: `edit` always makes the
    /// parent directories, `write_file` only for a new file.
    pub(crate) fn commit(
        &self,
        expect_existing: bool,
        content: &str,
        current: Option<&Decoded>,
        create_parents: bool,
    ) -> Result<(), CommitError> {
        // The backup goes before the last check, never between it and the
        // write: a slow copy there would widen the window the check closes.
        if expect_existing {
            self.workspace.backup().track_edit(self.target.path());
        }
        // Right before the write, since a confirmation may take long; a
        // vanished file must not turn into a new one made from stale bytes.
        let precondition = match self.check(expect_existing).map_err(CommitError::Refused)? {
            Some(meta) => Precondition::Unchanged(Fingerprint::of(&meta)),
            None => Precondition::Absent,
        };
        let bytes = match current {
            Some(decoded) => text::encode_borrowed(content, decoded.encoding, decoded.bom),
            None => text::encode_borrowed(content, TextEncoding::UTF_8, None),
        }
        .map_err(CommitError::Encode)?;
        self.within_cap(bytes.len() as u64)
            .map_err(CommitError::Refused)?;
        let meta = write_atomic(
            self.workspace.faults(),
            &self.target,
            &bytes,
            precondition,
            create_parents,
        )
        .map_err(|e| match e {
            WriteError::Changed => CommitError::Changed,
            WriteError::Io(e) if is_escape(&e) => CommitError::Refused(escaped(self.shown)),
            WriteError::Io(e) => CommitError::Io(e),
        })?;
        let mut cache = self.workspace.read_cache();
        match self.recorded {
            Recorded::Text => cache.record_write(self.target.path(), &meta, true),
            Recorded::Structured => cache.record_write(self.target.path(), &meta, false),
            Recorded::Forgotten => cache.forget(self.target.path()),
        }
        Ok(())
    }
}

/// What `edit` and `write_file` know besides their arguments, for the
/// confirmation flow: the session root (the title shows the path relative
/// to it) and, once the user has modified the proposal, what the model had
/// proposed (the result reports the two changes apart).
#[derive(Debug, Clone)]
pub(crate) struct Proposal {
    root: String,
    proposed: Option<String>,
}

impl Proposal {
    /// The model's own proposal, in `workspace`.
    pub(crate) fn new(workspace: &Workspace) -> Self {
        Proposal {
            root: workspace.sandbox().root().to_string_lossy().into_owned(),
            proposed: None,
        }
    }

    /// The same call after the user edited the proposal `asked` showed.
    pub(crate) fn modified(&self, asked: &EditConfirmation) -> Self {
        Proposal {
            root: self.root.clone(),
            proposed: Some(asked.proposed.clone()),
        }
    }

    /// `shown` relative to the root, shortened, as Qwen's titles and
    /// descriptions show a path.
    pub(crate) fn relative(&self, shown: &str) -> String {
        shorten_path(&make_relative(shown, &self.root))
    }

    /// The display of a change of `shown` from `old` to `new`: with both
    /// halves when the user modified the model's proposal.
    pub(crate) fn diff(&self, shown: &str, old: String, new: String) -> FileDiff {
        match &self.proposed {
            Some(proposed) => FileDiff::modified(shown, old, proposed, new),
            None => FileDiff::new(shown, old, new),
        }
    }
}
