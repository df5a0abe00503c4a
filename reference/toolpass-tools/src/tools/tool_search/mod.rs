//! `tool_search`: Qwen Code's `ToolSearchTool` (`packages/core/src/tools/
//! tool-search.ts`), the way the model reaches a deferred tool.
//!
//! The query, the scoring and the answer's text are the core's
//! (`toolpass_core::tool_search`); this tool looks names up in the
//! session's registry and, in the reveal model, reveals what it returns.
//! A reveal and the declaration update that publishes it are one step:
//! when the update fails (fault point `declarations.update`), every name
//! this call revealed is unrevealed and the failure is the call's result,
//! so the registry never claims a tool the model was not shown.

mod answer;

use std::sync::{Arc, Mutex, PoisonError, Weak};

use serde::Deserialize;
use serde_json::Value;
use toolpass_core::tool_search::SearchIndex;
use toolpass_core::tool_search::reminder::DeferredModel;

use crate::context::InvocationContext;
use crate::kind::Kind;
use crate::registry::Registry;
use crate::result::{Failure, ToolResult};
use crate::tool::{BuildError, Declaration, Invocation, Tool};
use crate::workspace::Workspace;

/// The tool's name.
pub const NAME: &str = "tool_search";

/// Qwen's `searchHint` for it.
const SEARCH_HINT: &str = "tool search discover find schema";

/// The keyword index and the registry generation it was built at.
type CachedIndex = Mutex<Option<(u64, Arc<SearchIndex>)>>;

/// `tool_search` over one session's registry.
pub struct ToolSearchTool {
    declaration: Declaration,
    /// Weak: the registry holds this tool.
    registry: Weak<Registry>,
    model: DeferredModel,
    index: Arc<CachedIndex>,
}

impl ToolSearchTool {
    /// `tool_search` for the session whose tools `registry` holds, declared
    /// as Qwen declares it in `model`.
    #[must_use]
    pub fn new(registry: &Arc<Registry>, model: DeferredModel) -> Self {
        let json = match model {
            DeferredModel::Reveal => include_str!("../declarations/tool_search_reveal.json"),
            DeferredModel::Proxy => include_str!("../declarations/tool_search.json"),
        };
        let mut declaration = Declaration::qwen(NAME, Kind::Other, json);
        // Never hidden itself: it is how the hidden ones are found.
        declaration.always_load = true;
        ToolSearchTool {
            declaration,
            registry: Arc::downgrade(registry),
            model,
            index: Arc::default(),
        }
    }
}

/// The arguments.
#[derive(Debug, Deserialize)]
struct Params {
    query: String,
    max_results: Option<i64>,
}

impl Tool for ToolSearchTool {
    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        &self.declaration.description
    }

    fn parameter_schema(&self) -> &Value {
        &self.declaration.schema
    }

    fn kind(&self) -> Kind {
        Kind::Other
    }

    fn always_load(&self) -> bool {
        true
    }

    fn search_hint(&self) -> Option<&str> {
        Some(SEARCH_HINT)
    }

    fn build(&self, args: &Value, _: &Workspace) -> Result<Box<dyn Invocation>, BuildError> {
        self.declaration
            .validate(args)
            .map_err(BuildError::invalid)?;
        let params: Params = serde_json::from_value(args.clone())
            .map_err(|e| BuildError::invalid(format!("params {e}")))?;
        let registry = self
            .registry
            .upgrade()
            .ok_or_else(|| BuildError::invalid("the session's registry is gone"))?;
        Ok(Box::new(ToolSearchInvocation {
            registry,
            model: self.model,
            params,
            index: Arc::clone(&self.index),
        }))
    }
}

struct ToolSearchInvocation {
    registry: Arc<Registry>,
    model: DeferredModel,
    params: Params,
    index: Arc<CachedIndex>,
}

impl ToolSearchInvocation {
    /// The keyword index over the registry as it is now, rebuilt only when
    /// the registry changed since the last search.
    fn index(&self) -> Arc<SearchIndex> {
        let generation = self.registry.generation();
        let mut cached = self.index.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((built_at, index)) = cached.as_ref()
            && *built_at == generation
        {
            return Arc::clone(index);
        }
        let entries: Vec<_> = self
            .registry
            .built()
            .iter()
            .map(|tool| answer::search_entry(tool.as_ref()))
            .collect();
        let index = Arc::new(SearchIndex::new(&entries));
        *cached = Some((generation, Arc::clone(&index)));
        index
    }
}

impl Invocation for ToolSearchInvocation {
    fn description(&self) -> String {
        self.params.query.clone()
    }

    fn execute(
        &self,
        workspace: &Workspace,
        _context: &InvocationContext,
    ) -> Result<ToolResult, Failure> {
        // Every name is looked up and every candidate scored: build the
        // factories left.
        self.registry.warm_all();
        let search = answer::Search {
            registry: &self.registry,
            model: self.model,
            faults: workspace.faults(),
        };
        search.answer(&self.params.query, self.params.max_results, || self.index())
    }
}
