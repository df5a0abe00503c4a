//! The tool registry: which tools exist in a session and what the model is
//! shown. Qwen registers lazy factories to avoid imports at start;
//! Rust tools are cheap to construct, so the registry holds instances.

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::tool::Tool;

/// The tools of one session.
#[derive(Default, Clone)]
pub struct Registry {
    tools: Vec<Arc<dyn Tool>>,
    disabled: BTreeSet<String>,
    revealed: BTreeSet<String>,
}

impl Registry {
    /// An empty registry that refuses the `disabled` names.
    #[must_use]
    pub fn new(disabled: impl IntoIterator<Item = String>) -> Self {
        Registry {
            tools: Vec::new(),
            disabled: disabled.into_iter().collect(),
            revealed: BTreeSet::new(),
        }
    }

    /// Registers a tool unless its name is disabled or already taken
    /// (Qwen's `registerTool` disabled check). Returns whether it was added.
    pub fn register(&mut self, tool: Arc<dyn Tool>) -> bool {
        if self.disabled.contains(tool.name()) || self.get(tool.name()).is_some() {
            return false;
        }
        self.tools.push(tool);
        true
    }

    /// The tool called `name`, if registered.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.iter().find(|t| t.name() == name)
    }

    /// Marks a deferred tool as revealed for this session.
    pub fn reveal(&mut self, name: &str) {
        self.revealed.insert(name.to_owned());
    }

    /// Qwen's `getFunctionDeclarations`: every tool except the deferred ones
    /// that are neither always loaded nor revealed, sorted by name
    /// (`compareToolsByDeclarationName`).
    pub fn declarations(&self) -> impl Iterator<Item = &Arc<dyn Tool>> {
        let mut shown: Vec<&Arc<dyn Tool>> = self
            .tools
            .iter()
            .filter(|t| !t.should_defer() || t.always_load() || self.revealed.contains(t.name()))
            .collect();
        // Qwen compares with `localeCompare`; for tool names (ASCII letters,
        // digits, `_`, `-`, `.`) case-insensitive order, then case, agrees
        // with it.
        shown.sort_by(|a, b| {
            let key = |t: &Arc<dyn Tool>| (t.name().to_ascii_lowercase(), t.name().to_owned());
            key(a).cmp(&key(b))
        });
        shown.into_iter()
    }
}
