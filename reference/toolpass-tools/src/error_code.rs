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
    /// The arguments do not match the tool's schema or its own rules.
    InvalidToolParams => "invalid_tool_params",
    /// No tool of that name is registered (or it is disabled).
    ToolNotRegistered => "tool_not_registered",
    /// The file does not exist.
    FileNotFound => "file_not_found",
    /// Writing the file failed.
    FileWriteFailure => "file_write_failure",
    /// Reading the file's content failed.
    ReadContentFailure => "read_content_failure",
    /// `edit` with an empty `old_string` on a file that exists.
    AttemptToCreateExistingFile => "attempt_to_create_existing_file",
    /// The file is larger than the tool handles.
    FileTooLarge => "file_too_large",
    /// The operating system refused access.
    PermissionDenied => "permission_denied",
    /// The disk is full.
    NoSpaceLeft => "no_space_left",
    /// A directory where a file was expected.
    TargetIsDirectory => "target_is_directory",
    /// The path resolves outside the session root.
    PathNotInWorkspace => "path_not_in_workspace",
    /// The edit could not be prepared (reading the file failed).
    EditPreparationFailure => "edit_preparation_failure",
    /// `old_string` was not found by any tier of the matcher.
    EditNoOccurrenceFound => "edit_no_occurrence_found",
    /// `old_string` occurs more than once and `replace_all` is off.
    EditExpectedOccurrenceMismatch => "edit_expected_occurrence_mismatch",
    /// The edit would not change the file.
    EditNoChange => "edit_no_change",
    /// The file was not read as text in this session (or cannot be
    /// mutated as text at all).
    EditRequiresPriorRead => "edit_requires_prior_read",
    /// The file changed on disk since it was read.
    FileChangedSinceRead => "file_changed_since_read",
    /// Whether the file was read could not be verified: fail closed.
    PriorReadVerificationFailed => "prior_read_verification_failed",
    /// `grep_search` failed.
    GrepExecutionError => "grep_execution_error",
    /// `list_directory` failed.
    LsExecutionError => "ls_execution_error",
    /// `list_directory` was given a path that is not a directory.
    PathIsNotADirectory => "path_is_not_a_directory",
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
