//! What `tools/list` tells the model of the deferred tools it is not
//! shown: their names and the reminder (beside `tool_search` and
//! `tool_call`, which both need, and which need each other's names).

use toolpass_core::tool_search::reminder::{
    DeferredModel, DeferredSummary, deferred_tools_reminder,
};

use super::{tool_call, tool_search};
use crate::registry::Registry;

/// What a session tells the model of the deferred tools it hides now: their
/// names, sorted as Qwen sorts them, and the reminder announcing them
/// (Qwen 0.24.4's `buildDeferredToolsReminder` for the proxy model, the
/// reveal model's introduction otherwise). No reminder when none is hidden,
/// or when the bridge of `model` is incomplete: without `tool_search` (and,
/// in the proxy model, `tool_call`) Qwen sends none, as the model could not
/// reach what it names. Factories are built first, so none is missed.
#[must_use]
pub fn deferred_listing(
    registry: &Registry,
    model: DeferredModel,
) -> (Vec<String>, Option<String>) {
    for failure in registry.warm_all() {
        tracing::error!("a tool could not be built: {failure}");
    }
    let hidden = registry.hidden_deferred();
    let names = hidden.iter().map(|t| t.name().to_owned()).collect();
    let bridge = registry.get(tool_search::NAME).is_some()
        && (model == DeferredModel::Reveal || registry.get(tool_call::NAME).is_some());
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
