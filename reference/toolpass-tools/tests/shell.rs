//! `run_shell_command` and `task_stop` as the scheduler runs them, for what
//! the scenarios cannot see: the confirmation's details and what each answer
//! leaves behind, the fallback to the real `sed`, the cancellation of a
//! running command from another thread, its live updates, and the stop of a
//! background shell.

mod common;

use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use common::{FULL_TEXT, Sandbox, code};
use serde_json::{Value, json};
use toolpass_core::approval::ApprovalMode;
use toolpass_tools::confirmation::{Answer, Confirmation};
use toolpass_tools::context::{Cancellation, InvocationContext, NoticeSink, UpdateSink};
use toolpass_tools::error_code::ToolErrorCode;
use toolpass_tools::result::Display;
use toolpass_tools::scheduler::{CallOutcome, Pending, Scheduled, confirm, schedule};
use toolpass_tools::session::SessionConfig;

fn sandbox(mode: ApprovalMode) -> Sandbox {
    Sandbox::with_config(SessionConfig {
        approval_mode: mode,
        ..SessionConfig::default()
    })
}

fn shell(sb: &Sandbox, command: &str) -> Scheduled {
    scheduled(
        sb,
        &json!({"command": command}),
        &InvocationContext::detached(),
    )
}

fn scheduled(sb: &Sandbox, args: &Value, context: &InvocationContext) -> Scheduled {
    schedule(&sb.session, "run_shell_command", args, context)
}

fn awaiting(scheduled: Scheduled) -> Pending {
    match scheduled {
        Scheduled::Awaiting(pending) => pending,
        Scheduled::Done(outcome) => panic!("did not ask: {outcome:?}"),
    }
}

fn done(scheduled: Scheduled) -> CallOutcome {
    match scheduled {
        Scheduled::Done(outcome) => outcome,
        Scheduled::Awaiting(pending) => panic!("asks: {:?}", pending.confirmation()),
    }
}

fn answer(sb: &Sandbox, pending: Pending, answer: Answer) -> CallOutcome {
    confirm(&sb.session, pending, answer, &InvocationContext::detached())
}

#[test]
fn a_sed_edit_is_asked_as_an_unmodifiable_edit_and_always_means_auto_edit() {
    let sb = sandbox(ApprovalMode::Default);
    sb.write("a.txt", "alpha\nbeta\n");
    sb.record_read("a.txt", FULL_TEXT);
    let pending = awaiting(shell(&sb, "sed -i 's/beta/BETA/' a.txt"));
    let Confirmation::Edit(edit) = pending.confirmation() else {
        panic!("not an edit: {:?}", pending.confirmation());
    };
    assert_eq!(edit.title, "Confirm Sed Edit: a.txt");
    assert_eq!(edit.file_path, sb.arg("a.txt"));
    assert_eq!(edit.proposed, "alpha\nBETA\n");
    assert!(!edit.modifiable, "Qwen's hideModify");
    assert_eq!(
        sb.bytes("a.txt"),
        b"alpha\nbeta\n",
        "nothing before the answer"
    );
    let outcome = answer(&sb, pending, Answer::ProceedAlways);
    assert_eq!(
        outcome.result.llm_content,
        format!("sed edit applied to {}.", sb.arg("a.txt"))
    );
    assert!(matches!(outcome.result.display, Display::Diff(_)));
    assert_eq!(sb.bytes("a.txt"), b"alpha\nBETA\n");
    // Always, for an edit, is the approval mode's: sed itself is not
    // allowed as a command.
    assert_eq!(sb.session.approval_mode(), ApprovalMode::AutoEdit);
    let Confirmation::Exec { root_command, .. } = awaiting(shell(&sb, "sed -n 'w copy.txt' a.txt"))
        .confirmation()
        .clone()
    else {
        panic!("a sed command still asks as a command");
    };
    assert_eq!(root_command, "sed");
}

#[test]
fn a_file_that_is_not_utf8_is_left_to_the_real_sed_as_a_command() {
    let sb = sandbox(ApprovalMode::Default);
    sb.write("latin1.txt", b"caf\xe9\nbeta\n");
    sb.record_read("latin1.txt", FULL_TEXT);
    let pending = awaiting(shell(&sb, "sed -i 's/beta/BETA/' latin1.txt"));
    assert!(
        matches!(pending.confirmation(), Confirmation::Exec { .. }),
        "{:?}",
        pending.confirmation()
    );
    let outcome = answer(&sb, pending, Answer::ProceedOnce);
    assert!(!outcome.result.is_error(), "{:?}", outcome.result);
    assert_eq!(
        sb.bytes("latin1.txt"),
        b"caf\xe9\nBETA\n",
        "sed's own bytes"
    );
}

