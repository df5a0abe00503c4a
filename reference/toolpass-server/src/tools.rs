//! The tools a session of this server has, in either mode: every tool of
//! the tool layer, each built on its first call (the registry drops the
//! ones the config disables), and the deferred-tool bridge of the session's
//! model (`tool_search`, and `tool_call` in the proxy model).

use std::path::Path;
use std::sync::Arc;

use toolpass_tools::session::{Session, SessionConfig};
use toolpass_tools::tool::Tool;

/// A session at `root` with `config`, named `id` for its commands
/// (`QWEN_CODE_SESSION_ID`).
///
/// # Errors
/// When `root` cannot be resolved.
pub(crate) fn open_session(
    root: &Path,
    config: SessionConfig,
    id: &str,
) -> std::io::Result<Session> {
    let mut session = Session::new(root, config, Vec::new())?;
    for (name, factory) in toolpass_tools::tools::session_factories(session.config()) {
        session.registry().register_factory(name, factory);
    }
    let model = session.config().deferred_model;
    for tool in toolpass_tools::tools::deferred_bridge(session.registry(), model) {
        session.registry().register(tool);
    }
    session.set_id(id);
    Ok(session)
}

/// What `tools/list` shows: the tools the model would be shown now, every
/// factory built first so none is missing.
pub(crate) fn declared(session: &Session) -> Vec<Arc<dyn Tool>> {
    let registry = session.registry();
    for failure in registry.warm_all() {
        tracing::error!("a tool could not be built: {failure}");
    }
    toolpass_tools::tools::deferred::reveal_without_bridge(
        registry,
        session.config().deferred_model,
    );
    registry.declarations().tools
}

/// What the model is told of the deferred tools it is not shown: their
/// names and the reminder, if one is sent.
pub(crate) fn deferred(session: &Session) -> (Vec<String>, Option<String>) {
    toolpass_tools::tools::deferred::deferred_listing(
        session.registry(),
        session.config().deferred_model,
    )
}
