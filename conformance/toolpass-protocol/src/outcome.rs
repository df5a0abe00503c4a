//! The Outcome of a tool call: an MCP `CallToolResult` (`content`,
//! `isError`) plus `_meta.toolpass` with what the runner judges.
//!
//! A tool failure is an Outcome with `isError: true` inside a *successful*
//! JSON-RPC reply; JSON-RPC errors are for protocol faults only.
//! [`OutcomeSummary`] reads any reply, including a plain MCP server's, which
//! has no `_meta.toolpass`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::{Error, ErrorKind};
use crate::error_code::ErrorCode;

/// A tool call's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// MCP content: what a plain MCP client would show the model. The
    /// constructors put `llmContent` here as one text block (none when it is
    /// empty).
    pub content: Vec<Content>,
    /// MCP's flag: true unless the call succeeded or awaits confirmation.
    #[serde(default)]
    pub is_error: bool,
    /// toolpass's additions.
    #[serde(rename = "_meta")]
    pub meta: OutcomeMeta,
}

/// An Outcome's `_meta`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct OutcomeMeta {
    /// toolpass's member.
    pub toolpass: ToolpassOutcome,
}

/// One MCP content block. toolpass Outcomes carry text only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Content {
    /// MCP's `TextContent`.
    Text {
        /// The text.
        text: String,
    },
}

/// `_meta.toolpass` of an Outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolpassOutcome {
    /// How the call ended.
    pub status: Status,
    /// The exact text the model would see.
    pub llm_content: String,
    /// What a user interface would show.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display: Option<ResultDisplay>,
    /// With `status: error`: the canonical code and the peer's own text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ToolError>,
    /// With `status: awaiting_confirmation`: what the user is asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmation: Option<Confirmation>,
    /// Files the result points the model to (e.g. offloaded batch outputs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub result_file_paths: Vec<String>,
    /// Where the full output was spilled when it was truncated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persisted_output_path: Option<String>,
    /// With `status: awaiting_confirmation`: what Qwen Code's auto-mode
    /// classifier would be shown of the call's arguments (the tool's
    /// `toAutoClassifierInput`, `{}` for a tool that forwards nothing).
    /// Absent when the implementation does not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub classifier_input: Option<Map<String, Value>>,
}

/// How a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The tool did what it was asked.
    Success,
    /// The tool failed; `error` says why.
    Error,
    /// The tool waits for `toolpass/confirm`; `confirmation` says what for.
    AwaitingConfirmation,
    /// The call was cancelled: the user declined a confirmation, or the
    /// caller cancelled the request (`notifications/cancelled`).
    Cancelled,
}

/// A tool failure: a canonical code and the peer's own message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ToolError {
    /// A canonical error code (`edit_no_occurrence_found`, ...); a
    /// peer-specific code is mapped onto one (`unknown` when none fits).
    pub code: ErrorCode,
    /// The peer's text, passed through.
    pub message: String,
}

/// What a user interface would show for a result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum ResultDisplay {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// A file change.
    Diff {
        /// The file, absolute.
        path: String,
        /// The content before; absent when the file was created.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        old: Option<String>,
        /// The content after.
        new: String,
        /// Lines added and removed by the model's proposal: the content
        /// before against what the model asked for (Qwen Code's
        /// `diffStat.model_*`). The same as the whole change unless the
        /// user modified the proposal.
        stat: DiffStat,
        /// With a proposal the user modified (`toolpass/confirm`'s
        /// `modify`): lines added and removed by the user, the model's
        /// proposal against what was written (Qwen Code's
        /// `diffStat.user_*`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        user_stat: Option<DiffStat>,
        /// The unified diff, when the implementation renders one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        diff: Option<String>,
    },
    /// A todo list, as `todo_write` shows it.
    Todos {
        /// The items, in order.
        todos: Vec<Todo>,
    },
}

/// Size of a change.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DiffStat {
    /// Lines added.
    pub added_lines: u64,
    /// Lines removed.
    pub removed_lines: u64,
}

/// One todo item, as Qwen Code's `todo_write` keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Todo {
    /// Its id.
    pub id: String,
    /// What to do.
    pub content: String,
    /// Where it stands.
    pub status: TodoStatus,
    /// The ids of the items that must be completed first.
    #[serde(rename = "blockedBy", default, skip_serializing_if = "Vec::is_empty")]
    pub blocked_by: Vec<String>,
}

/// Where a todo item stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    /// Not started.
    Pending,
    /// Being worked on.
    InProgress,
    /// Done.
    Completed,
}

