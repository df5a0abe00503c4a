//! The tools themselves, one module each, what they share, and [`all`]:
//! the catalogue. Which tools a session gets is its opener's choice
//! (`Session::new` takes the list; the server hands it [`all`]).

pub mod ask_user_question;
pub mod collate;
pub mod deferred;
pub mod dir_arg;
pub mod edit;
pub(crate) mod exec_file;
pub mod glob;
pub mod grep_search;
mod guarded_write;
pub mod ignore_files;
pub mod list_directory;
pub(crate) mod node;
pub mod notebook_edit;
pub mod path_arg;
pub mod read_file;
pub mod read_mcp_resource;
pub mod send_message;
pub mod shell;
pub mod task_create;
pub mod task_stop;
pub mod todo_write;
pub mod tool_call;
pub mod tool_search;
pub mod walk;
pub mod write_file;

use std::sync::Arc;

use toolpass_core::tool_search::reminder::DeferredModel;

use crate::registry::{Factory, Registry};
use crate::tool::{DeclarativeTool, Declared, Tool};

/// Builds one tool of the catalogue.
type Constructor = fn() -> Arc<dyn Tool>;

fn declared<T: DeclarativeTool + Default + 'static>() -> Arc<dyn Tool> {
    Arc::new(Declared::<T>::default())
}

/// Every tool this crate implements with its name, in the order Qwen Code
/// registers them (the model sees them sorted by name whatever the order).
const CATALOGUE: &[(&str, Constructor)] = &[
    (
        read_file::ReadFileTool::NAME,
        declared::<read_file::ReadFileTool>,
    ),
    (
        write_file::WriteFileTool::NAME,
        declared::<write_file::WriteFileTool>,
    ),
    (edit::EditTool::NAME, declared::<edit::EditTool>),
    (
        notebook_edit::NotebookEditTool::NAME,
        declared::<notebook_edit::NotebookEditTool>,
    ),
    (
        list_directory::ListDirectoryTool::NAME,
        declared::<list_directory::ListDirectoryTool>,
    ),
    (
        grep_search::GrepTool::NAME,
        declared::<grep_search::GrepTool>,
    ),
    (glob::GlobTool::NAME, declared::<glob::GlobTool>),
    (shell::ShellTool::NAME, declared::<shell::ShellTool>),
    (
        task_stop::TaskStopTool::NAME,
        declared::<task_stop::TaskStopTool>,
    ),
    (
        todo_write::TodoWriteTool::NAME,
        declared::<todo_write::TodoWriteTool>,
    ),
    (
        ask_user_question::AskUserQuestionTool::NAME,
        declared::<ask_user_question::AskUserQuestionTool>,
    ),
    (
        task_create::TaskCreateTool::NAME,
        declared::<task_create::TaskCreateTool>,
    ),
    (
        send_message::SendMessageTool::NAME,
        declared::<send_message::SendMessageTool>,
    ),
];

/// The tools that reach deferred ones in `model`, for the session whose
/// tools `registry` holds: `tool_search`, and in the proxy model
/// `tool_call`. Not in [`all`]: `tool_search` needs the registry it
/// searches.
#[must_use]
pub fn deferred_bridge(registry: &Arc<Registry>, model: DeferredModel) -> Vec<Arc<dyn Tool>> {
    let mut tools: Vec<Arc<dyn Tool>> =
        vec![Arc::new(tool_search::ToolSearchTool::new(registry, model))];
    if model == DeferredModel::Proxy {
        tools.push(declared::<tool_call::ToolCallTool>());
    }
    tools
}

/// Every tool this crate implements, built.
#[must_use]
pub fn all() -> Vec<Arc<dyn Tool>> {
    CATALOGUE.iter().map(|(_, construct)| construct()).collect()
}

/// Every tool this crate implements as a factory for
/// [`Registry::register_factory`](crate::registry::Registry::register_factory):
/// Qwen registers its tools so, to import a tool's module only when the
/// model first calls it; here it keeps a session that never greps from
/// ever building the grep tool.
pub fn factories() -> impl Iterator<Item = (&'static str, Factory)> {
    CATALOGUE.iter().map(|&(name, construct)| {
        let factory: Factory = Box::new(move || Ok(construct()));
        (name, factory)
    })
}

/// The factories a session with `config` registers: every tool but
/// `ask_user_question` in a headless session (one naming no approval mode),
/// which Qwen 0.24.4's `createToolRegistry` leaves out when
/// `resolveInteractionMode` is `headless`: nobody could answer it.
pub fn session_factories(
    config: &crate::config::SessionConfig,
) -> impl Iterator<Item = (&'static str, Factory)> {
    let interactive = config.interactive;
    factories().filter(move |(name, _)| interactive || *name != ask_user_question::NAME)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_builds_from_its_embedded_declaration() {
        let tools = all();
        let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
        assert_eq!(
            names,
            [
                "read_file",
                "write_file",
                "edit",
                "notebook_edit",
                "list_directory",
                "grep_search",
                "glob",
                "run_shell_command",
                "task_stop",
                "todo_write",
                "ask_user_question",
                "task_create",
                "send_message"
            ]
        );
        let factory_names: Vec<&str> = factories().map(|(name, _)| name).collect();
        assert_eq!(factory_names, names);
        for tool in &tools {
            assert_eq!(tool.parameter_schema()["type"], "object", "{}", tool.name());
            assert!(!tool.description().is_empty(), "{}", tool.name());
        }
    }

    /// Each tool's row of the declaration table as its Qwen 0.24.4
    /// constructor passes it (`shouldDefer`, `alwaysLoad`): `task_stop` and
    /// `send_message` are deferred ("infrequent"), `ask_user_question` is
    /// kept visible on purpose, the others take the base class's defaults.
    #[test]
    fn deferred_as_qwens_constructors_say() {
        let deferred: Vec<String> = all()
            .iter()
            .filter(|t| crate::registry::deferral(t.as_ref()).hidden(false))
            .map(|t| t.name().to_owned())
            .collect();
        assert_eq!(deferred, ["task_stop", "send_message"]);
        assert!(all().iter().all(|t| !t.always_load()));
    }
}
