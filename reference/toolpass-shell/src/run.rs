//! Running one command to its end: Qwen Code's `ShellExecutionService.execute`
//! for a foreground `run_shell_command`.
//!
//! The calling thread drives the run: it waits on one channel for output,
//! the exit, the cancel signal, the timeout and the next update, whichever
//! comes first. When the shell exits, whatever it left running (in its
//! group, below it, or carrying its mark) is ended; when the run is
//! cancelled or times out, all of it is. The run returns only once the shell
//! is reaped, so nothing it started outlives it.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use crate::cancel::Cancel;
use crate::contain::ShellCgroup;
use crate::env::{Connection, environment};
use crate::output::capture::OutputLimits;
use crate::output::{Collector, Stream};
use crate::spawn::{self, Event, Spawned, Status};
use crate::spool::{SpoolDir, Spooled, Spools};
use crate::throttle::{OUTPUT_UPDATE_INTERVAL, Throttle};
use crate::tree::{Family, MARK_ENV};

/// Qwen's `SIGKILL_TIMEOUT_MS`: between SIGTERM and SIGKILL.
pub const KILL_GRACE: Duration = Duration::from_millis(200);
/// Qwen's `POST_EXIT_STREAM_DRAIN_MS`: how long output may still arrive
/// after everything was ended.
pub const DRAIN: Duration = Duration::from_secs(1);

/// A command to run.
#[derive(Clone, Debug)]
pub struct Request {
    /// The command line, run as `bash -c <command>`.
    pub command: String,
    /// The working directory: absolute, and already confined by the caller.
    pub directory: PathBuf,
    /// Context variables for the environment (`QWEN_CODE_SESSION_ID`, ...).
    pub context: Vec<(String, String)>,
}

/// Which connection to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prefer {
    /// A pty when one can be opened, pipes otherwise (Qwen's choice).
    Auto,
    /// A pty or an error.
    Pty,
    /// Pipes.
    Pipes,
}

/// How a command is run.
#[derive(Clone, Debug)]
pub struct Options<'a> {
    /// Pty or pipes.
    pub prefer: Prefer,
    /// Ends the command after this long (Qwen's default is 120 s; its tool
    /// passes it).
    pub timeout: Option<Duration>,
    /// The shortest time between two updates.
    pub update_interval: Duration,
    /// Between SIGTERM and SIGKILL.
    pub kill_grace: Duration,
    /// How much output is kept in memory.
    pub limits: OutputLimits,
    /// Where the whole output goes once it outgrows `limits`
    /// ([`Outcome::spooled`]); `None` keeps only what `limits` keeps.
    pub spool: Option<SpoolDir<'a>>,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Self {
            prefer: Prefer::Auto,
            timeout: None,
            update_interval: OUTPUT_UPDATE_INTERVAL,
            kill_grace: KILL_GRACE,
            limits: OutputLimits::DEFAULT,
            spool: None,
        }
    }
}

/// Why the run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The shell exited by itself.
    Exited,
    /// The timeout passed and the command was ended.
    TimedOut,
    /// The cancel signal fired and the command was ended.
    Cancelled,
}

/// What a run produced.
#[derive(Debug)]
pub struct Outcome {
    /// The output as Qwen shows it (see [`crate::output`]).
    pub output: String,
    /// The shell's exit code, when it exited normally.
    pub exit_code: Option<i32>,
    /// The signal that ended the shell, when one did.
    pub signal: Option<i32>,
    /// The shell's pid, which is also its process group id.
    pub pid: u32,
    /// The connection used.
    pub connection: Connection,
    /// Why a pty was not used when [`Prefer::Auto`] fell back to pipes.
    pub pty_unavailable: Option<String>,
    /// Why the run ended.
    pub ending: Ending,
    /// Processes the shell left running when it exited (each then ended),
    /// Qwen's "background PIDs".
    pub background_pids: Vec<u32>,
    /// Bytes the command wrote, kept or not.
    pub total_bytes: u64,
    /// Bytes between the kept head and tail that were dropped.
    pub omitted_bytes: u64,
    /// Whether the output was binary (then only counted).
    pub binary: bool,
    /// Bytes the collector held at the end: bounded by the limits, whatever
    /// the command printed.
    pub retained_bytes: usize,
    /// The whole output, when it outgrew the limits and
    /// [`Options::spool`] was given: what [`Outcome::output`] was cut from.
    pub spooled: Option<Spooled>,
    /// Why the whole output could not be kept (a full disk): `output` is
    /// then all there is.
    pub spool_error: Option<io::Error>,
}

