//! Background shells through the registry: notices, the one-shot states,
//! `task_stop`, retention, and nothing left running after close or drop.

mod common;

use std::path::Path;
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, SystemTime};

use common::{is_dead, read_pid};
use toolpass_shell::Request;
use toolpass_shell::background::{
    MAX_RETAINED_TERMINAL_SHELLS, Notification, Registry, Status, status_file,
};

/// Generous: a loaded 2-core machine may be slow, never this slow.
const PATIENCE: Duration = Duration::from_secs(60);

fn request(command: &str, dir: &Path) -> Request {
    Request {
        command: command.to_owned(),
        directory: dir.to_owned(),
        context: Vec::new(),
    }
}

fn registry_with_notices(dir: &Path) -> (Registry, Receiver<Notification>) {
    let registry = Registry::new(dir.join("shells"));
    let (tx, rx) = channel();
    registry.set_notice_sink(move |n| tx.send(n).unwrap_or(()));
    (registry, rx)
}

/// A FIFO the command writes a pid to: reading it waits for the command,
/// with no sleep.
fn fifo(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&path)
        .status()
        .unwrap();
    assert!(made.success());
    path
}

#[test]
fn a_finished_shell_notifies_with_its_output_tail_and_status_file() {
    let dir = tempfile::tempdir().unwrap();
    let (registry, notices) = registry_with_notices(dir.path());
    let launch = registry
        .start(&request("printf 'hi \\033[31mred\\033[0m\\n'", dir.path()))
        .unwrap();
    assert!(
        launch.id.starts_with("bg_") && launch.id.len() == 11,
        "{}",
        launch.id
    );
    assert!(
        launch
            .model_text
            .starts_with(&format!("Background shell started.\nid: {}\n", launch.id))
    );
    let notice = notices.recv_timeout(PATIENCE).unwrap();
    assert_eq!(
        notice.display,
        "Background shell \"printf 'hi \\033[31mred\\033[0m\\n'\" completed."
    );
    assert!(
        notice.text.contains("<status>completed</status>"),
        "{}",
        notice.text
    );
    assert!(notice.text.contains("<exit-code>0</exit-code>"));
    assert!(
        notice
            .text
            .contains("<output-tail truncated=\"false\">hi red</output-tail>"),
        "{}",
        notice.text
    );
    assert_eq!(
        std::fs::read_to_string(&launch.output_file).unwrap(),
        "hi red\n"
    );
    let status = std::fs::read_to_string(status_file::path_for(&launch.output_file)).unwrap();
    assert!(status.contains("\"status\": \"completed\""), "{status}");
    assert!(status.contains("\"exitCode\": 0"), "{status}");
    let shell = registry.get(&launch.id).unwrap();
    assert_eq!(
        (shell.status, shell.exit_code),
        (Status::Completed, Some(0))
    );
}

#[test]
fn a_failing_shell_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let (registry, notices) = registry_with_notices(dir.path());
    registry
        .start(&request("echo bad >&2; exit 4", dir.path()))
        .unwrap();
    let notice = notices.recv_timeout(PATIENCE).unwrap();
    assert!(notice.text.contains("<status>failed</status>"));
    assert!(notice.text.contains("<result>exited with code 4</result>"));
    assert!(notice.text.contains(">bad</output-tail>"));
}

#[test]
fn late_transitions_change_nothing_and_notify_once() {
    let dir = tempfile::tempdir().unwrap();
    let (registry, notices) = registry_with_notices(dir.path());
    let launch = registry.start(&request("sleep 1000", dir.path())).unwrap();
    registry.cancel(&launch.id, SystemTime::now());
    // The shell's own end arrives later, and so may anything else.
    registry.complete(&launch.id, 0, SystemTime::now());
    registry.fail(&launch.id, "late", SystemTime::now());
    let shell = registry.wait(&launch.id, PATIENCE).unwrap();
    assert_eq!(
        (shell.status, shell.exit_code, shell.error),
        (Status::Cancelled, None, None)
    );
    registry.close();
    let got: Vec<Notification> = notices.try_iter().collect();
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(got[0].display.ends_with("was cancelled."));
    assert!(is_dead(launch.pid.unwrap()));
}

#[test]
fn task_stop_ends_a_wrapper_and_what_it_started_and_refuses_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = fifo(dir.path());
    let (registry, notices) = registry_with_notices(dir.path());
    // An `npx`-style wrapper: its server runs in a session of its own.
    let command = format!("setsid sleep 1000 & echo $! > {}; wait", fifo.display());
    let launch = registry.start(&request(&command, dir.path())).unwrap();
    let server = read_pid(&fifo);
    let reply = registry.stop(&launch.id);
    assert!(reply.error.is_none());
    assert!(reply.model_text.starts_with(&format!(
        "Cancellation requested for background shell \"{}\".",
        launch.id
    )));
    let notice = notices.recv_timeout(PATIENCE).unwrap();
    assert!(notice.text.contains("<status>cancelled</status>"));
    assert!(is_dead(launch.pid.unwrap()), "the wrapper survived");
    assert!(is_dead(server), "the server it started survived");
    let again = registry.stop(&launch.id);
    assert_eq!(
        again.model_text,
        format!(
            "Error: Background shell \"{}\" is not running (status: cancelled).",
            launch.id
        )
    );
    assert!(
        registry
            .stop("bg_nothing")
            .model_text
            .starts_with("Error: No background task found")
    );
}

