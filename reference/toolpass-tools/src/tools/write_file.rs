//! `write_file`: Qwen Code's `WriteFileTool` (`packages/core/src/tools/
//! write-file.ts`, 0.24.4).
//!
//! Creating a file needs nothing; overwriting one needs a prior read in this
//! session of text that is still what is on disk (`prior_read`), checked
//! three times as Qwen does: before the current content is read, after it
//! is read, and right before the write. An existing file keeps its
//! encoding, byte-order mark and CRLF line endings (`prepareTextFileContent`
//! with the `_meta` of the read); a new file is UTF-8 without a BOM, its
//! content written as given.
//!
//! Beyond Qwen: the path must resolve inside the session root; the write is
//! atomic and compares the fingerprint taken at the last check once more
//! just before the rename, so a writer that slips in after the last check
//! keeps its bytes; text the file's encoding cannot represent is refused
//! instead of written as `?`; and the artifact registration Qwen appends
//! for `.html`/`.pdf`/... files does not exist here (`record_as_artifact` is
//! accepted and has no effect).

use std::borrow::Cow;
use std::io;
use std::path::PathBuf;

use serde::Deserialize;
use serde_json::{Map, Value};
use toolpass_core::approval::Permission;
use toolpass_core::text::Decoded;

use super::guarded_write::{CommitError, GuardedWrite, Proposal, ReadError};
use super::node::fs_error_message;
use super::path_arg::{resolve_for_write, unescape_path};
use crate::classifier;
use crate::confirmation::{Confirmation, EditConfirmation};
use crate::context::InvocationContext;
use crate::error_code::ToolErrorCode;
use crate::fileio::errno_name;
use crate::kind::Kind;
use crate::prior_read::escaped;
use crate::prior_read::{Refusal, Verb, changed_since_read};
use crate::result::{Display, Failure, ToolResult};
use crate::sandbox::is_escape;
use crate::tool::{BuildError, DeclarativeTool, Invocation};
use crate::workspace::Workspace;

/// The tool's name.
pub const NAME: &str = "write_file";

/// The `write_file` tool.
#[derive(Debug, Default)]
pub struct WriteFileTool;

/// The arguments.
#[derive(Debug, Deserialize)]
pub struct WriteFileParams {
    file_path: String,
    content: String,
    /// Accepted for Qwen's schema; there are no session artifacts here.
    #[serde(default)]
    record_as_artifact: Option<bool>,
    /// Set by a confirmation that edited `content` (Qwen's
    /// `createUpdatedParams`); not part of the schema the model sees.
    #[serde(default)]
    modified_by_user: Option<bool>,
    #[serde(skip)]
    resolved: PathBuf,
}

impl DeclarativeTool for WriteFileTool {
    const NAME: &'static str = NAME;
    const KIND: Kind = Kind::Edit;
    const DECLARATION: &'static str = include_str!("declarations/write_file.json");
    type Params = WriteFileParams;

