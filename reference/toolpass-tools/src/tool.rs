//! The Tool / Invocation split: a tool is static — name,
//! description, JSON Schema, [`Kind`] — and [`Tool::build`] is the only way to
//! get an [`Invocation`]. Building validates the arguments against the schema
//! and then the tool's own value rules, so an invocation never has to check
//! its parameters again.
//!
//! Most tools implement [`DeclarativeTool`] (Qwen's `BaseDeclarativeTool`):
//! a name, a kind and Qwen's declaration as constants, typed parameters, a
//! `validate_values` hook, a `create_invocation` factory. [`Declared`] holds
//! one with its parsed declaration and is the [`Tool`]: it does the schema
//! validation and deserialization.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use toolpass_core::approval::Permission;
use toolpass_core::shell_read_only::Safety;
use toolpass_core::truncate::Keep;

use crate::confirmation::{Confirmation, EditConfirmation};
use crate::context::InvocationContext;
use crate::error_code::ToolErrorCode;
use crate::kind::Kind;
use crate::result::{Failure, ToolResult};
use crate::workspace::Workspace;

mod declaration;
pub use declaration::{Declaration, violations};

/// Why a tool could not be built from the model's arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildError {
    /// The canonical error code (`invalid_tool_params` unless a rule says
    /// otherwise, e.g. `path_not_in_workspace`).
    pub code: ToolErrorCode,
    /// What was wrong, naming the argument.
    pub message: String,
}

impl BuildError {
    /// An `invalid_tool_params` error.
    #[must_use]
    pub fn invalid(message: impl Into<String>) -> Self {
        BuildError {
            code: ToolErrorCode::InvalidToolParams,
            message: message.into(),
        }
    }

    /// The verdict of a Qwen-style check (`validateToolParams` returns
    /// the broken rule's message, or nothing): `invalid_tool_params` with
    /// that message.
    ///
    /// # Errors
    /// When `problem` names one.
    pub fn check(problem: Option<String>) -> Result<(), Self> {
        problem.map_or(Ok(()), |message| Err(BuildError::invalid(message)))
    }
}

impl From<BuildError> for Failure {
    /// What Qwen's scheduler reports for a build failure: the bare message
    /// (`createErrorResponse`), which is what the model sees.
    fn from(error: BuildError) -> Self {
        let display = format!("Error: {}", error.message);
        Failure::new(error.code, error.message).display(display)
    }
}

/// A tool as the registry holds it.
pub trait Tool: Send + Sync {
    /// The name the model calls it by.
    fn name(&self) -> &str;
    /// The description the model is shown.
    fn description(&self) -> &str;
    /// The JSON Schema of its arguments.
    fn parameter_schema(&self) -> &Value;
    /// What it does.
    fn kind(&self) -> Kind;
    /// Hidden from the initial tool list until revealed.
    fn should_defer(&self) -> bool {
        false
    }
    /// Listed even when deferred (like `tool_search` itself).
    fn always_load(&self) -> bool {
        false
    }
    /// Words `tool_search` matches whole besides the name and description
    /// (Qwen's `searchHint`; an MCP tool's is `mcp <server>`).
    fn search_hint(&self) -> Option<&str> {
        None
    }
    /// The MCP server the tool comes from; `None` for a built-in tool.
    fn mcp_server(&self) -> Option<&str> {
        None
    }
    /// Other names `disabledTools` and permissions know the tool by (Qwen's
    /// `permissionAliases`: an MCP tool's name under the other name rule).
    fn permission_aliases(&self) -> Vec<String> {
        Vec::new()
    }
    /// The tool's own output budget in characters, if it overrides the
    /// session's (Qwen's `maxOutputChars`, which may read the settings).
    fn max_output_chars(&self, _workspace: &Workspace) -> Option<usize> {
        None
    }
    /// Which end of an output over its limits the scheduler's cut keeps
    /// (Qwen's `truncateKeep`): both, unless the tool knows its output is
    /// read from one end.
    fn truncate_keep(&self) -> Keep {
        Keep::Both
    }
    /// Validates `args` and returns the invocation to run.
    ///
    /// # Errors
    /// A [`BuildError`] naming the argument that is wrong.
    fn build(&self, args: &Value, workspace: &Workspace)
    -> Result<Box<dyn Invocation>, BuildError>;
    /// What Qwen's auto-mode classifier is shown of a call with `args` (the
    /// model's arguments as sent): the tool's `toAutoClassifierInput`, as
    /// `projectFunctionArgs` turns it into an object. Empty by default, as
    /// Qwen's base class returns its fail-closed `''`: a tool that has not
    /// said which of its arguments matter leaks none of them.
    fn classifier_input(&self, _args: &Value, _workspace: &Workspace) -> Map<String, Value> {
        Map::new()
    }
}

