//! The tools themselves, one module each, what they share, and [`all`]:
//! the catalogue. Which tools a session gets is its opener's choice
//! (`Session::new` takes the list; the server hands it [`all`]).

pub mod collate;
pub mod dir_arg;
pub mod edit;
pub(crate) mod exec_file;
pub mod glob;
pub mod grep_search;
mod guarded_write;
pub mod ignore_files;
pub mod list_directory;
pub(crate) mod node;
pub mod path_arg;
pub mod read_file;
pub mod shell;
pub mod task_stop;
pub mod walk;
pub mod write_file;

use std::sync::Arc;

use crate::tool::{Declared, Tool};

/// Every tool this crate implements, in the order Qwen Code registers them
/// (the model sees them sorted by name whatever the order).
#[must_use]
pub fn all() -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(Declared::<read_file::ReadFileTool>::default()),
        Arc::new(Declared::<write_file::WriteFileTool>::default()),
        Arc::new(Declared::<edit::EditTool>::default()),
        Arc::new(Declared::<list_directory::ListDirectoryTool>::default()),
        Arc::new(Declared::<grep_search::GrepTool>::default()),
        Arc::new(Declared::<glob::GlobTool>::default()),
        Arc::new(Declared::<shell::ShellTool>::default()),
        Arc::new(Declared::<task_stop::TaskStopTool>::default()),
    ]
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
                "list_directory",
                "grep_search",
                "glob",
                "run_shell_command",
                "task_stop"
            ]
        );
        for tool in &tools {
            assert_eq!(tool.parameter_schema()["type"], "object", "{}", tool.name());
            assert!(!tool.description().is_empty(), "{}", tool.name());
        }
    }
}
