//! The client side of the connection: where progress notifications go.
//!
//! The SDK mints a call's progress token as it sends the request, so a
//! notification can arrive before the caller has the token to route it
//! by; those are held back (a bounded number) and handed over when the
//! route is made, so no step is lost to that race.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{ClientConfig, ProgressNotificationParam, ProgressToken, ProtocolVersion};
use rmcp::service::NotificationContext;
use rmcp::{ClientHandler, RoleClient};

/// One progress notification of a call.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// How far.
    pub progress: f64,
    /// Out of how much, if known.
    pub total: Option<f64>,
    /// What is going on.
    pub message: Option<String>,
}

impl From<ProgressNotificationParam> for Progress {
    fn from(p: ProgressNotificationParam) -> Self {
        Progress {
            progress: p.progress,
            total: p.total,
            message: p.message,
        }
    }
}

/// Where one call's progress goes.
pub(crate) type Sink = Arc<dyn Fn(Progress) + Send + Sync>;

/// Notifications held for a token nobody routes yet, at most this many.
const EARLY_LIMIT: usize = 256;

#[derive(Default)]
struct Routes {
    sinks: HashMap<ProgressToken, Sink>,
    early: VecDeque<ProgressNotificationParam>,
}

/// The progress routes of one connection.
#[derive(Clone, Default)]
pub(crate) struct ProgressRoutes(Arc<Mutex<Routes>>);

impl ProgressRoutes {
    fn lock(&self) -> std::sync::MutexGuard<'_, Routes> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Routes `token`'s notifications to `sink`, first the ones that came
    /// early; until the guard is dropped.
    pub(crate) fn route(&self, token: ProgressToken, sink: Sink) -> Route {
        let early: Vec<ProgressNotificationParam> = {
            let mut routes = self.lock();
            routes.sinks.insert(token.clone(), Arc::clone(&sink));
            let early = std::mem::take(&mut routes.early);
            let (mine, rest): (Vec<_>, Vec<_>) =
                early.into_iter().partition(|n| n.progress_token == token);
            routes.early = rest.into();
            mine
        };
        for notification in early {
            sink(Progress::from(notification));
        }
        Route {
            routes: self.clone(),
            token,
        }
    }

    fn deliver(&self, notification: ProgressNotificationParam) {
        let sink = {
            let mut routes = self.lock();
            match routes.sinks.get(&notification.progress_token) {
                Some(sink) => Arc::clone(sink),
                None => {
                    if routes.early.len() == EARLY_LIMIT {
                        routes.early.pop_front();
                    }
                    routes.early.push_back(notification);
                    return;
                }
            }
        };
        // Called outside the lock: a sink may take its time.
        sink(Progress::from(notification));
    }
}

/// A route, removed when dropped.
pub(crate) struct Route {
    routes: ProgressRoutes,
    token: ProgressToken,
}

impl Drop for Route {
    fn drop(&mut self) {
        self.routes.lock().sinks.remove(&self.token);
    }
}

/// The client's handler: its `initialize` parameters and progress.
pub(crate) struct Handler {
    pub(crate) config: ClientConfig,
    pub(crate) progress: ProgressRoutes,
}

impl Handler {
    /// The handler of the connection to `server`.
    pub(crate) fn new(server: &str) -> Self {
        let mut config = ClientConfig::default();
        // What Qwen Code's SDK (`LATEST_PROTOCOL_VERSION`) asks for.
        config.protocol_version = ProtocolVersion::V_2025_11_25;
        config.client_info.name = format!("toolpass-reference-mcp-client-{server}");
        config.client_info.version = env!("CARGO_PKG_VERSION").to_owned();
        Handler {
            config,
            progress: ProgressRoutes::default(),
        }
    }
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        self.config.clone()
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.deliver(params);
    }
}
