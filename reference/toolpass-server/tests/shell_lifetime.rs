//! No process a session started outlives it: a daemon started through
//! `run_shell_command` (a background shell's `setsid` child, or one a
//! foreground command leaves behind) is gone once the session is closed,
//! once the server's input ends, and once the server is sent SIGTERM, each
//! checked by pid over real toolpass/1 lines.

mod common;

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use common::{Server, sandbox, status};
use serde_json::json;

/// A command that leaves a daemon behind: a new session (`setsid`) whose
/// process writes its pid to `file` and loops for a minute at most, so a
/// survivor of a failed test ends by itself.
fn daemon(file: &str) -> String {
    format!(
        "setsid sh -c 'echo $$ > {file}; i=0; while [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); \
         done' > /dev/null 2>&1 &"
    )
}

/// The pid `file` holds once its writer has written it.
fn pid_in(file: &Path) -> u32 {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(pid) = fs::read_to_string(file)
            .ok()
            .and_then(|t| t.trim().parse().ok())
        {
            return pid;
        }
        assert!(
            Instant::now() < deadline,
            "{} was never written",
            file.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether `pid` is gone: no entry, or a zombie waiting for its reaper.
fn is_gone(pid: u32) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => {
            let state = stat[stat.rfind(')').unwrap_or(0) + 1..]
                .split_whitespace()
                .next();
            matches!(state, Some("Z" | "X"))
        }
    }
}

/// Starts a background shell whose command leaves a daemon; the daemon's
/// pid.
fn background_daemon(server: &mut Server, session: &str, root: &Path, file: &str) -> u32 {
    let command = format!("{} wait", daemon(file));
    let id = server.call(
        session,
        "bg",
        "run_shell_command",
        json!({"command": command, "is_background": true}),
    );
    let launched = server.result(id);
    assert_eq!(status(&launched), "success", "{launched}");
    pid_in(&root.join(file))
}

#[test]
fn a_foreground_commands_daemon_is_ended_when_the_command_returns() {
    let (_dir, root) = sandbox();
    let mut server = Server::start();
    let session = server.open(&root, json!({}));
    let id = server.call(
        &session,
        "fg",
        "run_shell_command",
        json!({"command": format!(
            "{} while [ ! -s fg.pid ]; do sleep 0.01; done; echo started",
            daemon("fg.pid")
        )}),
    );
    let result = server.result(id);
    assert_eq!(status(&result), "success", "{result}");
    let pid = pid_in(&root.join("fg.pid"));
    assert!(is_gone(pid), "the daemon {pid} outlived its command");
    let (exit, _) = server.finish();
    assert!(exit.success());
}

#[test]
fn closing_the_session_ends_its_background_shells_daemons() {
    let (_dir, root) = sandbox();
    let mut server = Server::start();
    let session = server.open(&root, json!({}));
    let pid = background_daemon(&mut server, &session, &root, "bg.pid");
    assert!(
        !is_gone(pid),
        "the daemon should run until the session closes"
    );
    let id = server.send("toolpass/session.close", json!({"sessionId": session}));
    server.result(id);
    assert!(is_gone(pid), "the daemon {pid} outlived its session");
    let (exit, rest) = server.finish();
    assert!(exit.success());
    assert!(
        !rest.iter().any(|l| l["method"] == "toolpass/notice"),
        "a closed session's shells end without a notice: {rest:?}"
    );
}

#[test]
fn the_end_of_input_ends_every_sessions_background_shells() {
    let (_dir, root) = sandbox();
    let mut server = Server::start();
    let first = server.open(&root, json!({}));
    let second = server.open(&root, json!({}));
    let one = background_daemon(&mut server, &first, &root, "one.pid");
    let two = background_daemon(&mut server, &second, &root, "two.pid");
    let (exit, _) = server.finish();
    assert!(exit.success());
    assert!(
        is_gone(one) && is_gone(two),
        "{one} or {two} outlived the server"
    );
}

/// The foreground command [`sigterm_ends`] expects to find running.
const RUNNING: &str = "echo $$ > fg.pid; while :; do sleep 0.05; done";

