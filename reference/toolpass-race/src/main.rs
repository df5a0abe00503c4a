//! `toolpass-race`: attacks the reference server as a hostile workspace
//! would and counts what got through (issue 11).
//!
//! It drives the `toolpass-server` binary as a separate process over
//! toolpass/1, everything inside one temp dir of its own:
//! - swap attacks (`escape`): a thread exchanges `root/d` with a symlink to
//!   the outside while pipelined `read_file`, `grep_search`, `glob`,
//!   `list_directory`, `write_file` and `edit` calls aim at `root/d`;
//! - lost updates (`lost`): two servers editing one file, and one server
//!   editing while the harness appends;
//! - kill -9 debris (`kill9`): the server killed during a large write.
//!
//! It prints one row per attack and exits 1 when a number that must be 0 is
//! not (outside reads, writes and names; updates lost between two servers;
//! the appender's losses and debris with `--gate-appender` /
//! `--gate-debris`), 2 when the harness itself failed.
//!
//! ```text
//! just race                         # or: cargo run --release -p toolpass-race --
//! just race --only read_file --iterations 100000
//! just race --temp-dir /tmp         # on disk (the default is /dev/shm)
//! ```
//!
//! Hits are chance: the counts of one run vary several-fold with the
//! machine's load and disk. Each run draws fresh markers and a fresh temp
//! dir, removed at the end (`--keep` keeps it).

mod arena;
mod count;
mod escape;
mod kill9;
mod lost;
mod server;
mod swap;
mod table;

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::{Parser, ValueEnum};

use crate::count::Markers;
use crate::escape::Tool;
use crate::server::Budget;
use crate::table::Row;

/// Attacks the reference server (symlink swaps, concurrent writers,
/// kill -9) and counts what got through. Exit status: 0 all held, 1 a
/// number that must be 0 is not, 2 the harness failed.
#[derive(Debug, Parser)]
#[command(name = "toolpass-race", version)]
struct Args {
    /// The toolpass-server binary [default: the one beside this executable,
    /// built first by cargo when run through cargo].
    #[arg(long)]
    server: Option<PathBuf>,
    /// Attacks to run (repeatable) [default: all].
    #[arg(long, value_enum)]
    only: Vec<Attack>,
    /// Iterations per tool in each swap attack.
    #[arg(long, default_value_t = 20_000)]
    iterations: usize,
    /// Wall-time cap of each attack, in seconds.
    #[arg(long, default_value_t = 25.0)]
    seconds: f64,
    /// Edits per server in the lost-update attacks.
    #[arg(long, default_value_t = 800)]
    edits: usize,
    /// Microseconds between two appended lines.
    #[arg(long, default_value_t = 1000)]
    append_interval_us: u64,
    /// Servers killed in the kill -9 attack.
    #[arg(long, default_value_t = 20)]
    kills: usize,
    /// Size of the write each killed server makes, in MB.
    #[arg(long, default_value_t = 50)]
    write_mb: usize,
    /// Fail the run on lines the appender lost (off until the reference
    /// closes that window).
    #[arg(long)]
    gate_appender: bool,
    /// Fail the run on kill -9 debris (off until the reference cleans up).
    #[arg(long)]
    gate_debris: bool,
    /// Let the scheduler place the racing parties (by default the swapper
    /// and the server, the two editing servers, the appender and the
    /// server each get a CPU of their own: sharing one, they take turns
    /// and hits drop several-fold).
    #[arg(long)]
    no_pin: bool,
    /// Where to make the harness's temp dir [default: /dev/shm when it can
    /// be written (no fsync cost: more hits per second), else the system
    /// temp dir].
    #[arg(long)]
    temp_dir: Option<PathBuf>,
    /// Keep the temp dir.
    #[arg(long)]
    keep: bool,
}

/// One attack, by the name `--only` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Attack {
    #[value(name = "read_file")]
    ReadFile,
    #[value(name = "grep_search")]
    GrepSearch,
    #[value(name = "glob")]
    Glob,
    #[value(name = "list_directory")]
    ListDirectory,
    #[value(name = "write_file")]
    WriteFile,
    #[value(name = "edit")]
    Edit,
    #[value(name = "two-servers")]
    TwoServers,
    #[value(name = "appender")]
    Appender,
    #[value(name = "kill9")]
    Kill9,
}

impl Attack {
    const ALL: [Attack; 9] = [
        Attack::ReadFile,
        Attack::GrepSearch,
        Attack::Glob,
        Attack::ListDirectory,
        Attack::WriteFile,
        Attack::Edit,
        Attack::TwoServers,
        Attack::Appender,
        Attack::Kill9,
    ];