    fn validate_values(
        &self,
        params: &mut WriteFileParams,
        workspace: &Workspace,
    ) -> Result<(), BuildError> {
        params.file_path = unescape_path(params.file_path.trim());
        let file_path = &params.file_path;
        if file_path.is_empty() {
            return Err(BuildError::invalid(r#"Missing or empty "file_path""#));
        }
        if !file_path.starts_with('/') {
            return Err(BuildError::invalid(format!(
                "File path must be absolute: {file_path}"
            )));
        }
        params.resolved = resolve_for_write(workspace, file_path)?;
        // Qwen's lstat: a symlink to a directory passes here and is refused
        // by the prior-read check as a directory.
        match workspace.sandbox().symlink_metadata(file_path) {
            Ok(meta) if meta.is_dir() => Err(BuildError::invalid(format!(
                "Path is a directory, not a file: {file_path}"
            ))),
            Ok(_) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            // The directory holding it was swapped for a link out since
            // the path was resolved a moment ago.
            Err(e) if is_escape(&e) => Err(BuildError {
                code: ToolErrorCode::PathNotInWorkspace,
                message: escaped(file_path).raw_message,
            }),
            Err(e) => Err(BuildError::invalid(format!(
                "Error accessing path properties for validation: {file_path}. Reason: {}",
                fs_error_message(&e, "lstat", file_path)
            ))),
        }
    }

    fn create_invocation(
        &self,
        params: WriteFileParams,
        workspace: &Workspace,
    ) -> Box<dyn Invocation> {
        Box::new(WriteFileInvocation {
            params,
            proposal: Proposal::new(workspace),
        })
    }

    /// Qwen's `WriteFileTool.toAutoClassifierInput`: the path, the
    /// content's size in UTF-8 bytes, a 300-unit preview and whether it
    /// was cut.
    fn classifier_input(&self, args: &Value, _workspace: &Workspace) -> Map<String, Value> {
        let content = classifier::text(args, "content");
        let (preview, cut) = classifier::preview(content);
        classifier::object([
            ("file_path", classifier::member(args, "file_path")),
            ("byte_count", Some(content.len().into())),
            ("content_preview", Some(preview.into())),
            ("content_truncated", Some(cut.into())),
        ])
    }
}

struct WriteFileInvocation {
    params: WriteFileParams,
    /// The root for the description and the title, and the model's
    /// proposal (Qwen's `ai_proposed_content`) once the user modified it.
    proposal: Proposal,
}

/// The target and what it holds now: checks 1 and 2 passed.
struct Prepared<'a> {
    target: GuardedWrite<'a>,
    /// The current content; `None` when the file does not exist (this
    /// write creates it).
    current: Option<Decoded>,
}

impl WriteFileInvocation {
    /// Check 1, the read of the current content, check 2: what Qwen runs
    /// both when it prepares the confirmation and when it executes.
    fn prepare<'a>(&'a self, workspace: &'a Workspace) -> Result<Prepared<'a>, Failure> {
        let p = &self.params;
        let shown = p.file_path.as_str();
        let target = GuardedWrite::new(workspace, &p.resolved, shown, Verb::Overwriting)?;

        // Check 1: before the current content is read.
        let exists = target.check(false)?.is_some();
        let current = if exists {
            match target.read_current() {
                Ok(decoded) => Some(decoded),
                // Gone since the check: this is a create now, as in Qwen.
                Err(ReadError::Io(e)) if e.kind() == io::ErrorKind::NotFound => None,
                Err(e) => return Err(read_failure(e, shown)),
            }
        } else {
            None
        };
        if current.is_some() {
            // Check 2: the bytes just read are the bytes the model saw.
            target.check(true)?;
        }
        Ok(Prepared { target, current })
    }
}

/// Qwen's result when the existing file cannot be read.
fn read_failure(error: ReadError, shown: &str) -> Failure {
    match error {
        ReadError::Io(e) => Failure::new(
            ToolErrorCode::FileWriteFailure,
            format!(
                "Error checking existing file '{shown}': {} ({})",
                fs_error_message(&e, "open", shown),
                errno_name(&e)
            ),
        ),
        ReadError::Refused(r) => r.into(),
        e @ ReadError::NotRegular(_) => Failure::new(
            ToolErrorCode::FileWriteFailure,
            format!("Error checking existing file: {e}"),
        ),
        ReadError::Decode(e) => Failure::new(
            ToolErrorCode::FileWriteFailure,
            format!("Error checking existing file: failed to decode file: {e}"),
        ),
    }
}

impl Invocation for WriteFileInvocation {
    fn description(&self) -> String {
        format!(
            "Writing to {}",
            self.proposal.relative(&self.params.file_path)
        )
    }

    fn locations(&self) -> Vec<PathBuf> {
        vec![self.params.resolved.clone()]
    }

    fn default_permission(&self) -> Permission {
        Permission::Ask
    }

    fn modified(&self, asked: &EditConfirmation, content: String) -> Option<Box<dyn Invocation>> {
        // Qwen's `createUpdatedParams`: the user's text is the content, the
        // model's is kept as the proposal, and the result says so.
        let params = WriteFileParams {
            file_path: self.params.file_path.clone(),
            content,
            record_as_artifact: self.params.record_as_artifact,
            modified_by_user: Some(true),
            resolved: self.params.resolved.clone(),
        };
        Some(Box::new(WriteFileInvocation {
            params,
            proposal: self.proposal.modified(asked),
        }))
    }

