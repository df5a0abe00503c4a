//! The scheduler's approval flow and cancellation, as Qwen Code's
//! `CoreToolScheduler` runs them: which calls ask in which mode, what each
//! answer does, what a modified proposal reports, and what a cancelled call
//! tells the model.

mod common;

use std::sync::{Arc, mpsc};
use std::time::Duration;

use common::{FULL_TEXT, Sandbox, code};
use serde_json::{Value, json};
use toolpass_core::approval::ApprovalMode;
use toolpass_tools::confirmation::{Answer, Confirmation};
use toolpass_tools::context::{Cancellation, InvocationContext, Latch, UpdateSink};
use toolpass_tools::error_code::ToolErrorCode;
use toolpass_tools::faults::FaultPoint;
use toolpass_tools::result::Display;
use toolpass_tools::scheduler::{CallOutcome, PARKED, Pending, Scheduled, confirm, schedule};
use toolpass_tools::session::SessionConfig;

fn sandbox(mode: ApprovalMode) -> Sandbox {
    Sandbox::with_config(SessionConfig {
        approval_mode: mode,
        ..SessionConfig::default()
    })
}

/// `a.txt` holding "alpha\nbeta\n", read in full.
fn with_read_file(mode: ApprovalMode) -> Sandbox {
    let sb = sandbox(mode);
    sb.write("a.txt", "alpha\nbeta\n");
    sb.record_read("a.txt", FULL_TEXT);
    sb
}

fn edit_args(sb: &Sandbox) -> Value {
    json!({"file_path": sb.arg("a.txt"), "old_string": "beta", "new_string": "gamma"})
}

fn scheduled(sb: &Sandbox, name: &str, args: &Value) -> Scheduled {
    schedule(&sb.session, name, args, &InvocationContext::detached())
}

fn done(scheduled: Scheduled) -> CallOutcome {
    match scheduled {
        Scheduled::Done(outcome) => outcome,
        Scheduled::Awaiting(pending) => panic!("asks: {:?}", pending.confirmation()),
    }
}

fn awaiting(scheduled: Scheduled) -> Pending {
    match scheduled {
        Scheduled::Done(outcome) => panic!("did not ask: {outcome:?}"),
        Scheduled::Awaiting(pending) => pending,
    }
}

fn answer(sb: &Sandbox, pending: Pending, answer: Answer) -> CallOutcome {
    confirm(&sb.session, pending, answer, &InvocationContext::detached())
}

#[test]
fn reads_run_in_every_mode_and_edits_only_where_the_mode_allows() {
    for mode in [
        ApprovalMode::Plan,
        ApprovalMode::Default,
        ApprovalMode::AutoEdit,
        ApprovalMode::Yolo,
    ] {
        let sb = with_read_file(mode);
        let read = done(scheduled(
            &sb,
            "read_file",
            &json!({"file_path": sb.arg("a.txt")}),
        ));
        assert_eq!(code(&read.result), None, "{mode:?}");
        let edit = scheduled(&sb, "edit", &edit_args(&sb));
        match mode {
            ApprovalMode::Plan => {
                let refused = done(edit);
                assert_eq!(code(&refused.result), Some(ToolErrorCode::ExecutionDenied));
                assert!(
                    refused.result.llm_content.starts_with(
                        "Tool blocked by plan mode: \"edit\" is not a read-only tool."
                    )
                );
                assert_eq!(sb.bytes("a.txt"), b"alpha\nbeta\n");
            }
            ApprovalMode::Default => {
                awaiting(edit);
                assert_eq!(sb.bytes("a.txt"), b"alpha\nbeta\n");
            }
            ApprovalMode::AutoEdit | ApprovalMode::Yolo => {
                assert_eq!(code(&done(edit).result), None, "{mode:?}");
                assert_eq!(sb.bytes("a.txt"), b"alpha\ngamma\n");
            }
        }
    }
}

#[test]
fn an_edit_that_would_fail_fails_before_anyone_is_asked() {
    for mode in [ApprovalMode::Plan, ApprovalMode::Default] {
        let sb = with_read_file(mode);
        let args = json!({"file_path": sb.arg("a.txt"), "old_string": "zeta", "new_string": "z"});
        let failed = done(scheduled(&sb, "edit", &args));
        assert_eq!(
            code(&failed.result),
            Some(ToolErrorCode::EditNoOccurrenceFound),
            "{mode:?}"
        );
        sb.write("unread.txt", "x\n");
        let args = json!({"file_path": sb.arg("unread.txt"), "content": "y\n"});
        let failed = done(scheduled(&sb, "write_file", &args));
        assert_eq!(
            code(&failed.result),
            Some(ToolErrorCode::EditRequiresPriorRead),
            "{mode:?}"
        );
    }
}

