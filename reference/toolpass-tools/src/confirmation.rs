//! What the user is asked before a call runs (Qwen Code's
//! `ToolCallConfirmationDetails`, `packages/core/src/tools/tools.ts`) and
//! what they can answer (`ToolConfirmationOutcome`).

use std::collections::BTreeMap;

use serde::Deserialize;
use similar::TextDiff;
use toolpass_core::approval::ConfirmationKind;

use crate::tools::node::basename;

/// The question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Confirmation {
    /// A file change, with its diff.
    Edit(EditConfirmation),
    /// A shell command (Qwen's `ToolExecuteConfirmationDetails`).
    Exec {
        /// `Confirm Shell Command`.
        title: String,
        /// The command line as the model wrote it.
        command: String,
        /// The programs it runs, `, `-separated (Qwen's `rootCommand`).
        root_command: String,
    },
    /// A call of an MCP server's tool (Qwen's `ToolMcpConfirmationDetails`).
    Mcp {
        /// `Confirm MCP Tool Execution`.
        title: String,
        /// The server.
        server_name: String,
        /// The tool's name on the server.
        tool_name: String,
        /// `<tool> (<server> MCP Server)`.
        tool_display_name: String,
    },
    /// A yes or no about anything else: Qwen's default for a tool that has
    /// no richer question (`BaseToolInvocation.getConfirmationDetails`).
    Info {
        /// The question's title.
        title: String,
        /// What the user is asked.
        prompt: String,
    },
    /// Questions for the user (Qwen's `ToolAskUserQuestionConfirmationDetails`),
    /// answered with [`Answer::Answers`].
    AskUserQuestion {
        /// `Please answer the following question(s):`.
        title: String,
        /// The questions, as the model asked them.
        questions: Vec<Question>,
    },
}

/// One question of `ask_user_question`, as the model gives it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Question {
    /// The question.
    pub question: String,
    /// A short label (the answer is reported under it).
    pub header: String,
    /// The choices.
    pub options: Vec<QuestionOption>,
    /// Whether several choices may be picked.
    #[serde(default)]
    pub multi_select: bool,
}

/// One choice of a [`Question`].
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct QuestionOption {
    /// The choice.
    pub label: String,
    /// What it means.
    pub description: String,
}

/// An edit confirmation: Qwen's `ToolEditConfirmationDetails`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditConfirmation {
    /// `Confirm Edit: a.txt`, `Confirm Write: a.txt`.
    pub title: String,
    /// The file, as the model gave it.
    pub file_path: String,
    /// The proposed change as a unified diff, Qwen's `fileDiff`.
    pub diff: String,
    /// The content before; `None` when the file would be created.
    pub original: Option<String>,
    /// The content the model proposes.
    pub proposed: String,
    /// Whether the user may edit the proposal (Qwen's `hideModify` is its
    /// negation: a sed edit cannot be modified, being a command's effect).
    pub modifiable: bool,
}

/// The user's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Run this call.
    ProceedOnce,
    /// Run it, and stop asking for calls of its kind in this session.
    ProceedAlways,
    /// Do not run it.
    Cancel,
    /// Run it with the content the user edited the proposal into (Qwen's
    /// inline modify: `ToolConfirmationPayload.newContent`).
    Modify(String),
    /// Run it with the user's answers to its questions, by question index
    /// (`"0"`, `"1"`, ...): Qwen's `ToolConfirmationPayload.answers`.
    Answers(BTreeMap<String, String>),
}

impl Confirmation {
    /// The kind of question, which the approval mode looks at.
    #[must_use]
    pub fn kind(&self) -> ConfirmationKind {
        match self {
            Confirmation::Edit(_) => ConfirmationKind::Edit,
            Confirmation::Exec { .. } => ConfirmationKind::Exec,
            Confirmation::Mcp { .. } => ConfirmationKind::Mcp,
            Confirmation::Info { .. } => ConfirmationKind::Info,
            Confirmation::AskUserQuestion { .. } => ConfirmationKind::AskUserQuestion,
        }
    }
}

impl EditConfirmation {
    /// The confirmation of a change of `file_path` from `original` to
    /// `proposed`, titled `title`.
    #[must_use]
    pub fn new(title: String, file_path: &str, original: Option<String>, proposed: String) -> Self {
        let diff = file_patch(
            basename(file_path),
            original.as_deref().unwrap_or_default(),
            &proposed,
        );
        EditConfirmation {
            title,
            file_path: file_path.to_owned(),
            diff,
            original,
            proposed,
            modifiable: true,
        }
    }

    /// The same confirmation, offering no modify.
    #[must_use]
    pub fn unmodifiable(self) -> Self {
        EditConfirmation {
            modifiable: false,
            ..self
        }
    }
}

/// A unified diff in the shape of jsdiff's `createPatch(name, old, new,
/// "Current", "Proposed")`, which Qwen shows in an edit confirmation.
fn file_patch(name: &str, old: &str, new: &str) -> String {
    let hunks = TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("{name}\tCurrent"), &format!("{name}\tProposed"))
        .to_string();
    format!("Index: {name}\n{}\n{hunks}", "=".repeat(67))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_confirmation_carries_a_unified_diff_as_qwen_shows_it() {
        let confirmation = EditConfirmation::new(
            "Confirm Edit: a.txt".into(),
            "/r/a.txt",
            Some("alpha\nbeta\n".into()),
            "alpha\ngamma\n".into(),
        );
        assert_eq!(
            confirmation.diff,
            "Index: a.txt\n\
             ===================================================================\n\
             --- a.txt\tCurrent\n\
             +++ a.txt\tProposed\n\
             @@ -1,2 +1,2 @@\n \
             alpha\n\
             -beta\n\
             +gamma\n"
        );
        assert_eq!(
            Confirmation::Edit(confirmation).kind(),
            ConfirmationKind::Edit
        );
    }
}
