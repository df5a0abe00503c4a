//! `toolpass-server`: the reference tool layer behind toolpass/1 on stdio.
//!
//! stdout carries protocol lines only; logs go to stderr (`RUST_LOG`). One
//! process serves many sessions. Bad input gets a JSON-RPC error, never a
//! crash, and end of input ends the process with status 0.
//!
//! ```text
//! toolpass-server                  toolpass/1: sessions via toolpass/session.open
//! toolpass-server --root DIR       also an implicit session at DIR, for calls without one
//! toolpass-server --mcp --root DIR a plain MCP stdio server (no toolpass capability)
//! toolpass-server --max-request-bytes N   refuse request lines longer than N bytes
//! toolpass-server --deferred-tools reveal|proxy   the --root session's deferred-tool model
//! ```
//!
//! Requests are bounded (64 MiB by default): a longer line is answered with
//! a JSON-RPC error naming the limit and the flag, read past without being
//! held, and the next line is served as usual.
//!
//! The concurrency model (ARCHITECTURE.md): a reader thread, a dispatcher
//! task, one worker task per session, tool calls on tokio's blocking pool,
//! and one writer thread that alone writes stdout. `--mcp` is served by the
//! official MCP SDK's server side instead ([`mcp`]).

mod convert;
mod inflight;
mod mcp;
mod outbound;
mod server;
mod signals;
mod sinks;
mod tools;
mod worker;

use std::io::{self, BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use tokio::sync::{Semaphore, mpsc};
use toolpass_protocol::{
    DEFAULT_MAX_LINE_BYTES, Message, ReadErrorKind, ResponseError, read_message_limited,
};
use toolpass_shell::contain;
use toolpass_tools::config::DeferredModel;
use toolpass_tools::session::SessionConfig;

use crate::outbound::Outbound;
use crate::server::{Inbound, Server};

/// How many requests may be read and not yet answered. Past it the reader
/// stops reading until one is answered, as a full pipe would stop the
/// client: a client that floods requests costs the server at most this
/// many parsed requests.
const MAX_IN_FLIGHT: usize = 1024;

const USAGE: &str = "usage: toolpass-server [--mcp] [--root DIR] [--deferred-tools reveal|proxy] \
                     [--max-request-bytes N]";

/// The flag that sets the request limit, named in the error a client gets.
const MAX_REQUEST_FLAG: &str = "--max-request-bytes";

/// `--help`: what each flag does, the limit's default included.
fn help() -> String {
    format!(
        "toolpass-server: the toolpass reference tool layer, serving toolpass/1 on stdio.

{USAGE}

Options:
  --root DIR               also open an implicit session at DIR, for calls
                           that name no session
  --mcp                    pose as a plain MCP stdio server (needs --root),
                           served by the official MCP SDK (rmcp)
  --deferred-tools MODEL   how the --root session reaches a deferred tool:
                           reveal (tool_search adds it to tools/list, and an
                           MCP client is sent notifications/tools/list_changed)
                           or proxy (tool_search shows it, tool_call calls it)
                           [default: reveal with --mcp, else proxy]
  {MAX_REQUEST_FLAG} N    refuse a request line longer than N bytes with a
                           JSON-RPC error (-32600) and serve the next one (with
                           --mcp, the SDK drops the line unanswered and logs
                           it); no more than about N bytes of a line are held
                           at once [default: {DEFAULT_MAX_LINE_BYTES} (64 MiB)]
  -h, --help               print this help

Logs go to stderr (RUST_LOG=debug for more); stdout carries protocol lines only."
    )
}

/// Whether to speak toolpass or to pose as a plain MCP server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// toolpass/1: sessions, features, fault points.
    Toolpass,
    /// A plain MCP stdio server: no toolpass capability, one implicit session.
    Mcp,
}

/// What the command line asks for.
#[derive(Debug, PartialEq)]
struct Args {
    mode: Mode,
    root: Option<PathBuf>,
    /// `--deferred-tools`, when given.
    deferred: Option<DeferredModel>,
    max_request_bytes: usize,
    help: bool,
}

impl Args {
    /// The `--root` session's settings: the defaults, but for its
    /// deferred-tool model. A plain MCP client takes the reveal model unless
    /// told otherwise: MCP has the notification that carries a reveal to
    /// the client (`notifications/tools/list_changed`), so the model calls
    /// a revealed tool by its own name, as Qwen's reveal model has it.
    fn implicit_config(&self) -> SessionConfig {
        let defaults = SessionConfig::default();
        let deferred_model = match (self.deferred, self.mode) {
            (Some(model), _) => model,
            (None, Mode::Mcp) => DeferredModel::Reveal,
            (None, Mode::Toolpass) => defaults.deferred_model,
        };
        SessionConfig {
            deferred_model,
            ..defaults
        }
    }
}

