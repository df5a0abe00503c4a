//! `edit`: Qwen Code's `EditTool` (`packages/core/src/tools/edit.ts`, 0.24).
//!
//! The decision is `toolpass_core::edit::calculate_edit`; this module adds
//! the IO around it and the three read-before-write checks of seed §6.1, each
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

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toolpass_core::edit::{EditRequest, calculate_edit};
use toolpass_core::text::{self, Decoded, TextEncoding};

use super::path_arg::normalize_file_path;
use crate::fileio::{Fingerprint, Precondition, WriteError, write_atomic};
use crate::kind::Kind;
use crate::prior_read::{Verb, changed_since_read, check_prior_read};
use crate::result::{Display, FileDiff, ToolResult};
use crate::session::Session;
use crate::tool::{BuildError, Declaration, DeclarativeTool, Invocation};

/// The tool's name.
pub const NAME: &str = "edit";

/// `O_NONBLOCK`: opening a FIFO that replaced the file after the checks must
/// not hang the session.
const O_NONBLOCK: i32 = 0o4000;

/// The `edit` tool.
pub struct EditTool {
    declaration: Declaration,
}

impl EditTool {
    /// The tool with Qwen's declaration.
    ///
    /// # Panics
    /// Never: the embedded declaration is checked by a test.
    #[must_use]
    pub fn new() -> Self {
        // Qwen Code's declaration, Apache-2.0, copied verbatim so transcripts
        // run unchanged against both implementations.
        let json = include_str!("declarations/edit.json");
        #[allow(clippy::expect_used)] // A constant, checked by `declaration_parses`.
        let declaration =
            Declaration::from_json(NAME, Kind::Edit, json).expect("edit.json is valid");
        EditTool { declaration }
    }
}

impl Default for EditTool {
    fn default() -> Self {
        Self::new()
    }
}

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
    type Params = EditParams;

    fn declaration(&self) -> &Declaration {
        &self.declaration
    }

    fn validate_values(
        &self,
        params: &mut EditParams,
        session: &Session,
    ) -> Result<(), BuildError> {
        normalize_file_path(&mut params.file_path)?;
        params.resolved = session
            .sandbox()
            .resolve(&params.file_path)
            .map_err(|e| BuildError {
                code: e.code(),
                message: e.to_string(),
            })?;
        Ok(())
    }

    fn create_invocation(&self, params: EditParams, _session: &Session) -> Box<dyn Invocation> {
        Box::new(EditInvocation { params })
    }
}

struct EditInvocation {
    params: EditParams,
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

    fn execute(&self, session: &Session) -> ToolResult {
        match self.run(session) {
            Ok(result) | Err(result) => result,
        }
    }
}

impl EditInvocation {
    /// The edit, with every failure as the early `Err` result.
    fn run(&self, session: &Session) -> Result<ToolResult, ToolResult> {
        let p = &self.params;
        let (path, shown) = (p.resolved.as_path(), p.file_path.as_str());
        let check = |expect_existing| {
            check_prior_read(
                &session.read_cache(),
                session.faults(),
                path,
                shown,
                Verb::Editing,
                expect_existing,
            )
        };

        // Check 1: before the content is read at all.
        let exists = check(false)?.is_some();
        let current = if exists {
            let decoded = read_text(path).map_err(|message| preparation_failure(&message))?;
            // Check 2: the bytes just read are the bytes the model saw.
            check(true)?;
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
                ToolResult::failure(e.kind().code(), e.llm_message(), e.display_message())
            })?;

        // Check 3: right before the write; a vanished file must not turn
        // into a new one made from stale bytes.
        let precondition = match check(!plan.is_new_file)? {
            Some(meta) => Precondition::Unchanged(Fingerprint::of(&meta)),
            None => Precondition::Absent,
        };
        let bytes = match &current {
            Some(decoded) => text::encode(&plan.new_content, decoded.encoding, decoded.bom),
            None => text::encode(&plan.new_content, TextEncoding::UTF_8, None),
        }
        .map_err(|e| write_failure("file_write_failure", &e.to_string()))?;
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| write_failure(io_code(&e), &e.to_string()))?;
        }
        let meta =
            write_atomic(session.faults(), path, &bytes, precondition).map_err(|e| match e {
                WriteError::Changed => ToolResult::from(changed_since_read(shown, Verb::Editing)),
                WriteError::Io(e) => write_failure(io_code(&e), &e.to_string()),
            })?;
        session.read_cache().record_write(path, &meta, true);

        let old = current.map(|d| d.text).unwrap_or_default();
        Ok(ToolResult {
            llm_content: plan.success_message(shown),
            display: Display::Diff(Box::new(FileDiff::new(shown, old, plan.new_content))),
            result_file_paths: Vec::new(),
            error: None,
        })
    }
}

/// Reads and decodes a regular file without ever blocking on a FIFO.
fn read_text(path: &Path) -> Result<Decoded, String> {
    let mut file: File = OpenOptions::new()
        .read(true)
        .custom_flags(O_NONBLOCK)
        .open(path)
        .map_err(|e| e.to_string())?;
    let meta = file.metadata().map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err(format!("{} is not a regular file", path.display()));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.read_to_end(&mut bytes).map_err(|e| e.to_string())?;
    text::decode(&bytes).map_err(|e| e.to_string())
}

/// Qwen's result when `calculateEdit` throws.
fn preparation_failure(message: &str) -> ToolResult {
    let text = format!("Error preparing edit: {message}");
    ToolResult {
        display: Display::Text(text.clone()),
        error: Some(crate::result::ToolFailure {
            code: "edit_preparation_failure",
            message: message.to_owned(),
        }),
        llm_content: text,
        result_file_paths: Vec::new(),
    }
}

/// Qwen's result when the write throws.
fn write_failure(code: &'static str, message: &str) -> ToolResult {
    ToolResult {
        llm_content: format!("Error executing edit: {message}"),
        display: Display::Text(format!("Error writing file: {message}")),
        error: Some(crate::result::ToolFailure {
            code,
            message: message.to_owned(),
        }),
        result_file_paths: Vec::new(),
    }
}

/// Qwen's code for a write error: `EISDIR` is `target_is_directory`.
fn io_code(error: &io::Error) -> &'static str {
    if error.raw_os_error() == Some(21) {
        "target_is_directory"
    } else {
        "file_write_failure"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declaration_parses_and_matches_qwens_schema() {
        let tool = EditTool::new();
        let schema = &tool.declaration.schema;
        assert_eq!(
            schema["required"],
            serde_json::json!(["file_path", "old_string", "new_string"])
        );
        assert_eq!(schema["properties"]["replace_all"]["type"], "boolean");
    }
}
