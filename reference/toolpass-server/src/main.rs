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
//! ```

mod convert;
mod server;

use std::io::{self, BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use toolpass_protocol::{read_message, write_message};

use crate::server::{Mode, Server, unreadable};

const USAGE: &str = "usage: toolpass-server [--mcp] [--root DIR]";

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    let (mode, root) = match parse_args(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            tracing::error!("{message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let mut server = Server::new(mode);
    if let Some(root) = root
        && let Err(e) = server.open_implicit(&root)
    {
        tracing::error!("--root {}: {e}", root.display());
        return ExitCode::from(2);
    }
    match serve(
        &mut server,
        &mut io::stdin().lock(),
        &mut io::stdout().lock(),
    ) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("stdio failed: {e}");
            ExitCode::FAILURE
        }
    }
}

fn parse_args(args: impl Iterator<Item = String>) -> Result<(Mode, Option<PathBuf>), String> {
    let mut mode = Mode::Toolpass;
    let mut root = None;
    let mut args = args;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--mcp" => mode = Mode::Mcp,
            "--root" => {
                root = Some(PathBuf::from(
                    args.next().ok_or("--root needs a directory")?,
                ))
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if mode == Mode::Mcp && root.is_none() {
        return Err("--mcp needs --root: a plain MCP client opens no session".to_owned());
    }
    Ok((mode, root))
}

/// Reads messages until end of input and answers each one.
fn serve(server: &mut Server, input: &mut dyn BufRead, output: &mut dyn Write) -> io::Result<()> {
    loop {
        let reply = match read_message(input) {
            Ok(None) => return Ok(()),
            Ok(Some(message)) => server.handle(message),
            Err(error) => {
                tracing::warn!("unreadable line: {error}");
                match error.response_error() {
                    Some(reply) => Some(unreadable(reply)),
                    // The input itself failed (not a bad line): stop.
                    None => return Err(io::Error::other(error.to_string())),
                }
            }
        };
        if let Some(reply) = reply {
            write_message(output, &reply)?;
        }
    }
}
