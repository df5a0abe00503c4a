//! The canonical error codes an error Outcome carries in
//! `_meta.toolpass.error.code`.
//!
//! They are Qwen Code's `ToolErrorType` values
//! (`packages/core/src/tools/tool-error.ts`, as published in
//! `@qwen-code/qwen-code` 0.24.4), in Qwen's order, so that an adapter for
//! Qwen passes codes through and other adapters map onto the names Qwen uses
//! for the same failure.
//!
//! The vocabulary is closed: the committed schema's `code` is an enum of
//! these strings, and a peer-specific code is refused rather than passed
//! through, because a scenario can only judge a code it can name. An adapter
//! maps its peer's own codes onto these (`unknown` when none fits).

use std::borrow::Cow;

use crate::strings::closed_vocabulary;

closed_vocabulary! {
    /// A canonical tool error code, on the wire its snake_case string
    /// ([`ErrorCode::as_str`]). Reading any other string fails with
    /// [`ErrorCode::refusal`]'s words.
    pub enum ErrorCode {
        // General.
        /// The arguments do not match the tool's schema or its own checks.
        InvalidToolParams => "invalid_tool_params",
        /// A failure with no more specific code.
        Unknown => "unknown",
        /// The tool threw an exception it did not classify.
        UnhandledException => "unhandled_exception",
        /// No tool of that name is registered (or it is disabled).
        ToolNotRegistered => "tool_not_registered",
        /// The tool ran and failed.
        ExecutionFailed => "execution_failed",
        /// The tool ran past its time limit.
        ExecutionTimeout => "execution_timeout",
        /// The approval mode or a permission rule forbids the call.
        ExecutionDenied => "execution_denied",

        // File system.
        /// The file does not exist.
        FileNotFound => "file_not_found",
        /// Writing the file failed.
        FileWriteFailure => "file_write_failure",
        /// Reading the file's content failed.
        ReadContentFailure => "read_content_failure",
        /// A create was asked for a file that already exists.
        AttemptToCreateExistingFile => "attempt_to_create_existing_file",
        /// The file is larger than the tool will handle.
        FileTooLarge => "file_too_large",
        /// The operating system refused access.
        PermissionDenied => "permission_denied",
        /// The disk is full.
        NoSpaceLeft => "no_space_left",
        /// The path names a directory where a file was expected.
        TargetIsDirectory => "target_is_directory",
        /// The path resolves outside the workspace (the session root).
        PathNotInWorkspace => "path_not_in_workspace",
        /// The search path does not exist.
        SearchPathNotFound => "search_path_not_found",
        /// The search path is not a directory.
        SearchPathNotADirectory => "search_path_not_a_directory",

        // Edit.
        /// The edit could not be prepared (reading or planning it failed).
        EditPreparationFailure => "edit_preparation_failure",
        /// `old_string` was not found, even after the fuzzy tiers.
        EditNoOccurrenceFound => "edit_no_occurrence_found",
        /// `old_string` was found a different number of times than expected.
        EditExpectedOccurrenceMismatch => "edit_expected_occurrence_mismatch",
        /// `old_string` and `new_string` are identical, or the edit would not
        /// change the file.
        EditNoChange => "edit_no_change",
        /// A model-side check judged that the edit changes nothing.
        EditNoChangeLlmJudgement => "edit_no_change_llm_judgement",
        /// The file was not read as text in this session before a mutation
        /// (or cannot be mutated as text at all).
        EditRequiresPriorRead => "edit_requires_prior_read",
        /// The file changed on disk since it was last read.
        FileChangedSinceRead => "file_changed_since_read",
        /// Whether the file was read could not be verified (a stat failed):
        /// fail closed.
        PriorReadVerificationFailed => "prior_read_verification_failed",
        /// The path is not a regular file (a FIFO, socket or device).
        TargetNotRegularFile => "target_not_regular_file",

        // Notebook.
        /// A notebook cell edit failed.
        NotebookEditFailure => "notebook_edit_failure",
        /// The notebook is not valid JSON.
        NotebookInvalidJson => "notebook_invalid_json",
        /// The notebook has no cell with that id.
        NotebookCellNotFound => "notebook_cell_not_found",

        // Search and listing.
        /// The glob tool failed.
        GlobExecutionError => "glob_execution_error",
        /// The grep tool failed.
        GrepExecutionError => "grep_execution_error",
        /// The directory listing tool failed.
        LsExecutionError => "ls_execution_error",
        /// The listing path is not a directory.
        PathIsNotADirectory => "path_is_not_a_directory",

        // Other tools.
        /// An MCP tool reported an error or its server failed.
        McpToolError => "mcp_tool_error",
        /// The memory tool failed.
        MemoryToolExecutionError => "memory_tool_execution_error",
        /// The shell command could not be run or failed in the shell layer.
        ShellExecuteError => "shell_execute_error",
        /// A tool found by the discovery command failed.
        DiscoveredToolExecutionError => "discovered_tool_execution_error",
        /// web_fetch was given no URL.
        WebFetchNoUrlInPrompt => "web_fetch_no_url_in_prompt",
        /// web_fetch's fallback fetch failed.
        WebFetchFallbackFailed => "web_fetch_fallback_failed",
        /// web_fetch could not process the page.
        WebFetchProcessingError => "web_fetch_processing_error",
        /// The web search backend rate-limited the request.
        WebSearchRateLimited => "web_search_rate_limited",
        /// The web search backend failed.
        WebSearchBackendFailed => "web_search_backend_failed",
        /// The web search found nothing.
        WebSearchNoResults => "web_search_no_results",
        /// No web search was performed.
        WebSearchNoSearchPerformed => "web_search_no_search_performed",

        // Output.
        /// The output was truncated and the full text could not be kept.
        OutputTruncated => "output_truncated",

        // Background tasks and agents.
        /// task_stop named no such task.
        TaskStopNotFound => "task_stop_not_found",
        /// task_stop named a task that is not running.
        TaskStopNotRunning => "task_stop_not_running",
        /// task_stop named a task that cannot be cancelled.
        TaskStopNotCancellable => "task_stop_not_cancellable",
        /// task_stop failed inside the implementation.
        TaskStopInternalError => "task_stop_internal_error",
        /// send_message named no such agent.
        SendMessageNotFound => "send_message_not_found",
        /// send_message named an agent that is not running.
        SendMessageNotRunning => "send_message_not_running",
    }
}

