//! The process runner of the reference tool layer: what Qwen Code's
//! `ShellExecutionService` and `BackgroundShellRegistry` do for
//! `run_shell_command`, with three guarantees Qwen does not give.
//!
//! - **No orphans.** A command runs in a process group of its own (on a pty,
//!   a session of its own), with a mark in its environment that every
//!   descendant inherits. When it exits, times out or is cancelled, and when
//!   a background shell is stopped or its registry closed or dropped, every
//!   member of that family is ended: the group, the process tree below it
//!   (walked with Qwen's guards: 256 processes, 8 levels, 2 s, 8 MiB), and
//!   every process carrying the mark, so a daemon that double-forked or
//!   called `setsid` is found too ([`tree`]). SIGTERM first, SIGKILL after a
//!   grace period, as Qwen does. A process that both clears its environment
//!   and leaves the group escapes; the runner's child subreaper catches it.
//! - **Bounded memory.** Output is kept as a head and a tail of fixed size
//!   ([`OutputLimits`]) and the rest only counted, so a command printing
//!   100 MB costs a few megabytes; readers hand over chunks through a bounded
//!   channel, so a fast writer waits instead of filling memory. A pty's
//!   output goes through a one-screen virtual terminal.
//! - **One-shot states.** A background shell goes from running to completed,
//!   failed or cancelled exactly once; a later callback (an exit racing a
//!   cancel) changes nothing ([`background`]).
//!
//! What the model reads is Qwen's own wording: [`result_text`] for a
//! foreground run, [`background::notice`] for a background shell's launch,
//! notification and `task_stop`. Those modules and [`output`] are pure, so
//! they can move to `toolpass-core`.
//!
//! # Threads, not tokio
//! A run is driven by the calling thread, with one thread per output stream
//! and one waiting for the exit. `portable-pty`'s master is a blocking
//! `Read`, so a thread is needed whatever the runtime; dropping a background
//! registry must end its shells, and `Drop` cannot await; and the crate stays
//! testable without a runtime. The server, which runs on tokio, calls
//! [`run`] from its blocking pool and bridges its cancellation token to a
//! [`Cancel`].
//!
//! Linux only: `/proc`, pidfds and `waitid` without reaping.

pub mod background;
pub mod cancel;
pub mod command;
pub mod contain;
pub mod env;
pub mod output;
pub mod result_text;
mod run;
mod spawn;
pub mod spool;
pub mod throttle;
pub mod tree;

pub use cancel::Cancel;
pub use env::Connection;
pub use output::capture::OutputLimits;
pub use run::{DRAIN, Ending, KILL_GRACE, Options, Outcome, Prefer, Request, RunError, run};
pub use spawn::pty_available;
pub use spool::{SpoolDir, Spooled};