    /// The name `--only` takes.
    fn name(self) -> String {
        self.to_possible_value()
            .map_or_else(String::new, |v| v.get_name().to_owned())
    }

    /// The swap attack's tool, for the attacks that are one.
    fn tool(self) -> Option<Tool> {
        let tool = match self {
            Attack::ReadFile => Tool::ReadFile,
            Attack::GrepSearch => Tool::GrepSearch,
            Attack::Glob => Tool::Glob,
            Attack::ListDirectory => Tool::ListDirectory,
            Attack::WriteFile => Tool::WriteFile,
            Attack::Edit => Tool::Edit,
            Attack::TwoServers | Attack::Appender | Attack::Kill9 => return None,
        };
        Some(tool)
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(rows) => {
            let failures: Vec<String> = rows.iter().flat_map(Row::failures).collect();
            let mut report = table::render(&rows);
            report.push('\n');
            if failures.is_empty() {
                report.push_str("race: every number that must be 0 is 0\n");
            }
            for failure in &failures {
                report.push_str(&format!("FAIL {failure}\n"));
            }
            // A closed stdout (`| head`) must not turn a verdict into a panic.
            let _ = io::stdout().lock().write_all(report.as_bytes());
            if failures.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(error) => {
            let _ = writeln!(io::stderr(), "toolpass-race: {error:#}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &Args) -> Result<Vec<Row>> {
    let server = server::locate(args.server.clone())?;
    let temp = temp_dir(args.temp_dir.as_deref())?;
    progress(&format!("race: working in {}", temp.path().display()));
    // Canonical, so the roots the server is given are the paths it
    // resolves to (a TMPDIR behind a symlink would otherwise look outside).
    let parent = temp.path().canonicalize()?;
    let markers = Markers::random();
    let attacks = if args.only.is_empty() {
        Attack::ALL.to_vec()
    } else {
        args.only.clone()
    };
    let mut rows = Vec::new();
    for attack in attacks {
        let name = attack.name();
        progress(&format!("race: {name} ..."));
        let row = one(attack, args, &server, &parent, &markers)
            .with_context(|| format!("attack {name}"))?;
        progress(&format!("race: {name} done in {:.1}s", row.seconds));
        rows.push(row);
    }
    if args.keep {
        let kept = temp.keep();
        progress(&format!("race: kept {}", kept.display()));
    }
    Ok(rows)
}

fn one(
    attack: Attack,
    args: &Args,
    server: &Path,
    parent: &Path,
    markers: &Markers,
) -> Result<Row> {
    let deadline = Instant::now() + Duration::from_secs_f64(args.seconds);
    if let Some(tool) = attack.tool() {
        let settings = escape::Settings {
            server,
            parent,
            markers,
            budget: Budget {
                iterations: args.iterations,
                deadline,
            },
            pin: !args.no_pin,
        };
        return escape::attack(tool, &settings);
    }
    if attack == Attack::Kill9 {
        return kill9::attack(&kill9::Settings {
            server,
            parent,
            kills: args.kills,
            size: args.write_mb << 20,
            seconds: args.seconds,
            gate_debris: args.gate_debris,
        });
    }
    let settings = lost::Settings {
        server,
        parent,
        edits: args.edits,
        seconds: args.seconds,
        append_interval: Duration::from_micros(args.append_interval_us),
        gate_appender: args.gate_appender,
        pin: !args.no_pin,
    };
    if attack == Attack::TwoServers {
        lost::two_servers(&settings)
    } else {
        lost::appender(&settings)
    }
}

/// Where the harness works unless `--temp-dir` says: a tmpfs, where fsync
/// costs nothing, so each write's race window is a larger share of its
/// time (measured on the same reference: 55 to 116 updates lost between two
/// servers on tmpfs, 1 to 3 on disk).
const TMPFS: &str = "/dev/shm";

/// The harness's one temp dir: in `explicit`, else in [`TMPFS`] when it
/// can be written, else in the system temp dir.
fn temp_dir(explicit: Option<&Path>) -> Result<tempfile::TempDir> {
    let mut builder = tempfile::Builder::new();
    builder.prefix("toolpass-race-");
    match explicit {
        Some(dir) => builder
            .tempdir_in(dir)
            .with_context(|| format!("create a temp dir in {}", dir.display())),
        None => builder
            .tempdir_in(TMPFS)
            .or_else(|_| builder.tempdir())
            .context("create the temp dir"),
    }
}

/// A line on stderr: stdout carries only the report.
fn progress(line: &str) {
    let _ = writeln!(io::stderr(), "{line}");
}