fn main() -> ExitCode {
    // This executable doubles as the cgroup launcher and watchdog of its
    // own shells (toolpass_shell::contain): those modes come first and
    // never reach the server.
    let raw: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    match raw.first().and_then(|a| a.to_str()) {
        Some(contain::JOIN_FLAG) => {
            let error = contain::join_and_exec(&raw[1..]);
            #[allow(clippy::print_stderr)]
            {
                eprintln!("toolpass-server: cannot start the shell: {error}");
            }
            return ExitCode::from(127);
        }
        Some(contain::WATCHDOG_FLAG) => {
            if let Some(dir) = raw.get(1) {
                contain::watchdog(std::path::Path::new(dir));
            }
            return ExitCode::SUCCESS;
        }
        _ => {}
    }
    tracing_subscriber::fmt()
        .with_writer(io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            tracing::error!("{message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if args.help {
        // The one thing this server prints that is not protocol: asked for.
        #[allow(clippy::print_stdout)]
        {
            println!("{}", help());
        }
        return ExitCode::SUCCESS;
    }
    // `/proc/self/exe` rather than a path: it names this very binary even
    // if the file is replaced while the server runs.
    match contain::enable("/proc/self/exe".into()) {
        Ok(parent) => tracing::debug!("shells are contained in {}", parent.display()),
        Err(why) => tracing::debug!("shells are not contained in cgroups: {why}"),
    }
    let served = match (&args.mode, &args.root) {
        (Mode::Mcp, Some(root)) => mcp::serve(root, args.implicit_config(), args.max_request_bytes),
        _ => {
            let input = io::BufReader::with_capacity(1 << 16, io::stdin());
            run(args, Box::new(input), Box::new(io::stdout()))
        }
    };
    contain::release();
    match served {
        Ok(None) => ExitCode::SUCCESS,
        // A shell's convention: 128 and the signal's number.
        Ok(Some(signal)) => ExitCode::from(u8::try_from(128 + signal).unwrap_or(u8::MAX)),
        Err(Failure::Start(message)) => {
            tracing::error!("{message}");
            ExitCode::from(2)
        }
        Err(Failure::Stdio(e)) => {
            tracing::error!("stdio failed: {e}");
            ExitCode::FAILURE
        }
        Err(Failure::Handshake(message)) => {
            tracing::error!("the MCP handshake failed: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Why the server stopped other than at the end of its input.
enum Failure {
    /// It could not start (the implicit session's root, the runtime).
    Start(String),
    /// Reading or writing the protocol failed.
    Stdio(io::Error),
    /// The client broke MCP's handshake (`--mcp`), as the SDK judges it.
    Handshake(String),
}

/// Serves `input` until it ends, answering on `output`; the number of the
/// signal that stopped it instead, if one did.
fn run(
    args: Args,
    input: Box<dyn BufRead + Send>,
    output: Box<dyn Write + Send>,
) -> Result<Option<i32>, Failure> {
    // One thread for the dispatcher and the session workers, which only
    // route; the tools run on the blocking pool, so sessions still run in
    // parallel.
    // IO only for the stopping signals (`signals.rs`).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .map_err(|e| Failure::Start(format!("could not start the runtime: {e}")))?;
    let (outbound, writer) = Outbound::start(output);
    let mut server = Server::new(outbound);
    if let Some(root) = &args.root {
        let _entered = runtime.enter();
        server
            .open_implicit(root, args.implicit_config())
            .map_err(|e| Failure::Start(format!("--root {}: {e}", root.display())))?;
    }
    let (messages, inbound) = mpsc::channel(256);
    let permits = Arc::new(Semaphore::new(MAX_IN_FLIGHT));
    let handle = runtime.handle().clone();
    let max = args.max_request_bytes;
    let reader = std::thread::Builder::new()
        .name("toolpass-reader".into())
        .spawn(move || read(input, max, &messages, &permits, &handle))
        .map_err(|e| Failure::Start(format!("could not start the reader: {e}")))?;
    let signalled = runtime.block_on(server.serve(inbound));
    if signalled.is_some() {
        // The reader may be blocked on input that never comes: it is left
        // to the process's exit. The replies queued are still written.
        return writer.finish().map(|()| signalled).map_err(Failure::Stdio);
    }
    let read = reader
        .join()
        .unwrap_or_else(|_| Err(io::Error::other("the reader thread panicked")));
    // Every reply is queued by now; the writer ends once it has written
    // them.
    let written = writer.finish();
    read.and(written).map(|()| None).map_err(Failure::Stdio)
}

/// The reader thread: reads messages until end of input and hands them to
/// the dispatcher. A line longer than `max_request_bytes` is answered with
/// an error naming the limit and [`MAX_REQUEST_FLAG`]; the reader has
/// already read past it.
fn read(
    mut input: Box<dyn BufRead + Send>,
    max_request_bytes: usize,
    messages: &mpsc::Sender<Inbound>,
    permits: &Arc<Semaphore>,
    runtime: &tokio::runtime::Handle,
) -> io::Result<()> {
    loop {
        let inbound = match read_message_limited(&mut input, max_request_bytes) {
            Ok(None) => return Ok(()),
            Ok(Some(message)) => {
                // Only requests are answered, so only they hold a permit.
                let permit = match &message {
                    Message::Request(_) => {
                        runtime.block_on(Arc::clone(permits).acquire_owned()).ok()
                    }
                    _ => None,
                };
                Inbound::Message(message, permit)
            }
            Err(error) => {
                tracing::warn!("unreadable line: {error}");
                match error.response_error() {
                    Some(reply) if error.kind() == ReadErrorKind::TooLong => {
                        Inbound::Unreadable(None, too_large(reply))
                    }
                    Some(reply) => Inbound::Unreadable(error.id().cloned(), reply),
                    // The input itself failed (not a bad line): stop.
                    None => return Err(io::Error::other(error.to_string())),
                }
            }
        };
        if messages.blocking_send(inbound).is_err() {
            // The dispatcher is gone; nobody would answer.
            return Ok(());
        }
    }
}

fn parse_args(args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut parsed = Args {
        mode: Mode::Toolpass,
        root: None,
        deferred: None,
        max_request_bytes: DEFAULT_MAX_LINE_BYTES,
        help: false,
    };
    let mut args = args;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--mcp" => parsed.mode = Mode::Mcp,
            "--root" => {
                parsed.root = Some(PathBuf::from(
                    args.next().ok_or("--root needs a directory")?,
                ));
            }
            "--deferred-tools" => {
                let value = args
                    .next()
                    .ok_or("--deferred-tools needs reveal or proxy")?;
                parsed.deferred = Some(match value.as_str() {
                    "reveal" => DeferredModel::Reveal,
                    "proxy" => DeferredModel::Proxy,
                    _ => {
                        return Err(format!(
                            "--deferred-tools {value:?}: expected reveal or proxy"
                        ));
                    }
                });
            }
            MAX_REQUEST_FLAG => {
                let value = args
                    .next()
                    .ok_or(format!("{MAX_REQUEST_FLAG} needs a number of bytes"))?;
                parsed.max_request_bytes = match value.parse::<usize>() {
                    Ok(n) if n > 0 => n,
                    _ => {
                        return Err(format!(
                            "{MAX_REQUEST_FLAG} {value:?}: expected a whole number of bytes from 1"
                        ));
                    }
                };
            }
            "-h" | "--help" => parsed.help = true,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if parsed.mode == Mode::Mcp && parsed.root.is_none() && !parsed.help {
        return Err("--mcp needs --root: a plain MCP client opens no session".to_owned());
    }
    Ok(parsed)
}

/// The answer to an overlong request: what the protocol says (the limit,
/// also in its data) and the flag that sets it, which only the server knows.
fn too_large(reply: ResponseError) -> ResponseError {
    ResponseError {
        message: format!(
            "{}; this server's limit is set with {MAX_REQUEST_FLAG}",
            reply.message
        ),
        ..reply
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Args, String> {
        parse_args(args.iter().map(|a| (*a).to_owned()))
    }

    #[test]
    fn the_request_limit_defaults_to_64_mib_and_takes_a_byte_count() {
        assert_eq!(parse(&[]).unwrap().max_request_bytes, 64 << 20);
        let args = parse(&["--max-request-bytes", "1024"]).unwrap();
        assert_eq!(args.max_request_bytes, 1024);
        for bad in ["0", "-1", "64MiB", ""] {
            let error = parse(&["--max-request-bytes", bad]).unwrap_err();
            assert!(error.contains("--max-request-bytes"), "{error}");
        }
        assert!(parse(&["--max-request-bytes"]).is_err());
    }

    #[test]
    fn the_deferred_model_is_reveal_for_mcp_and_proxy_otherwise_unless_given() {
        let model = |args: &[&str]| parse(args).unwrap().implicit_config().deferred_model;
        assert_eq!(model(&["--mcp", "--root", "/r"]), DeferredModel::Reveal);
        assert_eq!(model(&["--root", "/r"]), DeferredModel::Proxy);
        let proxy = ["--mcp", "--root", "/r", "--deferred-tools", "proxy"];
        assert_eq!(model(&proxy), DeferredModel::Proxy);
        assert_eq!(
            model(&["--deferred-tools", "reveal"]),
            DeferredModel::Reveal
        );
        for bad in [
            &["--deferred-tools", "eager"][..],
            &["--deferred-tools"][..],
        ] {
            let error = parse(bad).unwrap_err();
            assert!(error.contains("--deferred-tools"), "{error}");
        }
    }

    #[test]
    fn help_names_every_flag_and_the_default_limit() {
        assert!(parse(&["--help"]).unwrap().help);
        assert!(parse(&["--mcp", "-h"]).unwrap().help);
        let text = help();
        for flag in [
            "--root",
            "--mcp",
            "--deferred-tools",
            "--max-request-bytes",
            "67108864",
            "--help",
        ] {
            assert!(text.contains(flag), "--help lacks {flag}");
        }
    }
}