/// Sends SIGTERM to `server` while request `running` (a [`RUNNING`]
/// command at `root`) runs and a background shell's daemon `background`
/// lives; checks that the call is answered cancelled, the server exits
/// 128 + SIGTERM, and neither process is left.
fn sigterm_ends(mut server: Server, root: &Path, running: i64, background: u32) {
    let foreground = pid_in(&root.join("fg.pid"));
    let pid = rustix::process::Pid::from_raw(i32::try_from(server.child.id()).unwrap()).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    let answer = server.result(running);
    assert_eq!(status(&answer), "cancelled", "{answer}");
    let (exit, _) = server.finish();
    assert_eq!(
        exit.code(),
        Some(128 + rustix::process::Signal::TERM.as_raw()),
        "{exit}"
    );
    assert!(
        is_gone(background),
        "the background daemon {background} survived SIGTERM"
    );
    assert!(
        is_gone(foreground),
        "the running command {foreground} survived SIGTERM"
    );
}

#[test]
fn sigterm_cancels_a_running_command_and_ends_every_shell() {
    let (_dir, root) = sandbox();
    let mut server = Server::start();
    let session = server.open(&root, json!({}));
    let background = background_daemon(&mut server, &session, &root, "bg.pid");
    // A foreground command still running when the signal comes.
    let running = server.call(
        &session,
        "fg",
        "run_shell_command",
        json!({"command": RUNNING}),
    );
    sigterm_ends(server, &root, running, background);
}

#[test]
fn sigterm_in_plain_mcp_mode_cancels_the_running_command_and_ends_every_shell() {
    let (_dir, root) = sandbox();
    let mut server = Server::start_with(&["--mcp", "--root", root.to_str().unwrap()]);
    let command = format!("{} wait", daemon("bg.pid"));
    let launched = server.send(
        "tools/call",
        json!({"name": "run_shell_command",
               "arguments": {"command": command, "is_background": true}}),
    );
    assert_eq!(status(&server.result(launched)), "success");
    let background = pid_in(&root.join("bg.pid"));
    // Cancelled by the server, not the client: the SDK writes the answer.
    let running = server.send(
        "tools/call",
        json!({"name": "run_shell_command", "arguments": {"command": RUNNING}}),
    );
    sigterm_ends(server, &root, running, background);
}

/// A command that leaves a daemon by every way out: a new session, a
/// double fork (init adopts it) and an empty environment.
fn escapee(file: &str) -> String {
    format!(
        "(setsid env -i sh -c 'echo $$ > {file}; i=0; while [ $i -lt 1200 ]; do sleep 0.05; \
         i=$((i+1)); done' > /dev/null 2>&1 &); while :; do sleep 0.05; done"
    )
}

/// Whether `pid` runs in a cgroup of the server `server`'s shells: where
/// the kernel delegates none, nothing holds an escapee (ARCHITECTURE.md).
fn contained(pid: u32, server: u32) -> bool {
    fs::read_to_string(format!("/proc/{pid}/cgroup"))
        .is_ok_and(|c| c.contains(&format!("/toolpass-{server}/shell-")))
}

/// Waits up to five seconds for `pid` to go.
fn goes(pid: u32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !is_gone(pid) {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

#[test]
fn an_escapee_ends_with_its_session_and_every_shell_with_a_killed_server() {
    let (_dir, root) = sandbox();
    let mut server = Server::start();
    let server_pid = server.child.id();
    let first = server.open(&root, json!({}));
    let second = server.open(&root, json!({}));
    let start = |server: &mut Server, session: &str, file: &str| {
        let id = server.call(
            session,
            file,
            "run_shell_command",
            json!({"command": escapee(file), "is_background": true}),
        );
        assert_eq!(status(&server.result(id)), "success");
        pid_in(&root.join(file))
    };
    let closed = start(&mut server, &first, "closed.pid");
    let killed = start(&mut server, &second, "killed.pid");
    if !contained(closed, server_pid) {
        eprintln!("no cgroup v2 is delegated here: escapees are not held (skipped)");
        for pid in [closed, killed] {
            let pid = rustix::process::Pid::from_raw(i32::try_from(pid).unwrap()).unwrap();
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
        return;
    }
    let id = server.send("toolpass/session.close", json!({"sessionId": first}));
    server.result(id);
    assert!(goes(closed), "the escapee {closed} outlived its session");
    assert!(!is_gone(killed), "the other session's shell runs on");
    // kill -9: the server cleans nothing up; its watchdog does.
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    assert!(
        goes(killed),
        "the escapee {killed} outlived a killed server"
    );
}
