//! What one `tool_search` call answers: the lookup, the reveal (in the
//! reveal model) with its rollback, and the result's texts.

use std::sync::Arc;

use serde_json::json;
use toolpass_core::fold::is_js_whitespace;
use toolpass_core::tool_search::reminder::DeferredModel;
use toolpass_core::tool_search::wrapper::{self, BRIDGE_UNAVAILABLE, Review};
use toolpass_core::tool_search::{
    Query, QueryError, SearchEntry, SearchIndex, Selection, max_results, parse_query,
};

use crate::error_code::ToolErrorCode;
use crate::faults::{FaultPoint, Faults};
use crate::registry::{Registry, deferral};
use crate::result::{Display, Failure, ToolResult};
use crate::tool::Tool;

/// The proxy tool's name: without it the proxy model's bridge is
/// incomplete.
const TOOL_CALL: &str = "tool_call";

/// What the injected `declarations.update` failure says.
const UPDATE_FAILED: &str = "the declaration update failed (fault point declarations.update)";

/// One search in one session.
pub(super) struct Search<'a> {
    pub(super) registry: &'a Registry,
    pub(super) model: DeferredModel,
    pub(super) faults: &'a Faults,
}

impl Search<'_> {
    /// Qwen's `ToolSearchInvocation.execute`.
    pub(super) fn answer(
        &self,
        query: &str,
        requested_max: Option<i64>,
        index: impl FnOnce() -> Arc<SearchIndex>,
    ) -> Result<ToolResult, Failure> {
        let max = max_results(requested_max);
        let keywords = match parse_query(query, max).map_err(query_failure)? {
            Query::Select(selection) => return self.schemas(&selection),
            Query::Keywords(keywords) => keywords,
        };
        if self.model == DeferredModel::Proxy && !self.bridge_complete() {
            return Err(Failure::new(ToolErrorCode::Unknown, BRIDGE_UNAVAILABLE)
                .llm_content(format!("Error: {BRIDGE_UNAVAILABLE}"))
                .display("Deferred-tool bridge unavailable"));
        }
        let index = index();
        let registry = self.registry;
        let names = index.search(&keywords, max, |name| registry.is_revealed(name));
        if names.is_empty() {
            let query = query.trim_matches(is_js_whitespace);
            return Ok(ToolResult::new(
                wrapper::no_match_text(query),
                Display::Text(wrapper::no_match_display(query)),
            ));
        }
        let names = names.into_iter().map(str::to_owned).collect();
        self.schemas(&Selection {
            names,
            truncated: Vec::new(),
        })
    }

    /// Qwen's `returnSchemas` (proxy) and `loadAndReturnSchemas` (reveal).
    fn schemas(&self, selection: &Selection) -> Result<ToolResult, Failure> {
        let registered = self.registry.names();
        let resolved = selection.resolve(registered.iter().map(String::as_str));
        let mut missing = resolved.missing;
        let mut declarations = Vec::new();
        let mut unreachable = Vec::new();
        let mut newly_revealed = Vec::new();
        let bridge = self.bridge_complete();
        for name in resolved.found {
            let Some(tool) = self.registry.get(name) else {
                missing.push(name.to_owned());
                continue;
            };
            match self.model {
                DeferredModel::Reveal => {
                    let loadable = tool.should_defer() && !tool.always_load();
                    if loadable && self.registry.reveal(name) {
                        newly_revealed.push(name);
                    }
                }
                DeferredModel::Proxy => {
                    if !bridge && self.registry.is_deferred_and_hidden(name) {
                        unreachable.push(name.to_owned());
                        continue;
                    }
                }
            }
            declarations.push(function_json(tool.as_ref()));
        }
        // The reveal is published in one step with it, or not at all.
        if !newly_revealed.is_empty() && self.faults.fire(FaultPoint::DeclarationsUpdate) {
            for name in newly_revealed {
                self.registry.unreveal(name);
            }
            return Err(update_failure(UPDATE_FAILED));
        }
        let review = Review {
            declarations: &declarations,
            missing: &missing,
            bridge_unavailable: &unreachable,
            truncated: &selection.truncated,
        };
        let (text, display) = (review.text(), review.display(self.model));
        match review.error() {
            None => Ok(ToolResult::new(text, Display::Text(display))),
            Some(error) => Err(Failure::new(ToolErrorCode::Unknown, error)
                .llm_content(text)
                .display(display)),
        }
    }

    /// Qwen's `isDeferredToolBridgeAvailable`.
    fn bridge_complete(&self) -> bool {
        self.registry.get(TOOL_CALL).is_some() && self.registry.get(super::NAME).is_some()
    }
}

/// The failure of a query that asks for nothing: Qwen's texts.
fn query_failure(error: QueryError) -> Failure {
    Failure::new(ToolErrorCode::Unknown, error.display())
        .llm_content(error.message())
        .display(error.display())
}

/// Qwen's answer when `setTools()` fails after a reveal.
fn update_failure(cause: &str) -> Failure {
    Failure::new(
        ToolErrorCode::Unknown,
        format!("setTools failed while revealing deferred tools: {cause}"),
    )
    .llm_content(format!(
        "Error: tools were located but could not be exposed to the API (setTools failed: \
         {cause}). Retry the search next turn or call ToolSearch again with \
         select:Name1,Name2 \u{2014} re-running tool registration usually clears transient init \
         races."
    ))
    .display(format!("setTools failed: {cause}"))
}

/// A tool's declaration as Qwen serializes its `schema`:
/// `{"name", "description", "parametersJsonSchema"}`.
pub(super) fn function_json(tool: &dyn Tool) -> String {
    json!({
        "name": tool.name(),
        "description": tool.description(),
        "parametersJsonSchema": tool.parameter_schema(),
    })
    .to_string()
}

/// A tool as the keyword search sees it.
pub(super) fn search_entry(tool: &dyn Tool) -> SearchEntry {
    match tool.mcp_server() {
        Some(server) => SearchEntry::mcp(tool.name(), tool.description(), server),
        None => SearchEntry::builtin(
            tool.name(),
            tool.description(),
            tool.search_hint(),
            deferral(tool),
        ),
    }
}