/// A command that could not be started.
#[derive(Debug)]
pub enum RunError {
    /// The working directory is missing or not a directory.
    Directory {
        /// The directory asked for.
        path: PathBuf,
        /// What the file system said.
        source: io::Error,
    },
    /// A pty was required and none could be had.
    PtyUnavailable(String),
    /// `bash` could not be started.
    Spawn(io::Error),
    /// A background shell's output file could not be made.
    OutputFile {
        /// The file.
        path: PathBuf,
        /// What the file system said.
        source: io::Error,
    },
    /// The background registry was closed.
    Closed,
    /// As many background shells as the registry allows are running.
    TooManyShells {
        /// The cap ([`crate::background::MAX_RUNNING_SHELLS`]).
        cap: usize,
    },
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Directory { path, source } if source.kind() == io::ErrorKind::NotFound => {
                write!(f, "directory {} does not exist", path.display())
            }
            Self::Directory { path, source } if source.kind() == io::ErrorKind::NotADirectory => {
                write!(f, "{} is not a directory", path.display())
            }
            Self::Directory { path, source } => {
                write!(f, "cannot use directory {}: {source}", path.display())
            }
            Self::PtyUnavailable(why) => write!(f, "no pty: {why}"),
            Self::Spawn(e) => write!(f, "failed to start bash: {e}"),
            Self::OutputFile { path, source } => {
                write!(
                    f,
                    "failed to create the output file {}: {source}",
                    path.display()
                )
            }
            Self::Closed => write!(f, "the background shell registry is closed"),
            Self::TooManyShells { cap } => write!(
                f,
                "{cap} background shells are already running, the most a session may run at \
                 once; stop one with task_stop (or wait for one to end) before starting another"
            ),
        }
    }
}

impl std::error::Error for RunError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Directory { source, .. }
            | Self::Spawn(source)
            | Self::OutputFile { source, .. } => Some(source),
            Self::PtyUnavailable(_) | Self::Closed | Self::TooManyShells { .. } => None,
        }
    }
}

