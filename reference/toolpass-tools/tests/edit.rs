//! The `edit` tool end to end on a real sandbox: read-before-write in each
//! of its three windows, the fault points, the atomic write, and byte
//! fidelity. Reads are recorded straight into the read cache, the way the
//! `read_file` tool records them, so these tests need no other tool.

mod common;

use std::fs;

use serde_json::json;
use toolpass_tools::faults::{CONCURRENT_WRITE, FaultPoint};
use toolpass_tools::result::ToolResult;
use toolpass_tools::session::SessionConfig;

use common::{FULL_TEXT, PARTIAL_TEXT, Sandbox, code};
use toolpass_tools::error_code::ToolErrorCode;

/// Calls `edit` on `name` the way the model does.
fn edit(sb: &Sandbox, name: &str, old: &str, new: &str) -> ToolResult {
    sb.call(
        "edit",
        json!({
            "file_path": sb.arg(name),
            "old_string": old,
            "new_string": new,
        }),
    )
}

#[test]
fn an_unread_file_cannot_be_edited_and_keeps_its_bytes() {
    let sb = Sandbox::new();
    sb.write("a.txt", "hello\n");
    let result = edit(&sb, "a.txt", "hello", "bye");
    assert_eq!(code(&result), Some(ToolErrorCode::EditRequiresPriorRead));
    assert!(
        result
            .llm_content
            .contains("has not been read in this session")
    );
    assert_eq!(sb.bytes("a.txt"), b"hello\n");
}

#[test]
fn a_read_file_is_edited_and_the_model_sees_the_snippet() {
    let sb = Sandbox::new();
    sb.write("a.txt", "one\ntwo\nthree\n");
    sb.record_read("a.txt", FULL_TEXT);
    let result = edit(&sb, "a.txt", "two", "2");
    assert_eq!(code(&result), None, "{}", result.llm_content);
    assert_eq!(sb.bytes("a.txt"), b"one\n2\nthree\n");
    let shown = sb.path("a.txt");
    assert_eq!(
        result.llm_content,
        format!(
            "The file: {} has been updated. Showing lines 1-4 of 4 from the edited file:\n\n---\n\none\n2\nthree\n",
            shown.display()
        )
    );
}

#[test]
fn a_partial_read_is_enough_to_edit() {
    // Qwen 0.24: any read counts; the mtime/size check is the safety net.
    let sb = Sandbox::new();
    sb.write("a.txt", "one\ntwo\n");
    sb.record_read("a.txt", PARTIAL_TEXT);
    assert_eq!(code(&edit(&sb, "a.txt", "one", "1")), None);
}

#[test]
fn a_created_file_can_be_edited_again_without_a_read() {
    let sb = Sandbox::new();
    let created = edit(&sb, "new/dir/b.txt", "", "fresh\n");
    assert_eq!(code(&created), None, "{}", created.llm_content);
    assert!(created.llm_content.starts_with("Created new file: "));
    assert_eq!(sb.bytes("new/dir/b.txt"), b"fresh\n");
    assert_eq!(code(&edit(&sb, "new/dir/b.txt", "fresh", "again")), None);
    assert_eq!(sb.bytes("new/dir/b.txt"), b"again\n");
}

#[test]
fn a_file_changed_since_the_read_is_refused() {
    let sb = Sandbox::new();
    sb.write("a.txt", "v1\n");
    sb.record_read("a.txt", FULL_TEXT);
    sb.write("a.txt", "v2 longer\n");
    let result = edit(&sb, "a.txt", "v2", "v3");
    assert_eq!(code(&result), Some(ToolErrorCode::FileChangedSinceRead));
    assert_eq!(sb.bytes("a.txt"), b"v2 longer\n");
}

/// Arms `fs.stat` to fail at the `nth` stat of the edit (1: before the
/// read, 2: after it, 3: before the write) and checks the edit fails closed.
fn stat_fault_at(nth: u32) {
    let sb = Sandbox::new();
    sb.write("a.txt", "x = 1\n");
    sb.record_read("a.txt", FULL_TEXT);
    sb.session
        .faults()
        .arm_after(FaultPoint::FsStat, nth - 1, 1);
    let result = edit(&sb, "a.txt", "x = 1", "x = 2");
    assert_eq!(
        code(&result),
        Some(ToolErrorCode::PriorReadVerificationFailed),
        "stat #{nth}"
    );
    assert!(
        result.llm_content.contains("(EACCES)"),
        "{}",
        result.llm_content
    );
    assert_eq!(sb.bytes("a.txt"), b"x = 1\n", "stat #{nth}");
}

#[test]
fn window_before_read_fails_closed_on_a_stat_error() {
    stat_fault_at(1);
}

#[test]
fn window_after_read_fails_closed_on_a_stat_error() {
    stat_fault_at(2);
}

#[test]
fn window_before_write_fails_closed_on_a_stat_error() {
    stat_fault_at(3);
}

