//! `write_file` end to end on a real sandbox: read-before-write, byte
//! fidelity of overwrites, the fault points and every error code. Expected
//! texts were taken from Qwen Code 0.24.4 run on the same files, except
//! where a comment names a deliberate difference.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use toolpass_tools::faults::{CONCURRENT_WRITE, FaultPoint};
use toolpass_tools::result::{Display, ToolResult};
use toolpass_tools::session::{Session, SessionConfig};
use toolpass_tools::tool::BuildError;

struct Sandbox {
    _dir: tempfile::TempDir,
    session: Session,
}

impl Sandbox {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let session = Session::new(dir.path(), SessionConfig::default()).unwrap();
        Sandbox { _dir: dir, session }
    }

    fn root(&self) -> &Path {
        self.session.sandbox().root()
    }

    fn path(&self, name: &str) -> PathBuf {
        self.root().join(name)
    }

    fn arg(&self, name: &str) -> String {
        self.path(name).to_str().unwrap().to_owned()
    }

    fn put(&self, name: &str, bytes: impl AsRef<[u8]>) {
        fs::write(self.path(name), bytes).unwrap();
    }

    fn bytes(&self, name: &str) -> Vec<u8> {
        fs::read(self.path(name)).unwrap()
    }

    fn run(&self, tool: &str, args: Value) -> ToolResult {
        let tool = self.session.registry().get(tool).unwrap();
        match tool.build(&args, &self.session) {
            Ok(invocation) => invocation.execute(&self.session),
            Err(e) => panic!("{} {}", e.code, e.message),
        }
    }

    fn build_error(&self, args: Value) -> BuildError {
        let tool = self.session.registry().get("write_file").unwrap();
        match tool.build(&args, &self.session) {
            Ok(_) => panic!("built: {args}"),
            Err(e) => e,
        }
    }

    fn read(&self, name: &str) -> ToolResult {
        self.run("read_file", json!({"file_path": self.arg(name)}))
    }

    fn write(&self, name: &str, content: &str) -> ToolResult {
        self.run(
            "write_file",
            json!({"file_path": self.arg(name), "content": content}),
        )
    }
}

fn ok(result: &ToolResult) -> &str {
    assert!(result.error.is_none(), "unexpected error: {result:?}");
    &result.llm_content
}

fn code(result: &ToolResult) -> &'static str {
    result.error.as_ref().expect("an error").code
}

#[test]
fn a_file_never_read_cannot_be_overwritten() {
    let sb = Sandbox::new();
    sb.put("a.txt", "old\n");
    let result = sb.write("a.txt", "new\n");
    assert_eq!(code(&result), "edit_requires_prior_read");
    // The full-read hint of seed §6.4.
    insta::assert_snapshot!(result.llm_content.replace(&sb.arg("a.txt"), "{path}"), @"File {path} has not been read in this session. Use the read_file tool first to load the current content (read the full file — overwriting replaces every byte, so any unseen bytes would be discarded) before overwriting it.");
    assert_eq!(sb.bytes("a.txt"), b"old\n");
}

#[test]
fn a_new_file_is_created_with_its_directories_as_plain_utf8() {
    let sb = Sandbox::new();
    let result = sb.write("new/dir/n.txt", "\u{FEFF}héllo\r\nworld");
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
    assert_eq!(ok(&sb.read("new/dir/n.txt")), "héllo\nworld");
    assert!(ok(&sb.read("new/dir/n.txt")).starts_with("[File new/dir/n.txt unchanged"));
    // And it may be overwritten without another read.
    ok(&sb.write("new/dir/n.txt", "again"));
    assert_eq!(sb.bytes("new/dir/n.txt"), b"\xef\xbb\xbfagain");
}

#[test]
fn an_overwrite_after_a_read_keeps_bom_and_crlf() {
    let sb = Sandbox::new();
    sb.put("bom.txt", "\u{FEFF}a\r\nb\r\n");
    assert_eq!(ok(&sb.read("bom.txt")), "a\nb\n");
    let result = sb.write("bom.txt", "x\ny\n");
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
    sb.put("u16.txt", utf16("one\r\n"));
    ok(&sb.read("u16.txt"));
    ok(&sb.write("u16.txt", "zwei\ndrei\n"));
    assert_eq!(sb.bytes("u16.txt"), utf16("zwei\r\ndrei\r\n"));

    // "你好，世界\n第二行\n" in GBK.
    sb.put(
        "gbk.txt",
        b"\xc4\xe3\xba\xc3\xa3\xac\xca\xc0\xbd\xe7\n\xb5\xda\xb6\xfe\xd0\xd0\n",
    );
    ok(&sb.read("gbk.txt"));
    ok(&sb.write("gbk.txt", "世界\n"));
    assert_eq!(sb.bytes("gbk.txt"), b"\xca\xc0\xbd\xe7\n");
    // Beyond Qwen: a character GBK cannot hold is refused, not written
    // as '?'.
    let result = sb.write("gbk.txt", "emoji 😀\n");
    assert_eq!(code(&result), "file_write_failure");
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
    sb.put("a.txt", "1\n2\n3\n");
    ok(&sb.run(
        "read_file",
        json!({"file_path": sb.arg("a.txt"), "limit": 1}),
    ));
    ok(&sb.write("a.txt", "all new\n"));
    assert_eq!(sb.bytes("a.txt"), b"all new\n");
}

