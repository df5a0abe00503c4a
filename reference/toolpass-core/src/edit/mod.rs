//! Turning an edit request into the new file content, or into exactly one of
//! Qwen's five edit errors.
//!
//! This is Qwen Code's `calculateEdit` and `applyReplacement`
//! (`packages/core/src/tools/edit.ts`) with the IO taken out: the caller reads
//! and decodes the file (see [`crate::text`]) and passes its text, or `None`
//! when it does not exist; it writes [`EditPlan::new_content`] back with the
//! file's encoding and BOM.
//!
//! One deliberate difference (SPEC.md `edit.write-back.mixed-eol`): Qwen
//! writes a CRLF file back through `ensureCrlfLineEndings`, which also
//! rewrites lone `\n` line breaks elsewhere in the file. Here the
//! replacement is spliced into the original text, so every byte outside the
//! replaced spans stays as it was. On a file that is all CRLF or all LF the
//! result is identical to Qwen's.

mod replace;

pub use replace::{
    apply_replacement, count_occurrences, maybe_augment_old_string_for_deletion,
    safe_literal_replace,
};

use std::fmt;

use crate::matching::{SliceMatch, normalize_edit_strings};
use crate::snippet::{Snippet, extract_edit_snippet};
use replace::CrlfText;

/// The name of the read tool, as Qwen's messages mention it.
const READ_TOOL_NAME: &str = "read_file";

/// What the model asked for: the `edit` tool's arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EditRequest<'a> {
    /// The file's path as the model gave it; used only in messages.
    pub file_path: &'a str,
    /// The text to replace; empty to create a new file.
    pub old_string: &'a str,
    /// The replacement.
    pub new_string: &'a str,
    /// Replace every occurrence instead of requiring exactly one.
    pub replace_all: bool,
}

/// A successful edit decision: what the file becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditPlan {
    /// The file does not exist and will be created.
    pub is_new_file: bool,
    /// How many occurrences of the canonical `old_string` were replaced
    /// (zero for a new file).
    pub occurrences: usize,
    /// Where the `old_string` landed in the (LF-normalized) text, when a
    /// match was needed.
    pub matched: Option<SliceMatch>,
    /// The `old_string` actually replaced: the canonical slice of the file,
    /// plus the newline a deletion eats. Empty for a new file.
    pub old_string: String,
    /// The `new_string` actually inserted (one trailing newline shorter when
    /// the match dropped the needle's trailing empty line).
    pub new_string: String,
    /// The file's text after the edit, with the file's own line endings.
    pub new_content: String,
    /// The excerpt Qwen shows the model after the edit.
    pub snippet: Option<Snippet>,
}

impl EditPlan {
    /// The text the model sees after a successful write: Qwen's
    /// `llmSuccessMessageParts` joined with a space.
    #[must_use]
    pub fn success_message(&self, file_path: &str) -> String {
        let mut message = if self.is_new_file {
            format!("Created new file: {file_path} with provided content.")
        } else {
            format!("The file: {file_path} has been updated.")
        };
        if let Some(snippet) = &self.snippet {
            message.push(' ');
            message.push_str(&snippet.message());
        }
        message
    }
}

/// Why an edit cannot be applied: one of the five errors of Qwen's
/// `calculateEdit`. The tool layer names their wire codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EditErrorKind {
    /// The file does not exist and `old_string` is not empty.
    FileNotFound,
    /// `old_string` is empty but the file already exists.
    AttemptToCreateExistingFile,
    /// No tier of the matcher found `old_string`.
    NoOccurrenceFound,
    /// `old_string` occurs more than once and `replace_all` is off.
    ExpectedOccurrenceMismatch,
    /// The edit would not change the file.
    NoChange,
}

/// An edit that cannot be applied, with Qwen's two texts for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditError {
    kind: EditErrorKind,
    display: String,
    raw: String,
}

impl EditError {
    fn new(kind: EditErrorKind, display: &str, raw: String) -> Self {
        EditError {
            kind,
            display: display.to_owned(),
            raw,
        }
    }

    /// What went wrong.
    #[must_use]
    pub fn kind(&self) -> EditErrorKind {
        self.kind
    }

    /// The text for the model (Qwen's `error.raw`, its `llmContent`).
    #[must_use]
    pub fn llm_message(&self) -> &str {
        &self.raw
    }

