//! `check_prior_read`, one test per row of its decision table,
//! on real files.

mod common;

use std::fs;

use toolpass_tools::faults::FaultPoint;
use toolpass_tools::prior_read::{Decision, Verb, check_prior_read};
use toolpass_tools::read_cache::ReadKind;

use common::{FULL_TEXT, Sandbox};
use toolpass_tools::error_code::ToolErrorCode;

/// The decision for `name`, shown to the model as `name`.
fn check(sb: &Sandbox, name: &str, verb: Verb, expect_existing: bool) -> Decision {
    check_prior_read(
        &sb.session.read_cache(),
        sb.session.faults(),
        &sb.located(name),
        name,
        verb,
        expect_existing,
    )
}

/// The code and model text of a decision that must be a refusal.
fn refusal(sb: &Sandbox, name: &str, verb: Verb, expect_existing: bool) -> (ToolErrorCode, String) {
    let refusal = check(sb, name, verb, expect_existing).unwrap_err();
    (refusal.code, refusal.raw_message)
}

#[test]
fn missing_and_not_expected_is_a_new_file() {
    let sb = Sandbox::new();
    assert!(matches!(
        check(&sb, "new.txt", Verb::Editing, false),
        Ok(None)
    ));
}

#[test]
fn missing_but_expected_is_a_file_that_vanished() {
    let sb = Sandbox::new();
    let (code, raw) = refusal(&sb, "gone.txt", Verb::Editing, true);
    assert_eq!(code, ToolErrorCode::FileChangedSinceRead);
    assert!(raw.contains("disappeared after the model read it"), "{raw}");
}

#[test]
fn any_other_stat_error_fails_closed() {
    let sb = Sandbox::new();
    fs::write(sb.path("a.txt"), "x").unwrap();
    sb.session.faults().arm(FaultPoint::FsStat, 1);
    let (code, raw) = refusal(&sb, "a.txt", Verb::Overwriting, false);
    assert_eq!(code, ToolErrorCode::PriorReadVerificationFailed);
    assert_eq!(
        raw,
        "Could not stat a.txt to verify prior read (EACCES). Re-read with the read_file tool, then retry overwriting it."
    );
}

#[test]
fn a_directory_is_refused() {
    let sb = Sandbox::new();
    fs::create_dir(sb.path("d")).unwrap();
    assert_eq!(
        refusal(&sb, "d", Verb::Editing, false).0,
        ToolErrorCode::TargetIsDirectory
    );
}

#[test]
fn a_fifo_is_refused_without_opening_it() {
    let sb = Sandbox::new();
    let status = std::process::Command::new("mkfifo")
        .arg(sb.path("p"))
        .status()
        .unwrap();
    assert!(status.success());
    let (code, raw) = refusal(&sb, "p", Verb::Editing, false);
    assert_eq!(code, ToolErrorCode::EditRequiresPriorRead);
    assert!(
        raw.starts_with("p is a FIFO / socket / character or block device."),
        "{raw}"
    );
}

#[test]
fn fresh_text_read_passes_even_when_partial() {
    let sb = Sandbox::new();
    fs::write(sb.path("a.txt"), "x").unwrap();
    sb.record_read(
        "a.txt",
        ReadKind {
            full: false,
            cacheable: true,
        },
    );
    assert!(matches!(
        check(&sb, "a.txt", Verb::Editing, true),
        Ok(Some(_))
    ));
}

#[test]
fn stale_is_refused() {
    let sb = Sandbox::new();
    fs::write(sb.path("a.txt"), "x").unwrap();
    sb.record_read("a.txt", FULL_TEXT);
    fs::write(sb.path("a.txt"), "longer").unwrap();
    assert_eq!(
        refusal(&sb, "a.txt", Verb::Editing, false).0,
        ToolErrorCode::FileChangedSinceRead
    );
}

#[test]
fn a_file_replaced_after_the_read_is_stale_whatever_its_new_inode() {
    // The runner's `fs: write` and many editors replace a file (a new inode)
    // rather than rewrite it. Keyed by inode alone, the verdict depended on
    // whether the allocator reused the old number ("changed since read") or
    // not ("never read"). Keep the old inode alive with a hard link so the
    // new file certainly gets another number.
    let sb = Sandbox::new();
    fs::write(sb.path("a.txt"), "v1").unwrap();
    sb.record_read("a.txt", FULL_TEXT);
    fs::hard_link(sb.path("a.txt"), sb.path("keep.txt")).unwrap();
    fs::remove_file(sb.path("a.txt")).unwrap();
    fs::write(sb.path("a.txt"), "v1").unwrap();
    let (code, raw) = refusal(&sb, "a.txt", Verb::Editing, false);
    assert_eq!(code, ToolErrorCode::FileChangedSinceRead, "{raw}");
    assert!(
        raw.contains("has been modified since you last read it"),
        "{raw}"
    );
    // The other name of the old inode was never read.
    assert_eq!(
        refusal(&sb, "keep.txt", Verb::Editing, false).0,
        ToolErrorCode::EditRequiresPriorRead
    );
}

#[test]
fn fresh_but_not_text_is_refused_with_its_own_message() {
    let sb = Sandbox::new();
    fs::write(sb.path("a.png"), [0x89, b'P', b'N', b'G']).unwrap();
    sb.record_read(
        "a.png",
        ReadKind {
            full: true,
            cacheable: false,
        },
    );
    let (code, raw) = refusal(&sb, "a.png", Verb::Editing, false);
    assert_eq!(code, ToolErrorCode::EditRequiresPriorRead);
    assert!(
        raw.contains("binary / image / audio / video / PDF / notebook payload"),
        "{raw}"
    );
}

#[test]
fn unknown_is_refused_with_the_verbs_guidance() {
    let sb = Sandbox::new();
    fs::write(sb.path("a.txt"), "x").unwrap();
    let (code, raw) = refusal(&sb, "a.txt", Verb::Editing, false);
    assert_eq!(code, ToolErrorCode::EditRequiresPriorRead);
    assert!(
        raw.contains("(a partial read with offset / limit is fine"),
        "{raw}"
    );
    let (_, raw) = refusal(&sb, "a.txt", Verb::Overwriting, false);
    assert!(raw.contains("(read the full file"), "{raw}");
}

#[test]
fn a_reused_inode_does_not_inherit_another_files_read() {
    // Regression: on tmpfs a deleted file's inode number goes to the next new
    // file at once, and the cache is keyed by inode, so a never-read file was
    // judged by the record of the file that had the number before (seen as a
    // false "modified since you last read it"). The record now counts only
    // for the path it was made under. A hard link reproduces "same inode,
    // other path" deterministically.
    let sb = Sandbox::new();
    fs::write(sb.path("seen.txt"), "seen").unwrap();
    sb.record_read("seen.txt", FULL_TEXT);
    fs::hard_link(sb.path("seen.txt"), sb.path("other.txt")).unwrap();
    let (code, raw) = refusal(&sb, "other.txt", Verb::Editing, false);
    assert_eq!(code, ToolErrorCode::EditRequiresPriorRead, "{raw}");
    assert!(raw.contains("has not been read in this session"), "{raw}");
    assert!(matches!(
        check(&sb, "seen.txt", Verb::Editing, false),
        Ok(Some(_))
    ));
}
