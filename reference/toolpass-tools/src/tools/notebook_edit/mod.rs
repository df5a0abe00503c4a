//! `notebook_edit`: Qwen Code's `NotebookEditTool` (`packages/core/src/
//! tools/notebook-edit.ts`, 0.24.4): replaces, inserts or deletes one cell
//! of a Jupyter notebook, addressed by the id `read_file` showed (a real
//! `id`, or `cell-N` by position).
//!
//! The edit itself is [`apply`] (Qwen's `applyNotebookEdit`, byte for byte:
//! [`json`] parses and prints as JavaScript does). Around it, the write path
//! `edit` and `write_file` use (`guarded_write`): the notebook's own
//! prior-read check (`prior_read`'s `NotebookEditing`: the last read must
//! have shown the whole notebook) before the read, after it and right
//! before the write, the file's encoding, BOM and CRLF kept, and the atomic
//! write. After the write the model has seen the notebook (not as text, so
//! `edit` and `write_file` still refuse it), unless an insert or delete
//! shifted the `cell-N` ids it saw: then it must read the notebook again.
//!
//! Beyond Qwen: the path must resolve inside the session root, the write
//! is atomic and compares the last fingerprint once more before the rename,
//! and a notebook holding a lone UTF-16 surrogate is refused rather than
//! rewritten.

mod apply;
mod json;

use std::path::PathBuf;

use serde::Deserialize;
use toolpass_core::approval::Permission;
use toolpass_core::text::Decoded;

use self::apply::{Applied, ApplyError, Mode, Request};
use super::guarded_write::{CommitError, GuardedWrite, Proposal, ReadError, Recorded};
use super::ignore_files::QwenIgnore;
use super::path_arg::{resolve_for_write, unescape_path};
use crate::confirmation::{Confirmation, EditConfirmation};
use crate::context::InvocationContext;
use crate::error_code::ToolErrorCode;
use crate::kind::Kind;
use crate::prior_read::{Refusal, Verb, notebook_changed_since_read};
use crate::result::{Display, Failure, ToolResult};
use crate::tool::{BuildError, DeclarativeTool, Invocation};
use crate::workspace::Workspace;

/// The tool's name.
pub const NAME: &str = "notebook_edit";

/// The `notebook_edit` tool.
#[derive(Debug, Default)]
pub struct NotebookEditTool;

/// The arguments.
#[derive(Debug, Clone, Deserialize)]
pub struct NotebookEditParams {
    notebook_path: String,
    #[serde(default)]
    cell_id: Option<String>,
    #[serde(default)]
    new_source: Option<String>,
    #[serde(default)]
    cell_type: Option<String>,
    #[serde(default)]
    edit_mode: Option<String>,
    /// The notebook text the user made of the proposal in the confirmation
    /// (Qwen's `modifiedNotebookContent`); not part of the schema.
    #[serde(skip)]
    modified_content: Option<String>,
    #[serde(skip)]
    resolved: PathBuf,
}

impl NotebookEditParams {
    fn mode(&self) -> Mode {
        match self.edit_mode.as_deref() {
            Some("insert") => Mode::Insert,
            Some("delete") => Mode::Delete,
            _ => Mode::Replace,
        }
    }
}

/// Node's `path.extname` of the last component: from its last dot, unless
/// that dot starts the name.
fn extension(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.rfind('.') {
        Some(i) if i > 0 && name != ".." => &name[i..],
        _ => "",
    }
}

impl DeclarativeTool for NotebookEditTool {
    const NAME: &'static str = NAME;
    const KIND: Kind = Kind::Edit;
    const DECLARATION: &'static str = include_str!("../declarations/notebook_edit.json");
    type Params = NotebookEditParams;

