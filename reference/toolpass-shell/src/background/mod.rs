//! Background shells: a registry per session, as Qwen Code's
//! `BackgroundShellRegistry` (`services/backgroundShellRegistry.ts`) keeps
//! them.
//!
//! - **One-shot states.** `running` → `completed` | `failed` | `cancelled`,
//!   once: every transition checks that the shell is still running, so a
//!   callback arriving late (a shell exiting while it is being cancelled)
//!   changes nothing.
//! - **Notices.** Each transition sends a notification (see
//!   [`notice::notification`]) to the sink; with no sink yet it waits, and is
//!   sent when one is set. The session's end cancels without notifying.
//! - **Retention.** At most [`MAX_RETAINED_TERMINAL_SHELLS`] ended shells are
//!   kept, the oldest (by end, then start) evicted; running ones never are.
//! - **Cap.** At most [`MAX_RUNNING_SHELLS`] run at once; a start past it
//!   is refused ([`RunError::TooManyShells`]). Ended shells do not count.
//! - **Output.** Each output file is held under [`OUTPUT_FILE_CAP`], its
//!   oldest output dropped past it and the cut noted at its start.
//! - **Stopping.** `task_stop` ([`Registry::stop`]) requests the cancel and
//!   leaves the state to the shell's own end, as Qwen's `requestCancel`
//!   does; the worker then ends the shell's whole family. Closing the
//!   registry, or dropping it, cancels every running shell and waits until
//!   each family is ended: nothing outlives it.
//!
//! Background shells run on pipes, as Qwen runs them (no terminal to attach,
//! no person to type), and have no timeout.

mod capped;
pub mod notice;
pub mod status_file;
mod worker;

use std::fs::OpenOptions;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

pub use capped::OUTPUT_FILE_CAP;
pub use notice::{Notification, Status, StopReply, Tail};

use crate::cancel::Cancel;
use crate::run::{Prefer, Request, RunError, check_directory, start};

/// Qwen's `MAX_RETAINED_TERMINAL_SHELLS`.
pub const MAX_RETAINED_TERMINAL_SHELLS: usize = 32;

/// The most background shells one session runs at once. Qwen has no cap,
/// so a model looping on launches could start processes until the machine
/// gives out; 16 is well past what a task needs (a dev server, a watcher,
/// a few builds or test runs side by side) and keeps a runaway loop to a
/// number of processes, output files and worker threads a machine bears.
pub const MAX_RUNNING_SHELLS: usize = 16;

/// A background shell as the registry knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shell {
    /// `bg_` and eight hex digits.
    pub id: String,
    /// The command.
    pub command: String,
    /// Its working directory.
    pub cwd: PathBuf,
    /// Its pid (and process group).
    pub pid: Option<u32>,
    /// Where it is in its life.
    pub status: Status,
    /// Its exit code, once completed.
    pub exit_code: Option<i32>,
    /// Why it failed.
    pub error: Option<String>,
    /// When it started.
    pub start: SystemTime,
    /// When it ended.
    pub end: Option<SystemTime>,
    /// Its output file.
    pub output_file: PathBuf,
}

/// The reply to a background launch.
#[derive(Clone, Debug)]
pub struct Launch {
    /// The shell's id.
    pub id: String,
    /// Its pid.
    pub pid: Option<u32>,
    /// Its output file.
    pub output_file: PathBuf,
    /// Its status file.
    pub status_file: PathBuf,
    /// What the model reads.
    pub model_text: String,
    /// What a person sees.
    pub display: String,
}

type Sink = Box<dyn Fn(Notification) + Send + Sync>;

/// The background shells of one session.
pub struct Registry {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("dir", &self.shared.dir)
            .finish_non_exhaustive()
    }
}

pub(crate) struct Shared {
    dir: PathBuf,
    state: Mutex<State>,
    /// Notified on every transition out of `running`.
    settled: Condvar,
    sink: Mutex<Option<Sink>>,
}

#[derive(Default)]
struct State {
    entries: Vec<Entry>,
    workers: Vec<JoinHandle<()>>,
    closed: bool,
    registered: u64,
    /// Starts past the cap check and not yet registered.
    starting: usize,
}