#[test]
fn the_confirmation_shows_the_diff_and_proceed_once_writes_it() {
    let sb = with_read_file(ApprovalMode::Default);
    let pending = awaiting(scheduled(&sb, "edit", &edit_args(&sb)));
    let Confirmation::Edit(asked) = pending.confirmation() else {
        panic!("not an edit confirmation");
    };
    assert_eq!(asked.title, "Confirm Edit: a.txt");
    assert_eq!(asked.original.as_deref(), Some("alpha\nbeta\n"));
    assert_eq!(asked.proposed, "alpha\ngamma\n");
    assert!(asked.diff.contains("-beta\n+gamma\n"), "{}", asked.diff);
    let outcome = answer(&sb, pending, Answer::ProceedOnce);
    assert_eq!(code(&outcome.result), None);
    assert_eq!(sb.bytes("a.txt"), b"alpha\ngamma\n");
    // Once: the next edit asks again.
    let args = json!({"file_path": sb.arg("a.txt"), "old_string": "alpha", "new_string": "A"});
    awaiting(scheduled(&sb, "edit", &args));
}

#[test]
fn proceed_always_switches_the_session_to_auto_edit() {
    let sb = with_read_file(ApprovalMode::Default);
    let pending = awaiting(scheduled(&sb, "edit", &edit_args(&sb)));
    answer(&sb, pending, Answer::ProceedAlways);
    assert_eq!(sb.session.approval_mode(), ApprovalMode::AutoEdit);
    // Every edit kind now runs without asking, write_file included.
    let args = json!({"file_path": sb.arg("a.txt"), "content": "written\n"});
    assert_eq!(
        code(&done(scheduled(&sb, "write_file", &args)).result),
        None
    );
    assert_eq!(sb.bytes("a.txt"), b"written\n");
}

#[test]
fn cancel_leaves_the_file_and_tells_the_model_the_user_declined() {
    let sb = with_read_file(ApprovalMode::Default);
    let pending = awaiting(scheduled(&sb, "edit", &edit_args(&sb)));
    let outcome = answer(&sb, pending, Answer::Cancel);
    assert!(outcome.cancelled);
    assert_eq!(
        outcome.result.llm_content,
        "[Operation Cancelled] Reason: User did not allow tool call"
    );
    let Display::Diff(diff) = &outcome.result.display else {
        panic!("the proposed diff stays on screen");
    };
    assert_eq!(diff.new, "alpha\ngamma\n");
    assert_eq!(sb.bytes("a.txt"), b"alpha\nbeta\n");
}

#[test]
fn a_modified_edit_writes_the_users_text_and_reports_both_stats() {
    let sb = with_read_file(ApprovalMode::Default);
    let pending = awaiting(scheduled(&sb, "edit", &edit_args(&sb)));
    let users = "alpha\ngamma\ndelta\nepsilon\n".to_owned();
    let outcome = answer(&sb, pending, Answer::Modify(users));
    assert_eq!(code(&outcome.result), None);
    assert_eq!(sb.bytes("a.txt"), b"alpha\ngamma\ndelta\nepsilon\n");
    let Display::Diff(diff) = &outcome.result.display else {
        panic!("a diff");
    };
    // The model's: beta → gamma. The user's: two lines added to it.
    assert_eq!((diff.stat.added_lines, diff.stat.removed_lines), (1, 1));
    let user = diff.user_stat.expect("the user's stat");
    assert_eq!((user.added_lines, user.removed_lines), (2, 0));
}

#[test]
fn a_modified_write_says_the_user_changed_the_content() {
    let sb = with_read_file(ApprovalMode::Default);
    let args = json!({"file_path": sb.arg("a.txt"), "content": "model\n"});
    let pending = awaiting(scheduled(&sb, "write_file", &args));
    let outcome = answer(&sb, pending, Answer::Modify("user\nmore\n".into()));
    assert_eq!(sb.bytes("a.txt"), b"user\nmore\n");
    assert!(
        outcome
            .result
            .llm_content
            .ends_with(" User modified the `content` to be: user\nmore\n"),
        "{}",
        outcome.result.llm_content
    );
    let Display::Diff(diff) = &outcome.result.display else {
        panic!("a diff");
    };
    assert_eq!((diff.stat.added_lines, diff.stat.removed_lines), (1, 2));
    let user = diff.user_stat.expect("the user's stat");
    assert_eq!((user.added_lines, user.removed_lines), (2, 1));
}