    /// Qwen's `validateToolParamValues`, in its order, then the sandbox.
    fn validate_values(
        &self,
        params: &mut NotebookEditParams,
        workspace: &Workspace,
    ) -> Result<(), BuildError> {
        params.notebook_path = unescape_path(params.notebook_path.trim());
        let path = &params.notebook_path;
        if path.is_empty() {
            return Err(BuildError::invalid(
                "The 'notebook_path' parameter must be non-empty.",
            ));
        }
        if !path.starts_with('/') {
            return Err(BuildError::invalid(format!(
                "Notebook path must be absolute: {path}"
            )));
        }
        if !extension(path).eq_ignore_ascii_case(".ipynb") {
            return Err(BuildError::invalid(
                "File must be a Jupyter notebook (.ipynb). Use the edit tool for other file types.",
            ));
        }
        let mode = params.edit_mode.as_deref().unwrap_or("replace");
        if !["replace", "insert", "delete"].contains(&mode) {
            return Err(BuildError::invalid(
                "edit_mode must be 'replace', 'insert', or 'delete'.",
            ));
        }
        // `params.cell_type && ...`: an empty string passes.
        if let Some(t) = params.cell_type.as_deref().filter(|t| !t.is_empty())
            && !["code", "markdown"].contains(&t)
        {
            return Err(BuildError::invalid(
                "cell_type must be 'code' or 'markdown'.",
            ));
        }
        if mode != "insert" && params.cell_id.as_deref().is_none_or(str::is_empty) {
            return Err(BuildError::invalid(
                "cell_id is required for replace and delete operations.",
            ));
        }
        if mode != "delete" && params.new_source.is_none() {
            return Err(BuildError::invalid(format!(
                "new_source is required when edit_mode is \"{mode}\"."
            )));
        }
        params.resolved = resolve_for_write(workspace, path)?;
        if let Some(file) =
            QwenIgnore::load(workspace.sandbox()).ignored_by(&params.resolved, false)
        {
            return Err(BuildError::invalid(format!(
                "File path '{path}' is ignored by {file} pattern(s)."
            )));
        }
        Ok(())
    }

    fn create_invocation(
        &self,
        params: NotebookEditParams,
        workspace: &Workspace,
    ) -> Box<dyn Invocation> {
        Box::new(NotebookEditInvocation {
            params,
            proposal: Proposal::new(workspace),
        })
    }
}

struct NotebookEditInvocation {
    params: NotebookEditParams,
    proposal: Proposal,
}

/// The edit worked out against the notebook as it is now.
struct Prepared<'a> {
    target: GuardedWrite<'a>,
    current: Decoded,
    edit: Applied,
}

/// What Qwen's `execute` makes of an error `prepareEdit` throws (a
/// `StructuredToolError`): its message for the model, `Error: ` and the
/// message for a person.
fn structured(code: ToolErrorCode, message: String) -> Failure {
    let display = format!("Error: {message}");
    Failure::new(code, message).display(display)
}

fn refused(refusal: Refusal) -> Failure {
    structured(refusal.code, refusal.raw_message)
}

impl NotebookEditInvocation {
    /// Qwen's `prepareEdit`: check 1, the read, check 2, the edit. Run when
    /// the confirmation is prepared and again when the call executes.
    fn prepare<'a>(&'a self, workspace: &'a Workspace) -> Result<Prepared<'a>, Failure> {
        let p = &self.params;
        let shown = p.notebook_path.as_str();
        let mut target = GuardedWrite::new(workspace, &p.resolved, shown, Verb::NotebookEditing)
            .map_err(refused)?;
        let not_found = || {
            structured(
                ToolErrorCode::FileNotFound,
                format!("Notebook file not found: {shown}"),
            )
        };
        if target.check(false).map_err(refused)?.is_none() {
            return Err(not_found());
        }
        let current = target.read_current().map_err(|e| match e {
            ReadError::Io(e) if e.kind() == std::io::ErrorKind::NotFound => not_found(),
            ReadError::Refused(r) => refused(r),
            e => structured(
                ToolErrorCode::ReadContentFailure,
                format!("Error reading notebook: {e}"),
            ),
        })?;
        target.check(true).map_err(refused)?;
        let edit = match &p.modified_content {
            Some(modified) => {
                apply::check_modified(&current.text, modified).map(|reread| Applied {
                    updated: modified.clone(),
                    edited_cell_id: p
                        .cell_id
                        .clone()
                        .unwrap_or_else(|| "user-modified-notebook".to_owned()),
                    requires_read_after_write: reread,
                })
            }
            None => apply::apply(
                &current.text,
                &Request {
                    cell_id: p.cell_id.as_deref(),
                    new_source: p.new_source.as_deref().unwrap_or_default(),
                    cell_type: p.cell_type.as_deref().filter(|t| !t.is_empty()),
                    mode: p.mode(),
                },
            ),
        }
        .map_err(|e| match e {
            ApplyError::InvalidJson(m) => structured(ToolErrorCode::NotebookInvalidJson, m),
            ApplyError::Ambiguous(m) => structured(ToolErrorCode::InvalidToolParams, m),
            ApplyError::CellNotFound(m) => structured(ToolErrorCode::NotebookCellNotFound, m),
        })?;
        target.record_as(if edit.requires_read_after_write {
            Recorded::Forgotten
        } else {
            Recorded::Structured
        });
        Ok(Prepared {
            target,
            current,
            edit,
        })
    }

