//! Running real commands through the runner, on a pty and on pipes.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{is_dead, read_pid};
use toolpass_shell::{
    Cancel, Connection, Ending, Options, Outcome, OutputLimits, Prefer, Request, RunError, run,
};

fn request(command: &str, directory: &Path) -> Request {
    Request {
        command: command.to_owned(),
        directory: directory.to_owned(),
        context: vec![("QWEN_CODE_SESSION_ID".into(), "test-session".into())],
    }
}

fn run_in(dir: &Path, command: &str, prefer: Prefer) -> Outcome {
    let options = Options {
        prefer,
        ..Options::default()
    };
    run(
        &request(command, dir),
        &options,
        &Cancel::new(),
        &mut |_| {},
    )
    .unwrap()
}

#[test]
fn pipes_join_stdout_then_stderr_and_report_the_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_in(dir.path(), "echo err >&2; echo out; exit 3", Prefer::Pipes);
    assert_eq!(out.connection, Connection::Pipes);
    assert_eq!(out.output, "out\nerr");
    assert_eq!(
        (out.exit_code, out.signal, out.ending),
        (Some(3), None, Ending::Exited)
    );
    assert!(out.pid > 0);
}

#[test]
fn a_pty_renders_the_terminal_and_normalises_crlf() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_in(
        dir.path(),
        "printf 'a\\nb\\n50%%\\r100%%\\n'; tty >/dev/null && echo tty",
        Prefer::Pty,
    );
    assert_eq!(out.connection, Connection::Pty);
    assert_eq!(out.output, "a\nb\n100%\ntty");
    assert_eq!(out.exit_code, Some(0));
}

#[test]
fn the_environment_is_qwens_and_the_directory_is_the_cwd() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_in(
        dir.path(),
        "echo $QWEN_CODE $TERM $PAGER $QWEN_CODE_SESSION_ID; pwd",
        Prefer::Pipes,
    );
    let real = dir.path().canonicalize().unwrap();
    assert_eq!(
        out.output,
        format!("1 xterm-256color cat test-session\n{}", real.display())
    );
    let pty = run_in(dir.path(), "echo $TERM $GIT_PAGER", Prefer::Pty);
    assert_eq!(pty.output, "xterm cat");
}

#[test]
fn auto_prefers_a_pty() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_in(dir.path(), "true", Prefer::Auto);
    assert_eq!(
        (out.connection, out.pty_unavailable),
        (Connection::Pty, None)
    );
}

#[test]
fn a_missing_directory_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope");
    let err = run(
        &request("true", &missing),
        &Options::default(),
        &Cancel::new(),
        &mut |_| {},
    )
    .unwrap_err();
    assert!(matches!(err, RunError::Directory { .. }));
    assert_eq!(
        err.to_string(),
        format!("directory {} does not exist", missing.display())
    );
}

#[test]
fn an_unterminated_quote_is_bashs_own_error_and_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    for prefer in [Prefer::Pipes, Prefer::Pty] {
        let out = run_in(dir.path(), "echo \"abc", prefer);
        assert_eq!(out.exit_code, Some(2), "{prefer:?}");
        assert!(
            out.output
                .contains("unexpected EOF while looking for matching `\"'"),
            "{prefer:?}: {}",
            out.output
        );
    }
}

#[test]
fn a_timeout_ends_the_whole_group_and_its_children() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("child");
    for prefer in [Prefer::Pipes, Prefer::Pty] {
        let options = Options {
            prefer,
            timeout: Some(Duration::from_millis(300)),
            ..Options::default()
        };
        let command = format!(
            "sleep 1000 & echo $! > {}; echo started; sleep 1000",
            pidfile.display()
        );
        let out = run(
            &request(&command, dir.path()),
            &options,
            &Cancel::new(),
            &mut |_| {},
        )
        .unwrap();
        assert_eq!(out.ending, Ending::TimedOut, "{prefer:?}");
        assert!(out.output.contains("started"), "{prefer:?}: {}", out.output);
        assert!(is_dead(out.pid), "{prefer:?}: the shell survived");
        assert!(
            is_dead(read_pid(&pidfile)),
            "{prefer:?}: its child survived"
        );
    }
}

