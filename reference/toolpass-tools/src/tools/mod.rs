//! The tools themselves, one module each, and the standard set a session
//! starts with.

pub mod edit;
pub mod glob;
pub mod grep_search;
pub mod path_arg;

use std::sync::Arc;

use crate::tool::Tool;

/// The tools every session registers.
#[must_use]
pub fn standard() -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(edit::EditTool::new()),
        Arc::new(glob::GlobTool::new()),
        Arc::new(grep_search::GrepTool::new()),
    ]
}
