//! The toolpass conformance runner as a library: how it starts an
//! implementation, talks to it over toolpass/1 and survives it.
//!
//! An implementation is any program that speaks toolpass/1 (or plain MCP) on
//! stdio. The runner never links one: even the reference server is found
//! (built by cargo inside the checkout, else installed beside the runner or
//! on `PATH`) and run as a process ([`reference_server`]). A
//! [`Supervisor`] spawns processes from an [`Implementation`] launch spec and
//! completes the handshake; a [`Connection`] sends requests to one process
//! under a per-call timeout.
//!
//! An implementation that crashes, hangs or prints garbage never stops a
//! run: the call fails with a [`CallError`] that says which of these
//! happened and carries the tail of the process's stderr, the process group
//! is killed and reaped, and [`Connection::restart`] starts a fresh one.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use std::time::Duration;
//! use toolpass::{Options, Profile, Supervisor, reference_server};
//! use toolpass_protocol::{Dialect, SessionOpenParams, method};
//!
//! let supervisor = Supervisor::new(reference_server(Profile::Release)?, Options::default());
//! let mut connection = supervisor.connect(None).await?;
//! assert!(matches!(connection.peer().dialect(), Dialect::Toolpass(_)));
//! let session = connection
//!     .request::<method::SessionOpen>(&SessionOpenParams::new("/tmp/sandbox"), Duration::from_secs(30))
//!     .await?;
//! # let _ = session;
//! # Ok(())
//! # }
//! ```

pub mod bench;
pub mod builtin;
pub mod checkout;
mod connection;
pub mod diff;
mod error;
pub mod expected;
mod implementation;
pub mod matrix;
pub mod mcp_fixture;
pub mod merge;
pub mod partition;
mod plural;
mod process;
pub mod reaper;
pub mod record;
mod reference;
pub mod report;
pub mod run;
pub mod spec;
mod stderr;

pub use connection::{Connection, Options, Peer, Supervisor};
pub use error::{CallError, CallErrorKind, StartError, StartErrorKind};
pub use implementation::{Implementation, ROOT_PLACEHOLDER};
pub use process::PendingReply;
pub use reference::{
    MCP_FIXTURE, MCP_FIXTURE_ENV, Profile, REFERENCE_SERVER_ENV, mcp_fixture, on_path,
    reference_server,
};