#[test]
fn cancel_ends_the_command_with_the_output_so_far() {
    let dir = tempfile::tempdir().unwrap();
    for prefer in [Prefer::Pipes, Prefer::Pty] {
        let cancel = Cancel::new();
        let options = Options {
            prefer,
            update_interval: Duration::from_millis(10),
            ..Options::default()
        };
        let fire = cancel.clone();
        // The cancel fires once the command has shown it is running: an
        // event, not a sleep.
        let mut on_update = move |view: &str| {
            if view.contains("ready") {
                fire.fire();
            }
        };
        let started = Instant::now();
        let out = run(
            &request("echo ready; sleep 1000", dir.path()),
            &options,
            &cancel,
            &mut on_update,
        )
        .unwrap();
        assert_eq!(out.ending, Ending::Cancelled, "{prefer:?}");
        assert_eq!(out.output, "ready", "{prefer:?}");
        assert!(is_dead(out.pid));
        assert!(started.elapsed() < Duration::from_secs(60));
    }
}

#[test]
fn a_cancel_fired_before_the_run_ends_it_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let cancel = Cancel::new();
    cancel.fire();
    let out = run(
        &request("sleep 1000", dir.path()),
        &Options::default(),
        &cancel,
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(out.ending, Ending::Cancelled);
}

#[test]
fn a_hundred_megabytes_of_output_are_counted_not_held() {
    let dir = tempfile::tempdir().unwrap();
    let limits = OutputLimits::DEFAULT;
    let out = run_in(dir.path(), "yes | head -c 100000000", Prefer::Pipes);
    assert_eq!(out.total_bytes, 100_000_000);
    assert!(
        out.retained_bytes <= 2 * (limits.head + limits.tail),
        "{}",
        out.retained_bytes
    );
    assert!(out.omitted_bytes >= 100_000_000 - 2 * (limits.head + limits.tail) as u64);
    assert!(out.output.starts_with("y\ny\n"));
    assert!(out.output.ends_with("y\ny"));
    assert!(
        out.output
            .contains("[Output exceeded the maximum captured size of 2.0 MB;")
    );
}

#[test]
fn long_pty_output_is_bounded_too() {
    let dir = tempfile::tempdir().unwrap();
    let options = Options {
        prefer: Prefer::Pty,
        limits: OutputLimits {
            head: 4096,
            tail: 4096,
        },
        ..Options::default()
    };
    let out = run(
        &request("seq 1 200000", dir.path()),
        &options,
        &Cancel::new(),
        &mut |_| {},
    )
    .unwrap();
    assert!(out.retained_bytes <= 8192, "{}", out.retained_bytes);
    assert!(out.output.starts_with("1\n2\n3\n"), "{}", &out.output[..40]);
    assert!(out.output.ends_with("199999\n200000"));
}

#[test]
fn a_daemon_the_command_leaves_behind_is_reported_and_ended() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("daemon");
    for prefer in [Prefer::Pipes, Prefer::Pty] {
        // A new session, and the shell exits at once: only the mark finds it.
        // SIGHUP is ignored: on a pty the shell's exit hangs up its group,
        // which would end the daemon if that came before its `setsid`; this
        // test is about the runner finding it.
        let command = format!(
            "trap '' HUP; setsid sleep 1000 >/dev/null 2>&1 < /dev/null & echo $! > {}",
            pidfile.display()
        );
        let out = run_in(dir.path(), &command, prefer);
        assert_eq!(out.exit_code, Some(0));
        let daemon = read_pid(&pidfile);
        assert!(
            out.background_pids.contains(&daemon),
            "{prefer:?}: {:?} lacks {daemon}",
            out.background_pids
        );
        assert!(is_dead(daemon), "{prefer:?}: the daemon survived");
    }
}

#[test]
fn updates_come_no_more_often_than_the_interval() {
    let dir = tempfile::tempdir().unwrap();
    let interval = Duration::from_millis(150);
    let options = Options {
        prefer: Prefer::Pipes,
        update_interval: interval,
        ..Options::default()
    };
    let mut seen: Vec<(Instant, String)> = Vec::new();
    let out = run(
        &request(
            "for i in 1 2 3 4 5 6 7 8; do echo $i; sleep 0.05; done",
            dir.path(),
        ),
        &options,
        &Cancel::new(),
        &mut |view| seen.push((Instant::now(), view.to_owned())),
    )
    .unwrap();
    assert_eq!(out.output, "1\n2\n3\n4\n5\n6\n7\n8");
    assert!(seen.len() >= 2, "{seen:?}");
    assert!(seen[0].1.starts_with('1'));
    for pair in seen.windows(2) {
        assert!(pair[1].0 - pair[0].0 >= interval, "{seen:?}");
    }
}
