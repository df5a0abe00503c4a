//! What a tool call produced: Qwen Code's `ToolResult`
//! (`packages/core/src/tools/tools.ts`): the text the model sees, what a
//! person sees, the paths it touched, and an error when it failed.

use crate::error_code::ToolErrorCode;
use std::path::PathBuf;

/// A failure the model should see: a successful call of the protocol that
/// carries an error outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolFailure {
    /// The canonical snake_case code (`edit_no_occurrence_found`, ...).
    pub code: ToolErrorCode,
    /// The message, as Qwen words it.
    pub message: String,
}

/// Line and character counts of a diff, as Qwen's `getDiffStat` reports the
/// model's side of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DiffStat {
    /// Lines added.
    pub added_lines: usize,
    /// Lines removed.
    pub removed_lines: usize,
    /// Characters on added lines.
    pub added_chars: usize,
    /// Characters on removed lines.
    pub removed_chars: usize,
}

/// A diff for display: the file before and after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDiff {
    /// The file's path as the model gave it.
    pub path: String,
    /// Content before (empty for a new file).
    pub old: String,
    /// Content after.
    pub new: String,
    /// Counts of the change.
    pub stat: DiffStat,
}

impl FileDiff {
    /// A diff between two texts, with its stat computed line by line.
    #[must_use]
    pub fn new(path: impl Into<String>, old: impl Into<String>, new: impl Into<String>) -> Self {
        let (old, new) = (old.into(), new.into());
        let stat = diff_stat(&old, &new);
        FileDiff {
            path: path.into(),
            old,
            new,
            stat,
        }
    }
}

/// Counts added and removed lines and their characters, like Qwen's
/// `getDiffStat` over a line diff (characters exclude the line break).
#[must_use]
pub fn diff_stat(old: &str, new: &str) -> DiffStat {
    use similar::{ChangeTag, TextDiff};
    let mut stat = DiffStat::default();
    for change in TextDiff::from_lines(old, new).iter_all_changes() {
        let chars = change
            .value()
            .trim_end_matches(['\n', '\r'])
            .chars()
            .count();
        match change.tag() {
            ChangeTag::Insert => {
                stat.added_lines += 1;
                stat.added_chars += chars;
            }
            ChangeTag::Delete => {
                stat.removed_lines += 1;
                stat.removed_chars += chars;
            }
            ChangeTag::Equal => {}
        }
    }
    stat
}

/// What a person is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Display {
    /// Plain text.
    Text(String),
    /// A file diff.
    Diff(Box<FileDiff>),
}

/// The result of executing one invocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResult {
    /// The exact text the model sees.
    pub llm_content: String,
    /// What a person sees.
    pub display: Display,
    /// Paths the call really touched or found (grep hits, the edited file).
    pub result_file_paths: Vec<PathBuf>,
    /// Set when the call failed.
    pub error: Option<ToolFailure>,
}

impl ToolResult {
    /// A success with the same text for the model and for display.
    #[must_use]
    pub fn text(llm_content: impl Into<String>) -> Self {
        let llm_content = llm_content.into();
        ToolResult {
            display: Display::Text(llm_content.clone()),
            llm_content,
            result_file_paths: Vec::new(),
            error: None,
        }
    }

    /// A failure: the model sees `llm_content`, a person `Error: display`.
    #[must_use]
    pub fn failure(code: ToolErrorCode, llm_content: impl Into<String>, display: &str) -> Self {
        let llm_content = llm_content.into();
        ToolResult {
            display: Display::Text(format!("Error: {display}")),
            error: Some(ToolFailure {
                code,
                message: llm_content.clone(),
            }),
            llm_content,
            result_file_paths: Vec::new(),
        }
    }

    /// Whether the call failed.
    #[must_use]
    pub fn is_error(&self) -> bool {
        self.error.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_stat_counts_lines_and_their_characters() {
        // upstream: edit.test.ts "should successfully replace multiple occurrences when
        // replace_all is true" expects 3/3 lines and 24/24 chars.
        let stat = diff_stat(
            "old text\nold text\nold text",
            "new text\nnew text\nnew text",
        );
        assert_eq!(
            stat,
            DiffStat {
                added_lines: 3,
                removed_lines: 3,
                added_chars: 24,
                removed_chars: 24
            }
        );
        // upstream: edit.test.ts new-file case: 1 line, 25 chars.
        let stat = diff_stat("", "Content for the new file.");
        assert_eq!(
            (stat.added_lines, stat.added_chars, stat.removed_lines),
            (1, 25, 0)
        );
    }
}
