//! The error codes this tool layer emits: the subset of Qwen Code's
//! `ToolErrorType` (`packages/core/src/tools/tool-error.ts`, 0.24.4) that
//! its tools can fail with, as one closed enum.
//!
//! The tool layer does not depend on the protocol crate, so this enum is its
//! own; the server maps each variant to the protocol's canonical code with an
//! exhaustive match, so a code added here does not compile until the wire
//! has a name for it, and a test there checks the names agree.

/// Declares [`ToolErrorCode`] from one list, so that [`ToolErrorCode::ALL`]
/// and [`ToolErrorCode::as_str`] cannot miss a variant.
macro_rules! tool_error_codes {
    ($( $(#[$doc:meta])* $variant:ident => $text:literal, )+) => {
        /// Why a tool call failed, as the canonical snake_case code of
        /// Qwen's `ToolErrorType`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ToolErrorCode {
            $( $(#[$doc])* $variant, )+
        }

        impl ToolErrorCode {
            /// Every code, in declaration order.
            pub const ALL: &'static [ToolErrorCode] = &[$(ToolErrorCode::$variant),+];

            /// The canonical snake_case name.
            #[must_use]
            pub const fn as_str(self) -> &'static str {
                match self {
                    $( ToolErrorCode::$variant => $text, )+
                }
            }
        }
    };
}

tool_error_codes! {
    /// A failure the tool gives no type (Qwen's default `unknown`).
    Unknown => "unknown",
    /// A call that could not run as asked (`tool_call` reached without
    /// the scheduler).
    ExecutionFailed => "execution_failed",
    /// Any tool: an argument breaks the schema or the tool's own rules.
    InvalidToolParams => "invalid_tool_params",
    /// The scheduler: no tool of that name in the session's registry.
    ToolNotRegistered => "tool_not_registered",
    /// `read_file` and `edit` (a non-empty `old_string`): no such file.
    FileNotFound => "file_not_found",
    /// `write_file` and `edit`: the write failed, or the text cannot be encoded.
    FileWriteFailure => "file_write_failure",
    /// `read_file`: the bytes are not text that writes back unchanged, the
    /// path is a special file, a notebook or PDF cannot be read.
    ReadContentFailure => "read_content_failure",
    /// `edit` with an empty `old_string` on a file that exists.
    AttemptToCreateExistingFile => "attempt_to_create_existing_file",
    /// Any file tool: the file is over the tool's or the session's cap.
    FileTooLarge => "file_too_large",
    /// `write_file` and `edit`: the kernel refused the write (`EACCES`).
    PermissionDenied => "permission_denied",
    /// `write_file`: `ENOSPC`.
    NoSpaceLeft => "no_space_left",
    /// `read_file`, `write_file`, `edit`: the path names a directory.
    TargetIsDirectory => "target_is_directory",
    /// Any tool with a path: it resolves, or came to lead, outside the
    /// session root.
    PathNotInWorkspace => "path_not_in_workspace",
    /// `edit`: the current content could not be read.
    EditPreparationFailure => "edit_preparation_failure",
    /// `edit`: no tier of the matcher found `old_string`.
    EditNoOccurrenceFound => "edit_no_occurrence_found",
    /// `edit`: `old_string` occurs more than once and `replace_all` is off.
    EditExpectedOccurrenceMismatch => "edit_expected_occurrence_mismatch",
    /// `edit`: the file would not change.
    EditNoChange => "edit_no_change",
    /// `write_file` and `edit`: no read of the file as text in this session,
    /// or a file no text tool may mutate.
    EditRequiresPriorRead => "edit_requires_prior_read",
    /// `write_file` and `edit`: the file moved on since it was read.
    FileChangedSinceRead => "file_changed_since_read",
    /// `write_file` and `edit`: the prior read cannot be verified (a failed
    /// stat, inode 0), so the call fails closed.
    PriorReadVerificationFailed => "prior_read_verification_failed",
    /// `notebook_edit`: the path is a FIFO, socket or device.
    TargetNotRegularFile => "target_not_regular_file",
    /// `notebook_edit`: the file is not JSON, or not a notebook.
    NotebookInvalidJson => "notebook_invalid_json",
    /// `notebook_edit`: no cell has the id the model named.
    NotebookCellNotFound => "notebook_cell_not_found",
    /// `grep_search`: the pattern failed once compiled.
    GrepExecutionError => "grep_execution_error",
    /// `list_directory`: the directory could not be read.
    LsExecutionError => "ls_execution_error",
    /// The scheduler: the approval mode refuses the call (plan mode and a
    /// tool that would change something), or the tool denies itself.
    ExecutionDenied => "execution_denied",
    /// `list_directory`: the path is not a directory.
    PathIsNotADirectory => "path_is_not_a_directory",
    /// `run_shell_command`: the command failed (an exit code that is not an
    /// answer, a signal) or could not start.
    ShellExecuteError => "shell_execute_error",
    /// `run_shell_command`: the command outlived its `timeout`.
    ExecutionTimeout => "execution_timeout",
    /// `task_stop`: no background task has that id.
    TaskStopNotFound => "task_stop_not_found",
    /// `task_stop`: the background task has already ended.
    TaskStopNotRunning => "task_stop_not_running",
    /// A tool threw where Qwen's scheduler has no better name for it
    /// (Qwen's `UNHANDLED_EXCEPTION`): a resource read that failed.
    UnhandledException => "unhandled_exception",
    /// An MCP tool failed: the server answered `isError`, or the call could
    /// not be carried out (Qwen's `MCP_TOOL_ERROR`).
    McpToolError => "mcp_tool_error",
    /// `send_message`: no background task or agent has that id.
    SendMessageNotFound => "send_message_not_found",
}

impl std::fmt::Display for ToolErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<toolpass_core::edit::EditErrorKind> for ToolErrorCode {
    /// The core's edit decisions carry no wire vocabulary; their codes are
    /// named here.
    fn from(kind: toolpass_core::edit::EditErrorKind) -> Self {
        use toolpass_core::edit::EditErrorKind;
        match kind {
            EditErrorKind::FileNotFound => ToolErrorCode::FileNotFound,
            EditErrorKind::AttemptToCreateExistingFile => {
                ToolErrorCode::AttemptToCreateExistingFile
            }
            EditErrorKind::NoOccurrenceFound => ToolErrorCode::EditNoOccurrenceFound,
            EditErrorKind::ExpectedOccurrenceMismatch => {
                ToolErrorCode::EditExpectedOccurrenceMismatch
            }
            EditErrorKind::NoChange => ToolErrorCode::EditNoChange,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_distinct_snake_case() {
        let mut seen = std::collections::BTreeSet::new();
        for code in ToolErrorCode::ALL {
            let name = code.as_str();
            assert!(
                name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
                "{name}"
            );
            assert!(seen.insert(name), "{name} is listed twice");
        }
        assert_eq!(seen.len(), ToolErrorCode::ALL.len());
    }
}