/// One validated call, ready to run.
pub trait Invocation: Send {
    /// One line for a person: what this call will do.
    fn description(&self) -> String;
    /// The paths it will touch.
    fn locations(&self) -> Vec<PathBuf> {
        Vec::new()
    }
    /// Qwen's `getDefaultPermission()`: whether the call may run without
    /// asking. Read-only tools allow; tools with side effects ask.
    fn default_permission(&self) -> Permission {
        Permission::Allow
    }
    /// Qwen's `getConfirmationDetails()`: what the user is asked, prepared
    /// from the file as it is now. Only asked of a call that needs a
    /// confirmation; a call that would fail anyway fails here, before
    /// anyone is asked.
    ///
    /// # Errors
    /// The [`Failure`] the call would end with.
    fn confirmation(&self, _workspace: &Workspace) -> Result<Confirmation, Failure> {
        Ok(Confirmation::Info {
            title: "Confirm".to_owned(),
            prompt: self.description(),
        })
    }
    /// How plan mode judges this call instead of the tool kind, when it
    /// does (Qwen's `evaluatePlanModeShellPolicy`, for shell commands): by
    /// the command's safety. `None`: plan mode judges it as any call.
    fn plan_mode_safety(&self) -> Option<Safety> {
        None
    }
    /// What the user's "proceed always" leaves behind besides the approval
    /// mode (Qwen's `onConfirm` with `ProceedAlways`): a command's programs
    /// are allowed for the rest of the session.
    fn proceed_always(&self, _workspace: &Workspace) {}
    /// The invocation with the user's edit of the proposal (Qwen's
    /// `getModifyContext().createUpdatedParams`): `asked` is the edit
    /// confirmation the user saw, `content` what they made of the
    /// proposal. `None` for a call whose proposal cannot be edited.
    fn modified(&self, _asked: &EditConfirmation, _content: String) -> Option<Box<dyn Invocation>> {
        None
    }
    /// Qwen's `requiresUserInteraction`: the confirmation is the tool
    /// itself (`ask_user_question`'s questions), so no approval mode or
    /// rule may answer it in the user's place.
    fn requires_user_interaction(&self, _workspace: &Workspace) -> bool {
        false
    }
    /// The invocation with the user's `answers` to its questions (Qwen's
    /// `onConfirm` storing `payload.answers`). `None` for a call that asks
    /// no questions.
    fn answered(&self, _answers: BTreeMap<String, String>) -> Option<Box<dyn Invocation>> {
        None
    }
    /// Runs it. A failure the model should see is the `Err`, never a
    /// panic. A tool that runs long polls `context.cancellation` and
    /// streams its output through `context`.
    ///
    /// # Errors
    /// The [`Failure`], worded as the tool's Qwen counterpart words it.
    fn execute(
        &self,
        workspace: &Workspace,
        context: &InvocationContext,
    ) -> Result<ToolResult, Failure>;
}

/// A tool with typed parameters: Qwen's `BaseDeclarativeTool`. Its static
/// half is three constants; [`Declared`] parses them once and makes it a
/// [`Tool`].
pub trait DeclarativeTool: Send + Sync {
    /// The name the model calls it by.
    const NAME: &'static str;
    /// What it does.
    const KIND: Kind;
    /// Qwen's declaration of it, `{name, description, parametersJsonSchema}`
    /// (`include_str!` of a file under `tools/declarations/`).
    const DECLARATION: &'static str;

    /// Hidden from the initial tool list until revealed (Qwen's
    /// `shouldDefer`); callable all the same.
    const SHOULD_DEFER: bool = false;