    /// The short text for a person (Qwen's `error.display`; Qwen's
    /// `returnDisplay` prefixes it with `Error: `).
    #[must_use]
    pub fn display_message(&self) -> &str {
        &self.display
    }
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.raw)
    }
}

impl std::error::Error for EditError {}

/// Qwen's `calculateEdit`: decides what the file becomes, or which error
/// stops the edit. `current` is the file's decoded text (BOM removed), or
/// `None` when the file does not exist.
///
/// Exactly one error is possible per call, checked in Qwen's order.
///
/// # Errors
/// One of the five [`EditErrorKind`]s, with Qwen's messages.
pub fn calculate_edit(
    current: Option<&str>,
    request: &EditRequest<'_>,
) -> Result<EditPlan, EditError> {
    let path = request.file_path;
    let text = current.map(CrlfText::new);
    let normalized = text.as_ref().map(|t| t.normalized.as_ref());

    let normalized_strings =
        normalize_edit_strings(normalized, request.old_string, request.new_string);
    let (old_string, new_string) = (normalized_strings.old_string, normalized_strings.new_string);

    let (Some(text), Some(normalized)) = (&text, normalized) else {
        if old_string.is_empty() {
            let snippet = extract_edit_snippet(None, new_string);
            return Ok(EditPlan {
                is_new_file: true,
                occurrences: 0,
                matched: None,
                old_string: String::new(),
                new_string: new_string.to_owned(),
                new_content: apply_replacement(None, old_string, new_string, true),
                snippet,
            });
        }
        return Err(EditError::new(
            EditErrorKind::FileNotFound,
            "File not found. Cannot apply edit. Use an empty old_string to create a new file.",
            format!("File not found: {path}"),
        ));
    };

    let old_string =
        maybe_augment_old_string_for_deletion(Some(normalized), old_string, new_string);
    let occurrences = count_occurrences(normalized, &old_string);
    if request.old_string.is_empty() {
        return Err(EditError::new(
            EditErrorKind::AttemptToCreateExistingFile,
            "Failed to edit. Attempted to create a file that already exists.",
            format!("File already exists, cannot create: {path}"),
        ));
    }
    if occurrences == 0 {
        return Err(EditError::new(
            EditErrorKind::NoOccurrenceFound,
            "Failed to edit, could not find the string to replace.",
            format!(
                "Failed to edit, 0 occurrences found for old_string in {path}. No edits made. \
                 The exact text in old_string was not found. Ensure you're not escaping content \
                 incorrectly and check whitespace, indentation, and context. Use \
                 {READ_TOOL_NAME} tool to verify."
            ),
        ));
    }
    if !request.replace_all && occurrences > 1 {
        return Err(EditError::new(
            EditErrorKind::ExpectedOccurrenceMismatch,
            "Failed to edit because the text matches multiple locations. Provide more context or \
             set replace_all to true.",
            format!(
                "Failed to edit. Found {occurrences} occurrences for old_string in {path} but \
                 replace_all was not enabled."
            ),
        ));
    }
    if old_string == new_string {
        return Err(EditError::new(
            EditErrorKind::NoChange,
            "No changes to apply. The old_string and new_string are identical.",
            format!(
                "No changes to apply. The old_string and new_string are identical in file: {path}"
            ),
        ));
    }

    let new_content = text.replace_all(&old_string, new_string);
    if new_content == text.raw() {
        return Err(EditError::new(
            EditErrorKind::NoChange,
            "No changes to apply. The new content is identical to the current content.",
            format!(
                "No changes to apply. The new content is identical to the current content in \
                 file: {path}"
            ),
        ));
    }
    // Qwen builds the snippet from LF text, where `new_string` went in
    // unconverted; rebuild exactly that for a CRLF file.
    let snippet = if text.is_crlf() {
        let lf_content = safe_literal_replace(normalized, &old_string, new_string);
        extract_edit_snippet(Some(normalized), &lf_content)
    } else {
        extract_edit_snippet(Some(normalized), &new_content)
    };
    Ok(EditPlan {
        is_new_file: false,
        occurrences,
        matched: normalized_strings.matched,
        old_string: old_string.into_owned(),
        new_string: new_string.to_owned(),
        new_content,
        snippet,
    })
}

#[cfg(test)]
mod tests;
