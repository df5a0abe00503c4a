//! `ask_user_question`: Qwen Code's `AskUserQuestionTool` (`packages/core/
//! src/tools/askUserQuestion.ts`, 0.24.4). The confirmation is the tool:
//! the questions go to the user as an `AskUserQuestion` confirmation and
//! the answers come back with it ([`Answer::Answers`]), so where someone
//! can answer it is asked in every approval mode, YOLO included. Where no
//! one can (a session naming no approval mode replays a headless run), it
//! runs unasked and tells the model so, as Qwen's headless mode does.
//!
//! [`Answer::Answers`]: crate::confirmation::Answer::Answers

use std::collections::BTreeMap;

use serde_json::Value;
use toolpass_core::approval::Permission;

use super::node::js_trim;
use crate::confirmation::{Confirmation, Question};
use crate::context::InvocationContext;
use crate::kind::Kind;
use crate::result::{Display, Failure, ToolResult};
use crate::tool::{BuildError, DeclarativeTool, Invocation};
use crate::workspace::Workspace;

/// The tool's name.
pub const NAME: &str = "ask_user_question";

/// The confirmation's title.
const TITLE: &str = "Please answer the following question(s):";

/// What a headless run answers (Qwen's `execute` when `canCollectAnswers`
/// is false).
pub const HEADLESS: &str = "Cannot ask user questions in non-interactive mode without ACP \
                            support. Please run in interactive mode or enable ACP mode to use \
                            this tool.";

/// What a declined question answers: unreachable through Qwen's scheduler,
/// which cancels a declined call before it runs, but the invocation's own
/// answer when it runs unanswered.
const DECLINED: &str = "User declined to answer the questions.";

/// `ask_user_question`.
#[derive(Debug, Default)]
pub struct AskUserQuestionTool;

impl DeclarativeTool for AskUserQuestionTool {
    const NAME: &'static str = NAME;
    const KIND: Kind = Kind::Think;
    const DECLARATION: &'static str = include_str!("declarations/ask_user_question.json");
    /// Qwen overrides `validateToolParams`: its rules below, no schema.
    const SCHEMA_CHECKED: bool = false;
    type Params = Value;

    fn validate_values(
        &self,
        params: &mut Value,
        _workspace: &Workspace,
    ) -> Result<(), BuildError> {
        BuildError::check(validate(params))
    }

    fn create_invocation(&self, params: Value, workspace: &Workspace) -> Box<dyn Invocation> {
        // Checked above: every question has the members a `Question` needs.
        let questions = params
            .get("questions")
            .cloned()
            .and_then(|q| serde_json::from_value(q).ok())
            .unwrap_or_default();
        Box::new(AskInvocation {
            questions,
            interactive: workspace.config().interactive,
            answers: None,
        })
    }
}

/// Qwen's `validateToolParams`, in its order and words.
fn validate(params: &Value) -> Option<String> {
    let Some(Value::Array(questions)) = params.get("questions") else {
        return Some("Parameter \"questions\" must be an array.".to_owned());
    };
    if !(1..=4).contains(&questions.len()) {
        return Some("Parameter \"questions\" must contain between 1 and 4 questions.".to_owned());
    }
    let filled = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .is_some_and(|s| !js_trim(s).is_empty())
    };
    for (i, question) in questions.iter().enumerate() {
        let n = i + 1;
        for key in ["question", "header"] {
            if !filled(question.get(key)) {
                return Some(format!(
                    "Question {n}: \"{key}\" must be a non-empty string."
                ));
            }
        }
        let Some(Value::Array(options)) = question.get("options") else {
            return Some(format!("Question {n}: \"options\" must be an array."));
        };
        if !(2..=4).contains(&options.len()) {
            return Some(format!(
                "Question {n}: \"options\" must contain between 2 and 4 options."
            ));
        }
        for (j, option) in options.iter().enumerate() {
            for key in ["label", "description"] {
                if !filled(option.get(key)) {
                    return Some(format!(
                        "Question {n}, Option {}: \"{key}\" must be a non-empty string.",
                        j + 1
                    ));
                }
            }
        }
        if question.get("multiSelect").is_some_and(|m| !m.is_boolean()) {
            return Some(format!("Question {n}: \"multiSelect\" must be a boolean."));
        }
    }
    None
}