    /// What the model is told after the write.
    fn success_message(&self, edited_cell_id: &str) -> String {
        let p = &self.params;
        let mode = p.mode().as_str();
        let path = &p.notebook_path;
        if p.modified_content.is_some() {
            return format!(
                "Notebook {path} has been updated. Notebook content was modified by the user \
                 before approval; the final saved notebook may differ from the original {mode} \
                 cell {edited_cell_id} proposal."
            );
        }
        let mut message =
            format!("Notebook {path} has been updated. {mode} cell {edited_cell_id}.");
        if p.mode() != Mode::Delete {
            message.push_str("\n\nUpdated source:\n\n---\n\n");
            message.push_str(p.new_source.as_deref().unwrap_or_default());
        }
        message
    }
}

/// Qwen's result when the write itself throws.
fn write_failure(message: &str) -> Failure {
    let text = format!("Error writing notebook: {message}");
    Failure::new(ToolErrorCode::FileWriteFailure, message)
        .llm_content(text.clone())
        .display(text)
}

impl Invocation for NotebookEditInvocation {
    fn description(&self) -> String {
        let p = &self.params;
        format!(
            "{} notebook cell {} in {}",
            p.edit_mode.as_deref().unwrap_or("replace"),
            p.cell_id.as_deref().unwrap_or("beginning"),
            self.proposal.relative(&p.notebook_path)
        )
    }

    fn locations(&self) -> Vec<PathBuf> {
        vec![self.params.resolved.clone()]
    }

    fn default_permission(&self) -> Permission {
        Permission::Ask
    }

    fn confirmation(&self, workspace: &Workspace) -> Result<Confirmation, Failure> {
        let Prepared { current, edit, .. } = self.prepare(workspace)?;
        let title = format!(
            "Confirm Notebook Edit: {}",
            self.proposal.relative(&self.params.notebook_path)
        );
        Ok(Confirmation::Edit(EditConfirmation::new(
            title,
            &self.params.notebook_path,
            Some(current.text),
            edit.updated,
        )))
    }

    fn modified(&self, asked: &EditConfirmation, content: String) -> Option<Box<dyn Invocation>> {
        let mut params = self.params.clone();
        params.modified_content = Some(content);
        Some(Box::new(NotebookEditInvocation {
            params,
            proposal: self.proposal.modified(asked),
        }))
    }

    fn execute(
        &self,
        workspace: &Workspace,
        _context: &InvocationContext,
    ) -> Result<ToolResult, Failure> {
        let shown = self.params.notebook_path.as_str();
        let Prepared {
            target,
            current,
            edit,
        } = self.prepare(workspace)?;
        // JSON.stringify writes LF; a CRLF notebook gets CRLF back, as
        // Qwen's `writeTextFile` does with the read's `lineEnding`.
        let content = current.line_ending().restore(&edit.updated);
        target
            .commit(true, &content, Some(&current), false)
            .map_err(|e| match e {
                CommitError::Refused(r) => Failure::from(r),
                CommitError::Changed => notebook_changed_since_read(shown).into(),
                CommitError::Encode(e) => write_failure(&e.to_string()),
                CommitError::Io(e) => write_failure(&e.to_string()),
            })?;
        let diff = self
            .proposal
            .diff(shown, current.text, edit.updated.clone());
        Ok(ToolResult::new(
            self.success_message(&edit.edited_cell_id),
            Display::Diff(Box::new(diff)),
        )
        .with_paths(vec![PathBuf::from(shown)]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::Declared;

    #[test]
    fn declaration_matches_qwens_schema() {
        let tool = Declared::<NotebookEditTool>::default();
        let schema = &tool.declaration().schema;
        assert_eq!(schema["required"], serde_json::json!(["notebook_path"]));
        assert_eq!(schema["additionalProperties"], false);
        assert_eq!(
            schema["properties"]["edit_mode"]["enum"],
            serde_json::json!(["replace", "insert", "delete"])
        );
    }

    #[test]
    fn the_extension_is_nodes_extname() {
        assert_eq!(extension("/r/a.ipynb"), ".ipynb");
        assert_eq!(extension("/r/A.IPYNB"), ".IPYNB");
        assert_eq!(extension("/r/.ipynb"), "");
        assert_eq!(extension("/r/a.ipynb.bak"), ".bak");
        assert_eq!(extension("/r/noext"), "");
    }
}
