//! A session's MCP servers (Qwen Code's `McpClientManager` and
//! `McpClient.discover`, `packages/core/src/tools/mcp-client-manager.ts`,
//! `mcp-client.ts`): each configured server connected ([`toolpass_mcp`]),
//! within the client budget, its tools registered as
//! [`DiscoveredMcpTool`]s minus the ones its `includeTools` /
//! `excludeTools` leave out, its prompts and resources kept (prompts are
//! listed, never tools).
//!
//! A server that fails to start, to initialize or to list anything is
//! logged and left out, as Qwen's discovery leaves it out; the session
//! opens all the same. [`McpServers::reconnect`] is Qwen's
//! `discoverToolsForServer`: the old connection is closed and everything of
//! the server (tools, their reveal marks, prompts, resources) is purged
//! before it is connected and discovered anew.

mod content;
mod tool;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

use toolpass_core::mcp::budget::{Budget, BudgetSettings, Reservation};
use toolpass_core::mcp::{self as rules, Hints};
use toolpass_mcp::{Connection, ListedPrompt, ServerSpec};

use crate::config::McpServerSettings;
use crate::registry::{Registration, Registry};
pub use tool::DiscoveredMcpTool;

/// What the session holds of one connected server.
struct Server {
    connection: Arc<Connection>,
    prompts: Vec<ListedPrompt>,
    resources: Vec<String>,
    /// The annotations of its registered tools, by name on the server.
    hints: BTreeMap<String, Option<Hints>>,
}

/// The servers of one session.
pub struct McpServers {
    root: PathBuf,
    settings: BTreeMap<String, McpServerSettings>,
    registry: Weak<Registry>,
    me: Weak<McpServers>,
    budget: Mutex<Budget>,
    servers: Mutex<BTreeMap<String, Server>>,
}

impl McpServers {
    /// The servers `settings` names, for the session rooted at `root` whose
    /// tools `registry` holds; none connected yet.
    #[must_use]
    pub fn new(
        root: &Path,
        settings: BTreeMap<String, McpServerSettings>,
        registry: &Arc<Registry>,
        budget: &BudgetSettings,
    ) -> Arc<Self> {
        Arc::new_cyclic(|me| McpServers {
            root: root.to_owned(),
            settings,
            registry: Arc::downgrade(registry),
            me: me.clone(),
            budget: Mutex::new(Budget::new(budget)),
            servers: Mutex::default(),
        })
    }

    fn servers(&self) -> MutexGuard<'_, BTreeMap<String, Server>> {
        self.servers.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The configured servers' names.
    pub fn configured(&self) -> impl Iterator<Item = &str> {
        self.settings.keys().map(String::as_str)
    }

    /// The settings of server `name`.
    #[must_use]
    pub fn settings(&self, name: &str) -> Option<&McpServerSettings> {
        self.settings.get(name)
    }

    /// Connects every configured server at once and registers what each
    /// offers (Qwen's `discoverAllMcpTools`); returns the failures,
    /// `server: message`, which are also logged.
    pub fn connect_all(&self) -> Vec<String> {
        let failures: Vec<String> = std::thread::scope(|scope| {
            let started: Vec<_> = self
                .settings
                .keys()
                .map(|name| scope.spawn(move || self.discover(name).err()))
                .collect();
            started
                .into_iter()
                .filter_map(|s| {
                    s.join()
                        .unwrap_or_else(|_| Some("discovery panicked".into()))
                })
                .collect()
        });
        for failure in &failures {
            tracing::error!("Error during discovery for server: {failure}");
        }
        failures
    }

    /// Connects server `name` and registers what it offers.
    fn discover(&self, name: &str) -> Result<(), String> {
        let settings = self
            .settings
            .get(name)
            .ok_or_else(|| format!("{name}: no such MCP server in the session's mcpServers"))?;
        let reservation = self
            .budget
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .reserve(name);
        match reservation {
            Reservation::Refused(refusal) => return Err(refusal.to_string()),
            Reservation::Reserved {
                warning: Some(warning),
            } => tracing::warn!("{warning}"),
            Reservation::Reserved { warning: None } | Reservation::AlreadyHeld => {}
        }
        let found = self.connect(name, settings);
        if found.is_err() {
            self.budget
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .release(name);
        }
        found.map_err(|e| format!("{name}: {e}"))
    }

