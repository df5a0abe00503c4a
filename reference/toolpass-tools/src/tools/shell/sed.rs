//! `sed -i` interception: Qwen Code's `getSedEditInfo`, `prepareSedEdit`
//! and `executeSedEdit` (`tools/shell.ts`), over the pure half in
//! `toolpass_core::sed` and the write path `edit` uses.
//!
//! - **When.** The command is one `sed -i` substitution on one file, in the
//!   foreground, without leading assignments (the planner decides). The
//!   edit is prepared only when the call would ask (Qwen computes it in
//!   `getConfirmationDetails`): approval mode `default`, and `auto-edit`,
//!   which then approves the edit unasked. In `yolo`, or for a program the
//!   user allowed, the prior read is checked and the real `sed` runs.
//! - **Preparing** follows Qwen's order: a symlink is left to `sed`; the
//!   prior read is checked as `edit` checks it (a refusal fails the call
//!   before anyone is asked); the file is read and the substitution
//!   emulated with GNU sed's semantics. A file that cannot be emulated
//!   byte for byte (not plain UTF-8, a pattern the engines refuse, a result
//!   too large) is left to `sed` too, asked as a command.
//! - **Writing**, once approved, prepares again from the file as it is,
//!   refuses a file whose content is no longer what the user was shown,
//!   and commits through [`GuardedWrite`]: the last prior-read check, the
//!   fingerprint and the atomic exchange of `edit`, the write recorded as
//!   the session's own.

use std::io;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use toolpass_core::sed::{self, Call, Plan};
use toolpass_core::text::{Decoded, TextEncoding};

use super::super::dir_arg::resolve_lexically;
use super::super::guarded_write::{CommitError, GuardedWrite};
use super::super::node::{make_relative, shorten_path};
use crate::confirmation::EditConfirmation;
use crate::error_code::ToolErrorCode;
use crate::prior_read::{Verb, changed_since_read};
use crate::result::{Display, Failure, FileDiff, ToolResult};
use crate::workspace::Workspace;

/// A `sed -i` command the tool may take over.
pub(super) struct SedEdit {
    plan: Plan,
    /// The file, absolute (Qwen resolves it against the call's directory).
    path: String,
    /// Where preparing left it.
    state: Mutex<State>,
}

/// Where the interception stands.
#[derive(Clone, Debug, PartialEq, Eq)]
enum State {
    /// No confirmation was prepared: the call was not asked.
    Unprepared,
    /// The user is shown this content becoming the proposed one.
    Shown(String),
    /// The edit could not be prepared: the command is asked and run as it
    /// is.
    LeftToSed,
}

/// An edit worked out against the file as it is now.
struct Prepared<'a> {
    target: GuardedWrite<'a>,
    current: Decoded,
    proposed: String,
}

impl SedEdit {
    /// The edit `command` is, run in `directory` (absolute), when Qwen would
    /// take it over.
    pub(super) fn plan(command: &str, background: bool, directory: &str) -> Option<Self> {
        let call = if background {
            Call::Background
        } else {
            Call::Foreground
        };
        let plan = sed::plan(command, call)
            .inspect_err(|why| tracing::debug!("sed not intercepted: {why}"))
            .ok()?;
        let path = resolve_lexically(Path::new(directory), &plan.file)
            .to_string_lossy()
            .into_owned();
        Some(SedEdit {
            plan,
            path,
            state: Mutex::new(State::Unprepared),
        })
    }

    /// The edit confirmation, or `None` when the edit cannot be prepared
    /// (the command is then asked as a command).
    ///
    /// # Errors
    /// The prior-read refusal: the call fails before anyone is asked.
    pub(super) fn confirmation(
        &self,
        workspace: &Workspace,
    ) -> Result<Option<EditConfirmation>, Failure> {
        let prepared = self.prepare(workspace)?;
        let (state, confirmation) = match prepared {
            Some(prepared) => {
                let root = workspace.sandbox().root().to_string_lossy();
                let title = format!(
                    "Confirm Sed Edit: {}",
                    shorten_path(&make_relative(&self.path, &root))
                );
                let original = prepared.current.text;
                let confirmation = EditConfirmation::new(
                    title,
                    &self.path,
                    Some(original.clone()),
                    prepared.proposed,
                )
                .unmodifiable();
                (State::Shown(original), Some(confirmation))
            }
            None => (State::LeftToSed, None),
        };
        *self.state.lock().unwrap_or_else(PoisonError::into_inner) = state;
        Ok(confirmation)
    }

    /// Whether the user was shown the edit (rather than the command).
    pub(super) fn was_shown(&self) -> bool {
        matches!(
            *self.state.lock().unwrap_or_else(PoisonError::into_inner),
            State::Shown(_)
        )
    }