/// Runs `request` to its end. `on_update` receives the live view of the
/// output (see [`Collector::snapshot`]) at most once per
/// `options.update_interval`; firing `cancel` ends the command at once.
///
/// # Errors
/// When the directory is unusable or the shell cannot be started; a command
/// that fails (bash's own errors included) is an [`Outcome`].
pub fn run(
    request: &Request,
    options: &Options<'_>,
    cancel: &Cancel,
    on_update: &mut dyn FnMut(&str),
) -> Result<Outcome, RunError> {
    check_directory(&request.directory)?;
    let started = start(request, options.prefer)?;
    let family = started.family();
    let Started {
        spawned,
        pty_unavailable,
        ..
    } = started;
    let spools = options.spool.map(Spools::new);
    let limits = options.limits;
    let mut collector = match (&spools, spawned.connection) {
        (None, Connection::Pty) => Collector::pty(limits),
        (None, Connection::Pipes) => Collector::pipes(limits),
        (Some(spools), Connection::Pty) => {
            Collector::pty_spooling(limits, Box::new(|b| spools.borrow_mut().write(0, b)))
        }
        (Some(spools), Connection::Pipes) => Collector::pipes_spooling(
            limits,
            Box::new(|b| spools.borrow_mut().write(0, b)),
            Box::new(|b| spools.borrow_mut().write(1, b)),
        ),
    };
    let driven = drive(&spawned, options, cancel, &mut collector, on_update);
    let left = family.end(options.kill_grace);
    let mut open_streams = driven.open_streams;
    let mut sink = |stream, bytes: &[u8]| collector.push(stream, bytes);
    let status = match driven.exit {
        Some(status) => status,
        None => wait_for_exit(&spawned, &mut sink, &mut open_streams),
    };
    drain(&spawned, open_streams, &mut sink);
    let pid = spawned.pid;
    let connection = spawned.connection;
    spawned.reap();
    let background_pids = if driven.ending == Ending::Exited {
        left.into_iter()
            .filter(|&p| p != pid)
            .filter_map(|p| u32::try_from(p).ok())
            .collect()
    } else {
        Vec::new()
    };
    let (total_bytes, omitted_bytes) = (collector.total(), collector.omitted());
    let (binary, retained_bytes) = (collector.binary(), collector.retained());
    let output = collector.finish();
    let (spooled, spool_error) =
        match spools.map(|s| s.into_inner().finish(connection == Connection::Pty)) {
            Some(Ok(spooled)) => (spooled, None),
            Some(Err(e)) => (None, Some(e)),
            None => (None, None),
        };
    Ok(Outcome {
        total_bytes,
        omitted_bytes,
        binary,
        retained_bytes,
        output,
        spooled,
        spool_error,
        exit_code: status.code,
        signal: status.signal,
        pid: u32::try_from(pid).unwrap_or(0),
        connection,
        pty_unavailable,
        ending: driven.ending,
        background_pids,
    })
}

pub(crate) fn check_directory(directory: &Path) -> Result<(), RunError> {
    let failed = |source| RunError::Directory {
        path: directory.to_owned(),
        source,
    };
    let meta = std::fs::metadata(directory).map_err(failed)?;
    if meta.is_dir() {
        Ok(())
    } else {
        Err(failed(io::Error::from(io::ErrorKind::NotADirectory)))
    }
}

/// Marks are unique per run in this process; the pid part keeps two
/// processes' runs apart.
static RUNS: AtomicU64 = AtomicU64::new(0);

/// A started command and what identifies its family.
pub(crate) struct Started {
    pub(crate) spawned: Spawned,
    pub(crate) mark: String,
    pub(crate) pty_unavailable: Option<String>,
    pub(crate) cgroup: Option<Arc<ShellCgroup>>,
}

impl Started {
    pub(crate) fn family(&self) -> Family {
        Family {
            root: self.spawned.pid,
            group: self.spawned.pid,
            mark: self.mark.clone(),
            cgroup: self.cgroup.clone(),
        }
    }
}

/// Spawns on the connection asked for.
pub(crate) fn start(request: &Request, prefer: Prefer) -> Result<Started, RunError> {
    let run = RUNS.fetch_add(1, Ordering::Relaxed);
    let mark = format!("{}-{run}", std::process::id());
    let context: Vec<(&str, &str)> = request
        .context
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    let env_for = |connection| {
        environment(
            std::env::vars_os(),
            connection,
            &request.directory,
            &context,
            (MARK_ENV, &mark),
        )
    };
    let mut pty_unavailable = None;
    let cgroup = ShellCgroup::create().map(Arc::new);
    if prefer != Prefer::Pipes {
        match spawn::pty(
            &request.command,
            &request.directory,
            &env_for(Connection::Pty),
            cgroup.as_deref(),
        ) {
            Ok(spawned) => {
                return Ok(Started {
                    spawned,
                    mark,
                    pty_unavailable,
                    cgroup,
                });
            }
            Err(why) if prefer == Prefer::Pty => return Err(RunError::PtyUnavailable(why.0)),
            Err(why) => pty_unavailable = Some(why.0),
        }
    }
    let spawned = spawn::pipes(
        &request.command,
        &request.directory,
        &env_for(Connection::Pipes),
        cgroup.as_deref(),
    )
    .map_err(RunError::Spawn)?;
    Ok(Started {
        spawned,
        mark,
        pty_unavailable,
        cgroup,
    })
}