#[test]
fn notices_wait_for_a_sink() {
    let dir = tempfile::tempdir().unwrap();
    let registry = Registry::new(dir.path().join("shells"));
    let launch = registry.start(&request("echo early", dir.path())).unwrap();
    assert_eq!(
        registry.wait(&launch.id, PATIENCE).unwrap().status,
        Status::Completed
    );
    let (tx, rx) = channel();
    registry.set_notice_sink(move |n| tx.send(n).unwrap_or(()));
    let notice = rx.try_recv().unwrap();
    assert!(notice.text.contains(">early</output-tail>"));
    registry.set_notice_sink(|_| {});
    assert!(rx.try_recv().is_err(), "sent twice");
}

#[test]
fn only_the_newest_ended_shells_are_retained() {
    let dir = tempfile::tempdir().unwrap();
    let registry = Registry::new(dir.path().join("shells"));
    let running = registry.start(&request("sleep 1000", dir.path())).unwrap();
    let mut launches = Vec::new();
    for _ in 0..MAX_RETAINED_TERMINAL_SHELLS + 2 {
        let launch = registry.start(&request("true", dir.path())).unwrap();
        assert_eq!(
            registry.wait(&launch.id, PATIENCE).unwrap().status,
            Status::Completed
        );
        launches.push(launch);
    }
    let ids: Vec<&String> = launches.iter().map(|l| &l.id).collect();
    let kept: Vec<String> = registry.list().into_iter().map(|s| s.id).collect();
    assert_eq!(kept.len(), MAX_RETAINED_TERMINAL_SHELLS + 1);
    assert!(
        kept.contains(&running.id),
        "a running shell is never evicted"
    );
    assert!(!kept.contains(ids[0]) && !kept.contains(ids[1]));
    assert!(kept.contains(ids[2]));
    for (n, launch) in launches.iter().enumerate() {
        let files = [&launch.output_file, &launch.status_file];
        let present = files.map(|f| f.exists());
        assert_eq!(
            present,
            [n >= 2; 2],
            "shell {n}: an evicted shell's files are removed, a kept one's stay"
        );
    }
}

#[test]
fn nothing_survives_dropping_the_registry_not_even_a_daemon() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = fifo(dir.path());
    let registry = Registry::new(dir.path().join("shells"));
    // A double fork into a new session: the daemon's parent exits at once,
    // so only the environment mark ties it to the shell.
    let command = format!(
        "(setsid sh -c 'sleep 1000 </dev/null >/dev/null 2>&1 & echo $! > {}' &); sleep 1000",
        fifo.display()
    );
    let launch = registry.start(&request(&command, dir.path())).unwrap();
    let daemon = read_pid(&fifo);
    assert!(!is_dead(daemon));
    drop(registry);
    assert!(is_dead(launch.pid.unwrap()), "the shell survived");
    assert!(is_dead(daemon), "the daemon survived");
}

#[test]
fn a_closed_registry_starts_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let registry = Registry::new(dir.path().join("shells"));
    registry.close();
    let err = registry.start(&request("true", dir.path())).unwrap_err();
    assert_eq!(err.to_string(), "the background shell registry is closed");
}

/// A background shell's output file is written as the output arrives, so
/// a long output is there whole, its middle too (no head-and-tail cut).
#[test]
fn a_long_output_reaches_the_output_file_whole() {
    let dir = tempfile::tempdir().unwrap();
    let (registry, notices) = registry_with_notices(dir.path());
    let launch = registry
        .start(&request("seq -f 'line-%06g' 1 300000", dir.path()))
        .unwrap();
    let notice = notices.recv_timeout(PATIENCE).unwrap();
    assert!(notice.text.contains("<status>completed</status>"));
    let text = std::fs::read_to_string(&launch.output_file).unwrap();
    assert_eq!(text.len(), 300_000 * "line-000000\n".len());
    assert!(text.contains("\nline-150000\n"));
}

#[test]
fn starts_past_the_running_cap_are_refused_and_ended_shells_free_a_place() {
    use toolpass_shell::RunError;
    use toolpass_shell::background::MAX_RUNNING_SHELLS;
    let dir = tempfile::tempdir().unwrap();
    let (registry, notices) = registry_with_notices(dir.path());
    let ids: Vec<String> = (0..MAX_RUNNING_SHELLS)
        .map(|_| registry.start(&request("sleep 60", dir.path())).unwrap().id)
        .collect();
    let refused = registry
        .start(&request("sleep 60", dir.path()))
        .unwrap_err();
    assert!(
        matches!(refused, RunError::TooManyShells { cap } if cap == MAX_RUNNING_SHELLS),
        "{refused:?}"
    );
    let message = refused.to_string();
    assert!(message.contains(&MAX_RUNNING_SHELLS.to_string()) && message.contains("task_stop"));
    let _ = registry.stop(&ids[0]);
    let ended = notices.recv_timeout(PATIENCE).unwrap();
    assert_eq!(ended.id, ids[0]);
    registry
        .start(&request("true", dir.path()))
        .expect("an ended shell frees its place");
}
