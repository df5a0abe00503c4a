//! `tool_search`, the pure half: Qwen Code's deferred-tool discovery
//! (`packages/core/src/tools/tool-search.ts`) without the registry.
//!
//! A *deferred* tool is declared to the model by name only, in a
//! reminder ([`reminder`]); the model asks `tool_search` for its schema,
//! either by name (`select:a,b`) or by keywords ([`query`]). Keyword queries
//! score the deferred tools that are still hidden ([`score`]) and rank them
//! by points, then by name as JavaScript's `localeCompare` orders names
//! ([`order`]); the schemas come back inside a `<functions>` block
//! ([`wrapper`]). Looking tools up, revealing them and updating the
//! declaration list is the registry's part, in the tool layer.

mod corpus;
mod index;
pub mod order;
pub mod query;
pub mod reminder;
pub mod score;
pub mod wrapper;

mod system_reminder;

pub use index::SearchIndex;
pub use order::locale_order;
pub use query::{Keywords, Query, QueryError, Resolved, Selection, max_results, parse_query};
pub use score::{IndexedTool, Terms};

/// Whether a tool is left out of the declaration list until revealed: its
/// `shouldDefer` and `alwaysLoad` flags (Qwen's declaration table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deferral {
    /// Declared by name only until revealed.
    pub should_defer: bool,
    /// Declared from the start even so (`tool_search` itself).
    pub always_load: bool,
}

impl Deferral {
    /// An ordinary tool: always declared.
    pub const EAGER: Self = Self {
        should_defer: false,
        always_load: false,
    };
    /// A deferred tool (every MCP tool): hidden until revealed.
    pub const DEFERRED: Self = Self {
        should_defer: true,
        always_load: false,
    };

    /// Whether the tool is in the declaration list, given whether it was
    /// revealed this session: not deferred, or always loaded, or revealed.
    #[must_use]
    pub const fn declared(self, revealed: bool) -> bool {
        !self.should_defer || self.always_load || revealed
    }

    /// Qwen's `isDeferredAndHidden`: a keyword search's candidates.
    #[must_use]
    pub const fn hidden(self, revealed: bool) -> bool {
        !self.declared(revealed)
    }
}

/// A tool as the search sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchEntry {
    /// The declared name.
    pub name: String,
    /// The declared description.
    pub description: String,
    /// Extra words to match whole (`cron_create`: "schedule recurring
    /// timer").
    pub search_hint: Option<String>,
    /// Whether it is an MCP server's tool, which scores higher on its name.
    pub mcp: bool,
    /// Whether it is declared before it is revealed.
    pub deferral: Deferral,
}

impl SearchEntry {
    /// A built-in tool.
    #[must_use]
    pub fn builtin(
        name: &str,
        description: &str,
        search_hint: Option<&str>,
        deferral: Deferral,
    ) -> Self {
        Self {
            name: name.to_owned(),
            description: description.to_owned(),
            search_hint: search_hint.map(str::to_owned),
            mcp: false,
            deferral,
        }
    }

    /// A tool of MCP server `server`: always deferred, and its search hint
    /// is `mcp <server>` (Qwen's `DiscoveredMCPTool`), so a query naming the
    /// server ("send a slack message") finds its tools.
    #[must_use]
    pub fn mcp(name: &str, description: &str, server: &str) -> Self {
        Self {
            name: name.to_owned(),
            description: description.to_owned(),
            search_hint: Some(format!("mcp {server}")),
            mcp: true,
            deferral: Deferral::DEFERRED,
        }
    }
}

/// Qwen's exported `scoreTool(tool, terms)` for one tool: the points it
/// earns over `terms` (lowercased, as [`Keywords::terms`] holds them), 0
/// for no signal. A search over many tools goes through [`SearchIndex`],
/// which gives every tool the same points without scoring each in turn.
#[must_use]
pub fn score_tool(entry: &SearchEntry, terms: &[String]) -> u32 {
    let tool = IndexedTool::new(
        &entry.name,
        &entry.description,
        entry.search_hint.as_deref(),
        entry.mcp,
    );
    Terms::new(terms, &[]).score(&tool)
}

/// The best `max_results` of `(score, name)` pairs, best first: by score,
/// then by [`locale_order`] (a total order, so the candidates' order never
/// shows).
#[must_use]
pub fn rank(mut scored: Vec<(u32, &str)>, max_results: usize) -> Vec<&str> {
    let better =
        |a: &(u32, &str), b: &(u32, &str)| b.0.cmp(&a.0).then_with(|| locale_order(a.1, b.1));
    if max_results == 0 {
        return Vec::new();
    }
    if scored.len() > max_results {
        // Only the top few are returned: partition around the last kept
        // one instead of sorting thousands of matches.
        scored.select_nth_unstable_by(max_results - 1, better);
        scored.truncate(max_results);
    }
    scored.sort_unstable_by(better);
    scored.into_iter().map(|(_, name)| name).collect()
}

/// `text` with each character `escape` names replaced by that text: the
/// one loop behind the `<functions>` block's and the reminder's escapes.
fn replace_chars(text: &str, escape: impl Fn(char) -> Option<&'static str>) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match escape(c) {
            Some(replacement) => out.push_str(replacement),
            None => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests;
