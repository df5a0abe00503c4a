//! `notebook_edit`'s read-before-write: Qwen Code's `checkPriorNotebookRead`
//! (`packages/core/src/tools/notebook-edit.ts`, 0.24.4). It differs from
//! the text tools' check in what counts: the last read must have shown the
//! whole notebook (`read_file` renders a notebook up to 100 000 characters
//! and cuts the rest), and a notebook read, which is not text, counts.
//!
//! | stat | cache | decision |
//! |---|---|---|
//! | ENOENT, not expecting the file | — | ok (the read then says "not found") |
//! | ENOENT, expecting the file | — | `file_changed_since_read` |
//! | any other error | — | `prior_read_verification_failed` |
//! | a directory | — | `target_is_directory` |
//! | FIFO, socket, device | — | `target_not_regular_file` |
//! | regular file | fresh, last read whole | ok |
//! | regular file | fresh, last read cut | `edit_requires_prior_read` ("too large") |
//! | regular file | stale, or replaced at the path | `file_changed_since_read` |
//! | regular file | inode 0 | `prior_read_verification_failed` |
//! | regular file | unknown | `edit_requires_prior_read` |

use super::{Decision, Observed, READ_FILE, Refusal, escaped};
use crate::error_code::ToolErrorCode;
use crate::fileio::errno_name;
use crate::read_cache::CacheState;

fn refuse(code: ToolErrorCode, raw_message: String, display_message: &str) -> Decision {
    Err(Refusal {
        code,
        raw_message,
        display_message: display_message.to_owned(),
    })
}

/// Qwen's refusal of a notebook that changed since the model read it; the
/// atomic write uses it too, when the file changes after the last check.
#[must_use]
pub(crate) fn changed_since_read(shown: &str) -> Refusal {
    Refusal {
        code: ToolErrorCode::FileChangedSinceRead,
        raw_message: format!(
            "Notebook {shown} has been modified since you last read it. Re-read it with the \
             {READ_FILE} tool before editing it."
        ),
        display_message: format!("notebook changed since last read; re-run {READ_FILE} first."),
    }
}

/// The verdict on what [`super::observe`] saw.
pub(super) fn decide(observed: Observed<'_>, shown: &str, expect_existing: bool) -> Decision {
    let (meta, state) = match observed {
        Observed::File(meta, state) => (meta, state),
        Observed::Missing if expect_existing => {
            return refuse(
                ToolErrorCode::FileChangedSinceRead,
                format!(
                    "Notebook {shown} disappeared after it was read. Re-read it with the \
                     {READ_FILE} tool before editing it."
                ),
                &format!("notebook disappeared after last read; re-run {READ_FILE} first."),
            );
        }
        Observed::Missing => return Ok(None),
        Observed::Escaped => return Err(escaped(shown)),
        Observed::StatFailed(e) => {
            return refuse(
                ToolErrorCode::PriorReadVerificationFailed,
                format!(
                    "Could not stat {shown} to verify prior notebook read ({}). Re-read it with the \
                     {READ_FILE} tool before editing it.",
                    errno_name(&e)
                ),
                &format!(
                    "cannot verify prior read of {shown}; re-run {READ_FILE} before editing this \
                     notebook."
                ),
            );
        }
        Observed::Directory => {
            return refuse(
                ToolErrorCode::TargetIsDirectory,
                format!(
                    "{shown} is a directory. The NotebookEdit tool only operates on .ipynb files."
                ),
                "path is a directory; cannot edit as a notebook.",
            );
        }
        Observed::Special => {
            return refuse(
                ToolErrorCode::TargetNotRegularFile,
                format!(
                    "{shown} is not a regular file. The NotebookEdit tool only operates on .ipynb \
                     files."
                ),
                "special file; cannot edit as a notebook.",
            );
        }
    };
    match state {
        CacheState::Fresh(entry) if entry.last_read_at.is_some() && entry.last_read_was_full => {
            Ok(Some(meta))
        }
        CacheState::Fresh(entry) if entry.last_read_at.is_some() => refuse(
            ToolErrorCode::EditRequiresPriorRead,
            format!(
                "Notebook {shown} is too large for cell-level editing because its rendered output \
                 was truncated when read. Reduce the notebook output size or split the notebook \
                 before editing cells."
            ),
            "notebook too large for cell-level editing.",
        ),
        CacheState::Stale(_) => Err(changed_since_read(shown)),
        CacheState::Unverifiable => refuse(
            ToolErrorCode::PriorReadVerificationFailed,
            format!(
                "Notebook {shown} is on a filesystem that does not provide a verifiable inode \
                 identity (ino=0), so NotebookEdit cannot safely confirm a prior read. Use a \
                 different mechanism to edit this notebook."
            ),
            &format!("cannot verify prior read of {shown}; use a different mechanism to edit it."),
        ),
        CacheState::Fresh(_) | CacheState::Unknown => refuse(
            ToolErrorCode::EditRequiresPriorRead,
            format!(
                "Notebook {shown} has not been fully read in this session. Use the {READ_FILE} \
                 tool first, without offset or limit, before editing cells."
            ),
            &format!("{READ_FILE} required before editing this notebook."),
        ),
    }
}