#[test]
fn window_before_commit_keeps_the_other_writers_bytes() {
    let sb = Sandbox::new();
    sb.write("a.txt", "x = 1\n");
    sb.record_read("a.txt", FULL_TEXT);
    sb.session.faults().arm(FaultPoint::WriteBeforeCommit, 1);
    let result = edit(&sb, "a.txt", "x = 1", "x = 2");
    assert_eq!(code(&result), Some(ToolErrorCode::FileChangedSinceRead));
    assert_eq!(
        sb.bytes("a.txt"),
        format!("x = 1\n{CONCURRENT_WRITE}").as_bytes()
    );
    // No temporary file is left behind.
    let names: Vec<_> = fs::read_dir(sb.session.sandbox().root())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

#[test]
fn a_directory_is_refused() {
    let sb = Sandbox::new();
    fs::create_dir(sb.path("d")).unwrap();
    assert_eq!(
        code(&edit(&sb, "d", "a", "b")),
        Some(ToolErrorCode::TargetIsDirectory)
    );
}

#[test]
fn a_fifo_is_refused_without_blocking() {
    let sb = Sandbox::new();
    let fifo = sb.path("pipe");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    let result = edit(&sb, "pipe", "a", "b");
    assert_eq!(code(&result), Some(ToolErrorCode::EditRequiresPriorRead));
    assert!(result.llm_content.contains("FIFO"));
}

#[test]
fn paths_outside_the_root_are_refused_before_any_io() {
    let sb = Sandbox::new();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("x.txt");
    fs::write(&target, "secret\n").unwrap();
    std::os::unix::fs::symlink(outside.path(), sb.path("link")).unwrap();
    for path in [
        target.to_str().unwrap().to_owned(),
        format!("{}/link/x.txt", sb.path("").display()),
    ] {
        let result = sb.call(
            "edit",
            json!({"file_path": path, "old_string": "", "new_string": "pwned"}),
        );
        assert_eq!(
            code(&result),
            Some(ToolErrorCode::PathNotInWorkspace),
            "{path}"
        );
    }
    assert_eq!(fs::read(&target).unwrap(), b"secret\n");
}

#[test]
fn invalid_arguments_get_qwens_invalid_params_text() {
    let sb = Sandbox::new();
    let result = sb.call(
        "edit",
        json!({"file_path": "relative.txt", "old_string": "a", "new_string": "b"}),
    );
    assert_eq!(code(&result), Some(ToolErrorCode::InvalidToolParams));
    assert_eq!(
        result.llm_content,
        "File path must be absolute: relative.txt"
    );
    let result = sb.call(
        "edit",
        json!({"file_path": "/x", "old_string": 1, "new_string": "b"}),
    );
    assert_eq!(code(&result), Some(ToolErrorCode::InvalidToolParams));
    assert!(
        result.llm_content.contains("old_string"),
        "{}",
        result.llm_content
    );
}

#[test]
fn crlf_bom_and_gbk_files_keep_their_encoding_and_line_endings() {
    let sb = Sandbox::new();
    sb.write("crlf.txt", "\u{feff}a\r\nold\r\nb\r\n");
    sb.record_read("crlf.txt", FULL_TEXT);
    assert_eq!(
        code(&edit(&sb, "crlf.txt", "old\nb", "new\nlines\nb")),
        None
    );
    assert_eq!(
        sb.bytes("crlf.txt"),
        "\u{feff}a\r\nnew\r\nlines\r\nb\r\n".as_bytes()
    );

    // "你好，世界\r\n" in GBK.
    let gbk: &[u8] = &[
        0xC4, 0xE3, 0xBA, 0xC3, 0xA3, 0xAC, 0xCA, 0xC0, 0xBD, 0xE7, 0x0D, 0x0A,
    ];
    sb.write("gbk.txt", gbk);
    sb.record_read("gbk.txt", FULL_TEXT);
    let result = edit(&sb, "gbk.txt", "世界", "朋友");
    assert_eq!(code(&result), None, "{}", result.llm_content);
    // "你好，朋友\r\n" in GBK: the bytes before the span are untouched.
    assert_eq!(
        sb.bytes("gbk.txt"),
        [
            0xC4, 0xE3, 0xBA, 0xC3, 0xA3, 0xAC, 0xC5, 0xF3, 0xD3, 0xD1, 0x0D, 0x0A
        ]
    );
}

#[test]
fn an_unencodable_replacement_is_refused_and_the_file_kept() {
    let sb = Sandbox::new();
    // "你好，世界\r\n" in GBK (long enough for detection to be sure).
    let gbk: &[u8] = &[
        0xC4, 0xE3, 0xBA, 0xC3, 0xA3, 0xAC, 0xCA, 0xC0, 0xBD, 0xE7, 0x0D, 0x0A,
    ];
    sb.write("gbk.txt", gbk);
    sb.record_read("gbk.txt", FULL_TEXT);
    let result = edit(&sb, "gbk.txt", "世界", "😀");
    assert_eq!(
        code(&result),
        Some(ToolErrorCode::FileWriteFailure),
        "{}",
        result.llm_content
    );
    assert_eq!(sb.bytes("gbk.txt"), gbk);
}

#[test]
fn the_file_mode_survives_the_atomic_write() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    let path = sb.write("run.sh", "echo hi\n");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    sb.record_read("run.sh", FULL_TEXT);
    assert_eq!(code(&edit(&sb, "run.sh", "hi", "there")), None);
    assert_eq!(
        fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o755
    );
}

