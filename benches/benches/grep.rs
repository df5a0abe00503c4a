//! The grep tool's search against the real thing: `rg`, `git grep
//! --no-index` and GNU `grep -r`, on one corpus, in one run, interleaved.
//!
//! Not criterion: four external processes and one in-process search are
//! timed round-robin so that cache state and machine noise hit them alike.
//! Round 0 is a warm-up and is discarded; the rotation changes each round
//! so no tool always runs right after the same other one.
//!
//! ```text
//! just bench-grep                      # or:
//! RG=/path/to/rg GREP_ROUNDS=5 GREP_CORPUS=~/.cargo/registry/src \
//!     cargo bench -p toolpass-benches --bench grep
//! ```
//!
//! Measured: `core` is `Search::run` plus rendering every match in Qwen's
//! format without the character budget (the tool's code path minus its
//! cut); `tool` is the whole `grep_search` call through a session (walk,
//! search, render with the 25 000-character budget, read-cache records).
//! The externals write `-n` output to a pipe that is read to the end.

#![allow(clippy::print_stdout, reason = "a benchmark report")]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use toolpass_tools::sandbox::Sandbox;
use toolpass_tools::session::{Session, SessionConfig};
use toolpass_tools::tool::{Declared, Tool};
use toolpass_tools::tools::grep_search::GrepTool;
use toolpass_tools::tools::grep_search::render::{Budget, render};
use toolpass_tools::tools::grep_search::search::{Search, Strategy};

/// The pattern of the README's grep figures, given to the externals
/// with `-w`.
const PATTERN: &str = "[A-Z]+_SUSPEND|fn try_reserve";

/// The same search for the tool, which has no `-w`: word boundaries (the
/// ASCII-only `(?-u:\b)` is not a pattern Qwen would accept).
const TOOL_PATTERN: &str = r"\b(?:[A-Z]+_SUSPEND|fn try_reserve)\b";

struct Contender {
    name: &'static str,
    run: Box<dyn Fn() -> usize>,
    times: Vec<Duration>,
    lines: usize,
}

fn main() {
    // `cargo bench` passes `--bench`; a filter naming another bench skips this one.
    if std::env::args()
        .skip(1)
        .any(|a| !a.starts_with('-') && !"grep".contains(&*a))
    {
        return;
    }
    let corpus = std::env::var_os("GREP_CORPUS").map_or_else(default_corpus, PathBuf::from);
    let rg = std::env::var("RG").unwrap_or_else(|_| "rg".to_owned());
    let rounds: usize = std::env::var("GREP_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    if !corpus.is_dir() {
        println!(
            "grep bench: no corpus at {} (run `cargo fetch`)",
            corpus.display()
        );
        return;
    }
    println!(
        "grep bench: corpus {}, pattern -w '{PATTERN}', {rounds} rounds after a warm-up",
        corpus.display()
    );

    let mut contenders = contenders(&corpus, &rg);
    for round in 0..=rounds {
        let n = contenders.len();
        for k in 0..n {
            let c = &mut contenders[(k + round) % n];
            let start = Instant::now();
            let lines = (c.run)();
            let elapsed = start.elapsed();
            if round > 0 {
                c.times.push(elapsed);
            }
            c.lines = lines;
        }
    }
    report(&mut contenders);
}

fn default_corpus() -> PathBuf {
    let home = std::env::var_os("CARGO_HOME").map_or_else(
        || PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cargo"),
        PathBuf::from,
    );
    home.join("registry/src")
}

fn contenders(corpus: &Path, rg: &str) -> Vec<Contender> {
    let contender = |name, run: Box<dyn Fn() -> usize>| Contender {
        name,
        run,
        times: Vec::new(),
        lines: 0,
    };
    let dir = corpus.to_path_buf();
    let core = {
        let dir = dir.clone();
        move || {
            let search = Search::new(TOOL_PATTERN, None, Strategy::for_dir(&dir))
                .expect("the bench pattern compiles");
            let sandbox = Sandbox::new(&dir).expect("a sandbox over the corpus");
            let files = search
                .run(&sandbox, sandbox.root())
                .expect("the corpus opens");
            let out = render(
                TOOL_PATTERN,
                "in the workspace directory",
                None,
                &files,
                Budget::UNLIMITED,
            );
            out.llm_content
                .lines()
                .filter(|l| l.starts_with('L'))
                .count()
        }
    };
    let tool = {
        let dir = dir.clone();
        move || {
            let session = Session::new(
                &dir,
                SessionConfig::default(),
                [Arc::new(Declared::<GrepTool>::default()) as Arc<dyn Tool>],
            )
            .expect("a session");
            let tool = session
                .registry()
                .get("grep_search")
                .expect("registered")
                .clone();
            let result = tool
                .build(&json!({ "pattern": TOOL_PATTERN }), &session)
                .expect("a valid call")
                .execute(
                    &session,
                    &toolpass_tools::context::InvocationContext::detached(),
                )
                .expect("the search ran");
            // "Found N matches ...": all of them, though the text is cut.
            result
                .llm_content
                .split_whitespace()
                .nth(1)
                .and_then(|n| n.parse().ok())
                .unwrap_or(0)
        }
    };
    let rg_cmd = {
        let (dir, rg) = (dir.clone(), rg.to_owned());
        move || {
            external(
                Command::new(&rg)
                    .args(["-n", "-w", "-e", PATTERN])
                    .arg(&dir),
            )
        }
    };
    let grep_cmd = {
        let dir = dir.clone();
        move || {
            external(
                Command::new("grep")
                    .args(["-rn", "-E", "-w", "-e", PATTERN])
                    .arg(&dir),
            )
        }
    };
    let git_cmd = move || {
        external(
            Command::new("git")
                .args(["grep", "--no-index", "-n", "-E", "-w", "-e", PATTERN])
                .current_dir(&dir),
        )
    };
    vec![
        contender("grep_search core", Box::new(core)),
        contender("grep_search tool", Box::new(tool)),
        contender("rg", Box::new(rg_cmd)),
        contender("grep -rn -E", Box::new(grep_cmd)),
        contender("git grep --no-index", Box::new(git_cmd)),
    ]
}

/// Runs `cmd`, reads its standard output to the end and counts the lines.
fn external(cmd: &mut Command) -> usize {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let mut out = Vec::new();
    if let Some(mut stdout) = child.stdout.take() {
        std::io::Read::read_to_end(&mut stdout, &mut out).expect("reading the output");
    }
    child.wait().expect("the child exits");
    out.iter().filter(|&&b| b == b'\n').count()
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times.get(times.len() / 2).copied().unwrap_or_default()
}

fn report(contenders: &mut [Contender]) {
    let rg = contenders
        .iter_mut()
        .find(|c| c.name == "rg")
        .map(|c| median(&mut c.times))
        .unwrap_or_default();
    println!(
        "{:<22} {:>10} {:>10} {:>9} {:>8}",
        "", "median s", "min s", "vs rg", "lines"
    );
    for c in contenders.iter_mut() {
        let med = median(&mut c.times);
        let min = c.times.first().copied().unwrap_or_default();
        println!(
            "{:<22} {:>10.3} {:>10.3} {:>8.2}x {:>8}",
            c.name,
            med.as_secs_f64(),
            min.as_secs_f64(),
            med.as_secs_f64() / rg.as_secs_f64().max(f64::MIN_POSITIVE),
            c.lines
        );
    }
}