    fn confirmation(&self, workspace: &Workspace) -> Result<Confirmation, Failure> {
        let Prepared { current, .. } = self.prepare(workspace)?;
        let title = format!(
            "Confirm Write: {}",
            self.proposal.relative(&self.params.file_path)
        );
        Ok(Confirmation::Edit(EditConfirmation::new(
            title,
            &self.params.file_path,
            current.map(|d| d.text),
            self.params.content.clone(),
        )))
    }

    fn execute(
        &self,
        workspace: &Workspace,
        _context: &InvocationContext,
    ) -> Result<ToolResult, Failure> {
        let p = &self.params;
        let shown = p.file_path.as_str();
        let Prepared { target, current } = self.prepare(workspace)?;
        let exists = current.is_some();

        // Check 3 runs in the commit, right before the write; a file that
        // vanished after it was read must not be re-created from this call.
        let content = match &current {
            Some(decoded) => decoded.line_ending().restore(&p.content),
            None => Cow::Borrowed(p.content.as_str()),
        };
        target
            .commit(exists, &content, current.as_ref(), !exists)
            .map_err(|e| match e {
                CommitError::Refused(r) => r.into(),
                CommitError::Encode(e) => Failure::new(
                    ToolErrorCode::FileWriteFailure,
                    format!("Error writing to file: failed to encode content: {e}"),
                ),
                CommitError::Changed if exists => {
                    changed_since_read(shown, Verb::Overwriting).into()
                }
                CommitError::Changed => appeared(shown).into(),
                CommitError::Io(e) => io_failure(&e, shown),
            })?;

        let mut message = if exists {
            format!("Successfully overwrote file: {shown}.")
        } else {
            format!("Successfully created and wrote to new file: {shown}.")
        };
        if p.modified_by_user == Some(true) {
            message.push_str(&format!(
                " User modified the `content` to be: {}",
                p.content
            ));
        }
        let old = current.map(|d| d.text).unwrap_or_default();
        let diff = self.proposal.diff(shown, old, p.content.clone());
        Ok(ToolResult::new(message, Display::Diff(Box::new(diff))))
    }
}

/// The refusal when a file appeared between the last check and the commit
/// of a create (beyond Qwen, which would overwrite it).
fn appeared(shown: &str) -> Refusal {
    Refusal {
        code: ToolErrorCode::FileChangedSinceRead,
        raw_message: format!(
            "File {shown} was created by another process while this write was in progress, so it \
             was not overwritten. Read it with the read_file tool before overwriting it."
        ),
        display_message: "file appeared during the write; re-run read_file first.".to_owned(),
    }
}

/// Qwen's mapping of a failed write.
fn io_failure(e: &io::Error, shown: &str) -> Failure {
    let code = errno_name(e);
    match e.kind() {
        io::ErrorKind::PermissionDenied => Failure::new(
            ToolErrorCode::PermissionDenied,
            format!("Permission denied writing to file: {shown} ({code})"),
        ),
        io::ErrorKind::StorageFull => Failure::new(
            ToolErrorCode::NoSpaceLeft,
            format!("No space left on device: {shown} ({code})"),
        ),
        io::ErrorKind::IsADirectory => Failure::new(
            ToolErrorCode::TargetIsDirectory,
            format!("Target is a directory, not a file: {shown} ({code})"),
        ),
        _ => Failure::new(
            ToolErrorCode::FileWriteFailure,
            format!(
                "Error writing to file '{shown}': {} ({code})",
                fs_error_message(e, "open", shown)
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::Declared;

    #[test]
    fn declaration_parses_and_matches_qwens_schema() {
        let tool = Declared::<WriteFileTool>::default();
        assert_eq!(
            tool.declaration().schema["required"],
            serde_json::json!(["file_path", "content"])
        );
        assert_eq!(
            tool.declaration().schema["properties"]["record_as_artifact"]["type"],
            "boolean"
        );
    }
}
