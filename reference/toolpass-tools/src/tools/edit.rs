//! `edit`: Qwen Code's `EditTool` (`packages/core/src/tools/edit.ts`, 0.24).
//!
//! The decision is `toolpass_core::edit::calculate_edit`; this module adds
//! the IO around it and the three read-before-write checks of `prior_read`, each
//! guarding its own time-of-check/time-of-use window:
//!
//! 1. before reading, so "0 occurrences found" cannot probe an unread file;
//! 2. after reading, so bytes changed between the stat and the read are not
//!    edited blind (`expect_existing`: the file was there a moment ago);
//! 3. right before writing (`expect_existing` unless creating), since a
//!    confirmation may take long.
//!
//! Beyond Qwen: the write is atomic and compares the fingerprint taken at
//! check 3 once more just before the rename, so a writer that slips in after
//! the last check keeps its bytes and the model is told to re-read.

use std::io;
use std::path::PathBuf;

use serde::Deserialize;
use serde_json::{Map, Value};
use toolpass_core::approval::Permission;
use toolpass_core::edit::{EditPlan, EditRequest, calculate_edit};
use toolpass_core::text::Decoded;

use super::guarded_write::{CommitError, GuardedWrite, Proposal, ReadError};
use super::path_arg::{normalize_file_path, resolve_for_write};
use crate::classifier;
use crate::confirmation::{Confirmation, EditConfirmation};
use crate::context::InvocationContext;
use crate::error_code::ToolErrorCode;
use crate::kind::Kind;
use crate::prior_read::{Verb, changed_since_read};
use crate::result::{Display, Failure, ToolResult};
use crate::tool::{BuildError, DeclarativeTool, Invocation};
use crate::workspace::Workspace;

/// The tool's name.
pub const NAME: &str = "edit";

/// The `edit` tool.
#[derive(Debug, Default)]
pub struct EditTool;

/// The arguments.
#[derive(Debug, Deserialize)]
pub struct EditParams {
    file_path: String,
    old_string: String,
    new_string: String,
    #[serde(default)]
    replace_all: Option<bool>,
    /// The real path under the sandbox, resolved at build time.
    #[serde(skip)]
    resolved: PathBuf,
}

impl DeclarativeTool for EditTool {
    const NAME: &'static str = NAME;
    const KIND: Kind = Kind::Edit;
    const DECLARATION: &'static str = include_str!("declarations/edit.json");
    type Params = EditParams;

    fn validate_values(
        &self,
        params: &mut EditParams,
        workspace: &Workspace,
    ) -> Result<(), BuildError> {
        normalize_file_path(&mut params.file_path)?;
        params.resolved = resolve_for_write(workspace, &params.file_path)?;
        Ok(())
    }

    fn create_invocation(&self, params: EditParams, workspace: &Workspace) -> Box<dyn Invocation> {
        Box::new(EditInvocation {
            params,
            proposal: Proposal::new(workspace),
        })
    }

    /// Qwen's `EditTool.toAutoClassifierInput`: the path, 300-unit previews
    /// of both strings, whether each was cut, and the change in line count.
    fn classifier_input(&self, args: &Value, _workspace: &Workspace) -> Map<String, Value> {
        let (old, new) = (
            classifier::text(args, "old_string"),
            classifier::text(args, "new_string"),
        );
        let ((old_preview, old_cut), (new_preview, new_cut)) =
            (classifier::preview(old), classifier::preview(new));
        let lines = |text: &str| i64::try_from(text.matches('\n').count()).unwrap_or(i64::MAX);
        classifier::object([
            ("file_path", classifier::member(args, "file_path")),
            ("old_string_preview", Some(old_preview.into())),
            ("new_string_preview", Some(new_preview.into())),
            ("old_string_truncated", Some(old_cut.into())),
            ("new_string_truncated", Some(new_cut.into())),
            ("lines_changed", Some((lines(new) - lines(old)).into())),
        ])
    }
}

struct EditInvocation {
    params: EditParams,
    /// The root for the title, and the model's proposal once modified.
    proposal: Proposal,
}

/// An edit worked out against the file as it is now: checks 1 and 2 passed.
struct Prepared<'a> {
    target: GuardedWrite<'a>,
    current: Option<Decoded>,
    plan: EditPlan,
}

