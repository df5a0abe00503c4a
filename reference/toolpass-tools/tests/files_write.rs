//! `write_file` end to end on a real sandbox: read-before-write, byte
//! fidelity of overwrites, the fault points and every error code. Expected
//! texts were taken from Qwen Code 0.24.4 run on the same files, except
//! where a comment names a deliberate difference.

mod common;

use std::fs;

use serde_json::json;
use toolpass_tools::faults::{CONCURRENT_WRITE, FaultPoint};
use toolpass_tools::result::{Display, ToolResult};

use common::{Sandbox, ok};
use toolpass_tools::error_code::ToolErrorCode;

/// Reads `name` with the `read_file` tool, as the model would first.
fn read_file(sb: &Sandbox, name: &str) -> ToolResult {
    sb.execute("read_file", json!({"file_path": sb.arg(name)}))
}

/// Writes `content` to `name` with the `write_file` tool.
fn write_file(sb: &Sandbox, name: &str, content: &str) -> ToolResult {
    sb.execute(
        "write_file",
        json!({"file_path": sb.arg(name), "content": content}),
    )
}

fn code(result: &ToolResult) -> ToolErrorCode {
    result.error.as_ref().expect("an error").code
}

#[test]
fn a_file_never_read_cannot_be_overwritten() {
    let sb = Sandbox::new();
    sb.write("a.txt", "old\n");
    let result = write_file(&sb, "a.txt", "new\n");
    assert_eq!(code(&result), ToolErrorCode::EditRequiresPriorRead);
    // The full-read hint of Qwen's write_file.
    insta::assert_snapshot!(result.llm_content.replace(&sb.arg("a.txt"), "{path}"), @"File {path} has not been read in this session. Use the read_file tool first to load the current content (read the full file — overwriting replaces every byte, so any unseen bytes would be discarded) before overwriting it.");
    assert_eq!(sb.bytes("a.txt"), b"old\n");
}

#[test]
fn a_new_file_is_created_with_its_directories_as_plain_utf8() {
    let sb = Sandbox::new();
    let result = write_file(&sb, "new/dir/n.txt", "\u{FEFF}héllo\r\nworld");
    assert_eq!(
        ok(&result),
        format!(
            "Successfully created and wrote to new file: {}.",
            sb.arg("new/dir/n.txt")
        )
    );
    assert_eq!(
        sb.bytes("new/dir/n.txt"),
        "\u{FEFF}héllo\r\nworld".as_bytes()
    );
    let Display::Diff(diff) = &result.display else {
        panic!("a diff")
    };
    assert_eq!((diff.old.as_str(), diff.stat.added_lines), ("", 2));
    // The write counts as a read of what was written: the next full read
    // shows it (read after write), the one after that is the placeholder.
    assert_eq!(ok(&read_file(&sb, "new/dir/n.txt")), "héllo\nworld");
    assert!(ok(&read_file(&sb, "new/dir/n.txt")).starts_with("[File new/dir/n.txt unchanged"));
    // And it may be overwritten without another read.
    ok(&write_file(&sb, "new/dir/n.txt", "again"));
    assert_eq!(sb.bytes("new/dir/n.txt"), b"\xef\xbb\xbfagain");
}

#[test]
fn an_overwrite_after_a_read_keeps_bom_and_crlf() {
    let sb = Sandbox::new();
    sb.write("bom.txt", "\u{FEFF}a\r\nb\r\n");
    assert_eq!(ok(&read_file(&sb, "bom.txt")), "a\nb\n");
    let result = write_file(&sb, "bom.txt", "x\ny\n");
    assert_eq!(
        ok(&result),
        format!("Successfully overwrote file: {}.", sb.arg("bom.txt"))
    );
    assert_eq!(sb.bytes("bom.txt"), b"\xef\xbb\xbfx\r\ny\r\n");
    let Display::Diff(diff) = &result.display else {
        panic!("a diff")
    };
    assert_eq!(diff.old, "a\r\nb\r\n");
}

