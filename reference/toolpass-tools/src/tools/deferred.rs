//! What `tools/list` tells the model of the deferred tools it is not
//! shown: their names and the reminder (beside `tool_search` and
//! `tool_call`, which both need, and which need each other's names).

use toolpass_core::tool_search::reminder::{
    DeferredModel, DeferredSummary, deferred_tools_reminder,
};

use super::{tool_call, tool_search};
use crate::registry::Registry;

/// Whether the session has the bridge of `model` (`tool_search`, and in
/// the proxy model `tool_call`); when it has not, every deferred tool is
/// revealed, as Qwen 0.24.4's `resolveDeferredToolsForReminder` does before
/// each turn: a tool the model could neither find nor call through the
/// bridge is declared instead, rather than lost. Idempotent; run again
/// whenever tools may have arrived (an MCP server connected or reconnected,
/// its reveal marks cleared).
pub fn reveal_without_bridge(registry: &Registry, model: DeferredModel) -> bool {
    let bridge = registry.get(tool_search::NAME).is_some()
        && (model == DeferredModel::Reveal || registry.get(tool_call::NAME).is_some());
    if !bridge {
        for tool in registry.hidden_deferred() {
            registry.reveal(tool.name());
        }
    }
    bridge
}

/// What a session tells the model of the deferred tools it hides now: their
/// names, sorted as Qwen sorts them, and the reminder announcing them
/// (Qwen 0.24.4's `buildDeferredToolsReminder` for the proxy model, the
/// reveal model's introduction otherwise). No reminder when none is hidden,
/// or when the bridge of `model` is incomplete: then nothing is hidden
/// ([`reveal_without_bridge`]). Factories are built first, so none is
/// missed.
#[must_use]
pub fn deferred_listing(
    registry: &Registry,
    model: DeferredModel,
) -> (Vec<String>, Option<String>) {
    for failure in registry.warm_all() {
        tracing::error!("a tool could not be built: {failure}");
    }
    let bridge = reveal_without_bridge(registry, model);
    let hidden = registry.hidden_deferred();
    let names = hidden.iter().map(|t| t.name().to_owned()).collect();
    let summaries: Vec<DeferredSummary<'_>> = hidden
        .iter()
        .map(|t| DeferredSummary {
            name: t.name(),
            description: t.description(),
            server: t.mcp_server(),
        })
        .collect();
    let reminder = bridge
        .then(|| deferred_tools_reminder(&summaries, model))
        .flatten();
    (names, reminder)
}
