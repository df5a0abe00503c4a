//! The tools themselves, one module each, and the standard set a session
//! starts with.

pub mod collate;
pub mod edit;
pub mod glob;
pub mod grep_search;
mod guarded_write;
pub mod ignore_files;
pub mod list_directory;
mod node;
pub mod path_arg;
pub mod read_file;
pub mod walk;
pub mod write_file;

use std::sync::Arc;

use crate::tool::{Declared, Tool};

/// The tools every session registers.
#[must_use]
pub fn standard() -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(Declared::<read_file::ReadFileTool>::default()),
        Arc::new(Declared::<write_file::WriteFileTool>::default()),
        Arc::new(Declared::<edit::EditTool>::default()),
        Arc::new(Declared::<list_directory::ListDirectoryTool>::default()),
        Arc::new(Declared::<grep_search::GrepTool>::default()),
        Arc::new(Declared::<glob::GlobTool>::default()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_standard_tool_builds_from_its_embedded_declaration() {
        // Each constructor parses an embedded JSON declaration and panics on
        // a malformed one; this is the test its doc promises.
        let names: Vec<String> = standard().iter().map(|t| t.name().to_owned()).collect();
        assert_eq!(
            names,
            [
                "read_file",
                "write_file",
                "edit",
                "list_directory",
                "grep_search",
                "glob"
            ]
        );
        for tool in standard() {
            assert_eq!(tool.parameter_schema()["type"], "object", "{}", tool.name());
            assert!(!tool.description().is_empty(), "{}", tool.name());
        }
    }
}