#[test]
fn utf16_and_gbk_files_stay_in_their_encoding() {
    let sb = Sandbox::new();
    let utf16 = |s: &str| {
        let mut b = vec![0xFF, 0xFE];
        b.extend(s.encode_utf16().flat_map(u16::to_le_bytes));
        b
    };
    sb.write("u16.txt", utf16("one\r\n"));
    ok(&read_file(&sb, "u16.txt"));
    ok(&write_file(&sb, "u16.txt", "zwei\ndrei\n"));
    assert_eq!(sb.bytes("u16.txt"), utf16("zwei\r\ndrei\r\n"));

    // "你好，世界\n第二行\n" in GBK.
    sb.write(
        "gbk.txt",
        b"\xc4\xe3\xba\xc3\xa3\xac\xca\xc0\xbd\xe7\n\xb5\xda\xb6\xfe\xd0\xd0\n",
    );
    ok(&read_file(&sb, "gbk.txt"));
    ok(&write_file(&sb, "gbk.txt", "世界\n"));
    assert_eq!(sb.bytes("gbk.txt"), b"\xca\xc0\xbd\xe7\n");
    // Beyond Qwen: a character GBK cannot hold is refused, not written
    // as '?'.
    let result = write_file(&sb, "gbk.txt", "emoji 😀\n");
    assert_eq!(code(&result), ToolErrorCode::FileWriteFailure);
    assert!(
        result
            .llm_content
            .starts_with("Error writing to file: failed to encode content:")
    );
    assert_eq!(sb.bytes("gbk.txt"), b"\xca\xc0\xbd\xe7\n");
}

#[test]
fn a_partial_read_is_enough_to_overwrite() {
    let sb = Sandbox::new();
    sb.write("a.txt", "1\n2\n3\n");
    ok(&sb.execute(
        "read_file",
        json!({"file_path": sb.arg("a.txt"), "limit": 1}),
    ));
    ok(&write_file(&sb, "a.txt", "all new\n"));
    assert_eq!(sb.bytes("a.txt"), b"all new\n");
}

#[test]
fn a_file_changed_since_the_read_is_refused_and_kept() {
    let sb = Sandbox::new();
    sb.write("a.txt", "old\n");
    ok(&read_file(&sb, "a.txt"));
    sb.write("a.txt", "changed behind\n");
    let result = write_file(&sb, "a.txt", "mine\n");
    assert_eq!(code(&result), ToolErrorCode::FileChangedSinceRead);
    assert_eq!(
        result.llm_content,
        format!(
            "File {} has been modified since you last read it (mtime or size changed). Re-read it with the read_file tool before overwriting it to ensure your changes are based on current content.",
            sb.arg("a.txt")
        )
    );
    assert_eq!(sb.bytes("a.txt"), b"changed behind\n");
}

#[test]
fn a_writer_between_the_last_check_and_the_commit_keeps_its_bytes() {
    let sb = Sandbox::new();
    sb.write("a.txt", "old\n");
    ok(&read_file(&sb, "a.txt"));
    sb.session.faults().arm(FaultPoint::WriteBeforeCommit, 1);
    let result = write_file(&sb, "a.txt", "mine\n");
    assert_eq!(code(&result), ToolErrorCode::FileChangedSinceRead);
    assert_eq!(
        sb.bytes("a.txt"),
        format!("old\n{CONCURRENT_WRITE}").as_bytes()
    );
    // A create that loses the race to another creator is refused too.
    sb.session.faults().arm(FaultPoint::WriteBeforeCommit, 1);
    let result = write_file(&sb, "fresh.txt", "mine\n");
    assert_eq!(code(&result), ToolErrorCode::FileChangedSinceRead);
    assert_eq!(sb.bytes("fresh.txt"), CONCURRENT_WRITE.as_bytes());
}

