//! The tools themselves, one module each, and the standard set a session
//! starts with.

use std::sync::Arc;

use crate::tool::Tool;

/// The tools every session registers, in Qwen's declaration order.
#[must_use]
pub fn standard() -> Vec<Arc<dyn Tool>> {
    Vec::new()
}
