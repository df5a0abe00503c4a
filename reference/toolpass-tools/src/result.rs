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
    /// Counts of the model's proposal: `old` against what the model asked
    /// for (Qwen's `diffStat.model_*`).
    pub stat: DiffStat,
    /// With a proposal the user modified: counts of the user's change, the
    /// model's proposal against `new` (Qwen's `diffStat.user_*`).
    pub user_stat: Option<DiffStat>,
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
            user_stat: None,
        }
    }

    /// A diff of a proposal the user modified: `old` became `new`, where
    /// the model had proposed `proposal`. Qwen's `getDiffStat(old, ai,
    /// user)` with both halves.
    #[must_use]
    pub fn modified(
        path: impl Into<String>,
        old: impl Into<String>,
        proposal: &str,
        new: impl Into<String>,
    ) -> Self {
        let (old, new) = (old.into(), new.into());
        FileDiff {
            stat: diff_stat(&old, proposal),
            user_stat: Some(diff_stat(proposal, &new)),
            path: path.into(),
            old,
            new,
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
    /// A todo list, as `todo_write` keeps it.
    Todos(Vec<Todo>),
}

/// One todo item: Qwen's `TodoItem` (`todoWrite.ts`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Todo {
    /// Its id, unique in the list.
    pub id: String,
    /// What to do.
    pub content: String,
    /// `pending`, `in_progress` or `completed`.
    pub status: TodoStatus,
    /// The ids of the items to complete first; `None` when the model gave
    /// none (an update then keeps the stored ones).
    pub blocked_by: Option<Vec<String>>,
}

/// Where a todo item stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TodoStatus {
    /// Not started.
    Pending,
    /// Being worked on.
    InProgress,
    /// Done.
    Completed,
}

/// Who holds a result to its output budget.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Budget {
    /// The scheduler, after the tool returns (most tools).
    #[default]
    Scheduler,
    /// The tool did, writing the full output to this spill file if it cut
    /// it (Qwen's `outputBudgetApplied` and `persistedOutputFiles`).
    Applied(Option<PathBuf>),
}

impl Budget {
    /// Takes the value, leaving [`Budget::Scheduler`].
    pub fn take(&mut self) -> Budget {
        std::mem::take(self)
    }
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
    /// Who holds it to the output budget.
    pub budget: Budget,
}

impl ToolResult {
    /// A success: `llm_content` for the model, `display` for a person.
    #[must_use]
    pub fn new(llm_content: impl Into<String>, display: Display) -> Self {
        ToolResult {
            llm_content: llm_content.into(),
            display,
            result_file_paths: Vec::new(),
            error: None,
            budget: Budget::Scheduler,
        }
    }

    /// The result with the paths the call touched or found.
    #[must_use]
    pub fn with_paths(mut self, paths: Vec<PathBuf>) -> Self {
        self.result_file_paths = paths;
        self
    }

    /// Whether the call failed.
    #[must_use]
    pub fn is_error(&self) -> bool {
        self.error.is_some()
    }
}

/// A failed call, as a tool words it: the one way to build a failure.
///
/// Qwen's tools give a failure three texts: the error's `message` (which
/// Qwen's scheduler sends the model in place of the tool's own text), the
/// tool's `llmContent`, and what a person is shown. Both of the latter
/// default to the message; a tool whose Qwen counterpart words them
/// differently says so with [`Failure::llm_content`] and [`Failure::display`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub struct Failure {
    code: ToolErrorCode,
    message: String,
    llm_content: Option<String>,
    display: Option<String>,
}

impl Failure {
    /// A failure with `code` whose every text is `message`.
    pub fn new(code: ToolErrorCode, message: impl Into<String>) -> Self {
        Failure {
            code,
            message: message.into(),
            llm_content: None,
            display: None,
        }
    }

    /// The tool's own text for the model, where it differs from the message.
    pub fn llm_content(mut self, text: impl Into<String>) -> Self {
        self.llm_content = Some(text.into());
        self
    }

    /// What a person is shown, where it differs from the message.
    pub fn display(mut self, text: impl Into<String>) -> Self {
        self.display = Some(text.into());
        self
    }

    /// Qwen's usual display of a failure: `Error: ` and a short text.
    pub fn error_display(self, short: &str) -> Self {
        self.display(format!("Error: {short}"))
    }
}

impl From<Failure> for ToolResult {
    fn from(failure: Failure) -> Self {
        let Failure {
            code,
            message,
            llm_content,
            display,
        } = failure;
        ToolResult {
            llm_content: llm_content.unwrap_or_else(|| message.clone()),
            display: Display::Text(display.unwrap_or_else(|| message.clone())),
            result_file_paths: Vec::new(),
            error: Some(ToolFailure { code, message }),
            budget: Budget::Scheduler,
        }
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

    #[test]
    fn a_failure_defaults_every_text_to_its_message() {
        let result = ToolResult::from(Failure::new(ToolErrorCode::EditNoChange, "same"));
        assert_eq!(result.llm_content, "same");
        assert_eq!(result.display, Display::Text("same".to_owned()));
        assert_eq!(
            result.error,
            Some(ToolFailure {
                code: ToolErrorCode::EditNoChange,
                message: "same".to_owned()
            })
        );
        assert!(result.result_file_paths.is_empty());
    }

    #[test]
    fn a_failure_keeps_the_tools_own_texts_apart_from_the_message() {
        let result = ToolResult::from(
            Failure::new(ToolErrorCode::FileNotFound, "File not found: /r/a")
                .llm_content("Could not read file.")
                .error_display("File not found."),
        );
        assert_eq!(result.llm_content, "Could not read file.");
        assert_eq!(
            result.display,
            Display::Text("Error: File not found.".to_owned())
        );
        let error = result.error.expect("a failure");
        assert_eq!(error.message, "File not found: /r/a");
        assert_eq!(error.code, ToolErrorCode::FileNotFound);
    }
}