#[test]
fn a_stat_error_fails_closed() {
    let sb = Sandbox::new();
    sb.write("a.txt", "old\n");
    ok(&read_file(&sb, "a.txt"));
    sb.session.faults().arm(FaultPoint::FsStat, 1);
    let result = write_file(&sb, "a.txt", "mine\n");
    assert_eq!(code(&result), ToolErrorCode::PriorReadVerificationFailed);
    assert_eq!(
        result.llm_content,
        format!(
            "Could not stat {} to verify prior read (EACCES). Re-read with the read_file tool, then retry overwriting it.",
            sb.arg("a.txt")
        )
    );
    assert_eq!(sb.bytes("a.txt"), b"old\n");
    // The after-read and before-write checks fail closed as well.
    for skip in [1, 2] {
        sb.session.faults().arm_after(FaultPoint::FsStat, skip, 1);
        let result = write_file(&sb, "a.txt", "mine\n");
        assert_eq!(
            code(&result),
            ToolErrorCode::PriorReadVerificationFailed,
            "skip {skip}"
        );
        assert_eq!(sb.bytes("a.txt"), b"old\n");
    }
}

#[test]
fn binary_content_cannot_be_overwritten_even_after_a_read() {
    let sb = Sandbox::new();
    sb.write("bin.dat", b"\x00\x01\x02");
    ok(&read_file(&sb, "bin.dat"));
    let result = write_file(&sb, "bin.dat", "text");
    assert_eq!(code(&result), ToolErrorCode::EditRequiresPriorRead);
    assert!(
        result
            .llm_content
            .contains("is a binary / image / audio / video / PDF / notebook payload")
    );
    assert_eq!(sb.bytes("bin.dat"), b"\x00\x01\x02");
}

#[test]
fn directories_fifos_and_escapes_are_refused() {
    let sb = Sandbox::new();
    fs::create_dir(sb.path("d")).unwrap();
    let error = sb.build_error(
        "write_file",
        json!({"file_path": sb.arg("d"), "content": "x"}),
    );
    assert_eq!(
        (error.code, error.message),
        (
            ToolErrorCode::InvalidToolParams,
            format!("Path is a directory, not a file: {}", sb.arg("d"))
        )
    );
    std::os::unix::fs::symlink("d", sb.path("dlink")).unwrap();
    let result = write_file(&sb, "dlink", "x");
    assert_eq!(code(&result), ToolErrorCode::TargetIsDirectory);
    assert_eq!(
        result.llm_content,
        format!(
            "{} is a directory. The Edit / WriteFile tools only operate on regular files. Use a different mechanism (e.g. the shell tool) if you need to overwrite the contents of this directory.",
            sb.arg("dlink")
        )
    );

    let status = std::process::Command::new("mkfifo")
        .arg(sb.path("fifo"))
        .status()
        .unwrap();
    assert!(status.success());
    let result = write_file(&sb, "fifo", "x");
    assert_eq!(code(&result), ToolErrorCode::EditRequiresPriorRead);
    assert!(
        result
            .llm_content
            .contains("is a FIFO / socket / character or block device.")
    );

    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("x.txt");
    let error = sb.build_error(
        "write_file",
        json!({"file_path": target.to_str().unwrap(), "content": "x"}),
    );
    assert_eq!(error.code, ToolErrorCode::PathNotInWorkspace);
    assert!(!target.exists());
}

#[test]
fn invalid_paths_use_qwens_messages() {
    let sb = Sandbox::new();
    let error = sb.build_error(
        "write_file",
        json!({"file_path": "rel.txt", "content": "x"}),
    );
    assert_eq!(error.message, "File path must be absolute: rel.txt");
    let error = sb.build_error("write_file", json!({"file_path": " ", "content": "x"}));
    assert_eq!(error.message, r#"Missing or empty "file_path""#);
    let error = sb.build_error("write_file", json!({"file_path": sb.arg("a.txt")}));
    assert_eq!(error.code, ToolErrorCode::InvalidToolParams);
}

#[test]
fn artifact_like_files_get_no_artifact_note() {
    // Beyond Qwen: 0.24.4 appends 'This file was automatically recorded as a
    // workspace artifact ...' for .html and similar; there are no artifacts
    // here, and `record_as_artifact` is accepted and ignored.
    let sb = Sandbox::new();
    let result = sb.execute(
        "write_file",
        json!({"file_path": sb.arg("page.html"), "content": "<p>", "record_as_artifact": true}),
    );
    assert_eq!(
        ok(&result),
        format!(
            "Successfully created and wrote to new file: {}.",
            sb.arg("page.html")
        )
    );
}