    fn connect(&self, name: &str, settings: &McpServerSettings) -> Result<(), String> {
        let spec = self.spec(name, settings)?;
        let connection = Arc::new(Connection::connect(name, &spec).map_err(|e| e.message)?);
        let listing = match connection.list() {
            Ok(listing) => listing,
            Err(e) => {
                connection.shutdown();
                return Err(format!("list its tools: {e}"));
            }
        };
        if listing.tools.is_empty() && listing.prompts.is_empty() && listing.resources.is_empty() {
            connection.shutdown();
            return Err(rules::NOTHING_FOUND.to_owned());
        }
        let registry = self.registry.upgrade().ok_or("the session has ended")?;
        let mut hints = BTreeMap::new();
        for listed in listing.tools {
            let (include, exclude) = (settings.include_tools.as_deref(), &settings.exclude_tools);
            if !rules::is_enabled(&listed.name, include, exclude) {
                continue;
            }
            let (server_tool, annotations) = (listed.name.clone(), listed.annotations);
            let tool = DiscoveredMcpTool::new(
                name,
                listed,
                settings.trust,
                Arc::clone(&connection),
                self.me.clone(),
            );
            if registry.register(Arc::new(tool)) == Registration::Added {
                hints.insert(server_tool, annotations);
            }
        }
        let server = Server {
            connection,
            prompts: listing.prompts,
            resources: listing.resources,
            hints,
        };
        if let Some(old) = self.servers().insert(name.to_owned(), server) {
            old.connection.shutdown();
        }
        Ok(())
    }

    /// How to start server `name`: its cwd beneath the session root, the
    /// timeouts its `timeout` sets or Qwen's defaults.
    fn spec(&self, name: &str, settings: &McpServerSettings) -> Result<ServerSpec, String> {
        let cwd = settings
            .cwd
            .as_ref()
            .map_or_else(|| self.root.clone(), |cwd| self.root.join(cwd));
        if !cwd.is_dir() {
            return Err(format!(
                "MCP server '{name}': configured cwd does not exist: {}",
                cwd.display()
            ));
        }
        let ms = |default| Duration::from_millis(settings.timeout_ms.unwrap_or(default));
        Ok(ServerSpec {
            command: settings.command.clone(),
            args: settings.args.clone(),
            env: settings.env.clone(),
            cwd,
            initialize_timeout: ms(rules::DEFAULT_INITIALIZE_TIMEOUT_MS),
            request_timeout: ms(rules::DEFAULT_CALL_TIMEOUT_MS),
        })
    }

    /// Closes server `name`'s connection and purges everything of it:
    /// its tools and their reveal marks, its prompts and resources (Qwen's
    /// `purgeServerRegistries`). Returns the tools removed.
    pub fn disconnect(&self, name: &str) -> Vec<String> {
        let old = self.servers().remove(name);
        if let Some(old) = old {
            old.connection.shutdown();
        }
        self.registry
            .upgrade()
            .map(|registry| registry.remove_server(name))
            .unwrap_or_default()
    }

    /// Qwen's `discoverToolsForServer`: [`McpServers::disconnect`], then
    /// connect and discover anew. The tools come back under the same
    /// names, not revealed.
    ///
    /// # Errors
    /// Why the server could not be connected again; it stays purged.
    pub fn reconnect(&self, name: &str) -> Result<(), String> {
        self.disconnect(name);
        self.discover(name)
    }

    /// The connection of server `name` now, and the annotations of its
    /// tool `tool` if that is registered (what a replay is judged by).
    #[must_use]
    pub fn tool_of(&self, name: &str, tool: &str) -> Option<(Arc<Connection>, Option<Hints>)> {
        let servers = self.servers();
        let server = servers.get(name)?;
        let hints = server.hints.get(tool)?;
        Some((Arc::clone(&server.connection), *hints))
    }

    /// The prompts of every connected server, by server (Qwen's
    /// `PromptRegistry`): listed, not offered as tools.
    #[must_use]
    pub fn prompts(&self) -> BTreeMap<String, Vec<ListedPrompt>> {
        let servers = self.servers();
        servers
            .iter()
            .map(|(name, s)| (name.clone(), s.prompts.clone()))
            .collect()
    }

    /// The resource URIs of every connected server, by server.
    #[must_use]
    pub fn resources(&self) -> BTreeMap<String, Vec<String>> {
        let servers = self.servers();
        servers
            .iter()
            .map(|(name, s)| (name.clone(), s.resources.clone()))
            .collect()
    }

    /// The connection of server `name`, if it is connected.
    #[must_use]
    pub fn connection(&self, name: &str) -> Option<Arc<Connection>> {
        self.servers().get(name).map(|s| Arc::clone(&s.connection))
    }

    /// Shuts every server down and waits for each to exit (the session
    /// closes).
    pub fn shutdown(&self) {
        let servers = std::mem::take(&mut *self.servers());
        for (name, server) in servers {
            server.connection.shutdown();
            tracing::debug!(server = name, "MCP server shut down");
        }
    }
}

#[cfg(test)]
mod tests;