struct AskInvocation {
    questions: Vec<Question>,
    /// Qwen's `canCollectAnswers`.
    interactive: bool,
    /// The user's answers by question index; `None` until answered.
    answers: Option<BTreeMap<String, String>>,
}

impl Invocation for AskInvocation {
    fn description(&self) -> String {
        let n = self.questions.len();
        format!("Ask user {n} question{}", if n > 1 { "s" } else { "" })
    }

    fn default_permission(&self) -> Permission {
        if self.interactive {
            Permission::Ask
        } else {
            Permission::Allow
        }
    }

    fn requires_user_interaction(&self, _workspace: &Workspace) -> bool {
        self.interactive
    }

    fn confirmation(&self, _workspace: &Workspace) -> Result<Confirmation, Failure> {
        Ok(Confirmation::AskUserQuestion {
            title: TITLE.to_owned(),
            questions: self.questions.clone(),
        })
    }

    fn answered(&self, answers: BTreeMap<String, String>) -> Option<Box<dyn Invocation>> {
        Some(Box::new(AskInvocation {
            questions: self.questions.clone(),
            interactive: self.interactive,
            answers: Some(answers),
        }))
    }

    fn execute(
        &self,
        _workspace: &Workspace,
        _context: &InvocationContext,
    ) -> Result<ToolResult, Failure> {
        let text = if !self.interactive {
            HEADLESS.to_owned()
        } else if let Some(answers) = &self.answers {
            answers_text(&self.questions, answers)
        } else {
            DECLINED.to_owned()
        };
        Ok(ToolResult::new(text.clone(), Display::Text(text)))
    }
}

/// Qwen's report of the answers: one `**header**: answer` line per answer
/// whose key is a question's index written plainly (`"0"`, not `"00"`), in
/// the order of the questions; the others are dropped.
fn answers_text(questions: &[Question], answers: &BTreeMap<String, String>) -> String {
    let lines: Vec<String> = questions
        .iter()
        .enumerate()
        .filter_map(|(i, question)| {
            let answer = answers.get(&i.to_string())?;
            let header = if question.header.is_empty() {
                format!("Question {}", i + 1)
            } else {
                question.header.clone()
            };
            Some(format!("**{header}**: {answer}"))
        })
        .collect();
    let body = if lines.is_empty() {
        "No valid answers were provided.".to_owned()
    } else {
        lines.join("\n")
    };
    format!("User has provided the following answers:\n\n{body}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn question(header: &str) -> Value {
        json!({"question": "Which?", "header": header, "options": [
            {"label": "A", "description": "a"}, {"label": "B", "description": "b"}]})
    }

    #[test]
    fn qwens_checks_in_qwens_words() {
        assert_eq!(
            validate(&json!({})).as_deref(),
            Some("Parameter \"questions\" must be an array.")
        );
        assert_eq!(
            validate(&json!({"questions": []})).as_deref(),
            Some("Parameter \"questions\" must contain between 1 and 4 questions.")
        );
        let mut q = question("H");
        q["options"][1]["description"] = json!(" ");
        assert_eq!(
            validate(&json!({"questions": [q]})).as_deref(),
            Some("Question 1, Option 2: \"description\" must be a non-empty string.")
        );
        let mut q = question("H");
        q["multiSelect"] = json!("yes");
        assert_eq!(
            validate(&json!({"questions": [question("H"), q]})).as_deref(),
            Some("Question 2: \"multiSelect\" must be a boolean.")
        );
        assert_eq!(validate(&json!({"questions": [question("H")]})), None);
    }

    #[test]
    fn answers_are_reported_by_header_in_question_order() {
        let questions: Vec<Question> =
            serde_json::from_value(json!([question("Lib"), question("Auth")])).unwrap();
        let answers = BTreeMap::from([
            ("1".to_owned(), "OAuth".to_owned()),
            ("0".to_owned(), "chrono".to_owned()),
            ("01".to_owned(), "ignored".to_owned()),
            ("7".to_owned(), "ignored".to_owned()),
        ]);
        assert_eq!(
            answers_text(&questions, &answers),
            "User has provided the following answers:\n\n**Lib**: chrono\n**Auth**: OAuth"
        );
        assert_eq!(
            answers_text(&questions, &BTreeMap::new()),
            "User has provided the following answers:\n\nNo valid answers were provided."
        );
    }
}