impl ErrorCode {
    /// Why `text` is not accepted as a code: it names the text and lists
    /// every canonical code, so whoever reads it can fix the mapping at once.
    pub fn refusal(text: &str) -> String {
        let codes: Vec<&str> = ErrorCode::ALL.iter().map(|code| code.as_str()).collect();
        format!(
            "{text:?} is not a canonical error code; toolpass/1 allows only these (IMPLEMENTING.md \
             says what each means; map a peer's own code onto the closest, or `unknown`): {}",
            codes.join(", ")
        )
    }
}

impl serde::Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for ErrorCode {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<ErrorCode, D::Error> {
        let text = <Cow<'de, str>>::deserialize(deserializer)?;
        ErrorCode::parse(&text).ok_or_else(|| serde::de::Error::custom(ErrorCode::refusal(&text)))
    }
}

impl schemars::JsonSchema for ErrorCode {
    fn schema_name() -> Cow<'static, str> {
        "ErrorCode".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let codes: Vec<&str> = ErrorCode::ALL.iter().map(|code| code.as_str()).collect();
        schemars::json_schema!({
            "type": "string",
            "description": "A canonical error code (Qwen Code's ToolErrorType values); \
                            IMPLEMENTING.md says what each means. No other value is allowed.",
            "enum": codes,
        })
    }
}