#[test]
fn a_sed_edit_of_a_file_changed_while_it_was_shown_writes_nothing() {
    let sb = sandbox(ApprovalMode::Default);
    sb.write("a.txt", "alpha\nbeta\n");
    sb.record_read("a.txt", FULL_TEXT);
    let pending = awaiting(shell(&sb, "sed -i 's/beta/BETA/' a.txt"));
    // Same size and, read again, recorded: only the content tells.
    sb.write("a.txt", "alpha\nbetb\n");
    sb.record_read("a.txt", FULL_TEXT);
    let outcome = answer(&sb, pending, Answer::ProceedOnce);
    assert_eq!(
        code(&outcome.result),
        Some(ToolErrorCode::FileChangedSinceRead)
    );
    assert!(
        outcome
            .result
            .llm_content
            .starts_with("File changed since sed edit confirmation:"),
        "{}",
        outcome.result.llm_content
    );
    assert_eq!(sb.bytes("a.txt"), b"alpha\nbetb\n");
}

#[test]
fn proceed_always_on_a_command_allows_its_programs_for_the_session() {
    let sb = sandbox(ApprovalMode::Default);
    let pending = awaiting(shell(&sb, "touch one"));
    assert_eq!(
        pending.confirmation(),
        &Confirmation::Exec {
            title: "Confirm Shell Command".into(),
            command: "touch one".into(),
            root_command: "touch".into(),
        }
    );
    let outcome = answer(&sb, pending, Answer::ProceedAlways);
    assert!(!outcome.result.is_error(), "{:?}", outcome.result);
    assert_eq!(sb.session.approval_mode(), ApprovalMode::Default);
    let ran = done(shell(&sb, "touch two && touch three"));
    assert!(!ran.result.is_error(), "{:?}", ran.result);
    assert!(sb.path("three").exists());
    // Only the programs not yet allowed are named.
    let Confirmation::Exec { root_command, .. } = awaiting(shell(&sb, "touch four; rm one"))
        .confirmation()
        .clone()
    else {
        panic!("a command asks as a command");
    };
    assert_eq!(root_command, "rm");
    assert!(!sb.path("four").exists());
}

#[test]
fn a_cancel_from_another_thread_ends_a_running_command() {
    let sb = sandbox(ApprovalMode::Yolo);
    let cancellation = Cancellation::new(Arc::default());
    let watched = Watched::new(cancellation.clone());
    let (started, ready) = mpsc::channel();
    let canceller = std::thread::spawn(move || {
        ready.recv().unwrap();
        cancellation.request();
    });
    let pid_file = sb.path("pid");
    let watcher = std::thread::spawn(move || {
        while !pid_file.exists() {
            std::thread::sleep(Duration::from_millis(10));
        }
        started.send(()).unwrap();
    });
    let args = json!({"command": "echo $$ > pid; while :; do sleep 0.05; done"});
    let outcome = done(scheduled(&sb, &args, &watched.context));
    watcher.join().unwrap();
    canceller.join().unwrap();
    assert!(outcome.cancelled, "{outcome:?}");
    let pid: u32 = std::fs::read_to_string(sb.path("pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(
        std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |s| s.contains(") Z")),
        "the shell {pid} outlived its cancelled call"
    );
}

#[test]
fn a_running_command_streams_its_output_so_far() {
    let sb = Arc::new(sandbox(ApprovalMode::Yolo));
    let watched = Watched::new(Cancellation::default());
    let updates = Arc::clone(&watched.updates);
    // The command goes on only once an update has carried its first line.
    let args = json!({"command": "echo first-line; while [ ! -e go ]; do sleep 0.01; done"});
    let running = {
        let sb = Arc::clone(&sb);
        std::thread::spawn(move || done(scheduled(&sb, &args, &watched.context)))
    };
    let first = updates.wait_for_one();
    sb.write("go", "");
    let outcome = running.join().unwrap();
    assert!(first.contains("first-line"), "{first:?}");
    assert!(!outcome.result.is_error(), "{:?}", outcome.result);
}

#[test]
fn task_stop_ends_a_background_shell_and_its_notice_reaches_the_starting_call() {
    let sb = sandbox(ApprovalMode::Yolo);
    let watched = Watched::new(Cancellation::default());
    let args = json!({"command": "while :; do sleep 0.05; done # stop-me", "is_background": true});
    let launched = done(scheduled(&sb, &args, &watched.context)).result;
    let id = launched
        .llm_content
        .lines()
        .find_map(|l| l.strip_prefix("id: "))
        .expect("an id line")
        .to_owned();
    let stop = |id: &str| {
        done(schedule(
            &sb.session,
            "task_stop",
            &json!({"task_id": id}),
            &InvocationContext::detached(),
        ))
        .result
    };
    let stopped = stop(&id);
    assert!(
        stopped.llm_content.starts_with(&format!(
            "Cancellation requested for background shell \"{id}\"."
        )),
        "{}",
        stopped.llm_content
    );
    let notice = watched.notices.wait_for_one();
    assert!(notice.contains("<status>cancelled</status>"), "{notice}");
    assert!(
        notice.contains(&format!("<task-id>{id}</task-id>")),
        "{notice}"
    );
    let again = stop(&id);
    assert_eq!(code(&again), Some(ToolErrorCode::TaskStopNotRunning));
    assert_eq!(
        code(&stop("bg_00000000")),
        Some(ToolErrorCode::TaskStopNotFound)
    );
}

