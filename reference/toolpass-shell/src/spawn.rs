//! Starting `bash -c` on a pty or on pipes, and the threads that report
//! what it does: one per output stream (blocking reads: a pty master has no
//! other interface in `portable-pty`), and one that waits for it to exit
//! without reaping it, so its pid, and with it the process group, cannot be
//! reused until the runner has ended what is left of the group.

use std::ffi::OsString;
use std::io::{self, Read};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Stdio;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread;

use portable_pty::{CommandBuilder, MasterPty, PtySize, native_pty_system};
use rustix::process::{Pid, WaitId, WaitIdOptions};

use crate::contain::ShellCgroup;
use crate::env::{Connection, SHELL, SHELL_ARGS};
use crate::output::Stream;
use crate::output::screen::{COLUMNS, ROWS};

/// Chunks in flight between the readers and the runner: a bound, so a
/// command printing faster than the runner collects is made to wait (its
/// writes block) instead of filling memory.
const CHANNEL_CHUNKS: usize = 16;
/// Bytes one read takes.
const READ_BYTES: usize = 64 * 1024;

/// How a process ended, as `waitid` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Status {
    pub(crate) code: Option<i32>,
    pub(crate) signal: Option<i32>,
}

/// What the runner hears about a spawned command.
#[derive(Debug)]
pub(crate) enum Event {
    Output(Stream, Vec<u8>),
    /// A stream reached its end (or failed, which ends it too).
    Closed,
    Exited(Status),
    /// The cancel signal fired.
    Cancelled,
}

/// A started command.
pub(crate) struct Spawned {
    pub(crate) pid: i32,
    pub(crate) connection: Connection,
    pub(crate) streams: usize,
    pub(crate) events: Receiver<Event>,
    pub(crate) sender: SyncSender<Event>,
    child: Child,
}

enum Child {
    Pty {
        child: Box<dyn portable_pty::Child + Send + Sync>,
        // Held until the command is reaped: closing the master hangs up the
        // terminal under the command.
        _master: Box<dyn MasterPty + Send>,
    },
    Pipes(std::process::Child),
}

impl Spawned {
    /// Reaps the exited command (it is a zombie until then).
    pub(crate) fn reap(self) {
        // The exit was already observed by `waitid`; this only collects it.
        let _ = match self.child {
            Child::Pty { mut child, .. } => child.wait().map(drop),
            Child::Pipes(mut child) => child.wait().map(drop),
        };
    }
}

/// Why a pty could not be used.
pub(crate) struct PtyUnavailable(pub(crate) String);

/// Starts `command` on a pty.
/// Whether a pty can be opened here, and why not: what [`Prefer::Auto`]
/// will find when a command starts (a pair is opened and closed).
///
/// [`Prefer::Auto`]: crate::Prefer::Auto
///
/// # Errors
/// Why no pty could be opened.
pub fn pty_available() -> Result<(), String> {
    native_pty_system()
        .openpty(terminal_size())
        .map(drop)
        .map_err(|e| format!("failed to open a pty: {e}"))
}

/// The terminal a command gets: Qwen's 80 × 30.
fn terminal_size() -> PtySize {
    PtySize {
        rows: ROWS as u16,
        cols: COLUMNS as u16,
        pixel_width: 0,
        pixel_height: 0,
    }
}

/// The program and the words before the command's own: `bash -c`, started
/// through the launcher that joins `cgroup` when there is one.
fn shell_words(cgroup: Option<&ShellCgroup>) -> (OsString, Vec<OsString>) {
    let mut words: Vec<OsString> = SHELL_ARGS.iter().map(OsString::from).collect();
    match cgroup {
        Some(cgroup) => {
            let (launcher, mut before) = cgroup.launch(SHELL);
            before.append(&mut words);
            (launcher.into_os_string(), before)
        }
        None => (SHELL.into(), words),
    }
}

