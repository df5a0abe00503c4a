//! The edge between the tool layer and the wire: the reference's own types
//! become toolpass/1 types here and nowhere else.

use serde_json::{Map, Value};
use std::path::PathBuf;
use std::sync::Arc;
use toolpass_protocol::{
    BatchBudget, DeferredToolsModel, DiffStat, ErrorCode, Outcome, Question, QuestionOption,
    ResultDisplay, Todo, TodoStatus, ToolDescriptor, ToolDescriptorMeta, ToolKind, ToolMeta,
    ToolsListExtra, ToolsListMeta, ToolsListResult,
};

use toolpass_tools::config::{ApprovalMode, DeferredModel, McpServerSettings};
use toolpass_tools::confirmation::Confirmation;
use toolpass_tools::error_code::ToolErrorCode;
use toolpass_tools::result::{self, Display};
use toolpass_tools::scheduler::{BatchReport, CallOutcome, Pending};
use toolpass_tools::session::SessionConfig;
use toolpass_tools::tool::Tool;

/// A tool as `tools/list` shows it.
pub(crate) fn descriptor(tool: &dyn Tool) -> ToolDescriptor {
    let input_schema = match tool.parameter_schema() {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    ToolDescriptor {
        name: tool.name().to_owned(),
        description: tool.description().to_owned(),
        input_schema,
        meta: Some(ToolDescriptorMeta {
            toolpass: Some(ToolMeta {
                kind: ToolKind::parse(tool.kind().as_str()),
                deferred: tool.should_defer(),
                always_load: tool.always_load(),
            }),
        }),
    }
}

/// `tools/list`'s answer: the declared tools, and the deferred ones the
/// model knows by name only under `_meta.toolpass` (absent when there are
/// none and no reminder).
pub(crate) fn tools_list(
    declared: &[Arc<dyn Tool>],
    (deferred_tools, deferred_reminder): (Vec<String>, Option<String>),
) -> ToolsListResult {
    let said = !deferred_tools.is_empty() || deferred_reminder.is_some();
    let meta = said.then_some(ToolsListMeta {
        toolpass: Some(ToolsListExtra {
            deferred_tools,
            deferred_reminder,
        }),
    });
    ToolsListResult {
        tools: declared.iter().map(|t| descriptor(t.as_ref())).collect(),
        next_cursor: None,
        meta,
    }
}

/// A call's result as the Outcome of `tools/call`.
pub(crate) fn outcome(call: CallOutcome) -> Outcome {
    let CallOutcome {
        result,
        persisted_output_path,
        cancelled,
        cut: _,
    } = call;
    let display = match result.display {
        Display::Text(text) => ResultDisplay::Text { text },
        Display::Diff(diff) => ResultDisplay::Diff {
            path: diff.path,
            old: Some(diff.old),
            new: diff.new,
            stat: diff_stat(diff.stat),
            user_stat: diff.user_stat.map(diff_stat),
            diff: None,
        },
        Display::Todos(todos) => ResultDisplay::Todos {
            todos: todos.into_iter().map(todo).collect(),
        },
    };
    let paths = result
        .result_file_paths
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let outcome = match result.error {
        None if cancelled => Outcome::cancelled(result.llm_content).with_display(display),
        None => Outcome::success(result.llm_content, Some(display)),
        Some(failure) => {
            error_outcome(failure.code, result.llm_content, failure.message).with_display(display)
        }
    };
    let outcome = outcome.with_result_file_paths(paths);
    match persisted_output_path {
        Some(path) => outcome.with_persisted_output_path(path.display().to_string()),
        None => outcome,
    }
}

fn diff_stat(stat: toolpass_tools::result::DiffStat) -> DiffStat {
    DiffStat {
        added_lines: stat.added_lines as u64,
        removed_lines: stat.removed_lines as u64,
    }
}

fn todo(todo: result::Todo) -> Todo {
    Todo {
        id: todo.id,
        content: todo.content,
        status: match todo.status {
            result::TodoStatus::Pending => TodoStatus::Pending,
            result::TodoStatus::InProgress => TodoStatus::InProgress,
            result::TodoStatus::Completed => TodoStatus::Completed,
        },
        blocked_by: todo.blocked_by.unwrap_or_default(),
    }
}

/// The Outcome of a call that waits for the user's answer, with what the
/// auto-mode classifier would be shown of it.
/// The batch budget's account on the wire.
pub(crate) fn batch_budget(report: BatchReport) -> BatchBudget {
    let wide = |n: usize| u64::try_from(n).unwrap_or(u64::MAX);
    BatchBudget {
        budget: wide(report.budget),
        before: wide(report.before),
        after: wide(report.after),
        reduced: wide(report.reduced),
    }
}

pub(crate) fn awaiting(pending: &Pending) -> Outcome {
    confirmation_outcome(pending.confirmation())
        .with_classifier_input(pending.classifier_input().clone())
}

fn confirmation_outcome(confirmation: &Confirmation) -> Outcome {
    Outcome::awaiting_confirmation(match confirmation {
        Confirmation::Edit(edit) => toolpass_protocol::Confirmation::Edit {
            title: edit.title.clone(),
            path: edit.file_path.clone(),
            diff: edit.diff.clone(),
            old: edit.original.clone(),
            new: edit.proposed.clone(),
        },
        Confirmation::Exec {
            title,
            command,
            root_command,
        } => toolpass_protocol::Confirmation::Exec {
            title: title.clone(),
            command: command.clone(),
            root_command: root_command.clone(),
        },
        Confirmation::Mcp {
            title,
            server_name,
            tool_name,
            tool_display_name,
        } => toolpass_protocol::Confirmation::Mcp {
            title: title.clone(),
            server_name: server_name.clone(),
            tool_name: tool_name.clone(),
            tool_display_name: tool_display_name.clone(),
        },
        Confirmation::Info { title, prompt } => toolpass_protocol::Confirmation::Info {
            title: title.clone(),
            prompt: prompt.clone(),
            urls: Vec::new(),
        },
        Confirmation::AskUserQuestion { title, questions } => {
            toolpass_protocol::Confirmation::AskUserQuestion {
                title: title.clone(),
                questions: questions
                    .iter()
                    .map(|q| Question {
                        question: q.question.clone(),
                        header: q.header.clone(),
                        options: q
                            .options
                            .iter()
                            .map(|o| QuestionOption {
                                label: o.label.clone(),
                                description: o.description.clone(),
                            })
                            .collect(),
                        multi_select: q.multi_select,
                    })
                    .collect(),
            }
        }
    })
}

/// A failure Outcome with `code`.
pub(crate) fn error_outcome(code: ToolErrorCode, llm_content: String, message: String) -> Outcome {
    Outcome::error(error_code(code), llm_content).with_error_message(message)
}

/// The protocol's name for a code of the tool layer. Exhaustive, with no
/// `_` arm: a code the tool layer adds does not compile until the wire has
/// it (the tool layer cannot depend on the protocol crate, so its enum is
/// its own).
pub(crate) fn error_code(code: ToolErrorCode) -> ErrorCode {
    match code {
        ToolErrorCode::Unknown => ErrorCode::Unknown,
        ToolErrorCode::ExecutionFailed => ErrorCode::ExecutionFailed,
        ToolErrorCode::InvalidToolParams => ErrorCode::InvalidToolParams,
        ToolErrorCode::ToolNotRegistered => ErrorCode::ToolNotRegistered,
        ToolErrorCode::FileNotFound => ErrorCode::FileNotFound,
        ToolErrorCode::FileWriteFailure => ErrorCode::FileWriteFailure,
        ToolErrorCode::ReadContentFailure => ErrorCode::ReadContentFailure,
        ToolErrorCode::AttemptToCreateExistingFile => ErrorCode::AttemptToCreateExistingFile,
        ToolErrorCode::FileTooLarge => ErrorCode::FileTooLarge,
        ToolErrorCode::PermissionDenied => ErrorCode::PermissionDenied,
        ToolErrorCode::NoSpaceLeft => ErrorCode::NoSpaceLeft,
        ToolErrorCode::TargetIsDirectory => ErrorCode::TargetIsDirectory,
        ToolErrorCode::PathNotInWorkspace => ErrorCode::PathNotInWorkspace,
        ToolErrorCode::EditPreparationFailure => ErrorCode::EditPreparationFailure,
        ToolErrorCode::EditNoOccurrenceFound => ErrorCode::EditNoOccurrenceFound,
        ToolErrorCode::EditExpectedOccurrenceMismatch => ErrorCode::EditExpectedOccurrenceMismatch,
        ToolErrorCode::EditNoChange => ErrorCode::EditNoChange,
        ToolErrorCode::EditRequiresPriorRead => ErrorCode::EditRequiresPriorRead,
        ToolErrorCode::FileChangedSinceRead => ErrorCode::FileChangedSinceRead,
        ToolErrorCode::PriorReadVerificationFailed => ErrorCode::PriorReadVerificationFailed,
        ToolErrorCode::TargetNotRegularFile => ErrorCode::TargetNotRegularFile,
        ToolErrorCode::NotebookInvalidJson => ErrorCode::NotebookInvalidJson,
        ToolErrorCode::NotebookCellNotFound => ErrorCode::NotebookCellNotFound,
        ToolErrorCode::GrepExecutionError => ErrorCode::GrepExecutionError,
        ToolErrorCode::LsExecutionError => ErrorCode::LsExecutionError,
        ToolErrorCode::PathIsNotADirectory => ErrorCode::PathIsNotADirectory,
        ToolErrorCode::ExecutionDenied => ErrorCode::ExecutionDenied,
        ToolErrorCode::ShellExecuteError => ErrorCode::ShellExecuteError,
        ToolErrorCode::ExecutionTimeout => ErrorCode::ExecutionTimeout,
        ToolErrorCode::TaskStopNotFound => ErrorCode::TaskStopNotFound,
        ToolErrorCode::TaskStopNotRunning => ErrorCode::TaskStopNotRunning,
        ToolErrorCode::McpToolError => ErrorCode::McpToolError,
        ToolErrorCode::UnhandledException => ErrorCode::UnhandledException,
        ToolErrorCode::SendMessageNotFound => ErrorCode::SendMessageNotFound,
    }
}

/// The session settings the tool layer takes from the wire's config.
pub(crate) fn session_config(config: &toolpass_protocol::SessionConfig) -> SessionConfig {
    let defaults = SessionConfig::default();
    let size = |value: Option<u64>, default: usize| {
        value.map_or(default, |v| usize::try_from(v).unwrap_or(usize::MAX))
    };
    SessionConfig {
        truncate_threshold: size(
            config.truncate_tool_output_threshold,
            defaults.truncate_threshold,
        ),
        truncate_lines: size(config.truncate_tool_output_lines, defaults.truncate_lines),
        batch_budget: size(config.tool_output_batch_budget, defaults.batch_budget),
        // Qwen's `isTruncateToolOutputThresholdExplicit`: the shell takes the
        // session's threshold only when the session sets one.
        shell_output_threshold: size(
            config.truncate_tool_output_threshold,
            defaults.shell_output_threshold,
        ),
        disabled_tools: config.disabled_tools.clone(),
        approval_mode: config
            .approval_mode
            .map_or(defaults.approval_mode, approval_mode),
        // A session that names an approval mode has someone to ask.
        interactive: config.approval_mode.is_some(),
        deferred_model: config.deferred_tools.map_or(
            defaults.deferred_model,
            |model| match model {
                DeferredToolsModel::Reveal => DeferredModel::Reveal,
                DeferredToolsModel::Proxy => DeferredModel::Proxy,
            },
        ),
        mcp_servers: config
            .mcp_servers
            .iter()
            .map(|(name, server)| (name.clone(), mcp_server(server)))
            .collect(),
        ..defaults
    }
}

/// The tool layer's settings of one MCP server.
fn mcp_server(server: &toolpass_protocol::McpServerConfig) -> McpServerSettings {
    McpServerSettings {
        command: server.command.clone(),
        args: server.args.clone(),
        env: server.env.clone(),
        cwd: server.cwd.as_ref().map(PathBuf::from),
        timeout_ms: server.timeout,
        trust: server.trust == Some(true),
        include_tools: server.include_tools.clone(),
        exclude_tools: server.exclude_tools.clone(),
    }
}

/// The tool layer's approval mode for the wire's.
fn approval_mode(mode: toolpass_protocol::ApprovalMode) -> ApprovalMode {
    match mode {
        toolpass_protocol::ApprovalMode::Plan => ApprovalMode::Plan,
        toolpass_protocol::ApprovalMode::Default => ApprovalMode::Default,
        toolpass_protocol::ApprovalMode::AutoEdit => ApprovalMode::AutoEdit,
        toolpass_protocol::ApprovalMode::Yolo => ApprovalMode::Yolo,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_the_tool_layer_emits_is_a_protocol_code_of_the_same_name() {
        for &code in ToolErrorCode::ALL {
            let wire = error_code(code);
            assert_eq!(wire.as_str(), code.as_str(), "{code:?}");
            assert_eq!(ErrorCode::parse(code.as_str()), Some(wire), "{code:?}");
        }
    }

    #[test]
    fn a_failure_carries_its_code_and_message_to_the_wire() {
        let outcome = error_outcome(
            ToolErrorCode::EditNoChange,
            "for the model".to_owned(),
            "the error".to_owned(),
        );
        let error = outcome.meta.toolpass.error.expect("an error");
        assert_eq!(error.code, ErrorCode::EditNoChange);
        assert_eq!(error.message, "the error");
        assert!(outcome.is_error);
    }
}