/// A call's context whose updates and notices are kept.
struct Watched {
    context: InvocationContext,
    updates: Arc<Lines>,
    notices: Arc<Lines>,
}

impl Watched {
    fn new(cancellation: Cancellation) -> Self {
        let (updates, notices) = (Arc::new(Lines::default()), Arc::new(Lines::default()));
        let context = InvocationContext::new(
            cancellation,
            Arc::clone(&updates) as Arc<dyn UpdateSink>,
            Arc::clone(&notices) as Arc<dyn NoticeSink>,
        );
        Watched {
            context,
            updates,
            notices,
        }
    }
}

/// A sink that keeps what it is sent.
#[derive(Default)]
struct Lines {
    lines: Mutex<Vec<String>>,
    arrived: std::sync::Condvar,
}

impl Lines {
    /// The first line, waiting for it a bounded while.
    fn wait_for_one(&self) -> String {
        let lines = self.lines.lock().unwrap();
        let (lines, _) = self
            .arrived
            .wait_timeout_while(lines, Duration::from_secs(30), |l| l.is_empty())
            .unwrap();
        lines.first().cloned().expect("a line in time")
    }

    fn push(&self, text: &str) {
        self.lines.lock().unwrap().push(text.to_owned());
        self.arrived.notify_all();
    }
}

impl UpdateSink for Lines {
    fn update(&self, text: &str) {
        self.push(text);
    }
}

impl NoticeSink for Lines {
    fn notice(&self, _kind: &str, text: &str) {
        self.push(text);
    }
}

#[test]
fn a_read_only_command_runs_unasked_in_default_mode_and_a_write_asks() {
    let sb = sandbox(ApprovalMode::Default);
    sb.write("notes.txt", "alpha\nbeta\n");
    let ran = done(shell(&sb, "cat notes.txt | grep beta && ls"));
    assert!(ran.result.llm_content.contains("beta"), "{:?}", ran.result);
    let pending = awaiting(shell(&sb, "ls > listing.txt"));
    assert!(matches!(pending.confirmation(), Confirmation::Exec { .. }));
    assert!(!sb.path("listing.txt").exists());
}

#[test]
fn the_confirmation_names_only_the_parts_that_are_not_read_only() {
    let sb = sandbox(ApprovalMode::Default);
    let Confirmation::Exec { root_command, .. } =
        awaiting(shell(&sb, "ls && touch made; cat made | wc -l"))
            .confirmation()
            .clone()
    else {
        panic!("a command asks as a command");
    };
    assert_eq!(root_command, "touch");
    // Every part read-only but the whole not (an assignment before git):
    // asked, naming every program (the assignment runs none).
    let Confirmation::Exec { root_command, .. } =
        awaiting(shell(&sb, "GIT_EXTERNAL_DIFF=x; git diff"))
            .confirmation()
            .clone()
    else {
        panic!("a command asks as a command");
    };
    assert_eq!(root_command, "git");
}

#[test]
fn plan_mode_runs_reads_refuses_writes_and_asks_once_for_the_unknown() {
    let sb = sandbox(ApprovalMode::Plan);
    sb.write("notes.txt", "alpha\n");
    let ran = done(shell(&sb, "cat notes.txt"));
    assert!(ran.result.llm_content.contains("alpha"), "{:?}", ran.result);

    let refused = done(shell(&sb, "rm notes.txt"));
    assert_eq!(code(&refused.result), Some(ToolErrorCode::ExecutionDenied));
    assert!(
        refused
            .result
            .llm_content
            .starts_with("Plan mode blocked this shell command"),
        "{}",
        refused.result.llm_content
    );
    assert!(sb.path("notes.txt").exists());

    // Unknown (not a program of Qwen's lists): asked, and only a "proceed
    // once" runs it.
    let pending = awaiting(shell(&sb, "python3 -c pass"));
    let outcome = answer(&sb, pending, Answer::ProceedAlways);
    assert!(outcome.cancelled);
    assert!(
        outcome
            .result
            .llm_content
            .contains("Plan-mode shell approval is no longer valid"),
        "{}",
        outcome.result.llm_content
    );
    let pending = awaiting(shell(&sb, "env true"));
    let outcome = answer(&sb, pending, Answer::ProceedOnce);
    assert!(
        !outcome.cancelled && !outcome.result.is_error(),
        "{:?}",
        outcome.result
    );
    assert_eq!(sb.session.approval_mode(), ApprovalMode::Plan);
}