/// Where the drive loop left off.
struct Driven {
    ending: Ending,
    exit: Option<Status>,
    open_streams: usize,
}

/// Feeds output to the collector and updates to the caller until the shell
/// exits, the timeout passes or the cancel signal fires.
fn drive(
    spawned: &Spawned,
    options: &Options<'_>,
    cancel: &Cancel,
    collector: &mut Collector<'_>,
    on_update: &mut dyn FnMut(&str),
) -> Driven {
    let wake = spawned.sender.clone();
    // try_send: `fire` must never block; a full channel is read soon, and the
    // loop checks the signal after every event anyway.
    let _listening = cancel.listen(move || {
        let _ = wake.try_send(Event::Cancelled);
    });
    let deadline = options.timeout.map(|t| Instant::now() + t);
    let mut throttle = Throttle::new(options.update_interval);
    let mut open_streams = spawned.streams;
    loop {
        if cancel.is_fired() {
            return Driven {
                ending: Ending::Cancelled,
                exit: None,
                open_streams,
            };
        }
        let now = Instant::now();
        if deadline.is_some_and(|d| now >= d) {
            return Driven {
                ending: Ending::TimedOut,
                exit: None,
                open_streams,
            };
        }
        if throttle.tick(now) {
            on_update(&collector.snapshot());
            throttle.delivered(Instant::now());
        }
        let wait = [deadline, throttle.due()]
            .into_iter()
            .flatten()
            .min()
            .map_or(Duration::from_secs(3600), |at| {
                at.saturating_duration_since(now)
            });
        match spawned.events.recv_timeout(wait) {
            Ok(Event::Output(stream, bytes)) => {
                collector.push(stream, &bytes);
                if throttle.output(Instant::now()) {
                    on_update(&collector.snapshot());
                    throttle.delivered(Instant::now());
                }
            }
            Ok(Event::Closed) => open_streams -= 1,
            Ok(Event::Exited(status)) => {
                return Driven {
                    ending: Ending::Exited,
                    exit: Some(status),
                    open_streams,
                };
            }
            Ok(Event::Cancelled) | Err(RecvTimeoutError::Timeout) => {}
            // Every sender is held by this run, so the channel stays open.
            Err(RecvTimeoutError::Disconnected) => {
                return Driven {
                    ending: Ending::Exited,
                    exit: None,
                    open_streams,
                };
            }
        }
    }
}

/// After the kill: the exit, passing on output that arrives meanwhile.
pub(crate) fn wait_for_exit(
    spawned: &Spawned,
    sink: &mut dyn FnMut(Stream, &[u8]),
    open_streams: &mut usize,
) -> Status {
    loop {
        match spawned.events.recv() {
            Ok(Event::Exited(status)) => return status,
            Ok(Event::Output(stream, bytes)) => sink(stream, &bytes),
            Ok(Event::Closed) => *open_streams -= 1,
            Ok(Event::Cancelled) => {}
            Err(_) => {
                return Status {
                    code: None,
                    signal: None,
                };
            }
        }
    }
}

/// Output written before the end, up to [`DRAIN`] after it.
pub(crate) fn drain(
    spawned: &Spawned,
    mut open_streams: usize,
    sink: &mut dyn FnMut(Stream, &[u8]),
) {
    let deadline = Instant::now() + DRAIN;
    while open_streams > 0 {
        let left = deadline.saturating_duration_since(Instant::now());
        match spawned.events.recv_timeout(left) {
            Ok(Event::Output(stream, bytes)) => sink(stream, &bytes),
            Ok(Event::Closed) => open_streams -= 1,
            Ok(Event::Exited(_) | Event::Cancelled) => {}
            Err(_) => return,
        }
    }
}
