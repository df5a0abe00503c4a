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
//! ```
//!
//! Requests are bounded (64 MiB by default): a longer line is answered with
//! a JSON-RPC error naming the limit and the flag, read past without being
//! held, and the next line is served as usual.

mod convert;
mod server;

use std::io::{self, BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use toolpass_protocol::{
    DEFAULT_MAX_LINE_BYTES, ReadErrorKind, ResponseError, read_message_limited,
};

use crate::server::{Mode, Server, unreadable};

const USAGE: &str = "usage: toolpass-server [--mcp] [--root DIR] [--max-request-bytes N]";

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
  --mcp                    pose as a plain MCP stdio server (needs --root)
  {MAX_REQUEST_FLAG} N    refuse a request line longer than N bytes with a
                           JSON-RPC error (-32600) and serve the next one; no
                           more than about N bytes of a line are held at once
                           [default: {DEFAULT_MAX_LINE_BYTES} (64 MiB)]
  -h, --help               print this help

Logs go to stderr (RUST_LOG=debug for more); stdout carries protocol lines only."
    )
}

/// What the command line asks for.
#[derive(Debug, PartialEq)]
struct Args {
    mode: Mode,
    root: Option<PathBuf>,
    max_request_bytes: usize,
    help: bool,
}

fn main() -> ExitCode {
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
    let mut server = Server::new(args.mode);
    if let Some(root) = args.root
        && let Err(e) = server.open_implicit(&root)
    {
        tracing::error!("--root {}: {e}", root.display());
        return ExitCode::from(2);
    }
    match serve(
        &mut server,
        &mut io::stdin().lock(),
        &mut io::stdout().lock(),
        args.max_request_bytes,
    ) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("stdio failed: {e}");
            ExitCode::FAILURE
        }
    }
}

fn parse_args(args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut parsed = Args {
        mode: Mode::Toolpass,
        root: None,
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

/// Reads messages until end of input and answers each one. A line longer
/// than `max_request_bytes` is answered with an error naming the limit and
/// [`MAX_REQUEST_FLAG`]; the reader has already read past it.
fn serve(
    server: &mut Server,
    input: &mut dyn BufRead,
    output: &mut dyn Write,
    max_request_bytes: usize,
) -> io::Result<()> {
    loop {
        let reply = match read_message_limited(input, max_request_bytes) {
            Ok(None) => return Ok(()),
            Ok(Some(message)) => server.handle(message),
            Err(error) => {
                tracing::warn!("unreadable line: {error}");
                let reply = match error.response_error() {
                    Some(reply) if error.kind() == ReadErrorKind::TooLong => too_large(reply),
                    Some(reply) => reply,
                    // The input itself failed (not a bad line): stop.
                    None => return Err(io::Error::other(error.to_string())),
                };
                Some(unreadable(reply))
            }
        };
        if let Some(reply) = reply {
            reply.write(output)?;
        }
    }
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
    fn help_names_every_flag_and_the_default_limit() {
        assert!(parse(&["--help"]).unwrap().help);
        assert!(parse(&["--mcp", "-h"]).unwrap().help);
        let text = help();
        for flag in [
            "--root",
            "--mcp",
            "--max-request-bytes",
            "67108864",
            "--help",
        ] {
            assert!(text.contains(flag), "--help lacks {flag}");
        }
    }
}