/// What the user is asked before a call runs, as Qwen Code's
/// `ToolCallConfirmationDetails`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum Confirmation {
    /// A file change.
    Edit {
        /// The question's title.
        title: String,
        /// The file, absolute.
        path: String,
        /// The proposed change as a unified diff.
        diff: String,
        /// The content before; absent when the file would be created.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        old: Option<String>,
        /// The proposed content.
        new: String,
    },
    /// A shell command.
    Exec {
        /// The question's title.
        title: String,
        /// The command line.
        command: String,
        /// The command's root programs, as permission rules name them.
        root_command: String,
    },
    /// An MCP tool call.
    Mcp {
        /// The question's title.
        title: String,
        /// The MCP server.
        server_name: String,
        /// The tool's name on the server.
        tool_name: String,
        /// The tool's name as shown.
        tool_display_name: String,
    },
    /// Anything else that needs a yes or no (a fetch, a web search).
    Info {
        /// The question's title.
        title: String,
        /// What the user is asked.
        prompt: String,
        /// URLs involved.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        urls: Vec<String>,
    },
    /// Questions for the user, answered through `toolpass/confirm`'s
    /// `answers`.
    AskUserQuestion {
        /// The question's title.
        title: String,
        /// The questions.
        questions: Vec<Question>,
    },
}

/// One question of an `ask_user_question` confirmation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Question {
    /// The question.
    pub question: String,
    /// A short label for it.
    #[serde(default)]
    pub header: String,
    /// The choices.
    pub options: Vec<QuestionOption>,
    /// Whether several choices may be picked.
    #[serde(default)]
    pub multi_select: bool,
}

/// One choice of a question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct QuestionOption {
    /// The choice.
    pub label: String,
    /// What it means.
    #[serde(default)]
    pub description: String,
}

impl Outcome {
    fn new(status: Status, is_error: bool, llm_content: String) -> Outcome {
        let content = if llm_content.is_empty() {
            Vec::new()
        } else {
            vec![Content::Text {
                text: llm_content.clone(),
            }]
        };
        Outcome {
            content,
            is_error,
            meta: OutcomeMeta {
                toolpass: ToolpassOutcome {
                    status,
                    llm_content,
                    display: None,
                    error: None,
                    confirmation: None,
                    result_file_paths: Vec::new(),
                    persisted_output_path: None,
                    classifier_input: None,
                },
            },
        }
    }

    /// A success: the model sees `llm_content`; a user interface shows
    /// `display`.
    pub fn success(llm_content: impl Into<String>, display: Option<ResultDisplay>) -> Outcome {
        let mut outcome = Outcome::new(Status::Success, false, llm_content.into());
        outcome.meta.toolpass.display = display;
        outcome
    }

    /// A failure with a canonical code: the model sees `llm_message`, which is
    /// also the error's message until [`Outcome::with_error_message`].
    pub fn error(code: ErrorCode, llm_message: impl Into<String>) -> Outcome {
        let llm_message = llm_message.into();
        let mut outcome = Outcome::new(Status::Error, true, llm_message.clone());
        outcome.meta.toolpass.error = Some(ToolError {
            code,
            message: llm_message,
        });
        outcome
    }

    /// A call that waits for `toolpass/confirm`. The model has seen nothing
    /// yet, so `llmContent` and `content` are empty.
    pub fn awaiting_confirmation(confirmation: Confirmation) -> Outcome {
        let mut outcome = Outcome::new(Status::AwaitingConfirmation, false, String::new());
        outcome.meta.toolpass.confirmation = Some(confirmation);
        outcome
    }

    /// A cancelled call: the model sees `llm_content`. `isError` is true, as
    /// the call did not do what the model asked.
    pub fn cancelled(llm_content: impl Into<String>) -> Outcome {
        Outcome::new(Status::Cancelled, true, llm_content.into())
    }

    /// Sets what a user interface would show.
    #[must_use]
    pub fn with_display(mut self, display: ResultDisplay) -> Outcome {
        self.meta.toolpass.display = Some(display);
        self
    }

    /// Sets the error's message (the peer's text) apart from what the model
    /// sees. No effect on an Outcome without an error.
    #[must_use]
    pub fn with_error_message(mut self, message: impl Into<String>) -> Outcome {
        if let Some(error) = &mut self.meta.toolpass.error {
            error.message = message.into();
        }
        self
    }

    /// Sets the files the result points to.
    #[must_use]
    pub fn with_result_file_paths(mut self, paths: Vec<String>) -> Outcome {
        self.meta.toolpass.result_file_paths = paths;
        self
    }

