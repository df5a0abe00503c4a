//! The tool registry: which tools exist in a session and which of them the
//! model is shown (Qwen's `ToolRegistry`, `packages/core/src/tools/tool-registry.ts`).
//!
//! A tool is registered built ([`Registry::register`]) or as a factory
//! ([`Registry::register_factory`]) that runs on the first lookup of its
//! name, once however many lookups race ([`lazy`]). `disabledTools` is
//! checked at registration, against the name, the tool's aliases and, for
//! an MCP tool, each disabled entry made valid as MCP names are
//! ([`disabled`]). Which tools are declared is the deferral table
//! ([`Deferral::declared`]): not deferred, always loaded, or revealed this
//! session.
//!
//! The registry is shared by the session's calls (`tool_search` reveals,
//! an MCP server that drops takes its tools away), so it changes through
//! `&self`; each change bumps [`Registry::generation`], which is how a
//! search index built over it knows it is stale.

mod disabled;
mod lazy;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use toolpass_core::tool_search::{Deferral, locale_order};

use crate::tool::Tool;
use disabled::Disabled;
pub use lazy::Factory;
use lazy::Lazy;

/// What became of a registration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Registration {
    /// The tool is registered.
    Added,
    /// `disabledTools` names it (or one of its aliases).
    Disabled,
    /// A tool of that name is registered already; the first one stays, so
    /// a name never changes meaning under the model mid-session.
    Taken,
}

/// The declaration list as it is now.
pub struct Declarations {
    /// The declared tools, sorted by name as Qwen sorts them.
    pub tools: Vec<Arc<dyn Tool>>,
    /// Factories not built yet, whose tools are therefore missing from
    /// `tools`: Qwen warns about them, and a caller that wants the whole
    /// list calls [`Registry::warm_all`] first.
    pub unbuilt: Vec<String>,
}

/// One registered name.
enum Entry {
    Built(Arc<dyn Tool>),
    Lazy(Arc<Lazy>),
}

#[derive(Default)]
struct State {
    entries: BTreeMap<String, Entry>,
    revealed: BTreeSet<String>,
    generation: u64,
}

/// The tools of one session.
#[derive(Default)]
pub struct Registry {
    disabled: Disabled,
    state: RwLock<State>,
}

impl Registry {
    /// An empty registry that refuses the `disabled` names.
    #[must_use]
    pub fn new(disabled: impl IntoIterator<Item = String>) -> Self {
        Registry {
            disabled: Disabled::new(disabled),
            state: RwLock::default(),
        }
    }

    fn read(&self) -> RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> RwLockWriteGuard<'_, State> {
        self.state.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// Registers a built tool (Qwen's `registerTool`).
    pub fn register(&self, tool: Arc<dyn Tool>) -> Registration {
        let name = tool.name().to_owned();
        if self.disabled.refuses(&name, &tool.permission_aliases()) {
            tracing::info!(tool = name, "not registered: disabledTools names it");
            return Registration::Disabled;
        }
        self.insert(name, Entry::Built(tool))
    }

    /// Registers `factory` under `name`: it runs on the first lookup
    /// (Qwen's `registerFactory`).
    pub fn register_factory(&self, name: &str, factory: Factory) -> Registration {
        if self.disabled.refuses(name, &[]) {
            tracing::info!(
                tool = name,
                "factory not registered: disabledTools names it"
            );
            return Registration::Disabled;
        }
        self.insert(name.to_owned(), Entry::Lazy(Arc::new(Lazy::new(factory))))
    }

    fn insert(&self, name: String, entry: Entry) -> Registration {
        let mut state = self.write();
        if state.entries.contains_key(&name) {
            tracing::warn!(tool = name, "not registered: the name is taken");
            return Registration::Taken;
        }
        state.entries.insert(name, entry);
        state.generation += 1;
        Registration::Added
    }