#[test]
fn every_edit_error_code_reaches_the_model() {
    let sb = Sandbox::new();
    sb.write("a.txt", "one one\n");
    sb.record_read("a.txt", FULL_TEXT);
    let cases = [
        ("missing.txt", "x", "y", ToolErrorCode::FileNotFound),
        ("a.txt", "", "y", ToolErrorCode::AttemptToCreateExistingFile),
        ("a.txt", "zzz", "y", ToolErrorCode::EditNoOccurrenceFound),
        (
            "a.txt",
            "one",
            "two",
            ToolErrorCode::EditExpectedOccurrenceMismatch,
        ),
        ("a.txt", "one one", "one one", ToolErrorCode::EditNoChange),
    ];
    for (name, old, new, expected) in cases {
        let result = edit(&sb, name, old, new);
        assert_eq!(
            code(&result),
            Some(expected),
            "{name}: {old:?} -> {new:?}: {}",
            result.llm_content
        );
    }
    assert_eq!(sb.bytes("a.txt"), b"one one\n");
}

/// A file-history hook that records what it backed up and then deletes the
/// file, so the test can tell which side of the last check it ran on.
struct DeletingBackup(std::sync::Arc<std::sync::Mutex<Vec<std::path::PathBuf>>>);

impl toolpass_tools::workspace::EditBackup for DeletingBackup {
    fn track_edit(&self, path: &std::path::Path) {
        self.0.lock().unwrap().push(path.to_owned());
        fs::remove_file(path).unwrap();
    }
}

#[test]
fn the_backup_runs_before_the_last_freshness_check() {
    // SPEC.md `prior-read.toctou.windows`: a backup after the check would
    // widen the check-to-write window. Run before it, the deletion is seen by
    // the last check itself ("disappeared"); run after it, only the commit's
    // fingerprint comparison would notice ("modified since").
    let mut sb = Sandbox::new();
    let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    sb.session.set_backup(Box::new(DeletingBackup(log.clone())));
    sb.write("a.txt", "x = 1\n");
    sb.record_read("a.txt", FULL_TEXT);
    let result = edit(&sb, "a.txt", "x = 1", "x = 2");
    assert_eq!(code(&result), Some(ToolErrorCode::FileChangedSinceRead));
    assert!(
        result
            .llm_content
            .contains("disappeared after the model read it"),
        "{}",
        result.llm_content
    );
    assert_eq!(*log.lock().unwrap(), [sb.path("a.txt")]);
    // Creating a file backs nothing up.
    log.lock().unwrap().clear();
    assert_eq!(code(&edit(&sb, "new.txt", "", "hi\n")), None);
    assert!(log.lock().unwrap().is_empty());
}

#[test]
fn files_above_the_size_cap_are_refused_and_keep_their_bytes() {
    let sb = Sandbox::with_config(SessionConfig {
        max_file_bytes: 16,
        ..SessionConfig::default()
    });
    sb.write("big.txt", "0123456789abcdefXYZ\n");
    sb.write("small.txt", "0123\n");
    sb.record_read("big.txt", FULL_TEXT);
    sb.record_read("small.txt", FULL_TEXT);
    let edit = |rel: &str, old: &str, new: &str| {
        sb.call(
            "edit",
            json!({"file_path": sb.arg(rel), "old_string": old, "new_string": new}),
        )
    };
    // Reading it whole is refused...
    assert_eq!(
        code(&edit("big.txt", "XYZ", "x")),
        Some(ToolErrorCode::FileTooLarge)
    );
    // ...and so is writing more than the cap.
    let grown = edit("small.txt", "0123", "0123456789abcdefXYZ");
    assert_eq!(code(&grown), Some(ToolErrorCode::FileTooLarge));
    assert!(grown.llm_content.contains("above the 16-byte limit"));
    let write = sb.call(
        "write_file",
        json!({"file_path": sb.arg("new.txt"), "content": "x".repeat(17)}),
    );
    assert_eq!(code(&write), Some(ToolErrorCode::FileTooLarge));
    assert_eq!(sb.bytes("big.txt"), b"0123456789abcdefXYZ\n");
    assert_eq!(sb.bytes("small.txt"), b"0123\n");
    assert!(!sb.path("new.txt").exists());
}