impl EditInvocation {
    /// Qwen's `calculateEdit`: check 1, the read, check 2, and the matcher's
    /// decision. Run when the confirmation is prepared and again when the
    /// call executes, since the file may change while the user decides.
    fn prepare<'a>(&'a self, workspace: &'a Workspace) -> Result<Prepared<'a>, Failure> {
        let p = &self.params;
        let shown = p.file_path.as_str();
        let target = GuardedWrite::new(workspace, &p.resolved, shown, Verb::Editing)?;

        // Check 1: before the content is read at all.
        let exists = target.check(false)?.is_some();
        let current = if exists {
            let decoded = target.read_current().map_err(|e| match e {
                ReadError::Refused(r) => Failure::from(r),
                e => preparation_failure(&e.to_string()),
            })?;
            // Check 2: the bytes just read are the bytes the model saw.
            target.check(true)?;
            Some(decoded)
        } else {
            None
        };

        let request = EditRequest {
            file_path: shown,
            old_string: &p.old_string,
            new_string: &p.new_string,
            replace_all: p.replace_all.unwrap_or(false),
        };
        let plan =
            calculate_edit(current.as_ref().map(|d| d.text.as_str()), &request).map_err(|e| {
                Failure::new(e.kind().into(), e.llm_message()).error_display(e.display_message())
            })?;
        Ok(Prepared {
            target,
            current,
            plan,
        })
    }
}

impl Invocation for EditInvocation {
    fn description(&self) -> String {
        let p = &self.params;
        if p.old_string.is_empty() {
            format!("Create {}", p.file_path)
        } else if p.old_string == p.new_string {
            format!("No file changes to {}", p.file_path)
        } else {
            p.file_path.clone()
        }
    }

    fn locations(&self) -> Vec<PathBuf> {
        vec![self.params.resolved.clone()]
    }

    fn default_permission(&self) -> Permission {
        // Qwen's edit always asks (its managed memory files aside, which
        // this tool layer does not have).
        Permission::Ask
    }

    fn confirmation(&self, workspace: &Workspace) -> Result<Confirmation, Failure> {
        let prepared = self.prepare(workspace)?;
        let title = format!(
            "Confirm Edit: {}",
            self.proposal.relative(&self.params.file_path)
        );
        Ok(Confirmation::Edit(EditConfirmation::new(
            title,
            &self.params.file_path,
            prepared.current.map(|d| d.text),
            prepared.plan.new_content,
        )))
    }

    fn modified(&self, asked: &EditConfirmation, content: String) -> Option<Box<dyn Invocation>> {
        // Qwen's `createUpdatedParams`: the whole current content becomes
        // `old_string` and the user's text `new_string`, so the checks and
        // the matcher run on it as on any edit.
        let params = EditParams {
            file_path: self.params.file_path.clone(),
            old_string: asked.original.clone().unwrap_or_default(),
            new_string: content,
            replace_all: None,
            resolved: self.params.resolved.clone(),
        };
        Some(Box::new(EditInvocation {
            params,
            proposal: self.proposal.modified(asked),
        }))
    }

    fn execute(
        &self,
        workspace: &Workspace,
        _context: &InvocationContext,
    ) -> Result<ToolResult, Failure> {
        let shown = self.params.file_path.as_str();
        let Prepared {
            target,
            current,
            plan,
        } = self.prepare(workspace)?;

        // Check 3 runs in the commit, right before the write.
        target
            .commit(!plan.is_new_file, &plan.new_content, current.as_ref(), true)
            .map_err(|e| match e {
                CommitError::Refused(r) => Failure::from(r),
                CommitError::Encode(e) => {
                    write_failure(ToolErrorCode::FileWriteFailure, &e.to_string())
                }
                CommitError::Changed => changed_since_read(shown, Verb::Editing).into(),
                CommitError::Io(e) => write_failure(io_code(&e), &e.to_string()),
            })?;

        let message = plan.success_message(shown);
        let old = current.map(|d| d.text).unwrap_or_default();
        let diff = self.proposal.diff(shown, old, plan.new_content);
        Ok(ToolResult::new(message, Display::Diff(Box::new(diff))))
    }
}

/// Qwen's result when `calculateEdit` throws.
fn preparation_failure(message: &str) -> Failure {
    let text = format!("Error preparing edit: {message}");
    Failure::new(ToolErrorCode::EditPreparationFailure, message)
        .llm_content(text.clone())
        .display(text)
}

/// Qwen's result when the write throws.
fn write_failure(code: ToolErrorCode, message: &str) -> Failure {
    Failure::new(code, message)
        .llm_content(format!("Error executing edit: {message}"))
        .display(format!("Error writing file: {message}"))
}

/// Qwen's code for a write error: `EISDIR` is `target_is_directory`; beyond
/// Qwen's edit (which says `file_write_failure`), `EACCES` is write_file's
/// `permission_denied`, since a read-only file is refused on purpose.
fn io_code(error: &io::Error) -> ToolErrorCode {
    match error.kind() {
        io::ErrorKind::IsADirectory => ToolErrorCode::TargetIsDirectory,
        io::ErrorKind::PermissionDenied => ToolErrorCode::PermissionDenied,
        _ => ToolErrorCode::FileWriteFailure,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::Declared;

    #[test]
    fn declaration_parses_and_matches_qwens_schema() {
        let tool = Declared::<EditTool>::default();
        let schema = &tool.declaration().schema;
        assert_eq!(
            schema["required"],
            serde_json::json!(["file_path", "old_string", "new_string"])
        );
        assert_eq!(schema["properties"]["replace_all"]["type"], "boolean");
    }
}