    /// Sets what the auto-mode classifier would be shown of the call.
    #[must_use]
    pub fn with_classifier_input(mut self, input: Map<String, Value>) -> Outcome {
        self.meta.toolpass.classifier_input = Some(input);
        self
    }

    /// Sets where the full output was spilled.
    #[must_use]
    pub fn with_persisted_output_path(mut self, path: impl Into<String>) -> Outcome {
        self.meta.toolpass.persisted_output_path = Some(path.into());
        self
    }

    /// `_meta.toolpass`.
    pub fn toolpass(&self) -> &ToolpassOutcome {
        &self.meta.toolpass
    }

    /// How the call ended.
    pub fn status(&self) -> Status {
        self.meta.toolpass.status
    }

    /// The exact text the model would see.
    pub fn llm_content(&self) -> &str {
        &self.meta.toolpass.llm_content
    }
}

impl Confirmation {
    /// The question's title.
    pub fn title(&self) -> &str {
        match self {
            Confirmation::Edit { title, .. }
            | Confirmation::Exec { title, .. }
            | Confirmation::Mcp { title, .. }
            | Confirmation::Info { title, .. }
            | Confirmation::AskUserQuestion { title, .. } => title,
        }
    }
}

/// What the runner judges in any `tools/call` reply: status, the model's
/// text and the error code.
///
/// Read from a JSON value rather than a typed [`Outcome`], because a plain
/// MCP server's reply has no `_meta.toolpass` and may carry content blocks
/// toolpass does not define.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutcomeSummary {
    /// `_meta.toolpass.status`; for a plain MCP reply, `error` when `isError`
    /// and `success` otherwise.
    pub status: Status,
    /// `_meta.toolpass.llmContent`; for a plain MCP reply, the text blocks
    /// joined by newlines.
    pub llm_content: String,
    /// `_meta.toolpass.error.code` as sent, when present: kept as text (not
    /// an [`ErrorCode`]) so that a code outside the canonical list is
    /// reported by whoever judges it rather than failing the whole reply.
    pub error_code: Option<String>,
    /// `_meta.toolpass.error.message`, when present.
    pub error_message: Option<String>,
    /// MCP's `isError` (absent reads as false).
    pub is_error: bool,
    /// Whether the reply had `_meta.toolpass`.
    pub toolpass: bool,
}

impl OutcomeSummary {
    /// Reads a `tools/call` (or `toolpass/confirm`) result.
    ///
    /// Fails when the result is not a `CallToolResult` (an object with a
    /// `content` array) or when `_meta.toolpass` is present but lacks a known
    /// `status` or a string `llmContent`.
    pub fn from_value(result: &Value) -> Result<OutcomeSummary, Error> {
        let invalid = |what: &str| Error::new(ErrorKind::InvalidOutcome, what.to_owned());
        let object = result
            .as_object()
            .ok_or_else(|| invalid("the result is not an object"))?;
        let content = object
            .get("content")
            .and_then(Value::as_array)
            .ok_or_else(|| invalid("the result has no \"content\" array"))?;
        let is_error = match object.get("isError") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(flag)) => *flag,
            Some(_) => return Err(invalid("\"isError\" is not a boolean")),
        };
        let Some(toolpass) = result.pointer("/_meta/toolpass") else {
            let texts: Vec<&str> = content
                .iter()
                .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|block| block.get("text").and_then(Value::as_str))
                .collect();
            return Ok(OutcomeSummary {
                status: if is_error {
                    Status::Error
                } else {
                    Status::Success
                },
                llm_content: texts.join("\n"),
                error_code: None,
                error_message: None,
                is_error,
                toolpass: false,
            });
        };
        let status = toolpass
            .get("status")
            .ok_or_else(|| invalid("_meta.toolpass has no \"status\""))
            .and_then(|status| {
                Status::deserialize(status).map_err(|e| {
                    Error::with_source(
                        ErrorKind::InvalidOutcome,
                        "_meta.toolpass.status is not a known status".into(),
                        e,
                    )
                })
            })?;
        let llm_content = toolpass
            .get("llmContent")
            .and_then(Value::as_str)
            .ok_or_else(|| invalid("_meta.toolpass has no string \"llmContent\""))?;
        let error_text = |member: &str| {
            toolpass
                .get("error")
                .and_then(|error| error.get(member))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        Ok(OutcomeSummary {
            status,
            llm_content: llm_content.to_owned(),
            error_code: error_text("code"),
            error_message: error_text("message"),
            is_error,
            toolpass: true,
        })
    }
}