    /// Listed even when deferred (Qwen's `alwaysLoad`).
    const ALWAYS_LOAD: bool = false;

    /// See [`Tool::search_hint`].
    const SEARCH_HINT: Option<&'static str> = None;

    /// Whether arguments are checked against the declared schema before
    /// [`DeclarativeTool::validate_values`]. Qwen's `BaseDeclarativeTool`
    /// does; a tool that overrides `validateToolParams` (`todo_write`,
    /// `ask_user_question`) checks with its own rules and words only.
    const SCHEMA_CHECKED: bool = true;

    /// The arguments, deserialized after schema validation.
    type Params: DeserializeOwned;

    /// Qwen's `validateToolParamValues`: rules beyond the schema. May
    /// normalize the parameters (e.g. trim a path).
    ///
    /// # Errors
    /// A [`BuildError`] naming the argument.
    fn validate_values(
        &self,
        params: &mut Self::Params,
        workspace: &Workspace,
    ) -> Result<(), BuildError>;

    /// Makes the invocation from validated parameters.
    fn create_invocation(&self, params: Self::Params, workspace: &Workspace)
    -> Box<dyn Invocation>;

    /// See [`Tool::max_output_chars`].
    fn max_output_chars(&self, _workspace: &Workspace) -> Option<usize> {
        None
    }

    /// See [`Tool::truncate_keep`].
    fn truncate_keep(&self) -> Keep {
        Keep::Both
    }

    /// See [`Tool::classifier_input`].
    fn classifier_input(&self, _args: &Value, _workspace: &Workspace) -> Map<String, Value> {
        Map::new()
    }
}

/// A [`DeclarativeTool`] with its declaration parsed: the [`Tool`] a
/// registry holds.
pub struct Declared<T> {
    declaration: Declaration,
    tool: T,
}

impl<T: DeclarativeTool> Declared<T> {
    /// `tool` with Qwen's declaration of it.
    ///
    /// # Panics
    /// Never for the tools of this crate: each one's `declaration_parses`
    /// unit test checks its embedded declaration.
    #[must_use]
    pub fn new(tool: T) -> Self {
        let mut declaration = Declaration::qwen(T::NAME, T::KIND, T::DECLARATION);
        declaration.should_defer = T::SHOULD_DEFER;
        declaration.always_load = T::ALWAYS_LOAD;
        Declared { declaration, tool }
    }

    /// The static description.
    #[must_use]
    pub fn declaration(&self) -> &Declaration {
        &self.declaration
    }
}

impl<T: DeclarativeTool + Default> Default for Declared<T> {
    fn default() -> Self {
        Declared::new(T::default())
    }
}

impl<T: DeclarativeTool> Tool for Declared<T> {
    fn name(&self) -> &str {
        self.declaration.name
    }

    fn description(&self) -> &str {
        &self.declaration.description
    }

    fn parameter_schema(&self) -> &Value {
        &self.declaration.schema
    }

    fn kind(&self) -> Kind {
        self.declaration.kind
    }

    fn should_defer(&self) -> bool {
        self.declaration.should_defer
    }

    fn always_load(&self) -> bool {
        self.declaration.always_load
    }

    fn search_hint(&self) -> Option<&str> {
        T::SEARCH_HINT
    }

    fn max_output_chars(&self, workspace: &Workspace) -> Option<usize> {
        self.tool.max_output_chars(workspace)
    }

    fn truncate_keep(&self) -> Keep {
        self.tool.truncate_keep()
    }

    fn classifier_input(&self, args: &Value, workspace: &Workspace) -> Map<String, Value> {
        self.tool.classifier_input(args, workspace)
    }

    fn build(
        &self,
        args: &Value,
        workspace: &Workspace,
    ) -> Result<Box<dyn Invocation>, BuildError> {
        if T::SCHEMA_CHECKED {
            self.declaration
                .validate(args)
                .map_err(BuildError::invalid)?;
        }
        let mut params: T::Params = serde_json::from_value(args.clone())
            .map_err(|e| BuildError::invalid(format!("params {e}")))?;
        self.tool.validate_values(&mut params, workspace)?;
        Ok(self.tool.create_invocation(params, workspace))
    }
}
