//! The runner binary's own lifetime against the misbehaving server: a
//! SIGTERM (a cancelled CI job) stops it with no implementation and no
//! sandbox left behind, and a descendant that left the implementation's
//! process group does not outlive the run.
//!
//! Each test starts the runner binary with its temporary directory (where
//! the sandboxes go) inside the test's own, and signals nothing but that
//! runner; the server records the pids it is and starts in a file there.

use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

use crate::assert_gone;
use crate::misbehave::{BEHAVIOUR_ENV, PIDS_ENV};

/// A runner of the scenario `steps` against the server acting as
/// `behaviour`, in `dir`: scenarios under `dir/scenarios`, `TMPDIR` at
/// `dir/tmp`, the pids file at `dir/pids`.
fn runner(dir: &Path, behaviour: &str, steps: &str) -> Child {
    let scenarios = dir.join("scenarios");
    std::fs::create_dir_all(&scenarios).unwrap();
    std::fs::create_dir_all(dir.join("tmp")).unwrap();
    // The runner binary holds scenarios to SPEC.md: any MUST clause will do.
    let scenario = format!("title: t\nspec: tools.declarations\nsteps:\n{steps}");
    std::fs::write(scenarios.join("one.yaml"), scenario).unwrap();
    let server = std::env::current_exe().unwrap();
    // A std `Command`, not `assert_cmd`'s: the test signals the runner
    // while it runs and reads its pipes afterwards, where `assert_cmd` runs
    // a program to its end before anything can be judged.
    Command::new(env!("CARGO_BIN_EXE_toolpass"))
        .arg("run")
        .arg("--impl")
        .arg(server)
        .arg("--scenarios")
        .arg(&scenarios)
        .args(["--jobs", "1", "--timeout", "600"])
        .env("TMPDIR", dir.join("tmp"))
        .env(BEHAVIOUR_ENV, behaviour)
        .env(PIDS_ENV, dir.join("pids"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the runner")
}

/// The pids the server recorded as `what`.
fn recorded(dir: &Path, what: &str) -> Vec<u32> {
    let text = std::fs::read_to_string(dir.join("pids")).unwrap_or_default();
    text.lines()
        .filter_map(|line| line.strip_prefix(what)?.trim().parse().ok())
        .collect()
}

/// Waits for the runner to exit; kills it (it is this test's) and fails
/// when it takes over a minute.
async fn exit_of(runner: &mut Child) -> ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if let Some(status) = runner.try_wait().unwrap() {
            return status;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    runner.kill().unwrap();
    runner.wait().unwrap();
    panic!("the runner did not exit within a minute");
}

fn stderr_of(runner: &mut Child) -> String {
    let mut text = String::new();
    if let Some(mut stderr) = runner.stderr.take() {
        std::io::Read::read_to_string(&mut stderr, &mut text).unwrap();
    }
    text
}

pub(crate) async fn sigterm_stops_a_run_and_leaves_no_implementation_or_sandbox() {
    let dir = tempfile::tempdir().unwrap();
    // The server hangs on the first call, with a grandchild in its group.
    let mut runner = runner(dir.path(), "hang:1", "  - call: ping\n");
    let deadline = Instant::now() + Duration::from_secs(120);
    while recorded(dir.path(), "grandchild").is_empty() {
        assert!(Instant::now() < deadline, "the server never hung");
        assert!(runner.try_wait().unwrap().is_none(), "the runner ended");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let pid = Pid::from_raw(i32::try_from(runner.id()).unwrap()).unwrap();
    rustix::process::kill_process(pid, Signal::TERM).unwrap();
    let status = exit_of(&mut runner).await;
    let stderr = stderr_of(&mut runner);
    assert_eq!(
        status.code(),
        Some(128 + Signal::TERM.as_raw()),
        "{status:?}: {stderr}"
    );
    assert!(stderr.contains("stopped by SIGTERM"), "{stderr}");
    let pids = [
        recorded(dir.path(), "server"),
        recorded(dir.path(), "grandchild"),
    ]
    .concat();
    assert!(
        pids.len() >= 3,
        "the probe, the worker, the grandchild: {pids:?}"
    );
    for pid in pids {
        assert_gone(pid).await;
    }
    let left: Vec<_> = std::fs::read_dir(dir.path().join("tmp"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "left in the temporary directory: {left:?}");
}

pub(crate) async fn a_descendant_that_left_the_process_group_does_not_outlive_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let mut runner = runner(
        dir.path(),
        "well",
        "  - call: escape\n    expect: {status: success}\n",
    );
    let status = exit_of(&mut runner).await;
    let stderr = stderr_of(&mut runner);
    assert!(status.success(), "{status:?}: {stderr}");
    let escaped = recorded(dir.path(), "escaped");
    assert_eq!(escaped.len(), 1, "{stderr}");
    for pid in escaped {
        assert_gone(pid).await;
    }
}