struct Entry {
    shell: Shell,
    cancel: Cancel,
    notified: bool,
    /// Registration order: the last tie-break of eviction.
    order: u64,
}

impl Registry {
    /// A registry writing output and status files into `dir` (made when the
    /// first shell starts).
    #[must_use]
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self {
            shared: Arc::new(Shared {
                dir: dir.into(),
                state: Mutex::new(State::default()),
                settled: Condvar::new(),
                sink: Mutex::new(None),
            }),
        }
    }

    /// Sets where notifications go, and sends those that waited for a sink
    /// (oldest end first).
    pub fn set_notice_sink(&self, sink: impl Fn(Notification) + Send + Sync + 'static) {
        *self.shared.sink() = Some(Box::new(sink));
        let waiting: Vec<Notification> = {
            let mut state = self.shared.state();
            let mut ids: Vec<(SystemTime, SystemTime, u64, usize)> = state
                .entries
                .iter()
                .enumerate()
                .filter(|(_, e)| e.shell.status != Status::Running && !e.notified)
                .map(|(at, e)| {
                    (
                        e.shell.end.unwrap_or(e.shell.start),
                        e.shell.start,
                        e.order,
                        at,
                    )
                })
                .collect();
            ids.sort_unstable();
            ids.into_iter()
                .map(|(.., at)| {
                    state.entries[at].notified = true;
                    build_notification(&state.entries[at].shell)
                })
                .collect()
        };
        for notification in waiting {
            self.shared.send(notification);
        }
    }

    /// Starts `request` in the background.
    ///
    /// # Errors
    /// When the registry is closed, the directory is unusable, the output
    /// file cannot be made or the shell cannot start.
    pub fn start(&self, request: &Request) -> Result<Launch, RunError> {
        {
            let mut state = self.shared.state();
            if state.closed {
                return Err(RunError::Closed);
            }
            if state.running() + state.starting >= MAX_RUNNING_SHELLS {
                return Err(RunError::TooManyShells {
                    cap: MAX_RUNNING_SHELLS,
                });
            }
            // Counted until registered, so parallel starts cannot pass the cap
            // together.
            state.starting += 1;
        }
        let launched = self.launch(request);
        self.shared.state().starting -= 1;
        launched
    }

    /// [`Registry::start`] once its place under the cap is held.
    fn launch(&self, request: &Request) -> Result<Launch, RunError> {
        check_directory(&request.directory)?;
        let id = self.shared.new_id();
        let output_file = self.shared.dir.join(format!("shell-{id}.output"));
        let file = create_output(&self.shared.dir, &output_file)?;
        let started = start(request, Prefer::Pipes)?;
        let pid = u32::try_from(started.spawned.pid).ok();
        let cancel = Cancel::new();
        let shell = Shell {
            id: id.clone(),
            command: request.command.clone(),
            cwd: request.directory.clone(),
            pid,
            status: Status::Running,
            exit_code: None,
            error: None,
            start: SystemTime::now(),
            end: None,
            output_file: output_file.clone(),
        };
        status_file::write(&shell);
        {
            let mut state = self.shared.state();
            state.registered += 1;
            let order = state.registered;
            state.entries.push(Entry {
                shell,
                cancel: cancel.clone(),
                notified: false,
                order,
            });
            state.workers.retain(|w| !w.is_finished());
            let worker = worker::spawn(Arc::clone(&self.shared), id.clone(), started, file, cancel);
            state.workers.push(worker);
        }
        let status_path = status_file::path_for(&output_file);
        Ok(Launch {
            model_text: notice::launch_text(
                &id,
                pid,
                &output_file.to_string_lossy(),
                &status_path.to_string_lossy(),
            ),
            display: notice::launch_display(&id, pid),
            id,
            pid,
            output_file,
            status_file: status_path,
        })
    }

    /// The shell with `id`, if retained.
    #[must_use]
    pub fn get(&self, id: &str) -> Option<Shell> {
        self.shared
            .state()
            .entries
            .iter()
            .find(|e| e.shell.id == id)
            .map(|e| e.shell.clone())
    }

    /// Waits up to `limit` for the shell `id` to end; its state then, or
    /// `None` when it is not (or no longer) retained.
    #[must_use]
    pub fn wait(&self, id: &str, limit: Duration) -> Option<Shell> {
        let deadline = Instant::now() + limit;
        let mut state = self.shared.state();
        loop {
            let shell = state
                .entries
                .iter()
                .find(|e| e.shell.id == id)?
                .shell
                .clone();
            let left = deadline.saturating_duration_since(Instant::now());
            if shell.status != Status::Running || left.is_zero() {
                return Some(shell);
            }
            state = self
                .shared
                .settled
                .wait_timeout(state, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Every retained shell, in the order they started.
    #[must_use]
    pub fn list(&self) -> Vec<Shell> {
        self.shared
            .state()
            .entries
            .iter()
            .map(|e| e.shell.clone())
            .collect()
    }

    /// `task_stop`: requests the cancel of a running shell; its state
    /// changes when it has ended.
    #[must_use]
    pub fn stop(&self, id: &str) -> StopReply {
        let state = self.shared.state();
        let Some(entry) = state.entries.iter().find(|e| e.shell.id == id) else {
            return notice::stop_not_found(id);
        };
        if entry.shell.status != Status::Running {
            return notice::stop_not_running(id, entry.shell.status);
        }
        entry.cancel.fire();
        notice::stop_requested(
            id,
            &entry.shell.output_file.to_string_lossy(),
            &entry.shell.command,
        )
    }

    /// Marks a running shell completed; does nothing otherwise.
    pub fn complete(&self, id: &str, exit_code: i32, end: SystemTime) {
        self.shared.complete(id, exit_code, end);
    }

    /// Marks a running shell failed; does nothing otherwise.
    pub fn fail(&self, id: &str, error: &str, end: SystemTime) {
        self.shared.fail(id, error, end);
    }

    /// Marks a running shell cancelled and fires its cancel; does nothing
    /// otherwise.
    pub fn cancel(&self, id: &str, end: SystemTime) {
        self.shared.cancel(id, end);
    }

    /// The session's end (Qwen's `abortAll`): every running shell is marked
    /// cancelled without a notification and its cancel fired; returns once
    /// every shell's family is ended. Later starts are refused.
    pub fn close(&self) {
        let workers = {
            let mut state = self.shared.state();
            state.closed = true;
            let end = SystemTime::now();
            for entry in &mut state.entries {
                if entry.shell.status == Status::Running {
                    entry.shell.status = Status::Cancelled;
                    entry.shell.end = Some(end);
                    entry.notified = true;
                    status_file::write(&entry.shell);
                    entry.cancel.fire();
                }
            }
            self.shared.settled.notify_all();
            std::mem::take(&mut state.workers)
        };
        for worker in workers {
            let _ = worker.join();
        }
        self.shared.state().prune();
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        self.close();
    }
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn sink(&self) -> MutexGuard<'_, Option<Sink>> {
        self.sink.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn send(&self, notification: Notification) {
        if let Some(sink) = self.sink().as_ref() {
            sink(notification);
        }
    }

    fn new_id(&self) -> String {
        loop {
            let mut bytes = [0u8; 4];
            // getrandom blocks only before the kernel's pool is seeded at boot.
            let _ = rustix::rand::getrandom(&mut bytes, rustix::rand::GetRandomFlags::empty());
            let id = format!(
                "bg_{}",
                bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
            );
            if !self.state().entries.iter().any(|e| e.shell.id == id) {
                return id;
            }
        }
    }

    pub(crate) fn complete(&self, id: &str, exit_code: i32, end: SystemTime) {
        self.settle(id, end, |shell| {
            shell.status = Status::Completed;
            shell.exit_code = Some(exit_code);
        });
    }

    pub(crate) fn fail(&self, id: &str, error: &str, end: SystemTime) {
        self.settle(id, end, |shell| {
            shell.status = Status::Failed;
            shell.error = Some(error.to_owned());
        });
    }

    pub(crate) fn cancel(&self, id: &str, end: SystemTime) {
        self.settle(id, end, |shell| shell.status = Status::Cancelled);
    }

    /// The one transition out of `running`: applied only to a running shell.
    fn settle(&self, id: &str, end: SystemTime, apply: impl FnOnce(&mut Shell)) {
        let notification = {
            let mut state = self.state();
            let Some(entry) = state
                .entries
                .iter_mut()
                .find(|e| e.shell.id == id && e.shell.status == Status::Running)
            else {
                return;
            };
            apply(&mut entry.shell);
            entry.shell.end = Some(end);
            status_file::write(&entry.shell);
            if entry.shell.status == Status::Cancelled {
                entry.cancel.fire();
            }
            let notification = if self.sink().is_some() {
                entry.notified = true;
                Some(build_notification(&entry.shell))
            } else {
                None
            };
            state.prune();
            self.settled.notify_all();
            notification
        };
        if let Some(notification) = notification {
            self.send(notification);
        }
    }
}

impl State {
    /// How many shells are running.
    fn running(&self) -> usize {
        self.entries
            .iter()
            .filter(|e| e.shell.status == Status::Running)
            .count()
    }

    /// Drops the oldest ended shells beyond the retained number, and their
    /// output and status files: a shell no longer kept can no longer be
    /// asked about, and its files would otherwise add up shell after shell.
    fn prune(&mut self) {
        let mut ended: Vec<(SystemTime, SystemTime, u64)> = self
            .entries
            .iter()
            .filter(|e| e.shell.status != Status::Running)
            .map(|e| (e.shell.end.unwrap_or(e.shell.start), e.shell.start, e.order))
            .collect();
        if ended.len() <= MAX_RETAINED_TERMINAL_SHELLS {
            return;
        }
        ended.sort_unstable();
        let evicted: Vec<u64> = ended[..ended.len() - MAX_RETAINED_TERMINAL_SHELLS]
            .iter()
            .map(|&(.., order)| order)
            .collect();
        self.entries.retain(|e| {
            let kept = !evicted.contains(&e.order);
            if !kept {
                let status = status_file::path_for(&e.shell.output_file);
                for file in [e.shell.output_file.as_path(), status.as_path()] {
                    // Unlinks the name, never what a planted link names. A
                    // failure has no one to tell: the directory goes with
                    // the session anyway.
                    let _ = std::fs::remove_file(file);
                }
            }
            kept
        });
    }
}

fn build_notification(shell: &Shell) -> Notification {
    let tail = read_tail(&shell.output_file);
    notice::notification(&notice::Ended {
        id: &shell.id,
        status: shell.status,
        command: &shell.command,
        cwd: &shell.cwd.to_string_lossy(),
        pid: shell.pid,
        exit_code: shell.exit_code,
        error: shell.error.as_deref(),
        tail: &tail,
        output_file: &shell.output_file.to_string_lossy(),
    })
}

/// The last [`notice::OUTPUT_TAIL_BYTES`] of the output file, opened without
/// following a symlink (Qwen's `openSyncNoFollow`).
fn read_tail(path: &Path) -> Tail {
    let read = || -> std::io::Result<Tail> {
        let mut file = OpenOptions::new()
            .read(true)
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
            .open(path)?;
        let size = file.metadata()?.len();
        let length = size.min(notice::OUTPUT_TAIL_BYTES as u64);
        file.seek(SeekFrom::Start(size - length))?;
        let mut last = Vec::new();
        file.take(length).read_to_end(&mut last)?;
        Ok(Tail::from_end(&last, size))
    };
    read().unwrap_or(Tail::Unreadable)
}

/// Makes the directory and a new output file in it, 0600; readable too, as
/// a cut past the cap reads the output it keeps.
fn create_output(dir: &Path, path: &Path) -> Result<std::fs::File, RunError> {
    let failed = |source| RunError::OutputFile {
        path: path.to_owned(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(failed)?;
    OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(failed)
}