    /// The tool called `name`, built now if it was registered as a factory
    /// (Qwen's `ensureTool`). A factory that fails is logged and tried
    /// again on the next lookup.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        match self.ensure(name) {
            Ok(tool) => tool,
            Err(error) => {
                tracing::warn!(tool = name, "building the tool failed: {error}");
                None
            }
        }
    }

    /// As [`Registry::get`], with the factory's failure.
    ///
    /// # Errors
    /// The factory's message when it fails.
    pub fn ensure(&self, name: &str) -> Result<Option<Arc<dyn Tool>>, String> {
        let lazy = match self.read().entries.get(name) {
            None => return Ok(None),
            Some(Entry::Built(tool)) => return Ok(Some(Arc::clone(tool))),
            Some(Entry::Lazy(lazy)) => Arc::clone(lazy),
        };
        // Built outside the registry's lock: a slow factory holds up only
        // the lookups of its own name.
        let tool = lazy.load()?;
        let mut state = self.write();
        if let Some(entry) = state.entries.get_mut(name)
            && matches!(entry, Entry::Lazy(l) if Arc::ptr_eq(l, &lazy))
        {
            *entry = Entry::Built(Arc::clone(&tool));
        }
        Ok(Some(tool))
    }

    /// Builds every factory left (Qwen's `warmAll`) and returns the
    /// failures, `name: message`.
    pub fn warm_all(&self) -> Vec<String> {
        self.unbuilt()
            .into_iter()
            .filter_map(|name| self.ensure(&name).err().map(|e| format!("{name}: {e}")))
            .collect()
    }

    fn unbuilt(&self) -> Vec<String> {
        let state = self.read();
        let lazy = state.entries.iter();
        lazy.filter(|(_, e)| matches!(e, Entry::Lazy(_)))
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// Every registered name, built or not (what `select:` looks names up
    /// among).
    #[must_use]
    pub fn names(&self) -> Vec<String> {
        self.read().entries.keys().cloned().collect()
    }

    /// Every built tool, by name.
    #[must_use]
    pub fn built(&self) -> Vec<Arc<dyn Tool>> {
        let state = self.read();
        let entries = state.entries.values();
        entries
            .filter_map(|e| match e {
                Entry::Built(tool) => Some(Arc::clone(tool)),
                Entry::Lazy(_) => None,
            })
            .collect()
    }

    /// Qwen's `getFunctionDeclarations`: every built tool the deferral table
    /// declares, sorted by name in `localeCompare` order
    /// (`compareToolsByDeclarationName`).
    #[must_use]
    pub fn declarations(&self) -> Declarations {
        let unbuilt = self.unbuilt();
        if !unbuilt.is_empty() {
            tracing::warn!(
                "declarations built with {} tool factories not loaded: warm them first",
                unbuilt.len()
            );
        }
        let tools = self.sorted_where(Deferral::declared);
        Declarations { tools, unbuilt }
    }

    /// The built tools the deferral table hides now (deferred, not always
    /// loaded, not revealed), sorted by name in `localeCompare` order:
    /// Qwen's `getDeferredToolSummary` less the revealed ones, what the
    /// deferred-tools reminder lists.
    #[must_use]
    pub fn hidden_deferred(&self) -> Vec<Arc<dyn Tool>> {
        self.sorted_where(Deferral::hidden)
    }

    /// The built tools whose row of the deferral table, given whether each
    /// was revealed, `keep`s them, sorted by name in `localeCompare` order.
    fn sorted_where(&self, keep: fn(Deferral, bool) -> bool) -> Vec<Arc<dyn Tool>> {
        let revealed = self.read().revealed.clone();
        let mut tools: Vec<Arc<dyn Tool>> = self
            .built()
            .into_iter()
            .filter(|t| keep(deferral(t.as_ref()), revealed.contains(t.name())))
            .collect();
        tools.sort_by(|a, b| locale_order(a.name(), b.name()));
        tools
    }

    /// Marks `name` revealed for the rest of the session (Qwen's
    /// `revealDeferredTool`). Returns whether it was not revealed before.
    pub fn reveal(&self, name: &str) -> bool {
        let mut state = self.write();
        let newly = state.revealed.insert(name.to_owned());
        state.generation += u64::from(newly);
        newly
    }

    /// Takes a reveal back (Qwen's `unrevealDeferredTool`): the rollback
    /// when the declaration update that should follow it fails.
    pub fn unreveal(&self, name: &str) {
        let mut state = self.write();
        let removed = state.revealed.remove(name);
        state.generation += u64::from(removed);
    }

    /// Whether `name` was revealed this session.
    #[must_use]
    pub fn is_revealed(&self, name: &str) -> bool {
        self.read().revealed.contains(name)
    }

    /// Qwen's `isDeferredAndHidden`: registered, deferred, not always
    /// loaded and not revealed. A factory not built yet is not known to be
    /// deferred, so it is not.
    #[must_use]
    pub fn is_deferred_and_hidden(&self, name: &str) -> bool {
        let state = self.read();
        match state.entries.get(name) {
            Some(Entry::Built(tool)) => {
                deferral(tool.as_ref()).hidden(state.revealed.contains(name))
            }
            Some(Entry::Lazy(_)) | None => false,
        }
    }

    /// Removes every tool of MCP server `server` and its reveal marks
    /// (Qwen's `removeMcpToolsByServer`), returning their names.
    pub fn remove_server(&self, server: &str) -> Vec<String> {
        let mut state = self.write();
        let names: Vec<String> = state
            .entries
            .iter()
            .filter(|(_, e)| matches!(e, Entry::Built(t) if t.mcp_server() == Some(server)))
            .map(|(name, _)| name.clone())
            .collect();
        for name in &names {
            state.entries.remove(name);
            state.revealed.remove(name);
        }
        state.generation += u64::from(!names.is_empty());
        names
    }

    /// A number that changes whenever the registered tools or the reveal
    /// marks do.
    #[must_use]
    pub fn generation(&self) -> u64 {
        self.read().generation
    }
}

/// A tool's row of the deferral table.
#[must_use]
pub fn deferral(tool: &dyn Tool) -> Deferral {
    Deferral {
        should_defer: tool.should_defer(),
        always_load: tool.always_load(),
    }
}

#[cfg(test)]
mod tests;
