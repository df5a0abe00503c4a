//! SIGINT (Ctrl-C), SIGTERM (what a CI system sends when a job is
//! cancelled) and SIGHUP (the terminal went away) stop a command the same
//! way: the run's workers kill their implementations and remove their
//! sandboxes, and the command exits 128 + the signal's number without a
//! report. Without this, the default action ends the runner at once:
//! implementations in their own process groups (a hung one never reads the
//! end of its input) and every sandbox directory would be left behind.

use std::future::Future;
use std::io;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use tokio::runtime::Runtime;
use tokio::signal::unix::{SignalKind, signal};
use toolpass::run::Interrupter;

/// How long the interrupted work may take to kill and clean up before it
/// is dropped (dropping still kills each process group, without waiting).
const CLEANUP: Duration = Duration::from_secs(10);

/// The signal that stopped a command.
#[derive(Debug, Clone, Copy)]
pub(super) struct Caught {
    name: &'static str,
    kind: SignalKind,
}

impl Caught {
    /// Says what happened on stderr and gives the exit code a shell gives
    /// a process the signal ended.
    pub(super) fn exit(self) -> ExitCode {
        #[allow(clippy::print_stderr)] // The runner's last words, beside the progress.
        {
            eprintln!(
                "toolpass: stopped by {}: implementations killed, sandboxes removed, no report \
                 written",
                self.name
            );
        }
        let code = 128 + self.kind.as_raw_value();
        ExitCode::from(u8::try_from(code).unwrap_or(u8::MAX))
    }
}

/// Runs `work` on `runtime` as [`until_signal`] does: its value (or its
/// error), or the signal that stopped it.
///
/// # Errors
/// `work`'s error, or the signal handlers could not be installed.
pub(super) fn block_on<T, E: Into<anyhow::Error>>(
    runtime: &Runtime,
    interrupter: Interrupter,
    work: impl Future<Output = Result<T, E>>,
) -> anyhow::Result<Result<T, Caught>> {
    match runtime
        .block_on(until_signal(interrupter, work))
        .context("failed to install the signal handlers")?
    {
        Ok(done) => done.map(Ok).map_err(Into::into),
        Err(caught) => Ok(Err(caught)),
    }
}

/// Runs `work` until it ends or a stopping signal arrives. On a signal, it
/// sets `interrupter` (a run's workers then kill their implementations and
/// remove their sandboxes) and lets `work` finish that, within [`CLEANUP`]
/// or until a second signal.
///
/// # Errors
/// When the signal handlers cannot be installed.
async fn until_signal<T>(
    interrupter: Interrupter,
    work: impl Future<Output = T>,
) -> io::Result<Result<T, Caught>> {
    let caught = |name, kind| Caught { name, kind };
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    let mut hangup = signal(SignalKind::hangup())?;
    let mut work = std::pin::pin!(work);
    let caught = tokio::select! {
        done = &mut work => return Ok(Ok(done)),
        _ = interrupt.recv() => caught("SIGINT", SignalKind::interrupt()),
        _ = terminate.recv() => caught("SIGTERM", SignalKind::terminate()),
        _ = hangup.recv() => caught("SIGHUP", SignalKind::hangup()),
    };
    interrupter.interrupt();
    // A second signal means "now": the work is dropped, which still kills
    // each process group, without waiting for the deaths.
    tokio::select! {
        _ = tokio::time::timeout(CLEANUP, work) => {}
        _ = interrupt.recv() => {}
        _ = terminate.recv() => {}
        _ = hangup.recv() => {}
    }
    Ok(Err(caught))
}