#[test]
fn every_check_runs_again_after_the_confirmation() {
    let sb = with_read_file(ApprovalMode::Default);
    let pending = awaiting(scheduled(&sb, "edit", &edit_args(&sb)));
    // Someone types into the file while the dialog is open.
    sb.write("a.txt", "alpha\nbeta\ntyped meanwhile\n");
    let outcome = answer(&sb, pending, Answer::ProceedOnce);
    assert_eq!(
        code(&outcome.result),
        Some(ToolErrorCode::FileChangedSinceRead)
    );
    assert_eq!(sb.bytes("a.txt"), b"alpha\nbeta\ntyped meanwhile\n");
}

#[test]
fn a_parked_confirmation_holds_nothing_another_session_needs() {
    let sb = with_read_file(ApprovalMode::Default);
    let _pending = awaiting(scheduled(&sb, "edit", &edit_args(&sb)));
    // A second session over the same root edits the same file meanwhile.
    let other = Sandbox::at(sb.root());
    other.record_read("a.txt", FULL_TEXT);
    let args = json!({"file_path": other.arg("a.txt"), "old_string": "alpha", "new_string": "A"});
    let outcome = toolpass_tools::scheduler::execute_call(&other.session, "edit", &args);
    assert_eq!(code(&outcome.result), None);
    assert_eq!(sb.bytes("a.txt"), b"A\nbeta\n");
}

/// Passes the updates a call sends on to the test.
struct Updates(std::sync::Mutex<mpsc::Sender<String>>);

impl UpdateSink for Updates {
    fn update(&self, text: &str) {
        self.0.lock().unwrap().send(text.to_owned()).unwrap();
    }
}

#[test]
fn a_parked_call_sends_an_update_and_ends_cancelled_when_cancelled() {
    let sb = with_read_file(ApprovalMode::Yolo);
    sb.session.faults().arm(FaultPoint::CallPark, 1);
    let cancellation = Cancellation::new(Arc::default());
    let (sent, updates) = mpsc::channel();
    let context = InvocationContext::new(
        cancellation.clone(),
        Arc::new(Updates(std::sync::Mutex::new(sent))),
        Arc::new(NoNotices),
    );
    let args = edit_args(&sb);
    std::thread::scope(|scope| {
        let call = scope.spawn(|| schedule(&sb.session, "edit", &args, &context));
        // The update says it parked; nothing is written while it waits.
        let update = updates.recv_timeout(Duration::from_secs(30)).unwrap();
        assert_eq!(update, PARKED);
        assert_eq!(sb.bytes("a.txt"), b"alpha\nbeta\n");
        cancellation.request();
        let outcome = done(call.join().unwrap());
        assert!(outcome.cancelled);
        assert!(
            outcome
                .result
                .llm_content
                .starts_with("[Operation Cancelled] Reason: User intentionally cancelled")
        );
    });
    assert_eq!(sb.bytes("a.txt"), b"alpha\nbeta\n");
}

#[test]
fn a_call_cancelled_before_it_starts_never_runs() {
    let sb = with_read_file(ApprovalMode::Yolo);
    let cancellation = Cancellation::new(Arc::new(Latch::default()));
    cancellation.request();
    let context = InvocationContext::new(cancellation, Arc::new(NoUpdates), Arc::new(NoNotices));
    let outcome = done(schedule(&sb.session, "edit", &edit_args(&sb), &context));
    assert_eq!(
        outcome.result.llm_content,
        "[Operation Cancelled] Reason: Tool call cancelled before execution."
    );
    assert_eq!(sb.bytes("a.txt"), b"alpha\nbeta\n");
}

struct NoUpdates;

impl UpdateSink for NoUpdates {
    fn update(&self, _text: &str) {}
}

struct NoNotices;

impl toolpass_tools::context::NoticeSink for NoNotices {
    fn notice(&self, _kind: &str, _text: &str) {}
}