pub(crate) fn pty(
    command: &str,
    directory: &Path,
    env: &[(OsString, OsString)],
    cgroup: Option<&ShellCgroup>,
) -> Result<Spawned, PtyUnavailable> {
    let failed = |what: &str, e: &dyn std::fmt::Display| PtyUnavailable(format!("{what}: {e}"));
    let pair = native_pty_system()
        .openpty(terminal_size())
        .map_err(|e| failed("failed to open a pty", &e))?;
    let (program, words) = shell_words(cgroup);
    let mut builder = CommandBuilder::new(program);
    builder.args(words);
    builder.arg(command);
    builder.cwd(directory);
    builder.env_clear();
    for (name, value) in env {
        builder.env(name, value);
    }
    let child = pair
        .slave
        .spawn_command(builder)
        .map_err(|e| failed("failed to start bash on a pty", &e))?;
    // Our copy of the slave must go, or the master never reports the end of
    // output once the command's own copies close.
    drop(pair.slave);
    let reader = pair
        .master
        .try_clone_reader()
        .map_err(|e| failed("failed to read the pty", &e))?;
    let pid = child
        .process_id()
        .and_then(|p| i32::try_from(p).ok())
        .unwrap_or(0);
    let (sender, events) = sync_channel(CHANNEL_CHUNKS);
    read_stream(reader, Stream::Stdout, sender.clone());
    wait_exit(pid, sender.clone());
    Ok(Spawned {
        pid,
        connection: Connection::Pty,
        streams: 1,
        events,
        sender,
        child: Child::Pty {
            child,
            _master: pair.master,
        },
    })
}

/// Starts `command` on pipes, in a process group of its own.
pub(crate) fn pipes(
    command: &str,
    directory: &Path,
    env: &[(OsString, OsString)],
    cgroup: Option<&ShellCgroup>,
) -> io::Result<Spawned> {
    let (program, words) = shell_words(cgroup);
    let mut child = std::process::Command::new(program)
        .args(words)
        .arg(command)
        .current_dir(directory)
        .env_clear()
        .envs(env.iter().map(|(n, v)| (n, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // A group of its own, so a kill reaches everything it starts there.
        // (Qwen's `detached: true` is a new session; std has no safe
        // `setsid`, and the group is what the kill needs.)
        .process_group(0)
        .spawn()?;
    let pid = i32::try_from(child.id()).unwrap_or(0);
    let (sender, events) = sync_channel(CHANNEL_CHUNKS);
    if let Some(stdout) = child.stdout.take() {
        read_stream(stdout, Stream::Stdout, sender.clone());
    }
    if let Some(stderr) = child.stderr.take() {
        read_stream(stderr, Stream::Stderr, sender.clone());
    }
    wait_exit(pid, sender.clone());
    Ok(Spawned {
        pid,
        connection: Connection::Pipes,
        streams: 2,
        events,
        sender,
        child: Child::Pipes(child),
    })
}

fn read_stream(mut from: impl Read + Send + 'static, stream: Stream, to: SyncSender<Event>) {
    thread::spawn(move || {
        let mut buffer = vec![0; READ_BYTES];
        loop {
            match from.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => {
                    if to
                        .send(Event::Output(stream, buffer[..n].to_vec()))
                        .is_err()
                    {
                        return;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                // A pty master reads EIO once every slave is closed: the end.
                Err(_) => break,
            }
        }
        let _ = to.send(Event::Closed);
    });
}

fn wait_exit(pid: i32, to: SyncSender<Event>) {
    thread::spawn(move || {
        let Some(pid) = Pid::from_raw(pid) else {
            return;
        };
        let status = loop {
            match rustix::process::waitid(
                WaitId::Pid(pid),
                WaitIdOptions::EXITED | WaitIdOptions::NOWAIT,
            ) {
                Ok(Some(status)) => {
                    break Status {
                        code: status.exit_status(),
                        signal: status.terminating_signal(),
                    };
                }
                Err(rustix::io::Errno::INTR) | Ok(None) => {}
                // Not ours to wait for (reaped elsewhere): it has ended, how
                // is unknown.
                Err(_) => {
                    break Status {
                        code: None,
                        signal: None,
                    };
                }
            }
        };
        let _ = to.send(Event::Exited(status));
    });
}