#[test]
fn a_file_changed_since_the_read_is_refused_and_kept() {
    let sb = Sandbox::new();
    sb.put("a.txt", "old\n");
    ok(&sb.read("a.txt"));
    sb.put("a.txt", "changed behind\n");
    let result = sb.write("a.txt", "mine\n");
    assert_eq!(code(&result), "file_changed_since_read");
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
    sb.put("a.txt", "old\n");
    ok(&sb.read("a.txt"));
    sb.session.faults().arm(FaultPoint::WriteBeforeCommit, 1);
    let result = sb.write("a.txt", "mine\n");
    assert_eq!(code(&result), "file_changed_since_read");
    assert_eq!(
        sb.bytes("a.txt"),
        format!("old\n{CONCURRENT_WRITE}").as_bytes()
    );
    // A create that loses the race to another creator is refused too.
    sb.session.faults().arm(FaultPoint::WriteBeforeCommit, 1);
    let result = sb.write("fresh.txt", "mine\n");
    assert_eq!(code(&result), "file_changed_since_read");
    assert_eq!(sb.bytes("fresh.txt"), CONCURRENT_WRITE.as_bytes());
}

#[test]
fn a_stat_error_fails_closed() {
    let sb = Sandbox::new();
    sb.put("a.txt", "old\n");
    ok(&sb.read("a.txt"));
    sb.session.faults().arm(FaultPoint::FsStat, 1);
    let result = sb.write("a.txt", "mine\n");
    assert_eq!(code(&result), "prior_read_verification_failed");
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
        let result = sb.write("a.txt", "mine\n");
        assert_eq!(
            code(&result),
            "prior_read_verification_failed",
            "skip {skip}"
        );
        assert_eq!(sb.bytes("a.txt"), b"old\n");
    }
}

#[test]
fn binary_content_cannot_be_overwritten_even_after_a_read() {
    let sb = Sandbox::new();
    sb.put("bin.dat", b"\x00\x01\x02");
    ok(&sb.read("bin.dat"));
    let result = sb.write("bin.dat", "text");
    assert_eq!(code(&result), "edit_requires_prior_read");
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
    let error = sb.build_error(json!({"file_path": sb.arg("d"), "content": "x"}));
    assert_eq!(
        (error.code, error.message),
        (
            "invalid_tool_params",
            format!("Path is a directory, not a file: {}", sb.arg("d"))
        )
    );
    std::os::unix::fs::symlink("d", sb.path("dlink")).unwrap();
    let result = sb.write("dlink", "x");
    assert_eq!(code(&result), "target_is_directory");
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
    let result = sb.write("fifo", "x");
    assert_eq!(code(&result), "edit_requires_prior_read");
    assert!(
        result
            .llm_content
            .contains("is a FIFO / socket / character or block device.")
    );

    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("x.txt");
    let error = sb.build_error(json!({"file_path": target.to_str().unwrap(), "content": "x"}));
    assert_eq!(error.code, "path_not_in_workspace");
    assert!(!target.exists());
}

#[test]
fn invalid_paths_use_qwens_messages() {
    let sb = Sandbox::new();
    let error = sb.build_error(json!({"file_path": "rel.txt", "content": "x"}));
    assert_eq!(error.message, "File path must be absolute: rel.txt");
    let error = sb.build_error(json!({"file_path": " ", "content": "x"}));
    assert_eq!(error.message, r#"Missing or empty "file_path""#);
    let error = sb.build_error(json!({"file_path": sb.arg("a.txt")}));
    assert_eq!(error.code, "invalid_tool_params");
}

#[test]
fn artifact_like_files_get_no_artifact_note() {
    // Beyond Qwen: 0.24.4 appends 'This file was automatically recorded as a
    // workspace artifact ...' for .html and similar; there are no artifacts
    // here, and `record_as_artifact` is accepted and ignored.
    let sb = Sandbox::new();
    let result = sb.run(
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
