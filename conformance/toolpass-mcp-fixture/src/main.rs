//! `toolpass-mcp-fixture`: the MCP server scenarios start through a
//! session's `mcpServers` to judge an implementation's MCP client, built on
//! the official Rust SDK's server side (`rmcp`) over stdio.
//!
//! It offers notes tools acting on `--dir` (the working directory when not
//! given; an `mcpServers` entry's `cwd` defaults to the session root), with
//! and without `readOnlyHint`; a 600 000-character output; a tool that
//! reports progress; one that makes the process exit mid-call; one that
//! never answers; one whose `inputSchema` is not valid JSON Schema; a tool
//! name long enough to need `generateValidName`'s `___` cut; a text and a
//! blob resource; and two prompts. `--never-initialize` and
//! `--invalid-json` make it a broken server instead. Everything it answers
//! is a function of the request and the notes directory.

mod calls;
mod catalog;
mod extras;
mod hostile;
mod large;
mod many;
mod notes;
mod server;

use std::path::PathBuf;

use anyhow::Context as _;
use clap::Parser;
use rmcp::ServiceExt as _;

/// The command line.
#[derive(Debug, Parser)]
#[command(
    version,
    about = "The MCP server toolpass scenarios start to judge MCP clients."
)]
struct Args {
    /// The directory the notes tools read and write; nothing outside it is
    /// reached. Relative to the working directory.
    #[arg(long, default_value = ".")]
    dir: PathBuf,
    /// Read every line and never answer, `initialize` included.
    #[arg(long, conflicts_with = "invalid_json")]
    never_initialize: bool,
    /// Answer every line, `initialize` included, with a line that is not JSON.
    #[arg(long)]
    invalid_json: bool,
    /// A hostile catalogue on top of the usual one (see [`server::Mode`]).
    #[arg(long, value_enum, default_value_t = server::Mode::Plain)]
    mode: server::Mode,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    if args.never_initialize {
        return hostile::never_initialize(std::io::stdin().lock()).context("read stdin");
    }
    if args.invalid_json {
        return hostile::invalid_json(std::io::stdin().lock(), std::io::stdout().lock())
            .context("answer with lines that are not JSON");
    }
    if args.mode == server::Mode::BadSchemas {
        return hostile::bad_schemas(std::io::stdin().lock(), std::io::stdout().lock())
            .context("serve the tools with bad schemas");
    }
    let notes = notes::Notes::open(&args.dir)?;
    // One thread: the fixture does no work worth a pool, and a single
    // thread keeps the order of what it writes that of what it does.
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("start the runtime")?
        .block_on(serve(server::Fixture::new(notes, args.mode)))
}

/// Serves MCP on stdin and stdout until the client goes away.
async fn serve(fixture: server::Fixture) -> anyhow::Result<()> {
    let running = fixture
        .serve(rmcp::transport::stdio())
        .await
        .context("the MCP handshake on stdio")?;
    running.waiting().await.context("serve MCP")?;
    Ok(())
}
