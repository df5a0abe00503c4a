//! A batch as the scheduler runs it, and the first and third gates' writes:
//! order, the budget's account, the saved files (private, whole, counted
//! against the session) and the session's disk budget.

use std::fs;
use std::os::unix::fs::PermissionsExt;

use serde_json::json;
use toolpass_core::budget::MAX_SESSION_BYTES;

use super::*;
use crate::output_budget::persist;
use crate::session::SessionConfig;

/// A session with `read_file`, `edit` and `grep_search`, and `files`.
fn session_with(config: SessionConfig, files: &[(&str, &str)]) -> (tempfile::TempDir, Session) {
    use crate::tool::Declared;
    use crate::tools::{edit::EditTool, grep_search::GrepTool, read_file::ReadFileTool};
    let tools: Vec<Arc<dyn Tool>> = vec![
        Arc::new(Declared::<ReadFileTool>::default()),
        Arc::new(Declared::<EditTool>::default()),
        Arc::new(Declared::<GrepTool>::default()),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        fs::write(dir.path().join(name), text).unwrap();
    }
    let session = Session::new(dir.path(), config, tools).unwrap();
    (dir, session)
}

fn call(id: &str, name: &str, arguments: Value) -> BatchCall {
    BatchCall {
        name: name.to_owned(),
        arguments,
        context: InvocationContext::detached().with_call_id(id),
    }
}

fn done(scheduled: &Scheduled) -> &CallOutcome {
    match scheduled {
        Scheduled::Done(outcome) => outcome,
        Scheduled::Awaiting(_) => panic!("the call asks"),
    }
}

#[test]
fn a_batch_runs_in_order_and_a_mutator_sees_the_reads_before_it() {
    let (dir, session) = session_with(SessionConfig::default(), &[("a.txt", "one\n")]);
    let a = dir.path().join("a.txt");
    let calls = [
        call("r1", "read_file", json!({"file_path": a})),
        call(
            "e",
            "edit",
            json!({"file_path": a, "old_string": "one", "new_string": "two"}),
        ),
        call("r2", "read_file", json!({"file_path": a})),
    ];
    let batch = schedule_batch(&session, &calls);
    let texts: Vec<&str> = batch
        .calls
        .iter()
        .map(|s| done(s).result.llm_content.as_str())
        .collect();
    assert_eq!(texts.first(), Some(&"one\n"));
    assert!(!done(&batch.calls[1]).result.is_error());
    assert_eq!(texts.get(2), Some(&"two\n"));
    let report = batch.report.unwrap();
    assert_eq!(report.reduced, 0);
    assert_eq!(report.before, report.after);
}

#[test]
fn a_batch_over_budget_saves_the_cut_result_whole_privately_and_counts_it() {
    let long = "0123456789".repeat(500);
    let config = SessionConfig {
        batch_budget: 1000,
        ..SessionConfig::default()
    };
    let (dir, session) = session_with(config, &[("s.txt", "short\n"), ("l.txt", &long)]);
    let calls = [
        call(
            "s",
            "read_file",
            json!({"file_path": dir.path().join("s.txt")}),
        ),
        call(
            "dir/l",
            "read_file",
            json!({"file_path": dir.path().join("l.txt")}),
        ),
    ];
    let batch = schedule_batch(&session, &calls);
    let report = batch.report.unwrap();
    assert_eq!(
        (report.before, report.after, report.reduced),
        (5006, 1000, 1)
    );
    let cut = done(&batch.calls[1]);
    assert_eq!(cut.result.llm_content.chars().count(), 994);
    let saved = cut.persisted_output_path.as_ref().unwrap();
    assert_eq!(saved.file_name().unwrap(), "l.txt");
    assert_eq!(fs::read_to_string(saved).unwrap(), long);
    assert_eq!(
        fs::metadata(saved).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert_eq!(*session.persisted_bytes(), 5000);
    assert!(done(&batch.calls[0]).persisted_output_path.is_none());
}

#[test]
fn a_persisted_result_carries_the_digest_of_the_saved_bytes() {
    let (_dir, session) = session_with(SessionConfig::default(), &[]);
    let text = "é".repeat(30_000);
    let persisted = persist::persist(&session, "c1", "grep_search", &text);
    let file = persisted.file.unwrap();
    assert_eq!(fs::read_to_string(&file).unwrap(), text);
    let digest = persist::sha256_hex(text.as_bytes());
    assert!(
        persisted
            .text
            .contains(&format!("Full output sha256: {digest}\n"))
    );
    assert!(
        persisted
            .text
            .starts_with("<persisted-output>\nOutput too large (59 KB)")
    );
    assert_eq!(*session.persisted_bytes(), 60_000);
}

#[test]
fn the_session_disk_budget_refuses_a_save_and_the_stub_says_so() {
    let (_dir, session) = session_with(SessionConfig::default(), &[]);
    *session.persisted_bytes() = MAX_SESSION_BYTES - 10;
    let persisted = persist::persist(&session, "c1", "grep_search", &"x".repeat(30_000));
    assert!(persisted.file.is_none());
    assert!(
        persisted
            .text
            .starts_with("Output too large (29 KB). (session disk budget exhausted)\n"),
        "{}",
        persisted.text
    );
    assert_eq!(*session.persisted_bytes(), MAX_SESSION_BYTES - 10);
}

#[test]
fn a_save_that_fails_falls_back_to_the_per_tool_cut() {
    let (_dir, session) = session_with(SessionConfig::default(), &[]);
    let spill = session.spill_dir().unwrap().to_owned();
    // The spill directory unwritable: the atomic save cannot make its
    // temporary file, and the fallback's spill file cannot be made either,
    // so the model gets the cut with Qwen's "could not save" wording.
    fs::set_permissions(&spill, fs::Permissions::from_mode(0o500)).unwrap();
    let text = "line\n".repeat(10_000);
    let persisted = persist::persist(&session, "c1", "grep_search", &text);
    fs::set_permissions(&spill, fs::Permissions::from_mode(0o700)).unwrap();
    if rustix::process::geteuid().is_root() {
        // Root writes through the mode bits: the save succeeded.
        assert!(persisted.file.is_some());
        return;
    }
    assert!(persisted.file.is_none());
    assert!(
        persisted
            .text
            .starts_with("Tool output was too large and has been truncated")
    );
    assert_eq!(*session.persisted_bytes(), 0);
}