    /// What the call does now that it runs: the emulated edit, when one was
    /// shown (`Some`); else the prior-read check before the real `sed`
    /// (`None` to go on and run it).
    ///
    /// # Errors
    /// A refusal or a failed write: nothing is written, `sed` does not run.
    pub(super) fn execute(&self, workspace: &Workspace) -> Result<Option<ToolResult>, Failure> {
        let state = self
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        match state {
            State::Shown(original) => self.write(workspace, &original).map(Some),
            State::Unprepared => {
                // Qwen's `checkSedPriorRead` before the real sed.
                let target =
                    GuardedWrite::new(workspace, self.path.as_ref(), &self.path, Verb::Editing)?;
                target.check(false)?;
                Ok(None)
            }
            State::LeftToSed => Ok(None),
        }
    }

    /// Qwen's `prepareSedEdit`: `None` when the edit is left to `sed`.
    fn prepare<'a>(&'a self, workspace: &'a Workspace) -> Result<Option<Prepared<'a>>, Failure> {
        // A symlink (or a path that does not lead to a file) is left to
        // sed, which replaces the link by a file and leaves its target.
        match workspace.sandbox().symlink_metadata(&self.path) {
            Ok(meta) if !meta.file_type().is_symlink() => {}
            _ => return Ok(None),
        }
        let Ok(target) =
            GuardedWrite::new(workspace, self.path.as_ref(), &self.path, Verb::Editing)
        else {
            return Ok(None);
        };
        // Check 1, before the content is read.
        if target.check(false)?.is_none() {
            return Ok(None);
        }
        let Ok(current) = target.read_current() else {
            return Ok(None);
        };
        // Check 2: the bytes read are the bytes the model saw.
        target.check(true)?;
        // sed edits bytes: only plain UTF-8 reads back as the same bytes.
        if current.encoding != TextEncoding::UTF_8 || current.bom.is_some() {
            return Ok(None);
        }
        match sed::emulate(
            &self.plan.substitution,
            current.text.as_bytes(),
            sed::Options::default(),
        ) {
            Ok(proposed) => Ok(Some(Prepared {
                target,
                current,
                proposed,
            })),
            Err(why) => {
                tracing::debug!("sed left to the shell: {why}");
                Ok(None)
            }
        }
    }

    /// Qwen's `executeSedEdit` once the user saw `shown` become the
    /// proposal.
    fn write(&self, workspace: &Workspace, shown: &str) -> Result<ToolResult, Failure> {
        let path = &self.path;
        let Some(Prepared {
            target,
            current,
            proposed,
        }) = self.prepare(workspace)?
        else {
            // It could be emulated when it was shown; the real sed would
            // now run a command the user approved as an edit.
            return Err(Failure::new(
                ToolErrorCode::EditPreparationFailure,
                format!(
                    "Error simulating sed edit for file '{path}': the file can no longer be \
                     edited as it was shown."
                ),
            ));
        };
        if current.text != shown {
            return Err(Failure::new(
                ToolErrorCode::FileChangedSinceRead,
                format!(
                    "File changed since sed edit confirmation: {path}. Please re-read the file \
                     and retry."
                ),
            ));
        }
        if proposed == current.text {
            let message = format!("sed edit made no changes to {path}.");
            return Ok(ToolResult::new(message.clone(), Display::Text(message)));
        }
        target
            .commit(true, &proposed, Some(&current), false)
            .map_err(|e| match e {
                CommitError::Refused(refusal) => Failure::from(refusal),
                CommitError::Changed => changed_since_read(path, Verb::Editing).into(),
                CommitError::Encode(e) => write_failure(path, &e.to_string()),
                CommitError::Io(e) => io_failure(path, &e),
            })?;
        let diff = FileDiff::new(path.as_str(), current.text, proposed);
        Ok(ToolResult::new(
            format!("sed edit applied to {path}."),
            Display::Diff(Box::new(diff)),
        ))
    }
}

/// Qwen's words for a write that failed.
fn io_failure(path: &str, error: &io::Error) -> Failure {
    let code = rustix::io::Errno::from_io_error(error);
    let (code, message) = match code {
        Some(rustix::io::Errno::ACCESS) => (
            ToolErrorCode::PermissionDenied,
            format!("Permission denied writing sed edit to file: {path} (EACCES)"),
        ),
        Some(rustix::io::Errno::NOSPC) => (
            ToolErrorCode::NoSpaceLeft,
            format!("No space left on device while writing sed edit to file: {path} (ENOSPC)"),
        ),
        Some(rustix::io::Errno::ISDIR) => (
            ToolErrorCode::TargetIsDirectory,
            format!("Sed edit target is a directory, not a file: {path} (EISDIR)"),
        ),
        _ => return write_failure(path, &error.to_string()),
    };
    Failure::new(code, message)
}

fn write_failure(path: &str, message: &str) -> Failure {
    Failure::new(
        ToolErrorCode::FileWriteFailure,
        format!("Error writing sed edit to file '{path}': {message}"),
    )
}
