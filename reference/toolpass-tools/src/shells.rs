//! What a session keeps for its shell commands: its background shells
//! (a `toolpass_shell` registry, made on the first launch) with the notice
//! sink of the call that started each, and the programs the user allowed
//! for the rest of the session ("proceed always" on a command).
//!
//! Each background shell's end is announced once, through the notice sink
//! of the call that started it (`toolpass/notice`, kind
//! [`NOTICE_KIND`], naming that call). The registry may report an end
//! before the launch has returned (a command that exits at once); such a
//! notification waits here until the launch has named its call.
//!
//! Closing (the session's end) ends every running shell with its whole
//! family and announces nothing, as Qwen's `abortAll`.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

use toolpass_shell::background::{Launch, Notification, Registry, StopReply};
use toolpass_shell::{Request, RunError};

use crate::context::NoticeSink;

/// The notice kind of a background shell's end.
pub const NOTICE_KIND: &str = "background_shell";

/// The shell state of one session.
#[derive(Default)]
pub struct Shells {
    registry: OnceLock<Registry>,
    routes: Arc<Mutex<Routes>>,
    /// Programs run without asking (see [`Shells::allow`]).
    allowed: Mutex<BTreeSet<String>>,
}

/// Where each shell's notification goes.
#[derive(Default)]
struct Routes {
    /// The sink of the call that started each running shell.
    sinks: HashMap<String, Arc<dyn NoticeSink>>,
    /// Notifications that came before their launch returned.
    early: HashMap<String, Notification>,
}

impl std::fmt::Debug for Shells {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shells")
            .field("registry", &self.registry.get())
            .finish_non_exhaustive()
    }
}

impl Shells {
    /// Starts `request` in the background, its output and status files in
    /// `dir`; its end is announced through `notices`.
    ///
    /// # Errors
    /// As [`Registry::start`].
    pub fn start(
        &self,
        dir: &Path,
        request: &Request,
        notices: Arc<dyn NoticeSink>,
    ) -> Result<Launch, RunError> {
        let launch = self.registry(dir).start(request)?;
        let early = {
            let mut routes = lock(&self.routes);
            match routes.early.remove(&launch.id) {
                Some(notification) => Some(notification),
                None => {
                    routes.sinks.insert(launch.id.clone(), Arc::clone(&notices));
                    None
                }
            }
        };
        if let Some(notification) = early {
            notices.notice(NOTICE_KIND, &notification.text);
        }
        Ok(launch)
    }

    /// `task_stop`: asks the shell `id` to stop.
    #[must_use]
    pub fn stop(&self, id: &str) -> StopReply {
        match self.registry.get() {
            Some(registry) => registry.stop(id),
            None => toolpass_shell::background::notice::stop_not_found(id),
        }
    }

    /// Ends every running shell and its family, without a notice; returns
    /// once all are gone. Later launches are refused.
    pub fn close(&self) {
        if let Some(registry) = self.registry.get() {
            registry.close();
        }
        lock(&self.routes).sinks.clear();
    }

    /// Whether every one of `programs` was allowed for the session (none is
    /// never all allowed: a command with no program is asked).
    #[must_use]
    pub fn all_allowed(&self, programs: &[String]) -> bool {
        let allowed = lock(&self.allowed);
        !programs.is_empty() && programs.iter().all(|p| allowed.contains(p))
    }

    /// Allows `programs` for the rest of the session: the user's "proceed
    /// always" on a command. Qwen records a permission rule per command
    /// (`Bash(touch *)`, with the subcommand of a few tools such as git);
    /// here the rule is the program.
    pub fn allow(&self, programs: &[String]) {
        lock(&self.allowed).extend(programs.iter().cloned());
    }

    /// The registry, made on first use with its notifications routed.
    fn registry(&self, dir: &Path) -> &Registry {
        self.registry.get_or_init(|| {
            let registry = Registry::new(dir);
            let routes = Arc::clone(&self.routes);
            registry.set_notice_sink(move |notification| deliver(&routes, notification));
            registry
        })
    }
}

/// Sends `notification` to the call that started its shell, or keeps it
/// until the launch names that call.
fn deliver(routes: &Mutex<Routes>, notification: Notification) {
    let sink = {
        let mut routes = lock(routes);
        match routes.sinks.remove(&notification.id) {
            Some(sink) => sink,
            None => {
                routes.early.insert(notification.id.clone(), notification);
                return;
            }
        }
    };
    sink.notice(NOTICE_KIND, &notification.text);
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
